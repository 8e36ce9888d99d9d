//! Actions: what a player does on a turn (a move, a castling, a shot…).

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
}

impl Action {
    #[inline(always)]
    pub fn new(from: Square, to: Square, kind: ActionKind) -> Action {
        Action { from, to, kind, promotion: None, landing: None }
    }
    /// A piece of `kind` dropped from the hand onto `to`.
    #[inline(always)]
    pub fn drop(kind: KindId, to: Square) -> Action {
        Action { from: to, to, kind: ActionKind::Drop, promotion: Some(kind), landing: None }
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
    pub fn landing_on(self, sq: Square) -> Action {
        Action { landing: Some(sq), ..self }
    }
}
