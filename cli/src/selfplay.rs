//! `varia selfplay`: batches of AI-against-AI (or random) games on all cores, their
//! report with Ludii's metrics, sweeps of TOML values with a table and a plot (the
//! balance lab, crate `varia-lab`).

use std::io::Write;
use std::path::PathBuf;

use varia::notation::pgn;
use varia::{Game, Variant};
use varia_lab::sweep::{self, Axis};
use varia_lab::{Batch, Ending, Player};

use crate::Fail;

#[derive(clap::Args)]
pub struct SelfplayArgs {
    #[command(flatten)]
    variant: crate::VariantArg,
    /// Games per batch (per point of a sweep).
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Both sides' player: `random` or a level of the variant's `[ai]`.
    #[arg(long, default_value = "random", conflicts_with_all = ["white", "black"])]
    ai: String,
    /// White's player (with --black).
    #[arg(long, requires = "black")]
    white: Option<String>,
    /// Black's player (with --white).
    #[arg(long, requires = "white")]
    black: Option<String>,
    /// The batch's seed: each game's is derived from it and the game's number.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (default: every core). Any number gives the same report.
    #[arg(long)]
    jobs: Option<usize>,
    /// A game still open after this many plies is a timeout (counted apart from draws).
    #[arg(long, default_value_t = 500)]
    max_plies: u32,
    /// Sweep a TOML key over values, `KEY=A,B,C` (repeatable: a grid).
    #[arg(long, value_name = "KEY=A,B,C")]
    sweep: Vec<String>,
    /// Draw a sweep's win, draw and length curves with error bars (.png or .svg).
    #[arg(long, value_name = "FILE", requires = "sweep")]
    plot: Option<PathBuf>,
    /// Print the report (a sweep: every point's) as JSON.
    #[arg(long)]
    json: bool,
    /// Write the games as PGN (not with --sweep).
    #[arg(long, value_name = "FILE.pgn", conflicts_with = "sweep")]
    pgn: Option<PathBuf>,
    /// A solo variant: only these levels (repeatable; default every level).
    #[arg(long = "level", value_name = "LEVEL")]
    levels: Vec<String>,
    /// A solo variant: deal each seed's first board, not the first the solver proves
    /// forgeable (as `varia play --raw`).
    #[arg(long)]
    raw: bool,
    /// A solo variant: the solver's node limit for the decision per board.
    #[arg(long, default_value_t = 200_000)]
    decision_nodes: u64,
    /// A solo variant: the solver's node limit for the best-score search per board.
    #[arg(long, default_value_t = 20_000)]
    best_nodes: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

pub fn run(args: SelfplayArgs) -> Result<(), Fail> {
    if args.games == 0 {
        return Err(Fail("--games must be at least 1".into()));
    }
    if args.max_plies == 0 {
        return Err(Fail("--max-plies must be at least 1".into()));
    }
    let (white, black) = match (&args.white, &args.black) {
        (Some(w), Some(b)) => (Player::parse(w), Player::parse(b)),
        _ => (Player::parse(&args.ai), Player::parse(&args.ai)),
    };
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let batch = Batch {
        games: args.games,
        white,
        black,
        seed: args.seed,
        jobs,
        max_plies: args.max_plies,
        keep_actions: args.pgn.is_some(),
        evaluate: true,
    };
    let base = &args.variant.set;
    let name = &args.variant.variant;
    let v = args.variant.load()?;
    if v.turns == varia::variant::TurnModel::Solo {
        return solo(v, &args, jobs);
    }
    if !args.levels.is_empty() || args.raw {
        return Err(Fail("--level and --raw are for solo variants; use --ai, --white and --black".into()));
    }
    if args.sweep.is_empty() {
        let bar = varia_lab::progress(args.games, !args.quiet);
        let (report, played) = varia_lab::batch(&v, &batch, base.clone(), &|| bar.inc(1))?;
        bar.finish_and_clear();
        if let Some(path) = &args.pgn {
            write_pgn(path, &v, &report, &played)?;
        }
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", report.text());
        }
        return Ok(());
    }
    let axes = args.sweep.iter().map(|s| s.parse::<Axis>()).collect::<Result<Vec<_>, _>>()?;
    let points = sweep::grid(&axes).len() as u64;
    let bar = varia_lab::progress(points.saturating_mul(args.games), !args.quiet);
    let results = sweep::run(name, base, &axes, &batch, &|| bar.inc(1))?;
    bar.finish_and_clear();
    if let Some(path) = &args.plot {
        let title = format!(
            "{}: {} games a point, {} vs {}",
            results[0].batch.variant,
            args.games,
            batch.white.name(),
            batch.black.name()
        );
        varia_lab::plot::write(path, &title, &results)?;
        eprintln!("plot written to {}", path.display());
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        print!("{}", sweep::table(&results));
    }
    Ok(())
}

/// Solo boards: each level's boards played by greedy and by the solver.
fn solo(v: std::sync::Arc<Variant>, args: &SelfplayArgs, jobs: usize) -> Result<(), Fail> {
    if args.white.is_some() || args.ai != "random" || !args.sweep.is_empty() || args.pgn.is_some() {
        return Err(Fail(format!(
            "`{}` is a solo variant: its boards are played by greedy and by the solver (--ai, --white, --black, --sweep and --pgn are for two-sided variants)",
            v.name
        )));
    }
    let forge = varia::solo::Forge::new(v)?;
    let batch = varia_lab::solo::SoloBatch {
        boards: args.games,
        seed: args.seed,
        jobs,
        raw: args.raw,
        decision_nodes: args.decision_nodes,
        best_nodes: args.best_nodes,
        levels: args.levels.clone(),
    };
    let levels = if args.levels.is_empty() { forge.rules().levels.len() as u64 } else { args.levels.len() as u64 };
    let bar = varia_lab::progress(levels.saturating_mul(args.games), !args.quiet);
    let reports = varia_lab::solo::run(&forge, &batch, &|| bar.inc(1))?;
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        print!("{}", varia_lab::solo::text(&reports, &batch));
    }
    Ok(())
}

/// Every game as PGN, replayed through the full pipeline from its seed and actions.
fn write_pgn(
    path: &PathBuf,
    v: &std::sync::Arc<Variant>,
    report: &varia_lab::BatchReport,
    played: &[varia_lab::Played],
) -> Result<(), Fail> {
    let mut out = String::new();
    for p in played {
        let mut g = Game::with_seed(v.clone(), p.seed);
        for a in &p.actions {
            g.apply(*a).map_err(|e| Fail(format!("game {}: {e}", p.index + 1)))?;
        }
        let mut record = g.to_pgn(&[]);
        record.set_tag("Event", "varia selfplay");
        record.set_tag("Site", "?");
        record.set_tag("Round", (p.index + 1).to_string());
        record.set_tag("White", report.white.clone());
        record.set_tag("Black", report.black.clone());
        if p.summary.ending == Ending::Cap {
            record.set_tag("Termination", "unterminated");
            if let Some(last) = record.moves.last_mut() {
                last.comments.push(format!("stopped by the turn cap of {} plies", report.max_plies));
            }
        }
        out.push_str(&pgn::write(&record));
        out.push('\n');
    }
    let mut f = std::fs::File::create(path).map_err(|e| Fail(format!("{}: {e}", path.display())))?;
    f.write_all(out.as_bytes()).map_err(|e| Fail(format!("{}: {e}", path.display())))?;
    Ok(())
}
