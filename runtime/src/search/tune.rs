//! Tuning the evaluation from data (Texel's method): the `[ai]` weights, and optionally
//! the kinds' values, are moved one at a time, a step up or down, while that lowers the
//! mean squared difference between the win probability each position's score means and
//! the one its target means.
//!
//! A sample is a position (FEN) with a target score for the side to move, in centipawns:
//! an oracle engine's score at a fixed depth (`varia tune` asks Fairy-Stockfish). A
//! position's score is a one-ply search with quiescence (so pending captures are
//! resolved), at the candidate weights. Scores map to probabilities on the logistic curve
//! `1 / (1 + 10^(−k·cp/400))`; the targets use k = 1, and the scores a scale `k` fitted
//! once to the starting weights (the oracle's centipawns need not be the evaluation's).
//!
//! Everything is deterministic: no clock, no noise, a fixed order of the parameters.

use std::sync::Arc;

use crate::game::Game;
use crate::variant::Variant;

use super::config::WEIGHT_KEYS;
use super::{Clock, Evaluator, HashTable, Level, Think, Weights};

/// Scores count up to this much (a mate or a queen up is as good as won).
const SCORE_CAP: i32 = 3000;

/// A position and the score it should have, in centipawns for the side to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    pub fen: String,
    pub target: i32,
}

/// The probability of winning that `cp` centipawns mean on the logistic curve of scale `k`.
pub fn win_probability(cp: f64, k: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * cp / 400.0))
}

/// The mean squared difference between the probabilities `scores` mean (scale `k`) and
/// those `targets` mean (scale 1). 0 for no scores.
pub fn loss(scores: &[i32], targets: &[i32], k: f64) -> f64 {
    if scores.is_empty() {
        return 0.0;
    }
    let sum: f64 = scores
        .iter()
        .zip(targets)
        .map(|(&s, &t)| {
            let d = win_probability(s as f64, k) - win_probability(t as f64, 1.0);
            d * d
        })
        .sum();
    sum / scores.len() as f64
}

/// The scale `k` (from 0.05 to 4, to 0.01) that fits `scores` to `targets` best.
pub fn fit_scale(scores: &[i32], targets: &[i32]) -> f64 {
    let best_of = |ks: &mut dyn Iterator<Item = f64>| {
        ks.map(|k| (k, loss(scores, targets, k))).fold((1.0, f64::INFINITY), |b, x| if x.1 < b.1 { x } else { b }).0
    };
    let coarse = best_of(&mut (1..=80).map(|i| i as f64 * 0.05));
    best_of(&mut (-5..=5).map(|i| coarse + i as f64 * 0.01).filter(|&k| k > 0.0))
}

/// What the tuner may change: a weight of `[ai]` (by its key), or a kind's value (by
/// the kind's name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    Weight(&'static str),
    Value(String),
}

impl Param {
    /// Every weight of `[ai]` but `material` (the scale the values set) and `tempo`: a
    /// one-ply score is the opponent's evaluation negated, so the tempo counts against
    /// the side to move there, and fitting it would flip its sign.
    pub fn weights() -> Vec<Param> {
        WEIGHT_KEYS.iter().filter(|&&k| k != "material" && k != "tempo").map(|&k| Param::Weight(k)).collect()
    }

    /// How it is written in variant.toml.
    pub fn key(&self) -> String {
        match self {
            Param::Weight(k) => format!("ai.{k}"),
            Param::Value(kind) => format!("pieces.{kind}.value"),
        }
    }
}

/// What tuning gave.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    pub weights: Weights,
    /// The tuned kinds' values, by kind name.
    pub values: Vec<(String, i32)>,
    /// The scale fitted to the starting weights.
    pub k: f64,
    pub loss_before: f64,
    pub loss_after: f64,
    /// The samples used (those where the side to move has an action).
    pub samples: usize,
    /// Each parameter that moved: its key, from, to.
    pub changes: Vec<(String, i32, i32)>,
    /// Loss evaluations made.
    pub evaluations: usize,
}

/// Builds the variant with some kinds' values replaced (name, value).
pub type Loader<'a> = &'a dyn Fn(&[(String, i32)]) -> Result<Arc<Variant>, String>;

/// The one-ply search with quiescence that scores a sample.
fn scoring_level() -> Level {
    Level { depth: 1, quiescence: true, see: true, ..Level::default() }
}

struct State {
    weights: Weights,
    values: Vec<(String, i32)>,
    games: Vec<Game>,
    variant: Arc<Variant>,
}

/// Scores every game with `weights`, for the side to move, capped at ±[`SCORE_CAP`].
fn scores(variant: &Variant, games: &[Game], weights: &Weights, table: &mut HashTable) -> Vec<i32> {
    let evaluator = Evaluator::new(variant, weights);
    let level = scoring_level();
    games
        .iter()
        .map(|g| {
            // A one-ply search never reads the table (its children go straight to
            // quiescence, which does not), so one table serves every position.
            let think = Think { clock: Some(Clock::Off), table: Some(&mut *table), ..Think::default() };
            g.think_evaluated(&evaluator, &level, think).map_or(0, |r| r.score.clamp(-SCORE_CAP, SCORE_CAP))
        })
        .collect()
}

/// What the tuner scores each sample at with `weights` (a one-ply search with
/// quiescence), for the side to move, capped at ±3000; 0 where the game is over.
pub fn scores_of(variant: &Arc<Variant>, samples: &[Sample], weights: &Weights) -> Result<Vec<i32>, String> {
    Ok(scores(variant, &games_of(variant, samples)?, weights, &mut HashTable::with_megabytes(0)))
}

fn games_of(variant: &Arc<Variant>, samples: &[Sample]) -> Result<Vec<Game>, String> {
    samples
        .iter()
        .map(|s| Game::from_fen(variant.clone(), &s.fen).map_err(|e| format!("sample `{}`: {e}", s.fen)))
        .collect()
}

