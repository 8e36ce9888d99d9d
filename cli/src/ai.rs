//! `varia move`: the computer player on the command line.
//!
//! The chosen action on the last line of stdout (alone, like perft's count); depth,
//! score, nodes and time on stderr. (`varia match` is in `matches.rs`.)

use std::time::Instant;

use varia::Game;
use varia::search::{Clock, SearchResult};

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
