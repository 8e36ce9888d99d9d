//! `varia uci` driven by a standard tool: python-chess's engine module
//! (`chess.engine.SimpleEngine.popen_uci`) runs `uci_python.py`. Needs python3 with
//! python-chess (`pip install chess`); without it the test says so and passes, except in
//! CI (`CI=true`), where it fails.

use std::process::Command;

fn python_chess() -> bool {
    Command::new("python3").args(["-c", "import chess.engine"]).output().is_ok_and(|o| o.status.success())
}

#[test]
fn python_chess_plays_against_varia_uci() {
    if !python_chess() {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true");
        assert!(!ci, "python3 with python-chess is required in CI (pip install chess)");
        eprintln!("note: python3 with python-chess not found; the UCI end-to-end test is skipped");
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/uci_python.py");
    let o = Command::new("python3")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_varia"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs python3");
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "python-chess session failed:\n{out}\n{err}");
    assert!(out.starts_with("ok "), "{out}");
}
