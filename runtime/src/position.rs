//! The state of a two-sided board game at one moment, and how an action changes it.
//!
//! A position is plain data (`Clone` is a copy), generic over the board width. Square
//! sets by side and by kind give fast move generation; the mailbox answers "what is
//! on this square". The hash is kept incrementally for repetition detection.

use crate::action::{Action, ActionKind};
use crate::bits::Bits;
use crate::event::{Event, Sink};
use crate::geometry::Square;
use crate::mechanics::reserve::{Banked, Reserve};
use crate::movegen::tables::{BlastTables, DirAttack, Tables};
use crate::notation::consistency::MAX_FROZEN;
use crate::notation::fen::Setup;
use crate::piece::{KindId, MAX_KINDS, Piece, Side};

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Position<B: Bits> {
    pub by_side: [B; 2],
    pub by_kind: [B; MAX_KINDS],
    /// Piece codes by square (0 = empty); see [`Piece::code`].
    pub board: B::Squares,
    pub stm: Side,
    /// Bit i: castling entry i is still available.
    pub castling: u32,
    /// Squares that may be taken en passant on this move.
    pub ep: B,
    /// The square of the piece an en-passant capture removes.
    pub ep_victim: u8,
    /// Plies since the last capture or progress move.
    pub halfmove: u32,
    pub fullmove: u32,
    pub hash: u64,
    /// Pieces that may not move, capture or attack this turn: waiting or frozen.
    pub inactive: B,
    /// Returned pieces waiting for their owner's turn to end, per owner.
    pub waiting: [B; 2],
    /// Frozen pieces (promoted with nothing to become)...
    pub frozen: B,
    /// ...per owner in arrival order: the oldest resolves first.
    pub queue: [Queue; 2],
    /// Captured pieces per owner and kind (tracked when a kind promotes from them).
    pub graveyard: [[u8; MAX_KINDS]; 2],
    /// Hit points, auras and their marks, with `[combat]`.
    pub combat: Option<Box<crate::mechanics::combat::CombatState<B>>>,
    /// Pieces in hand per side (with a two-sided `[reserve]`).
    pub hands: [Reserve<u8>; 2],
    /// Pieces that arrived by promotion (tracked with hands: they revert when taken).
    pub promoted: B,
    /// Checks given by each side (counted when an end rule counts them).
    pub checks: [u8; 2],
    /// Open gates (with gating): squares whose piece has not moved, so that its first
    /// move may bring a held piece onto the square it leaves. The side is the piece's.
    pub gates: B,
    /// The kind of the piece the last action dropped, plus one (0: it was no drop); for
    /// `drop_mate = "loses"`, not part of the position's identity (nor of its hash).
    pub last_drop: u8,
    /// The passes made in a row, up to the last action (`[rules] pass`); like
    /// `last_drop`, not part of the hash (Fairy-Stockfish's key ignores it too).
    pub passes: u8,
    /// Whether the royal pieces faced each other before the last action (kept when a
    /// rule looks at it: `royals_facing = "break"`, an end rule `when = "facing"`); not
    /// part of the hash.
    pub faced: bool,
}

/// Frozen squares of one side, oldest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct Queue {
    sq: [u8; MAX_FROZEN],
    len: u8,
}

