//! Sides, piece kinds and the one-byte piece codes of the mailbox.

use std::fmt;

/// The most piece kinds a variant may declare.
pub const MAX_KINDS: usize = 16;

/// A player of a two-sided game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Side {
    White = 0,
    Black = 1,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::White, Side::Black];

    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }
    #[inline(always)]
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
    #[inline(always)]
    pub fn from_index(i: usize) -> Side {
        if i == 0 { Side::White } else { Side::Black }
    }
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
    pub fn parse(text: &str) -> Option<Side> {
        match text.to_ascii_lowercase().as_str() {
            "white" | "w" => Some(Side::White),
            "black" | "b" => Some(Side::Black),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A piece kind, by its index in the variant's list of kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KindId(pub u8);

impl KindId {
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A piece on a square: its kind and side, packed into one non-zero byte
/// (`0` in the mailbox is an empty square).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub kind: KindId,
    pub side: Side,
}

impl Piece {
    #[inline(always)]
    pub fn new(kind: KindId, side: Side) -> Piece {
        Piece { kind, side }
    }
    #[inline(always)]
    pub fn code(self) -> u8 {
        ((self.kind.0 << 1) | self.side as u8) + 1
    }
    #[inline(always)]
    pub fn from_code(code: u8) -> Option<Piece> {
        if code == 0 {
            None
        } else {
            Some(Piece { kind: KindId((code - 1) >> 1), side: Side::from_index(((code - 1) & 1) as usize) })
        }
    }
}

/// The number of distinct piece codes (including 0 for empty).
pub const CODES: usize = 2 * MAX_KINDS + 1;

/// Everything about one piece beyond its kind and side: hit points and auras (with
/// `[combat]`), waiting and frozen flags. What "hovering a piece" shows, and what
/// fixtures and snapshots check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceState {
    pub square: crate::geometry::Square,
    pub piece: Piece,
    /// Hit points now and at most (with `[combat]`).
    pub hp: Option<u8>,
    pub max_hp: Option<u8>,
    /// Its base damage and area damage (with `[combat]`).
    pub damage: i64,
    pub aoe: i64,
    /// Multiply-aura stacks it would attack with now, and the multiplier they give.
    pub stacks: u32,
    pub multiplier: i64,
    /// Multiply-aura sources next to it (its own included): their square and whether
    /// their stack is spent on it.
    pub sources: Vec<(crate::geometry::Square, bool)>,
    /// It holds the divide aura, and has been out of its range this many plies.
    pub guarded: bool,
    pub outside_plies: u8,
    pub waiting: bool,
    pub frozen: bool,
}
