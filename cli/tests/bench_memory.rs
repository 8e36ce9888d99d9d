//! `varia bench memory`: every game lasts its plies, the history stays linear in what
//! the hooks write, and the runaway case of issue 10 stops at the memory limit.

#![cfg(unix)]

use std::process::Command;

#[test]
fn memory_stays_linear_and_the_runaway_case_stops_at_the_limit() {
    let o = Command::new(env!("CARGO_BIN_EXE_varia"))
        .args(["bench", "memory", "--runs", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs varia");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}{}", String::from_utf8_lossy(&o.stderr));
    // "<label>  <plies>  <peak MB>[ (*n)]  <clone µs>"
    let row = |label: &str| -> (usize, f64) {
        let line = out.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no `{label}` in:\n{out}"));
        let mut words = line[label.len()..].split_whitespace();
        let plies = words.next().and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("{line}"));
        let mb = words.next().and_then(|w| w.parse().ok()).unwrap_or_else(|| panic!("{line}"));
        (plies, mb)
    };
    let (plies, anchor) = row("standard, no hooks (the anchor)");
    assert_eq!(plies, 400);
    // 400 values of 10 KB are 4 MB; a copy of them all each ply (as before) held 800 MB.
    let (plies, mb) = row("a hook keeps 10 KB under a new name each ply");
    assert_eq!(plies, 400);
    assert!(mb < anchor + 32.0, "{mb} MB against the anchor's {anchor} MB:\n{out}");
    for label in [
        "a hook keeps 10 KB under one name each ply",
        "decachess (10×10), no hooks",
        "chessception (hit points), its hooks",
    ] {
        assert_eq!(row(label).0, 400, "{label}:\n{out}");
    }
    // Ten values of 1 MiB a ply: after 3 plies they hold 30 MiB of the 32, and the
    // first 1 MiB string of ply 4 needs 2 MiB while string.rep makes it.
    let (_, mb) = row("ten 1 MB values under new names each ply");
    assert!(mb < anchor + 64.0, "{mb} MB:\n{out}");
    let note = out.lines().find(|l| l.starts_with("*1: this build, ten 1 MB")).unwrap_or_else(|| panic!("{out}"));
    assert!(note.contains("stopped after 3 plies: error: move 4"), "{note}");
    assert!(note.contains("memory_limit_mb = 32, of which the game's variables (game:set) hold 30.0 MB"), "{note}");
}