impl Queue {
    pub fn squares(&self) -> &[u8] {
        &self.sq[..self.len as usize]
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Adds a square at the end; false when the queue is full (the piece does not freeze).
    fn push(&mut self, sq: u8) -> bool {
        if (self.len as usize) < self.sq.len() {
            self.sq[self.len as usize] = sq;
            self.len += 1;
            true
        } else {
            false
        }
    }
    /// The entry `from` now stands on `to`, in the same place in the order.
    pub(crate) fn rename(&mut self, from: u8, to: u8) {
        let n = self.len as usize;
        if let Some(x) = self.sq[..n].iter_mut().find(|s| **s == from) {
            *x = to;
        }
    }
    pub(crate) fn remove(&mut self, sq: u8) {
        if let Some(i) = self.squares().iter().position(|&s| s == sq) {
            self.sq.copy_within(i + 1..self.len as usize, i);
            self.len -= 1;
        }
    }
    fn pop_front(&mut self) -> Option<u8> {
        let first = *self.squares().first()?;
        self.remove(first);
        Some(first)
    }
}

#[inline(always)]
pub(crate) fn kind_of(code: u8) -> usize {
    ((code - 1) >> 1) as usize
}

impl<B: Bits> Position<B> {
    pub fn from_setup(t: &Tables<B>, s: &Setup) -> Self {
        let mut p = Position {
            by_side: [B::EMPTY; 2],
            by_kind: [B::EMPTY; MAX_KINDS],
            board: B::empty_squares(),
            stm: s.to_move,
            castling: 0,
            ep: B::EMPTY,
            ep_victim: 0,
            halfmove: s.halfmove,
            fullmove: s.fullmove,
            hash: 0,
            inactive: B::EMPTY,
            waiting: [B::EMPTY; 2],
            frozen: B::EMPTY,
            queue: [Queue::default(); 2],
            graveyard: [[0; MAX_KINDS]; 2],
            combat: None,
            hands: [Reserve::default(), Reserve::default()],
            promoted: B::EMPTY,
            checks: [0; 2],
            gates: B::EMPTY,
            last_drop: 0,
            passes: 0,
            faced: false,
        };
        for &(sq, piece) in &s.pieces {
            p.put(t, sq.index(), piece.code());
        }
        if t.hand.is_some() {
            for side in Side::BOTH {
                for k in 0..MAX_KINDS {
                    p.set_hand(t, side, k, s.hands[side.index()][k] as u32);
                }
            }
            for &sq in &s.promoted {
                if p.code(sq.index()) != 0 && !p.promoted.has(sq.index()) {
                    p.mark_promoted(t, sq.index());
                }
            }
        }
        for side in Side::BOTH {
            for k in 0..MAX_KINDS {
                p.set_graveyard(t, side, k, s.graveyard[side.index()][k]);
            }
        }
        for &sq in &s.frozen {
            if let Some(piece) = p.piece_at(sq) {
                let before = p.queue[piece.side.index()];
                if p.queue[piece.side.index()].push(sq.0) {
                    p.frozen = p.frozen.with(sq.index());
                    p.rehash_queue(t, piece.side, before);
                }
            }
        }
        for &sq in &s.waiting {
            if let Some(piece) = p.piece_at(sq) {
                p.waiting[piece.side.index()] = p.waiting[piece.side.index()].with(sq.index());
                p.hash ^= t.zobrist.waiting[sq.index()];
            }
        }
        p.refresh_inactive();
        if p.stm == Side::Black {
            p.hash ^= t.zobrist.side;
        }
        p.set_castling(t, s.castling);
        for sq in &s.en_passant {
            p.ep = p.ep.with(sq.index());
            p.hash ^= t.zobrist.ep[sq.index()];
        }
        p.ep_victim = s.ep_victim.map_or(0, |v| v.0);
        if t.count_checks {
            for side in Side::BOTH {
                p.set_checks(t, side, s.checks[side.index()]);
            }
        }
        if let Some(g) = t.hand.as_deref().and_then(|h| h.gating.as_ref()) {
            // Only where a piece of the side stands on its gating squares.
            for &sq in &s.gates {
                if let Some(piece) = p.piece_at(sq)
                    && g.region[piece.side.index()].has(sq.index())
                    && !p.gates.has(sq.index())
                {
                    p.gates = p.gates.with(sq.index());
                    p.hash ^= t.zobrist.gate[sq.index()];
                }
            }
            for side in Side::BOTH {
                p.close_spent_gates(t, side);
            }
        }
        p.init_combat(t, s);
        p
    }

    pub fn to_setup(&self) -> Setup {
        let pieces = (0..self.board.as_ref().len())
            .filter_map(|i| Piece::from_code(self.board.as_ref()[i]).map(|p| (Square(i as u8), p)))
            .collect();
        Setup {
            pieces,
            to_move: self.stm,
            castling: self.castling,
            en_passant: self.ep.iter().map(|s| Square(s as u8)).collect(),
            ep_victim: self.ep.any().then_some(Square(self.ep_victim)),
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            graveyard: self.graveyard,
            frozen: self.queue.iter().flat_map(|q| q.squares().iter().map(|&s| Square(s))).collect(),
            waiting: (self.waiting[0] | self.waiting[1]).iter().map(|s| Square(s as u8)).collect(),
            hp: Vec::new(),
            spent: Vec::new(),
            guard: Vec::new(),
            hands: std::array::from_fn(|side| {
                std::array::from_fn(|k| self.hands[side].count(KindId(k as u8)).min(u8::MAX as u32) as u8)
            }),
            promoted: self.promoted.iter().map(|s| Square(s as u8)).collect(),
            checks: self.checks,
            gates: self.gates.iter().map(|s| Square(s as u8)).collect(),
        }
    }

    /// Sets the checks `side` has given, keeping the hash.
    fn set_checks(&mut self, t: &Tables<B>, side: Side, n: u8) {
        let key = |n: u8| t.zobrist.checks[side.index() * 256 + n as usize];
        self.hash ^= key(self.checks[side.index()]) ^ key(n);
        self.checks[side.index()] = n;
    }

    /// After `us` moved (the turn has passed): one more check given, if the opponent's
    /// royal piece is attacked now.
    #[inline]
    fn count_check(&mut self, t: &Tables<B>, us: Side) {
        if t.count_checks && self.royal_attacked(t, us.opponent()) {
            let n = self.checks[us.index()].saturating_add(1);
            self.set_checks(t, us, n);
        }
    }

    /// Sets a hand's count for a kind, keeping the hash.
    fn set_hand(&mut self, t: &Tables<B>, side: Side, kind: usize, n: u32) {
        let key = |c: u32| t.zobrist.hand[(side.index() * MAX_KINDS + kind) * 64 + c.min(63) as usize];
        let old = self.hands[side.index()].count(KindId(kind as u8));
        if old != n {
            self.hash ^= key(old) ^ key(n);
            self.hands[side.index()].set(KindId(kind as u8), n);
        }
    }

