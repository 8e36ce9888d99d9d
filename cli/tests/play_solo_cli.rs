//! `varia play` on a solo board and `varia duel`, end to end through stdin: every
//! control of the panel, the clock (`--clock manual`: time moves only with `wait`), the
//! end of a board, the How to Play text, duels between two people and against the
//! computer, and the ratings kept in the data folder.

mod common;

use std::process::{Command, Output, Stdio};

use common::{scratch, stderr, stdout, varia};

/// Runs `varia <args>` with `input` on stdin and its data folder in `data`.
fn run(args: &[&str], input: &str, data: &std::path::Path) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_varia"))
        .args(args)
        .env("VARIA_DATA_DIR", data)
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A run refused before it reads its input closes the pipe early: that is no failure.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

/// Every square `111` but a1 (a one, then a bishop, then a four).
fn board() -> String {
    let mut s = vec!["111"; 36];
    s[0] = "1B4";
    s.join(" ")
}

/// `varia play chessic --board B --level L --clock manual`.
fn play(b: &str, level: &str, input: &str) -> String {
    let data = scratch("play");
    let o = run(&["play", "chessic", "--board", b, "--level", level, "--clock", "manual"], input, &data);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// The same on a 2×2 board (a1 b1, then a2 b2).
fn play_tiny(b: &str, input: &str) -> String {
    let data = scratch("play-tiny");
    let args =
        ["play", "chessic", "--set", "board.files=2", "--set", "board.ranks=2", "--board", b, "--clock", "manual"];
    let o = run(&args, input, &data);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

#[test]
fn the_board_shows_hits_pieces_gold_targets_and_the_score() {
    let out = play(&board(), "journeyman", "a1\ntargets\nc3\nz9\nscore\nquit\n");
    assert!(out.contains("Chessic · journeyman · a given board\n"), "{out}");
    // Before the first strike every square is gold (CH-03).
    assert!(out.contains(" 1 *1⁰ *1⁰ *1⁰ *1⁰ *1⁰ *1⁰\n"), "{out}");
    assert!(out.contains("hits: ⁰ fresh  ¹ cracked  ² weakened  .. cleared  * gold target\n"), "{out}");
    assert!(out.contains("first strike: any unfinished square\n"), "{out}");
    // a1 shows its bishop with one hit; the one struck marks its neighbours gold.
    assert!(out.contains("strike> a1\nstruck the one on a1 (1 hit); a1 now shows a bishop; +1.0 (strike)\n"), "{out}");
    assert!(out.contains(" 2 *1⁰ *1⁰  1⁰  1⁰  1⁰  1⁰\n 1  B¹ *1⁰  1⁰  1⁰  1⁰  1⁰\n"), "{out}");
    assert!(out.contains("last strike: the one on a1; gold targets (3): b1 a2 b2\n"), "{out}");
    assert!(out.contains("score: total 51.0 = strikes 1.0 + royal 0.0 + perfect 0.0 + layers 0.0 + time 50.0\n"));
    assert!(out.contains("chain one ×1 · royal run 0 of 4 · perfect 1 of 4\n"), "{out}");
    assert!(out.contains("strike> targets\n3 gold targets: b1 a2 b2\n"), "{out}");
    // An illegal strike and a bad square are refused, and nothing changes.
    assert!(
        out.contains("c3 cannot be struck: the one struck on a1 reaches only b1, a2, b2 (gold targets: b1 a2 b2)\n"),
        "{out}"
    );
    assert!(out.contains("`z9` is not a square of the 6×6 board (type `help` for the commands)\n"), "{out}");
    assert!(out.ends_with("time: 0 s played, time score 50.0\nstrike> quit\n"), "{out}");
}

#[test]
fn pause_stops_the_clock_and_hides_the_board() {
    let input = "wait 12.9\nscore\npause\nb1\nhint\nwait 100\nscore\npause\nresume\nresume\nwait 1\nscore\nquit\n";
    let out = play(&board(), "journeyman", input);
    // CH-17: 12 whole seconds cost 1.2.
    assert!(out.contains("12.9 s pass\nstrike> score\nscore: total 48.8 = "), "{out}");
    assert!(out.contains("time: 12 s played, time score 48.8\n"), "{out}");
    let paused = &out[out.find("strike> pause\n").unwrap()..out.find("paused> b1").unwrap()];
    assert!(paused.contains("paused after 12 s of play; type `resume` to go on\n"), "{paused}");
    assert!(paused.contains("The forge is paused: the board is hidden and the clock stopped. Type `resume`.\n"));
    assert!(!paused.contains(" 1 "), "no board while paused: {paused}");
    assert!(out.contains("paused> b1\nthe forge is paused: type `resume` first\n"), "{out}");
    assert!(out.contains("paused> hint\nthe forge is paused: type `resume` first\n"), "{out}");
    // 100 s away cost nothing.
    assert!(out.contains("paused> score\nscore: total 48.8 = "), "{out}");
    assert!(out.contains("time: 12 s played, time score 48.8 (paused)\n"), "{out}");
    assert!(out.contains("paused> pause\npause refused: the clock is already paused\n"), "{out}");
    assert!(out.contains("paused> resume\nresumed\n"), "{out}");
    assert!(out.contains("strike> resume\nresume refused: the clock is not paused\n"), "{out}");
    // 13.9 s played: 48.7.
    assert!(out.contains("time: 13 s played, time score 48.7\n"), "{out}");
    // The system clock cannot be moved by hand.
    let data = scratch("system-clock");
    let o = run(&["play", "chessic", "--board", &board()], "wait 5\nquit\n", &data);
    assert!(stdout(&o).contains("`wait` is for --clock manual; the system clock runs by itself\n"));
    let o = run(&["play", "chessic", "--board", &board(), "--clock", "sundial"], "quit\n", &data);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--clock is `system` or `manual`"), "{}", stderr(&o));
}

#[test]
fn undo_takes_back_strikes() {
    let out = play(&board(), "journeyman", "a1\nb1\nundo\nundo 5\nundo x\nundo\nquit\n");
    let took: Vec<&str> = out.lines().filter(|l| l.starts_with("took back")).collect();
    assert_eq!(took, ["took back 1 strike", "took back 1 strike", "took back 0 strikes"], "{out}");
    let after_first = &out[out.find("took back 1 strike").unwrap()..];
    assert!(after_first.contains("last strike: the one on a1; gold targets (3): b1 a2 b2\n"), "{after_first}");
    assert!(out.contains("undo takes a number of strikes (1 or more), e.g. `undo 2`\n"), "{out}");
    assert!(out.contains("first strike: any unfinished square\n"), "{out}");
}

#[test]
fn the_end_shows_the_final_score() {
    // A 2×2 board of ones forged in twelve strikes, the last at 10 s: ones 6.0 + 7 ×
    // 1.5 = 16.5, three layers 60.0, time 50.0 - 1.0 = 49.0.
    let route = "a1\nb1\na1\nb1\na2\nb2\na1\nb1\na2\nb2\na2\nwait 10\nb2\nhint\nundo\nquit\n";
    let out = play_tiny("111 111 111 111", route);
    assert!(out.contains("Board complete: every square is cleared, the board is forged.\n"), "{out}");
    assert!(
        out.contains(
            "Final score: total 125.5 = strikes 16.5 + royal 0.0 + perfect 0.0 + layers 60.0 + time 49.0\nover> hint\n"
        ),
        "{out}"
    );
    assert!(out.contains("over> hint\nthe board is over: `undo`, `restart` or `new`\n"), "{out}");
    // Undo opens the board again.
    assert!(out.contains("over> undo\ntook back 1 strike\n"), "{out}");
    assert!(out.ends_with("strike> quit\n"), "{out}");
    // A-CH13: the four on c3 has no target: the forge cools at once, with its score.
    let mut b = vec!["111"; 36];
    b[14] = "411";
    let out = play(&b.join(" "), "artisan", "c3\nc4\nquit\n");
    assert!(
        out.contains("The forge cooled: no gold target is left. The score counts, but the board is not forged.\n"),
        "{out}"
    );
    assert!(out.contains("Final score: total 51.0 = strikes 1.0 + royal 0.0 + perfect 0.0 + layers 0.0 + time 50.0\n"));
    assert!(out.contains("over> c4\nthe board is over (cooled)\n"), "{out}");
}

#[test]
fn a_hint_comes_from_the_solver() {
    // b2's bishop (under its one) reaches only a1, so a1 must stay unfinished until then.
    let b = "111 111 111 1B1";
    let out = play_tiny(b, "hint\nquit\n");
    let hint = out.lines().find(|l| l.starts_with("hint: ")).unwrap();
    assert!(hint.ends_with("(the solver found a route that forges the board)"), "{hint}");
    // Follow the hints to the end: the board is forged.
    let mut input = String::new();
    let mut strikes = Vec::new();
    for _ in 0..12 {
        let out = play_tiny(b, &format!("{input}hint\nquit\n"));
        let hint = out.lines().rfind(|l| l.starts_with("hint: strike ")).unwrap().to_string();
        let sq = hint["hint: strike ".len()..].split(' ').next().unwrap().to_string();
        input.push_str(&format!("{sq}\n"));
        strikes.push(sq);
    }
    let out = play_tiny(b, &format!("{input}quit\n"));
    assert!(out.contains("the board is forged"), "{strikes:?}\n{out}");
    // After a1 b1 a1 b1 a1 b1 both a1 and b1 are cleared: b2's bishop can only cool.
    let out = play_tiny(b, "a1\nb1\na1\nb1\na1\nb1\nhint\nquit\n");
    assert!(out.contains("hint: no route forges the board from here; strike "), "{out}");
}

#[test]
fn help_and_the_how_to_play_text_from_the_readme() {
    let out = play(&board(), "journeyman", "help\nhelp rules\nquit\n");
    assert!(out.contains("  pause / resume     stop and restart the clock (the board is hidden while paused)\n"));
    assert!(out.contains("  hint               the solver's suggestion for the next strike (a short search)\n"));
    assert!(out.contains("Your goal: clear the whole forge board."), "{out}");
    assert!(out.contains("Gold marks show every square the piece you just struck can reach."), "{out}");
    assert!(!out.contains("## How to Play"), "{out}");
    // The text is the README's section: a copy of the variant with its own README.
    let dir = scratch("readme");
    let v = dir.join("forge");
    std::fs::create_dir_all(&v).unwrap();
    let toml =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/chessic/variant.toml")).unwrap();
    std::fs::write(v.join("variant.toml"), toml).unwrap();
    let path = v.to_str().unwrap().to_string();
    let o = run(&["play", &path, "--board", &board()], "help rules\nquit\n", &dir);
    assert!(
        stdout(&o).contains("forge has no How to Play text (a `## How to Play` section in its folder's README.md)")
    );
    std::fs::write(
        v.join("README.md"),
        "# Forge\nintro\n## How to Play\nStrike well.\n### Tips\nAim.\n## Credits\nnot this\n",
    )
    .unwrap();
    let o = run(&["play", &path, "--board", &board()], "help rules\nquit\n", &dir);
    let out = stdout(&o);
    assert!(out.contains("help rules\nStrike well.\n### Tips\nAim.\nstrike> quit"), "{out}");
    assert!(!out.contains("not this") && !out.contains("intro"), "{out}");
}

#[test]
fn new_deals_the_next_seed_and_restart_replays_the_board() {
    let data = scratch("new");
    let args = ["play", "chessic", "--seed", "7", "--raw", "--level", "apprentice", "--clock", "manual"];
    let o = run(&args, "a1\nrestart\nnew\nnew 3\nnew x\nquit\n", &data);
    let out = stdout(&o);
    assert!(o.status.success(), "{}", stderr(&o));
    // Seeds 7, 8 and 3 at Apprentice, raw (their first layer along rank 1, as pinned by
    // the dealing fixtures).
    assert!(out.contains("Chessic · apprentice · seed 7 (raw)\n"), "{out}");
    assert!(out.contains(" 1 *3⁰ *1⁰ *2⁰ *1⁰ *2⁰ *1⁰\n"), "{out}");
    let restart = &out[out.find("restart\n").unwrap()..];
    assert!(restart.contains("the same board from the start; the clock starts again\n"), "{restart}");
    assert!(restart.contains(" 1 *3⁰ *1⁰ *2⁰ *1⁰ *2⁰ *1⁰\n"), "{restart}");
    assert!(out.contains("new board: seed 8\nChessic · apprentice · seed 8 (raw)\n"), "{out}");
    assert!(out.contains(" 1 *1⁰ *1⁰ *1⁰ *2⁰ *1⁰ *1⁰\n"), "{out}");
    assert!(out.contains("new board: seed 3\n"), "{out}");
    assert!(out.contains(" 1 *2⁰ *2⁰ *1⁰ *2⁰ *2⁰ *1⁰\n"), "{out}");
    assert!(out.contains("`x` is not a seed (a whole number, 0 or more)\n"), "{out}");
    let out = play(&board(), "journeyman", "new\nquit\n");
    assert!(out.contains("this board was given with --board: `new SEED` deals the board of a seed\n"), "{out}");
}

#[test]
fn options_of_the_other_turn_model_are_refused() {
    let o = varia(&["play", "decachess", "--level", "artisan"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("--level, --board and --raw are for solo boards"), "{}", stderr(&o));
    let o = varia(&["play", "chessic", "--fen", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("`chessic` is a solo variant: give --board or --seed, not --fen"), "{}", stderr(&o));
    let o = varia(&["play", "chessic", "--board", "111", "--clock", "manual"]);
    assert!(stderr(&o).contains("a board has 36 stacks"), "{}", stderr(&o));
}

/// `varia duel chessic` on the 2×2 board of ones, with a manual clock.
fn duel(extra: &[&str], input: &str, data: &std::path::Path) -> Output {
    let mut args = vec!["duel", "chessic", "--set", "board.files=2", "--set", "board.ranks=2", "--clock", "manual"];
    args.extend_from_slice(extra);
    run(&args, input, data)
}

fn ratings(data: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(data.join("chessic/ratings.json")).unwrap()).unwrap()
}

#[test]
fn two_players_duel_on_one_board_and_their_ratings_move() {
    let data = scratch("duel");
    let b = ["--board", "111 111 111 111", "--players", "alice,bob"];
    // alice strikes once and lets the countdown run out: 1.0. bob strikes twice: 2.1.
    let input = "hint\npause\nnew\na1\nwait 300\na1\nb1\nwait 300\n";
    let o = duel(&b, input, &data);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("Duel: alice against bob, on the same board. Each gets a 300 s countdown; every second left is worth 0.1 points when the board ends; no pause."), "{out}");
    assert!(out.contains("alice strike> hint\nno hints in a duel\n"), "{out}");
    assert!(out.contains("alice strike> pause\npause refused: this board cannot be paused"), "{out}");
    assert!(out.contains("alice strike> new\na duel is played on one board to its end\n"), "{out}");
    assert!(out.contains("countdown: 300 s left, bonus 30.0\n"), "{out}");
    assert!(out.contains("Time is up: the countdown ran out.\n"), "{out}");
    assert!(out.contains("— bob: your board; the countdown starts now."), "{out}");
    assert!(out.contains("  alice: 1.0 (out of time; total 1.0 = strikes 1.0"), "{out}");
    assert!(out.contains("  bob: 2.1 (out of time; total 2.1 = strikes 2.1"), "{out}");
    // Equal ratings: bob gains K/2 = 16.
    assert!(
        out.contains("  bob wins\nRatings (Elo, K = 32): alice 1200 → 1184 (-16), bob 1200 → 1216 (+16)\n"),
        "{out}"
    );
    let r = ratings(&data);
    assert_eq!(
        r["players"]["alice"],
        serde_json::json!({"rating": 1184, "duels": 1, "wins": 0, "losses": 1, "draws": 0})
    );
    assert_eq!(r["players"]["bob"]["rating"], 1216);
    // The next duel starts from the kept ratings: alice (1184) beats bob (1216):
    // E = 0.454078, 32 × 0.545922 = 17.47 → 17.
    let o = duel(&b, "a1\nb1\nwait 300\na1\nwait 300\n", &data);
    let out = stdout(&o);
    assert!(
        out.contains("  alice wins\nRatings (Elo, K = 32): alice 1184 → 1201 (+17), bob 1216 → 1199 (-17)\n"),
        "{out}"
    );
    // Equal totals draw: 1201 against 1199 is nearly even, 32 × -0.0029 → 0.
    let o = duel(&b, "a1\nwait 300\na1\nwait 300\n", &data);
    let out = stdout(&o);
    assert!(
        out.contains("  a draw: equal totals\nRatings (Elo, K = 32): alice 1201 → 1201 (+0), bob 1199 → 1199 (+0)\n"),
        "{out}"
    );
    let r = ratings(&data);
    assert_eq!(
        r["players"]["bob"],
        serde_json::json!({"rating": 1199, "duels": 3, "wins": 1, "losses": 1, "draws": 1})
    );
    // Quitting abandons the duel: no result, the ratings unchanged.
    let before = std::fs::read_to_string(data.join("chessic/ratings.json")).unwrap();
    let o = duel(&b, "a1\nquit\n", &data);
    assert!(stdout(&o).contains("alice left: the duel is abandoned, with no result; the ratings are unchanged.\n"));
    assert_eq!(std::fs::read_to_string(data.join("chessic/ratings.json")).unwrap(), before);
}

#[test]
fn a_duel_against_the_computer() {
    let data = scratch("duel-computer");
    // Greedy cools this board after 10 strikes (see runtime/tests/solo_opponents.rs):
    // 53.0 of points; at 2 s a strike it ends at 20 s, 280 s left: 28.0. Total 81.0.
    let b = ["--board", "111 111 111 1B1", "--players", "carol", "--against", "greedy"];
    let o = duel(&b, "a1\nwait 300\n", &data);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("computer (greedy), always the strike worth most now, no look-ahead, plays 10 strikes at 2 s each: a1 b1 a1 b1 a1 b1 a2 b2 a2 b2\n"),
        "{out}"
    );
    assert!(out.contains("  computer (greedy): 81.0 (cooled; total 81.0 = strikes 13.0 + royal 0.0 + perfect 0.0 + layers 40.0 + time 28.0)\n"), "{out}");
    assert!(out.contains("  computer (greedy) wins\n"), "{out}");
    assert_eq!(ratings(&data)["players"]["computer (greedy)"]["rating"], 1216);
    // The searching opponent forges it.
    let b = ["--board", "111 111 111 1B1", "--players", "carol", "--against", "search"];
    let out = stdout(&duel(&b, "a1\nwait 300\n", &data));
    assert!(out.contains("  computer (search): ") && out.contains("(forged; total "), "{out}");
}

#[test]
fn a_damaged_ratings_file_is_refused_and_kept() {
    let data = scratch("duel-corrupt");
    std::fs::create_dir_all(data.join("chessic")).unwrap();
    std::fs::write(data.join("chessic/ratings.json"), "{\"players\": {\"alice\": ").unwrap();
    let o = duel(&["--board", "111 111 111 111", "--players", "alice,bob"], "a1\nwait 300\na1\nwait 300\n", &data);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("chessic/ratings.json: the ratings file cannot be read (not valid JSON at line 1"), "{e}");
    assert!(e.contains("fix or remove it. Nothing was played or changed."), "{e}");
    assert!(stdout(&o).is_empty(), "nothing was played");
    assert_eq!(std::fs::read_to_string(data.join("chessic/ratings.json")).unwrap(), "{\"players\": {\"alice\": ");
    // Bad command lines.
    let o = duel(&["--board", "111 111 111 111", "--against", "grandmaster"], "", &data);
    assert!(stderr(&o).contains("--against is greedy, search or solver, not `grandmaster`"), "{}", stderr(&o));
    let o = duel(&["--board", "111 111 111 111", "--players", "bob,bob"], "", &data);
    assert!(stderr(&o).contains("two different players"), "{}", stderr(&o));
    let o = duel(&["--players", "a,b"], "", &data);
    assert!(stderr(&o).contains("give --seed S (or --board"), "{}", stderr(&o));
    let o = varia(&["duel", "standard", "--seed", "1"]);
    assert_eq!(o.status.code(), Some(1));
    // A variant whose name would lead the ratings out of the data folder is refused (by
    // the loader: a name is an identifier), and no ratings file is written anywhere.
    let v = data.join("escape");
    std::fs::create_dir_all(&v).unwrap();
    let toml =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/chessic/variant.toml")).unwrap();
    std::fs::write(v.join("variant.toml"), format!("name = \"../../escape\"\n{toml}")).unwrap();
    let b = vec!["111"; 36].join(" ");
    let o = run(&["duel", v.to_str().unwrap(), "--board", &b, "--clock", "manual"], "", &data);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("`../../escape` is not a variant name"), "{}", stderr(&o));
    assert!(!data.join("../../escape").exists() && !data.join("escape/ratings.json").exists());
}
