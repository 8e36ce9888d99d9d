//! SAN and PGN where players meet them: `varia replay` and `varia play` read SAN as
//! well as from-to and print SAN; `--pgn FILE` starts from a game record; the panel
//! saves and loads PGN; malformed records are refused with their line and column.

mod common;

use std::process::{Command, Output};

use common::{scratch, stderr, stdout, varia};

/// The position after 1. e4 e5 2. Nf3 (black to move, one quiet ply since the pawn).
const AFTER_NF3: &str = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";

#[test]
fn replay_reads_san_and_prints_it() {
    let o = varia(&["replay", "standard", "e4", "e5", "Nf3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(&format!("fen: {AFTER_NF3}\n")), "{out}");
    assert!(out.contains("moves: 1. e4 e5 2. Nf3\n"), "{out}");
    // From-to and SAN mix, and give the same game.
    let o = varia(&["replay", "standard", "e2-e4", "e5", "g1-f3"]);
    assert!(stdout(&o).contains(&format!("fen: {AFTER_NF3}\n")), "{}", stdout(&o));
    // Decachess in SAN: the same position as its from-to moves (a capture written `x`).
    let san = varia(&["replay", "decachess", "e5", "d6", "exd6"]);
    let from_to = varia(&["replay", "decachess", "e2-e5", "d9-d6", "e5-d6"]);
    assert!(san.status.success(), "{}", stderr(&san));
    let fen = |o: &Output| stdout(o).lines().find(|l| l.starts_with("fen: ")).map(str::to_string);
    assert!(fen(&from_to).is_some());
    assert_eq!(fen(&san), fen(&from_to));
    assert!(stdout(&san).contains("moves: 1. e5 d6 2. exd6\n"), "{}", stdout(&san));
    // A SAN move that names no legal move is an error that says so.
    let o = varia(&["replay", "standard", "e4", "e5", "Ke3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("error: move 3 (`Ke3`): "), "{}", stderr(&o));
}

#[test]
fn replay_starts_from_a_pgn_game() {
    let dir = scratch("pgn");
    let file = dir.join("two.pgn");
    std::fs::write(
        &file,
        "[Event \"one\"]\n[Variant \"Standard\"]\n\n1. e4 {the king's pawn} e5 2. Nf3 *\n\n\
         [Event \"two\"]\n[FEN \"6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. Ra8# 1-0\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let o = varia(&["replay", "standard", "--pgn", f]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("fen: {AFTER_NF3}\n")), "{}", stdout(&o));
    // Moves given after the record are played on from its end.
    let o = varia(&["replay", "standard", "--pgn", f, "Nc6"]);
    assert!(stdout(&o).contains("moves: 1. e4 e5 2. Nf3 Nc6\n"), "{}", stdout(&o));
    let o = varia(&["replay", "standard", "--pgn", f, "--game", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("moves: 1. Ra8#\n") && out.contains("outcome: white wins by checkmate"), "{out}");
    let o = varia(&["replay", "standard", "--pgn", f, "--game", "3"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).ends_with("there is no game 3: the text holds 2 games\n"), "{}", stderr(&o));
    // `varia move` starts from a record too: the mate's game is over.
    let o = varia(&["move", "standard", "--pgn", f, "--game", "2", "--no-clock"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("the game is over (white wins by checkmate)"), "{}", stderr(&o));
}

#[test]
fn malformed_pgn_is_refused_with_its_line_and_column() {
    let dir = scratch("bad-pgn");
    let cases = [
        // An illegal move: `K` is the third move, at column 13 of line 2.
        ("[Variant \"Standard\"]\n1. e4 e5 2. Ke3 *\n", "line 2, column 13: move 3 (`Ke3`): "),
        // A comment never closed, opened at column 7.
        ("[Event \"x\"]\n1. e4 {never closed\n", "line 2, column 7: "),
        // Another variant's record.
        ("[Variant \"Decachess\"]\n1. e4 *\n", "line 1: the Variant tag: `Decachess` is not standard"),
    ];
    for (i, (text, why)) in cases.iter().enumerate() {
        let file = dir.join(format!("{i}.pgn"));
        std::fs::write(&file, text).unwrap();
        let o = varia(&["replay", "standard", "--pgn", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{text}");
        let e = stderr(&o);
        assert!(e.starts_with("error: ") && e.contains(why), "{text}: {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
}

/// Runs `varia play` with `input` on stdin and its data folder in `data`.
fn play(args: &[&str], input: &str, data: &std::path::Path) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_varia"))
        .arg("play")
        .args(args)
        .env("VARIA_DATA_DIR", data)
        .env("VARIA_CLIPBOARD", "file")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

#[test]
fn play_takes_san_and_saves_and_loads_pgn() {
    let data = scratch("play-pgn");
    let pgn = data.join("game.pgn");
    let p = pgn.to_str().unwrap();
    // The case: `e4` and `Nf6` are moves, not "`` is not a square name".
    let o = play(&["standard", "--as", "both"], &format!("e4\nNf6\nsave {p}\nquit\n"), &data);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("moves: 1. e4 Nf6\nlast move: g8-f6\n"), "{out}");
    assert!(out.contains(&format!("wrote 2 plies as PGN to {p}")), "{out}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert!(text.contains("[Variant \"Standard\"]") && text.contains("[White \"human\"]"), "{text}");
    assert!(text.contains("1. e4 Nf6 *"), "{text}");
    // Loaded in a new session: the game goes on from it.
    let o = play(&["standard", "--as", "both"], &format!("load {p}\nNc3\nquit\n"), &data);
    let out = stdout(&o);
    assert!(out.contains("loaded 2 plies from "), "{out}");
    assert!(out.contains("moves: 1. e4 Nf6 2. Nc3\n"), "{out}");
    // A malformed record is refused with its place, and the game in play is kept.
    std::fs::write(&pgn, "1. e4 e5 2. Ke3 *\n").unwrap();
    let o = play(&["standard", "--as", "both"], &format!("d4\nload {p}\nquit\n"), &data);
    let out = stdout(&o);
    assert!(out.contains("load refused: ") && out.contains("line 1, column 13: move 3 (`Ke3`)"), "{out}");
    assert!(out.ends_with("; the current game is kept\nblack> quit\n"), "{out}");
    let o = play(&["standard", "--as", "both"], "d4\nload nowhere.pgn\nboard\nquit\n", &data);
    let out = stdout(&o);
    assert!(out.contains("load refused: nowhere.pgn: "), "{out}");
    assert!(out.ends_with("last move: d2-d4\nblack to move\nblack> quit\n"), "{out}");
    // The AI's moves are printed in SAN too.
    let o = play(&["standard", "--as", "white", "--ai", "novice", "--seed", "1"], "e4\nquit\n", &data);
    let out = stdout(&o);
    let line = out.lines().find(|l| l.contains("black (novice) plays ")).unwrap_or_else(|| panic!("{out}"));
    // `plays g8-f6 (Nf6)`: the from-to, then its SAN in brackets.
    let after = line.split(" plays ").nth(1).unwrap();
    let (from_to, rest) = after.split_once(' ').unwrap();
    let san = rest.trim_start_matches('(').split(')').next().unwrap();
    assert_eq!(from_to.len(), 5, "{line}");
    assert!(san.ends_with(&from_to[3..5]), "the SAN names the same square: {line}");
}
