//! Finding variants: by path, or by name under `scripts/` and the folders of `VARIA_PATH`.

use std::path::{Path, PathBuf};

use super::Variant;
use super::compile::{Input, compile};
use super::source::Override;
use crate::error::{LoadError, Problem};

/// The folders searched for variants by name, in order: each entry of `VARIA_PATH`
/// (separated like `PATH`), `./scripts`, and the `scripts/` folder this library was
/// built from (so the shipped variants are found from anywhere in the checkout).
pub fn search_path() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("VARIA_PATH")
        .map(|v| std::env::split_paths(&v).filter(|p| !p.as_os_str().is_empty()).collect())
        .unwrap_or_default();
    dirs.push(PathBuf::from("scripts"));
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("scripts"));
    let mut seen = Vec::new();
    dirs.retain(|d| {
        let key = d.canonicalize().unwrap_or_else(|_| d.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new && d.is_dir()
    });
    dirs
}

/// The names of every variant on the search path, sorted, without duplicates (the
/// first folder that has a name wins).
pub fn known_variants() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
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
            if !out.iter().any(|(n, _)| *n == name) {
                out.push((name, path));
            }
        }
    }
    out.sort();
    out
}

/// The folder of a variant given by name or path.
pub fn find(name_or_path: &str) -> Result<PathBuf, LoadError> {
    let p = Path::new(name_or_path);
    if p.is_file() && p.file_name().is_some_and(|n| n == "variant.toml") {
        return Ok(p.parent().map(Path::to_path_buf).unwrap_or_default());
    }
    if p.join("variant.toml").is_file() && (p.components().count() > 1 || name_or_path.starts_with('.')) {
        return Ok(p.to_path_buf());
    }
    let known = known_variants();
    if let Some((_, path)) = known.iter().find(|(n, _)| n == name_or_path) {
        return Ok(path.clone());
    }
    if p.join("variant.toml").is_file() {
        return Ok(p.to_path_buf());
    }
    Err(LoadError::NotFound { name: name_or_path.to_string(), known: known.into_iter().map(|(n, _)| n).collect() })
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
    /// Every file read, for reloading.
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

/// Reads `text` (labelled `label`, living in `dir` if it is a file) and, first, every
/// variant it extends.
pub(crate) fn read_chain(
    label: String,
    text: String,
    dir: Option<&Path>,
    chain: &mut Chain,
    seen: &mut Vec<String>,
) -> Result<(), LoadError> {
    // Identity by canonical folder, so `../a/../b` and `b` are the same variant.
    let key = dir.and_then(|d| d.canonicalize().ok()).map_or(label.clone(), |d| d.display().to_string());
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
        let pdir = if parent.contains('/') || parent.starts_with('.') {
            let base = dir.map(Path::to_path_buf).unwrap_or_default();
            let p = base.join(&parent);
            let p = p.canonicalize().unwrap_or(p);
            if !p.join("variant.toml").is_file() {
                return Err(located(&label, &text, span, format!("extends: no variant.toml in `{}`", p.display())));
            }
            p
        } else {
            find(&parent).map_err(|e| located(&label, &text, span.clone(), format!("extends: {e}")))?
        };
        let pfile = pdir.join("variant.toml");
        let ptext = std::fs::read_to_string(&pfile)
            .map_err(|e| LoadError::Io { path: display_path(&pfile), message: e.to_string() })?;
        read_chain(display_path(&pfile), ptext, Some(&pdir), chain, seen)?;
    }
    if let Some(d) = dir {
        let lua = d.join("rules.lua");
        if lua.is_file() {
            let text = std::fs::read_to_string(&lua)
                .map_err(|e| LoadError::Io { path: display_path(&lua), message: e.to_string() })?;
            chain.scripts.push(Script { label: display_path(&lua), text });
            chain.paths.push(lua);
        }
    }
    if let Some(d) = dir {
        chain.paths.push(d.join("variant.toml"));
    }
    chain.files.push(Input { label, text });
    Ok(())
}

pub(crate) fn load(name_or_path: &str, overrides: &[Override]) -> Result<Variant, LoadError> {
    let dir = find(name_or_path)?;
    let file = dir.join("variant.toml");
    let text = std::fs::read_to_string(&file)
        .map_err(|e| LoadError::Io { path: display_path(&file), message: e.to_string() })?;
    let mut chain = Chain { files: Vec::new(), scripts: Vec::new(), paths: Vec::new() };
    read_chain(display_path(&file), text, Some(&dir), &mut chain, &mut Vec::new())?;
    let dir_abs = dir.canonicalize().unwrap_or(dir);
    let mut v = compile(chain.files, overrides, Some(dir_abs))?;
    v.scripts = chain.scripts;
    v.sources = chain.paths;
    attach_scripts(&mut v)?;
    Ok(v)
}

/// Compiles TOML text (which may extend a variant found by name).
pub(crate) fn load_text(text: &str, label: &str, overrides: &[Override]) -> Result<Variant, LoadError> {
    let mut chain = Chain { files: Vec::new(), scripts: Vec::new(), paths: Vec::new() };
    read_chain(label.to_string(), text.to_string(), None, &mut chain, &mut Vec::new())?;
    let mut v = compile(chain.files, overrides, None)?;
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
