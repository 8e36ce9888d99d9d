//! The variants a server plays, fixed when it starts: each a name the runtime knows (a
//! folder of the search path or a built-in variant) or a folder given on the command
//! line, held by a [`Reloader`]. The page only ever names a variant; the name is looked
//! up here and never reaches the file system. [`Catalog::poll`] reloads the variants
//! whose files changed, keeping the last good rules when a save is broken.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use varia::variant::{Reloader, TurnModel};
use varia::{Problem, Variant};

use crate::error::Error;

/// Where a served variant comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A name the runtime knows (`VARIA_PATH`, `./scripts`, built in).
    Named(String),
    /// A variant folder given by the person who started the server (`--dir`).
    Folder(PathBuf),
}

struct Entry {
    name: String,
    reloader: Reloader,
    /// Counts this variant's changes: reloads that took and broken saves alike.
    version: u64,
    /// The problems of the last save, while the files stay broken.
    problems: Vec<Problem>,
}

/// The variants served, in the order given.
pub struct Catalog {
    entries: Vec<Entry>,
    /// Counts every change of every variant: what the page polls.
    version: u64,
}

fn reloader(source: &Source) -> Result<(Reloader, String), Error> {
    match source {
        Source::Named(name) => {
            // A path-looking name would be read as a path by the loader.
            if !varia::variant::is_name(name) {
                return Err(Error::BadRequest {
                    message: format!("`{name}` is not a variant name (use --dir for a folder)"),
                });
            }
            let r = Reloader::new(name, &[]).map_err(|e| Error::Load { name: name.clone(), source: e })?;
            Ok((r, name.clone()))
        }
        Source::Folder(dir) => {
            // The folder's variant.toml: a path the loader can only read as a path.
            let toml = dir.join("variant.toml");
            let text = toml.to_str().ok_or_else(|| Error::BadRequest {
                message: format!("{}: the folder's path is not UTF-8", dir.display()),
            })?;
            let r = Reloader::new(text, &[]).map_err(|e| Error::Load { name: dir.display().to_string(), source: e })?;
            let name = r.current().name.clone();
            Ok((r, name))
        }
    }
}

fn origin(r: &Reloader) -> String {
    match &r.current().dir {
        Some(d) => d.display().to_string(),
        None => "built in".into(),
    }
}

impl Catalog {
    /// Loads every source; each must load now, and no two may share a name.
    pub fn load(sources: &[Source]) -> Result<Catalog, Error> {
        let mut entries: Vec<Entry> = Vec::new();
        for s in sources {
            let (reloader, name) = reloader(s)?;
            if let Some(e) = entries.iter().find(|e| e.name == name) {
                return Err(Error::Duplicate { name, first: origin(&e.reloader), second: origin(&reloader) });
            }
            entries.push(Entry { name, reloader, version: 0, problems: Vec::new() });
        }
        Ok(Catalog { entries, version: 0 })
    }

    /// Every variant the runtime knows by name, as sources (what `varia serve` serves
    /// when given none).
    pub fn known() -> Vec<Source> {
        varia::variant::known_variants().into_iter().map(|f| Source::Named(f.name)).collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.name.clone()).collect()
    }

    /// The rules in force for `name`, and their version. The name is only compared with
    /// the served names.
    pub fn get(&self, name: &str) -> Result<(Arc<Variant>, u64), Error> {
        let e = self
            .entries
            .iter()
            .find(|e| e.name == name)
            .ok_or_else(|| Error::UnknownVariant { name: name.to_string(), known: self.names() })?;
        Ok((e.reloader.current(), e.version))
    }

    /// Like [`Catalog::get`], for a variant the page can play.
    pub fn playable(&self, name: &str) -> Result<Arc<Variant>, Error> {
        let (v, _) = self.get(name)?;
        if v.turns != TurnModel::Alternate {
            return Err(Error::NotPlayable { name: name.to_string(), model: v.turns.name() });
        }
        Ok(v)
    }

    /// Like [`Catalog::get`], for a solo variant (a board the page strikes).
    pub fn solo(&self, name: &str) -> Result<(Arc<Variant>, u64), Error> {
        let (v, version) = self.get(name)?;
        if v.turns != TurnModel::Solo {
            return Err(Error::NotSolo { name: name.to_string(), model: v.turns.name() });
        }
        Ok((v, version))
    }

    /// Reloads every variant whose files changed; returns whether anything changed.
    pub fn poll(&mut self) -> bool {
        let mut any = false;
        for e in &mut self.entries {
            if let Some(result) = e.reloader.poll() {
                e.problems = match result {
                    Ok(_) => Vec::new(),
                    Err(err) => err.problems(),
                };
                e.version = e.version.saturating_add(1);
                any = true;
            }
        }
        if any {
            self.version = self.version.saturating_add(1);
        }
        any
    }

    pub fn version(&self) -> u64 {
        self.version
    }

    /// What the page polls: the overall version, and each variant's version and problems.
    pub fn status_json(&self) -> Value {
        let variants: serde_json::Map<String, Value> = self
            .entries
            .iter()
            .map(|e| (e.name.clone(), json!({ "version": e.version, "problems": problems_json(&e.problems) })))
            .collect();
        json!({ "version": self.version, "variants": variants })
    }

    /// The variant picker's list.
    pub fn list_json(&self) -> Value {
        let list: Vec<Value> = self
            .entries
            .iter()
            .map(|e| {
                let v = e.reloader.current();
                json!({
                    "name": e.name,
                    "title": v.title,
                    "summary": v.summary,
                    "turns": v.turns.name(),
                    "playable": matches!(v.turns, TurnModel::Alternate | TurnModel::Solo),
                    "files": v.geometry.files,
                    "ranks": v.geometry.ranks,
                    // How many numbered setups `[setup.deal]` deals (none: null).
                    "deals": v.deal.as_ref().map(|d| d.count),
                    "origin": origin(&e.reloader),
                    "watched": e.reloader.files().iter().map(|p| shown(p)).collect::<Vec<_>>(),
                    // The AI's levels, or a solo board's (its pools).
                    "levels": match &v.solo {
                        Some(s) if v.turns == TurnModel::Solo => s.levels.iter().map(|l| l.name.clone()).collect(),
                        _ => varia::search::AiConfig::from_variant(&v)
                            .map(|c| c.levels.into_iter().map(|(name, _)| name).collect::<Vec<_>>())
                            .unwrap_or_default(),
                    },
                    "version": e.version,
                    "problems": problems_json(&e.problems),
                })
            })
            .collect();
        Value::Array(list)
    }
}

fn shown(p: &Path) -> String {
    p.display().to_string()
}

fn problems_json(problems: &[Problem]) -> Value {
    Value::Array(
        problems
            .iter()
            .map(|p| json!({ "file": p.file, "line": p.line, "col": p.col, "message": p.message, "text": p.to_string() }))
            .collect(),
    )
}
