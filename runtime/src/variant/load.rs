//! Finding variants: by path, or by name under `scripts/` and the folders of `VARIA_PATH`.

use std::path::{Path, PathBuf};

use super::Variant;
use crate::error::LoadError;

/// The folders searched for variants by name, in order: each entry of `VARIA_PATH`
/// (separated like `PATH`), `./scripts`, and the `scripts/` folder this library was
/// built from (so the shipped variants are found from anywhere in the checkout).
pub fn search_path() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("VARIA_PATH")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    dirs.push(PathBuf::from("scripts"));
    dirs.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("scripts"),
    );
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
    if p.join("variant.toml").is_file()
        && (p.components().count() > 1 || name_or_path.starts_with('.'))
    {
        return Ok(p.to_path_buf());
    }
    let known = known_variants();
    if let Some((_, path)) = known.iter().find(|(n, _)| n == name_or_path) {
        return Ok(path.clone());
    }
    if p.join("variant.toml").is_file() {
        return Ok(p.to_path_buf());
    }
    Err(LoadError::NotFound {
        name: name_or_path.to_string(),
        known: known.into_iter().map(|(n, _)| n).collect(),
    })
}

/// A path to show in messages: relative to the working directory when inside it.
pub(crate) fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let abs = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if let Some(rel) = cwd.and_then(|c| {
        abs.strip_prefix(c.canonicalize().ok()?)
            .ok()
            .map(Path::to_path_buf)
    }) {
        return rel.display().to_string();
    }
    path.display().to_string()
}

pub(crate) fn load(name_or_path: &str) -> Result<Variant, LoadError> {
    let dir = find(name_or_path)?;
    let file = dir.join("variant.toml");
    let text = std::fs::read_to_string(&file).map_err(|e| LoadError::Io {
        path: display_path(&file),
        message: e.to_string(),
    })?;
    let dir_abs = dir.canonicalize().unwrap_or(dir);
    super::compile::compile(&text, &display_path(&file), Some(dir_abs))
}
