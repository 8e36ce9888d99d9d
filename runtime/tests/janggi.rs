//! Janggi as data (issue 14): palace diagonals (`to = "region"`), cannons that always
//! need a screen, the long blockable elephant, passing (`[rules] pass`), bikjang
//! (`royals_facing = "break"`, `when = "facing"`) and counting (`result = "points"`).
//! Every expected value is worked out by hand in the comments (and agrees with
//! Fairy-Stockfish 11.1's `janggi`, which runtime/tests/fsf_perft.rs checks on its own).

use std::sync::Arc;

use varia::{Game, GameResult, Side, Variant};

fn janggi() -> Arc<Variant> {
    Variant::load("janggi").unwrap()
}

fn at(fen: &str) -> Game {
    Game::from_fen(janggi(), fen).unwrap()
}

/// The legal actions from `from`, as the history writes them, sorted.
fn from(game: &Game, from: &str) -> Vec<String> {
    let v = game.variant();
    let f = v.geometry.parse(from).unwrap();
    let mut out: Vec<String> =
        game.legal_actions().iter().filter(|a| a.from == f).map(|a| game.action_text(a)).collect();
    out.sort();
    out
}

/// Every legal action, sorted.
fn all(game: &Game) -> Vec<String> {
    let mut out: Vec<String> = game.legal_actions().iter().map(|a| game.action_text(a)).collect();
    out.sort();
    out
}

fn list(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.split_whitespace().map(String::from).collect();
    v.sort();
    v
}

#[test]
fn the_start_has_31_moves_and_a_pass() {
    // Chariots a1, i1: two steps up each (4). Horses b1, h1: a3/c3 and g3/i3 (4; the leaps
    // over c1/g1 are blocked). Elephants: none (own soldiers on a4/e4/i4, advisors and
    // horses on their first step). Advisors d1: e1, d2; f1: e1, f2 (4). General e2: e1,
    // d2, f2, e3 and the diagonals d3, f3 (6). Cannons: no screen but a cannon or
    // nothing (0). Soldiers: a4 2, c4 3, e4 3, g4 3, i4 2 (13). 31 moves and the pass.
    let g = Game::new(janggi());
    let moves = all(&g);
    assert_eq!(moves.len(), 32);
    assert!(moves.contains(&"e2-e2".to_string()), "the pass is written as the general staying: {moves:?}");
    assert_eq!(from(&g, "e2"), list("e2-e1 e2-d2 e2-f2 e2-e3 e2-d3 e2-f3 e2-e2"));
    assert!(from(&g, "b3").is_empty() && from(&g, "c1").is_empty());
    assert_eq!(g.fen(), "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1");
}

#[test]
fn chariots_move_along_the_palace_diagonals_only_between_their_points() {
    // White general d2 (not a point of the lines: no diagonal for it), black general f10.
    // Chariot d1 (a corner of the lines): rank 1 a1–c1 and e1–i1 (8), the d-file is
    // blocked by its general; the diagonal e2, f3 (g4 is off the lines) (2).
    let g = at("5k3/9/9/9/9/9/9/9/3K5/3R5 w - - 0 1");
    let r = from(&g, "d1");
    assert_eq!(r.len(), 10, "{r:?}");
    assert!(r.contains(&"d1-e2".into()) && r.contains(&"d1-f3".into()) && !r.contains(&"d1-g4".into()));
    // The general on d2 steps orthogonally only (d2 is no point of the lines): d1 is its
    // chariot's, c2 is out of the palace: e2, d3, and the pass.
    assert_eq!(from(&g, "d2"), list("d2-e2 d2-d3 d2-d2"));
    // In the enemy palace: a chariot on f8 goes e9 and captures the advisor on d10; the
    // black general stands on e10.
    let g = at("3ak4/9/5R3/9/9/9/9/9/3K5/9 w - - 0 1");
    let r = from(&g, "f8");
    assert!(r.contains(&"f8-e9".into()) && r.contains(&"f8-d10".into()), "{r:?}");
    assert!(!r.contains(&"f8-g9".into()));
    // From e8 (no point of the lines) it has no diagonal step: d9 and f9 are out.
    let g = at("3a1k3/9/4R4/9/9/9/9/9/3K5/9 w - - 0 1");
    assert!(from(&g, "e8").iter().all(|m| !m.ends_with("d9") && !m.ends_with("f9")));
}

