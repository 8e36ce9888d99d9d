//! Inputs the fuzz targets (fuzz/) flagged, replayed on stable through the same steps as
//! the target that found them.
//!
//! `fen` wrote one artifact (`crash-6f30a8db…`, 2026-12-01, 10-minute run): a Chessception
//! FEN with only its board field. It did not reproduce (30 reruns of the fuzz binary, and
//! this test), and libFuzzer counted no crash for it; the one thing in its path that
//! depends on the machine is the wall-clock `time_limit_ms` of Chessception's
//! `on_turn_end`, which a loaded machine under AddressSanitizer can exceed (a stop by a
//! limit rolls back). It is pinned here as the target ran it.
//!
//! `move_text` wrote two such artifacts in its run (`crash-20a2bded…`: Chessception's start
//! and `r7-a8`; `crash-6d91168a…`: standard chess after `e2-e4 e7-e5 g1-f3 b8-c6 f1-c4
//! g8-f6 e1-g1` and two bytes that are no UTF-8), likewise not counted as crashes and not
//! reproducible (40 reruns each), and a third (`crash-3589d74f…`, Chessception after
//! `g1-f3 g8-f6 f3-e5` and a line of moves) that libFuzzer did count, as a "deadly signal"
//! of a child 300 s in, when the run was down to 3 executions a second; it does not
//! reproduce either (5 reruns). The fuzz targets now load the shipped variants with
//! `time_limit_ms = 0`, so that only the input and the instruction budget decide. The
//! standard-chess artifact has no Lua in its path: its cause is unknown.

use varia::{Game, RuleError, Variant};

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

#[test]
fn the_move_text_artifacts_are_refused_and_change_nothing() {
    let cases =
        [("chessception", "", "r7-a8"), ("standard", "e2-e4 e7-e5 g1-f3 b8-c6 f1-c4 g8-f6 e1-g1", "\u{FFFD}\u{FFFD}")];
    for (name, opening, text) in cases {
        let v = Variant::load(name).unwrap();
        let mut game = Game::from_moves(v.clone(), opening).unwrap();
        let before = (game.setup(), game.history_text());
        match game.play(text) {
            Err(RuleError::Notation(_) | RuleError::Illegal { .. }) => {}
            other => panic!("{name}: `{text}`: {other:?}"),
        }
        assert_eq!((game.setup(), game.history_text()), before);
        let snap = serde_json::to_string_pretty(&game.snapshot()).unwrap();
        let back = Game::from_snapshot(v, &snap).unwrap();
        assert_eq!((back.setup(), back.history_text()), before);
    }
}

/// The Chessception artifact, through the steps of the `move_text` target: its first byte
/// picks the variant and the opening, the rest is move text, played up to the first
/// refusal (which changes nothing); the game reached reads back from FEN and snapshot.
#[test]
fn the_counted_move_text_artifact_plays_and_reads_back() {
    const BYTES: [u8; 53] = [
        17, 255, 255, 255, 15, 101, 205, 223, 154, 190, 45, 97, 57, 32, 101, 51, 45, 101, 52, 32, 101, 44, 97, 11, 11,
        11, 50, 45, 106, 53, 32, 98, 205, 223, 154, 190, 56, 45, 97, 55, 32, 91, 50, 45, 106, 53, 32, 98, 57, 80, 45,
        98, 54,
    ];
    let v = Variant::load("chessception").unwrap();
    let mut game = Game::from_moves(v.clone(), "g1-f3 g8-f6 f3-e5").unwrap();
    let text = String::from_utf8_lossy(&BYTES[1..]);
    let mut refused = 0;
    for m in text.split([' ', ',', '\n']).filter(|m| !m.is_empty()) {
        let before = (game.setup(), game.history_text(), game.scores());
        if game.play(m).is_err() {
            assert_eq!((game.setup(), game.history_text(), game.scores()), before, "`{m}`");
            refused += 1;
            break;
        }
    }
    assert_eq!(refused, 1, "the text ends in a refusal");
    let back = Game::from_fen(v.clone(), &game.fen()).unwrap();
    assert_eq!(back.setup(), game.setup());
    let snap = serde_json::to_string_pretty(&game.snapshot()).unwrap();
    let again = Game::from_snapshot(v, &snap).unwrap();
    assert_eq!((again.setup(), again.history_text()), (game.setup(), game.history_text()));
}