/// Tunes `params` from `start` (and the variant's own values) on `samples`, for at most
/// `passes` passes over the parameters. A weight starts with a step of a fifth of its
/// size (at least 1) and a value with 25; a pass that improves nothing halves the steps
/// (down to 1 and 5), and tuning ends when a pass at the smallest steps improves nothing.
/// The scores' scale is `k`, or (None) the one that fits the starting weights best.
/// `progress` hears of each pass (its number and the loss).
pub fn tune(
    load: Loader<'_>,
    samples: &[Sample],
    start: Weights,
    params: &[Param],
    passes: usize,
    k: Option<f64>,
    progress: &mut dyn FnMut(usize, f64),
) -> Result<Tuned, String> {
    let variant = load(&[])?;
    let values: Vec<(String, i32)> = params
        .iter()
        .filter_map(|p| match p {
            Param::Value(name) => variant.kinds.iter().find(|k| &k.name == name).map(|k| (name.clone(), k.value)),
            Param::Weight(_) => None,
        })
        .collect();
    for p in params {
        if let Param::Value(name) = p
            && !values.iter().any(|(n, _)| n == name)
        {
            return Err(format!("no kind `{name}` in {}", variant.name));
        }
    }
    let mut table = HashTable::with_megabytes(0);
    // Positions where the side to move has no action (the game is over) are left out.
    let all = games_of(&variant, samples)?;
    let keep: Vec<bool> = all.iter().map(|g| g.outcome().is_none() && !g.legal_actions().is_empty()).collect();
    let samples: Vec<Sample> = samples.iter().zip(&keep).filter(|(_, k)| **k).map(|(s, _)| s.clone()).collect();
    let games: Vec<Game> = all.into_iter().zip(&keep).filter(|(_, k)| **k).map(|(g, _)| g).collect();
    let targets: Vec<i32> = samples.iter().map(|s| s.target.clamp(-SCORE_CAP, SCORE_CAP)).collect();
    let mut st = State { weights: start, values, games, variant };
    let first = scores(&st.variant, &st.games, &st.weights, &mut table);
    let k = k.unwrap_or_else(|| fit_scale(&first, &targets));
    let loss_before = loss(&first, &targets, k);
    let mut best = loss_before;
    let mut evaluations = 1;

    let current = |st: &State, p: &Param| -> i32 {
        match p {
            Param::Weight(key) => st.weights.get(key).unwrap_or(0),
            Param::Value(name) => st.values.iter().find(|(n, _)| n == name).map_or(0, |v| v.1),
        }
    };
    // The loss with `p` at `x`, and the state that has it.
    let mut try_value = |st: &State, p: &Param, x: i32| -> Result<(f64, Option<State>), String> {
        match p {
            Param::Weight(key) => {
                let mut w = st.weights;
                w.set(key, x);
                Ok((loss(&scores(&st.variant, &st.games, &w, &mut table), &targets, k), None))
            }
            Param::Value(name) => {
                let mut values = st.values.clone();
                for v in values.iter_mut().filter(|(n, _)| n == name) {
                    v.1 = x;
                }
                let variant = load(&values)?;
                let games = games_of(&variant, &samples)?;
                let l = loss(&scores(&variant, &games, &st.weights, &mut table), &targets, k);
                Ok((l, Some(State { weights: st.weights, values, games, variant })))
            }
        }
    };
    let min_step = |p: &Param| if matches!(p, Param::Value(_)) { 5 } else { 1 };
    let mut steps: Vec<i32> = params
        .iter()
        .map(|p| match p {
            Param::Weight(_) => (current(&st, p).abs() / 5).max(1),
            Param::Value(_) => 25,
        })
        .collect();
    // Parameters that change no score (their term is absent from these positions).
    let mut dead = vec![false; params.len()];
    for pass in 0..passes {
        let mut improved = false;
        for (i, p) in params.iter().enumerate() {
            if dead[i] {
                continue;
            }
            let mut flat = 0;
            for dir in [1, -1] {
                let mut moved = false;
                // At most four steps one way in a pass: the others get their turn.
                for _ in 0..4 {
                    let x = current(&st, p) + dir * steps[i];
                    let (l, next) = try_value(&st, p, x)?;
                    evaluations += 1;
                    if l < best - 1e-12 {
                        best = l;
                        moved = true;
                        improved = true;
                        match next {
                            Some(next) => st = next,
                            None => {
                                if let Param::Weight(key) = p {
                                    st.weights.set(key, x);
                                }
                            }
                        }
                    } else {
                        if l == best && !moved {
                            flat += 1;
                        }
                        break;
                    }
                }
                if moved {
                    break;
                }
            }
            if pass == 0 && flat == 2 {
                dead[i] = true;
            }
        }
        progress(pass + 1, best);
        if !improved {
            let mut smaller = false;
            for (i, p) in params.iter().enumerate() {
                if steps[i] > min_step(p) {
                    steps[i] = (steps[i] / 2).max(min_step(p));
                    smaller = true;
                }
            }
            if !smaller {
                break;
            }
        }
    }
    let base = load(&[])?;
    let mut changes = Vec::new();
    for p in params {
        let from = match p {
            Param::Weight(key) => start.get(key).unwrap_or(0),
            Param::Value(name) => base.kinds.iter().find(|k| &k.name == name).map_or(0, |k| k.value),
        };
        let to = current(&st, p);
        if from != to {
            changes.push((p.key(), from, to));
        }
    }
    Ok(Tuned {
        weights: st.weights,
        values: st.values,
        k,
        loss_before,
        loss_after: best,
        samples: samples.len(),
        changes,
        evaluations,
    })
}
