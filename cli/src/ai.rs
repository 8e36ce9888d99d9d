//! `varia move` and `varia match`: the computer player on the command line.
//!
//! - `move`: the chosen action on the last line of stdout (alone, like perft's count);
//!   depth, score, nodes and time on stderr.
//! - `match`: two levels play a series with alternating colours (level A is white in
//!   the even games, counting from 0); a line per game, then each level's score
//!   (win 1, draw ½) in percent.

use std::time::Instant;

use varia::rng::Rng;
use varia::search::{AiConfig, Clock, Level, SearchResult};
use varia::{Game, GameResult, Side};

use crate::{Fail, Start, VariantArg, start_game};

#[derive(clap::Args)]
pub struct MoveArgs {
    #[command(flatten)]
    variant: VariantArg,
    #[command(flatten)]
    start: Start,
    /// Moves to play first (several may share one argument, separated by spaces).
    moves: Vec<String>,
    /// A level of `[ai.levels]` (novice, veteran, master by default).
    #[arg(long, default_value = "master")]
    level: String,
    /// The seed of the level's random noise: the same seed, the same move.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Ignore the level's time budget (depth and node limits only: reproducible).
    #[arg(long)]
    no_clock: bool,
}

#[derive(clap::Args)]
pub struct MatchArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Level A: white in games 0, 2, 4…
    #[arg(long)]
    white: String,
    /// Level B: black in games 0, 2, 4…
    #[arg(long)]
    black: String,
    /// The number of games.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// The match's seed (each game and move derives its own from it).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// A game still going after this many plies is scored a draw.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Start every game from this FEN instead of the variant's setup.
    #[arg(long)]
    fen: Option<String>,
    /// Ignore the levels' time budgets (depth and node limits only: reproducible).
    #[arg(long)]
    no_clock: bool,
}

fn pv_text(game: &Game, r: &SearchResult) -> String {
    // The line is written from the root, so each action is formatted as it comes.
    r.pv.iter().map(|a| game.format(a)).collect::<Vec<_>>().join(" ")
}

fn score_text(game: &Game, r: &SearchResult) -> String {
    match r.mate {
        // Without the check rule a forced end is a win or a loss, never a mate.
        Some(m) if !game.variant().rules.check && m > 0 => format!("win in {m}"),
        Some(m) if !game.variant().rules.check => format!("loss in {}", -m),
        Some(m) => format!("mate {m}"),
        None => format!("{:+}", r.score),
    }
}

pub fn run_move(args: MoveArgs) -> Result<(), Fail> {
    let v = args.variant.load()?;
    let mut game = start_game(v.clone(), &args.start)?;
    let moves: Vec<&str> =
        args.moves.iter().flat_map(|m| m.split([' ', ',', '\n'])).filter(|m| !m.is_empty()).collect();
    for (i, m) in moves.iter().enumerate() {
        game.play(m).map_err(|e| Fail(format!("move {} (`{m}`): {e}", i + 1)))?;
    }
    let clock = if args.no_clock { Clock::Off } else { Clock::Budget(Instant::now()) };
    let t = Instant::now();
    let r = game.best_action(&args.level, args.seed, clock)?;
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{} ({} back end): depth {}{}, seldepth {}, score {}, nodes {}, {:.3} s ({:.2} M nodes/s)",
        args.level,
        r.backend.name(),
        r.depth,
        if r.stopped { " (budget spent)" } else { "" },
        r.seldepth,
        score_text(&game, &r),
        r.nodes,
        secs,
        r.nodes as f64 / secs.max(1e-9) / 1e6
    );
    eprintln!("pv: {}", pv_text(&game, &r));
    println!("{}", game.action_text(&r.action));
    Ok(())
}

/// Each level's points, in half points (a win is 2, a draw 1).
struct Tally {
    halves: [u32; 2],
    wins: [u32; 2],
    draws: u32,
}

pub fn run_match(args: MatchArgs) -> Result<(), Fail> {
    let v = args.variant.load()?;
    let config = AiConfig::from_variant(&v).map_err(varia::search::AiError::Config)?;
    let levels: [(&str, &Level); 2] = [
        (&args.white, config.level(&args.white).map_err(Fail)?),
        (&args.black, config.level(&args.black).map_err(Fail)?),
    ];
    let names = [levels[0].0.to_string(), levels[1].0.to_string()];
    let label =
        |i: usize| if names[0] == names[1] { format!("{} ({})", names[i], ["A", "B"][i]) } else { names[i].clone() };
    let mut tally = Tally { halves: [0; 2], wins: [0; 2], draws: 0 };
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let started = Instant::now();
    for g in 0..args.games {
        // Level A is white in even games.
        let white = if g % 2 == 0 { 0 } else { 1 };
        let mut game = match &args.fen {
            Some(f) => Game::from_fen(v.clone(), f).map_err(|e| Fail(format!("bad FEN: {e}")))?,
            None => Game::new(v.clone()),
        };
        let mut game_seed = Rng::new(args.seed ^ (g as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let mut plies = 0;
        while game.outcome().is_none() && plies < args.max_plies {
            let who = if game.to_move() == Side::White { white } else { 1 - white };
            let (_, level) = levels[who];
            let clock = if args.no_clock { Clock::Off } else { Clock::Budget(Instant::now()) };
            let t = Instant::now();
            let r = game.search(&config, level, game_seed.next_u64(), clock)?;
            times[who].push(t.elapsed().as_secs_f64());
            game.apply(r.action).map_err(|e| Fail(format!("game {}: the AI chose an illegal action: {e}", g + 1)))?;
            plies += 1;
        }
        let (result, why) = match game.outcome() {
            Some(o) => (o.result, o.describe()),
            None => (GameResult::Draw, format!("draw by the {}-ply limit", args.max_plies)),
        };
        let text = match result {
            GameResult::Win(Side::White) => "1-0",
            GameResult::Win(Side::Black) => "0-1",
            GameResult::Draw => "1/2-1/2",
        };
        match result {
            GameResult::Draw => {
                tally.halves[0] += 1;
                tally.halves[1] += 1;
                tally.draws += 1;
            }
            GameResult::Win(side) => {
                let winner = if side == Side::White { white } else { 1 - white };
                tally.halves[winner] += 2;
                tally.wins[winner] += 1;
            }
        }
        println!(
            "game {:>3}: {} (white) vs {} (black): {text} ({why}, {plies} plies)",
            g + 1,
            label(white),
            label(1 - white)
        );
    }
    let n = args.games.max(1) as f64;
    println!("after {} games ({:.0} s):", args.games, started.elapsed().as_secs_f64());
    for (i, t) in times.iter().enumerate() {
        let mut t = t.clone();
        t.sort_by(|a, b| a.total_cmp(b));
        let median = t.get(t.len() / 2).copied().unwrap_or(0.0);
        let longest = t.last().copied().unwrap_or(0.0);
        println!(
            "{:<16} {:>5.1}/{} = {:>5.1}%  (+{} ={} -{}; median move {:.0} ms, longest {:.0} ms)",
            label(i),
            tally.halves[i] as f64 / 2.0,
            args.games,
            tally.halves[i] as f64 / 2.0 / n * 100.0,
            tally.wins[i],
            tally.draws,
            tally.wins[1 - i],
            median * 1e3,
            longest * 1e3
        );
    }
    Ok(())
}
