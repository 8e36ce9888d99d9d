//! The balance lab (crate `varia-lab`): self-play at scale for designers. A batch of
//! AI-against-AI or random games of one variant ([`run`], parallel and reproducible),
//! its report with Ludii's metrics ([`metrics`]), sweeps of TOML values over a grid
//! ([`sweep`]), plots of a sweep ([`plot`]), and solo boards dealt and played by the
//! greedy player and the solver ([`solo`]). `varia selfplay` is its command line.

pub mod metrics;
pub mod plot;
pub mod run;
pub mod solo;
pub mod sweep;

use serde::Serialize;
use thiserror::Error;

pub use metrics::{Ending, Report, Summary};
pub use run::{Batch, Played, Player};

/// Why a batch could not be run or reported.
#[derive(Debug, Error)]
pub enum LabError {
    #[error(transparent)]
    Load(#[from] varia::LoadError),
    /// A rule (a hook) failed in a game.
    #[error("game {game}, ply {ply}: {error}")]
    Rule { game: u64, ply: u32, error: varia::RuleError },
    /// The computer player failed in a game (or the `[ai]` table is wrong: game 0, ply 0).
    #[error("game {game}, ply {ply}: {error}")]
    Ai { game: u64, ply: u32, error: varia::search::AiError },
    #[error("{0}")]
    UnknownLevel(String),
    /// A `--sweep KEY=A,B,C` that does not read.
    #[error("--sweep `{text}`: {why}")]
    Sweep { text: String, why: &'static str },
    /// A solo board could not be dealt.
    #[error("seed {seed}: {why}")]
    Deal { seed: u64, why: String },
    #[error("the thread pool could not start: {0}")]
    Threads(String),
    /// The plot could not be drawn or written.
    #[error("{path}: {why}")]
    Plot { path: String, why: String },
    #[error("a variant played by {0} cannot be self-played: the lab plays two sides alternating")]
    TurnModel(&'static str),
}

/// A batch's report with what produced it (the JSON of `varia selfplay --json`).
#[derive(Clone, Debug, Serialize)]
pub struct BatchReport {
    pub variant: String,
    pub white: String,
    pub black: String,
    pub seed: u64,
    pub max_plies: u32,
    /// The `--set` overrides of this batch (a sweep's point included).
    pub set: Vec<String>,
    pub report: Report,
}

impl BatchReport {
    /// The report as text, for a terminal.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let r = &self.report;
        let m = &r.metrics;
        let pct = |x: f64| format!("{:.1}%", x * 100.0);
        let rate = |x: &metrics::Rate| format!("{} ({}, 95% {}–{})", x.count, pct(x.value), pct(x.low), pct(x.high));
        let mut s = String::new();
        let set = if self.set.is_empty() { String::new() } else { format!(", --set {}", self.set.join(" --set ")) };
        let _ = writeln!(
            s,
            "{}: {} games, white {} vs black {}, seed {}, at most {} plies{set}",
            self.variant, r.games, self.white, self.black, self.seed, self.max_plies
        );
        let _ = writeln!(s, "white wins     {}", rate(&r.white_wins));
        let _ = writeln!(s, "black wins     {}", rate(&r.black_wins));
        let by = |m: &std::collections::BTreeMap<String, u64>| {
            m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
        };
        if !r.wins_by_reason.is_empty() {
            let _ = writeln!(s, "  wins by       {}", by(&r.wins_by_reason));
        }
        let _ = writeln!(s, "draws          {}", rate(&r.draws));
        if !r.draws_by_reason.is_empty() {
            let _ = writeln!(s, "  draws by      {}", by(&r.draws_by_reason));
        }
        let _ = writeln!(
            s,
            "timeouts       {} (turn cap {}, the variant's turn limit {}; not counted as draws)",
            rate(&m.timeouts),
            r.capped,
            r.turn_limit
        );
        let l = &r.length;
        let _ = writeln!(
            s,
            "length         mean {:.1} plies (95% {:.1}–{:.1}), sd {:.1}, min {:.0}, max {:.0}",
            l.mean, l.low, l.high, l.sd, l.min, l.max
        );
        let _ = writeln!(s, "white score    {:.3}", r.white_score);
        let _ = writeln!(
            s,
            "balance        {:.3} (white − black win rate {:+.3}, 95% {:+.3} to {:+.3})",
            m.balance, m.win_rate_difference[0], m.win_rate_difference[1], m.win_rate_difference[2]
        );
        let _ = writeln!(s, "first player   {} wins {}", m.first_player, rate(&m.first_player_advantage));
        let _ = writeln!(s, "drawishness    {}", pct(m.drawishness.value));
        match m.decisiveness {
            Some(d) => {
                let _ = writeln!(s, "decisiveness   decided at {} of a won game on average", pct(d));
            }
            None => {
                let _ = writeln!(s, "decisiveness   — (no decided game)");
            }
        }
        if let (Some(per), Some(rate)) = (m.lead_changes_per_game, m.lead_change) {
            let _ = writeln!(s, "lead changes   {per:.2} per game ({:.3} per ply)", rate);
        }
        s
    }
}

/// Plays a batch of `v` and reports it, with the games played (`set`: the overrides it was loaded with, for the
/// report).
pub fn batch(
    v: &std::sync::Arc<varia::Variant>,
    batch: &Batch,
    set: Vec<String>,
    tick: &(dyn Fn() + Sync),
) -> Result<(BatchReport, Vec<Played>), LabError> {
    use varia::variant::TurnModel;
    match v.turns {
        TurnModel::Alternate => {}
        TurnModel::Solo => return Err(LabError::TurnModel("one player (solo)")),
        TurnModel::Simultaneous => return Err(LabError::TurnModel("simultaneous orders")),
    }
    let played = run::play(v, batch, tick)?;
    let summaries: Vec<Summary> = played.iter().map(|p| p.summary.clone()).collect();
    let first = varia::Game::new(v.clone()).to_move();
    let report = BatchReport {
        variant: v.name.clone(),
        white: batch.white.name().to_string(),
        black: batch.black.name().to_string(),
        seed: batch.seed,
        max_plies: batch.max_plies,
        set,
        report: Report::new(&summaries, first),
    };
    Ok((report, played))
}

/// A progress bar on stderr for `total` games (drawn only when stderr is a terminal).
pub fn progress(total: u64, shown: bool) -> indicatif::ProgressBar {
    progress_of(total, "games", shown)
}

/// A progress bar on stderr for `total` things called `unit` (games, rounds…).
pub fn progress_of(total: u64, unit: &str, shown: bool) -> indicatif::ProgressBar {
    if !shown {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::with_draw_target(Some(total), indicatif::ProgressDrawTarget::stderr());
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit}, {{elapsed}} ({{eta}} left)");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}
