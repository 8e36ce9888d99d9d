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
}

/// The fixtures folder: `./fixtures`, or the one of the checkout this was built from.
fn fixtures_root() -> Option<PathBuf> {
    [
        PathBuf::from("fixtures"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}

/// The fixture files the target names.
fn select(target: Option<&str>) -> Result<Vec<PathBuf>, Fail> {
    let root = fixtures_root();
    let files = match target {
        None => {
            let root = root.ok_or_else(|| {
                Fail("no fixtures/ folder here; give a fixture file or folder".into())
            })?;
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
            } else if let Some(root) = root
                .as_ref()
                .filter(|r| r.join(format!("{t}.toml")).is_file())
            {
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
        return Err(Fail(format!(
            "no fixture files (*.toml) in {}",
            target.unwrap_or("fixtures/")
        )));
    }
    Ok(files)
}

/// How one fixture went.
enum Verdict {
    Passed,
    /// Passed, but no snapshot has been accepted yet.
    New,
    Failed(Vec<String>),
}

pub fn run(args: FixturesArgs) -> Result<(), Fail> {
    let files = select(args.target.as_deref())?;
    let (mut passed, mut new, mut failed) = (0, 0, 0);
    for path in &files {
        let name = format!(
            "{}/{}",
            fixture::fixture_group(path),
            fixture::fixture_name(path)
        );
        let verdict = match Fixture::load(path).and_then(|f| f.run()) {
            Err(e) => Verdict::Failed(
                e.problems()
                    .iter()
                    .map(|p| format!("fixture error: {p}"))
                    .collect(),
            ),
            Ok(run) => {
                if args.show {
                    println!("{}", run.trace);
                }
                if let Some(dir) = &args.trace_dir {
                    let file = dir
                        .join(fixture::fixture_group(path))
                        .join(format!("{}.trace", fixture::fixture_name(path)));
                    write(&file, &run.trace)?;
                }
                let mut problems: Vec<String> =
                    run.failures.iter().map(|f| f.to_string()).collect();
                let snap = fixture::snapshot_path(path);
                match std::fs::read_to_string(&snap) {
                    Err(_) if problems.is_empty() => Verdict::New,
                    Err(_) => Verdict::Failed(problems),
                    Ok(text) => {
                        let label = fixture::display_path(&snap);
                        match fixture::accepted_trace(&text) {
                            None => problems.push(format!(
                                "{label}: not an insta snapshot (expected a header between `---` lines)"
                            )),
                            Some(accepted) => {
                                if let Some(d) = fixture::first_difference(&accepted, &run.trace) {
                                    problems.push(format!(
                                        "trace changed since the accepted snapshot; review with `cargo insta review`\n\
                                         {label}, first difference at line {}:\n\
                                         - accepted: {}\n\
                                         + now:      {}",
                                        d.line,
                                        d.accepted.as_deref().unwrap_or("(end of trace)"),
                                        d.actual.as_deref().unwrap_or("(end of trace)"),
                                    ));
                                }
                            }
                        }
                        if problems.is_empty() {
                            Verdict::Passed
                        } else {
                            Verdict::Failed(problems)
                        }
                    }
                }
            }
        };
        match verdict {
            Verdict::Passed => {
                passed += 1;
                println!("ok    {name}");
            }
            Verdict::New => {
                new += 1;
                println!(
                    "new   {name}  (expectations hold; no accepted snapshot yet: run `cargo test`, then `cargo insta review`)"
                );
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
    let mut summary = format!(
        "{total} fixture{}: {passed} passed, {failed} failed",
        if total == 1 { "" } else { "s" }
    );
    if new > 0 {
        summary.push_str(&format!(", {new} without an accepted snapshot"));
    }
    println!("\n{summary}");
    if failed > 0 {
        Err(Fail(format!(
            "{failed} of {total} fixtures failed (listed above)"
        )))
    } else {
        Ok(())
    }
}

fn write(file: &Path, text: &str) -> Result<(), Fail> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|e| Fail(format!("{}: {e}", dir.display())))?;
    }
    std::fs::write(file, text).map_err(|e| Fail(format!("{}: {e}", file.display())))
}