    /// Marks (or unmarks) the piece on `sq` as one that arrived by promotion.
    pub(crate) fn mark_promoted(&mut self, t: &Tables<B>, sq: usize) {
        self.promoted = if self.promoted.has(sq) { self.promoted.without(sq) } else { self.promoted.with(sq) };
        self.hash ^= t.zobrist.promoted[sq];
    }

    /// Closes the gate on `sq`, if open.
    #[inline]
    fn close_gate(&mut self, t: &Tables<B>, sq: usize) {
        if self.gates.has(sq) {
            self.gates = self.gates.without(sq);
            self.hash ^= t.zobrist.gate[sq];
        }
    }

    /// A side whose hand is empty for good (nothing captured comes back to it) has no
    /// gates left to use: they close, so equal positions hash and print equally (as
    /// Fairy-Stockfish clears them).
    fn close_spent_gates(&mut self, t: &Tables<B>, side: Side) {
        let Some(h) = t.hand.as_deref() else { return };
        if h.rule.captured_to_taker || !self.hands[side.index()].is_empty() {
            return;
        }
        for sq in (self.gates & self.by_side[side.index()]).iter() {
            self.close_gate(t, sq);
        }
    }

    /// Gating after the move `a` of `us` was made (the turn has not passed yet): the held
    /// piece enters the square the move left, if the action says so; the gates of the
    /// squares the move left or landed on close.
    #[inline(never)]
    fn gate<S: Sink>(&mut self, t: &Tables<B>, a: Action, ev: &mut S) {
        let us = self.stm;
        let rook = match a.kind {
            ActionKind::Castle(i) => Some(t.castles[i as usize].rook),
            _ => None,
        };
        if let Some(g) = a.gate {
            let sq = if g.rook() { rook.unwrap_or(a.from.index()) } else { a.from.index() };
            let kind = g.kind();
            if self.code(sq) == 0 {
                let n = self.hands[us.index()].count(kind);
                self.set_hand(t, us, kind.index(), n.saturating_sub(1));
                self.put(t, sq, Piece::new(kind, us).code());
                if S::ON {
                    ev.push(Event::Dropped { side: us, kind, square: Square(sq as u8) });
                }
            }
            self.close_gate(t, sq);
        }
        self.close_gate(t, a.from.index());
        self.close_gate(t, a.to.index());
        if let Some(r) = rook {
            self.close_gate(t, r);
        }
        self.close_spent_gates(t, us);
    }

    /// The mover's returned pieces have waited through this turn: frees them (the hash
    /// updated). Whether there were any.
    fn free_waiting(&mut self, t: &Tables<B>, us: Side) -> bool {
        if !self.waiting[us.index()].any() {
            return false;
        }
        for s in self.waiting[us.index()].iter() {
            self.hash ^= t.zobrist.waiting[s];
        }
        self.waiting[us.index()] = B::EMPTY;
        true
    }

    /// En passant lapses (the hash updated).
    fn clear_ep(&mut self, t: &Tables<B>) {
        for s in self.ep.iter() {
            self.hash ^= t.zobrist.ep[s];
        }
        self.ep = B::EMPTY;
    }

    /// A pass: nothing moves; en passant lapses, the mover's waiting pieces have waited.
    fn make_pass<S: Sink>(&mut self, t: &Tables<B>, a: Action, ev: &mut S) {
        let us = self.stm;
        self.last_drop = 0;
        self.passes = self.passes.saturating_add(1);
        if self.free_waiting(t, us) {
            self.refresh_inactive();
        }
        self.clear_ep(t);
        if S::ON {
            ev.push(Event::Passed { side: us, square: a.from });
        }
        self.halfmove = self.halfmove.saturating_add(1);
        if us == Side::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.stm = us.opponent();
        self.hash ^= t.zobrist.side;
    }

    /// Whether two royal pieces of opposite sides stand on one file with nothing between
    /// them (needs `t.facing`).
    pub(crate) fn royals_face(&self, t: &Tables<B>) -> bool {
        let occ = self.occupied();
        self.royals(t, Side::White).iter().any(|sq| self.faces_royal(t, sq, Side::Black, occ))
    }

    /// A drop: the piece of `a.promotion` leaves the mover's hand for the empty `a.to`.
    fn make_drop<S: Sink>(&mut self, t: &Tables<B>, a: Action, ev: &mut S) {
        let us = self.stm;
        let Some(kind) = a.promotion else { return };
        let to = a.to.index();
        if self.free_waiting(t, us) {
            self.refresh_inactive();
        }
        self.clear_ep(t);
        let n = self.hands[us.index()].count(kind);
        self.set_hand(t, us, kind.index(), n.saturating_sub(1));
        self.last_drop = kind.0 + 1;
        self.put(t, to, Piece::new(kind, us).code());
        if S::ON {
            ev.push(Event::Dropped { side: us, kind, square: a.to });
        }
        if self.gates.any() {
            self.close_spent_gates(t, us);
        }
        // A drop of a `progress` kind (a pawn) counts as its move.
        let progress = t.progress & (1 << kind.index()) != 0;
        self.halfmove = if progress { 0 } else { self.halfmove.saturating_add(1) };
        if us == Side::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.stm = us.opponent();
        self.hash ^= t.zobrist.side;
        self.count_check(t, us);
    }

