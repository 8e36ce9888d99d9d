//! `varia fixtures`: runs rule fixtures from the command line, one line per fixture and
//! a summary, and tells whether each trace still matches the snapshot accepted with
//! `cargo insta review`. The runner and the format live in `varia::fixture`.

use std::path::{Path, PathBuf};

use varia::fixture::{self, Fixture};

use crate::Fail;

#[derive(clap::Args)]
pub struct FixturesArgs {
    /// A variant's fixture folder (`standard`), a folder, or one fixture file; all the
    /// fixtures under fixtures/ if none.
    target: Option<String>,
    /// Write each fixture's trace to DIR/<variant>/<name>.trace.
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,
    /// Print each fixture's trace too.
    #[arg(long)]
    show: bool,
    /// Accept the current traces of the fixtures whose expectations hold as their
    /// snapshots (fixtures/<variant>/snapshots/<name>.snap), replacing changed ones.
    #[arg(long)]
    accept: bool,
}

impl FixturesArgs {
    /// Plain runs of one target (for `varia watch`).
    pub fn for_target(target: &str) -> FixturesArgs {
        FixturesArgs { target: Some(target.to_string()), trace_dir: None, show: false, accept: false }
    }
}

/// The fixtures folder: `fixtures/` of the working directory or of the nearest folder
/// above it that has one (so it is found from anywhere in a checkout, and never from
/// where the program was built).
pub fn fixtures_root() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    let found = cwd.ancestors().map(|d| d.join("fixtures")).find(|p| p.is_dir())?;
    // Shown relative to the working directory, as the user would write it.
    Some(match found.parent().and_then(|p| cwd.strip_prefix(p).ok()) {
        Some(rel) => rel.components().map(|_| "..").collect::<PathBuf>().join("fixtures"),
        None => found,
    })
}

/// The fixture files the target names.
fn select(target: Option<&str>) -> Result<Vec<PathBuf>, Fail> {
    let root = fixtures_root();
    let files = match target {
        None => {
            let root = root.ok_or_else(|| Fail("no fixtures/ folder here; give a fixture file or folder".into()))?;
            fixture::find_fixtures(&root)
        }
        Some(t) => {
            let p = Path::new(t);
            if p.is_file() {
                vec![p.to_path_buf()]
            } else if p.is_dir() {
                fixture::find_fixtures(p)
            } else if let Some(root) = root.as_ref().filter(|r| r.join(t).is_dir()) {
                fixture::find_fixtures(&root.join(t))
            } else if let Some(root) = root.as_ref().filter(|r| r.join(format!("{t}.toml")).is_file()) {
                vec![root.join(format!("{t}.toml"))]
            } else {
                let known = root
                    .as_ref()
                    .map(|r| {
                        let mut names: Vec<String> = std::fs::read_dir(r)
                            .into_iter()
                            .flatten()
                            .filter_map(Result::ok)
                            .filter(|e| e.path().is_dir())
                            .map(|e| e.file_name().to_string_lossy().into_owned())
                            .collect();
                        names.sort();
                        names.join(", ")
                    })
                    .unwrap_or_default();
                return Err(Fail(format!(
                    "no fixtures `{t}`: not a file or folder, nor a folder of fixtures/ (found: {known})"
                )));
            }
        }
    };
    if files.is_empty() {
        return Err(Fail(format!("no fixture files (*.toml) in {}", target.unwrap_or("fixtures/"))));
    }
    Ok(files)
}

/// How one fixture went.
enum Verdict {
    Passed,
    /// Passed, but no snapshot has been accepted yet.
    New,
    /// Passed, and its trace was just written as the accepted snapshot (`--accept`).
    Accepted,
    Failed(Vec<String>),
}

/// How the trace compares with the accepted snapshot.
enum Snapshot {
    Missing,
    Unreadable(String),
    Same,
    Changed(String),
}

fn compare(path: &Path, trace: &str) -> Snapshot {
    let snap = fixture::snapshot_path(path);
    let Ok(text) = std::fs::read_to_string(&snap) else {
        return Snapshot::Missing;
    };
    let label = fixture::display_path(&snap);
    let target = fixture::display_path(path);
    let Some(accepted) = fixture::accepted_trace(&text) else {
        return Snapshot::Unreadable(format!("{label}: not an insta snapshot (expected a header between `---` lines)"));
    };
    match fixture::first_difference(&accepted, trace) {
        None => Snapshot::Same,
        Some(d) => Snapshot::Changed(format!(
            "trace changed since the accepted snapshot; review it (`cargo insta review`, or `cargo test` for the \
             whole diff), then accept it there or with `varia fixtures {target} --accept` or fix the rules\n\
             {label}, first difference at line {}:\n\
             - accepted: {}\n\
             + now:      {}",
            d.line,
            d.accepted.as_deref().unwrap_or("(end of trace)"),
            d.actual.as_deref().unwrap_or("(end of trace)"),
        )),
    }
}

