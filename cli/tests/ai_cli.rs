//! `varia move`, `varia match` and `varia bench ai` on the command line. Every search
//! runs with `--no-clock`, so outputs are reproducible.

use std::process::{Command, Output};

fn varia(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_varia"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs varia")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn move_prints_the_action_alone_on_the_last_line() {
    let o =
        varia(&["move", "standard", "--fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "--level", "veteran", "--no-clock"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "a1-a8\n");
    let err = stderr(&o);
    assert!(err.starts_with("veteran (fast back end): depth 1, seldepth 1, score mate 1, nodes "), "{err}");
    assert!(err.contains("\npv: a1-a8\n"), "{err}");
}

#[test]
fn move_plays_given_moves_first_and_is_reproducible() {
    let args = ["move", "standard", "e2-e4", "e7-e5", "--level", "novice", "--seed", "5", "--no-clock"];
    let (a, b) = (varia(&args), varia(&args));
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(stdout(&a), stdout(&b));
    assert_eq!(stdout(&a).lines().count(), 1);
    // The move is white's: from ranks 1 or 2.
    let m = stdout(&a);
    assert!(m.as_bytes()[1] == b'1' || m.as_bytes()[1] == b'2', "{m}");
}

#[test]
fn move_errors_are_clear() {
    let o = varia(&["move", "standard", "--level", "grandmaster"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: unknown level `grandmaster` (did you mean `master`?); the levels are novice, veteran, master\n"
    );
    let o = varia(&["move", "standard", "--fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1-a8"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "error: the game is over (white wins by checkmate)\n");
    let o = varia(&["move", "standard", "e2-e5"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "error: move 1 (`e2-e5`): e2-e5 is illegal: a pawn on e2 cannot move to e5\n");
}

#[test]
fn a_match_alternates_colours_and_scores_each_level() {
    let args =
        ["match", "standard", "--white", "veteran", "--black", "novice", "--games", "2", "--seed", "3", "--no-clock"];
    let o = varia(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert!(lines[0].starts_with("game   1: veteran (white) vs novice (black): "), "{out}");
    assert!(lines[1].starts_with("game   2: novice (white) vs veteran (black): "), "{out}");
    assert!(lines[2].starts_with("after 2 games ("), "{out}");
    assert!(lines[3].starts_with("veteran "), "{out}");
    assert!(lines[4].starts_with("novice "), "{out}");
    assert!(lines[5].starts_with("Elo difference of veteran over novice: "), "{out}");
    // The same seed replays the same match.
    let again = varia(&args);
    let games = |s: &str| s.lines().take(2).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(games(&stdout(&again)), games(&out));
}

#[test]
fn a_match_scores_draws_by_the_ply_limit_as_halves() {
    // Two plies cannot end a game: both are scored as draws, and a level meeting itself
    // is told apart as A and B.
    let o = varia(&[
        "match",
        "standard",
        "--white",
        "novice",
        "--black",
        "novice",
        "--games",
        "2",
        "--max-plies",
        "2",
        "--no-clock",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("game   1: novice (A) (white) vs novice (B) (black): 1/2-1/2 (draw by the 2-ply limit, 2 plies)"),
        "{out}"
    );
    assert!(out.contains("novice (A)         1.0/2 =  50.0%  (+0 =2 -0;"), "{out}");
    assert!(out.contains("novice (B)         1.0/2 =  50.0%  (+0 =2 -0;"), "{out}");
}

/// `varia match standard`, novice (A) against veteran (B), seed 5, no clock, then `extra`.
fn novice_against_veteran(extra: &[&str]) -> Output {
    let mut args = vec!["match", "standard", "--white", "novice", "--black", "veteran", "--seed", "5", "--no-clock"];
    args.extend_from_slice(extra);
    varia(&args)
}

#[test]
fn a_match_on_several_workers_reports_what_one_worker_does() {
    let dir = std::env::temp_dir().join(format!("varia-jobs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |jobs: &str| {
        let pgn = dir.join(format!("jobs{jobs}.pgn"));
        let o = novice_against_veteran(&["--games", "5", "--jobs", jobs, "--pgn", pgn.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        // The games' lines and the PGN's moves; times (in the comments and the report)
        // are the clock's.
        let lines: Vec<String> = stdout(&o).lines().filter(|l| l.starts_with("game ")).map(str::to_string).collect();
        let text = std::fs::read_to_string(&pgn).unwrap();
        let moves: String = text.split('{').map(|part| part.split_once('}').map_or(part, |(_, rest)| rest)).collect();
        (lines, moves)
    };
    let (one, pgn_one) = run("1");
    let (three, pgn_three) = run("3");
    assert_eq!(one.len(), 5);
    assert!(one[4].starts_with("game   5: novice (white)"), "{one:?}");
    assert_eq!(one, three);
    assert_eq!(pgn_one, pgn_three);
    assert!(pgn_three.contains("[Round \"5\"]"), "{pgn_three}");
    std::fs::remove_dir_all(&dir).unwrap();
    let o = novice_against_veteran(&["--jobs", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "error: --jobs must be at least 1\n");
}

#[test]
fn a_match_stops_when_the_sprt_decides() {
    // Veteran beats novice every game at these seeds: after a few losses the test
    // accepts H0 (novice is not 100 Elo over veteran) and the match stops short of 40.
    let o = novice_against_veteran(&["--games", "40", "--sprt", "0:100", "--jobs", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let played = out.lines().filter(|l| l.starts_with("game ")).count();
    assert!(played < 40, "{out}");
    assert!(out.contains(&format!("after {played} games (")), "{out}");
    assert!(out.contains("\nSPRT: H0 accepted: player A is not +100 Elo over player B (at most +0) (LLR -"), "{out}");
    let o = novice_against_veteran(&["--sprt", "10:0"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "error: --sprt is ELO0:ELO1 with ELO0 < ELO1 (like 0:10), not `10:0`\n");
}

#[test]
fn bench_knows_the_ai_suite() {
    let o = varia(&["bench", "nothing"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "error: unknown suite `nothing`; expected perft, hooks, load, ai, selfplay, memory, realm or solve\n"
    );
}

/// A scratch folder `varia-NAME-<pid>` holding `data.tsv` with `text` (scored positions).
fn scored_positions(name: &str, text: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("varia-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.join("data.tsv");
    std::fs::write(&data, text).unwrap();
    (dir, data)
}

#[test]
fn tune_reads_scored_positions_and_prints_the_table() {
    // The bishop pair (white: c1 and f1) and a level position; the oracle's scores.
    let (dir, data) = scored_positions(
        "tune",
        "# fen<TAB>centipawns for the side to move\n\
         2b1k1n1/pppppppp/8/8/8/8/PPPPPPPP/2B1KB2 w - - 0 1\t400\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\t20\n",
    );
    let d = data.to_str().unwrap();
    let args = ["tune", "standard", "--data", d, "--weights", "pair,hp", "--passes", "2"];
    let o = varia(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("# varia tune standard: 2 positions"), "{out}");
    let table: Vec<&str> = out.lines().skip_while(|l| *l != "[ai]").collect();
    assert_eq!(table.len(), 3, "{out}");
    assert!(table[1].starts_with("pair = "), "{out}");
    // Hit points are not in chess: hp stays at its default.
    assert_eq!(table[2], "hp = 60");
    // Deterministic: the same data give the same table.
    assert_eq!(stdout(&varia(&args)).lines().skip(1).collect::<Vec<_>>(), out.lines().skip(1).collect::<Vec<_>>());

    // A malformed line is an error that names it; an unknown weight is one too.
    std::fs::write(&data, "not a position\n").unwrap();
    let o = varia(&["tune", "standard", "--data", d]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("data.tsv:1: expected a FEN, a tab and a score"), "{}", stderr(&o));
    std::fs::write(&data, "4k3/8/8/8/8/8/8/4K2R w - - 0 1\t300\n").unwrap();
    let o = varia(&["tune", "standard", "--data", d, "--weights", "mobilty"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("no weight `mobilty`"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tune_tables_prints_square_tables_for_the_variant_file() {
    // Quiet positions: the start, a knight on f3 (good for white), a king walk.
    let (dir, data) = scored_positions(
        "tune-tables",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\t20\n\
         rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1\t-40\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPKPPP/RNBQ1BNR b kq - 1 1\t150\n\
         4k3/8/8/8/8/8/8/4K2R w - - 0 1\t900\n",
    );
    let d = data.to_str().unwrap();
    let args = ["tune", "standard", "--data", d, "--tables", "--epochs", "20", "--worst", "2"];
    let o = varia(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("# varia tune standard --tables: 4 quiet positions of 4"), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("# worst: ")).count(), 2, "{out}");
    assert!(out.contains("\n[ai]\nthreat = "), "{out}");
    // A table a rank a line: 8 lines of 8 numbers between `square_mg = [` and `]`.
    let rows: Vec<&str> = out.lines().skip_while(|l| *l != "square_mg = [").skip(1).take_while(|l| *l != "]").collect();
    assert_eq!(rows.len(), 8, "{out}");
    assert!(rows.iter().all(|r| r.split(',').filter(|x| !x.trim().is_empty()).count() == 8), "{out}");
    // Printed tables load back: written into a variant extending standard, it checks.
    let variant = dir.join("tuned");
    std::fs::create_dir_all(&variant).unwrap();
    let body: String = out.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    std::fs::write(variant.join("variant.toml"), format!("extends = \"standard\"\n{body}")).unwrap();
    let o = varia(&["check", variant.to_str().unwrap()]);
    assert_eq!(stdout(&o).trim(), "ok", "{}{}", stdout(&o), stderr(&o));
    // Deterministic.
    assert_eq!(stdout(&varia(&args)), out);
    // Flags are checked.
    let o = varia(&["tune", "standard", "--data", d, "--tables", "--epochs", "0"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--epochs must be at least 1"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}
