//! Solo boards in the lab (Chessic): boards dealt from consecutive seeds at each level,
//! played by the greedy player (always the strike worth most now, ties to the lowest
//! square) and by the solver (a node-limited search for the best-scoring route); per
//! level and player the score distribution (a histogram), the shares of boards forged
//! and cooled, and the solver's scores against greedy's on the same boards. Scores
//! leave the time score out (no clock runs). Board `i` is dealt from `seed + i`, the
//! seed `varia play chessic --seed` takes, and results come in seed order with any
//! number of threads; the solver's node limits make its routes machine-independent.

use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;
use varia::Square;
use varia::search::solo::{self, Limits};
use varia::solo::{Forge, SoloGame, Status};

use crate::LabError;
use crate::metrics::{Mean, Rate, mean, wilson};

/// What a solo batch plays.
#[derive(Clone, Debug)]
pub struct SoloBatch {
    pub boards: u64,
    pub seed: u64,
    pub jobs: usize,
    /// Deal the seed's first board rather than the first the solver proves forgeable.
    pub raw: bool,
    /// The solver's node limits: for the decision, then for the best-score search.
    pub decision_nodes: u64,
    pub best_nodes: u64,
    /// Only these levels (all when empty).
    pub levels: Vec<String>,
}

/// How one player did on one board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub forged: bool,
    pub cooled: bool,
    /// In tenths of a point.
    pub score: i64,
}

/// One board: its seed and both players' results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Board {
    pub seed: u64,
    pub greedy: Outcome,
    pub solver: Outcome,
}

/// A player's results over a level's boards.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerReport {
    pub forged: Rate,
    pub cooled: Rate,
    /// Points (not tenths).
    pub score: Mean,
    pub histogram: Histogram,
}

/// Counts of scores in equal bins from `low` (inclusive) by `width`; the last bin takes
/// the maximum.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Histogram {
    pub low: f64,
    pub width: f64,
    pub counts: Vec<u64>,
}

impl Histogram {
    /// `bins` equal bins over [min, max] of `xs` (one bin when they are all equal).
    pub fn new(xs: &[f64], bins: usize) -> Histogram {
        let bins = bins.max(1);
        let low = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let high = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if xs.is_empty() {
            return Histogram { low: 0.0, width: 0.0, counts: Vec::new() };
        }
        if high <= low {
            return Histogram { low, width: 0.0, counts: vec![xs.len() as u64] };
        }
        let width = (high - low) / bins as f64;
        let mut counts = vec![0u64; bins];
        for &x in xs {
            let i = (((x - low) / width) as usize).min(bins - 1);
            counts[i] += 1;
        }
        Histogram { low, width, counts }
    }
}

/// A level's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LevelReport {
    pub level: String,
    pub boards: Vec<Board>,
    pub greedy: PlayerReport,
    pub solver: PlayerReport,
    /// The solver's mean score over greedy's (None when greedy's mean is 0).
    pub solver_over_greedy: Option<f64>,
    /// Boards where the solver scored more, the same, less than greedy.
    pub solver_better: u64,
    pub solver_equal: u64,
    pub solver_worse: u64,
}

fn finish(game: &SoloGame, route: &[Square]) -> Outcome {
    let mut g = game.clone();
    for &sq in route {
        if g.strike(sq).is_err() {
            break;
        }
    }
    let status = g.status();
    Outcome { forged: status == Status::Forged, cooled: status == Status::Cooled, score: g.score().points().0 }
}

/// Deals board `seed` at `level` and plays it both ways.
pub fn play_board(forge: &Arc<Forge>, level: usize, seed: u64, batch: &SoloBatch) -> Result<Board, LabError> {
    let g = if batch.raw {
        SoloGame::dealt(forge.clone(), level, seed)
    } else {
        solo::deal(forge, level, seed, false).map_err(|e| LabError::Deal { seed, why: e.to_string() })?
    };
    let (route, _) = solo::greedy(&g);
    let greedy = finish(&g, &route);
    let s = solo::solve_in(
        &g,
        Limits { nodes: Some(batch.decision_nodes), time: None },
        Limits { nodes: Some(batch.best_nodes), time: None },
    );
    let solver = finish(&g, &s.best);
    Ok(Board { seed, greedy, solver })
}

fn player(boards: &[Board], pick: fn(&Board) -> Outcome) -> PlayerReport {
    let n = boards.len() as u64;
    let scores: Vec<f64> = boards.iter().map(|b| pick(b).score as f64 / 10.0).collect();
    PlayerReport {
        forged: wilson(boards.iter().filter(|b| pick(b).forged).count() as u64, n),
        cooled: wilson(boards.iter().filter(|b| pick(b).cooled).count() as u64, n),
        score: mean(&scores),
        histogram: Histogram::new(&scores, 10),
    }
}

/// The report of a level's boards.
pub fn level_report(level: &str, boards: Vec<Board>) -> LevelReport {
    let greedy = player(&boards, |b| b.greedy);
    let solver = player(&boards, |b| b.solver);
    let count = |f: fn(i64, i64) -> bool| boards.iter().filter(|b| f(b.solver.score, b.greedy.score)).count() as u64;
    LevelReport {
        level: level.to_string(),
        solver_over_greedy: (greedy.score.mean > 0.0).then(|| solver.score.mean / greedy.score.mean),
        solver_better: count(|s, g| s > g),
        solver_equal: count(|s, g| s == g),
        solver_worse: count(|s, g| s < g),
        greedy,
        solver,
        boards,
    }
}