#[test]
fn cannons_need_a_screen_that_is_not_a_cannon_also_on_the_palace_diagonals() {
    // White cannon d1, white general e2 (the screen on the diagonal), f3 empty: the hop
    // lands on f3 and stops (g4 is off the lines). Rank 1 and the d-file have no screen.
    let g = at("3k5/9/9/9/9/9/9/9/4K4/3C5 w - - 0 1");
    assert_eq!(from(&g, "d1"), list("d1-f3"));
    // A black cannon on f3 may not be captured; a black horse there may.
    let g = at("3k5/9/9/9/9/9/9/5c3/4K4/3C5 w - - 0 1");
    assert!(from(&g, "d1").is_empty());
    let g = at("3k5/9/9/9/9/9/9/5n3/4K4/3C5 w - - 0 1");
    assert_eq!(from(&g, "d1"), list("d1-f3"));
    // A cannon never screens: with a black cannon on e2 between d1 and f3 (the white
    // general on f2 now), the cannon on d1 has no move at all.
    let g = at("3k5/9/9/9/9/9/9/9/4cK3/3C5 w - - 0 1");
    assert!(from(&g, "d1").is_empty());
    // Orthogonally: cannon a1, its own soldier a4 as the screen: a5, a6 and the black
    // chariot on a7 (captured), not a2, a3 (no screen yet); the black cannon on b1
    // screens nothing to the right.
    let g = at("3k5/9/9/r8/9/9/P8/9/4K4/Cc7 w - - 0 1");
    assert_eq!(from(&g, "a1"), list("a1-a5 a1-a6 a1-a7"));
}

#[test]
fn soldiers_step_forward_or_sideways_and_diagonally_forward_on_the_enemy_palace_lines() {
    // White general d2, black general f10 (off the d- and e-files where it would face).
    // Soldier d8 (a point of the lines): d9, c8, e8 and e9 (4).
    let g = at("5k3/9/3P5/9/9/9/9/9/3K5/9 w - - 0 1");
    assert_eq!(from(&g, "d8"), list("d8-d9 d8-c8 d8-e8 d8-e9"));
    // Soldier e8 (not a point): e9, d8, f8 only.
    let g = at("5k3/9/4P4/9/9/9/9/9/3K5/9 w - - 0 1");
    assert_eq!(from(&g, "e8"), list("e8-e9 e8-d8 e8-f8"));
    // Soldier e9 (the centre of the lines): e10, d9, f9 and both diagonals d10, f10 (5).
    let g = at("9/4P4/5k3/9/9/9/9/9/3K5/9 w - - 0 1");
    assert_eq!(from(&g, "e9"), list("e9-e10 e9-d9 e9-f9 e9-d10 e9-f10"));
    // So it attacks d10 along the line: the black general there is in check, and may only
    // take it (d9 and e10 are attacked too, sideways and forward).
    let g = at("3k5/4P4/9/9/9/9/9/9/5K3/9 b - - 0 1");
    assert!(g.in_check());
    assert_eq!(all(&g), list("d10-e9"));
}

#[test]
fn the_elephant_steps_once_orthogonally_and_twice_diagonally_blocked_at_each_step() {
    // Elephant c1, general e2: e4 (through c2, d3), a4 (through c2, b3); f3 would pass d1
    // and e2, where the general stands.
    let g = at("3k5/9/9/9/9/9/9/9/4K4/2B6 w - - 0 1");
    assert_eq!(from(&g, "c1"), list("c1-e4 c1-a4"));
    // With the general on d2 instead, d1 and e2 are empty: f3 too.
    let g = at("5k3/9/9/9/9/9/9/9/3K5/2B6 w - - 0 1");
    assert_eq!(from(&g, "c1"), list("c1-e4 c1-a4 c1-f3"));
}