    /// A capture with hands: the taken piece changes side into the taker's hand, as the
    /// kind it promoted from if it arrived by promotion; the promotion marks follow the
    /// pieces (the victim's goes, the mover's moves with it).
    fn bank_taken<S: Sink>(&mut self, t: &Tables<B>, a: Action, taken: Option<(usize, u8)>, ev: &mut S) {
        let Some(h) = t.hand.as_deref() else { return };
        if let Some((sq, victim)) = taken {
            let mut kind = kind_of(victim);
            if self.promoted.has(sq) {
                self.mark_promoted(t, sq);
                kind = h.unpromoted[kind];
            } else if h.reverts & (1 << kind) != 0 {
                // A kind only a promotion makes, which no hand holds (a shogi tokin).
                kind = h.unpromoted[kind];
            }
            if h.rule.captured_to_taker {
                let us = self.stm;
                let mut after = self.hands[us.index()].clone();
                if after.bank(&h.rule, KindId(kind as u8)) == Banked::Stored {
                    self.set_hand(t, us, kind, after.count(KindId(kind as u8)));
                    if S::ON {
                        ev.push(Event::Banked { side: us, kind: KindId(kind as u8), square: Square(sq as u8) });
                    }
                }
            }
        }
        if self.promoted.any() {
            let mut follow = |from: usize, to: usize| {
                if from != to && self.promoted.has(from) {
                    self.mark_promoted(t, from);
                    self.mark_promoted(t, to);
                }
            };
            match a.kind {
                ActionKind::Castle(i) => {
                    let c = &t.castles[i as usize];
                    // Both leave before either lands (they may swap squares).
                    let (k, r) = (self.promoted.has(a.from.index()), self.promoted.has(c.rook));
                    for (on, sq) in [(k, a.from.index()), (r, c.rook)] {
                        if on {
                            self.mark_promoted(t, sq);
                        }
                    }
                    for (on, sq) in [(k, c.king_to), (r, c.rook_to)] {
                        if on {
                            self.mark_promoted(t, sq);
                        }
                    }
                }
                ActionKind::Shot => {}
                _ => follow(a.from.index(), a.to.index()),
            }
        }
    }

    /// The position as a setup, combat state included.
    pub fn to_setup_full(&self, t: &Tables<B>) -> Setup {
        let mut s = self.to_setup();
        self.combat_setup(t, &mut s);
        s
    }

    pub(crate) fn refresh_inactive(&mut self) {
        self.inactive = self.waiting[0] | self.waiting[1] | self.frozen;
    }

    fn set_graveyard(&mut self, t: &Tables<B>, side: Side, kind: usize, count: u8) {
        let key = |c: u8| t.zobrist.graveyard[(side.index() * MAX_KINDS + kind) * 16 + c.min(15) as usize];
        let old = self.graveyard[side.index()][kind];
        if old != count {
            self.hash ^= key(old) ^ key(count);
            self.graveyard[side.index()][kind] = count;
        }
    }

    /// Re-keys the hash for a side's frozen queue after it changed from `before`.
    pub(crate) fn rehash_queue(&mut self, t: &Tables<B>, side: Side, before: Queue) {
        for (i, &s) in before.squares().iter().enumerate() {
            self.hash ^= t.zobrist.frozen[s as usize * 16 + i];
        }
        for (i, &s) in self.queue[side.index()].squares().iter().enumerate() {
            self.hash ^= t.zobrist.frozen[s as usize * 16 + i];
        }
    }

    /// A piece of `side` stands on `sq` and cannot act until its owner's next turn ends.
    fn make_wait(&mut self, t: &Tables<B>, side: Side, sq: usize) {
        if !self.waiting[side.index()].has(sq) {
            self.waiting[side.index()] = self.waiting[side.index()].with(sq);
            self.hash ^= t.zobrist.waiting[sq];
        }
    }

    /// A piece left the board: it goes to its owner's graveyard (when tracked), and leaves
    /// the frozen queue if it was frozen.
    fn lost(&mut self, t: &Tables<B>, sq: usize, code: u8) {
        let side = Side::from_index(((code - 1) & 1) as usize);
        if t.track_graveyard {
            let k = kind_of(code);
            let n = self.graveyard[side.index()][k].saturating_add(1);
            self.set_graveyard(t, side, k, n);
        }
        self.unmark(t, side, sq);
    }

    /// The piece of `side` on `sq` is no longer frozen or waiting.
    pub(crate) fn unmark(&mut self, t: &Tables<B>, side: Side, sq: usize) {
        if self.frozen.has(sq) {
            let before = self.queue[side.index()];
            self.queue[side.index()].remove(sq as u8);
            self.frozen = self.frozen.without(sq);
            self.rehash_queue(t, side, before);
        }
        if self.waiting[side.index()].has(sq) {
            self.waiting[side.index()] = self.waiting[side.index()].without(sq);
            self.hash ^= t.zobrist.waiting[sq];
        }
    }

