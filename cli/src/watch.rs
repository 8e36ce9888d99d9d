//! `varia watch`: the designer's loop. On every save of the variant's files (its TOML and
//! Lua, parents included) or of its fixtures, re-check the rules and re-run the fixtures,
//! and print the result. A broken save keeps the last good rules and shows the error.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use varia::variant::{Override, Reloader};

use crate::Fail;
use crate::fixtures::{self, FixturesArgs};

#[derive(clap::Args)]
pub struct WatchArgs {
    /// A variant name or folder.
    variant: String,
    /// Override values (repeatable), as for every command.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// How often to look at the files, in milliseconds.
    #[arg(long, default_value_t = 200)]
    interval: u64,
    /// Stop after this many changes (for scripts and tests; default: run until interrupted).
    #[arg(long)]
    changes: Option<usize>,
}

fn clock() -> String {
    let secs = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    format!("{:02}:{:02}:{:02}", (secs / 3600) % 24, (secs / 60) % 60, secs % 60)
}

/// The fixture files of the variant, with their modification stamps.
fn fixture_stamps(name: &str) -> Vec<(PathBuf, Option<SystemTime>)> {
    let Some(root) = fixtures::fixtures_root() else { return Vec::new() };
    let dir = root.join(name);
    if !dir.is_dir() {
        return Vec::new();
    }
    varia::fixture::find_fixtures(&dir)
        .into_iter()
        .map(|p| {
            let t = std::fs::metadata(&p).and_then(|m| m.modified()).ok();
            (p, t)
        })
        .collect()
}

/// Runs the variant's fixtures, if it has any, and prints the summary line.
fn run_fixtures(name: &str) {
    if fixture_stamps(name).is_empty() {
        println!("(no fixtures under fixtures/{name}/)");
        return;
    }
    if let Err(Fail(m)) = fixtures::run(FixturesArgs::for_target(name)) {
        println!("{m}");
    }
}

pub fn run(args: WatchArgs) -> Result<(), Fail> {
    let overrides = args.set.iter().map(|s| s.parse()).collect::<Result<Vec<Override>, _>>()?;
    let interval = Duration::from_millis(args.interval.max(20));
    // The first load must succeed before there is anything to keep; until then, wait.
    let mut reloader = loop {
        match Reloader::new(&args.variant, &overrides) {
            Ok(r) => break r,
            Err(
                e @ (varia::LoadError::NotFound { .. }
                | varia::LoadError::NoSuchFolder { .. }
                | varia::LoadError::NotAVariant { .. }),
            ) => return Err(e.into()),
            Err(e) => {
                println!("[{}] the rules do not load yet:", clock());
                for p in e.problems() {
                    println!("  {p}");
                }
                println!("waiting for a save…");
                // A built-in variant has no file to save: its problem is the overrides'.
                let varia::variant::Origin::Folder(dir) = varia::variant::find(&args.variant)? else {
                    return Err(e.into());
                };
                let files = dir.join("variant.toml");
                let first = std::fs::metadata(&files).and_then(|m| m.modified()).ok();
                while std::fs::metadata(&files).and_then(|m| m.modified()).ok() == first {
                    std::thread::sleep(interval);
                }
            }
        }
    };
    let name = reloader.current().name.clone();
    let files: Vec<String> = reloader.files().iter().map(|f| f.display().to_string()).collect();
    if files.is_empty() {
        println!("[{}] {name} is built in: no files to watch (copy its folder under ./scripts to edit it)", clock());
    } else {
        println!("[{}] watching {name}: {}", clock(), files.join(", "));
    }
    println!("ok: the rules load");
    run_fixtures(&name);

    let mut seen_fixtures = fixture_stamps(&name);
    let mut changes = 0;
    loop {
        if args.changes.is_some_and(|n| changes >= n) {
            return Ok(());
        }
        std::thread::sleep(interval);
        let fixtures_now = fixture_stamps(&name);
        let fixtures_changed = fixtures_now != seen_fixtures;
        seen_fixtures = fixtures_now;
        match reloader.poll() {
            Some(Ok(_)) => {
                changes += 1;
                println!("\n[{}] rules reloaded: ok", clock());
                run_fixtures(&name);
            }
            Some(Err(e)) => {
                changes += 1;
                println!("\n[{}] the new rules do not load; keeping the last good ones:", clock());
                for p in e.problems() {
                    println!("  {p}");
                }
            }
            None if fixtures_changed => {
                changes += 1;
                println!("\n[{}] fixtures changed", clock());
                if reloader.last_error().is_some() {
                    println!("(the rules on disk do not load: fix them first)");
                } else {
                    run_fixtures(&name);
                }
            }
            None => {}
        }
    }
}
