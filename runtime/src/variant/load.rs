//! Finding variants and reading their files: by path, or by name in the folders of
//! `VARIA_PATH`, then `./scripts`, then the variants built into the library.
//!
//! A variant's files come from an [`Origin`]: a folder on disk or a built-in variant.
//! Folders on the search path override built-in variants of the same name, and add to
//! them; nothing depends on where the library was built.

use std::fmt;
use std::path::{Path, PathBuf};

use super::Variant;
use super::builtin::{BuiltIn, built_in, built_in_named};
use super::compile::{Input, compile};
use super::source::Override;
use crate::error::{LoadError, Problem};

/// Where a variant's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A folder on disk holding its `variant.toml`.
    Folder(PathBuf),
    /// Built into the library (the shipped variants).
    BuiltIn(&'static BuiltIn),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Folder(p) => f.write_str(&display_path(p)),
            Origin::BuiltIn(_) => f.write_str("built in"),
        }
    }
}

/// A file of a variant, read.
struct File {
    /// How messages name it.
    label: String,
    text: String,
    /// Its path on disk (none for a built-in file).
    path: Option<PathBuf>,
}

impl Origin {
    /// One of its files (`variant.toml`, `rules.lua`), or `None` if it has none.
    fn read(&self, name: &str) -> Result<Option<File>, LoadError> {
        match self {
            Origin::Folder(dir) => {
                let path = dir.join(name);
                if !path.is_file() {
                    return Ok(None);
                }
                let label = display_path(&path);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| LoadError::Io { path: label.clone(), message: e.to_string() })?;
                Ok(Some(File { label, text, path: Some(path) }))
            }
            Origin::BuiltIn(b) => {
                let Some(bytes) = b.file(name) else { return Ok(None) };
                let label = b.label(name);
                let text = std::str::from_utf8(bytes)
                    .map_err(|e| LoadError::Io { path: label.clone(), message: format!("not UTF-8 text: {e}") })?;
                Ok(Some(File { label, text: text.to_string(), path: None }))
            }
        }
    }

    /// Its `variant.toml`, which every variant has.
    fn variant_toml(&self) -> Result<File, LoadError> {
        self.read("variant.toml")?.ok_or_else(|| LoadError::NotAVariant { path: self.to_string() })
    }

    /// The same variant whoever names it: its canonical folder, or its built-in name.
    fn identity(&self) -> String {
        match self {
            Origin::Folder(d) => d.canonicalize().unwrap_or_else(|_| d.clone()).display().to_string(),
            Origin::BuiltIn(b) => b.label(""),
        }
    }
}

/// A variant found by [`known_variants`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub name: String,
    pub origin: Origin,
}

/// The folders searched for variants by name, before the built-in variants, in order:
/// each entry of `VARIA_PATH` (separated like `PATH`), then `./scripts`; only those that
/// exist, each once.
pub fn search_path() -> Vec<PathBuf> {
    candidate_folders().into_iter().map(|(d, _)| d).filter(|d| d.is_dir()).collect()
}

