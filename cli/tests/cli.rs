//! The command-line contract (DESIGN.md §4): outputs, exit codes and error messages.

mod common;

use std::process::{Command, Output};

use common::{scratch, stderr, stdout, varia};

#[test]
fn list_and_check_the_shipped_variants() {
    let o = varia(&["list"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("standard"), "{}", stdout(&o));
    let o = varia(&["check", "standard"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "ok\n"));
}

#[test]
fn check_reports_every_problem_with_its_place() {
    let dir = scratch("broken");
    let toml = "[board]\nfiles = 8\nranks = 8\n[setup]\nfen = \"8/8/8/8/8/8/8/K7 w - - 0 1\"\n\
                [pieces.king]\nletter = \"K\"\nmoves = [{ leap = \"al\" }]\n\
                [pieces.knight]\nletter = \"K\"\nmoves = [{ leap = \"knight\" }]\n";
    std::fs::write(dir.join("variant.toml"), toml).unwrap();
    let o = varia(&["check", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].ends_with("variant.toml:8:10: unknown vector set `al`; known: orthogonal, diagonal, all, knight, forward, backward, sideways, vertical, forward-diagonal, backward-diagonal"), "{out}");
    assert!(lines[1].contains("variant.toml:10:10: pieces `king` and `knight` share the letter K"), "{out}");
}

#[test]
fn check_suggests_the_key_meant() {
    let dir = scratch("typo");
    let toml = "[board]\nfiles = 8\nranks = 8\n[setup]\nfen = \"8/8/8/8/8/8/8/K7 w - - 0 1\"\n\
                [pieces.king]\nletter = \"K\"\nroyla = true\nmoves = []\n";
    std::fs::write(dir.join("variant.toml"), toml).unwrap();
    let o = varia(&["check", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("variant.toml:8:1: unknown field `royla`"), "{}", stdout(&o));
    assert!(stdout(&o).contains("(did you mean `royal`?)"), "{}", stdout(&o));
}

#[test]
fn moves_lists_every_legal_action() {
    let o = varia(&["moves", "standard"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 20);
    assert!(out.lines().any(|l| l == "e2-e4") && out.lines().any(|l| l == "g1-f3"));
    let o = varia(&["moves", "standard", "--fen", "k7/4P3/8/8/8/8/8/K7 w - - 0 1"]);
    assert!(stdout(&o).lines().any(|l| l == "e7-e8=Q"), "{}", stdout(&o));
}

#[test]
fn replay_prints_the_position_and_round_trips_json() {
    let o = varia(&["replay", "standard", "e2-e4", "c7-c5 g1-f3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("fen: rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"),
        "{}",
        stdout(&o)
    );

    let o = varia(&["replay", "standard", "e2-e4", "c7-c5", "--json"]);
    let json = stdout(&o);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["to_move"], "white");
    assert_eq!(v["ply"], 2);
    let dir = scratch("json");
    let state = dir.join("state.json");
    std::fs::write(&state, &json).unwrap();
    let o = varia(&["replay", "standard", "--from", state.to_str().unwrap(), "--json"]);
    assert_eq!(stdout(&o), json, "a snapshot read and written again is unchanged");
    let o = varia(&["replay", "standard", "--from", state.to_str().unwrap(), "g1-f3", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["ply"], 3);
}

#[test]
fn errors_are_actionable_and_exit_non_zero() {
    let o = varia(&["replay", "standard", "e2-e4", "e2-e4"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("move 2 (`e2-e4`): e2-e4 is illegal: there is no piece on e2"), "{}", stderr(&o));

    let o = varia(&["moves", "chesss"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("unknown variant `chesss`"), "{e}");
    assert!(e.contains("known variants: 3check, almost, amazon, antichess, atomic, caissan, capablanca, chancellor, chess960, chessception, chessic, chigorin, courier, crazyhouse, decachess, embassy, extinction, fischerandom, giveaway, gothic, grand, horde, janggi, janus, kingofthehill, knightmate, losers, makruk, minishogi, minixiangqi, racingkings, seirawan, shatranj, shogi, standard, xiangqi"), "{e}");

    let o = varia(&["perft", "standard", "1", "--fen", "8/8 w"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("bad FEN: board field: expected 8 ranks"), "{}", stderr(&o));

    let dir = scratch("corrupt");
    let state = dir.join("state.json");
    std::fs::write(&state, "{ not json").unwrap();
    let o = varia(&["replay", "standard", "--from", state.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not valid JSON at line 1"), "{}", stderr(&o));

    let o = varia(&["perft"]);
    assert_eq!(o.status.code(), Some(2), "a bad command line is a usage error");
}

#[test]
fn perft_ends_with_the_count_alone() {
    let o = varia(&["perft", "standard", "3"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("8902"));
    assert!(stderr(&o).contains("nodes/s"));
    let o = varia(&["perft", "standard", "2", "--divide"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 21);
    assert!(lines.contains(&"e2-e4: 20"));
    assert_eq!(lines.last(), Some(&"400"));
    // Fairy-Stockfish's name for Chess960 (a folder that extends it), from setup 0
    // (BBQNNRKR) in Shredder-FEN: 20 first moves (16 pawns', 4 knights'), each answered by 20.
    let o = varia(&["perft", "fischerandom", "2", "--fen", "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().last(), Some("400"));
}

#[test]
fn watch_reloads_on_save_and_keeps_the_last_good_rules() {
    use std::io::{BufRead, BufReader};
    use std::sync::mpsc;
    use std::time::Duration;

    let dir = scratch("watch");
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_varia"))
        .args(["watch", dir.to_str().unwrap(), "--interval", "50", "--changes", "2"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // Waits (generously: this is not a timing test) for a line containing `what`.
    let wait_for = |what: &str| -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(line) => {
                    let hit = line.contains(what);
                    seen.push(line);
                    if hit {
                        return seen;
                    }
                }
                Err(_) => panic!("no `{what}` from varia watch; saw: {seen:?}"),
            }
        }
    };
    wait_for("ok: the rules load");
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n[draws]\nrepetiton = 2\n").unwrap();
    let lines = wait_for("keeping the last good ones");
    let lines = [lines, wait_for("unknown field `repetiton`")].concat();
    assert!(lines.iter().any(|l| l.contains("variant.toml:3:1: unknown field `repetiton`")), "{lines:?}");
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n[draws]\nrepetition = 2\n").unwrap();
    wait_for("rules reloaded: ok");
    assert!(child.wait().unwrap().success());
}

/// Runs `varia play` with `input` on stdin, its data folder and clipboard in `data`.
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
    // A run refused before it reads its input closes the pipe early: that is no failure.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

#[test]
fn the_control_panel_is_scriptable() {
    let data = scratch("panel");
    // Two humans: moves, undo of up to 4 plies, copy, reset, paste (replaces the game).
    let o = play(
        &["decachess", "--as", "both"],
        "e2-e5\nd9-d6\ne5-d6\nundo\nb2-b4\nc9-c7\ncopy\nreset\npaste\nquit\n",
        &data,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("took back 3 plies"), "{out}");
    assert!(out.contains("copied 2 moves to "), "{out}");
    assert_eq!(std::fs::read_to_string(data.join("clipboard.txt")).unwrap(), "b2-b4 c9-c7");
    assert!(out.contains("pasted 2 moves from "), "{out}");
    assert!(out.ends_with("last move: c9-c7\nwhite to move\nwhite> quit\n"), "{out}");

    // An invalid pasted list is refused and the current game kept.
    std::fs::write(data.join("clipboard.txt"), "e2-e5 e2-e5").unwrap();
    let o = play(&["decachess", "--as", "both"], "a2-a3\npaste\nboard\nquit\n", &data);
    let out = stdout(&o);
    assert!(
        out.contains(
            "paste refused (move 2 (`e2-e5`): e2-e5 is illegal: there is no piece on e2); the current game is kept"
        ),
        "{out}"
    );
    assert!(out.contains("last move: a2-a3"), "{out}");

    // Save overwrites the one slot; load restores the game and the panel settings.
    let o = play(&["decachess", "--as", "both"], "h2-h5\nsave\nreset\nload\nquit\n", &data);
    let out = stdout(&o);
    assert!(out.contains("loaded ") && out.contains("(you play both, AI level veteran)"), "{out}");
    assert!(out.contains("last move: h2-h5"), "{out}");
    let o = play(&["decachess", "--as", "both"], "g2-g3\nsave\nquit\n", &data);
    assert!(o.status.success());
    let saved = std::fs::read_to_string(data.join("decachess/save.json")).unwrap();
    assert!(saved.contains("\"g2-g3\"") && !saved.contains("h2-h5"), "saving again overwrites the slot");

    // A corrupt save is refused with the reason; the game in play is kept.
    std::fs::write(data.join("decachess/save.json"), "{\"variant\": \"decachess\", \"hist").unwrap();
    let o = play(&["decachess", "--as", "both"], "a2-a3\nload\nboard\nquit\n", &data);
    let out = stdout(&o);
    assert!(out.contains("load refused: ") && out.contains("not valid JSON"), "{out}");
    assert!(
        out.contains("the current game is kept") && out.ends_with("last move: a2-a3\nblack to move\nblack> quit\n"),
        "{out}"
    );

    // Against the AI: it answers at once; changing the level keeps the game; changing
    // play-as restarts it.
    let o = play(
        &["decachess", "--as", "white", "--ai", "novice", "--seed", "1"],
        "e2-e5\nlevel veteran\nas black\nquit\n",
        &data,
    );
    let out = stdout(&o);
    assert!(out.contains("black (novice) plays "), "{out}");
    assert!(out.contains("AI level veteran: from its next move"), "{out}");
    assert!(out.contains("you play black (mode ai): new game"), "{out}");
    assert!(out.contains("white (veteran) plays "), "after the restart the AI (white) moves first: {out}");
    let o = play(&["decachess", "--ai", "grandmaster"], "quit\n", &data);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("grandmaster"), "{}", stderr(&o));
}

#[test]
fn the_panel_shows_hit_points_auras_and_landing_choices() {
    let data = scratch("panel-hp");
    // Knights boost their own damage (one stack each); kings guard their neighbours.
    let o = play(&["chessception", "--as", "both"], "inspect b1\ninspect d2\nquit\n", &data);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("1  R4 N4 B4 Q4 K4 B4 N4 R4\n"), "the board shows hit points: {out}");
    // Each knight and its neighbours have one stack (CC-11: the knight includes itself).
    let ones = "a1, b1, c1, f1, g1, h1, a2, b2, c2, f2, g2, h2, a7, b7, c7, f7, g7, h7, a8, b8, c8, f8, g8, h8";
    assert!(out.contains(&format!("damage ×2 • (1 stack(s)): {ones}\n")), "{out}");
    assert!(out.contains("guarded (half damage): d1, e1, f1, d2, e2, f2, d7, e7, f7, d8, e8, f8\n"), "{out}");
    assert!(out.contains("white knight on b1\n  4/4 HP, damage 2\n  1 stack(s): damage ×2 (sources: b1)\n"), "{out}");
    assert!(
        out.contains("white pawn on d2\n  2/2 HP, damage 2, strikes back for 2\n  guarded: takes half damage\n"),
        "{out}"
    );

    // A queen whose attack kills on two squares: the bare move names the landing choices.
    let o = play(
        &["chessception", "--as", "both", "--fen", "8/3np3/8/8/Q6k/8/8/K7 w - - 0 1"],
        "a4-d7\na4-d7@e7\nquit\n",
        &data,
    );
    let out = stdout(&o);
    assert!(out.contains("choose where to land with @d7 or @e7"), "{out}");
    assert!(out.contains("last move: a4-d7@e7\n"), "{out}");

    // Castling is shown when it is possible, with the click target of A-CC20, which
    // castles too.
    let o = play(
        &["chessception", "--as", "both", "--fen", "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1"],
        "e1-b1\nquit\n",
        &data,
    );
    let out = stdout(&o);
    assert!(out.contains("castling: e1-c1 (or e1-b1), e1-g1\nwhite to move\n"), "{out}");
    assert!(out.contains("last move: e1-c1\ncastling: e8-c8 (or e8-b8), e8-g8\nblack to move\n"), "{out}");
}

#[test]
fn every_panel_control_does_what_the_rules_say() {
    let data = scratch("panel-controls");
    // DC-16: entry ignores case; DC-17: undo takes back min(4, plies played).
    let o = play(&["decachess", "--as", "both"], "E2-E5\nd9-D6\nf2-f3\nf9-f8\ng2-g3\nundo\nundo\nundo\nquit\n", &data);
    let out = stdout(&o);
    assert!(out.contains("last move: e2-e5\n") && out.contains("last move: d9-d6\n"), "{out}");
    let took: Vec<&str> = out.lines().filter(|l| l.starts_with("took back")).collect();
    assert_eq!(took, ["took back 4 plies", "took back 1 ply", "took back 0 plies"], "{out}");

    // DC-15: mode and play-as restart the game; the level does not.
    let o = play(
        &["decachess", "--as", "both", "--ai", "novice"],
        "e2-e5\nlevel Master\nboard\nmode ai\nmode humans\nquit\n",
        &data,
    );
    let out = stdout(&o);
    assert!(out.contains("AI level master: from its next move\n"), "level names ignore case: {out}");
    let after_level = &out[out.find("AI level master").unwrap()..out.find("mode ai (").unwrap()];
    assert!(after_level.contains("last move: e2-e5"), "changing the level keeps the game: {after_level}");
    assert!(out.contains("mode ai (you play white): new game"), "{out}");
    assert!(out.contains("mode humans (you play both): new game"), "{out}");
    let last_board = &out[out.rfind("new game").unwrap()..];
    assert!(!last_board.contains("last move"), "a restart is the start position: {last_board}");

    // DC-20: reset restarts at once, with no question.
    let o = play(&["decachess", "--as", "both"], "e2-e5\nreset\nquit\n", &data);
    let out = stdout(&o);
    let after = &out[out.find("new game").unwrap()..];
    assert!(after.contains(" 2  P P P P P P P P P P\n") && !after.contains("last move"), "{after}");
    assert!(after.contains("white to move\nwhite> quit"), "{after}");

    // DC-18: an empty clipboard is refused, and the game kept.
    std::fs::write(data.join("clipboard.txt"), "  \n").unwrap();
    let o = play(&["decachess", "--as", "both"], "e2-e5\npaste\nboard\nquit\n", &data);
    let out = stdout(&o);
    assert!(out.contains("holds no moves (copy a move list first); the current game is kept"), "{out}");
    assert!(out.ends_with("last move: e2-e5\nblack to move\nblack> quit\n"), "{out}");

    // A-DC12: undo restores frozen and waiting pieces; the saved state carries the mode,
    // the side played and the level, whatever the session that loads it.
    let fen = "2P1P5/10/3r5k/10/10/3N6/7B2/10/5b4/K9 b - - 0 1 frozen=e10,c10";
    let o = play(&["decachess", "--as", "black", "--ai", "novice", "--fen", fen], "d8-d5\nundo\nsave\nquit\n", &data);
    let out = stdout(&o);
    assert!(out.contains("white frozen pawn on e10 returns as knight\n"), "{out}");
    assert!(out.contains("frozen (oldest first): c10\nwaiting a turn: e10\n"), "{out}");
    let undone = &out[out.rfind("took back").unwrap()..];
    assert!(undone.contains("frozen (oldest first): e10, c10\n") && !undone.contains("waiting"), "{undone}");
    let o = play(&["decachess", "--as", "both", "--ai", "master"], "load\nquit\n", &data);
    let out = stdout(&o);
    assert!(out.contains("(you play black, AI level novice)"), "{out}");
    assert!(out.contains("frozen (oldest first): e10, c10\n"), "{out}");
}
