//! The scoring engine in a two-sided game (`[scoring]` with `feed`): a chess cousin
//! whose captures pay chain points, a run and a sequence, worked out by hand; the
//! `TableScored` events, the snapshot's breakdown per side, and undo.

use std::sync::Arc;

use varia::event::Event;
use varia::scoring::Tenths;
use varia::{Game, Side, Variant};

/// Chess where captures score: 1.0, 2.0, 3.0… by the chain of captures of one kind; 0.5
/// for every two minor pieces (knight, bishop) captured in a row; 1.5 for a pawn then
/// a knight.
fn capture_chess(feed: &str) -> Arc<Variant> {
    let text = format!(
        "extends = \"standard\"\n\
         [scoring]\nchain = [1.0, 2.0, 3.0]\nfeed = \"{feed}\"\n\
         [scoring.runs.minor]\nkinds = [\"knight\", \"bishop\"]\nevery = 2\npoints = 0.5\n\
         [scoring.sequences.pawn_then_knight]\nkinds = [\"pawn\", \"knight\"]\npoints = 1.5\n"
    );
    Variant::from_toml(&text, "capture_chess.toml").unwrap()
}

/// White: Q d1, K h4, P a2. Black: R a8, K e8, B d5, N d4, P d3, P d2.
const FEN: &str = "r3k3/8/8/3b4/3n3K/3p4/P2p4/3Q4 w - - 0 1";

fn tally(g: &Game) -> Vec<String> {
    g.last_events().iter().filter(|e| matches!(e, Event::TableScored { .. })).map(|e| e.describe(g.variant())).collect()
}

#[test]
fn captures_feed_the_capturing_sides_chains_runs_and_sequences() {
    let mut g = Game::from_fen(capture_chess("captured"), FEN).unwrap();
    // The queen takes a pawn: a chain of one pawn, 1.0.
    g.play("d1-d2").unwrap();
    assert_eq!(tally(&g), ["white scores 1.0 (strike)"]);
    // Black's rook takes a pawn: black's own chain, 1.0.
    g.play("a8-a2").unwrap();
    assert_eq!(tally(&g), ["black scores 1.0 (strike)"]);
    // A second pawn in white's chain: 2.0 (black's capture does not break it).
    g.play("d2-d3").unwrap();
    assert_eq!(tally(&g), ["white scores 2.0 (strike)"]);
    // A quiet move feeds nothing.
    g.play("e8-f8").unwrap();
    assert!(tally(&g).is_empty());
    // The knight: a new kind (1.0), and a pawn then a knight (1.5).
    g.play("d3-d4").unwrap();
    assert_eq!(tally(&g), ["white scores 1.0 (strike)", "white scores 1.5 (pawn_then_knight)"]);
    g.play("f8-e8").unwrap();
    // The bishop: 1.0, and two minor pieces in a row (0.5).
    g.play("d4-d5").unwrap();
    assert_eq!(tally(&g), ["white scores 1.0 (strike)", "white scores 0.5 (minor)"]);

    // White: 1.0 + 2.0 + 1.0 + 1.0 = 5.0 of chain points, 1.5 and 0.5 of bonuses: 7.0.
    let w = g.table_score(Side::White);
    assert_eq!(w.strikes, Tenths(50));
    assert_eq!(w.points(), Tenths(70));
    assert_eq!(g.table_score(Side::Black).points(), Tenths(10));
    let s = g.snapshot();
    assert_eq!(s["score"]["white"]["strike_points"], 50);
    assert_eq!(s["score"]["white"]["minor"], 5);
    assert_eq!(s["score"]["white"]["pawn_then_knight"], 15);
    assert_eq!(s["score"]["white"]["total"], 70);
    assert_eq!(s["score"]["white"]["chain"], serde_json::json!({"kind": "bishop", "length": 1}));
    assert_eq!(s["score"]["white"]["minor_run"], 2);
    assert_eq!(s["score"]["black"]["total"], 10);
    let json = g.last_events().iter().find_map(|e| match e {
        Event::TableScored { reason, .. } if reason == "minor" => Some(e.to_json(g.variant())),
        _ => None,
    });
    assert_eq!(
        json,
        Some(serde_json::json!({"event": "table_scored", "side": "white", "tenths": 5, "reason": "minor"}))
    );

    // Undo restores the scores: before the bishop, 5.5 and a minor run of one.
    g.undo(1);
    assert_eq!(g.table_score(Side::White).points(), Tenths(55));
    assert_eq!(g.table_score(Side::White).runs, vec![1]);
    g.undo(6);
    assert_eq!(g.table_score(Side::White).points(), Tenths(0));
    assert_eq!(g.snapshot()["score"]["white"]["total"], 0);
}

#[test]
fn snapshots_carry_the_breakdown_and_refuse_one_that_disagrees() {
    let mut g = Game::from_fen(capture_chess("captured"), FEN).unwrap();
    for m in ["d1-d2", "a8-a2", "d2-d3"] {
        g.play(m).unwrap();
    }
    let snap = g.snapshot();
    let back = Game::from_snapshot(g.variant().clone(), &snap.to_string()).unwrap();
    assert_eq!(back.snapshot()["score"], snap["score"]);
    assert_eq!(back.table_score(Side::White).points(), Tenths(30));
    let mut bad = snap.clone();
    bad["score"]["white"]["total"] = 999.into();
    let e = Game::restore(g.variant().clone(), &bad).unwrap_err();
    assert!(e.to_string().starts_with("field `score` disagrees with the replayed history"), "{e}");
    // A variant without [scoring] has no score key, and its snapshots do not change.
    let plain = Game::new(Variant::load("standard").unwrap());
    assert!(plain.snapshot().get("score").is_none());
}

#[test]
fn feed_moved_scores_the_piece_that_acted() {
    let mut g = Game::new(capture_chess("moved"));
    for m in ["e2-e4", "e7-e5", "d2-d4", "b8-c6", "g1-f3"] {
        g.play(m).unwrap();
    }
    // White: pawn 1.0, pawn 2.0, knight 1.0 = 4.0; black: pawn 1.0, knight 1.0 = 2.0
    // (a pawn then a knight: +1.5 for black).
    assert_eq!(g.table_score(Side::White).strikes, Tenths(40));
    assert_eq!(g.table_score(Side::Black).strikes, Tenths(20));
    assert_eq!(g.table_score(Side::Black).points(), Tenths(35));
    // White's d2-d4 then g1-f3 is also a pawn then a knight: 4.0 + 1.5.
    assert_eq!(g.table_score(Side::White).points(), Tenths(55));
}
