//! The solo contract of DESIGN.md §8 on Chessic: `moves`, `replay --json`, `solve`,
//! boards as text or from a seed, `--elapsed` as the clock reading.

mod common;

use common::{stderr, stdout, varia};
use serde_json::Value;

/// Every square `111` but a1 (a 1, then a bishop, then a 4).
fn board() -> String {
    let mut s = vec!["111"; 36];
    s[0] = "1B4";
    s.join(" ")
}

#[test]
fn moves_lists_the_gold_targets() {
    let b = board();
    let o = varia(&["moves", "chessic", "--board", &b]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 36); // CH-03: anywhere first
    // After a1 (a one): its three neighbours; after a1 b1 a1 (the bishop): only f6.
    let o = varia(&["moves", "chessic", "--board", &b, "a1"]);
    assert_eq!(stdout(&o), "b1\na2\nb2\n");
    let o = varia(&["moves", "chessic", "--board", &b, "a1", "b1", "a1"]);
    assert_eq!(stdout(&o), "f6\n");
}

#[test]
fn replay_prints_the_snapshot_with_hits_targets_status_and_score() {
    let b = board();
    let o = varia(&[
        "replay",
        "chessic",
        "--board",
        &b,
        "--level",
        "journeyman",
        "--elapsed",
        "12.9",
        "a1",
        "b1",
        "a1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(s["variant"], "chessic");
    assert_eq!(s["ply"], 3);
    assert_eq!(s["to_move"], Value::Null);
    assert_eq!(s["status"], "playing");
    assert_eq!(s["targets"], serde_json::json!(["f6"]));
    assert_eq!(s["board"][0], serde_json::json!({"square": "a1", "hits": 2, "layers": "1B4", "piece": "four"}));
    assert_eq!(s["board"][1], serde_json::json!({"square": "b1", "hits": 1, "layers": "111", "piece": "one"}));
    // One (1.0), one again (1.1), then the bishop (1.0): 3.1; time 50.0 - 1.2 = 48.8.
    let score = &s["score"];
    assert_eq!(score["strike_points"], 31);
    assert_eq!(score["royal"], 0);
    assert_eq!(score["perfect"], 0);
    assert_eq!(score["layer"], 0);
    assert_eq!(score["time"], 488);
    assert_eq!(score["total"], 519);
    assert_eq!(score["chain"], serde_json::json!({"kind": "bishop", "length": 1}));
    assert_eq!(score["royal_run"], 1);
}

#[test]
fn an_illegal_strike_exits_1_with_its_index_and_reason() {
    let b = board();
    let o = varia(&["replay", "chessic", "--board", &b, "a1", "c3"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: strike 2 (`c3`): c3 cannot be struck: the one struck on a1 reaches only b1, a2, b2\n"
    );
    let o = varia(&["replay", "chessic", "--board", "111 222"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("a board has 36 stacks"), "{}", stderr(&o));
    let o = varia(&["moves", "chessic"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("give the board with --board"), "{}", stderr(&o));
    let o = varia(&["moves", "chessic", "--board", &b, "--level", "grandmaster"]);
    assert_eq!(stderr(&o), "error: unknown level `grandmaster`; levels: apprentice, journeyman, artisan, master\n");
    let o = varia(&["replay", "chessic", "--board", &b, "--elapsed", "soon"]);
    assert!(stderr(&o).contains("`soon` is not a number of seconds"), "{}", stderr(&o));
}

#[test]
fn options_of_one_turn_model_are_refused_for_another() {
    let o = varia(&["moves", "standard", "--board", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--board, --seed, --level, --raw and --elapsed are for solo boards"), "{}", stderr(&o));
    let o = varia(&["moves", "chessic", "--fen", "8/8/8/8/8/8/8/8"]);
    assert!(stderr(&o).contains("`chessic` is a solo variant"), "{}", stderr(&o));
    let o = varia(&["perft", "chessic", "2"]);
    assert_eq!(stderr(&o), "error: `perft` is for two sides alternating; `chessic` is a solo variant\n");
}

#[test]
fn a_seed_deals_the_same_raw_board_every_time() {
    let a = varia(&["replay", "chessic", "--seed", "7", "--level", "apprentice", "--raw", "--json"]);
    let b = varia(&["replay", "chessic", "--seed", "7", "--level", "apprentice", "--raw", "--json"]);
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    let s: Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(s["seed"], 7);
    assert_eq!(s["level"], "apprentice");
    // The stacks of a1…c1 pinned in runtime/tests/solo.rs.
    let text = s["history"]["board"].as_str().unwrap();
    assert!(text.starts_with("323 122 211 "), "{text}");
}

#[test]
fn solve_reports_a_verdict_and_a_route() {
    // A forged route is easy on a board of ones (a king's tour three times).
    let b = vec!["111"; 36].join(" ");
    let o = varia(&["solve", "chessic", "--board", &b, "--nodes", "100000", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(s["verdict"], "forged");
    assert_eq!(s["route"].as_array().unwrap().len(), 108);
    // On a 2×2 board a Number 4 never has a target: every first strike cools the board.
    let b = ["444"; 4].join(" ");
    let args = ["solve", "chessic", "--set", "board.files=2", "--set", "board.ranks=2", "--board", &b];
    let o = varia(&[&args[..], &["--level", "artisan", "--nodes", "100000", "--json"]].concat());
    let s: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(s["verdict"], "impossible");
    assert_eq!(s["route"], serde_json::json!([]));
    assert_eq!(s["best"]["score"], 10);
    // Four routes of one strike each: the score search saw them all.
    assert_eq!(s["best"]["proved"], true);
    assert_eq!(s["decision"]["nodes"], 0, "refuted before any search");
}