    /// After `side` lost a piece of `kind`: its oldest frozen piece becomes that piece
    /// (which leaves the graveyard again), and waits if the rule says so.
    fn resolve_frozen<S: Sink>(&mut self, t: &Tables<B>, side: Side, kind: usize, ev: &mut S) {
        let before = self.queue[side.index()];
        let Some(sq) = self.queue[side.index()].pop_front() else { return };
        let sq = sq as usize;
        self.rehash_queue(t, side, before);
        self.frozen = self.frozen.without(sq);
        let old = self.remove(t, sq);
        let rule = t.promo[kind_of(old)].as_ref();
        if t.track_graveyard {
            let n = self.graveyard[side.index()][kind].saturating_sub(1);
            self.set_graveyard(t, side, kind, n);
        }
        self.put(t, sq, Piece::new(KindId(kind as u8), side).code());
        if rule.is_some_and(|r| r.waits) {
            self.make_wait(t, side, sq);
        }
        if S::ON {
            ev.push(Event::Returned {
                side,
                square: Square(sq as u8),
                from: KindId(kind_of(old) as u8),
                to: KindId(kind as u8),
            });
        }
    }

    /// Where a free castling's king stands: the first piece of its kind on its rank.
    #[inline]
    pub(crate) fn castle_king(&self, side: Side, f: &crate::movegen::tables::FreeCastle<B>) -> Option<usize> {
        (self.pieces(side, f.king_kind) & f.home).iter().next()
    }

    pub(crate) fn set_castling(&mut self, t: &Tables<B>, rights: u32) {
        let mut changed = self.castling ^ rights;
        while changed != 0 {
            let i = changed.trailing_zeros() as usize;
            changed &= changed - 1;
            self.hash ^= t.zobrist.castle[i];
        }
        self.castling = rights;
    }

    #[inline(always)]
    pub fn occupied(&self) -> B {
        self.by_side[0] | self.by_side[1]
    }

    #[inline(always)]
    pub fn pieces(&self, side: Side, kind: usize) -> B {
        self.by_kind[kind] & self.by_side[side.index()]
    }

    #[inline(always)]
    pub fn code(&self, sq: usize) -> u8 {
        self.board.as_ref()[sq]
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_code(self.code(sq.index()))
    }

    /// Royal pieces of `side` (bit set of squares).
    #[inline(always)]
    pub fn royals(&self, t: &Tables<B>, side: Side) -> B {
        self.of_kinds(t.royal) & self.by_side[side.index()]
    }

    /// The pieces of either side whose kind is in `kinds` (bit per kind).
    #[inline(always)]
    pub fn of_kinds(&self, mut kinds: u32) -> B {
        let mut out = B::EMPTY;
        while kinds != 0 {
            let k = kinds.trailing_zeros() as usize;
            kinds &= kinds - 1;
            out |= self.by_kind[k];
        }
        out
    }

    #[inline(always)]
    pub(crate) fn put(&mut self, t: &Tables<B>, sq: usize, code: u8) {
        let b = B::bit(sq);
        self.by_side[((code - 1) & 1) as usize] |= b;
        self.by_kind[kind_of(code)] |= b;
        self.board.as_mut()[sq] = code;
        self.hash ^= t.zobrist.piece[code as usize * t.nsq + sq];
    }

    #[inline(always)]
    pub(crate) fn remove(&mut self, t: &Tables<B>, sq: usize) -> u8 {
        let code = self.board.as_ref()[sq];
        let b = !B::bit(sq);
        self.by_side[((code - 1) & 1) as usize] &= b;
        self.by_kind[kind_of(code)] &= b;
        self.board.as_mut()[sq] = 0;
        self.hash ^= t.zobrist.piece[code as usize * t.nsq + sq];
        code
    }

    /// Drops every castling right whose king or rook no longer stands on its square (killed
    /// by damage, even by splash; or replaced by another piece).
    fn keep_castling_pieces(&mut self, t: &Tables<B>) {
        let mut rights = self.castling;
        let mut left = rights;
        while left != 0 {
            let i = left.trailing_zeros() as usize;
            left &= left - 1;
            let c = &t.castles[i];
            let ok = |sq: usize, kind: Option<usize>| {
                Piece::from_code(self.code(sq))
                    .is_some_and(|p| p.side == c.side && kind.is_none_or(|k| k == p.kind.index()))
            };
            let king = match &c.free {
                Some(f) => self.castle_king(c.side, f).unwrap_or(c.king),
                None => c.king,
            };
            if !ok(king, c.king_kind) || !ok(c.rook, c.rook_kind) {
                rights &= !(1 << i);
            }
        }
        if rights != self.castling {
            self.set_castling(t, rights);
        }
    }

    /// Whether the last action dropped a kind whose mate loses (`no_drop_mate` with
    /// `drop_mate = "loses"`): a checkmate it gave is a win for the side mated.
    pub fn mate_by_drop_loses(&self, t: &Tables<B>) -> bool {
        let k = self.last_drop;
        k != 0 && t.hand.as_deref().is_some_and(|h| h.drop_mate_loses & (1 << (k - 1)) != 0)
    }

