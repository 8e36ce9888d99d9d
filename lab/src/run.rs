//! The batch runner: AI-against-AI (or random) games of one variant in parallel.
//!
//! Each game's generator is seeded from the batch's seed and the game's index alone
//! ([`game_seed`]), and results are gathered in index order, so the same batch gives
//! the same games with any number of threads. Games are played on the lean playout path
//! ([`varia::Playout`]); the AI searches with no clock (depth and node budgets only), so
//! its moves are reproducible too.

use std::sync::Arc;

use rayon::prelude::*;
use varia::rng::Rng;
use varia::search::{AiConfig, Clock};
use varia::{Action, Game, GameResult, Hook, Playout, Side, Variant};

use crate::LabError;
use crate::metrics::{Ending, Summary};

/// Who chooses a side's actions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Player {
    /// A uniformly random legal action.
    Random,
    /// A level of the variant's `[ai]`.
    Level(String),
}

impl Player {
    /// `random`, or a level's name.
    pub fn parse(text: &str) -> Player {
        if text == "random" { Player::Random } else { Player::Level(text.to_string()) }
    }

    pub fn name(&self) -> &str {
        match self {
            Player::Random => "random",
            Player::Level(l) => l,
        }
    }
}

/// What a batch plays.
#[derive(Clone, Debug)]
pub struct Batch {
    pub games: u64,
    pub white: Player,
    pub black: Player,
    pub seed: u64,
    /// Threads (1: this one).
    pub jobs: usize,
    /// The lab's turn cap: a game still open after this many plies is a timeout.
    pub max_plies: u32,
    /// Keep every game's actions (for PGN).
    pub keep_actions: bool,
    /// Take the evaluation at every state (for lead changes and decisiveness).
    pub evaluate: bool,
}

/// One game played.
#[derive(Clone, Debug)]
pub struct Played {
    pub index: u64,
    pub seed: u64,
    pub summary: Summary,
    /// The actions, when the batch keeps them.
    pub actions: Vec<Action>,
}

/// The generator seed of game `index` of a batch seeded `base`: SplitMix64 of both,
/// so neighbouring indices get unrelated streams.
pub fn game_seed(base: u64, index: u64) -> u64 {
    let mut r = Rng::new(base ^ Rng::new(index).next_u64());
    r.next_u64()
}

/// Whether the variant keeps scores (so they, not material, say who leads).
fn scored(v: &Variant) -> bool {
    v.scoring.is_some() || v.hooks.as_ref().is_some_and(|h| h.defines(Hook::Score))
}

/// The variant with a Lua state of the game's own when its hooks are scripts. Games
/// sharing one state take turns in their hooks (one call at a time), and state a script
/// keeps outside the game (upvalues) would carry over from one game to the next in
/// whatever order the threads took them; a fresh state per game runs hooks in parallel
/// and keeps every game independent of the others and of the thread count. Hooks
/// written in Rust are the embedder's, shared as they are.
fn own_state(v: &Arc<Variant>) -> Result<Arc<Variant>, LabError> {
    if v.hooks.is_none() || v.scripts.is_empty() {
        return Ok(v.clone());
    }
    Ok(v.with_own_hooks()?)
}

/// Plays game `index` of the batch.
pub fn play_one(v: &Arc<Variant>, ai: &AiConfig, batch: &Batch, index: u64) -> Result<Played, LabError> {
    let v = &own_state(v)?;
    let seed = game_seed(batch.seed, index);
    let mut rng = Rng::new(seed);
    let mut p =
        Playout::new(Game::with_seed(v.clone(), seed)).map_err(|e| LabError::Rule { game: index, ply: 0, error: e })?;
    let scored = scored(v);
    let mut evals = Vec::new();
    let mut actions = Vec::new();
    let eval = |p: &mut Playout, ply: u32| -> Result<i64, LabError> {
        if scored {
            let s = p.game().scores();
            return Ok(s[0].saturating_sub(s[1]));
        }
        p.evaluate_white().map(i64::from).map_err(|e| LabError::Ai { game: index, ply, error: e })
    };
    if batch.evaluate {
        evals.push(eval(&mut p, 0)?);
    }
    let mut ply = 0u32;
    while p.outcome().is_none() && ply < batch.max_plies {
        if !p.has_legal() {
            // No action and no outcome: only a hook can leave a game so; it is a rule's end.
            break;
        }
        let player = if p.game().to_move() == Side::White { &batch.white } else { &batch.black };
        let played = match player {
            // A uniform draw among the legal actions (`Playout::play_random`).
            Player::Random => p.play_random(&mut rng).map_err(|e| LabError::Rule { game: index, ply, error: e })?,
            Player::Level(name) => {
                let level = ai.level(name).map_err(LabError::UnknownLevel)?;
                let r = p.game().search(ai, level, rng.next_u64(), Clock::Off).map_err(|e| LabError::Ai {
                    game: index,
                    ply,
                    error: e,
                })?;
                let index_of = p.legal().iter().position(|a| *a == r.action).ok_or(LabError::Ai {
                    game: index,
                    ply,
                    error: varia::search::AiError::NoAction,
                })?;
                p.apply(index_of).map_err(|e| LabError::Rule { game: index, ply, error: e })?;
                Some(r.action)
            }
        };
        let Some(action) = played else { break };
        if batch.keep_actions {
            actions.push(action);
        }
        ply += 1;
        if batch.evaluate {
            evals.push(eval(&mut p, ply)?);
        }
    }
    let ending = match p.outcome() {
        Some(o) => match o.result {
            GameResult::Win(side) => Ending::Win { side, reason: o.reason.name().to_string() },
            GameResult::Draw => Ending::Draw { reason: o.reason.name().to_string() },
        },
        None if ply >= batch.max_plies => Ending::Cap,
        None => Ending::Draw { reason: "no_action".into() },
    };
    Ok(Played { index, seed, summary: Summary { ending, plies: ply, evals }, actions })
}

/// Plays every game of the batch on `jobs` threads; `tick` is called after each game
/// (from any thread). Results come in index order whatever the threads did.
pub fn play(v: &Arc<Variant>, batch: &Batch, tick: &(dyn Fn() + Sync)) -> Result<Vec<Played>, LabError> {
    let ai = AiConfig::from_variant(v).map_err(|p| LabError::Ai {
        game: 0,
        ply: 0,
        error: varia::search::AiError::Config(p),
    })?;
    for player in [&batch.white, &batch.black] {
        if let Player::Level(name) = player {
            ai.level(name).map_err(LabError::UnknownLevel)?;
        }
    }
    let one = |i: u64| {
        let r = play_one(v, &ai, batch, i);
        tick();
        r
    };
    if batch.jobs <= 1 {
        return (0..batch.games).map(one).collect();
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(batch.jobs)
        .build()
        .map_err(|e| LabError::Threads(e.to_string()))?;
    pool.install(|| (0..batch.games).into_par_iter().map(one).collect())
}
