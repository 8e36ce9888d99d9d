//! Computer opponents for solo duels, at three strengths:
//! - **greedy**: every strike is the target worth most right now (its chain points and
//!   any bonus it completes), the first in square order on a tie; no look-ahead;
//! - **search**: a short solver search (`SEARCH_NODES` positions) from the start, then
//!   the better of its forging route and its best-scoring route, then greedy to the end;
//! - **solver**: the same with the full budget (`SOLVER_NODES`).
//!
//! Budgets are positions, not time, so an opponent plays the same route on every
//! machine. An opponent takes `[duel] computer_pace` seconds per strike on its clock:
//! its countdown bonus is then what a steady player at that pace would earn.

use crate::geometry::Square;
use crate::scoring::Tenths;
use crate::search::solo::{Limits, solve};
use crate::solo::{SoloGame, Status};

/// Positions the `search` opponent looks at.
pub const SEARCH_NODES: u64 = 20_000;
/// Positions the `solver` opponent looks at.
pub const SOLVER_NODES: u64 = 1_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strength {
    Greedy,
    Search,
    Solver,
}

impl Strength {
    pub const ALL: [Strength; 3] = [Strength::Greedy, Strength::Search, Strength::Solver];

    pub fn name(self) -> &'static str {
        match self {
            Strength::Greedy => "greedy",
            Strength::Search => "search",
            Strength::Solver => "solver",
        }
    }

    /// A strength by name (any case).
    pub fn parse(text: &str) -> Option<Strength> {
        Strength::ALL.into_iter().find(|s| s.name().eq_ignore_ascii_case(text.trim()))
    }

    /// What it does, in a line.
    pub fn describe(self) -> String {
        match self {
            Strength::Greedy => "always the strike worth most now, no look-ahead".into(),
            Strength::Search => format!("a short solver search ({SEARCH_NODES} positions), then greedy"),
            Strength::Solver => format!("the solver's full search ({SOLVER_NODES} positions), then greedy"),
        }
    }
}

/// The points `game` has now, time excluded.
fn points(game: &SoloGame) -> Tenths {
    game.score().points()
}

/// The greedy strike: the target whose strike adds the most points (the first in square
/// order on a tie), or `None` when the board is over.
pub fn greedy_strike(game: &SoloGame) -> Option<Square> {
    let now = points(game);
    let mut best: Option<(Tenths, Square)> = None;
    for t in game.targets() {
        let mut g = game.clone();
        if g.strike(t).is_err() {
            continue;
        }
        let gain = Tenths(points(&g).0.saturating_sub(now.0));
        if best.is_none_or(|(b, _)| gain > b) {
            best = Some((gain, t));
        }
    }
    best.map(|(_, t)| t)
}

/// Follows `route` as far as it stays legal, then strikes greedily until the board ends.
fn finish(game: &SoloGame, route: &[Square]) -> SoloGame {
    let mut g = game.clone();
    for &s in route {
        if g.strike(s).is_err() {
            break;
        }
    }
    while let Some(s) = greedy_strike(&g) {
        if g.strike(s).is_err() {
            break;
        }
    }
    g
}

/// The whole route this opponent strikes on `game`, from its current position.
pub fn route(game: &SoloGame, strength: Strength) -> Vec<Square> {
    let nodes = match strength {
        Strength::Greedy => return finish(game, &[]).strikes()[game.ply()..].to_vec(),
        Strength::Search => SEARCH_NODES,
        Strength::Solver => SOLVER_NODES,
    };
    let s = solve(game, Limits { nodes: Some(nodes), time: None });
    let a = finish(game, &s.route);
    let b = finish(game, &s.best);
    // The forging route first on equal points (it clears the board).
    let best = if points(&b) > points(&a) { b } else { a };
    best.strikes()[game.ply()..].to_vec()
}

/// Plays `game` as this opponent at `pace_ms` per strike: strike n lands when the clock
/// reads n × pace (a duel's countdown may run out first).
pub fn play(game: &SoloGame, strength: Strength, pace_ms: u64) -> SoloGame {
    let mut g = game.clone();
    for (i, s) in route(game, strength).into_iter().enumerate() {
        g.set_elapsed(pace_ms.saturating_mul(i as u64 + 1));
        if g.status() != Status::Playing || g.strike(s).is_err() {
            break;
        }
    }
    g
}
