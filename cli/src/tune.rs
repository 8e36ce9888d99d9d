//! `varia tune`: tunes a variant's `[ai]` weights (and, if asked, some kinds' values)
//! from data, with Texel's method (`varia::search::tune`). The data are positions from
//! seeded self-play games, each scored by an oracle engine over UCI (Fairy-Stockfish by
//! default) at a fixed depth; they are written to `--data` once and read from it after.
//! Prints the losses and the tuned table, ready for variant.toml.

use std::collections::HashSet;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use varia::rng::Rng;
use varia::search::tune::{self, Param, Sample};
use varia::search::{AiConfig, Clock};
use varia::variant::Override;
use varia::{Game, Variant};

use crate::uci_client::{UciEngine, UciFailure};
use crate::{Fail, VariantArg};

#[derive(clap::Args)]
pub struct TuneArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Labelled positions, a line each: a FEN, a tab, the target score (centipawns for
    /// the side to move). Read if the file exists; otherwise made (self-play, scored by
    /// the oracle) and written there.
    #[arg(long, value_name = "FILE")]
    data: PathBuf,
    /// Self-play games to take positions from (when --data does not exist yet).
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Random plies at the start of each game (for variety).
    #[arg(long, default_value_t = 6)]
    random_plies: usize,
    /// Take every Nth position of a game (after the random plies).
    #[arg(long, default_value_t = 3)]
    every: usize,
    /// A game stops after this many plies.
    #[arg(long, default_value_t = 160)]
    max_plies: usize,
    /// The level that plays the self-play games.
    #[arg(long, default_value = "novice")]
    level: String,
    /// The oracle: a UCI engine's command.
    #[arg(long, default_value = "/usr/games/fairy-stockfish")]
    oracle: String,
    /// The oracle's search depth (plies).
    #[arg(long, default_value_t = 8)]
    depth: u32,
    /// The seed of the self-play games.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Self-play games played at once (default: one per core); the positions do not
    /// depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Passes over the parameters, at most.
    #[arg(long, default_value_t = 12)]
    passes: usize,
    /// Tune only these weights (comma-separated `[ai]` keys; default: all but material).
    #[arg(long, value_delimiter = ',')]
    weights: Vec<String>,
    /// Tune these kinds' values too (comma-separated kind names): --values queen,rook.
    #[arg(long, value_delimiter = ',')]
    values: Vec<String>,
    /// Tune the per-kind square tables and mobility weights (`[ai.pieces.<kind>]`,
    /// every kind) instead of the weights, by gradient descent on the quiet positions;
    /// prints the tables for variant.toml.
    #[arg(long)]
    tables: bool,
    /// With --tables: passes over the positions.
    #[arg(long, default_value_t = 800)]
    epochs: usize,
    /// With --tables: the step, in centipawns.
    #[arg(long, default_value_t = 1.0)]
    rate: f64,
    /// With --tables: weight decay toward the starting tables.
    #[arg(long, default_value_t = 1e-7)]
    l2: f64,
    /// With --tables: print the N positions the tuned evaluation misses most (FEN, its
    /// score, the oracle's), as comments.
    #[arg(long, default_value_t = 0, value_name = "N")]
    worst: usize,
}

