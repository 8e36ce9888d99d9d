//! Events in words in the terminal (issue 17 point 5): `varia replay --events` and
//! `varia play` write each action's events with the text of the playground's log, and
//! points appear under the board and in the JSON for a variant that scores.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::{scratch, stderr, stdout, varia};

/// CC-08 (fixtures/chessception/cc08_queen_cone_orthogonal.toml): the queen d1-d7 takes
/// the pawn (2 HP: 4 halved by the king's guard = 2, killed), splashes c8, d8 and e8
/// (1 halved on the guarded queen and king, 2 on the bishop) and lands on d7.
const CONE_FEN: &str = "2bqk3/2ppp3/8/8/8/8/8/3Q3K w - - 0 1";
const CONE_EVENTS: [&str; 6] = [
    "black pawn on d7 takes 2 (primary, guarded): 0 HP left",
    "black queen on d8 takes 1 (aoe, guarded): 3 HP left",
    "black king on e8 takes 1 (aoe, guarded): 3 HP left",
    "black bishop on c8 takes 2 (aoe): 2 HP left",
    "black pawn on d7 killed",
    "white attacker d1 lands on d7",
];

#[test]
fn replay_lists_each_action_with_its_events_in_words() {
    let o = varia(&["replay", "standard", "--events", "e2-e4 d7-d5", "e4-d5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let head: Vec<&str> = out.lines().take(6).collect();
    assert_eq!(
        head,
        [
            "1. white: e2-e4",
            "   white pawn e2-e4",
            "2. black: d7-d5",
            "   black pawn d7-d5",
            "3. white: e4-d5",
            "   white pawn e4-d5",
        ]
    );
    // The capture is its own event, then the board follows as without `--events`.
    assert_eq!(out.lines().nth(6), Some("   black pawn captured on d5"), "{out}");
    assert!(out.contains("moves: 1. e4 d5 2. exd5\n"), "{out}");
}

#[test]
fn replay_explains_damage_splash_and_landing() {
    let o = varia(&["replay", "chessception", "--fen", CONE_FEN, "--events", "d1-d7"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "1. white: d1-d7", "{out}");
    let events: Vec<&str> = lines[1..].iter().take_while(|l| l.starts_with("   ")).map(|l| l.trim_start()).collect();
    // An attack moves no piece by itself: the breakdown the fixture pins is all.
    assert_eq!(events, CONE_EVENTS, "{out}");
}

#[test]
fn replay_events_and_json_do_not_mix() {
    let o = varia(&["replay", "standard", "--events", "--json", "e2-e4"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

#[test]
fn replay_of_a_solo_board_lists_each_strike_with_its_events() {
    let plain = varia(&["replay", "chessic", "--seed", "1"]);
    assert!(plain.status.success(), "{}", stderr(&plain));
    // The first gold target of the dealt board, struck once.
    let target = varia(&["moves", "chessic", "--seed", "1"]);
    let first = stdout(&target).lines().next().expect("a dealt board has targets").to_string();
    let o = varia(&["replay", "chessic", "--seed", "1", "--events", &first]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("1. {first}"), "{out}");
    assert!(
        lines[1].starts_with("   ") && lines[1].contains(&first),
        "the strike's first event names its square: {out}"
    );
    // Without `--events` the same strike gives the same board.
    let same = varia(&["replay", "chessic", "--seed", "1", &first]);
    let board: String =
        lines.iter().skip_while(|l| l.starts_with("1. ") || l.starts_with("   ")).map(|l| format!("{l}\n")).collect();
    assert_eq!(board, stdout(&same));
}

/// Runs `varia play` with `input` on stdin.
fn play(name: &str, args: &[&str], input: &str) -> Output {
    // A folder per test: tests run in parallel, and `scratch` empties the folder it gives.
    let data = scratch(name);
    let mut child = Command::new(env!("CARGO_BIN_EXE_varia"))
        .arg("play")
        .args(args)
        .env("VARIA_DATA_DIR", &data)
        .env("VARIA_CLIPBOARD", "file")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

#[test]
fn play_writes_a_human_moves_events() {
    let o = play("words-play-human", &["chessception", "--as", "both", "--fen", CONE_FEN], "d1-d7\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let at = out.find(&format!("  {}\n", CONE_EVENTS[0])).unwrap_or_else(|| panic!("no events: {out}"));
    let after: Vec<&str> = out[at..].lines().take(6).map(str::trim_start).collect();
    assert_eq!(after, CONE_EVENTS, "{out}");
}

#[test]
fn play_writes_the_computers_events() {
    // The computer plays white, in check from the queen b2: its one legal move takes her.
    let o = play(
        "words-play-computer",
        &["standard", "--as", "black", "--ai", "novice", "--fen", "k7/8/8/8/8/8/1q6/K7 w - - 0 1"],
        "quit\n",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    let i = lines.iter().position(|l| l.starts_with("white (novice) plays ")).unwrap_or_else(|| panic!("{out}"));
    assert!(lines[i].starts_with("white (novice) plays a1-b2 (Kxb2)"), "{out}");
    assert_eq!(lines[i + 1..i + 3], ["  white king a1-b2", "  black queen captured on b2"], "{out}");
}

/// A variant that awards a point for every action to the side that made it, through the
/// `score` hook.
fn scoring_variant(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n").unwrap();
    std::fs::write(dir.join("rules.lua"), "function score(game, action)\n  return 1\nend\n").unwrap();
    dir
}

#[test]
fn points_show_under_the_board_and_in_the_json() {
    let dir = scoring_variant("words-points-board");
    let v = dir.to_str().unwrap();
    // Before any move: the variant scores, so its points are shown at 0.
    let o = varia(&["replay", v]);
    assert!(stdout(&o).contains("points: white 0, black 0\n"), "{}{}", stdout(&o), stderr(&o));
    let o = varia(&["replay", v, "e2-e4 e7-e5 g1-f3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("points: white 2, black 1\n"), "{}", stdout(&o));
    let o = varia(&["replay", v, "--json", "e2-e4 e7-e5 g1-f3"]);
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(j["points"], serde_json::json!({"white": 2, "black": 1}));
    // Standard chess scores nothing: no points line, no field.
    let o = varia(&["replay", "standard", "--json", "e2-e4"]);
    let j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(j.get("points").is_none(), "{j}");
    assert!(!stdout(&varia(&["replay", "standard", "e2-e4"])).contains("points:"));
}

#[test]
fn a_snapshot_s_points_must_agree_with_its_history() {
    let dir = scoring_variant("words-points-snapshot");
    let v = dir.to_str().unwrap();
    let o = varia(&["replay", v, "--json", "e2-e4 e7-e5"]);
    let mut j: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let file = dir.join("snap.json");
    std::fs::write(&file, j.to_string()).unwrap();
    let o = varia(&["replay", v, "--from", file.to_str().unwrap(), "g1-f3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("points: white 2, black 1\n"), "{}", stdout(&o));
    // A claimed score the moves did not make is refused, naming the field.
    j["points"] = serde_json::json!({"white": 9, "black": 1});
    std::fs::write(&file, j.to_string()).unwrap();
    let o = varia(&["replay", v, "--from", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("points"), "{}", stderr(&o));
    // Without a history the points cannot be rebuilt: the error says what is missing.
    let j = serde_json::json!({"fen": "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", "points": {"white": 1, "black": 1}});
    std::fs::write(&file, j.to_string()).unwrap();
    let o = varia(&["replay", v, "--from", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stderr(&o).contains("need `history`"), "{}", stderr(&o));
}
