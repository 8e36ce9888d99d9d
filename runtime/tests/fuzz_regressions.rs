//! Inputs the fuzz targets (fuzz/) flagged, replayed on stable through the same steps as
//! the target that found them.
//!
//! `fen` wrote one artifact (`crash-6f30a8db…`, 2026-12-01, 10-minute run): a Chessception
//! FEN with only its board field. It did not reproduce (30 reruns of the fuzz binary, and
//! this test), and libFuzzer counted no crash for it; the one thing in its path that
//! depends on the machine is the wall-clock `time_limit_ms` of Chessception's
//! `on_turn_end`, which a loaded machine under AddressSanitizer can exceed (a stop by a
//! limit rolls back, as `tests/lua.rs` checks). It is pinned here as the target ran it.

use varia::{Game, Variant};

const FEN_ARTIFACT: &str = "r3k2r/qppppppp/8/8/8/8/PPPRPQPP/R3K2R";
const PICKS: [u8; 4] = [0x20, 0x77, 0x20, 0x03];

#[test]
fn the_fen_artifact_runs_as_the_target_ran_it() {
    let v = Variant::load("chessception").unwrap();
    let game = Game::from_fen(v.clone(), FEN_ARTIFACT).unwrap();
    let again = Game::from_fen(v, &game.fen()).unwrap();
    assert_eq!(again.setup(), game.setup());
    let legal = game.try_legal_actions().unwrap();
    assert_eq!(game.try_perft(1).unwrap() as usize, legal.len());
    let depth2 = game.try_perft(2).unwrap();
    assert!(depth2 > legal.len() as u64, "{depth2}");
    let mut g = game.clone();
    for p in PICKS {
        let legal = g.try_legal_actions().unwrap();
        let a = legal[p as usize % legal.len()];
        g.apply(a).unwrap_or_else(|e| panic!("{}: {e}", g.action_text(&a)));
        let back = Game::from_fen(g.variant().clone(), &g.fen()).unwrap();
        assert_eq!(back.setup(), g.setup());
    }
    assert_eq!(g.ply(), 4);
}