pub fn run(args: TuneArgs) -> Result<(), Fail> {
    if args.every == 0 {
        return Err(Fail("--every must be at least 1".into()));
    }
    let v = args.variant.load()?;
    let config =
        AiConfig::from_variant(&v).map_err(|p| Fail(p.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n")))?;
    let samples = if args.data.exists() {
        read(&args.data)?
    } else {
        let fens = positions(&v, &config, &args)?;
        eprintln!("{} positions from {} games; scoring them at depth {}…", fens.len(), args.games, args.depth);
        let samples = label(&v, &fens, &args)?;
        write(&args.data, &samples)?;
        eprintln!("{} scored positions written to {}", samples.len(), args.data.display());
        samples
    };
    if samples.is_empty() {
        return Err(Fail(format!("no positions in {}", args.data.display())));
    }
    if args.tables {
        return tables(&v, &config, &samples, &args);
    }
    let mut params: Vec<Param> = if args.weights.is_empty() {
        Param::weights()
    } else {
        let mut ps = Vec::new();
        for w in &args.weights {
            let key = varia::search::config::WEIGHT_KEYS.iter().find(|&&k| k == w.as_str()).ok_or_else(|| {
                Fail(format!("no weight `{w}`; the weights are {}", varia::search::config::WEIGHT_KEYS.join(", ")))
            })?;
            ps.push(Param::Weight(key));
        }
        ps
    };
    params.extend(args.values.iter().map(|k| Param::Value(k.clone())));
    let base = args.variant.clone();
    let load = move |values: &[(String, i32)]| -> Result<Arc<Variant>, String> {
        let mut overrides = Vec::new();
        for s in &base.set {
            overrides.push(s.parse::<Override>().map_err(|e| e.to_string())?);
        }
        for (kind, value) in values {
            overrides.push(format!("pieces.{kind}.value={value}").parse::<Override>().map_err(|e| e.to_string())?);
        }
        Variant::load_with(&base.variant, &overrides).map_err(|e| e.to_string())
    };
    let t = std::time::Instant::now();
    let tuned = tune::tune(&load, &samples, config.weights, &params, args.passes, None, &mut |pass, loss| {
        eprintln!("pass {pass}: loss {loss:.6} ({:.1} s)", t.elapsed().as_secs_f64())
    })
    .map_err(Fail)?;
    println!(
        "# varia tune {}: {} positions (oracle depth {}), k = {:.2}, loss {:.6} -> {:.6}, {} evaluations, {:.1} s",
        v.name,
        tuned.samples,
        args.depth,
        tuned.k,
        tuned.loss_before,
        tuned.loss_after,
        tuned.evaluations,
        t.elapsed().as_secs_f64()
    );
    for (key, from, to) in &tuned.changes {
        println!("# {key}: {from} -> {to}");
    }
    println!("[ai]");
    for p in &params {
        if let Param::Weight(key) = p {
            println!("{key} = {}", tuned.weights.get(key).unwrap_or(0));
        }
    }
    for (kind, value) in &tuned.values {
        println!("\n[pieces.{kind}]\nvalue = {value}");
    }
    Ok(())
}

/// Positions from seeded self-play: `random_plies` random actions, then the level's.
/// Games are played on `--jobs` threads (as the balance lab plays its batches); each is
/// seeded by its number and the positions are gathered in game order, so the result
/// does not depend on the threads.
fn positions(v: &Arc<Variant>, config: &AiConfig, args: &TuneArgs) -> Result<Vec<String>, Fail> {
    let level = *config.level(&args.level).map_err(Fail)?;
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Fail(format!("cannot start {jobs} threads: {e}")))?;
    let done = AtomicU64::new(0);
    let t = Instant::now();
    let games: Vec<Vec<String>> = pool.install(|| {
        (0..args.games)
            .into_par_iter()
            .map(|g| {
                let one = game_positions(v, config, &level, args, g);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                if n % 25 == 0 || n == args.games {
                    eprintln!("self-play: {n}/{} games ({:.0} s)", args.games, t.elapsed().as_secs_f64());
                }
                one
            })
            .collect::<Result<_, Fail>>()
    })?;
    let mut seen = HashSet::new();
    Ok(games.into_iter().flatten().filter(|fen| seen.insert(fen.clone())).collect())
}

/// The positions one self-play game (number `g`) gives.
fn game_positions(
    v: &Arc<Variant>,
    config: &AiConfig,
    level: &varia::search::Level,
    args: &TuneArgs,
    g: u64,
) -> Result<Vec<String>, Fail> {
    let seed = args.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(g);
    let mut rng = Rng::new(seed);
    let mut game = Game::new(v.clone());
    let mut fens = Vec::new();
    for ply in 0..args.max_plies {
        if game.outcome().is_some() {
            break;
        }
        let legal = game.legal_actions();
        if legal.is_empty() {
            break;
        }
        if ply >= args.random_plies && (ply - args.random_plies) % args.every == 0 {
            fens.push(game.fen());
        }
        let action = if ply < args.random_plies {
            legal[rng.below(legal.len() as u64) as usize]
        } else {
            game.search(config, level, rng.next_u64(), Clock::Off).map_err(|e| Fail(e.to_string()))?.action
        };
        game.apply(action).map_err(|e| Fail(e.to_string()))?;
    }
    Ok(fens)
}

/// Each position with the oracle's score; positions it scores as mates (or not at all)
/// are left out.
fn label(v: &Arc<Variant>, fens: &[String], args: &TuneArgs) -> Result<Vec<Sample>, Fail> {
    let mut oracle = UciEngine::start(&args.oracle, &[])?;
    oracle.set_variant(v)?;
    oracle.new_game()?;
    let mut out = Vec::new();
    let t = Instant::now();
    for (i, fen) in fens.iter().enumerate() {
        if (i + 1) % 2000 == 0 {
            eprintln!("scored {}/{} ({:.0} s)", i + 1, fens.len(), t.elapsed().as_secs_f64());
        }
        let score = oracle.score_at_depth(fen, args.depth).map_err(|e| {
            Fail(match e {
                UciFailure::Time => format!("the oracle gave no answer for {fen}"),
                UciFailure::Illegal(why) | UciFailure::Gone(why) => format!("the oracle failed on {fen}: {why}"),
            })
        })?;
        if let Some(s) = score
            && s.abs() < 50_000
        {
            out.push(Sample { fen: fen.clone(), target: s });
        }
    }
    Ok(out)
}

fn read(path: &PathBuf) -> Result<Vec<Sample>, Fail> {
    let text = std::fs::read_to_string(path).map_err(|e| Fail(format!("{}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || Fail(format!("{}:{}: expected a FEN, a tab and a score in centipawns", path.display(), i + 1));
        let (fen, score) = line.rsplit_once('\t').ok_or_else(bad)?;
        let target = score.trim().parse::<i32>().map_err(|_| bad())?;
        out.push(Sample { fen: fen.trim().to_string(), target });
    }
    Ok(out)
}

fn write(path: &PathBuf, samples: &[Sample]) -> Result<(), Fail> {
    let mut f = std::fs::File::create(path).map_err(|e| Fail(format!("{}: {e}", path.display())))?;
    for s in samples {
        writeln!(f, "{}\t{}", s.fen, s.target)?;
    }
    Ok(())
}

/// `--tables`: the per-kind terms, tuned and printed as `[ai.pieces.<kind>]` tables.
fn tables(v: &Arc<Variant>, config: &AiConfig, samples: &[Sample], args: &TuneArgs) -> Result<(), Fail> {
    if args.epochs == 0 || !(args.rate > 0.0 && args.rate.is_finite()) || !(args.l2 >= 0.0 && args.l2.is_finite()) {
        return Err(Fail("--epochs must be at least 1, --rate above 0 and --l2 at least 0".into()));
    }
    let options = tune::TableOptions { epochs: args.epochs, rate: args.rate, l2: args.l2, worst: args.worst };
    let t = std::time::Instant::now();
    let tuned = tune::tune_tables(v, config, samples, &options, &mut |epoch, loss| {
        eprintln!("epoch {epoch}: loss {loss:.6} ({:.1} s)", t.elapsed().as_secs_f64())
    })
    .map_err(Fail)?;
    println!(
        "# varia tune {} --tables: {} quiet positions of {} (oracle depth {}), k = {:.2}, loss {:.6} -> {:.6}, {} epochs, {:.1} s",
        v.name,
        tuned.samples,
        tuned.samples + tuned.skipped,
        args.depth,
        tuned.k,
        tuned.loss_before,
        tuned.loss_after,
        args.epochs,
        t.elapsed().as_secs_f64()
    );
    for (fen, score, target) in &tuned.worst {
        println!("# worst: {fen}  varia {score}, oracle {target}");
    }
    println!("\n[ai]\nthreat = {}\npawn_threat = {}", tuned.weights.threat, tuned.weights.pawn_threat);
    print!("{}", pieces_toml(v, &tuned.pieces));
    Ok(())
}

/// `[ai.pieces.<kind>]` tables as variant.toml writes them: square tables in diagram
/// order (the top rank first), a rank a line.
fn pieces_toml(v: &Variant, pieces: &[varia::search::config::PieceTerms]) -> String {
    let g = v.geometry;
    let mut out = String::new();
    for (kind, p) in v.kinds.iter().zip(pieces) {
        if p.is_zero() {
            continue;
        }
        out.push_str(&format!("\n[ai.pieces.{}]\n", kind.name));
        if p.mobility_mg != 0 || p.mobility_eg != 0 {
            out.push_str(&format!("mobility_mg = {}\nmobility_eg = {}\n", p.mobility_mg, p.mobility_eg));
        }
        for (key, value) in [("danger_attack", p.danger_attack), ("danger_check", p.danger_check)] {
            if let Some(x) = value {
                out.push_str(&format!("{key} = {x}\n"));
            }
        }
        for (key, table) in [("square_mg", &p.square_mg), ("square_eg", &p.square_eg)] {
            if table.iter().all(|&x| x == 0) {
                continue;
            }
            out.push_str(&format!("{key} = [\n"));
            // Diagram order (the top rank first): entry j is square j mirrored, as the
            // loader reads it.
            let cells: Vec<String> = g.squares().map(|sq| format!("{:4}", table[g.mirror(sq).index()])).collect();
            for row in cells.chunks(g.files as usize) {
                out.push_str(&format!("  {},\n", row.join(",")));
            }
            out.push_str("]\n");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        tune: TuneArgs,
    }

    fn args(jobs: usize) -> TuneArgs {
        let jobs = jobs.to_string();
        let argv = ["tune", "standard", "--data", "unused.tsv", "--games", "5", "--max-plies", "24"];
        Cli::try_parse_from(argv.iter().copied().chain(["--random-plies", "4", "--every", "2", "--jobs", &jobs]))
            .map(|c| c.tune)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn self_play_positions_do_not_depend_on_the_threads() {
        let one = args(1);
        let v = one.variant.load().unwrap_or_else(|e| panic!("{}", e.0));
        let config = AiConfig::from_variant(&v).unwrap_or_else(|_| panic!("standard's [ai]"));
        // The games one by one, in order, duplicates left out: what the file holds.
        let level = *config.level("novice").unwrap_or_else(|e| panic!("{e}"));
        let mut expected = Vec::new();
        for g in 0..5 {
            for fen in game_positions(&v, &config, &level, &one, g).unwrap_or_else(|e| panic!("{}", e.0)) {
                if !expected.contains(&fen) {
                    expected.push(fen);
                }
            }
        }
        // 5 games, positions from ply 4 on every second ply, up to 24 plies: at most 50.
        assert!(expected.len() > 20 && expected.len() <= 50, "{}", expected.len());
        for jobs in [1, 2, 3, 8] {
            let got = positions(&v, &config, &args(jobs)).unwrap_or_else(|e| panic!("{}", e.0));
            assert_eq!(got, expected, "--jobs {jobs}");
        }
    }
}
