//! Live reload: build the new rules aside, swap them in only when they load.
//!
//! A designer saves `variant.toml` or `rules.lua`; the game (or `varia watch`) picks the
//! change up at once. A broken save keeps the last good rules running and shows the
//! error, like wezterm does with its configuration.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use super::{Override, Variant};
use crate::error::LoadError;

/// Watches a variant's files and reloads it when they change.
pub struct Reloader {
    name_or_path: String,
    overrides: Vec<Override>,
    current: Arc<Variant>,
    stamps: Vec<(PathBuf, Option<(SystemTime, u64)>)>,
    last_error: Option<LoadError>,
}

fn stamp(path: &PathBuf) -> Option<(SystemTime, u64)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.modified().ok()?, m.len()))
}

impl Reloader {
    /// Loads the variant (this first load must succeed).
    pub fn new(name_or_path: &str, overrides: &[Override]) -> Result<Reloader, LoadError> {
        let current = Variant::load_with(name_or_path, overrides)?;
        let mut r = Reloader {
            name_or_path: name_or_path.to_string(),
            overrides: overrides.to_vec(),
            current,
            stamps: Vec::new(),
            last_error: None,
        };
        r.restamp();
        Ok(r)
    }

    fn restamp(&mut self) {
        let mut files = self.current.sources.clone();
        // A rules.lua that does not exist yet counts too: creating it is a change.
        if let Some(d) = &self.current.dir {
            let lua = d.join("rules.lua");
            if !files.contains(&lua) {
                files.push(lua);
            }
        }
        self.stamps = files
            .into_iter()
            .map(|f| {
                let s = stamp(&f);
                (f, s)
            })
            .collect();
    }

    /// The rules in force: the last version that loaded.
    pub fn current(&self) -> Arc<Variant> {
        self.current.clone()
    }

    /// The error of the last failed reload, while the files stay broken.
    pub fn last_error(&self) -> Option<&LoadError> {
        self.last_error.as_ref()
    }

    /// The files watched (the variant's chain: its TOML and Lua files, parents included).
    pub fn files(&self) -> Vec<PathBuf> {
        self.stamps.iter().map(|(p, _)| p.clone()).collect()
    }

    /// Whether any watched file changed since the last (re)load attempt.
    pub fn changed(&self) -> bool {
        self.stamps.iter().any(|(p, s)| stamp(p) != *s)
    }

    /// Reloads now: on success the new rules are current and returned; on failure the
    /// last good rules stay current and the error is returned (and kept in `last_error`).
    pub fn reload(&mut self) -> Result<Arc<Variant>, LoadError> {
        let attempt = Variant::load_with(&self.name_or_path, &self.overrides);
        match attempt {
            Ok(v) => {
                self.current = v;
                self.last_error = None;
                self.restamp();
                Ok(self.current.clone())
            }
            Err(e) => {
                // Remember the broken files' stamps, so the same broken save is reported once.
                self.stamps = self.stamps.iter().map(|(p, _)| (p.clone(), stamp(p))).collect();
                self.last_error = Some(LoadError::Invalid { problems: e.problems() });
                Err(e)
            }
        }
    }

    /// Reloads if a file changed: `None` when nothing changed.
    pub fn poll(&mut self) -> Option<Result<Arc<Variant>, LoadError>> {
        if self.changed() { Some(self.reload()) } else { None }
    }
}
