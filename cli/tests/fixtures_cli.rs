//! `varia fixtures`: determinism of traces across processes, the summary, failures and
//! changed snapshots as the command reports them.

mod common;

use std::path::{Path, PathBuf};

use common::{scratch, stdout, varia};

/// Every file under `dir`, as paths relative to it, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_trace_is_byte_identical_across_two_processes() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut expected: Vec<PathBuf> = Vec::new();
    for group in std::fs::read_dir(&fixtures).unwrap() {
        let group = group.unwrap().path();
        if !group.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&group).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "toml") {
                let name = f.file_stem().unwrap().to_string_lossy().into_owned();
                expected.push(PathBuf::from(group.file_name().unwrap()).join(format!("{name}.trace")));
            }
        }
    }
    expected.sort();
    assert!(expected.len() >= 20, "expected the shipped fixtures, found {expected:?}");

    let dir = scratch("determinism");
    let (a, b) = (dir.join("A"), dir.join("B"));
    for out in [&a, &b] {
        let o = varia(&["fixtures", "../fixtures", "--trace-dir", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
        assert!(
            stdout(&o).ends_with(&format!("\n{n} fixtures: {n} passed, 0 failed\n", n = expected.len())),
            "{}",
            stdout(&o)
        );
    }
    assert_eq!(files_under(&a), expected);
    assert_eq!(files_under(&b), expected);
    for f in &expected {
        let (x, y) = (std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap());
        assert!(!x.is_empty(), "{} is empty", f.display());
        assert!(x == y, "{} differs between two runs", f.display());
    }
    // A trace is what the snapshot holds: its first line is the fixture's description.
    let trace = std::fs::read_to_string(a.join("standard/fools_mate.trace")).unwrap();
    assert!(
        trace.starts_with(
            "Checkmate: fool's mate, the shortest possible, a win for black in four plies\nvariant: standard\n"
        ),
        "{trace}"
    );
    assert!(trace.ends_with("outcome: black wins by checkmate\n"), "{trace}");
}

const GOOD: &str = "description = \"fool's mate\"\nvariant = \"standard\"\n\
                    moves = [\"f2-f3\", \"e7-e5\", \"g2-g4\", \"d8-h4\"]\n\
                    [[expect]]\noutcome = \"black wins by checkmate\"\n";

#[test]
fn the_summary_lists_each_fixture_and_fails_on_a_failed_expectation() {
    let dir = scratch("summary").join("mine");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a_good.toml"), GOOD).unwrap();
    std::fs::write(dir.join("b_bad.toml"), GOOD.replace("black wins by checkmate", "draw by stalemate")).unwrap();
    std::fs::write(dir.join("c_broken.toml"), GOOD.replace("\"g2-g4\"", "\"g2-g5\"")).unwrap();
    let o = varia(&["fixtures", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    let bad = dir.join("b_bad.toml");
    let broken = dir.join("c_broken.toml");
    assert_eq!(
        lines,
        [
            "new   mine/a_good  (expectations hold; no accepted snapshot yet: read the trace with --show, then accept it with --accept)".to_string(),
            "FAIL  mine/b_bad".to_string(),
            format!(
                "      {}:5:11: [[expect]] #1 after action 4 (d8-h4): outcome: expected draw by stalemate, found black wins by checkmate",
                bad.display()
            ),
            "FAIL  mine/c_broken".to_string(),
            format!(
                "      fixture error: {}:3:28: move 3 (`g2-g5`): g2-g5 is illegal: a pawn on g2 cannot move to g5",
                broken.display()
            ),
            String::new(),
            "3 fixtures: 0 passed, 2 failed, 1 without an accepted snapshot".to_string(),
        ]
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("error: 2 of 3 fixtures failed"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_trace_that_changed_since_the_accepted_snapshot_fails_with_the_first_difference() {
    let dir = scratch("changed").join("mine");
    std::fs::create_dir_all(dir.join("snapshots")).unwrap();
    std::fs::write(dir.join("mate.toml"), GOOD).unwrap();
    // Accept the current trace, as insta writes it; then the command passes.
    let trace_dir = dir.parent().unwrap().join("traces");
    let o = varia(&["fixtures", dir.join("mate.toml").to_str().unwrap(), "--trace-dir", trace_dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let trace = std::fs::read_to_string(trace_dir.join("mine/mate.trace")).unwrap();
    let snap = dir.join("snapshots/mate.snap");
    std::fs::write(&snap, format!("---\nsource: runtime/tests/fixtures.rs\n---\n{}\n", trace.trim_end())).unwrap();
    let o = varia(&["fixtures", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o), "ok    mine/mate\n\n1 fixture: 1 passed, 0 failed\n");
    // An accepted trace that differs on line 5 (the start board's top rank).
    let changed = trace.replacen("8  r n b q k b n r", "8  r n b q k b . r", 1);
    std::fs::write(&snap, format!("---\nsource: runtime/tests/fixtures.rs\n---\n{changed}")).unwrap();
    let o = varia(&["fixtures", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!(
            "FAIL  mine/mate\n\
             \x20     trace changed since the accepted snapshot; review it (`cargo insta review`, or `cargo test` \
             for the whole diff), then accept it there or with `varia fixtures {} --accept` or fix the rules\n\
             \x20     {}, first difference at line 5:\n\
             \x20     - accepted: 8  r n b q k b . r\n\
             \x20     + now:      8  r n b q k b n r\n\
             \n1 fixture: 0 passed, 1 failed\n",
            dir.join("mate.toml").display(),
            snap.display()
        )
    );
    // Accepting writes the current trace back (and removes what `cargo test` left).
    std::fs::write(dir.join("snapshots/mate.snap.new"), "pending").unwrap();
    let o = varia(&["fixtures", dir.to_str().unwrap(), "--accept"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "ok    mine/mate  (trace accepted: {})\n\n1 fixture: 1 passed, 0 failed, 1 trace(s) accepted\n",
            snap.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&snap).unwrap(), format!("---\nsource: varia fixtures --accept\n---\n{trace}"));
    assert!(!dir.join("snapshots/mate.snap.new").exists());
    let o = varia(&["fixtures", dir.to_str().unwrap()]);
    assert_eq!(stdout(&o), "ok    mine/mate\n\n1 fixture: 1 passed, 0 failed\n");
}

#[test]
fn a_fixture_whose_expectations_fail_is_never_accepted() {
    let dir = scratch("no-accept").join("mine");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.toml"), GOOD.replace("black wins by checkmate", "draw by stalemate")).unwrap();
    let o = varia(&["fixtures", dir.to_str().unwrap(), "--accept"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("FAIL  mine/bad\n"), "{}", stdout(&o));
    assert!(!dir.join("snapshots").exists());
}

#[test]
fn an_unknown_target_is_an_error() {
    let o = varia(&["fixtures", "no-such-variant"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut found: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().filter(|e| e.path().is_dir()).map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    found.sort();
    assert!(
        err.starts_with(&format!(
            "error: no fixtures `no-such-variant`: not a file or folder, nor a folder of fixtures/ (found: {}",
            found.join(", ")
        )),
        "{err}"
    );
    // By name, a folder of fixtures/ is found from anywhere in the checkout.
    let o = varia(&["fixtures", "standard"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("ok    standard/en_passant\n"), "{}", stdout(&o));
}
