//! Actions: what a player does on a turn (a move, a castling, a shot…).

use std::num::NonZeroU8;

use crate::geometry::Square;
use crate::piece::KindId;

/// What kind of action this is; decides how it is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ActionKind {
    /// The piece moves; an enemy on the destination is captured.
    Normal,
    /// A move that skips squares which the opponent may take en passant on the next reply.
    Skip,
    /// A capture onto a skipped square; the piece that skipped it is removed.
    EnPassant,
    /// Castling by the variant's castling entry of this index.
    Castle(u8),
    /// A ranged capture: the target is removed, the shooter stays.
    Shot,
    /// A piece from the mover's hand onto the empty `to` (`from` is `to`, `promotion` the
    /// kind dropped).
    Drop,
    /// The side to move passes (`[rules] pass`): nothing moves. `from` and `to` are the
    /// square of its royal piece (written `e2-e2`, as Fairy-Stockfish writes it).
    Pass,
}

/// One action of a two-sided board game. Width-independent: the same value works on
/// every board size. Written in text as `from-to`, with `=X` for a promotion and
/// `@square` for a landing choice; a drop as `X@square`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Action {
    pub from: Square,
    pub to: Square,
    pub kind: ActionKind,
    /// The kind that appears on `to` without having moved there: a promotion's new kind,
    /// or a drop's piece.
    pub promotion: Option<KindId>,
    /// Where the attacker lands, when an attack kills on several squares (combat).
    pub landing: Option<Square>,
    /// A held piece that enters the square this move leaves (gating).
    pub gate: Option<Gate>,
}

/// Gating (`[reserve] gating`): a piece of `kind` from the mover's hand enters the square
/// the move leaves: the mover's `from`, or with castling the king's square, or the
/// rook's when `rook` is set. One byte (with `Option`), so actions stay small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gate(NonZeroU8);

impl Gate {
    #[inline(always)]
    pub fn new(kind: KindId, rook: bool) -> Gate {
        // Kinds are fewer than 64 (MAX_KINDS), so kind + 1 fits in the low 6 bits.
        Gate(NonZeroU8::new((kind.0 + 1) | if rook { 0x80 } else { 0 }).expect("kind + 1 is not zero"))
    }
    /// The kind that enters.
    #[inline(always)]
    pub fn kind(self) -> KindId {
        KindId((self.0.get() & 0x3f) - 1)
    }
    /// With castling: it enters the rook's square (else the king's).
    #[inline(always)]
    pub fn rook(self) -> bool {
        self.0.get() & 0x80 != 0
    }
}

impl Action {
    #[inline(always)]
    pub fn new(from: Square, to: Square, kind: ActionKind) -> Action {
        Action { from, to, kind, promotion: None, landing: None, gate: None }
    }
    /// A piece of `kind` dropped from the hand onto `to`.
    #[inline(always)]
    pub fn drop(kind: KindId, to: Square) -> Action {
        Action { from: to, to, kind: ActionKind::Drop, promotion: Some(kind), landing: None, gate: None }
    }
    /// A pass, written as the piece on `at` staying there.
    #[inline(always)]
    pub fn pass(at: Square) -> Action {
        Action::new(at, at, ActionKind::Pass)
    }
    #[inline(always)]
    pub fn is_pass(&self) -> bool {
        self.kind == ActionKind::Pass
    }
    /// The kind this action promotes to: its `promotion`, except for a drop, where that
    /// field names the kind dropped.
    #[inline(always)]
    pub fn promotes_to(&self) -> Option<KindId> {
        if self.is_drop() { None } else { self.promotion }
    }
    #[inline(always)]
    pub fn is_drop(&self) -> bool {
        self.kind == ActionKind::Drop
    }
    #[inline(always)]
    pub fn promoting(self, kind: KindId) -> Action {
        Action { promotion: Some(kind), ..self }
    }
    #[inline(always)]
    pub fn gating(self, gate: Gate) -> Action {
        Action { gate: Some(gate), ..self }
    }
    #[inline(always)]
    pub fn landing_on(self, sq: Square) -> Action {
        Action { landing: Some(sq), ..self }
    }
}
