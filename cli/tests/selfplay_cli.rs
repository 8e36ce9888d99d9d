//! `varia selfplay` on the command line: reports, JSON that does not depend on the
//! thread count, sweeps with a table and a plot, PGN, and refusals.

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
fn the_json_report_is_byte_equal_with_one_job_or_three() {
    let run = |jobs: &str| {
        let o = varia(&["selfplay", "standard", "--games", "24", "--seed", "5", "--jobs", jobs, "--json", "--quiet"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o)
    };
    let one = run("1");
    assert_eq!(one, run("3"));
    let j: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(j["report"]["games"], 24);
    let r = &j["report"];
    let total = ["white_wins", "black_wins", "draws"].iter().map(|k| r[k]["count"].as_u64().unwrap()).sum::<u64>()
        + r["capped"].as_u64().unwrap()
        + r["turn_limit"].as_u64().unwrap();
    assert_eq!(total, 24);
    for key in
        ["balance", "first_player_advantage", "drawishness", "timeouts", "decisiveness", "duration", "lead_change"]
    {
        assert!(!r["metrics"][key].is_null(), "no {key} in {r}");
    }
}

#[test]
fn the_text_report_names_every_part() {
    let o = varia(&["selfplay", "standard", "--games", "6", "--max-plies", "80", "--quiet"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    for part in [
        "white wins",
        "black wins",
        "draws",
        "timeouts",
        "length",
        "balance",
        "first player",
        "drawishness",
        "decisiveness",
        "lead changes",
    ] {
        assert!(out.contains(part), "no `{part}` in:\n{out}");
    }
    assert!(out.starts_with("standard: 6 games, white random vs black random, seed 1, at most 80 plies"), "{out}");
}

#[test]
fn a_sweep_prints_a_row_per_point_and_draws_a_plot() {
    let dir = std::env::temp_dir().join(format!("varia-selfplay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plot = dir.join("s.svg");
    let o = varia(&[
        "selfplay",
        "chessception",
        "--games",
        "4",
        "--max-plies",
        "60",
        "--sweep",
        "pieces.queen.damage=2,6",
        "--sweep",
        "pieces.rook.aoe=1,2",
        "--plot",
        plot.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 5, "{out}");
    assert!(out.lines().nth(1).unwrap().starts_with("pieces.queen.damage=2 pieces.rook.aoe=1"), "{out}");
    assert!(out.lines().nth(4).unwrap().starts_with("pieces.queen.damage=6 pieces.rook.aoe=2"), "{out}");
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pgn_holds_every_game_and_reads_back() {
    let dir = std::env::temp_dir().join(format!("varia-selfplay-pgn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pgn = dir.join("g.pgn");
    let o = varia(&[
        "selfplay",
        "standard",
        "--games",
        "3",
        "--max-plies",
        "30",
        "--pgn",
        pgn.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(text.matches("[Event \"varia selfplay\"]").count(), 3);
    // Game 2 replays (its moves are legal) to a position 30 plies in or at its end.
    let o = varia(&["replay", "standard", "--pgn", pgn.to_str().unwrap(), "--game", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_with_its_reason() {
    let cases: &[(&[&str], &str)] = &[
        (&["selfplay", "standard", "--games", "2", "--sweep", "pieces.queen.value"], "expected KEY=A,B,C"),
        (&["selfplay", "standard", "--games", "2", "--sweep", "pieces.queen.value=1,lots"], "pieces.queen.value"),
        (&["selfplay", "standard", "--games", "2", "--set", "pieces.queen.valu=3"], "valu"),
        (&["selfplay", "standard", "--games", "2", "--ai", "grandmaster"], "grandmaster"),
        (&["selfplay", "standard", "--games", "2", "--raw"], "solo variants"),
        (&["selfplay", "standard", "--games", "0"], "at least 1"),
    ];
    for (args, why) in cases {
        let o = varia(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{args:?}: {}", stderr(&o));
    }
    // A plot without a sweep, or PGN with one, is a usage error.
    assert_eq!(varia(&["selfplay", "standard", "--plot", "x.png"]).status.code(), Some(2));
}

#[test]
fn a_solo_variant_reports_greedy_and_the_solver_per_level() {
    let o = varia(&[
        "selfplay",
        "chessic",
        "--games",
        "3",
        "--raw",
        "--level",
        "apprentice",
        "--best-nodes",
        "1000",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("3 raw boards per level (seeds 1..=3)"), "{out}");
    assert!(out.contains("\napprentice\n  greedy  forged"), "{out}");
    assert!(out.contains("\n  solver  forged"), "{out}");
    assert!(out.contains("solver over greedy"), "{out}");
    assert!(!out.contains("journeyman"), "{out}");
    let o = varia(&["selfplay", "chessic", "--games", "2", "--ai", "novice"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("solo variant"), "{}", stderr(&o));
}
