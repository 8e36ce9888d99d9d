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
    assert_eq!(keys.len(), 27); // the 29 keys of [ai] but material and tempo
    assert!(keys.contains(&"ai.space".to_string()));
    assert!(keys.contains(&"ai.mobility".to_string()));
    assert!(!keys.contains(&"ai.material".to_string()));
    assert!(!keys.contains(&"ai.tempo".to_string()));
}

/// A variant folder extending standard with `toml` added.
fn extended(toml: &str, n: u32) -> Arc<Variant> {
    let dir = std::env::temp_dir().join(format!("varia-tune-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), format!("extends = \"standard\"\n{toml}\n")).unwrap();
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

/// Positions from seeded random games (every ply from the 4th).
fn random_positions(v: &Arc<Variant>, games: u64, plies: usize) -> Vec<String> {
    let mut out = Vec::new();
    for g in 0..games {
        let mut rng = varia::rng::Rng::new(1000 + g);
        let mut game = varia::Game::new(v.clone());
        for ply in 0..plies {
            let legal = game.legal_actions();
            if legal.is_empty() || game.outcome().is_some() {
                break;
            }
            if ply >= 4 {
                out.push(game.fen());
            }
            game.apply(legal[rng.below(legal.len() as u64) as usize]).unwrap();
        }
    }
    out
}

#[test]
fn tables_are_learned_from_an_evaluation_that_has_them() {
    use varia::search::AiConfig;
    use varia::search::tune::{TableOptions, tune_tables};
    // The truth: knights are worth 80 more on the four centre squares, in both tables
    // (diagram order: d5 and e5 on the 4th row, d4 and e4 on the 5th).
    let mut t = vec![0; 64];
    for i in [3 * 8 + 3, 3 * 8 + 4, 4 * 8 + 3, 4 * 8 + 4] {
        t[i] = 80;
    }
    let t = format!("[{}]", t.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "));
    // Standard's own knight tables are replaced in both (its other terms are the same in
    // both and stay as they are).
    let zeros = format!("[{}]", vec!["0"; 64].join(", "));
    let truth = extended(&format!("[ai.pieces.knight]\nsquare_mg = {t}\nsquare_eg = {t}\n"), 1);
    let plain = extended(&format!("[ai.pieces.knight]\nsquare_mg = {zeros}\nsquare_eg = {zeros}\n"), 2);
    let samples: Vec<Sample> = random_positions(&plain, 40, 60)
        .into_iter()
        .map(|fen| {
            let target = varia::Game::from_fen(truth.clone(), &fen).unwrap().evaluate().unwrap();
            Sample { fen, target }
        })
        .collect();
    let config = AiConfig::from_variant(&plain).unwrap();
    let knight = plain.kinds.iter().position(|k| k.name == "knight").unwrap();
    assert!(config.pieces[knight].square_mg.iter().chain(&config.pieces[knight].square_eg).all(|&x| x == 0));
    let options = TableOptions { epochs: 1000, rate: 2.0, l2: 0.0, worst: 3 };
    let mut epochs = Vec::new();
    let tuned = tune_tables(&plain, &config, &samples, &options, &mut |e, _| epochs.push(e)).unwrap();
    assert_eq!(epochs.first(), Some(&50));
    assert_eq!(epochs.last(), Some(&1000));
    assert!(tuned.samples > 100 && tuned.skipped > 0, "{} quiet, {} skipped", tuned.samples, tuned.skipped);
    assert_eq!(tuned.samples + tuned.skipped, samples.len());
    // The worst fits come worst first.
    assert_eq!(tuned.worst.len(), 3);
    let miss =
        |(_, s, t): &(String, i32, i32)| (win_probability(*s as f64, tuned.k) - win_probability(*t as f64, 1.0)).abs();
    assert!(miss(&tuned.worst[0]) >= miss(&tuned.worst[1]) && miss(&tuned.worst[1]) >= miss(&tuned.worst[2]));
    assert!(tuned.loss_after < tuned.loss_before / 4.0, "{} -> {}", tuned.loss_before, tuned.loss_after);
    let (mg, eg) = (&tuned.pieces[knight].square_mg, &tuned.pieces[knight].square_eg);
    // d4 (index 27) in White's order: the positions are mostly middlegames by phase, so
    // the middlegame table carries most of the 80 and the endgame one moves less.
    let d4 = 3 * 8 + 3;
    assert!(mg[d4] > 55 && eg[d4] > 10, "d4: mg {} eg {}", mg[d4], eg[d4]);
    // a1 (index 0): a knight there gains nothing in the truth.
    assert!(mg[0].abs() <= 15 && eg[0].abs() <= 15, "a1: mg {} eg {}", mg[0], eg[0]);
    // Pawns never stand on the first rank: their tables there stay at 0.
    let pawn = plain.kinds.iter().position(|k| k.name == "pawn").unwrap();
    let p = &tuned.pieces[pawn];
    assert!(p.square_mg.is_empty() || p.square_mg[..8].iter().all(|&x| x == 0));
}
