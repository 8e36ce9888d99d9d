//! Perpetual check as data (`[draws] perpetual_check = "loses"`, issue 14): a repetition in
//! which one side gave check with every one of its moves since the first counted
//! occurrence loses for that side, as Fairy-Stockfish 11.1 scores it
//! (`perpetualCheckIllegal` in xiangqi, minixiangqi, janggi, shogi and minishogi); a
//! repetition with a quiet move of each side among the checks stays a draw.
//!
//! Every cycle is worked out by hand: a lone rook (chariot) checks a general (king) along
//! a rank, the general steps off it, the rook follows on the next rank, the general steps
//! back, and so on; with repetition = n the position after the first check occurs for the
//! n-th time after 4(n-1)+1 plies.

use std::sync::Arc;

use varia::variant::Override;
use varia::{Game, GameResult, Reason, Side, Variant};

fn play(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        assert!(g.outcome().is_none(), "the game ended before {m}: {:?}", g.outcome());
        g.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

fn result(g: &Game) -> Option<(GameResult, Reason)> {
    g.outcome().map(|o| (o.result, o.reason))
}

fn perpetual() -> Reason {
    Reason::Rule("perpetual_check".into())
}

fn problems(r: Result<Arc<Variant>, varia::LoadError>) -> Vec<String> {
    r.expect_err("should fail").problems().iter().map(|p| p.to_string()).collect()
}

/// White's rook a1 checks the black general on e10 from a10; the general steps to e9, the
/// rook checks from a9, the general steps back to e10... (xiangqi and janggi alike: the
/// general on e10 has only e9 off rank 10; white's general on d1 faces nothing).
const RANK_CHECKS_9: &str = "a1-a10 e10-e9 a10-a9 e9-e10 a9-a10 e10-e9 a10-a9 e9-e10";

#[test]
fn xiangqi_perpetual_check_loses_for_the_checker() {
    let v = Variant::load("xiangqi").unwrap();
    assert!(v.draws.perpetual_check_loses);
    let mut g = Game::from_fen(v, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    play(&mut g, RANK_CHECKS_9);
    // Rook a10 against the general on e10, black to move: seen after plies 1 and 5.
    assert_eq!(result(&g), None);
    g.play("a9-a10").unwrap();
    // The third time (ply 9): each of white's four moves since ply 1 gave check.
    assert_eq!(result(&g), Some((GameResult::Win(Side::Black), perpetual())));
    assert_eq!(g.outcome().unwrap().describe(), "black wins by perpetual check");
    // Taken back, the game goes on.
    g.undo(1);
    assert_eq!(result(&g), None);
}

#[test]
fn xiangqi_repetition_with_a_quiet_move_between_the_checks_is_a_draw() {
    let v = Variant::load("xiangqi").unwrap();
    let mut g = Game::from_fen(v, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    // The rook checks from a10, then goes home to a1 (no check); the start position
    // (white to move) occurs for the third time after ply 8.
    play(&mut g, "a1-a10 e10-e9 a10-a1 e9-e10 a1-a10 e10-e9 a10-a1");
    assert_eq!(result(&g), None);
    g.play("e9-e10").unwrap();
    assert_eq!(result(&g), Some((GameResult::Draw, Reason::Repetition)));
}

#[test]
fn minixiangqi_perpetual_check_loses_for_the_checker() {
    // 7×7, palace c5–e7: the black general on d7 steps to d6 and back; rook from a1.
    let v = Variant::load("minixiangqi").unwrap();
    let mut g = Game::from_fen(v, "3k3/7/7/7/7/7/R1K4 w - - 0 1").unwrap();
    play(&mut g, "a1-a7 d7-d6 a7-a6 d6-d7 a6-a7 d7-d6 a7-a6 d6-d7");
    assert_eq!(result(&g), None);
    g.play("a6-a7").unwrap();
    assert_eq!(result(&g), Some((GameResult::Win(Side::Black), perpetual())));
}

#[test]
fn janggi_perpetual_check_loses_for_the_checker() {
    // The chariot checks as the xiangqi rook does; the generals are on different files
    // (no bikjang), and a side in check may not pass.
    let v = Variant::load("janggi").unwrap();
    assert!(v.draws.perpetual_check_loses);
    let mut g = Game::from_fen(v, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    play(&mut g, RANK_CHECKS_9);
    assert_eq!(result(&g), None);
    g.play("a9-a10").unwrap();
    assert_eq!(result(&g), Some((GameResult::Win(Side::Black), perpetual())));
}

#[test]
fn janggi_repetition_with_quiet_moves_between_the_checks_is_a_draw() {
    // The chariot checks from a10 and goes home to a1; the start position (white to
    // move) occurs for the third time after ply 8: a plain repetition.
    let v = Variant::load("janggi").unwrap();
    let mut g = Game::from_fen(v, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    play(&mut g, "a1-a10 e10-e9 a10-a1 e9-e10 a1-a10 e10-e9 a10-a1");
    assert_eq!(result(&g), None);
    g.play("e9-e10").unwrap();
    assert_eq!(result(&g), Some((GameResult::Draw, Reason::Repetition)));
}

/// The minishogi cycle: white's rook a1 checks the king on e5 along rank 5 (staying
/// unpromoted), the king steps to e4, the rook checks from a4, the king steps back; the
/// fourth occurrence (sennichite is four) of the position after the first check comes
/// after ply 13.
const MINISHOGI_CHECKS_12: &str = "a1-a5 e5-e4 a5-a4 e4-e5 a4-a5 e5-e4 a5-a4 e4-e5 a4-a5 e5-e4 a5-a4 e4-e5";

#[test]
fn minishogi_perpetual_check_loses_for_the_checker() {
    let v = Variant::load("minishogi").unwrap();
    assert!(v.draws.perpetual_check_loses);
    let mut g = Game::from_fen(v, "4k/5/5/5/R1K2[] w - - 0 1").unwrap();
    play(&mut g, MINISHOGI_CHECKS_12);
    assert_eq!(result(&g), None, "three occurrences are not yet sennichite");
    g.play("a4-a5").unwrap();
    assert_eq!(result(&g), Some((GameResult::Win(Side::Black), perpetual())));
}

#[test]
fn minishogi_sennichite_loses_for_white_unless_black_checked_perpetually() {
    // FSF 11.1's minishogi: a plain fourfold repetition is a loss for white, sente
    // (`nFoldValue = -VALUE_MATE`, absolute). The rook shuffles a1-a2-a1, the king
    // e5-d5-e5: the start position occurs for the fourth time after ply 12.
    let v = Variant::load("minishogi").unwrap();
    assert_eq!(v.draws.repetition_winner, Some(Side::Black));
    let mut g = Game::from_fen(v.clone(), "4k/5/5/5/R1K2[] w - - 0 1").unwrap();
    play(&mut g, "a1-a2 e5-d5 a2-a1 d5-e5 a1-a2 e5-d5 a2-a1 d5-e5 a1-a2 e5-d5 a2-a1");
    assert_eq!(result(&g), None);
    g.play("d5-e5").unwrap();
    assert_eq!(result(&g), Some((GameResult::Win(Side::Black), Reason::Repetition)));
    // Black's rook a5 checks white's king on e1 along rank 1, then rank 2, and back:
    // perpetual check is judged first, and black, the checker, loses.
    let mut g = Game::from_fen(v, "r1k2/5/5/5/4K[] b - - 0 1").unwrap();
    play(&mut g, "a5-a1 e1-e2 a1-a2 e2-e1 a2-a1 e1-e2 a1-a2 e2-e1 a2-a1 e1-e2 a1-a2 e2-e1");
    assert_eq!(result(&g), None);
    g.play("a2-a1").unwrap();
    assert_eq!(result(&g), Some((GameResult::Win(Side::White), perpetual())));
}

#[test]
fn with_hands_a_repetition_is_counted_across_captures() {
    // Minishogi: white's gold c2 takes black's gold c3, black's gold c4 takes it back,
    // and both golds are dropped where they came from (c2, c4): the start position
    // again, four plies later, with two captures in between (which end the no-progress
    // count, but not the repetition: the pieces come back from the hands, and FSF looks
    // back through the whole game where captures go to the hand). The fourth occurrence,
    // after ply 12, is sennichite: white loses.
    let v = Variant::load("minishogi").unwrap();
    let mut g = Game::from_fen(v, "4k/2g2/2g2/2G2/K4[] w - - 0 1").unwrap();
    let cycle = "c2-c3 c4-c3 G@c2 G@c4 ";
    play(&mut g, &format!("{cycle}{cycle}c2-c3 c4-c3 G@c2"));
    assert_eq!(result(&g), None);
    g.play("G@c4").unwrap();
    assert_eq!(result(&g), Some((GameResult::Win(Side::Black), Reason::Repetition)));
}

#[test]
fn shogi_sennichite_without_checks_is_a_draw() {
    // FSF 11.1's shogi keeps the plain fourfold repetition a draw.
    let v = Variant::load("shogi").unwrap();
    assert_eq!(v.draws.repetition_winner, None);
    let mut g = Game::from_fen(v, "4k3r/9/9/9/9/9/9/9/4K4[] b - - 0 1").unwrap();
    play(&mut g, "i9-i8 e1-d1 i8-i9 d1-e1 i9-i8 e1-d1 i8-i9 d1-e1 i9-i8 e1-d1 i8-i9");
    g.play("d1-e1").unwrap();
    assert_eq!(result(&g), Some((GameResult::Draw, Reason::Repetition)));
}

#[test]
fn shogi_perpetual_check_by_black_loses_for_black() {
    // Black's rook i9 checks white's king on e1 along rank 1, then rank 2, and back.
    let v = Variant::load("shogi").unwrap();
    let mut g = Game::from_fen(v, "4k3r/9/9/9/9/9/9/9/4K4[] b - - 0 1").unwrap();
    play(&mut g, "i9-i1 e1-e2 i1-i2 e2-e1 i2-i1 e1-e2 i1-i2 e2-e1 i2-i1 e1-e2 i1-i2 e2-e1");
    assert_eq!(result(&g), None);
    g.play("i2-i1").unwrap();
    assert_eq!(result(&g), Some((GameResult::Win(Side::White), perpetual())));
}

#[test]
fn a_quiet_move_anywhere_in_the_cycle_makes_it_a_draw() {
    // The position after the first check (rook a10, general e10, black to move) occurs
    // after plies 1, 5 and 9; between plies 1 and 5 the rook went home quietly (a10-a1),
    // and only the last four plies are a run of checks. The cycle judged runs from the
    // first counted occurrence (ply 1), as FSF counts it: a draw.
    let v = Variant::load("xiangqi").unwrap();
    let mut g = Game::from_fen(v, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    play(&mut g, "a1-a10 e10-e9 a10-a1 e9-e10 a1-a10 e10-e9 a10-a9 e9-e10");
    assert_eq!(result(&g), None);
    g.play("a9-a10").unwrap();
    assert_eq!(result(&g), Some((GameResult::Draw, Reason::Repetition)));
}

#[test]
fn the_key_is_checked() {
    let set = |s: &[&str]| -> Vec<Override> { s.iter().map(|s| s.parse().unwrap()).collect() };
    let p = problems(Variant::load_with("xiangqi", &set(&["draws.perpetual_check=\"wins\""])));
    assert!(p.iter().any(|m| m.contains("`wins`: draws.perpetual_check is \"draw\" or \"loses\"")), "{p:?}");
    // Without the check rule there is no check to be perpetual.
    let p = problems(Variant::load_with("chessception", &set(&["draws.perpetual_check=\"loses\""])));
    assert!(p.iter().any(|m| m.contains("draws.perpetual_check needs the check rule")), "{p:?}");
    // Kings with the check rule and no repetition rule: nothing to judge.
    let bare = |draws: &str| {
        let text = format!(
            "[board]\nfiles = 4\nranks = 4\n[setup]\nfen = \"k3/4/4/3K w - - 0 1\"\n[rules]\ncheck = true\n\
             [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{{ leap = \"all\" }}]\n[draws]\n{draws}\n"
        );
        Variant::from_toml(&text, "bare.toml")
    };
    assert!(bare("repetition = 3\nperpetual_check = \"loses\"").is_ok());
    let p = problems(bare("perpetual_check = \"loses\""));
    assert!(
        p.iter().any(|m| m.contains("draws.perpetual_check judges a repetition: it needs draws.repetition")),
        "{p:?}"
    );
    let p = problems(bare("repetition_result = \"white\""));
    assert!(
        p.iter().any(|m| m.contains("draws.repetition_result judges a repetition: it needs draws.repetition")),
        "{p:?}"
    );
    // "draw" is the default's behaviour: the plain repetition draw.
    let p = problems(Variant::load_with("xiangqi", &set(&["draws.repetition_result=\"red\""])));
    assert!(
        p.iter().any(|m| m.contains("`red`: draws.repetition_result is \"draw\", \"white\" or \"black\"")),
        "{p:?}"
    );
    let v = Variant::load_with("xiangqi", &set(&["draws.perpetual_check=\"draw\""])).unwrap();
    assert!(!v.draws.perpetual_check_loses);
    let mut g = Game::from_fen(v, "4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1").unwrap();
    play(&mut g, RANK_CHECKS_9);
    g.play("a9-a10").unwrap();
    assert_eq!(result(&g), Some((GameResult::Draw, Reason::Repetition)));
}
