//! The geometry of a tiled, unbounded world: global integer squares `[x, y]` (negative
//! too), boards `[floor(x/w), floor(y/h)]` of the variant's tile size, and the boards a
//! path touches. Squares and boards order by `(y, x)`, the order every rule that needs
//! one uses (forced flees, placements, resolution).

use std::cmp::Ordering;

/// A square of the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pos {
    pub x: i32,
    pub y: i32,
}

/// A board of the world, by its board coordinates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardId {
    pub bx: i32,
    pub by: i32,
}

impl Pos {
    pub fn new(x: i32, y: i32) -> Pos {
        Pos { x, y }
    }

    /// The board this square is on.
    #[inline]
    pub fn board(self, tile: (i32, i32)) -> BoardId {
        BoardId { bx: self.x.div_euclid(tile.0), by: self.y.div_euclid(tile.1) }
    }

    /// Its offset from the lower-left corner of its board.
    #[inline]
    pub fn local(self, tile: (i32, i32)) -> (i32, i32) {
        (self.x.rem_euclid(tile.0), self.y.rem_euclid(tile.1))
    }

    /// The square `(dx, dy)` away; None past the range of coordinates.
    #[inline]
    pub fn offset(self, dx: i32, dy: i32) -> Option<Pos> {
        Some(Pos { x: self.x.checked_add(dx)?, y: self.y.checked_add(dy)? })
    }
}

impl Ord for Pos {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.y, self.x).cmp(&(o.y, o.x))
    }
}
impl PartialOrd for Pos {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for BoardId {
    fn cmp(&self, o: &Self) -> Ordering {
        (self.by, self.bx).cmp(&(o.by, o.bx))
    }
}
impl PartialOrd for BoardId {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl BoardId {
    /// Its lower-left square.
    pub fn corner(self, tile: (i32, i32)) -> Option<Pos> {
        Some(Pos { x: self.bx.checked_mul(tile.0)?, y: self.by.checked_mul(tile.1)? })
    }

    /// The board of the square `(x, y)` squares from this board's lower-left corner (any
    /// offset, negative too): without a division while the offset stays on this board,
    /// which is most steps of a walk.
    #[inline]
    pub fn at_local(self, tile: (i32, i32), x: i32, y: i32) -> BoardId {
        let bx = if (x as u32) < tile.0 as u32 { self.bx } else { self.bx.wrapping_add(x.div_euclid(tile.0)) };
        let by = if (y as u32) < tile.1 as u32 { self.by } else { self.by.wrapping_add(y.div_euclid(tile.1)) };
        BoardId { bx, by }
    }

    /// Its squares in (y, x) order.
    pub fn squares(self, tile: (i32, i32)) -> impl Iterator<Item = Pos> {
        let c = self.corner(tile);
        (0..tile.1).flat_map(move |y| (0..tile.0).filter_map(move |x| c.and_then(|c| c.offset(x, y))))
    }
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}, {}]", self.x, self.y)
    }
}

impl std::fmt::Display for BoardId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}, {}]", self.bx, self.by)
    }
}

/// The boards the squares `from + i·(dx, dy)` for `i = 1..=n` touch, other than the board
/// of `from`, written into `out` (at most `limit + 1` are collected: enough to tell the
/// path enters too many).
pub fn boards_entered(from: Pos, (dx, dy): (i32, i32), n: i32, tile: (i32, i32), limit: usize, out: &mut Vec<BoardId>) {
    out.clear();
    let home = from.board(tile);
    for i in 1..=n {
        let Some(p) = from.offset(dx * i, dy * i) else { break };
        let b = p.board(tile);
        if b != home && !out.contains(&b) {
            out.push(b);
            if out.len() > limit {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_squares_are_on_negative_boards() {
        let t = (5, 5);
        assert_eq!(Pos::new(0, 0).board(t), BoardId { bx: 0, by: 0 });
        assert_eq!(Pos::new(4, 4).board(t), BoardId { bx: 0, by: 0 });
        assert_eq!(Pos::new(5, -1).board(t), BoardId { bx: 1, by: -1 });
        assert_eq!(Pos::new(-1, -5).board(t), BoardId { bx: -1, by: -1 });
        assert_eq!(Pos::new(-6, -6).board(t), BoardId { bx: -2, by: -2 });
        assert_eq!(Pos::new(-1, -6).local(t), (4, 4));
        assert_eq!(BoardId { bx: -1, by: 2 }.corner(t), Some(Pos::new(-5, 10)));
    }

    #[test]
    fn squares_order_by_y_then_x() {
        let mut v = vec![Pos::new(3, 1), Pos::new(-2, 1), Pos::new(9, 0)];
        v.sort();
        assert_eq!(v, vec![Pos::new(9, 0), Pos::new(-2, 1), Pos::new(3, 1)]);
        let b: Vec<Pos> = BoardId { bx: 0, by: 0 }.squares((2, 2)).collect();
        assert_eq!(b, vec![Pos::new(0, 0), Pos::new(1, 0), Pos::new(0, 1), Pos::new(1, 1)]);
    }

    #[test]
    fn boards_found_from_a_local_offset_are_the_squares_boards() {
        let t = (5, 5);
        for b in [BoardId { bx: 0, by: 0 }, BoardId { bx: -3, by: 2 }, BoardId { bx: 7, by: -1 }] {
            let c = b.corner(t).unwrap();
            for x in -12..12 {
                for y in -12..12 {
                    assert_eq!(b.at_local(t, x, y), Pos::new(c.x + x, c.y + y).board(t), "{b} + ({x}, {y})");
                }
            }
        }
    }

    #[test]
    fn a_diagonal_that_clips_a_side_board_enters_two() {
        // From [3,3] on board [0,0], up-right by 3: [4,4] (home), [5,5] (board [1,1]),
        // [6,6] (board [1,1]); up-right from [4,3]: [5,4] is board [1,0], [6,5] board [1,1].
        let mut out = Vec::new();
        boards_entered(Pos::new(3, 3), (1, 1), 3, (5, 5), 1, &mut out);
        assert_eq!(out, vec![BoardId { bx: 1, by: 1 }]);
        boards_entered(Pos::new(4, 3), (1, 1), 2, (5, 5), 1, &mut out);
        assert_eq!(out, vec![BoardId { bx: 1, by: 0 }, BoardId { bx: 1, by: 1 }]);
    }
}
