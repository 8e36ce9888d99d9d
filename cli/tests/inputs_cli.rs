//! Bad input on the command line is an error (exit 1) with its reason, never a panic
//! (exit 101); failing hooks fail the command; listings write actions as the history does.

mod common;

use common::{scratch, stderr, stdout, varia};

/// Exit 1, and stderr holds `why`.
fn refused(args: &[&str], why: &str) {
    let o = varia(args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
}

#[test]
fn the_issue_s_panics_are_errors() {
    refused(&["moves", "standard", "--fen", "a=b"], "error: bad FEN: board field: a FEN starts with the board");
    refused(&["replay", "standard", "é"], "error: move 1 (`é`): `é` is not a move");
    refused(&["replay", "standard", "e2-é4"], "`e2-é4` is not a move");
    refused(
        &["perft", "standard", "3", "--fen", "1n18446744073709551615Q6/8/8/8/8/8/8/K6k w - - 0 1"],
        "rank 8: an empty count of more than 16 squares",
    );
    refused(&["moves", "standard", "--fen", "4k3/8/8/8/8/8/8/4K3 w - - 0 99999999999"], "fullmove field");
    // A depth no count needs: once it reserved memory per level and overflowed the stack.
    refused(&["perft", "standard", "4000000000", "--fen", "k7/8/K7/8/8/8/8/8 w - - 0 1"], "more than 64");
}

#[test]
fn a_snapshot_whose_victim_is_the_king_is_refused() {
    let o = varia(&["replay", "standard", "e2-e4", "a7-a6", "e4-e5", "d7-d5", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut s: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(s["en_passant_victim"], "d5");
    s["en_passant_victim"] = "e8".into();
    let dir = scratch("victim");
    let file = dir.join("state.json");
    std::fs::write(&file, s.to_string()).unwrap();
    refused(&["replay", "standard", "--from", file.to_str().unwrap(), "e5-d6"], "could not have skipped d6");
}

#[test]
fn a_failing_filter_fails_moves_and_perft_with_the_script_s_line() {
    let dir = scratch("filter");
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n").unwrap();
    std::fs::write(dir.join("rules.lua"), "function filter_actions(game, actions)\n  error('no list today')\nend\n")
        .unwrap();
    let d = dir.to_str().unwrap();
    for args in [vec!["moves", d], vec!["perft", d, "2"], vec!["perft", d, "1", "--divide"]] {
        let o = varia(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert_eq!(stdout(&o), "", "{args:?}");
        assert!(stderr(&o).contains("rules.lua:2: no list today (in hook `filter_actions`"), "{}", stderr(&o));
    }
}

#[test]
fn moves_and_perft_divide_write_a_returning_capture_with_its_plus() {
    // fixtures/decachess/dc13: e8xe5 takes the knight, and white's frozen h10 pawn returns as one.
    let fen = "7P2/1P8/4r5/9k/10/4N5/10/10/10/K9 b - - 0 1 frozen=h10";
    let o = varia(&["moves", "decachess", "--fen", fen]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().any(|l| l == "e8-e5+N"), "{out}");
    assert!(!out.lines().any(|l| l == "e8-e5"), "{out}");
    let o = varia(&["perft", "decachess", "1", "--divide", "--fen", fen]);
    assert!(stdout(&o).lines().any(|l| l == "e8-e5+N: 1"), "{}", stdout(&o));
}

#[test]
fn without_the_check_rule_a_forced_win_is_no_mate() {
    // Chessception: the black king has 1 HP left; the queen's attack a2-a8 kills it.
    let o = varia(&[
        "move",
        "chessception",
        "--fen",
        "k7/8/8/8/8/8/Q7/K7 w - - 0 1 hp=a8:1",
        "--level",
        "veteran",
        "--no-clock",
    ]);
    assert_eq!(stdout(&o), "a2-a8\n", "{}", stderr(&o));
    assert!(stderr(&o).contains(", score win in 1, "), "{}", stderr(&o));
    assert!(!stderr(&o).contains("mate"), "{}", stderr(&o));
}
