//! Rectangular board geometry: squares, their names, offsets and distances.
//!
//! Squares are numbered rank by rank from a1: `index = rank * files + file`, so on an
//! 8×8 board a1 = 0, h1 = 7, a8 = 56. Names use one file letter (`a`…`p`) and a rank
//! number (`1`…`16`): boards from 1×1 to 16×16.

use std::fmt;

use thiserror::Error;

/// The largest number of files or ranks a rectangular board may have.
pub const MAX_SIDE: u8 = 16;

/// A square of a rectangular board, by index (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    #[inline(always)]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A step or leap on the board: `dx` along files, `dy` along ranks.
pub type Offset = (i8, i8);

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardError {
    #[error("a board must have 1 to {MAX_SIDE} files and ranks, not {files}×{ranks}")]
    Size { files: u32, ranks: u32 },
    #[error("`{text}` is not a square name (expected a file letter and a rank number, like e4)")]
    BadSquare { text: String },
    #[error("square {text} is off the {files}×{ranks} board")]
    OffBoard { text: String, files: u8, ranks: u8 },
}

/// The shape of a rectangular board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub files: u8,
    pub ranks: u8,
}

impl Geometry {
    pub fn new(files: u32, ranks: u32) -> Result<Self, BoardError> {
        let ok = |n: u32| (1..=MAX_SIDE as u32).contains(&n);
        if !ok(files) || !ok(ranks) {
            return Err(BoardError::Size { files, ranks });
        }
        Ok(Geometry { files: files as u8, ranks: ranks as u8 })
    }

    /// The number of squares.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.files as usize * self.ranks as usize
    }

    /// Always false: a board has at least one square.
    pub fn is_empty(&self) -> bool {
        false
    }

    #[inline(always)]
    pub fn file(&self, sq: Square) -> u8 {
        sq.0 % self.files
    }

    #[inline(always)]
    pub fn rank(&self, sq: Square) -> u8 {
        sq.0 / self.files
    }

    /// The square at (file, rank), if on the board.
    #[inline]
    pub fn at(&self, file: i32, rank: i32) -> Option<Square> {
        if file < 0 || rank < 0 || file >= self.files as i32 || rank >= self.ranks as i32 {
            None
        } else {
            Some(Square((rank * self.files as i32 + file) as u8))
        }
    }

    /// The square reached from `sq` by `(dx, dy)`, if on the board.
    #[inline]
    pub fn offset(&self, sq: Square, (dx, dy): Offset) -> Option<Square> {
        self.at(self.file(sq) as i32 + dx as i32, self.rank(sq) as i32 + dy as i32)
    }

    /// The same square seen from the other side of the board (ranks flipped).
    #[inline]
    pub fn mirror(&self, sq: Square) -> Square {
        Square((self.ranks - 1 - self.rank(sq)) * self.files + self.file(sq))
    }

    /// King-move (Chebyshev) distance.
    pub fn distance(&self, a: Square, b: Square) -> u8 {
        let df = (self.file(a) as i32 - self.file(b) as i32).unsigned_abs();
        let dr = (self.rank(a) as i32 - self.rank(b) as i32).unsigned_abs();
        df.max(dr) as u8
    }

    /// Whether the square is light (a1 is dark, as in chess).
    pub fn is_light(&self, sq: Square) -> bool {
        (self.file(sq) + self.rank(sq)) % 2 == 1
    }

    pub fn squares(&self) -> impl Iterator<Item = Square> + use<> {
        (0..self.len()).map(|i| Square(i as u8))
    }

    /// The name of a square, such as `e4` or `j10`.
    pub fn name(&self, sq: Square) -> SquareName {
        SquareName { file: self.file(sq), rank: self.rank(sq) }
    }

    /// Parses a square name, case-insensitively.
    pub fn parse(&self, text: &str) -> Result<Square, BoardError> {
        let (file, rank) = parse_coords(text).ok_or_else(|| BoardError::BadSquare { text: text.into() })?;
        self.at(file as i32, rank as i32).ok_or(BoardError::OffBoard {
            text: text.to_ascii_lowercase(),
            files: self.files,
            ranks: self.ranks,
        })
    }

    /// Parses a square name at the start of `text`; returns the square and the rest.
    pub fn parse_prefix<'a>(&self, text: &'a str) -> Result<(Square, &'a str), BoardError> {
        // A name is one letter and ASCII digits: the end is found by characters, so text
        // that starts with any other character (`é`) is refused, never split inside it.
        let end = match text.chars().next() {
            Some(c) => c.len_utf8() + text[c.len_utf8()..].bytes().take_while(u8::is_ascii_digit).count(),
            None => 0,
        };
        Ok((self.parse(&text[..end])?, &text[end..]))
    }
}

