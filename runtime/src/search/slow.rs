//! The slow back end: the search on a whole [`Game`], for variants with hooks. Each
//! action goes through the full pipeline (hooks may refuse it, change the board, keep
//! variables, award points, end the game), and is taken back with `undo`; legal
//! actions and outcomes are the game's own, `filter_actions` and `check_outcome`
//! included. Correct first: every node costs hook calls.

use std::hash::{Hash, Hasher};

use crate::action::Action;
use crate::game::Game;
use crate::hooks::Var;
use crate::outcome::GameResult;
use crate::piece::{Piece, Side};
use crate::variant::Verdict;

use super::engine::{self, Node, Params};
use super::eval::Evaluator;
use super::{Backend, Job, SearchResult};

pub(crate) struct SlowNode<'a> {
    game: Game,
    ev: &'a Evaluator,
}

/// A stable 64-bit mix (FNV-1a), so keys do not depend on the process.
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

impl Node for SlowNode<'_> {
    /// The position hash mixed with what the rules keep (variables, scores): two
    /// nodes with equal boards but different rule state are different positions.
    fn key(&self) -> u64 {
        let g = &self.game;
        if g.vars().is_empty() && g.scores() == [0, 0] {
            return g.hash();
        }
        let mut h = Fnv(0xcbf2_9ce4_8422_2325);
        for (name, value) in g.vars() {
            name.hash(&mut h);
            match value {
                Var::Int(i) => (0u8, i).hash(&mut h),
                Var::Bool(b) => (1u8, b).hash(&mut h),
                Var::Text(t) => (2u8, t).hash(&mut h),
            }
        }
        g.scores().hash(&mut h);
        g.hash() ^ h.finish().rotate_left(17)
    }

    fn generate(&mut self, out: &mut Vec<Action>) {
        // A failing filter_actions offers nothing: the line ends here.
        out.extend(self.game.try_legal_actions().unwrap_or_default());
    }

    fn make(&mut self, a: Action) -> bool {
        self.game.apply_unchecked(a).is_ok()
    }

    fn unmake(&mut self) {
        self.game.undo(1);
    }

    fn in_check(&mut self) -> bool {
        self.game.variant().rules.check && self.game.in_check()
    }

    fn verdict(&mut self, moves: &[Action]) -> Option<Verdict> {
        if let Some(v) = self.rule_verdict() {
            return Some(v);
        }
        if moves.is_empty() {
            let check = self.in_check();
            let r = &self.game.variant().rules;
            return Some(if check { r.checkmate } else { r.stalemate });
        }
        None
    }

    /// The game's own outcome: every rule, hooks included.
    fn rule_verdict(&mut self) -> Option<Verdict> {
        let stm = self.game.to_move();
        self.game.outcome().map(|o| match o.result {
            GameResult::Draw => Verdict::Draw,
            GameResult::Win(s) if s == stm => Verdict::Win,
            GameResult::Win(_) => Verdict::Loss,
        })
    }

    fn evaluate(&mut self) -> i32 {
        self.game.evaluate_for_ai(self.ev)
    }

    fn captures(&self, a: Action) -> Option<i32> {
        if !self.game.is_capture(&a) {
            return None;
        }
        match self.game.piece_at(a.to) {
            Some(p) if p.side != self.game.to_move() => Some(self.ev.value[p.kind.index()]),
            _ => Some(self.mover_value(a)),
        }
    }

    fn mover_value(&self, a: Action) -> i32 {
        self.game.piece_at(a.from).map_or(0, |p| self.ev.value[p.kind.index()])
    }

    fn mover(&self, a: Action) -> u8 {
        match a.promotion {
            Some(kind) if a.is_drop() => Piece { kind, side: self.game.to_move() }.code(),
            _ => self.game.piece_at(a.from).map_or(0, |p| p.code()),
        }
    }

    fn shape(&self) -> (usize, usize) {
        let v = self.game.variant();
        (2 * v.kinds.len() + 1, v.geometry.len())
    }

    fn kind_value(&self, kind: usize) -> i32 {
        self.ev.value[kind]
    }

    fn pieces(&self) -> u32 {
        self.game.pieces().len() as u32
    }

    fn side(&self) -> Side {
        self.game.to_move()
    }

    /// Unknown: hooks may change anything, so repetition looks along the whole line.
    fn reversible_plies(&self) -> Option<u32> {
        None
    }
}

/// Searches the position of `game` through its full pipeline.
pub(crate) fn search(game: &Game, job: &mut Job<'_>) -> Option<SearchResult> {
    let node = SlowNode { game: game.clone(), ev: job.evaluator };
    // The game's own outcome covers repetitions of its history; the engine's keys hold
    // rule state too, so they only compare positions along the searched line.
    let params = Params {
        level: job.level,
        seed: job.seed,
        soft: job.soft,
        deadline: job.deadline,
        history: &[],
        backend: Backend::Slow,
        stop: job.stop,
        progress: job.progress,
    };
    job.with_table(16, |tt, h| engine::run(node, &params, tt, h))
}
