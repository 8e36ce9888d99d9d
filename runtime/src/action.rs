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
}

/// One action of a two-sided board game. Width-independent: the same value works on
/// every board size. Written in text as `from-to`, with `=X` for a promotion and
/// `@square` for a landing choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Action {
    pub from: Square,
    pub to: Square,
    pub kind: ActionKind,
    pub promotion: Option<KindId>,
    /// Where the attacker lands, when an attack kills on several squares (combat).
    pub landing: Option<Square>,
}

impl Action {
    #[inline(always)]
    pub fn new(from: Square, to: Square, kind: ActionKind) -> Action {
        Action { from, to, kind, promotion: None, landing: None }
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
