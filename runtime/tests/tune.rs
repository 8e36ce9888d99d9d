//! The evaluation tuner (`varia::search::tune`): its loss arithmetic on hand values, and
//! on tiny hand-made sets, that it moves a weight or a kind's value the way the targets
//! ask, and leaves alone a weight no position uses.

use std::sync::Arc;

use varia::Variant;
use varia::search::Weights;
use varia::search::tune::{Param, Sample, fit_scale, loss, scores_of, tune, win_probability};
use varia::variant::Override;

fn load(values: &[(String, i32)]) -> Result<Arc<Variant>, String> {
    let overrides: Vec<Override> =
        values.iter().map(|(k, v)| format!("pieces.{k}.value={v}").parse::<Override>().unwrap()).collect();
    Variant::load_with("standard", &overrides).map_err(|e| e.to_string())
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn win_probability_and_loss_on_hand_values() {
    assert!(close(win_probability(0.0, 1.0), 0.5));
    // 10^(-1) = 0.1: 1 / 1.1.
    assert!(close(win_probability(400.0, 1.0), 1.0 / 1.1));
    assert!(close(win_probability(-400.0, 1.0), 1.0 / 11.0));
    // The scale multiplies the score.
    assert!(close(win_probability(200.0, 2.0), 1.0 / 1.1));
    // (0.5 − 1/1.1)² = (0.4090909…)² = 0.1673553719…
    assert!(close(loss(&[0], &[400], 1.0), (0.5 - 1.0 / 1.1f64).powi(2)));
    assert!(close(loss(&[0], &[400], 1.0), 0.16735537190082644));
    // The mean over two: (0.1673553719 + 0) / 2.
    assert!(close(loss(&[0, 400], &[400, 400], 1.0), 0.16735537190082644 / 2.0));
    assert_eq!(loss(&[400, -50], &[400, -50], 1.0), 0.0);
    assert_eq!(loss(&[], &[], 1.0), 0.0);
    // Scores half the targets fit best at k = 2.
    let targets = [-600, -200, 0, 100, 300, 800];
    let scores: Vec<i32> = targets.iter().map(|t| t / 2).collect();
    assert!((fit_scale(&scores, &targets) - 2.0).abs() < 1e-9, "{}", fit_scale(&scores, &targets));
}

/// White has the bishop pair (c1 and f1), black a bishop and a knight; nothing can be taken.
const PAIR: &str = "2b1k1n1/pppppppp/8/8/8/8/PPPPPPPP/2B1KB2 w - - 0 1";
/// White has a queen more.
const QUEEN: &str = "4k3/pppppppp/8/8/8/8/PPPPPPPP/3QK3 w - - 0 1";

fn sample(fen: &str, shift: i32, weights: &Weights) -> Sample {
    let v = load(&[]).unwrap();
    let s = Sample { fen: fen.to_string(), target: 0 };
    let score = scores_of(&v, &[s], weights).unwrap()[0];
    Sample { fen: fen.to_string(), target: score + shift }
}

#[test]
fn a_weight_moves_toward_the_targets() {
    let w = Weights::default();
    assert_eq!(w.get("pair"), Some(30));
    // The pair's term adds `pair` centipawns to the score, one for one.
    let v = load(&[]).unwrap();
    let s = Sample { fen: PAIR.to_string(), target: 0 };
    let mut more = w;
    more.set("pair", 40);
    let (a, b) = (scores_of(&v, std::slice::from_ref(&s), &w).unwrap()[0], scores_of(&v, &[s], &more).unwrap()[0]);
    assert_eq!(b - a, 10);

    let params = [Param::Weight("pair"), Param::Weight("hp")];
    // The oracle thinks the pair worth 200 more: the weight goes up.
    let up = tune(&load, &[sample(PAIR, 200, &w)], w, &params, 3, Some(1.0), &mut |_, _| {}).unwrap();
    assert!(up.weights.get("pair").unwrap() > 30, "{:?}", up.changes);
    assert!(up.loss_after < up.loss_before);
    // Hit points are not in chess: the weight is left as it was.
    assert_eq!(up.weights.get("hp"), Some(60));
    assert_eq!(up.changes.len(), 1);
    assert_eq!(up.changes[0].0, "ai.pair");
    assert_eq!(up.k, 1.0);
    // And 200 less: it goes down.
    let down = tune(&load, &[sample(PAIR, -200, &w)], w, &params, 3, Some(1.0), &mut |_, _| {}).unwrap();
    assert!(down.weights.get("pair").unwrap() < 30, "{:?}", down.changes);
    assert!(down.loss_after < down.loss_before);
}

#[test]
fn a_kind_value_moves_toward_the_targets() {
    let w = Weights::default();
    let params = [Param::Value("queen".into())];
    let up = tune(&load, &[sample(QUEEN, 300, &w)], w, &params, 2, Some(1.0), &mut |_, _| {}).unwrap();
    let queen = up.values.iter().find(|(k, _)| k == "queen").unwrap().1;
    assert!(queen > 900, "{:?}", up.changes);
    assert_eq!(up.changes, vec![("pieces.queen.value".to_string(), 900, queen)]);
    assert!(up.loss_after < up.loss_before);
    // A kind the variant does not have is an error, not a panic.
    let err = tune(&load, &[sample(QUEEN, 0, &w)], w, &[Param::Value("archbishop".into())], 1, None, &mut |_, _| {})
        .unwrap_err();
    assert!(err.contains("archbishop"), "{err}");
}

#[test]
fn the_default_parameters_leave_out_material_and_tempo() {
    let keys: Vec<String> = Param::weights().iter().map(|p| p.key()).collect();
    assert_eq!(keys.len(), 16);
    assert!(keys.contains(&"ai.mobility".to_string()));
    assert!(!keys.contains(&"ai.material".to_string()));
    assert!(!keys.contains(&"ai.tempo".to_string()));
}