    /// Applies an action that move generation produced. Events go to `ev`.
    pub fn make<S: Sink>(&mut self, t: &Tables<B>, a: Action, ev: &mut S) {
        if t.track_facing {
            self.faced = self.royals_face(t);
        }
        if a.kind == ActionKind::Pass {
            return self.make_pass(t, a, ev);
        }
        self.passes = 0;
        if a.kind == ActionKind::Drop {
            return self.make_drop(t, a, ev);
        }
        let us = self.stm;
        self.last_drop = 0;
        let from = a.from.index();
        let to = a.to.index();
        let code = self.code(from);
        let kind = kind_of(code);
        let mut progress = t.progress & (1 << kind) != 0;

        // The mover's returned pieces have waited through this turn: free them.
        self.free_waiting(t, us);
        self.clear_ep(t);
        // A move from a king's or rook's square costs its rights. So does a capture on it,
        // except with combat, where the attacked piece may survive: there the rights are
        // checked after the attack (see `keep_castling_pieces`).
        let keep_to = if t.combat.is_some() { u32::MAX } else { t.castle_keep[to] };
        let rights = self.castling & t.castle_keep[from] & keep_to & t.castle_keep_code[code as usize];
        if rights != self.castling {
            self.set_castling(t, rights);
        }

        if let Some(c) = t.combat.as_ref() {
            let damage = self.make_combat(t, c, a, ev);
            self.keep_castling_pieces(t);
            if a.kind == ActionKind::Skip {
                self.set_skipped(t, from, to);
            }
            self.refresh_inactive();
            let progress = progress || (damage && c.damage_is_progress);
            self.halfmove = if progress { 0 } else { self.halfmove.saturating_add(1) };
            if us == Side::Black {
                self.fullmove = self.fullmove.saturating_add(1);
            }
            self.stm = us.opponent();
            self.hash ^= t.zobrist.side;
            self.count_check(t, us);
            return;
        }

        // The piece the action took, if any: (square, code).
        let mut taken: Option<(usize, u8)> = None;
        match a.kind {
            ActionKind::Castle(i) => {
                // The king castles from where it stands (a free castling's king may
                // stand anywhere on its rank).
                let c = &t.castles[i as usize];
                let kc = self.remove(t, from);
                let rc = self.remove(t, c.rook);
                self.put(t, c.king_to, kc);
                self.put(t, c.rook_to, rc);
                if S::ON {
                    ev.push(Event::Castled {
                        side: us,
                        king_from: a.from,
                        king_to: Square(c.king_to as u8),
                        rook_from: Square(c.rook as u8),
                        rook_to: Square(c.rook_to as u8),
                    });
                }
            }
            ActionKind::Shot => {
                taken = Some((to, self.remove(t, to)));
                if S::ON {
                    ev.push(Event::Shot { side: us, kind: KindId(kind as u8), from: a.from, to: a.to });
                }
            }
            ActionKind::EnPassant => {
                let vsq = self.ep_victim as usize;
                taken = Some((vsq, self.remove(t, vsq)));
                self.remove(t, from);
                self.put(t, to, code);
                if S::ON {
                    ev.push(Event::Moved { side: us, kind: KindId(kind as u8), from: a.from, to: a.to });
                }
            }
            ActionKind::Normal | ActionKind::Skip => {
                let target = self.code(to);
                if target != 0 {
                    taken = Some((to, self.remove(t, to)));
                }
                self.remove(t, from);
                self.put(t, to, code);
                if S::ON {
                    ev.push(Event::Moved { side: us, kind: KindId(kind as u8), from: a.from, to: a.to });
                }
                if a.kind == ActionKind::Skip {
                    self.set_skipped(t, from, to);
                }
            }
            ActionKind::Drop | ActionKind::Pass => {}
        }
        if t.hand.is_some() {
            self.bank_taken(t, a, taken, ev);
        }
        if self.gates.any() {
            self.gate(t, a, ev);
        }
        if let Some((sq, victim)) = taken {
            progress = true;
            self.lost(t, sq, victim);
            if S::ON {
                ev.push(Event::Captured {
                    side: us.opponent(),
                    kind: KindId(kind_of(victim) as u8),
                    square: Square(sq as u8),
                });
            }
        }

        if let Some(rule) = t.promo[kind].as_ref() {
            if let Some(p) = a.promotion {
                self.remove(t, to);
                self.put(t, to, Piece::new(p, us).code());
                if rule.graveyard {
                    let n = self.graveyard[us.index()][p.index()].saturating_sub(1);
                    self.set_graveyard(t, us, p.index(), n);
                }
                if rule.waits {
                    self.make_wait(t, us, to);
                }
                // Marked only where the mark decides (a kind the hand holds as itself).
                if t.hand.as_deref().is_some_and(|h| h.rule.holds(p)) && !self.promoted.has(to) {
                    self.mark_promoted(t, to);
                }
                if S::ON {
                    ev.push(Event::Promoted { side: us, square: a.to, from: KindId(kind as u8), to: p });
                }
            } else if rule.when_empty == crate::variant::WhenEmpty::Freeze
                && matches!(a.kind, ActionKind::Normal | ActionKind::Skip)
                && t.promo_zone[us.index()][kind].has(to)
            {
                // It reached the zone with nothing to become: it freezes there (unless the
                // side already has the most frozen pieces a position holds).
                let before = self.queue[us.index()];
                if self.queue[us.index()].push(to as u8) {
                    self.frozen = self.frozen.with(to);
                    self.rehash_queue(t, us, before);
                    if S::ON {
                        ev.push(Event::Frozen { side: us, square: a.to });
                    }
                }
            }
        }
        if taken.is_some()
            && let Some(x) = t.explosion.as_deref()
        {
            self.explode(t, x, a, ev);
        }
        if let Some((_, victim)) = taken {
            let side = us.opponent();
            if !self.queue[side.index()].is_empty() {
                self.resolve_frozen(t, side, kind_of(victim), ev);
            }
        }
        self.refresh_inactive();

        self.halfmove = if progress { 0 } else { self.halfmove.saturating_add(1) };
        if us == Side::Black {
            self.fullmove = self.fullmove.saturating_add(1);
        }
        self.stm = us.opponent();
        self.hash ^= t.zobrist.side;
        self.count_check(t, us);
    }

