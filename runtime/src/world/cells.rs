//! Sparse storage of a world: only boards that hold something (or have an owner) exist,
//! each a small array of cells, found through a grid of chunks of 16×16 boards (a hash
//! map of chunks, each a dense table of board slots: neighbouring boards share a chunk,
//! so the lookups of movement stay in cache). A cell packs
//! its piece into one `u64`: owner, kind, and the index of the order moving it during a
//! resolution (so a piece removed mid-round cancels its own move).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::geometry::{BoardId, Pos};
use crate::piece::KindId;

/// A fast, deterministic hasher for board coordinates (the multiply-rotate of rustc's
/// FxHash): map iteration order never reaches results, lookups are the hot path.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    #[inline]
    fn write_i32(&mut self, n: i32) {
        self.write_u64(n as u32 as u64);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// Boards per side of a chunk of the board index (a power of two).
const CHUNK_BITS: u32 = 4;
const CHUNK_AREA: usize = 1 << (2 * CHUNK_BITS);
const CHUNK_MASK: i32 = (1 << CHUNK_BITS) - 1;

#[inline]
fn chunk_of(b: BoardId) -> ((i32, i32), usize) {
    // Arithmetic shifts floor, so negative boards fall in their own chunks.
    let c = (b.bx >> CHUNK_BITS, b.by >> CHUNK_BITS);
    (c, (((b.by & CHUNK_MASK) << CHUNK_BITS) | (b.bx & CHUNK_MASK)) as usize)
}

/// Who owns nothing: a board without an owner.
pub const NOBODY: u32 = u32::MAX;

/// A piece as stored: its owner (a player's index in join order) and kind, and during a
/// resolution the mover it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Cell(u64);

impl Cell {
    pub const EMPTY: Cell = Cell(0);

    #[inline]
    pub fn piece(owner: u32, kind: KindId) -> Cell {
        Cell(((owner as u64 + 1) << 32) | kind.0 as u64)
    }
    #[inline]
    pub fn with_mover(self, mover: u32) -> Cell {
        Cell((self.0 & !0xffff_ffe0) | ((mover as u64 + 1) << 5))
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    #[inline]
    pub fn owner(self) -> u32 {
        ((self.0 >> 32) as u32).wrapping_sub(1)
    }
    #[inline]
    pub fn kind(self) -> KindId {
        KindId((self.0 & 31) as u8)
    }
    /// The mover this piece is, during a resolution.
    #[inline]
    pub fn mover(self) -> Option<u32> {
        let m = ((self.0 >> 5) & 0x7ff_ffff) as u32;
        m.checked_sub(1)
    }
    /// The piece without its mover.
    #[inline]
    pub fn plain(self) -> Cell {
        Cell(self.0 & !0xffff_ffe0)
    }
}

/// The boards of a world and what stands on them.
#[derive(Clone, Debug)]
pub struct Cells {
    tile: (i32, i32),
    area: usize,
    /// Chunk (board coordinates divided by [`CHUNK`]) → its table in `slots`.
    chunks: FxMap<(i32, i32), u32>,
    /// Per chunk, the slot of each of its boards (`u32::MAX`: none), row by row.
    slots: Vec<[u32; CHUNK_AREA]>,
    /// Per board, in creation order.
    boards: Vec<BoardId>,
    pub(crate) owners: Vec<u32>,
    cells: Vec<Cell>,
    /// For 0 ≤ d < 5·width: (d / width, d % width); the same for heights.
    xdiv: Vec<(u8, u8)>,
    ydiv: Vec<(u8, u8)>,
}

impl Cells {
    pub fn new(tile: (i32, i32)) -> Cells {
        Cells {
            tile,
            area: (tile.0 * tile.1) as usize,
            chunks: FxMap::default(),
            slots: Vec::new(),
            boards: Vec::new(),
            owners: Vec::new(),
            cells: Vec::new(),
            xdiv: (0..5 * tile.0).map(|d| ((d / tile.0) as u8, (d % tile.0) as u8)).collect(),
            ydiv: (0..5 * tile.1).map(|d| ((d / tile.1) as u8, (d % tile.1) as u8)).collect(),
        }
    }

    /// Room for this many boards.
    pub fn reserve(&mut self, boards: usize) {
        self.chunks.reserve(boards / CHUNK_AREA + 1);
        self.slots.reserve(boards / CHUNK_AREA + 1);
        self.boards.reserve(boards);
        self.owners.reserve(boards);
        self.cells.reserve(boards * self.area);
    }

    pub fn tile(&self) -> (i32, i32) {
        self.tile
    }

    #[inline]
    fn slot(&self, p: Pos) -> Option<usize> {
        let b = p.board(self.tile);
        let t = self.find(b)?;
        // The offset in the board without a second division: the true value is in
        // 0..width, so wrapping arithmetic gives it even where `b·width` overflows.
        let lx = p.x.wrapping_sub(b.bx.wrapping_mul(self.tile.0));
        let ly = p.y.wrapping_sub(b.by.wrapping_mul(self.tile.1));
        Some(t * self.area + (ly * self.tile.0 + lx) as usize)
    }

    #[inline]
    pub fn get(&self, p: Pos) -> Cell {
        self.slot(p).map_or(Cell::EMPTY, |i| self.cells[i])
    }

    /// Where `p` is stored: its board's index and its offset in that board (row by row);
    /// None if its board does not exist.
    #[inline]
    pub fn locate(&self, p: Pos) -> Option<(usize, usize)> {
        let b = p.board(self.tile);
        let t = self.find(b)?;
        let lx = p.x.wrapping_sub(b.bx.wrapping_mul(self.tile.0));
        let ly = p.y.wrapping_sub(b.by.wrapping_mul(self.tile.1));
        Some((t, (ly * self.tile.0 + lx) as usize))
    }

    /// The board's index, creating it (empty, without owner) if needed.
    pub fn board_index(&mut self, b: BoardId) -> usize {
        if let Some(t) = self.find(b) {
            return t;
        }
        let t = self.boards.len();
        let (c, i) = chunk_of(b);
        let n = self.slots.len() as u32;
        let k = *self.chunks.entry(c).or_insert(n) as usize;
        if k == self.slots.len() {
            self.slots.push([u32::MAX; CHUNK_AREA]);
        }
        self.slots[k][i] = t as u32;
        self.boards.push(b);
        self.owners.push(NOBODY);
        self.cells.resize(self.cells.len() + self.area, Cell::EMPTY);
        t
    }

    pub fn set(&mut self, p: Pos, c: Cell) {
        let i = match self.slot(p) {
            Some(i) => i,
            None if c.is_empty() => return,
            None => {
                let t = self.board_index(p.board(self.tile));
                let (lx, ly) = p.local(self.tile);
                t * self.area + (ly * self.tile.0 + lx) as usize
            }
        };
        self.cells[i] = c;
    }

    pub fn owner(&self, b: BoardId) -> u32 {
        self.find(b).map_or(NOBODY, |t| self.owners[t])
    }

    pub fn set_owner(&mut self, b: BoardId, owner: u32) {
        let t = self.board_index(b);
        self.owners[t] = owner;
    }

    /// The cell at this offset of the board at this index (see [`Cells::locate`]).
    #[inline]
    pub fn cell(&self, t: usize, local: usize) -> Cell {
        self.cells[t * self.area + local]
    }

    /// Every board that exists, in creation order.
    pub fn boards(&self) -> &[BoardId] {
        &self.boards
    }

    /// The cells of the board at this index, row by row from the lower-left corner.
    pub fn board_cells(&self, t: usize) -> &[Cell] {
        &self.cells[t * self.area..(t + 1) * self.area]
    }

    /// The cells of the board at this index, to write.
    pub fn board_cells_mut(&mut self, t: usize) -> &mut [Cell] {
        &mut self.cells[t * self.area..(t + 1) * self.area]
    }

    /// A view of the boards within 2 boards of `center` (every lookup inside it
    /// is an array index, not a hash lookup; outside it falls back to the map).
    pub fn window(&self, center: BoardId) -> Window<'_> {
        self.window_within(center, 2)
    }

    /// A window of `radius` (1 or 2) boards around `center`: fewer lookups to set up
    /// when the question stays near one board (boards further out are still read, from
    /// the map).
    pub fn window_within(&self, center: BoardId, radius: i32) -> Window<'_> {
        let r = radius.clamp(0, 2);
        let mut idx = [u32::MAX; 25];
        self.square_of_boards(center, r, |dx, dy, t| idx[((dy + 2) * 5 + dx + 2) as usize] = t);
        if r < 2 {
            // The outer ring is not looked up: read it from the map.
            for (i, slot) in idx.iter_mut().enumerate() {
                let (dx, dy) = (i as i32 % 5 - 2, i as i32 / 5 - 2);
                if dx.abs() > r || dy.abs() > r {
                    *slot = FROM_MAP;
                }
            }
        }
        let (tw, th) = self.tile;
        let ox = center.bx.wrapping_sub(2).wrapping_mul(tw);
        let oy = center.by.wrapping_sub(2).wrapping_mul(th);
        Window { cells: self, ox, oy, idx }
    }

    /// The indices of the 3×3 boards around `center` (row by row from the lower left;
    /// `u32::MAX` where there is none).
    #[inline]
    pub(crate) fn around(&self, center: BoardId) -> [u32; 9] {
        let mut idx = [u32::MAX; 9];
        self.square_of_boards(center, 1, |dx, dy, t| idx[((dy + 1) * 3 + dx + 1) as usize] = t);
        idx
    }

    /// Calls `f(dx, dy, index or u32::MAX)` for the boards within `r` (at most 2) of
    /// `center`.
    #[inline]
    fn square_of_boards(&self, center: BoardId, r: i32, mut f: impl FnMut(i32, i32, u32)) {
        // The boards span at most two chunks each way: their tables are looked up once.
        let (x0, x1) = (center.bx.wrapping_sub(r) >> CHUNK_BITS, center.bx.wrapping_add(r) >> CHUNK_BITS);
        let (y0, y1) = (center.by.wrapping_sub(r) >> CHUNK_BITS, center.by.wrapping_add(r) >> CHUNK_BITS);
        let table = |cx: i32, cy: i32| self.chunks.get(&(cx, cy)).map(|&k| &self.slots[k as usize]);
        let low = table(x0, y0);
        let right = if x1 != x0 { table(x1, y0) } else { low };
        let (up, up_right) = if y1 == y0 {
            (low, right)
        } else {
            let up = table(x0, y1);
            (up, if x1 != x0 { table(x1, y1) } else { up })
        };
        for dy in -r..=r {
            let by = center.by.wrapping_add(dy);
            let (l, rt) = if by >> CHUNK_BITS == y0 { (low, right) } else { (up, up_right) };
            for dx in -r..=r {
                let bx = center.bx.wrapping_add(dx);
                let t = if bx >> CHUNK_BITS == x0 { l } else { rt };
                let i = (((by & CHUNK_MASK) << CHUNK_BITS) | (bx & CHUNK_MASK)) as usize;
                f(dx, dy, t.map_or(u32::MAX, |t| t[i]));
            }
        }
    }

    /// The index of an existing board.
    #[inline]
    pub fn find(&self, b: BoardId) -> Option<usize> {
        let (c, i) = chunk_of(b);
        let k = *self.chunks.get(&c)?;
        let t = self.slots[k as usize][i];
        (t != u32::MAX).then_some(t as usize)
    }

    /// Every piece, with its square, in storage order (not sorted).
    pub fn pieces(&self) -> impl Iterator<Item = (Pos, Cell)> + '_ {
        let (w, _) = self.tile;
        self.boards.iter().enumerate().flat_map(move |(t, b)| {
            let corner = b.corner(self.tile).unwrap_or(Pos::new(0, 0));
            self.board_cells(t)
                .iter()
                .enumerate()
                .filter(|(_, c)| !c.is_empty())
                .map(move |(i, c)| (Pos::new(corner.x + i as i32 % w, corner.y + i as i32 / w), *c))
        })
    }
}