/// Every folder that would be searched, existing or not, with where it was named.
fn candidate_folders() -> Vec<(PathBuf, Option<&'static str>)> {
    let mut dirs: Vec<(PathBuf, Option<&'static str>)> = std::env::var_os("VARIA_PATH")
        .map(|v| {
            std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).map(|p| (p, Some("VARIA_PATH"))).collect()
        })
        .unwrap_or_default();
    dirs.push((PathBuf::from("./scripts"), None));
    let mut seen = Vec::new();
    dirs.retain(|(d, _)| {
        let key = d.canonicalize().unwrap_or_else(|_| d.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    dirs
}

/// Where a variant is looked for by name, for messages: each folder (saying when it
/// does not exist), then the built-in variants.
pub fn looked_in() -> Vec<String> {
    let mut out: Vec<String> = candidate_folders()
        .into_iter()
        .map(|(d, from)| {
            let notes: Vec<&str> = from.into_iter().chain((!d.is_dir()).then_some("no such folder")).collect();
            if notes.is_empty() { d.display().to_string() } else { format!("{} ({})", d.display(), notes.join(", ")) }
        })
        .collect();
    out.push(if built_in().is_empty() { "no built-in variants".into() } else { "the built-in variants".into() });
    out
}

/// Every variant that can be named, sorted by name: the variant folders of the search
/// path (the first folder that has a name wins), then the built-in variants that no
/// folder overrides.
pub fn known_variants() -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for dir in search_path() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut found: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("variant.toml").is_file())
            .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), p)))
            .collect();
        found.sort();
        for (name, path) in found {
            if !out.iter().any(|f| f.name == name) {
                out.push(Found { name, origin: Origin::Folder(path) });
            }
        }
    }
    for b in built_in() {
        if !out.iter().any(|f| f.name == b.name) {
            out.push(Found { name: b.name.to_string(), origin: Origin::BuiltIn(b) });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Whether a variant argument is a path (`./mine`, `a/b`, `/abs`, `x/variant.toml`)
/// rather than a name.
fn is_path(s: &str) -> bool {
    s.chars().any(std::path::is_separator) || s.starts_with('.') || Path::new(s).is_absolute() || s.ends_with(".toml")
}

/// The variant given by name or path. A path must be a variant folder (or its
/// `variant.toml`); a name is looked up with [`known_variants`], and last as a folder
/// of the working directory.
pub fn find(name_or_path: &str) -> Result<Origin, LoadError> {
    let p = Path::new(name_or_path);
    if is_path(name_or_path) {
        return folder_at(p);
    }
    let known = known_variants();
    if let Some(f) = known.iter().find(|f| f.name == name_or_path) {
        return Ok(f.origin.clone());
    }
    if p.join("variant.toml").is_file() {
        return Ok(Origin::Folder(p.to_path_buf()));
    }
    let names: Vec<String> = known.into_iter().map(|f| f.name).collect();
    let hint = crate::suggest::did_you_mean(name_or_path, names.iter().map(String::as_str));
    Err(LoadError::NotFound { name: name_or_path.to_string(), hint, known: names, looked_in: looked_in() })
}

/// The variant folder at a path (a folder, or its `variant.toml`).
fn folder_at(p: &Path) -> Result<Origin, LoadError> {
    let shown = p.display().to_string();
    if p.is_file() {
        if p.file_name().is_some_and(|n| n == "variant.toml") {
            let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            return Ok(Origin::Folder(dir.to_path_buf()));
        }
        return Err(LoadError::NotAVariant { path: shown });
    }
    if !p.is_dir() {
        return Err(LoadError::NoSuchFolder { path: shown });
    }
    if !p.join("variant.toml").is_file() {
        return Err(LoadError::NotAVariant { path: shown });
    }
    Ok(Origin::Folder(p.to_path_buf()))
}

/// A path to show in messages: relative to the working directory when inside it.
pub(crate) fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let abs = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if let Some(rel) = cwd.and_then(|c| abs.strip_prefix(c.canonicalize().ok()?).ok().map(Path::to_path_buf)) {
        return rel.display().to_string();
    }
    path.display().to_string()
}

/// A rules script of a variant (its `rules.lua`), with the path shown in messages.
#[derive(Debug, Clone)]
pub struct Script {
    pub label: String,
    pub text: String,
}

/// The files of a variant and of everything it extends, root ancestor first.
pub(crate) struct Chain {
    pub files: Vec<Input>,
    pub scripts: Vec<Script>,
    /// Every file read from disk, for reloading.
    pub paths: Vec<PathBuf>,
}

/// The `extends` value of a file, and its span, if it has one (and parses).
fn extends_of(text: &str) -> Option<(String, std::ops::Range<usize>)> {
    let t = toml::de::DeTable::parse(text).ok()?;
    let v = t.get_ref().get("extends")?;
    Some((v.get_ref().as_str()?.to_string(), v.span()))
}

fn located(label: &str, text: &str, span: std::ops::Range<usize>, message: String) -> LoadError {
    let (line, col) = crate::error::line_col(text, span.start);
    LoadError::Invalid { problems: vec![Problem { file: label.to_string(), line, col, message }] }
}

/// The variant an `extends` value names, from a file of `origin` (none: TOML text,
/// whose relative paths start from the working directory).
fn parent_of(parent: &str, origin: Option<&Origin>) -> Result<Origin, String> {
    if !is_path(parent) {
        return find(parent).map_err(|e| e.to_string());
    }
    match origin {
        Some(Origin::BuiltIn(b)) => {
            // A built-in variant's relative path can only name a sibling: `../standard`.
            let mut parts: Vec<&str> = vec![b.name];
            let mut escapes = Path::new(parent).is_absolute();
            for part in parent.split(std::path::is_separator) {
                match part {
                    "" | "." => {}
                    ".." => escapes |= parts.pop().is_none(),
                    name => parts.push(name),
                }
            }
            match parts.as_slice() {
                [name] if !escapes => built_in_named(name).map(Origin::BuiltIn),
                _ => None,
            }
            .ok_or_else(|| format!("`{parent}` is not a built-in variant (built-in variants extend others by name)"))
        }
        Some(Origin::Folder(dir)) => {
            let p = dir.join(parent);
            let p = p.canonicalize().unwrap_or(p);
            folder_at(&p).map_err(|e| e.to_string())
        }
        None => folder_at(Path::new(parent)).map_err(|e| e.to_string()),
    }
}

/// Reads `text` (labelled `label`, a file of `origin` if it is one) and, first, every
/// variant it extends.
fn read_chain(
    label: String,
    text: String,
    origin: Option<&Origin>,
    chain: &mut Chain,
    seen: &mut Vec<String>,
) -> Result<(), LoadError> {
    let key = origin.map_or(label.clone(), Origin::identity);
    if seen.contains(&key) {
        seen.push(key.clone());
        return Err(LoadError::Invalid {
            problems: vec![Problem {
                file: label,
                line: 0,
                col: 0,
                message: format!("`extends` makes a cycle: {}", seen.join(" → ")),
            }],
        });
    }
    seen.push(key);
    if let Some((parent, span)) = extends_of(&text) {
        let porigin =
            parent_of(&parent, origin).map_err(|e| located(&label, &text, span.clone(), format!("extends: {e}")))?;
        let pfile = porigin.variant_toml()?;
        read_chain(pfile.label, pfile.text, Some(&porigin), chain, seen)?;
    }
    if let Some(o) = origin
        && let Some(lua) = o.read("rules.lua")?
    {
        if let Some(p) = lua.path {
            chain.paths.push(p);
        }
        chain.scripts.push(Script { label: lua.label, text: lua.text });
    }
    if let Some(Origin::Folder(d)) = origin {
        chain.paths.push(d.join("variant.toml"));
    }
    chain.files.push(Input { label, text });
    Ok(())
}

/// Loads a variant by name or path.
pub(crate) fn load(name_or_path: &str, overrides: &[Override]) -> Result<Variant, LoadError> {
    load_from(&find(name_or_path)?, overrides)
}

/// Loads the variant at `origin`.
pub(crate) fn load_from(origin: &Origin, overrides: &[Override]) -> Result<Variant, LoadError> {
    let file = origin.variant_toml()?;
    let mut chain = Chain { files: Vec::new(), scripts: Vec::new(), paths: Vec::new() };
    read_chain(file.label, file.text, Some(origin), &mut chain, &mut Vec::new())?;
    let (dir, default_name) = match origin {
        Origin::Folder(d) => {
            let dir = d.canonicalize().unwrap_or_else(|_| d.clone());
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            (Some(dir), name)
        }
        Origin::BuiltIn(b) => (None, Some(b.name.to_string())),
    };
    let mut v = finish(chain, overrides, dir, default_name)?;
    if let Origin::BuiltIn(b) = origin {
        v.builtin = Some(b);
    }
    Ok(v)
}

/// Compiles TOML text (which may extend a variant found by name).
pub(crate) fn load_text(text: &str, label: &str, overrides: &[Override]) -> Result<Variant, LoadError> {
    let mut chain = Chain { files: Vec::new(), scripts: Vec::new(), paths: Vec::new() };
    read_chain(label.to_string(), text.to_string(), None, &mut chain, &mut Vec::new())?;
    finish(chain, overrides, None, None)
}

fn finish(
    chain: Chain,
    overrides: &[Override],
    dir: Option<PathBuf>,
    default_name: Option<String>,
) -> Result<Variant, LoadError> {
    let mut v = compile(chain.files, overrides, dir, default_name.as_deref())?;
    v.scripts = chain.scripts;
    v.sources = chain.paths;
    attach_scripts(&mut v)?;
    Ok(v)
}

/// Loads the variant's scripts into a Lua host, if it has any, and checks its `[ai]`.
fn attach_scripts(v: &mut Variant) -> Result<(), LoadError> {
    crate::search::AiConfig::from_variant(v).map_err(|problems| LoadError::Invalid { problems })?;
    if !v.scripts.is_empty() {
        v.hooks = Some(std::sync::Arc::new(crate::script::LuaHooks::load(v)?));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_built_in_variant_extends_a_sibling_by_relative_path_and_no_further() {
        // Any two shipped variants: one names the other by a relative path.
        let [child, parent, ..] = built_in() else { panic!("at least two built-in variants") };
        let (from, to) = (Origin::BuiltIn(child), Origin::BuiltIn(parent));
        let sibling = format!("../{}", parent.name);
        assert_eq!(parent_of(&sibling, Some(&from)), Ok(to.clone()));
        assert_eq!(parent_of(&format!("./{sibling}/"), Some(&from)), Ok(to));
        let outside = [
            format!("../{sibling}"),
            format!("/{}", parent.name),
            "../nothing".to_string(),
            format!("../{}/../../x/{sibling}", child.name),
        ];
        for outside in outside.iter().map(String::as_str) {
            assert_eq!(
                parent_of(outside, Some(&from)),
                Err(format!("`{outside}` is not a built-in variant (built-in variants extend others by name)")),
                "{outside}"
            );
        }
    }

    #[test]
    fn paths_and_names_are_told_apart() {
        for path in ["./x", "../x", "a/b", "/abs", "x.toml", ".hidden"] {
            assert!(is_path(path), "{path}");
        }
        for name in ["standard", "my-variant", "v2"] {
            assert!(!is_path(name), "{name}");
        }
    }
}
