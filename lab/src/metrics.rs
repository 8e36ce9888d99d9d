//! The report of a batch of games: counts, lengths, and the metrics of Ludii's
//! evaluation module (Ludeme/Ludii, `Evaluation/src/metrics/single/`), computed from
//! per-game summaries so the arithmetic can be checked on hand-made result sets.
//!
//! Definitions used (n = games in the batch):
//! - **balance** (`outcome/Balance.java`): 1 − |white's win rate − black's win rate|
//!   (Ludii: one minus the largest discrepancy between the players' win rates);
//! - **first-player advantage** (`outcome/AdvantageP1.java`): the share of games won by
//!   the side that moves first;
//! - **drawishness** (`outcome/Drawishness.java`): the share of games drawn, timeouts
//!   excluded;
//! - **timeouts** (`outcome/Timeouts.java`): the share of games ended by a turn cap —
//!   here the lab's `max_plies` and a variant's own `draws.turn_limit` alike;
//! - **duration** (`duration/DurationMoves.java`, `DurationTurnsStdDev.java`): mean and
//!   standard deviation of the plies per game;
//! - **lead change** (`stateEvaluation/LeadChange.java`): per game, the number of plies
//!   after which the leader (the side the evaluation favours; both when it is even)
//!   differs from the one before, divided by the plies; averaged over games. Ludii also
//!   counts the first state as a change (against an empty set of leaders); we do not;
//! - **decisiveness** (`stateEvaluation/decisiveness/DecisivenessMoves.java` with
//!   `DecisivenessThreshold.java`): per decided game, the threshold is the best
//!   evaluation the loser ever had; the game is decided at the first ply where the
//!   winner's evaluation exceeds it; the metric is that ply over the game's plies,
//!   averaged over decided games (lower: decided earlier).
//!
//! The evaluation is the variant's score difference where it keeps scores (`[scoring]`
//! or a `score` hook), else the AI's static evaluation (material and its weights).
//! Rates carry 95% Wilson intervals; means a normal interval (1.96 standard errors).

use std::collections::BTreeMap;

use serde::Serialize;
use varia::Side;

const Z: f64 = 1.96;

fn side_name<S: serde::Serializer>(side: &Side, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&side.to_string())
}

/// How one game ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Ending {
    Win {
        #[serde(serialize_with = "side_name")]
        side: Side,
        reason: String,
    },
    Draw {
        reason: String,
    },
    /// The lab's turn cap (`max_plies`) stopped it first.
    Cap,
}

impl Ending {
    /// Whether a turn cap ended it (the lab's or the variant's `turn_limit`).
    pub fn is_timeout(&self) -> bool {
        match self {
            Ending::Cap => true,
            Ending::Draw { reason } => reason == "turn_limit",
            Ending::Win { .. } => false,
        }
    }
}

/// What the report needs of one game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub ending: Ending,
    pub plies: u32,
    /// The evaluation from white's side at every state, the start included (plies + 1
    /// values), or empty when none was taken.
    #[serde(skip)]
    pub evals: Vec<i64>,
}

/// A share of the games with its 95% Wilson interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Rate {
    pub count: u64,
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// A mean with its spread and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Mean {
    pub mean: f64,
    pub sd: f64,
    pub low: f64,
    pub high: f64,
    pub min: f64,
    pub max: f64,
}

/// The Wilson score interval of `k` successes in `n` trials (z = 1.96).
pub fn wilson(k: u64, n: u64) -> Rate {
    if n == 0 {
        return Rate { count: k, value: 0.0, low: 0.0, high: 0.0 };
    }
    let (k, nf) = (k.min(n), n as f64);
    let p = k as f64 / nf;
    let z2 = Z * Z;
    let denom = 1.0 + z2 / nf;
    let centre = (p + z2 / (2.0 * nf)) / denom;
    let half = Z / denom * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt();
    Rate { count: k, value: p, low: (centre - half).max(0.0), high: (centre + half).min(1.0) }
}