/// A window slot not looked up (read from the map when asked).
const FROM_MAP: u32 = u32::MAX - 1;

/// A neighbourhood of boards with their storage looked up once (see [`Cells::window`]).
pub struct Window<'a> {
    cells: &'a Cells,
    /// The lower-left square of the window.
    ox: i32,
    oy: i32,
    idx: [u32; 25],
}

impl<'a> Window<'a> {
    #[inline]
    pub fn get(&self, p: Pos) -> Cell {
        let c = self.cells;
        let (dx, dy) = (p.x.wrapping_sub(self.ox), p.y.wrapping_sub(self.oy));
        if dx < 0 || dy < 0 || dx as usize >= c.xdiv.len() || dy as usize >= c.ydiv.len() {
            return c.get(p);
        }
        // Divisions by the tile size, looked up: this is the innermost loop of movement.
        let (bx, lx) = c.xdiv[dx as usize];
        let (by, ly) = c.ydiv[dy as usize];
        let i = self.idx[by as usize * 5 + bx as usize];
        if i == u32::MAX {
            return Cell::EMPTY;
        }
        if i == FROM_MAP {
            return c.get(p);
        }
        c.cells[i as usize * c.area + ly as usize * c.tile.0 as usize + lx as usize]
    }

    /// [`Cells::locate`], through the window.
    #[inline]
    pub fn locate(&self, p: Pos) -> Option<(usize, usize)> {
        let c = self.cells;
        let (dx, dy) = (p.x.wrapping_sub(self.ox), p.y.wrapping_sub(self.oy));
        if dx < 0 || dy < 0 || dx as usize >= c.xdiv.len() || dy as usize >= c.ydiv.len() {
            return c.locate(p);
        }
        let (bx, lx) = c.xdiv[dx as usize];
        let (by, ly) = c.ydiv[dy as usize];
        match self.idx[by as usize * 5 + bx as usize] {
            u32::MAX => None,
            FROM_MAP => c.locate(p),
            i => Some((i as usize, ly as usize * c.tile.0 as usize + lx as usize)),
        }
    }

