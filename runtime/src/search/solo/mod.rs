//! Solving solo boards, for any solo variant: can a board be completed (forged), by
//! which route, and which route scores most; and dealing boards that can be forged.
//!
//! [`solve`] works from a game's current position within [`Limits`] (nodes, and a
//! deadline for interactive use; dealing uses nodes only, so every machine deals the
//! same board), in two parts:
//! 1. **the decision** (`decide.rs`): a depth-first search for a forging route that
//!    checks necessary conditions at every node (`walk.rs`: reachability and order;
//!    `prune.rs`: a matching of every strike still to come to a predecessor, which
//!    covers the counting and parity arguments; `end.rs`: the sinks among the squares'
//!    top layers, each of which must hold the final strike or be rescued by the layer
//!    rule's piece), tries first the square with the fewest ways in to spare (cells
//!    still to strike that reach it, less the strikes it still needs), restarts with
//!    other tie-breaks (Luby's sequence of allowances), and remembers refuted
//!    positions, keyed by where the next strike may land rather than by the strike that
//!    led there. The verdict is *forged* with a route, *impossible* only when the whole
//!    tree was refuted, or *undecided* when the limits stopped it first;
//! 2. **the best score** (`best.rs`): branch and bound over every route (cooled ones
//!    too), time score excluded, with the rest of the budget; an upper bound on what the
//!    strikes still to come can pay cuts the tree, and on small boards the search
//!    completes, so its best is the optimum.
//!
//! The search runs on its own compact board (`board.rs`: square sets, cells, strikes
//! made and taken back in place), the same rules as [`SoloGame`], route-dependent
//! pieces (a level's `layer_piece`, Master's wildcard) included. Nothing here names a
//! variant. With a node limit (and no deadline) the result depends only on the board
//! and the position.

mod best;
mod board;
mod decide;
mod end;
mod prune;
mod walk;

use std::sync::Arc;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::bits::{Bits, Wide};
use crate::geometry::Square;
use crate::rng::Rng;
use crate::scoring::Tenths;
use crate::solo::{Forge, SoloBoard, SoloGame, Status};

pub use best::greedy;

/// How far a search may go.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// The most positions to visit.
    pub nodes: Option<u64>,
    /// Wall-clock time (interactive use only: results then depend on the machine).
    pub time: Option<Duration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Forged,
    Impossible,
    Undecided,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Forged => "forged",
            Verdict::Impossible => "impossible",
            Verdict::Undecided => "undecided",
        }
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub verdict: Verdict,
    /// A forging route from the position searched (when forged).
    pub route: Vec<Square>,
    /// The best-scoring route found (time score excluded) and its points.
    pub best: Vec<Square>,
    pub best_score: Tenths,
    /// Whether the best route is proved the best (the score search completed).
    pub best_proved: bool,
    /// Positions visited, both parts together.
    pub nodes: u64,
    /// Positions the decision took.
    pub decision_nodes: u64,
    pub elapsed: Duration,
    /// The time the decision took.
    pub decision_elapsed: Duration,
}

/// The search's allowance of nodes and time, spent one node at a time.
pub(super) struct Budget {
    pub nodes: u64,
    max: Option<u64>,
    deadline: Option<Instant>,
    stopped: bool,
}

impl Budget {
    fn new(limits: Limits, start: Instant) -> Budget {
        Budget { nodes: 0, max: limits.nodes, deadline: limits.time.map(|t| start + t), stopped: false }
    }

    /// Counts a node; whether the search must stop.
    #[inline]
    pub fn spend(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        if self.max.is_some_and(|m| self.nodes > m)
            || (self.nodes % 1024 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.stopped = true;
        }
        self.stopped
    }

    pub fn stopped(&self) -> bool {
        self.stopped
    }
}

/// Decides the board of `game` from its current position, then looks for its
/// best-scoring route with what is left of `limits` (give one: the best-score search
/// on a full board does not end by itself).
pub fn solve(game: &SoloGame, limits: Limits) -> Solution {
    run_on(game, limits, Then::Rest)
}

/// The decision within `decision`, then the best-score search within `best`, each with
/// its own allowance.
pub fn solve_in(game: &SoloGame, decision: Limits, best: Limits) -> Solution {
    run_on(game, decision, Then::Own(best))
}

/// The decision alone: the verdict and a forging route (the best route is the forging
/// route, or none), within `limits`. What [`deal`] uses.
pub fn decide(game: &SoloGame, limits: Limits) -> Solution {
    run_on(game, limits, Then::Nothing)
}

/// How the decision searches: what `solve` and `decide` use, or what boards have
/// always been dealt with (frozen, so a seed deals the same board forever: a better
/// search forges some drawn boards within `solver_nodes` that the first one did not,
/// and would deal an earlier draw).
#[derive(Clone, Copy)]
struct Strategy {
    restarts: decide::Restarts,
    by_targets: bool,
    /// The conditions added after boards were first dealt (`end.rs`).
    checks: decide::Checks,
}

const SEARCH: Strategy = Strategy { restarts: decide::Restarts::Luby, by_targets: true, checks: decide::Checks::All };
const DEALING: Strategy =
    Strategy { restarts: decide::Restarts::Doubling, by_targets: false, checks: decide::Checks::Dealing };

/// What follows the decision.
#[derive(Clone, Copy)]
enum Then {
    Nothing,
    /// The best-score search, with what the decision left of its limits.
    Rest,
    Own(Limits),
}

fn run_on(game: &SoloGame, limits: Limits, then: Then) -> Solution {
    run_with(game, limits, then, SEARCH)
}

fn run_with(game: &SoloGame, limits: Limits, then: Then, how: Strategy) -> Solution {
    let n = game.board().squares();
    if n <= 64 {
        run::<u64>(game, limits, then, how)
    } else if n <= 128 {
        run::<u128>(game, limits, then, how)
    } else {
        run::<Wide>(game, limits, then, how)
    }
}

