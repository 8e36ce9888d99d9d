//! The fast back end: the search on a bare [`Position`] and its move tables,
//! monomorphised per board width, for variants without hooks. Actions are played by
//! copy-make on a stack of positions; the rules it applies itself are the core's
//! (checkmate and stalemate verdicts, the no-progress and material draws; repetition
//! is the engine's).

use crate::action::Action;
use crate::bits::Bits;
use crate::event::NoEvents;
use crate::movegen::{self, tables::Tables};
use crate::piece::{Piece, Side};
use crate::position::Position;
use crate::variant::{Variant, Verdict};

use super::engine::{self, MAX_PLY, Node, Params};
use super::eval::Evaluator;
use super::{Backend, Job, SearchResult};

pub(crate) struct FastNode<'a, B: Bits> {
    v: &'a Variant,
    t: &'a Tables<B>,
    ev: &'a Evaluator,
    stack: Vec<Position<B>>,
}

impl<'a, B: Bits> FastNode<'a, B> {
    pub fn new(pos: &Position<B>, v: &'a Variant, ev: &'a Evaluator) -> Self {
        let mut stack = Vec::with_capacity(MAX_PLY + 2);
        stack.push(pos.clone());
        FastNode { v, t: v.tables(), ev, stack }
    }

    #[inline(always)]
    fn pos(&self) -> &Position<B> {
        self.stack.last().expect("the root stays on the stack")
    }
}

impl<B: Bits> Node for FastNode<'_, B> {
    #[inline]
    fn key(&self) -> u64 {
        self.pos().hash
    }

    #[inline]
    fn generate(&mut self, out: &mut Vec<Action>) {
        movegen::legal(self.pos(), self.t, self.v.rules.check, out);
    }

    #[inline]
    fn make(&mut self, a: Action) -> bool {
        let mut p = self.pos().clone();
        p.make(self.t, a, &mut NoEvents);
        self.stack.push(p);
        true
    }

    #[inline]
    fn unmake(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    #[inline]
    fn in_check(&mut self) -> bool {
        movegen::in_check(self.pos(), self.t)
    }

    fn verdict(&mut self, moves: &[Action]) -> Option<Verdict> {
        if moves.is_empty() {
            let r = &self.v.rules;
            return Some(if self.in_check() { r.checkmate } else { r.stalemate });
        }
        self.rule_verdict()
    }

    fn rule_verdict(&mut self) -> Option<Verdict> {
        let pos = self.pos();
        if self.ev.insufficient(pos) || self.ev.no_progress.is_some_and(|n| pos.halfmove >= n) {
            return Some(Verdict::Draw);
        }
        None
    }

    #[inline]
    fn evaluate(&mut self) -> i32 {
        self.ev.evaluate(self.pos(), self.t)
    }

    #[inline]
    fn captures(&self, a: Action) -> Option<i32> {
        let pos = self.pos();
        let target = Piece::from_code(pos.code(a.to.index()));
        match target {
            Some(p) if p.side != pos.stm && !matches!(a.kind, crate::action::ActionKind::Castle(_)) => {
                Some(self.ev.value[p.kind.index()])
            }
            // En passant takes a piece like the mover (a pawn takes a pawn).
            _ if engine::captures_by_kind(a) => Some(self.mover_value(a)),
            _ => None,
        }
    }

    #[inline]
    fn mover_value(&self, a: Action) -> i32 {
        Piece::from_code(self.pos().code(a.from.index())).map_or(0, |p| self.ev.value[p.kind.index()])
    }

    #[inline]
    fn kind_value(&self, kind: usize) -> i32 {
        self.ev.value[kind]
    }

    #[inline]
    fn side(&self) -> Side {
        self.pos().stm
    }

    #[inline]
    fn reversible_plies(&self) -> Option<u32> {
        Some(self.pos().halfmove)
    }
}

/// Searches `pos` (the position of a game of `v` whose earlier positions hashed to
/// `job.history`).
pub(crate) fn search<B: Bits>(pos: &Position<B>, v: &Variant, job: &Job<'_>) -> Option<SearchResult> {
    let node = FastNode::new(pos, v, job.evaluator);
    let tt_bits = (10 + 2 * job.level.depth).clamp(12, 20);
    let params = Params {
        level: job.level,
        seed: job.seed,
        deadline: job.deadline,
        history: job.history,
        tt_bits,
        backend: Backend::Fast,
    };
    engine::run(node, &params)
}