/// Mean, sample standard deviation and the normal interval of the mean.
pub fn mean(xs: &[f64]) -> Mean {
    if xs.is_empty() {
        return Mean { mean: 0.0, sd: 0.0, low: 0.0, high: 0.0, min: 0.0, max: 0.0 };
    }
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let sd = if xs.len() > 1 { (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0)).sqrt() } else { 0.0 };
    let half = Z * sd / n.sqrt();
    let min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Mean { mean: m, sd, low: m - half, high: m + half, min, max }
}

/// The leaders of a state: 1 white, 2 black, 3 both (an even evaluation).
fn leaders(e: i64) -> u8 {
    match e.signum() {
        1 => 1,
        -1 => 2,
        _ => 3,
    }
}

/// Lead changes of one game: how many plies changed the set of leaders.
pub fn lead_changes(evals: &[i64]) -> u32 {
    evals.windows(2).filter(|w| leaders(w[0]) != leaders(w[1])).count() as u32
}

/// The share of a decided game's plies before the winner's evaluation first exceeds the
/// best the loser ever had (1 when it never does); `evals` from white's side.
pub fn decided_at(evals: &[i64], winner: Side) -> Option<f64> {
    let plies = evals.len().checked_sub(1).filter(|&p| p > 0)?;
    let w: Vec<i64> = evals.iter().map(|&e| if winner == Side::White { e } else { -e }).collect();
    let threshold = w.iter().map(|&x| -x).max()?;
    let at = w.iter().position(|&x| x > threshold).unwrap_or(plies);
    Some(at as f64 / plies as f64)
}

/// The Ludii-style metrics of a batch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Metrics {
    pub balance: f64,
    /// White's win rate minus black's, with a 95% normal interval.
    pub win_rate_difference: [f64; 3],
    #[serde(serialize_with = "side_name")]
    pub first_player: Side,
    pub first_player_advantage: Rate,
    pub drawishness: Rate,
    pub timeouts: Rate,
    /// Mean share of a decided game's plies before it was decided (None: no decided game
    /// had evaluations).
    pub decisiveness: Option<f64>,
    pub duration: Mean,
    /// Mean lead changes per game, and Ludii's rate (changes over plies, averaged).
    pub lead_changes_per_game: Option<f64>,
    pub lead_change: Option<f64>,
}

/// The whole report of a batch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub games: u64,
    pub white_wins: Rate,
    pub black_wins: Rate,
    /// Real draws (timeouts excluded), and by reason.
    pub draws: Rate,
    pub draws_by_reason: BTreeMap<String, u64>,
    pub wins_by_reason: BTreeMap<String, u64>,
    /// Games ended by the lab's cap, and by the variant's turn limit.
    pub capped: u64,
    pub turn_limit: u64,
    /// White's score (wins + half the draws and timeouts) over the games.
    pub white_score: f64,
    pub length: Mean,
    pub metrics: Metrics,
}