/// Where the fixture's accepted snapshot is written: always a plain file of the
/// `snapshots/` folder next to the fixture, whatever the fixture's name.
fn snapshot_file(path: &Path) -> Result<PathBuf, Fail> {
    let snap = fixture::snapshot_path(path);
    let folder = path.parent().unwrap_or(Path::new(".")).join("snapshots");
    let plain = snap.file_name().is_some_and(|n| Path::new(n).components().count() == 1 && n != "..");
    if snap.parent() != Some(folder.as_path()) || !plain {
        return Err(Fail(format!("{}: no snapshot can be written for this file name", path.display())));
    }
    Ok(snap)
}

/// Writes `trace` as the fixture's accepted snapshot, in insta's format, and removes
/// a pending `.snap.new` that `cargo test` may have left.
fn accept(path: &Path, trace: &str) -> Result<(), Fail> {
    let snap = snapshot_file(path)?;
    write(&snap, &format!("---\nsource: varia fixtures --accept\n---\n{}\n", trace.trim_end()))?;
    remove_pending(path)
}

fn remove_pending(path: &Path) -> Result<(), Fail> {
    let pending = snapshot_file(path)?.with_extension("snap.new");
    if pending.is_file() {
        std::fs::remove_file(&pending).map_err(|e| Fail(format!("{}: {e}", pending.display())))?;
    }
    Ok(())
}

fn check(path: &Path, args: &FixturesArgs) -> Result<Verdict, Fail> {
    let run = match Fixture::load(path).and_then(|f| f.run()) {
        Ok(run) => run,
        Err(e) => {
            return Ok(Verdict::Failed(e.problems().iter().map(|p| format!("fixture error: {p}")).collect()));
        }
    };
    if args.show {
        println!("{}", run.trace);
    }
    if let Some(dir) = &args.trace_dir {
        let file = dir.join(fixture::fixture_group(path)).join(format!("{}.trace", fixture::fixture_name(path)));
        write(&file, &run.trace)?;
    }
    let mut problems: Vec<String> = run.failures.iter().map(|f| f.to_string()).collect();
    let snapshot = compare(path, &run.trace);
    if !problems.is_empty() {
        // A trace whose expectations fail is never accepted.
        if let Snapshot::Changed(m) | Snapshot::Unreadable(m) = snapshot {
            problems.push(m);
        }
        return Ok(Verdict::Failed(problems));
    }
    Ok(match (snapshot, args.accept) {
        (Snapshot::Same, accepting) => {
            if accepting {
                remove_pending(path)?;
            }
            Verdict::Passed
        }
        (_, true) => {
            accept(path, &run.trace)?;
            Verdict::Accepted
        }
        (Snapshot::Missing, false) => Verdict::New,
        (Snapshot::Changed(m) | Snapshot::Unreadable(m), false) => Verdict::Failed(vec![m]),
    })
}

pub fn run(args: FixturesArgs) -> Result<(), Fail> {
    let files = select(args.target.as_deref())?;
    let (mut passed, mut new, mut accepted, mut failed) = (0, 0, 0, 0);
    for path in &files {
        let name = format!("{}/{}", fixture::fixture_group(path), fixture::fixture_name(path));
        match check(path, &args)? {
            Verdict::Passed => {
                passed += 1;
                println!("ok    {name}");
            }
            Verdict::New => {
                new += 1;
                println!(
                    "new   {name}  (expectations hold; no accepted snapshot yet: read the trace \
                     with --show, then accept it with --accept)"
                );
            }
            Verdict::Accepted => {
                accepted += 1;
                println!("ok    {name}  (trace accepted: {})", fixture::display_path(&fixture::snapshot_path(path)));
            }
            Verdict::Failed(problems) => {
                failed += 1;
                println!("FAIL  {name}");
                for p in problems {
                    for line in p.lines() {
                        println!("      {line}");
                    }
                }
            }
        }
    }
    let total = files.len();
    let mut summary =
        format!("{total} fixture{}: {} passed, {failed} failed", if total == 1 { "" } else { "s" }, passed + accepted);
    if accepted > 0 {
        summary.push_str(&format!(", {accepted} trace(s) accepted"));
    }
    if new > 0 {
        summary.push_str(&format!(", {new} without an accepted snapshot"));
    }
    println!("\n{summary}");
    if failed > 0 { Err(Fail(format!("{failed} of {total} fixtures failed (listed above)"))) } else { Ok(()) }
}

fn write(file: &Path, text: &str) -> Result<(), Fail> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Fail(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(file, text).map_err(|e| Fail(format!("{}: {e}", file.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_snapshots_stay_in_the_snapshots_folder() {
        let dir = Path::new("fixtures/standard");
        for (file, snap) in
            [("castling.toml", "castling.snap"), ("..toml", "..snap"), ("...toml", "...snap"), ("a b.toml", "a b.snap")]
        {
            assert_eq!(snapshot_file(&dir.join(file)).ok(), Some(dir.join("snapshots").join(snap)), "{file}");
        }
    }
}
