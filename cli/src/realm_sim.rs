//! `varia realm simulate`: bots play every player of a fresh realm for N rounds
//! (`varia_realm::simulate`), with a progress bar, a table of the rounds (boards held
//! per player, conquests, what went into and out of the vaults), and a summary in the
//! balance lab's style: the elimination rate with its 95% Wilson interval, the vaults'
//! use and the time per round. `--json` writes the same as data; every figure but the
//! timings is a function of (variant, players, rounds, seed).

use serde::Serialize;
use varia::Variant;
use varia::variant::Override;
use varia_lab::metrics::{Rate, wilson};
use varia_realm::simulate::{RoundStats, SimReport, Simulation, Spread, simulate};

use crate::Fail;

#[derive(clap::Args)]
pub struct SimArgs {
    /// The variant (a world of boards).
    #[arg(long, default_value = "caissan")]
    variant: String,
    /// Override values of variant.toml (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Players, joining in turn as the realm places them (three boards each, ring by ring).
    #[arg(long, default_value_t = 50)]
    players: usize,
    /// Rounds to play.
    #[arg(long, default_value_t = 50)]
    rounds: u64,
    /// Seeds the bots, round by round.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A table row every this many rounds (default: a tenth of the rounds).
    #[arg(long)]
    every: Option<u64>,
    /// Bot orders and validation on one thread (the figures are the same).
    #[arg(long)]
    single_thread: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// What the whole simulation came to.
#[derive(Debug, Serialize)]
pub struct Summary {
    /// Players eliminated by the end, of all players.
    pub eliminated: Rate,
    pub survivors: u64,
    /// Boards held per surviving player at the end.
    pub boards: Spread,
    pub conquests: u64,
    pub orders: u64,
    pub refused: u64,
    pub vault: VaultUse,
    pub seconds: Timing,
}

#[derive(Debug, Serialize)]
pub struct VaultUse {
    /// Pieces that entered a vault, were dropped from one, and were destroyed (of which
    /// by a full vault).
    pub banked: u64,
    pub drops: u64,
    pub destroyed: u64,
    pub overflow: u64,
    /// The most pieces held in all vaults together after a round, and in which round.
    pub peak: u64,
    pub peak_round: u64,
    /// Pieces held per surviving player at the end.
    pub per_survivor: f64,
}

#[derive(Debug, Serialize)]
pub struct Timing {
    pub total: f64,
    pub median_round: f64,
}

pub fn summarise(r: &SimReport) -> Summary {
    let rounds = &r.per_round[1..];
    let sum = |f: fn(&RoundStats) -> u64| rounds.iter().map(f).sum::<u64>();
    let last = r.per_round.last().cloned().unwrap_or_default();
    let (peak_round, peak) = r
        .per_round
        .iter()
        .map(|s| (s.round, s.in_vaults))
        .max_by_key(|&(round, v)| (v, std::cmp::Reverse(round)))
        .unwrap_or((0, 0));
    let mut secs = r.seconds.clone();
    secs.sort_by(f64::total_cmp);
    Summary {
        eliminated: wilson(r.players as u64 - last.alive, r.players as u64),
        survivors: last.alive,
        boards: last.boards.clone(),
        conquests: sum(|s| s.conquests),
        orders: sum(|s| s.orders),
        refused: sum(|s| s.refused),
        vault: VaultUse {
            banked: sum(|s| s.banked),
            drops: sum(|s| s.drops),
            destroyed: sum(|s| s.destroyed),
            overflow: sum(|s| s.overflow),
            peak,
            peak_round,
            per_survivor: if last.alive == 0 { 0.0 } else { last.in_vaults as f64 / last.alive as f64 },
        },
        seconds: Timing { total: secs.iter().sum(), median_round: secs.get(secs.len() / 2).copied().unwrap_or(0.0) },
    }
}

/// The rounds shown: 0, every `every`-th, and the last. Each row's counts (conquests,
/// vault traffic) are summed since the row before.
pub fn table(r: &SimReport, every: u64) -> String {
    let every = every.max(1);
    let mut out = String::from(
        "round  alive | boards per player: mean median p90 max none | since the row before: conquests banked destroyed (full vault) drops kings placed | in vaults\n",
    );
    let mut acc = RoundStats::default();
    for s in &r.per_round {
        acc.conquests += s.conquests;
        acc.banked += s.banked;
        acc.destroyed += s.destroyed;
        acc.overflow += s.overflow;
        acc.drops += s.drops;
        acc.placed += s.placed;
        if s.round % every != 0 && s.round != r.rounds {
            continue;
        }
        let b = &s.boards;
        out.push_str(&format!(
            "{:>5} {:>6} | {:>8.2} {:>6} {:>3} {:>3} {:>4} | {:>9} {:>6} {:>9} ({:>3}) {:>5} {:>12} | {:>9}\n",
            s.round,
            s.alive,
            b.mean,
            b.median,
            b.p90,
            b.max,
            b.none,
            acc.conquests,
            acc.banked,
            acc.destroyed,
            acc.overflow,
            acc.drops,
            acc.placed,
            s.in_vaults
        ));
        acc = RoundStats::default();
    }
    out
}

pub fn text(r: &SimReport, s: &Summary, every: u64) -> String {
    let pct = |x: f64| x * 100.0;
    let mut out = format!(
        "{}: {} players, {} rounds, seed {} (the bot orders for every player)\n\n",
        r.variant, r.players, r.rounds, r.seed
    );
    out.push_str(&table(r, every));
    out.push_str(&format!(
        "\neliminated: {} of {} players ({:.1}%, 95% CI {:.1}–{:.1}%); {} survive, holding {:.2} boards each (median {}, max {})\n",
        s.eliminated.count,
        r.players,
        pct(s.eliminated.value),
        pct(s.eliminated.low),
        pct(s.eliminated.high),
        s.survivors,
        s.boards.mean,
        s.boards.median,
        s.boards.max
    ));
    let why: Vec<String> = r.refused_by.iter().map(|(k, n)| format!("{n} {k}")).collect();
    out.push_str(&format!(
        "conquests: {}; orders: {} given, {} refused{}\n",
        s.conquests,
        s.orders,
        s.refused,
        if why.is_empty() { String::new() } else { format!(" ({})", why.join(", ")) }
    ));
    out.push_str(&format!(
        "vaults: {} pieces banked, {} dropped, {} destroyed ({} by a full vault); peak {} held after round {}; {:.2} per survivor at the end\n",
        s.vault.banked,
        s.vault.drops,
        s.vault.destroyed,
        s.vault.overflow,
        s.vault.peak,
        s.vault.peak_round,
        s.vault.per_survivor
    ));
    out.push_str(&format!(
        "time: {:.3} s for {} rounds (median {:.2} ms a round)\n",
        s.seconds.total,
        r.rounds,
        s.seconds.median_round * 1e3
    ));
    out
}

pub fn run(a: SimArgs) -> Result<(), Fail> {
    let overrides = a.set.iter().map(|s| s.parse()).collect::<Result<Vec<Override>, _>>()?;
    let v = Variant::load_with(&a.variant, &overrides)?;
    let sim = Simulation { players: a.players, rounds: a.rounds, seed: a.seed, parallel: !a.single_thread };
    let bar = varia_lab::progress_of(a.rounds, "rounds", !a.quiet && !a.json);
    let report = simulate(&v, &sim, &mut |s| {
        bar.set_message(format!("{} alive", s.alive));
        bar.inc(1);
    })
    .map_err(|e| Fail(e.to_string()))?;
    bar.finish_and_clear();
    let summary = summarise(&report);
    if a.json {
        #[derive(Serialize)]
        struct Out<'a> {
            #[serde(flatten)]
            report: &'a SimReport,
            summary: &'a Summary,
        }
        println!("{}", serde_json::to_string_pretty(&Out { report: &report, summary: &summary })?);
    } else {
        print!("{}", text(&report, &summary, a.every.unwrap_or((a.rounds / 10).max(1))));
    }
    Ok(())
}