fn run<B: Bits>(game: &SoloGame, limits: Limits, then: Then, how: Strategy) -> Solution {
    let start = Instant::now();
    let points = game.score().points();
    let mut out = Solution {
        verdict: Verdict::Impossible,
        route: Vec::new(),
        best: Vec::new(),
        best_score: points,
        best_proved: false,
        nodes: 0,
        decision_nodes: 0,
        elapsed: Duration::ZERO,
        decision_elapsed: Duration::ZERO,
    };
    if game.status() != Status::Playing {
        out.verdict = if game.status() == Status::Forged { Verdict::Forged } else { Verdict::Impossible };
        out.best_proved = true;
        return out;
    }
    let p = board::Problem::<B>::new(game);
    let keys = board::Keys::new(p.n, p.layers, how.by_targets);
    let state = board::State::new(&p, &keys, game);
    let mut budget = Budget::new(limits, start);
    let found = {
        let mut d = decide::Decider::new(&p, &keys, state.clone(), &mut budget, how.restarts, how.checks);
        let found = d.run();
        if found == decide::Found::Forged {
            out.route = d.route.iter().map(|&s| Square(s)).collect();
        }
        found
    };
    out.verdict = match found {
        decide::Found::Forged => Verdict::Forged,
        decide::Found::Refuted => Verdict::Impossible,
        decide::Found::Stopped => Verdict::Undecided,
    };
    out.decision_nodes = budget.nodes;
    out.decision_elapsed = start.elapsed();
    // The forging route is the first incumbent of the score search.
    if !out.route.is_empty() {
        out.best = out.route.clone();
        out.best_score = best::route_points(game, &out.route);
    }
    if !matches!(then, Then::Nothing) {
        let (route, score) = best::greedy(game);
        if score > out.best_score || out.best.is_empty() && !route.is_empty() {
            out.best = route;
            out.best_score = score;
        }
    }
    let mut own;
    let best_budget = match then {
        Then::Nothing => None,
        Then::Rest => Some(&mut budget),
        Then::Own(l) => {
            own = Budget::new(l, Instant::now());
            Some(&mut own)
        }
    };
    let mut nodes = out.decision_nodes;
    if let Some(b) = best_budget {
        let before = b.nodes;
        let r = best::search(&p, &keys, state, game, b, (out.best_score, out.best.clone()));
        nodes += b.nodes - before;
        out.best_score = r.score;
        out.best = r.route;
        out.best_proved = r.proved;
    }
    out.nodes = nodes;
    out.elapsed = start.elapsed();
    out
}

/// The key the search files `game`'s position under (its table of refuted positions,
/// and with the score state the best-score search's): two positions with the same key
/// have the same future. For tests of which positions the search takes for one.
#[doc(hidden)]
pub fn position_key(game: &SoloGame) -> u128 {
    fn key<B: Bits>(game: &SoloGame) -> u128 {
        let p = board::Problem::<B>::new(game);
        let keys = board::Keys::new(p.n, p.layers, SEARCH.by_targets);
        keys.key(&p, &board::State::new(&p, &keys, game))
    }
    match game.board().squares() {
        0..=64 => key::<u64>(game),
        65..=128 => key::<u128>(game),
        _ => key::<Wide>(game),
    }
}

/// Whether the condition on sinks of last cells (`end.rs`) refutes the position of
/// `game` (which must be playing). For tests that check it against a plain search.
#[doc(hidden)]
pub fn sinks_refute(game: &SoloGame) -> bool {
    fn refutes<B: Bits>(game: &SoloGame) -> bool {
        let p = board::Problem::<B>::new(game);
        let keys = board::Keys::new(p.n, p.layers, SEARCH.by_targets);
        !end::Ends::new().ok(&p, &board::State::new(&p, &keys, game))
    }
    match game.board().squares() {
        0..=64 => refutes::<u64>(game),
        65..=128 => refutes::<u128>(game),
        _ => refutes::<Wide>(game),
    }
}

/// Why no board could be dealt.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DealError {
    #[error("no board that can be forged was found for seed {seed} in {attempts} draws")]
    NoForgeable { seed: u64, attempts: u32 },
    #[error("there is no level {level} (the variant has {levels})")]
    NoLevel { level: usize, levels: usize },
}

/// Deals the board of `seed` at `level`: with `raw` (or `guarantee_forgeable = false`)
/// the first board drawn; otherwise boards are drawn one after another from the
/// seed's generator until the decision proves one can be forged within
/// `[generation] solver_nodes` (an undecided board counts as not forgeable). The
/// decision here is the one boards were first dealt with (`DEALING`), not [`decide`].
pub fn deal(forge: &Arc<Forge>, level: usize, seed: u64, raw: bool) -> Result<SoloGame, DealError> {
    let rules = forge.rules();
    let Some(lv) = rules.levels.get(level) else {
        return Err(DealError::NoLevel { level, levels: rules.levels.len() });
    };
    let mut rng = Rng::new(seed);
    let dealing = rules.generation;
    let check = !raw && dealing.guarantee_forgeable;
    let attempts = if check { dealing.attempts } else { 1 };
    for _ in 0..attempts {
        let board = SoloBoard::draw(&forge.variant, lv, &mut rng);
        let g = SoloGame::new(forge.clone(), level, board).with_seed(Some(seed));
        if !check {
            return Ok(g);
        }
        let limits = Limits { nodes: Some(dealing.solver_nodes), time: None };
        if run_with(&g, limits, Then::Nothing, DEALING).verdict == Verdict::Forged {
            return Ok(g);
        }
    }
    Err(DealError::NoForgeable { seed, attempts })
}
