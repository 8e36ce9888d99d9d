//! Solving solo boards: can a board be completed (forged), by which route, and which
//! route scores most; and dealing boards that can be forged.
//!
//! [`solve`] searches from a game's current position within [`Limits`] (nodes, and a
//! deadline for interactive use; dealing uses nodes only, so every machine deals the
//! same board). The verdict is *forged* with a route, *impossible* when the whole
//! tree was refuted, or *undecided* when the limits stopped it first.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::geometry::Square;
use crate::rng::Rng;
use crate::scoring::Tenths;
use crate::solo::{Forge, SoloBoard, SoloGame, Status};

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
    pub nodes: u64,
    pub elapsed: Duration,
}

/// Decides the board of `game` from its current position.
pub fn solve(game: &SoloGame, limits: Limits) -> Solution {
    let start = Instant::now();
    let mut s = Search {
        limits,
        start,
        nodes: 0,
        stopped: false,
        seen: HashSet::new(),
        route: Vec::new(),
        found: None,
        best: (game.score().points(), Vec::new()),
    };
    let mut g = game.clone();
    let forged = s.dfs(&mut g);
    let verdict = if forged {
        Verdict::Forged
    } else if s.stopped {
        Verdict::Undecided
    } else {
        Verdict::Impossible
    };
    Solution {
        verdict,
        route: s.found.unwrap_or_default(),
        best_score: s.best.0,
        best: s.best.1,
        nodes: s.nodes,
        elapsed: start.elapsed(),
    }
}

struct Search {
    limits: Limits,
    start: Instant,
    nodes: u64,
    stopped: bool,
    /// Positions already refuted (hits, shown pieces and the last strike).
    seen: HashSet<u64>,
    route: Vec<Square>,
    found: Option<Vec<Square>>,
    best: (Tenths, Vec<Square>),
}

impl Search {
    fn out_of_budget(&mut self) -> bool {
        if self.limits.nodes.is_some_and(|n| self.nodes >= n)
            || (self.nodes % 1024 == 0 && self.limits.time.is_some_and(|t| self.start.elapsed() >= t))
        {
            self.stopped = true;
        }
        self.stopped
    }

    fn dfs(&mut self, g: &mut SoloGame) -> bool {
        self.nodes += 1;
        let points = g.score().points();
        if points > self.best.0 {
            self.best = (points, self.route.clone());
        }
        match g.status() {
            Status::Forged => {
                self.found = Some(self.route.clone());
                return true;
            }
            Status::Playing => {}
            _ => return false,
        }
        if self.out_of_budget() || !self.seen.insert(g.position_key()) {
            return false;
        }
        for t in g.targets() {
            if g.strike(t).is_err() {
                continue;
            }
            self.route.push(t);
            let done = self.dfs(g);
            self.route.pop();
            g.undo(1);
            if done {
                return true;
            }
            if self.stopped {
                return false;
            }
        }
        false
    }
}

/// Why no board could be dealt.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DealError {
    #[error("no board that can be forged was found for seed {seed} in {attempts} draws")]
    NoForgeable { seed: u64, attempts: u32 },
}

/// Deals the board of `seed` at `level`: with `raw` (or `guarantee_forgeable = false`)
/// the first board drawn; otherwise boards are drawn one after another from the
/// seed's generator until the solver proves one can be forged within
/// `[generation] solver_nodes`.
pub fn deal(forge: &std::sync::Arc<Forge>, level: usize, seed: u64, raw: bool) -> Result<SoloGame, DealError> {
    let rules = forge.rules();
    let lv = &rules.levels[level];
    let mut rng = Rng::new(seed);
    let dealing = rules.generation;
    let attempts = if raw || !dealing.guarantee_forgeable { 1 } else { dealing.attempts };
    for _ in 0..attempts {
        let board = SoloBoard::draw(&forge.variant, lv, &mut rng);
        let g = SoloGame::new(forge.clone(), level, board).with_seed(Some(seed));
        if attempts == 1 {
            return Ok(g);
        }
        if solve(&g, Limits { nodes: Some(dealing.solver_nodes), time: None }).verdict == Verdict::Forged {
            return Ok(g);
        }
    }
    Err(DealError::NoForgeable { seed, attempts })
}