    /// A capture's blast (`[rules.explosion]`), after the capture: the capturing piece
    /// (unless it survives), then every piece on the blast's squares around the capture
    /// square (the mover's destination: en passant too; a shot's target) whose kind it
    /// does not spare, in square order. Castling rights whose pieces are gone go too.
    #[cold]
    #[inline(never)]
    fn explode<S: Sink>(&mut self, t: &Tables<B>, x: &BlastTables<B>, a: Action, ev: &mut S) {
        let us = self.stm;
        let centre = a.to.index();
        let mut gone = x.area[us.index()][centre] & self.occupied();
        let mut ks = x.spares;
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            gone &= !self.by_kind[k];
        }
        let capturer = if a.kind == ActionKind::Shot { a.from.index() } else { centre };
        let first = if x.capturer_explodes && self.code(capturer) != 0 { B::bit(capturer) } else { B::EMPTY };
        for sq in first.iter().chain((gone & !first).iter()) {
            let code = self.remove(t, sq);
            self.lost(t, sq, code);
            if S::ON {
                let p = Piece::from_code(code).expect("an occupied square");
                ev.push(Event::Exploded { side: p.side, kind: p.kind, square: Square(sq as u8) });
            }
        }
        self.keep_castling_pieces(t);
    }

    /// Whether a royal piece of `side` on `sq` is safe from `by`'s captures because of the
    /// blast (`[rules.explosion]`): a capture there would blast a royal piece of `by`'s own
    /// (kings side by side never give each other check in atomic chess).
    #[inline]
    pub(crate) fn blast_shielded(&self, t: &Tables<B>, sq: usize, by: Side) -> bool {
        let Some(x) = t.explosion.as_deref() else { return false };
        let mut royals = B::EMPTY;
        let mut ks = x.blasted_royals;
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            royals |= self.by_kind[k];
        }
        (x.area[by.index()][sq] & royals & self.by_side[by.index()]).any()
    }

    /// After a skipping move: the squares passed over become en-passant targets, kept
    /// only where an enemy piece could take (so equal positions hash equally).
    fn set_skipped(&mut self, t: &Tables<B>, from: usize, to: usize) {
        let g = t.geo;
        let (f, s) = (Square(from as u8), Square(to as u8));
        let df = g.file(s) as i32 - g.file(f) as i32;
        let dr = g.rank(s) as i32 - g.rank(f) as i32;
        if df != 0 && dr != 0 && df.abs() != dr.abs() {
            return;
        }
        let step = (df.signum() as i8, dr.signum() as i8);
        let them = self.stm.opponent();
        let mut sq = g.offset(f, step);
        while let Some(x) = sq {
            if x == s {
                break;
            }
            let i = x.index();
            let keep = !t.ep_trim
                || (0..t.kinds[them.index()].len())
                    .any(|k| (t.kinds[them.index()][k].rev_ep[i] & self.pieces(them, k) & !self.inactive).any());
            if keep {
                self.ep = self.ep.with(i);
                self.hash ^= t.zobrist.ep[i];
            }
            sq = g.offset(x, step);
        }
        if self.ep.any() {
            self.ep_victim = to as u8;
        }
    }

    /// Pieces of `by` that attack `sq` through unconditional atoms, with `occ` as the
    /// occupancy (which may differ from the board, e.g. with the king lifted).
    #[inline]
    pub fn attackers(&self, t: &Tables<B>, sq: usize, by: Side, occ: B) -> B {
        let b = by.index();
        let mine = self.by_side[b] & !self.inactive;
        let mut out = B::EMPTY;
        let mut ks = t.leap_attackers[b];
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            out |= t.kinds[b][k].rev_leap[sq] & self.by_kind[k];
        }
        out &= mine;
        let sliders = self.sliders(t, b, mine);
        if sliders.is_empty() {
            return out;
        }
        for da in &t.slide_attacks[b] {
            if let Some(at) = self.slide_attacker(t, da, sq, occ, sliders) {
                out = out.with(at);
            }
        }
        out
    }

    /// Whether a piece of `by` attacks `sq` through an unconditional atom, with `occ` as
    /// the occupancy: `attackers(…).any()`, stopping at the first attacker found (the
    /// king's moves ask this for every target).
    #[inline]
    pub fn attacked(&self, t: &Tables<B>, sq: usize, by: Side, occ: B) -> bool {
        let b = by.index();
        let mine = self.by_side[b] & !self.inactive;
        let mut ks = t.leap_attackers[b];
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            if (t.kinds[b][k].rev_leap[sq] & self.by_kind[k] & mine).any() {
                return true;
            }
        }
        let sliders = self.sliders(t, b, mine);
        !sliders.is_empty()
            && t.slide_attacks[b].iter().any(|da| self.slide_attacker(t, da, sq, occ, sliders).is_some())
    }

    /// The pieces among `mine` (side `b`'s) of a kind that attacks by sliding.
    #[inline(always)]
    fn sliders(&self, t: &Tables<B>, b: usize, mine: B) -> B {
        let mut out = B::EMPTY;
        let mut ks = t.slide_attackers[b];
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            out |= self.by_kind[k];
        }
        out & mine
    }

    /// The piece of `sliders` that attacks `sq` along `da`'s line, if any: the first piece
    /// met from `sq` (under `occ`), if it is one of them, of a kind `da` lists, within range.
    #[inline(always)]
    fn slide_attacker(&self, t: &Tables<B>, da: &DirAttack, sq: usize, occ: B, sliders: B) -> Option<usize> {
        let ray = t.ray(da.scan, sq);
        // Most lines hold no slider at all: one test instead of finding the first blocker.
        if (ray & sliders).is_empty() {
            return None;
        }
        let blockers = ray & occ;
        if blockers.is_empty() {
            return None;
        }
        let at = if t.positive[da.scan as usize] { blockers.lsb() } else { blockers.msb() };
        if !sliders.has(at) {
            return None;
        }
        let k = kind_of(self.code(at));
        if da.kinds & (1 << k) == 0 {
            return None;
        }
        if da.limited && da.range[k] != 0 && self.steps(t, sq, at, da.scan) > da.range[k] as u32 {
            return None;
        }
        Some(at)
    }

    /// The number of steps along direction `dir` from `a` to `b` (which lie on its line).
    fn steps(&self, t: &Tables<B>, a: usize, b: usize, dir: u8) -> u32 {
        let (dx, dy) = t.dirs[dir as usize];
        let d = t.geo.distance(Square(a as u8), Square(b as u8)) as u32;
        d / (dx.unsigned_abs().max(dy.unsigned_abs()) as u32)
    }

    /// Whether a piece of `by` attacks `sq` through a conditional atom (a silenced shot,
    /// an atom some royal kinds are immune to…), judged on this very position against a
    /// target of kind `target`.
    pub fn cond_attacked(&self, t: &Tables<B>, sq: usize, by: Side, target: usize) -> bool {
        let b = by.index();
        let mut ks = t.cond_attackers[b];
        let occ = self.occupied();
        let enemies_of_by = self.by_side[by.opponent().index()];
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            let kt = &t.kinds[b][k];
            for f in (kt.rev_cond[sq] & self.pieces(by, k) & !self.inactive).iter() {
                for a in &kt.atoms {
                    if a.mode == crate::variant::Mode::Move
                        || !a.from.has(f)
                        || a.cannot_capture & (1 << target) != 0
                        || (a.silenced && (t.adjacent[f] & enemies_of_by).any())
                    {
                        continue;
                    }
                    if crate::movegen::reach(t, a, f, occ, &self.by_kind).has(sq) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Whether the first piece above or below `sq` on its file is a royal piece of `by`
    /// (`rules.royals_facing = "illegal"`: standing so counts as being attacked).
    fn faces_royal(&self, t: &Tables<B>, sq: usize, by: Side, occ: B) -> bool {
        let (up, down) = t.facing[sq];
        let theirs = self.royals(t, by);
        let (u, d) = (up & occ, down & occ);
        (u.any() && theirs.has(u.lsb())) || (d.any() && theirs.has(d.msb()))
    }

    /// Whether any royal piece of `side` is attacked, by any atom (with `[rules.explosion]`,
    /// not one that no capture could take without blasting the attacker's own royal piece).
    pub fn royal_attacked(&self, t: &Tables<B>, side: Side) -> bool {
        let them = side.opponent();
        let occ = self.occupied();
        for sq in self.royals(t, side).iter() {
            if t.explosion.is_some() && self.blast_shielded(t, sq, them) {
                continue;
            }
            if self.attacked(t, sq, them, occ) {
                return true;
            }
            if t.facing_illegal && self.faces_royal(t, sq, them, occ) {
                return true;
            }
            if t.cond_attackers[them.index()] != 0 && self.cond_attacked(t, sq, them, kind_of(self.code(sq))) {
                return true;
            }
        }
        false
    }
}
