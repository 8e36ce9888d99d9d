//! Problems with their places while a variant compiles: collected (all of them, not the
//! first), sorted by file and position, and turned into `path:line:col: message`; and
//! the checks of the variant's name, which becomes part of paths.

use std::ops::Range;

use toml::Spanned;

use super::is_name;
use super::source::Sources;
use crate::error::{LoadError, Problem};

/// Collects problems with their places.
pub(crate) struct Diagnostics<'a> {
    pub sources: &'a Sources,
    pub problems: Vec<Problem>,
    /// Places whose complaints are left out: tables that lost an unknown key.
    pub quiet: Vec<Range<usize>>,
}

impl<'a> Diagnostics<'a> {
    pub fn new(sources: &'a Sources) -> Self {
        Diagnostics { sources, problems: Vec::new(), quiet: Vec::new() }
    }

    pub fn at(&mut self, span: Range<usize>, message: impl Into<String>) {
        if !self.quiet.contains(&span) {
            self.problems.push(self.sources.problem(span, message));
        }
    }

    pub fn finish(self) -> Result<(), LoadError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            // Files in merge order, then by position; overrides last.
            let sources = self.sources;
            let order = |file: &str| (0..sources.len()).position(|i| sources.label(i) == file);
            let mut problems = self.problems;
            problems.sort_by_key(|p| (p.file.starts_with("--set"), order(&p.file), p.line, p.col));
            Err(LoadError::Invalid { problems })
        }
    }
}

/// A structural problem (an unknown key, a wrong type), with a "did you mean" for a
/// misspelt key.
pub(crate) fn structural_problem(d: &mut Diagnostics, span: Range<usize>, message: &str) {
    let hint = crate::suggest::for_unknown_field(message);
    d.at(span, format!("{message}{hint}"));
}

/// The variant's name: `name`, or the folder's. A name is part of paths (the saved
/// game's folder), so it must be an identifier: `../../x` or `/tmp/x` is refused here.
pub(crate) fn variant_name(d: &mut Diagnostics, written: Option<&Spanned<String>>, default: Option<&str>) -> String {
    const RULE: &str = "a variant's name is 1 to 64 letters, digits, `-` and `_`, starting with a letter or digit";
    match written {
        Some(n) if is_name(n.get_ref()) => n.get_ref().clone(),
        Some(n) => {
            d.at(n.span(), format!("`{}` is not a variant name: {RULE}", n.get_ref().escape_debug()));
            "unnamed".into()
        }
        None => match default {
            None => "unnamed".into(),
            Some(f) if is_name(f) => f.to_string(),
            Some(f) => {
                d.at(
                    0..0,
                    format!(
                        "the folder's name `{}` is not a variant name ({RULE}): rename the folder or give `name = \"...\"`",
                        f.escape_debug()
                    ),
                );
                "unnamed".into()
            }
        },
    }
}
