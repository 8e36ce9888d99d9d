//! Computer opponents of solo duels (`varia::search::opponent`) and the duel's rules on
//! a whole board: routes and totals worked out by hand on 2×2 Chessic boards.

use std::sync::Arc;

use varia::Variant;
use varia::scoring::Tenths;
use varia::search::opponent::{self, Strength};
use varia::solo::duel::DuelOutcome;
use varia::solo::{Forge, SoloBoard, SoloGame, Status, Stopwatch};

/// Chessic on a 2×2 board (a1 b1, then a2 b2): every square touches every other.
fn tiny() -> Arc<Forge> {
    let o: Vec<_> = ["board.files=2", "board.ranks=2"].iter().map(|s| s.parse().unwrap()).collect();
    Forge::new(Variant::load_with("chessic", &o).unwrap()).unwrap()
}

fn game(f: &Arc<Forge>, board: &str) -> SoloGame {
    SoloGame::new(f.clone(), f.level("apprentice").unwrap(), SoloBoard::parse(&f.variant, board).unwrap())
}

fn names(g: &SoloGame, squares: &[varia::Square]) -> Vec<String> {
    squares.iter().map(|&s| g.forge().variant.square_name(s)).collect()
}

#[test]
fn greedy_takes_the_strike_worth_most_now() {
    let f = tiny();
    let g = game(&f, "111 111 111 111");
    // Every strike of the chain pays the same, so greedy takes the first square in
    // order, until a layer bonus is in reach: after a1 b1 a1 b1 a1 b1 a2, b2 is the only
    // target; then b2 and a2 alternate. 16.5 of chain points (6.0 + 7 × 1.5) and three
    // layers (60.0).
    let route = opponent::route(&g, Strength::Greedy);
    assert_eq!(names(&g, &route), ["a1", "b1", "a1", "b1", "a1", "b1", "a2", "b2", "a2", "b2", "a2", "b2"]);
    // A layer bonus beats square order: after a1 b1 a2, striking b2 completes layer 1.
    let g = g.then_strikes("a1 b1 a2").unwrap();
    assert_eq!(names(&g, &[opponent::greedy_strike(&g).unwrap()]), ["b2"]);
}

#[test]
fn the_searching_opponents_forge_where_greedy_cools() {
    let f = tiny();
    // b2 hides a bishop under its one, whose only target is a1 (its diagonal). Greedy
    // follows its chain of ones: a1 b1 a1 b1 a1 b1 (a1 and b1 cleared) a2 b2 (layer 1)
    // a2, then b2's bishop (layer 2), which reaches only the cleared a1: cooled after 10
    // strikes. Nine ones 1.0+1.1+1.2+1.3+1.4+1.5+1.5+1.5+1.5 = 12.0, the bishop 1.0, two
    // layers 40.0: 53.0.
    let g = game(&f, "111 111 111 1B1");
    let route = opponent::route(&g, Strength::Greedy);
    assert_eq!(names(&g, &route), ["a1", "b1", "a1", "b1", "a1", "b1", "a2", "b2", "a2", "b2"]);
    let greedy = g.then_strikes(&names(&g, &route).join(" ")).unwrap();
    assert_eq!(greedy.status(), Status::Cooled);
    assert_eq!(greedy.score().points(), Tenths(530));
    for strength in [Strength::Search, Strength::Solver] {
        let mut h = g.clone();
        for s in opponent::route(&g, strength) {
            h.strike(s).unwrap();
        }
        assert_eq!(h.status(), Status::Forged, "{strength:?}");
        // Forged: three layers (60.0) on top of at least twelve strikes of 1.0.
        assert!(h.score().points() >= Tenths(720), "{strength:?}: {}", h.score().points());
    }
}

#[test]
fn an_opponent_plays_a_duel_at_its_pace() {
    let f = tiny();
    let duel = game(&f, "111 111 111 111").into_duel().unwrap();
    let rules = f.rules().duel.unwrap();
    assert_eq!(rules.computer_pace_ms, 2_000);
    // Twelve strikes at 2 s: the last lands at 24 s, 276 s left: 27.6. With 76.5 of
    // points: 104.1.
    let played = opponent::play(&duel, Strength::Greedy, rules.computer_pace_ms);
    assert_eq!(played.status(), Status::Forged);
    assert_eq!(played.time_points(), Tenths(276));
    assert_eq!(played.total(), Tenths(1041));
    // At 30 s a strike the countdown (300 s) runs out on strike 10: 1.0 + 1.1 + … over
    // nine strikes (6.0 + 4 × 1.5 = 12.0), one layer (20.0), nothing for the time.
    let slow = opponent::play(&duel, Strength::Greedy, 30_000);
    assert_eq!(slow.status(), Status::OutOfTime);
    assert_eq!(slow.ply(), 9);
    assert_eq!(slow.total(), Tenths(120 + 200));
    // The result: the higher total wins.
    assert_eq!(DuelOutcome::decide(played.total(), slow.total()), DuelOutcome::FirstWins);
    assert_eq!(Strength::parse("SOLVER"), Some(Strength::Solver));
    assert_eq!(Strength::parse("grandmaster"), None);
}

#[test]
fn a_duel_clock_cannot_be_paused_but_a_solo_one_can() {
    let f = tiny();
    let solo = game(&f, "111 111 111 111");
    let mut w = Stopwatch::for_game(&solo, 0);
    assert!(w.pause(1_000).is_ok());
    let duel = solo.into_duel().unwrap();
    let mut w = Stopwatch::for_game(&duel, 0);
    assert_eq!(
        w.pause(1_000).unwrap_err().to_string(),
        "this board cannot be paused (a duel's countdown runs on: [duel] pause = false)"
    );
    // With `[duel] pause = true` it can.
    let o: Vec<_> = ["board.files=2", "board.ranks=2", "duel.pause=true"].iter().map(|s| s.parse().unwrap()).collect();
    let f = Forge::new(Variant::load_with("chessic", &o).unwrap()).unwrap();
    let duel = game(&f, "111 111 111 111").into_duel().unwrap();
    assert!(Stopwatch::for_game(&duel, 0).pause(1_000).is_ok());
}
