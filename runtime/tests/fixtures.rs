//! Every rule fixture, `fixtures/<variant>/<name>.toml`: its expectations must hold, and
//! its trace must match the accepted snapshot, `fixtures/<variant>/snapshots/<name>.snap`.
//!
//! A changed or new trace fails and waits as a `.snap.new` for `cargo insta review`
//! (with `CI=true` nothing is written: the run just fails). The format and the workflow
//! are described in `fixtures/README.md`.

use std::path::Path;

use varia::fixture::{self, Fixture};

#[test]
fn rule_fixtures() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").canonicalize().expect("the workspace folder");
    let mut failures: Vec<String> = Vec::new();
    let mut ran = 0;
    insta::glob!("../../fixtures", "*/*.toml", |path| {
        ran += 1;
        // Messages name fixtures from the workspace root: fixtures/standard/x.toml:3:1.
        let label = path.strip_prefix(&workspace).unwrap_or(path).display().to_string();
        let run = match Fixture::load_as(path, &label).and_then(|f| f.run()) {
            Ok(run) => run,
            Err(e) => {
                eprintln!("{e}");
                failures.push(e.to_string());
                return;
            }
        };
        for f in &run.failures {
            eprintln!("{f}");
            failures.push(f.to_string());
        }
        insta::with_settings!({
            snapshot_path => path.parent().expect("a fixture's folder").join("snapshots"),
            prepend_module_to_snapshot => false,
            snapshot_suffix => "",
            omit_expression => true,
        }, {
            insta::assert_snapshot!(fixture::fixture_name(path), run.trace);
        });
    });
    assert!(ran > 0, "no fixture files found");
    assert!(failures.is_empty(), "{} fixture expectation(s) failed:\n{}", failures.len(), failures.join("\n"));
}
