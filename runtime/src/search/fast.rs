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
    fn generate_captures(&mut self, out: &mut Vec<Action>) {
        movegen::legal_captures(self.pos(), self.t, self.v.rules.check, out);
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

    /// A pass flips the side to move and drops the en-passant rights; refused with hit
    /// points (attacks change state a pass would skip) and while returned pieces wait
    /// for their owner's turn to end.
    fn make_null(&mut self) -> bool {
        let pos = self.pos();
        if pos.combat.is_some() || self.t.combat.is_some() || pos.waiting[0].any() || pos.waiting[1].any() {
            return false;
        }
        let mut p = pos.clone();
        for s in p.ep.iter() {
            p.hash ^= self.t.zobrist.ep[s];
        }
        p.ep = B::EMPTY;
        p.halfmove = p.halfmove.saturating_add(1);
        if p.stm == Side::Black {
            p.fullmove = p.fullmove.saturating_add(1);
        }
        p.stm = p.stm.opponent();
        p.hash ^= self.t.zobrist.side;
        self.stack.push(p);
        true
    }

    #[inline]
    fn has_officers(&self) -> bool {
        let pos = self.pos();
        self.ev.has_officers(pos, pos.stm)
    }

    #[inline]
    fn in_check(&mut self) -> bool {
        self.v.rules.check && movegen::in_check(self.pos(), self.t)
    }

    /// The core's verdicts, in the game's order: a lost royal piece, no legal action
    /// (checkmate needs the check rule), then the draws.
    fn verdict(&mut self, moves: &[Action]) -> Option<Verdict> {
        if let Some(v) = self.royal_lost() {
            return Some(v);
        }
        if moves.is_empty() {
            // A position a `[[rules.end]]` rule ends has no legal move too: that rule's
            // result, not a mate or stalemate.
            if let Some(v) = self.end_rule() {
                return Some(v);
            }
            let r = &self.v.rules;
            if self.in_check() {
                // A mate by a drop that may not mate (`drop_mate = "loses"`): the mated side wins.
                if self.pos().mate_by_drop_loses(self.t) {
                    return Some(Verdict::Win);
                }
                return Some(r.checkmate);
            }
            return Some(r.stalemate);
        }
        self.draws()
    }

    fn rule_verdict(&mut self) -> Option<Verdict> {
        self.royal_lost().or_else(|| self.end_rule()).or_else(|| self.draws())
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
    fn mover(&self, a: Action) -> u8 {
        let pos = self.pos();
        match a.promotion {
            Some(kind) if a.is_drop() => Piece { kind, side: pos.stm }.code(),
            _ => pos.code(a.from.index()),
        }
    }

    fn shape(&self) -> (usize, usize) {
        (2 * self.v.kinds.len() + 1, self.v.geometry.len())
    }

    /// The swap algorithm on the square sets: each side recaptures on `a.to` with its
    /// least valuable attacker (sliders behind a piece that left join in), and stops when
    /// going on would lose. A royal piece recaptures only onto a square the other side no
    /// longer attacks. Attacks through conditional atoms (hoppers and the like) are not
    /// seen, nor promotions on a recapture: an estimate, like every SEE. None for actions
    /// other than plain moves, and with hit points or explosions (a capture there is not
    /// an exchange of pieces).
    fn see(&self, a: Action) -> Option<i32> {
        let pos = self.pos();
        if a.kind != crate::action::ActionKind::Normal
            || a.gate.is_some()
            || a.landing.is_some()
            || pos.combat.is_some()
            || self.t.combat.is_some()
            || self.t.explosion.is_some()
        {
            return None;
        }
        let (from, to) = (a.from.index(), a.to.index());
        let victim = Piece::from_code(pos.code(to)).filter(|p| p.side != pos.stm)?;
        let mover = Piece::from_code(pos.code(from))?;
        let value = |k: usize| self.ev.value[k];
        let mut gain = [0i32; 64];
        gain[0] = value(victim.kind.index());
        // What stands on the square, to be taken next.
        let mut on_square = value(mover.kind.index());
        if let Some(k) = a.promotion {
            gain[0] += value(k.index()) - on_square;
            on_square = value(k.index());
        }
        let mut occ = pos.occupied().without(from);
        let mut side = pos.stm.opponent();
        let mut d = 0;
        while d + 1 < gain.len() {
            let attackers = pos.attackers(self.t, to, side, occ) & occ;
            if attackers.is_empty() {
                break;
            }
            // The least valuable attacker.
            let (mut sq, mut least) = (usize::MAX, i32::MAX);
            for s in attackers.iter() {
                let v = value(crate::position::kind_of(pos.code(s)));
                if v < least {
                    (sq, least) = (s, v);
                }
            }
            let royal = self.t.royal & (1 << crate::position::kind_of(pos.code(sq))) != 0;
            if royal && (pos.attackers(self.t, to, side.opponent(), occ.without(sq)) & occ.without(sq)).any() {
                break;
            }
            d += 1;
            // For the side capturing now, if it stops after this capture.
            gain[d] = on_square - gain[d - 1];
            on_square = least;
            occ = occ.without(sq);
            side = side.opponent();
        }
        // Each side captures only if that beats stopping.
        while d > 0 {
            gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
            d -= 1;
        }
        Some(gain[0])
    }

    #[inline]
    fn kind_value(&self, kind: usize) -> i32 {
        self.ev.value[kind]
    }

    #[inline]
    fn pieces(&self) -> u32 {
        let pos = self.pos();
        (pos.by_side[0] | pos.by_side[1]).count()
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

impl<B: Bits> FastNode<'_, B> {
    /// The result of the `[[rules.end]]` rule that ends this position, for the side to move.
    #[inline]
    fn end_rule(&self) -> Option<Verdict> {
        if self.t.ends.is_empty() {
            return None;
        }
        let pos = self.pos();
        movegen::ends::ended(pos, self.t).map(|e| match e.winner {
            None => Verdict::Draw,
            Some(w) if w == pos.stm => Verdict::Win,
            Some(_) => Verdict::Loss,
        })
    }

    /// `rules.royal_lost`: a side without royal pieces has lost (both: the mover wins).
    fn royal_lost(&self) -> Option<Verdict> {
        if !self.v.rules.royal_lost || self.t.royal == 0 {
            return None;
        }
        let pos = self.pos();
        let mut royals = B::EMPTY;
        let mut ks = self.t.royal;
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            royals |= pos.by_kind[k];
        }
        let us = pos.stm.index();
        let ours = (royals & pos.by_side[us]).any();
        let theirs = (royals & pos.by_side[1 - us]).any();
        match (ours, theirs) {
            (true, true) => None,
            (true, false) => Some(Verdict::Win),
            (false, _) => Some(Verdict::Loss),
        }
    }

    /// Draws by material, by no progress, by the turn limit.
    fn draws(&self) -> Option<Verdict> {
        let pos = self.pos();
        let d = &self.v.draws;
        let drawn = self.ev.insufficient(pos)
            || d.no_progress_plies.is_some_and(|n| pos.halfmove >= n)
            || d.turn_limit.is_some_and(|n| pos.fullmove >= n);
        drawn.then_some(Verdict::Draw)
    }
}

/// Searches `pos` (the position of a game of `v` whose earlier positions hashed to
/// `job.history`).
pub(crate) fn search<B: Bits>(pos: &Position<B>, v: &Variant, job: &mut Job<'_>) -> Option<SearchResult> {
    let node = FastNode::new(pos, v, job.evaluator);
    let params = Params {
        level: job.level,
        seed: job.seed,
        soft: job.soft,
        deadline: job.deadline,
        history: job.history,
        backend: Backend::Fast,
        stop: job.stop,
        progress: job.progress,
    };
    let bits = (10 + 2 * job.level.depth).clamp(12, 20);
    job.with_table(bits, |tt, h| engine::run(node, &params, tt, h))
}

/// The static exchange value of the capture `a` in `pos` ([`Node::see`]).
pub(crate) fn static_exchange<B: Bits>(pos: &Position<B>, v: &Variant, ev: &Evaluator, a: Action) -> Option<i32> {
    FastNode::new(pos, v, ev).see(a)
}