/// File and rank (both from 0) of a square name, before checking a board.
fn parse_coords(text: &str) -> Option<(u8, u8)> {
    let b = text.as_bytes();
    let letter = b.first()?.to_ascii_lowercase();
    if !letter.is_ascii_lowercase() || b.len() < 2 || b.len() > 3 || b[1] == b'0' {
        return None;
    }
    let rank: u32 = text[1..].parse().ok().filter(|_| b[1..].iter().all(u8::is_ascii_digit))?;
    if rank == 0 || rank > 99 {
        return None;
    }
    Some((letter - b'a', (rank - 1) as u8))
}

/// A square's printable name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareName {
    file: u8,
    rank: u8,
}

impl fmt::Display for SquareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file) as char, self.rank as u16 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_on_every_size() {
        for (w, h) in [(1, 1), (8, 8), (10, 10), (16, 16), (5, 12)] {
            let g = Geometry::new(w, h).unwrap();
            for sq in g.squares() {
                let name = g.name(sq).to_string();
                assert_eq!(g.parse(&name), Ok(sq), "{name}");
                assert_eq!(g.parse(&name.to_uppercase()), Ok(sq));
            }
        }
        let g = Geometry::new(16, 16).unwrap();
        assert_eq!(g.name(Square(255)).to_string(), "p16");
        assert_eq!(g.parse("a10"), Ok(Square(144)));
    }

    #[test]
    fn bad_names_and_sizes_are_errors() {
        let g = Geometry::new(8, 8).unwrap();
        assert!(matches!(g.parse("i1"), Err(BoardError::OffBoard { .. })));
        assert!(matches!(g.parse("a9"), Err(BoardError::OffBoard { .. })));
        for bad in ["", "e", "4e", "e0", "e04", "e-1", "ee4"] {
            assert!(matches!(g.parse(bad), Err(BoardError::BadSquare { .. })), "{bad}");
        }
        assert!(Geometry::new(0, 8).is_err());
        assert!(Geometry::new(17, 8).is_err());
    }

    #[test]
    fn offsets_stay_on_the_board() {
        let g = Geometry::new(8, 8).unwrap();
        let e4 = g.parse("e4").unwrap();
        assert_eq!(g.offset(e4, (1, 2)), Some(g.parse("f6").unwrap()));
        assert_eq!(g.offset(g.parse("h1").unwrap(), (1, 0)), None);
        assert_eq!(g.offset(g.parse("a1").unwrap(), (0, -1)), None);
        assert_eq!(g.mirror(g.parse("e2").unwrap()), g.parse("e7").unwrap());
        assert_eq!(g.distance(g.parse("a1").unwrap(), g.parse("c4").unwrap()), 3);
        assert!(!g.is_light(g.parse("a1").unwrap()) && g.is_light(g.parse("h1").unwrap()));
    }

    #[test]
    fn prefix_parsing_splits_multi_digit_ranks() {
        let g = Geometry::new(10, 10).unwrap();
        let (sq, rest) = g.parse_prefix("j10-j9").unwrap();
        assert_eq!((g.name(sq).to_string(), rest), ("j10".to_string(), "-j9"));
    }

    #[test]
    fn prefix_parsing_reads_characters_not_bytes() {
        let g = Geometry::new(8, 8).unwrap();
        for bad in ["é", "éé-e4", "e\u{301}4", "", "€1"] {
            assert!(matches!(g.parse_prefix(bad), Err(BoardError::BadSquare { .. })), "{bad}");
        }
        let (sq, rest) = g.parse_prefix("e4é").unwrap();
        assert_eq!((sq, rest), (g.parse("e4").unwrap(), "é"));
    }
}
