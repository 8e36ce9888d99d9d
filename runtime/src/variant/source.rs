//! Where each piece of a variant's data came from: the variant's own file, the files of
//! the variants it extends, or `--set` overrides.
//!
//! All inputs are parsed into one spanned TOML tree whose spans are offsets in a virtual
//! concatenation of the sources. Any span (from a parse error, a type error, or a
//! semantic check) can then be turned back into `file:line:col`, or into the `--set`
//! that caused it.

use std::ops::Range;
use std::str::FromStr;

use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

use crate::error::{LoadError, Problem, line_col};

/// One `--set KEY=VALUE` override: a dotted path (`pieces.queen.value`, array items by
/// index: `pieces.pawn.moves.1.range`) and a TOML value (bare words are strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    pub key: String,
    pub value: String,
}

impl FromStr for Override {
    type Err = LoadError;
    fn from_str(s: &str) -> Result<Override, LoadError> {
        match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && k.trim().split('.').all(|p| !p.is_empty()) => {
                Ok(Override { key: k.trim().to_string(), value: v.trim().to_string() })
            }
            _ => Err(LoadError::Invalid {
                problems: vec![Problem {
                    file: format!("--set {s}"),
                    line: 0,
                    col: 0,
                    message: "expected KEY=VALUE, such as pieces.queen.value=950".into(),
                }],
            }),
        }
    }
}

impl std::fmt::Display for Override {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.key, self.value)
    }
}

struct Source {
    label: String,
    text: String,
    offset: usize,
    is_override: bool,
}

/// The sources of one variant, in merge order.
#[derive(Default)]
pub(crate) struct Sources {
    items: Vec<Source>,
    end: usize,
}

impl Sources {
    /// Adds a file (or an override's text); returns its offset.
    pub fn add(&mut self, label: &str, text: String, is_override: bool) -> usize {
        let offset = self.end;
        self.end += text.len() + 1;
        self.items.push(Source { label: label.to_string(), text, offset, is_override });
        offset
    }

    pub fn text(&self, i: usize) -> &str {
        &self.items[i].text
    }

    pub fn offset(&self, i: usize) -> usize {
        self.items[i].offset
    }

    pub fn label(&self, i: usize) -> &str {
        &self.items[i].label
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// A problem at a span of the virtual concatenation.
    pub fn problem(&self, span: Range<usize>, message: impl Into<String>) -> Problem {
        let message = message.into();
        if span == (0..0) {
            // No place known: blame the variant's own file (the last one merged).
            let file = self.items.iter().rev().find(|s| !s.is_override).map_or(String::new(), |s| s.label.clone());
            return Problem { file, line: 0, col: 0, message };
        }
        let Some(s) = self.items.iter().rev().find(|s| s.offset <= span.start && span.start <= s.offset + s.text.len())
        else {
            let file = self.items.last().map_or(String::new(), |s| s.label.clone());
            return Problem { file, line: 0, col: 0, message };
        };
        if s.is_override {
            return Problem { file: format!("--set {}", s.text), line: 0, col: 0, message };
        }
        let (line, col) = line_col(&s.text, span.start - s.offset);
        Problem { file: s.label.clone(), line, col, message }
    }
}

fn shift_value<'i>(v: Spanned<DeValue<'i>>, off: usize) -> Spanned<DeValue<'i>> {
    let span = v.span();
    let inner = match v.into_inner() {
        DeValue::Table(t) => DeValue::Table(shift_table(t, off)),
        DeValue::Array(mut a) => {
            for item in a.iter_mut() {
                let taken = std::mem::replace(item, Spanned::new(0..0, DeValue::Boolean(false)));
                *item = shift_value(taken, off);
            }
            DeValue::Array(a)
        }
        other => other,
    };
    Spanned::new(span.start + off..span.end + off, inner)
}

fn shift_table<'i>(t: DeTable<'i>, off: usize) -> DeTable<'i> {
    let mut out = DeTable::new();
    for (k, v) in t {
        let ks = k.span();
        out.insert(Spanned::new(ks.start + off..ks.end + off, k.into_inner()), shift_value(v, off));
    }
    out
}

/// Parses source `i` into a spanned tree positioned in the virtual concatenation.
pub(crate) fn parse<'a>(sources: &'a Sources, i: usize) -> Result<Spanned<DeTable<'a>>, Problem> {
    let off = sources.offset(i);
    match DeTable::parse(sources.text(i)) {
        Ok(t) => {
            let span = t.span();
            Ok(Spanned::new(span.start + off..span.end + off, shift_table(t.into_inner(), off)))
        }
        Err(e) => {
            let span = e.span().map_or(off..off, |s| s.start + off..s.end + off);
            Err(sources.problem(span, e.message().trim().to_string()))
        }
    }
}