impl Report {
    /// The report of these games; `first` is the side that moves first.
    pub fn new(games: &[Summary], first: Side) -> Report {
        let n = games.len() as u64;
        let count = |f: &dyn Fn(&Ending) -> bool| games.iter().filter(|g| f(&g.ending)).count() as u64;
        let ww = count(&|e| matches!(e, Ending::Win { side: Side::White, .. }));
        let bw = count(&|e| matches!(e, Ending::Win { side: Side::Black, .. }));
        let draws = count(&|e| matches!(e, Ending::Draw { .. }) && !e.is_timeout());
        let capped = count(&|e| *e == Ending::Cap);
        let timeouts = count(&|e| e.is_timeout());
        let mut draws_by_reason = BTreeMap::new();
        let mut wins_by_reason = BTreeMap::new();
        for g in games {
            match &g.ending {
                Ending::Draw { reason } if !g.ending.is_timeout() => {
                    *draws_by_reason.entry(reason.clone()).or_insert(0) += 1
                }
                Ending::Win { reason, .. } => *wins_by_reason.entry(reason.clone()).or_insert(0) += 1,
                _ => {}
            }
        }
        let nf = (n as f64).max(1.0);
        let (pw, pb) = (ww as f64 / nf, bw as f64 / nf);
        let d = pw - pb;
        // The variance of a difference of two shares of one multinomial sample.
        let half = Z * ((pw + pb - d * d) / nf).max(0.0).sqrt();
        let lengths: Vec<f64> = games.iter().map(|g| g.plies as f64).collect();
        let length = mean(&lengths);
        let with_evals: Vec<&Summary> = games.iter().filter(|g| g.evals.len() > 1).collect();
        let (lead_changes_per_game, lead_change) = if with_evals.is_empty() {
            (None, None)
        } else {
            let k = with_evals.len() as f64;
            let per_game = with_evals.iter().map(|g| lead_changes(&g.evals) as f64).sum::<f64>() / k;
            let rate =
                with_evals.iter().map(|g| lead_changes(&g.evals) as f64 / (g.evals.len() - 1) as f64).sum::<f64>() / k;
            (Some(per_game), Some(rate))
        };
        let decided: Vec<f64> = games
            .iter()
            .filter_map(|g| match &g.ending {
                Ending::Win { side, .. } => decided_at(&g.evals, *side),
                _ => None,
            })
            .collect();
        let decisiveness = (!decided.is_empty()).then(|| decided.iter().sum::<f64>() / decided.len() as f64);
        let first_wins = if first == Side::White { ww } else { bw };
        Report {
            games: n,
            white_wins: wilson(ww, n),
            black_wins: wilson(bw, n),
            draws: wilson(draws, n),
            draws_by_reason,
            wins_by_reason,
            capped,
            turn_limit: timeouts - capped,
            white_score: (ww as f64 + (n - ww - bw) as f64 / 2.0) / nf,
            length,
            metrics: Metrics {
                balance: 1.0 - d.abs(),
                win_rate_difference: [d, d - half, d + half],
                first_player: first,
                first_player_advantage: wilson(first_wins, n),
                drawishness: wilson(draws, n),
                timeouts: wilson(timeouts, n),
                decisiveness,
                duration: length,
                lead_changes_per_game,
                lead_change,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-4, "{a} is not {b}");
    }

    #[test]
    fn wilson_intervals_match_the_formula_worked_by_hand() {
        // 5 of 10: p = 0.5, z²/n = 0.38416; centre (0.5 + 0.19208) / 1.38416 = 0.5;
        // half = 1.96 / 1.38416 × √(0.025 + 0.009604) = 0.263411.
        let r = wilson(5, 10);
        close(r.value, 0.5);
        close(r.low, 0.236589);
        close(r.high, 0.763411);
        // 0 of 10: centre = half = 0.19208 / 1.38416 = 0.138770; [0, 0.277540].
        let r = wilson(0, 10);
        close(r.low, 0.0);
        close(r.high, 0.277540);
        // No games: no rate, no interval.
        assert_eq!(wilson(0, 0).high, 0.0);
    }

    #[test]
    fn means_and_spreads_by_hand() {
        // 2, 4, 6: mean 4, sample sd √((4 + 0 + 4) / 2) = 2, half 1.96 × 2 / √3 = 2.263241.
        let m = mean(&[2.0, 4.0, 6.0]);
        close(m.mean, 4.0);
        close(m.sd, 2.0);
        close(m.low, 4.0 - 2.263241);
        close(m.high, 4.0 + 2.263241);
        close(m.min, 2.0);
        close(m.max, 6.0);
    }

    #[test]
    fn lead_changes_count_every_change_of_leader() {
        // white, white, even (both lead), black, white: three changes.
        assert_eq!(lead_changes(&[10, 5, 0, -3, 7]), 3);
        assert_eq!(lead_changes(&[0, 0, 0]), 0);
        assert_eq!(lead_changes(&[]), 0);
    }

    #[test]
    fn decisiveness_is_where_the_winner_passes_the_losers_best() {
        // White wins; from white's side 0, −50, 100, 300, 900: black's best was +50 (at ply
        // 1), white first exceeds 50 at ply 2, of 4 plies: 0.5.
        close(decided_at(&[0, -50, 100, 300, 900], Side::White).unwrap(), 0.5);
        // Black wins the same evaluations mirrored: the same answer.
        close(decided_at(&[0, 50, -100, -300, -900], Side::Black).unwrap(), 0.5);
        // Never ahead of the loser's best: decided only at the end (1.0).
        close(decided_at(&[0, 0, 0], Side::White).unwrap(), 1.0);
        assert_eq!(decided_at(&[5], Side::White), None);
    }

    fn game(ending: Ending, plies: u32, evals: Vec<i64>) -> Summary {
        Summary { ending, plies, evals }
    }

    fn win(side: Side) -> Ending {
        Ending::Win { side, reason: "checkmate".into() }
    }

    #[test]
    fn a_hand_made_batch_gives_the_hand_worked_report() {
        // Ten games: 4 white wins, 2 black wins, 2 real draws (stalemate, repetition), one
        // capped by the lab and one by the variant's turn limit.
        let draw = |r: &str| Ending::Draw { reason: r.into() };
        let games = vec![
            game(win(Side::White), 10, vec![0, 100, -100, 200]), // both, W, B, W: 3 changes in 3 plies
            game(win(Side::White), 20, vec![]),
            game(win(Side::White), 30, vec![]),
            game(win(Side::White), 40, vec![]),
            game(win(Side::Black), 50, vec![0, 0, -10]), // both, both, B: 1 change in 2 plies
            game(win(Side::Black), 60, vec![]),
            game(draw("stalemate"), 70, vec![]),
            game(draw("repetition"), 80, vec![]),
            game(Ending::Cap, 90, vec![]),
            game(draw("turn_limit"), 100, vec![]),
        ];
        let r = Report::new(&games, Side::White);
        assert_eq!(r.games, 10);
        assert_eq!(r.white_wins.count, 4);
        assert_eq!(r.black_wins.count, 2);
        assert_eq!(r.draws.count, 2);
        assert_eq!(r.draws_by_reason.get("stalemate"), Some(&1));
        assert_eq!(r.draws_by_reason.get("repetition"), Some(&1));
        assert_eq!(r.draws_by_reason.get("turn_limit"), None);
        assert_eq!((r.capped, r.turn_limit), (1, 1));
        // White's score: (4 + 4/2) / 10.
        close(r.white_score, 0.6);
        let m = &r.metrics;
        // Balance: 1 − |0.4 − 0.2|.
        close(m.balance, 0.8);
        // Difference 0.2, half 1.96 × √((0.4 + 0.2 − 0.04) / 10) = 0.463808.
        close(m.win_rate_difference[1], 0.2 - 0.463808);
        close(m.win_rate_difference[2], 0.2 + 0.463808);
        close(m.first_player_advantage.value, 0.4);
        close(m.drawishness.value, 0.2);
        close(m.timeouts.value, 0.2);
        // Lengths 10..100: mean 55, sample sd √(8250 / 9) = 30.276504.
        close(m.duration.mean, 55.0);
        close(m.duration.sd, 30.276504);
        // Lead changes: (3 + 1) / 2 per game; Ludii's rate (3/3 + 1/2) / 2.
        close(m.lead_changes_per_game.unwrap(), 2.0);
        close(m.lead_change.unwrap(), 0.75);
        // Decisiveness: game 1 (white): white's 0, 100, −100, 200; black's best 100 (ply 2),
        // white exceeds it first at ply 3 of 3 → 1.0. Game 5 (black): black's 0, 0, 10;
        // white's best 0, black exceeds it at ply 2 of 2 → 1.0. Mean 1.0.
        close(m.decisiveness.unwrap(), 1.0);
        // Black moving first: the advantage is black's win rate.
        close(Report::new(&games, Side::Black).metrics.first_player_advantage.value, 0.2);
    }
}
