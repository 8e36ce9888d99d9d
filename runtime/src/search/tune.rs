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
//! [`tune_tables`] learns the per-kind terms of `[ai.pieces]` (a square table and a
//! mobility weight per kind, middlegame and endgame: hundreds of parameters) the same
//! way, but by gradient descent: the evaluation is linear in them, so each quiet sample
//! is reduced once to the rest of its score and its features ([`Features`]).
//!
//! Everything is deterministic: no clock, no noise, a fixed order of the parameters.

use std::sync::Arc;

use crate::game::Game;
use crate::variant::Variant;

use super::config::{PieceTerms, WEIGHT_KEYS};
use super::eval::{Features, piece_stride};
use super::{AiConfig, Clock, Evaluator, HashTable, Level, Think, Weights};

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
    // The variant's own per-kind terms (`[ai.pieces]`) stay as they are.
    let pieces = AiConfig::from_variant(variant).map(|c| c.pieces).unwrap_or_default();
    let evaluator = Evaluator::new(variant, weights, &pieces);
    let level = scoring_level();
    // Quiescence reads and writes the table: what it holds from other weights is stale,
    // so it starts empty; within one set of weights it serves every position.
    table.clear();
    games
        .iter()
        .map(|g| {
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

/// How [`tune_tables`] descends.
#[derive(Clone, Debug, PartialEq)]
pub struct TableOptions {
    /// Passes over the samples (each one step of the gradient).
    pub epochs: usize,
    /// The step (Adam's learning rate), in centipawns.
    pub rate: f64,
    /// Weight decay toward the starting tables (an L2 penalty per parameter, times the
    /// squared change in centipawns): keeps squares the data rarely sees near where they were.
    pub l2: f64,
    /// How many of the worst-fitted samples to report.
    pub worst: usize,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions { epochs: 800, rate: 1.0, l2: 1e-7, worst: 0 }
    }
}

/// What [`tune_tables`] gave.
#[derive(Clone, Debug, PartialEq)]
pub struct TunedTables {
    /// The per-kind terms after tuning, by kind index (every kind).
    pub pieces: Vec<PieceTerms>,
    /// The weights with `threat` and `pawn_threat` tuned too.
    pub weights: Weights,
    /// The scale fitted to the starting evaluation.
    pub k: f64,
    /// The loss over the quiet samples before and after (the tables rounded to whole
    /// centipawns, evaluated again).
    pub loss_before: f64,
    pub loss_after: f64,
    /// The quiet samples tuned on, and those left out (over, in check, or with a capture
    /// or promotion that wins material for the side to move).
    pub samples: usize,
    pub skipped: usize,
    /// The quiet samples the tuned evaluation misses most, worst first: the FEN, its
    /// score after tuning and the target (at most [`TableOptions::worst`]).
    pub worst: Vec<(String, i32, i32)>,
}

/// One quiet sample reduced to what the descent needs.
struct Reduced {
    /// The score for the side to move without the change to the tables.
    base: f64,
    /// The target's win probability.
    target: f64,
    features: Features,
}

/// Whether the side to move of `g` stands quiet: the game goes on, no check, and no
/// capture or promotion wins material on the spot (by static exchange), so its static
/// evaluation is what a search would say.
fn quiet(g: &Game, ev: &Evaluator) -> bool {
    if g.outcome().is_some() || g.in_check() {
        return false;
    }
    let legal = g.legal_actions();
    if legal.is_empty() {
        return false;
    }
    legal.iter().all(|a| {
        if a.promotion.is_some() && a.kind != crate::action::ActionKind::Drop {
            return false;
        }
        if !g.is_capture(a) {
            return true;
        }
        g.static_exchange_for_ai(ev, *a).is_some_and(|gain| gain <= 0)
    })
}

/// The model's score for the side to move: `base` plus the change `delta` to the tables.
fn model(r: &Reduced, delta: &[f64]) -> f64 {
    let phase = r.features.phase as f64 / 256.0;
    let mut s = 0.0;
    for &(mg, eg, n) in &r.features.terms {
        s += n as f64 * (delta[mg as usize] * phase + delta[eg as usize] * (1.0 - phase));
    }
    r.base + if r.features.white { s } else { -s }
}

/// Tunes the per-kind terms of `[ai.pieces]` (square tables and mobility weights, every
/// kind) and the `threat` and `pawn_threat` weights on the quiet ones of `samples`, from
/// those in `config`, with the other weights held. Full-batch gradient descent (Adam) on
/// the loss of [`loss`] at the scale fitted to the starting evaluation; `progress` hears
/// of every 50th epoch and the last (its number and the loss).
pub fn tune_tables(
    variant: &Arc<Variant>,
    config: &AiConfig,
    samples: &[Sample],
    options: &TableOptions,
    progress: &mut dyn FnMut(usize, f64),
) -> Result<TunedTables, String> {
    let nsq = variant.geometry.len();
    let nkinds = variant.kinds.len();
    let stride = piece_stride(nsq);
    let evaluator = Evaluator::new(variant, &config.weights, &config.pieces);
    let all_count = samples.len();
    let all = games_of(variant, samples)?;
    let (games, samples): (Vec<Game>, Vec<&Sample>) =
        all.into_iter().zip(samples).filter(|(g, _)| quiet(g, &evaluator)).unzip();
    let mut reduced = Vec::new();
    for (g, s) in games.iter().zip(&samples) {
        let base = g.evaluate_for_ai(&evaluator).clamp(-SCORE_CAP, SCORE_CAP);
        reduced.push(Reduced {
            base: base as f64,
            target: win_probability(s.target.clamp(-SCORE_CAP, SCORE_CAP) as f64, 1.0),
            features: g.features_for_ai(&evaluator),
        });
    }
    if reduced.is_empty() {
        return Err("no quiet positions among the samples (none to tune on)".into());
    }
    let bases: Vec<i32> = reduced.iter().map(|r| r.base as i32).collect();
    let targets: Vec<i32> = samples.iter().map(|s| s.target.clamp(-SCORE_CAP, SCORE_CAP)).collect();
    let k = fit_scale(&bases, &targets);
    // Before any change the model's scores are the bases.
    let loss_before = loss(&bases, &targets, k);
    let n = nkinds * stride + 2;
    let mut delta = vec![0.0f64; n];
    // Adam.
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-8f64);
    let (mut m, mut v) = (vec![0.0f64; n], vec![0.0f64; n]);
    let mut grad = vec![0.0f64; n];
    let slope = k * std::f64::consts::LN_10 / 400.0;
    for epoch in 1..=options.epochs {
        grad.iter_mut().for_each(|g| *g = 0.0);
        let mut total = 0.0;
        for r in &reduced {
            let p = win_probability(model(r, &delta), k);
            let d = p - r.target;
            total += d * d;
            let g = 2.0 * d * p * (1.0 - p) * slope * if r.features.white { 1.0 } else { -1.0 };
            let phase = r.features.phase as f64 / 256.0;
            for &(mg, eg, c) in &r.features.terms {
                grad[mg as usize] += g * c as f64 * phase;
                grad[eg as usize] += g * c as f64 * (1.0 - phase);
            }
        }
        let count = reduced.len() as f64;
        let (c1, c2) = (1.0 - b1.powi(epoch as i32), 1.0 - b2.powi(epoch as i32));
        for i in 0..n {
            let g = grad[i] / count + 2.0 * options.l2 * delta[i];
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            delta[i] -= options.rate * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
        }
        if epoch % 50 == 0 || epoch == options.epochs {
            progress(epoch, total / count);
        }
    }
    // The tuned tables, in whole centipawns.
    let mut pieces: Vec<PieceTerms> = (0..nkinds).map(|k| config.pieces.get(k).cloned().unwrap_or_default()).collect();
    for (k, p) in pieces.iter_mut().enumerate() {
        let at = |i: usize| delta[k * stride + i].round() as i32;
        for (table, offset) in [(&mut p.square_mg, 0), (&mut p.square_eg, nsq)] {
            table.resize(nsq, 0);
            for (sq, x) in table.iter_mut().enumerate() {
                *x = (*x + at(offset + sq)).clamp(-10_000, 10_000);
            }
        }
        p.mobility_mg = (p.mobility_mg + at(2 * nsq)).clamp(-10_000, 10_000);
        p.mobility_eg = (p.mobility_eg + at(2 * nsq + 1)).clamp(-10_000, 10_000);
        if p.square_mg.iter().all(|&x| x == 0) {
            p.square_mg.clear();
        }
        if p.square_eg.iter().all(|&x| x == 0) {
            p.square_eg.clear();
        }
    }
    let mut weights = config.weights;
    for (j, key) in ["threat", "pawn_threat"].into_iter().enumerate() {
        let x = weights.get(key).unwrap_or(0) + delta[nkinds * stride + j].round() as i32;
        weights.set(key, x.clamp(-10_000, 10_000));
    }
    // The loss the rounded tables give, evaluated again.
    let after = Evaluator::new(variant, &weights, &pieces);
    let scores: Vec<i32> = games.iter().map(|g| g.evaluate_for_ai(&after).clamp(-SCORE_CAP, SCORE_CAP)).collect();
    let loss_after = loss(&scores, &targets, k);
    let mut order: Vec<usize> = (0..scores.len()).collect();
    let miss = |i: usize| (win_probability(scores[i] as f64, k) - win_probability(targets[i] as f64, 1.0)).abs();
    order.sort_by(|&a, &b| miss(b).total_cmp(&miss(a)).then(a.cmp(&b)));
    let worst = order.iter().take(options.worst).map(|&i| (samples[i].fen.clone(), scores[i], targets[i])).collect();
    Ok(TunedTables {
        pieces,
        weights,
        k,
        loss_before,
        loss_after,
        samples: reduced.len(),
        skipped: all_count - reduced.len(),
        worst,
    })
}