/// Lays `child` over `base`: tables merge key by key, anything else is replaced.
pub(crate) fn merge<'a>(base: &mut DeTable<'a>, child: DeTable<'a>) {
    for (k, v) in child {
        let key: &str = k.get_ref();
        let both_tables = matches!(base.get(key).map(|b| b.get_ref()), Some(DeValue::Table(_)))
            && matches!(v.get_ref(), DeValue::Table(_));
        if both_tables {
            let DeValue::Table(ct) = v.into_inner() else { unreachable!() };
            if let Some(DeValue::Table(bt)) = base.get_mut(key).map(|b| b.get_mut()) {
                merge(bt, ct);
            }
        } else {
            base.remove(key);
            base.insert(k, v);
        }
    }
}

/// Applies override source `i` (its text is `KEY=VALUE`) to the tree.
pub(crate) fn apply_override<'a>(sources: &'a Sources, i: usize, root: &mut DeTable<'a>) -> Result<(), Problem> {
    let text = sources.text(i);
    let off = sources.offset(i);
    let (key, value_text) = text.split_once('=').expect("overrides are KEY=VALUE");
    let value_off = off + key.len() + 1;
    let value_text_trim = value_text.trim();
    let lead = value_text.len() - value_text.trim_start().len();
    let value = match DeValue::parse(value_text_trim) {
        Ok(v) if !value_text_trim.is_empty() => shift_value(v, value_off + lead),
        _ => Spanned::new(
            value_off + lead..value_off + value_text.len(),
            DeValue::String(DeString::Borrowed(value_text_trim)),
        ),
    };
    let key_span = off..off + key.len();
    let parts: Vec<&str> = key.trim().split('.').collect();
    apply_path(sources, root, &parts, "", value, key_span)
}

fn array_path<'a>(
    sources: &'a Sources,
    array: &mut [Spanned<DeValue<'a>>],
    rest: &[&str],
    walked: &str,
    value: Spanned<DeValue<'a>>,
    key_span: Range<usize>,
) -> Result<(), Problem> {
    let Some((first, more)) = rest.split_first() else {
        return Err(sources.problem(key_span, format!("`{walked}` is a list: add an index, like `{walked}.0`")));
    };
    let idx: usize = first
        .parse()
        .map_err(|_| sources.problem(key_span.clone(), format!("`{walked}` is a list: `{first}` is not an index")))?;
    let len = array.len();
    let Some(item) = array.get_mut(idx) else {
        return Err(sources.problem(key_span, format!("`{walked}` has {len} entries; index {idx} is out of range")));
    };
    let here = format!("{walked}.{idx}");
    if more.is_empty() {
        *item = value;
        return Ok(());
    }
    match item.get_mut() {
        DeValue::Table(t) => apply_path(sources, t, more, &here, value, key_span),
        DeValue::Array(a) => array_path(sources, a, more, &here, value, key_span),
        other => Err(sources.problem(key_span, format!("`{here}` is a {}, not a table", other.type_str()))),
    }
}

fn apply_path<'a>(
    sources: &'a Sources,
    table: &mut DeTable<'a>,
    parts: &[&str],
    walked: &str,
    value: Spanned<DeValue<'a>>,
    key_span: Range<usize>,
) -> Result<(), Problem> {
    let (first, more) = parts.split_first().expect("a path has parts");
    if more.is_empty() {
        table.remove(*first);
        table.insert(Spanned::new(key_span, DeString::Owned(first.to_string())), value);
        return Ok(());
    }
    let here = if walked.is_empty() { first.to_string() } else { format!("{walked}.{first}") };
    if !table.contains_key(*first) {
        // A new table next to one of a very similar name is most likely a typo.
        let near = table
            .keys()
            .map(|k| k.get_ref().to_string())
            .filter(|k| crate::suggest::edit_distance(k, first) <= 2)
            .min_by_key(|k| crate::suggest::edit_distance(k, first));
        if let Some(near) = near {
            let at = if walked.is_empty() { String::new() } else { format!(" in `{walked}`") };
            return Err(sources.problem(key_span, format!("there is no `{first}`{at} (did you mean `{near}`?)")));
        }
        table.insert(
            Spanned::new(key_span.clone(), DeString::Owned(first.to_string())),
            Spanned::new(key_span.clone(), DeValue::Table(DeTable::new())),
        );
    }
    match table.get_mut(*first).unwrap().get_mut() {
        DeValue::Table(t) => apply_path(sources, t, more, &here, value, key_span),
        DeValue::Array(a) => array_path(sources, a, more, &here, value, key_span),
        other => Err(sources.problem(key_span, format!("`{here}` is a {}, not a table", other.type_str()))),
    }
}
