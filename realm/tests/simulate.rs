//! `varia realm simulate`'s engine: the joined world is the service's, every round's
//! figures add up (pieces are conserved but for the ones destroyed and the kings
//! placed), and the figures depend on the seed alone, never on threads.

use varia::Variant;
use varia::world::BoardId;
use varia_realm::simulate::{RoundStats, Simulation, Spread, joined_world, simulate};

fn caissan() -> std::sync::Arc<Variant> {
    Variant::load("caissan").unwrap()
}

fn run(players: usize, rounds: u64, seed: u64, parallel: bool) -> varia_realm::simulate::SimReport {
    simulate(&caissan(), &Simulation { players, rounds, seed, parallel }, &mut |_| {}).unwrap()
}

#[test]
fn players_join_as_the_service_places_them() {
    // Ring by ring from [0, 0], each ring in (y, x) order (realm/tests/service.rs):
    // the first player [0,0] [-1,-1] [0,-1], the second [1,-1] [-1,0] [1,0].
    let v = caissan();
    let realm = joined_world(&v, 2).unwrap();
    let owner = |bx, by| realm.cells.owner(BoardId { bx, by });
    for b in [(0, 0), (-1, -1), (0, -1)] {
        assert_eq!(owner(b.0, b.1), 0, "board {b:?}");
    }
    for b in [(1, -1), (-1, 0), (1, 0)] {
        assert_eq!(owner(b.0, b.1), 1, "board {b:?}");
    }
    assert_eq!(realm.players, vec!["p0".to_string(), "p1".to_string()]);
}

#[test]
fn round_zero_is_the_joined_world() {
    // CA-03: three boards each, K Q R B N on every board, empty vaults.
    let r = run(7, 0, 1, false);
    assert_eq!(r.per_round.len(), 1);
    let s = &r.per_round[0];
    assert_eq!((s.round, s.alive, s.on_map, s.in_vaults), (0, 7, 7 * 3 * 5, 0));
    assert_eq!(s.boards, Spread { mean: 3.0, median: 3, p90: 3, max: 3, none: 0 });
}

#[test]
fn every_round_adds_up() {
    let r = run(24, 30, 5, false);
    assert_eq!(r.per_round.len(), 31);
    assert_eq!(r.seconds.len(), 30);
    let mut fought = false;
    for w in r.per_round.windows(2) {
        let (a, b): (&RoundStats, &RoundStats) = (&w[0], &w[1]);
        assert_eq!(b.round, a.round + 1);
        // A piece leaves the map into a vault (banked) or is destroyed; drops move
        // pieces from vaults to the map; placed kings are new.
        assert_eq!(
            b.on_map + b.in_vaults,
            a.on_map + a.in_vaults + b.placed - b.destroyed,
            "round {}: pieces appeared or vanished ({a:?} → {b:?})",
            b.round
        );
        assert!(b.overflow <= b.destroyed);
        assert_eq!(a.alive - b.alive, b.eliminated, "round {}", b.round);
        // Boards change hands but never multiply.
        assert!(b.boards.mean * b.alive as f64 <= 24.0 * 3.0 + 1e-9, "round {}", b.round);
        fought |= b.banked > 0 && b.conquests > 0;
    }
    assert!(fought, "24 neighbouring empires never took a piece or a board in 30 rounds");
}

#[test]
fn threads_change_no_figure_and_the_seed_is_the_whole_input() {
    let one = run(40, 12, 9, false);
    let many = run(40, 12, 9, true);
    assert_eq!(one.per_round, many.per_round);
    assert_eq!(one.refused_by, many.refused_by);
    assert_eq!(run(40, 12, 9, true).per_round, many.per_round);
    assert_ne!(run(40, 12, 10, true).per_round, many.per_round, "the seed drives the bots");
}

#[test]
fn spread_of_hand_made_counts() {
    // Sorted 0 1 2 3 10: the median is the 3rd (index 4·50/100 = 2), p90 index 4·90/100 = 3.
    assert_eq!(Spread::of(&[3, 10, 0, 2, 1]), Spread { mean: 3.2, median: 2, p90: 3, max: 10, none: 1 });
    assert_eq!(Spread::of(&[]), Spread::default());
}

#[test]
fn bad_sizes_are_refused_with_the_limits() {
    let v = caissan();
    for (players, rounds) in [(0, 1), (100_001, 1), (1, 100_001)] {
        let e = simulate(&v, &Simulation { players, rounds, seed: 1, parallel: false }, &mut |_| {}).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("players") || text.contains("rounds"), "{text}");
    }
    let chess = Variant::load("standard").unwrap();
    let e = simulate(&chess, &Simulation { players: 2, rounds: 1, seed: 1, parallel: false }, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("world"), "{e}");
}