/// Every level's report (or those asked for), boards on `jobs` threads.
pub fn run(forge: &Arc<Forge>, batch: &SoloBatch, tick: &(dyn Fn() + Sync)) -> Result<Vec<LevelReport>, LabError> {
    let levels: Vec<(usize, String)> = forge.rules().levels.iter().map(|l| l.name.clone()).enumerate().collect();
    for want in &batch.levels {
        if !levels.iter().any(|(_, n)| n == want) {
            let names: Vec<&str> = levels.iter().map(|(_, n)| n.as_str()).collect();
            return Err(LabError::UnknownLevel(format!("no level `{want}`: the levels are {}", names.join(", "))));
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(batch.jobs.max(1))
        .build()
        .map_err(|e| LabError::Threads(e.to_string()))?;
    let mut out = Vec::new();
    for (li, name) in levels {
        if !batch.levels.is_empty() && !batch.levels.contains(&name) {
            continue;
        }
        let one = |i: u64| {
            let r = play_board(forge, li, batch.seed.saturating_add(i), batch);
            tick();
            r
        };
        let boards = pool.install(|| (0..batch.boards).into_par_iter().map(one).collect::<Result<Vec<_>, _>>())?;
        out.push(level_report(&name, boards));
    }
    Ok(out)
}

/// The reports as text: a block per level, with a histogram line per bin.
pub fn text(reports: &[LevelReport], batch: &SoloBatch) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let last = batch.seed.saturating_add(batch.boards.saturating_sub(1));
    let dealt = if batch.raw { "raw boards" } else { "forgeable boards" };
    let _ = writeln!(
        s,
        "{} {dealt} per level (seeds {}..={last}); scores without the time score",
        batch.boards, batch.seed
    );
    let pct = |r: &Rate| format!("{:.0}% (95% {:.0}–{:.0}%)", r.value * 100.0, r.low * 100.0, r.high * 100.0);
    for r in reports {
        let _ = writeln!(s, "\n{}", r.level);
        for (who, p) in [("greedy", &r.greedy), ("solver", &r.solver)] {
            let _ = writeln!(
                s,
                "  {who:<7} forged {}, cooled {}; score mean {:.1} (95% {:.1}–{:.1}), sd {:.1}, min {:.1}, max {:.1}",
                pct(&p.forged),
                pct(&p.cooled),
                p.score.mean,
                p.score.low,
                p.score.high,
                p.score.sd,
                p.score.min,
                p.score.max
            );
            let h = &p.histogram;
            let top = h.counts.iter().copied().max().unwrap_or(0).max(1);
            for (i, c) in h.counts.iter().enumerate() {
                let from = h.low + h.width * i as f64;
                let bar = "#".repeat(((*c as f64 / top as f64) * 40.0).round() as usize);
                let _ = writeln!(s, "    {from:>7.1}–{:<7.1} {c:>5} {bar}", from + h.width);
            }
        }
        let ratio = r.solver_over_greedy.map_or("—".to_string(), |x| format!("{x:.2}×"));
        let _ = writeln!(
            s,
            "  solver over greedy: {ratio} the mean; better on {}, equal on {}, worse on {} boards",
            r.solver_better, r.solver_equal, r.solver_worse
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_split_the_range_in_equal_bins() {
        // 0..=10 in 5 bins of 2: [0,2) 0 1; [2,4) 2 3; [4,6) 4 5; [6,8) 6 7; [8,10] 8 9 10.
        let xs: Vec<f64> = (0..=10).map(f64::from).collect();
        let h = Histogram::new(&xs, 5);
        assert_eq!((h.low, h.width), (0.0, 2.0));
        assert_eq!(h.counts, [2, 2, 2, 2, 3]);
        // All equal: one bin holding them all.
        assert_eq!(Histogram::new(&[3.0, 3.0], 4).counts, [2]);
        assert!(Histogram::new(&[], 4).counts.is_empty());
    }

    #[test]
    fn a_level_report_by_hand() {
        let o = |forged, cooled, score| Outcome { forged, cooled, score };
        let boards = vec![
            Board { seed: 1, greedy: o(true, false, 1000), solver: o(true, false, 1500) },
            Board { seed: 2, greedy: o(false, true, 500), solver: o(true, false, 500) },
            Board { seed: 3, greedy: o(false, true, 300), solver: o(false, true, 200) },
            Board { seed: 4, greedy: o(true, false, 200), solver: o(true, false, 800) },
        ];
        let r = level_report("apprentice", boards);
        // Greedy: 2 of 4 forged, 2 cooled; points 100, 50, 30, 20: mean 50.
        assert_eq!((r.greedy.forged.count, r.greedy.cooled.count), (2, 2));
        assert!((r.greedy.score.mean - 50.0).abs() < 1e-9);
        // Solver: 3 forged, 1 cooled; points 150, 50, 20, 80: mean 75; 75 / 50 = 1.5.
        assert_eq!((r.solver.forged.count, r.solver.cooled.count), (3, 1));
        assert!((r.solver.score.mean - 75.0).abs() < 1e-9);
        assert!((r.solver_over_greedy.unwrap() - 1.5).abs() < 1e-9);
        assert_eq!((r.solver_better, r.solver_equal, r.solver_worse), (2, 1, 1));
        assert_eq!(r.greedy.histogram.counts.iter().sum::<u64>(), 4);
    }
}
