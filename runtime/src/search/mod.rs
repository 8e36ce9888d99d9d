//! The computer player, for every two-sided variant: iterative-deepening alpha-beta
//! with a transposition table, move ordering and quiescence; evaluation weights and
//! levels from `[ai]` in variant.toml ([`AiConfig`]).
//!
//! Two back ends run the same search (`engine.rs`):
//! - **fast** (`fast.rs`): on the bare position and its move tables, copy-make,
//!   monomorphised per board width; used when the variant has no hooks;
//! - **slow** (`slow.rs`): on a whole [`Game`](crate::Game), every action through the
//!   pipeline and taken back with `undo`; used when hooks may change legality, keep
//!   state or end the game, or when a rule counts what the bare position does not keep
//!   (`draws.royal_repeat`).
//!
//! Randomness (a level's `noise`) comes only from a seed, and time only from a
//! deadline the caller gives: with no deadline, the same position, level and seed give
//! the same action. The entry point is [`Game::best_action`](crate::Game::best_action).

pub mod config;
mod engine;
pub(crate) mod eval;
pub(crate) mod fast;
pub mod opponent;
pub(crate) mod slow;
pub mod solo;
mod tt;
pub mod tune;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use thiserror::Error;

use crate::action::Action;
use crate::error::Problem;
use crate::hooks::ScriptError;

pub use config::{AiConfig, Level, Weights};
pub(crate) use eval::Evaluator;

/// Which back end searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The bare position (variants without hooks).
    Fast,
    /// The whole game, hooks included.
    Slow,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Fast => "fast",
            Backend::Slow => "slow",
        }
    }
}

/// The computer player's choice and how it was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The action to play: always one of the game's legal actions.
    pub action: Action,
    /// Its score for the side to move, in centipawns (without the level's noise).
    pub score: i32,
    /// A forced mate, in moves: positive when the side to move mates, negative when it
    /// is mated.
    pub mate: Option<i32>,
    /// The last depth searched completely (plies).
    pub depth: u32,
    /// The deepest ply reached (extensions and quiescence included).
    pub seldepth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// The principal variation: the expected line, starting with `action`.
    pub pv: Vec<Action>,
    /// Whether a budget (time or nodes) stopped deepening before the level's depth.
    pub stopped: bool,
    pub backend: Backend,
}

/// How long the computer player may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// No clock: only depth and node budgets (reproducible; what tests use).
    Off,
    /// The level's own `time_ms`, counted from this instant.
    Budget(Instant),
    /// Stop deepening at this instant, whatever the level says.
    Deadline(Instant),
    /// A game clock's share (UCI `wtime`, XBoard `time`): no new iteration starts past
    /// `soft`, and the search stops at `hard`.
    Window { soft: Instant, hard: Instant },
}

impl Clock {
    /// The deadline for `level`, if any.
    pub fn deadline(self, level: &Level) -> Option<Instant> {
        self.limits(level).1
    }

    /// When to stop starting iterations, and when to stop, for `level`.
    pub fn limits(self, level: &Level) -> (Option<Instant>, Option<Instant>) {
        match self {
            Clock::Off => (None, None),
            Clock::Budget(start) if level.time_ms > 0 => {
                let d = start + std::time::Duration::from_millis(level.time_ms);
                (Some(d), Some(d))
            }
            Clock::Budget(_) => (None, None),
            Clock::Deadline(d) => (Some(d), Some(d)),
            Clock::Window { soft, hard } => (Some(soft.min(hard)), Some(hard)),
        }
    }
}

/// A transposition table kept from one search to the next (an engine session's `Hash`),
/// with the search's action histories: what was learnt about positions and actions stays
/// for the next move. Searches that are given none use a fresh table of their own.
pub struct HashTable(tt::Table, engine::Heuristics);

impl HashTable {
    /// A table of at most `megabytes` (16 bytes an entry, a power of two of them; at
    /// least 1024 entries). The histories come on top (16 MB at most, 1 to 4 for chess-sized boards).
    pub fn with_megabytes(megabytes: usize) -> HashTable {
        HashTable(tt::Table::new(tt::bits_for(megabytes)), engine::Heuristics::default())
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.0.clear();
        self.1.clear();
    }

    /// The transposition table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.0.bytes()
    }

    /// How full it is, per thousand (UCI's `hashfull`).
    pub fn permille(&self) -> u32 {
        self.0.permille()
    }
}

impl std::fmt::Debug for HashTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HashTable({} bytes)", self.bytes())
    }
}

/// What a search may be given besides the position and the level: the seed of the
/// level's noise, the clock, a flag that stops it from another thread, a listener for
/// each finished iteration, and a table to keep between searches.
#[derive(Default)]
pub struct Think<'a> {
    pub seed: u64,
    /// None: [`Clock::Off`].
    pub clock: Option<Clock>,
    /// Set (from another thread) to stop: the best action found so far is returned.
    pub stop: Option<&'a AtomicBool>,
    /// Called after every finished iteration (and when the search ends) with the result
    /// so far: what an engine protocol reports as `info`.
    pub progress: Option<&'a dyn Fn(&SearchResult)>,
    /// The transposition table to use and keep; without one, a fresh table.
    pub table: Option<&'a mut HashTable>,
}

/// Why the computer player could not choose.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AiError {
    /// `[ai]` in variant.toml has problems.
    #[error("{}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
    Config(Vec<Problem>),
    /// No level of that name.
    #[error("{0}")]
    UnknownLevel(String),
    #[error("the game is over ({0})")]
    GameOver(String),
    /// The side to move has no legal action (and the rules declared no outcome).
    #[error("the side to move has no legal action")]
    NoAction,
    /// `filter_actions` failed at the root.
    #[error("{0} (in hook `{hook}`)", hook = .0.hook)]
    Script(ScriptError),
}

/// What the search needs besides the position: built by `Game::think`.
pub(crate) struct Job<'a> {
    pub level: &'a Level,
    pub evaluator: &'a Evaluator,
    pub seed: u64,
    /// No new iteration starts past it.
    pub soft: Option<Instant>,
    /// The search stops at it.
    pub deadline: Option<Instant>,
    /// Hashes of the game's positions, the current one last.
    pub history: &'a [u64],
    pub stop: Option<&'a AtomicBool>,
    pub progress: Option<&'a dyn Fn(&SearchResult)>,
    pub table: Option<&'a mut HashTable>,
}

impl Job<'_> {
    /// Runs `f` with the caller's table and histories, or fresh ones (a table of
    /// `2^bits` entries).
    pub(crate) fn with_table<R>(
        &mut self,
        bits: u32,
        f: impl FnOnce(&mut tt::Table, &mut engine::Heuristics) -> R,
    ) -> R {
        match self.table.as_deref_mut() {
            Some(HashTable(t, h)) => f(t, h),
            None => f(&mut tt::Table::new(bits), &mut engine::Heuristics::default()),
        }
    }
}