#[test]
fn a_side_may_pass_unless_in_check_and_two_passes_in_a_row_end_the_game_by_counting() {
    // In check from the chariot on e1: the general's five ways out, no pass (e3 stays on
    // the chariot's file, d1 and f1 on its rank).
    let g = at("3k5/9/9/9/9/9/9/9/4K4/4r4 w - - 0 1");
    assert!(g.in_check());
    assert_eq!(all(&g), list("e2-e1 e2-d2 e2-f2 e2-d3 e2-f3"));
    // Both sides pass at the start: the game is counted. Each side has 2 chariots (26),
    // 2 cannons (14), 2 horses (10), 2 elephants (6), 2 advisors (6), 5 soldiers (10):
    // 72 each, and black's 1.5 makes 73.5: black wins.
    let g = Game::new(janggi()).then_moves("e2-e2").unwrap();
    assert!(g.outcome().is_none());
    assert_eq!(g.fen(), "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR b - - 1 1");
    let g = g.then_moves("e9-e9").unwrap();
    let o = g.outcome().expect("two passes end the game");
    assert_eq!(o.result, GameResult::Win(Side::Black));
    assert_eq!(o.reason.name(), "passes");
    assert!(g.legal_actions().is_empty());
    // A pass and a move: the game goes on.
    let g = Game::new(janggi()).then_moves("e2-e2 a7-a6 e2-e2").unwrap();
    assert!(g.outcome().is_none());
}

#[test]
fn bikjang_must_be_broken_and_a_pass_under_it_ends_the_game_by_counting() {
    // Generals e2 and e10 face each other on the open e-file, white to move: e1 and e3
    // keep them facing (illegal); d1, f1, d2, f2, d3, f3 part them; the chariot on a5
    // may only block on e5; the pass is legal. 1 + 6 + 1 = 8.
    let g = at("4k4/9/9/9/9/R8/9/9/4K4/9 w - - 0 1");
    assert!(!g.in_check(), "facing is no check under bikjang");
    assert_eq!(all(&g), list("a5-e5 e2-d1 e2-f1 e2-d2 e2-f2 e2-d3 e2-f3 e2-e2"));
    // The pass leaves the bikjang standing: counted, 13 (the chariot) against 1.5.
    let after = g.then_moves("e2-e2").unwrap();
    let o = after.outcome().expect("bikjang left standing ends the game");
    assert_eq!((o.result, o.reason.name()), (GameResult::Win(Side::White), "bikjang"));
    // With nothing but the generals, black's 1.5 wins the count.
    let g = at("4k4/9/9/9/9/9/9/9/4K4/9 w - - 0 1").then_moves("e2-e2").unwrap();
    assert_eq!(g.outcome().unwrap().result, GameResult::Win(Side::Black));
    // Making a bikjang is legal: the horse on e5 between the generals may leave the file
    // by all 8 of its leaps (under xiangqi's flying general it would be pinned).
    let g = at("4k4/9/9/9/9/4N4/9/9/4K4/9 w - - 0 1");
    assert_eq!(from(&g, "e5").len(), 8);
    // ...and then black must break it (or pass): the general e10 may go d10, f10 but not
    // e9; the pass is there.
    let g = g.then_moves("e5-d7").unwrap();
    assert!(g.outcome().is_none());
    assert_eq!(all(&g), list("e10-d10 e10-f10 e10-e10"));
}

#[test]
fn counting_adds_the_values_and_black_s_one_and_a_half() {
    // White: chariot and cannon (13 + 7 = 20); black: horse, elephant and two soldiers
    // (5 + 3 + 2 + 2 = 12, + 1.5 = 13.5): white wins the count after two passes.
    let g = at("4k4/9/2n1b4/p1p6/9/9/9/9/3K5/R1C6 w - - 0 1").then_moves("d2-d2 e10-e10").unwrap();
    let o = g.outcome().unwrap();
    assert_eq!((o.result, o.reason.name()), (GameResult::Win(Side::White), "passes"));
    // White: advisor and soldier (3 + 2 = 5); black the same (5 + 1.5): black wins.
    let g = at("4a4/4k4/9/9/4p4/9/4P4/9/3KA4/9 w - - 0 1").then_moves("d2-d2 e9-e9").unwrap();
    assert_eq!(g.outcome().unwrap().result, GameResult::Win(Side::Black));
}