    /// [`Window::locate`] with the index of the board in the window (0..25, lower-left
    /// first, row by row; 25 outside it): `(window index, board index, offset)`.
    #[inline]
    pub fn spot(&self, p: Pos) -> Option<(usize, usize, usize)> {
        let c = self.cells;
        let (dx, dy) = (p.x.wrapping_sub(self.ox), p.y.wrapping_sub(self.oy));
        if dx < 0 || dy < 0 || dx as usize >= c.xdiv.len() || dy as usize >= c.ydiv.len() {
            return c.locate(p).map(|(t, l)| (25, t, l));
        }
        let (bx, lx) = c.xdiv[dx as usize];
        let (by, ly) = c.ydiv[dy as usize];
        let wi = by as usize * 5 + bx as usize;
        match self.idx[wi] {
            u32::MAX => None,
            FROM_MAP => c.locate(p).map(|(t, l)| (25, t, l)),
            i => Some((wi, i as usize, ly as usize * c.tile.0 as usize + lx as usize)),
        }
    }

    /// The world it looks at.
    pub fn cells(&self) -> &'a Cells {
        self.cells
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_pack_owner_kind_and_mover() {
        let c = Cell::piece(7, KindId(3));
        assert_eq!((c.owner(), c.kind(), c.mover()), (7, KindId(3), None));
        let m = c.with_mover(123_456);
        assert_eq!((m.owner(), m.kind(), m.mover()), (7, KindId(3), Some(123_456)));
        assert_eq!(m.plain(), c);
        assert!(Cell::EMPTY.is_empty() && !c.is_empty());
    }

    #[test]
    fn sparse_boards_appear_when_written() {
        let mut w = Cells::new((5, 5));
        assert!(w.get(Pos::new(-3, -12)).is_empty());
        w.set(Pos::new(-3, -12), Cell::piece(0, KindId(1)));
        assert_eq!(w.boards(), &[BoardId { bx: -1, by: -3 }]);
        assert_eq!(w.get(Pos::new(-3, -12)).kind(), KindId(1));
        assert!(w.get(Pos::new(-2, -12)).is_empty());
        let all: Vec<_> = w.pieces().collect();
        assert_eq!(all, vec![(Pos::new(-3, -12), Cell::piece(0, KindId(1)))]);
        assert_eq!(w.owner(BoardId { bx: 9, by: 9 }), NOBODY);
    }

    #[test]
    fn boards_on_both_sides_of_chunk_edges_are_kept_apart() {
        // Chunks are 16×16 boards: -17 and -16 are in chunks -2 and -1, 15 and 16 in 0
        // and 1; each board must come back with its own piece and owner.
        let mut w = Cells::new((5, 5));
        let boards = [(-17, -1), (-16, 0), (-1, -1), (0, 0), (15, 15), (16, 16), (16, -17)];
        for (i, &(bx, by)) in boards.iter().enumerate() {
            let b = BoardId { bx, by };
            w.set_owner(b, i as u32);
            let c = b.corner((5, 5)).unwrap();
            w.set(Pos::new(c.x + 1, c.y + 2), Cell::piece(i as u32, KindId(1)));
        }
        assert_eq!(w.boards().len(), boards.len());
        for (i, &(bx, by)) in boards.iter().enumerate() {
            let b = BoardId { bx, by };
            assert_eq!(w.find(b), Some(i), "board {b}");
            assert_eq!(w.owner(b), i as u32);
            let c = b.corner((5, 5)).unwrap();
            assert_eq!(w.get(Pos::new(c.x + 1, c.y + 2)), Cell::piece(i as u32, KindId(1)));
            assert!(w.get(Pos::new(c.x, c.y)).is_empty());
        }
        for (bx, by) in [(-18, -1), (-17, 0), (1, 0), (14, 15), (16, 15), (-16, -1)] {
            assert_eq!(w.find(BoardId { bx, by }), None, "board [{bx}, {by}] was never written");
        }
        // Windows read through the same index.
        let win = w.window(BoardId { bx: 15, by: 15 });
        assert_eq!(win.get(Pos::new(81, 82)), Cell::piece(5, KindId(1)));
        assert_eq!(win.get(Pos::new(76, 77)), Cell::piece(4, KindId(1)));
    }
}
