//! Necessary conditions on the order of the route. Seen as a graph on cells, a
//! forging route is a Hamiltonian path from the last strike: cell `c` may be followed
//! by any cell of a square its piece reaches (`c` reaches every cell of that square,
//! since where a strike may land depends only on the square). Reach only shrinks as
//! squares clear, so today's graph contains every later step. A path through every
//! node passes through the strongly connected components in one order and never comes
//! back to one it left, so:
//! - every unfinished square is reachable from the last strike;
//! - any two cells still to strike are comparable: one reaches the other (the
//!   components form a chain);
//! - a cell below its square's last layer reaches its own square again (the square's
//!   next cell comes after it, so in a component no earlier in the chain).
//!
//! Cells of a square share their ways in, so what a cell reaches is a set of whole
//! squares: the squares its piece reaches and everything those reach in the *square
//! graph* (`s → t` when some cell of `s` still to strike, or the piece the layer rule
//! may still place on `s`, reaches `t`). Its transitive closure is computed with bit
//! rows (Warshall): a few thousand set operations on a 6×6 board.

use super::board::{Problem, State};
use super::prune::pending_of;
use crate::bits::Bits;

/// Scratch rows for the closure.
pub(super) struct Walk<B: Bits> {
    /// Per square: the squares it reaches in one step, then in one or more.
    reach: Vec<B>,
    /// Per square: the squares every one of its cells reaches.
    all: Vec<B>,
    /// Per square `s`: the squares all of whose cells reach `s`.
    into: Vec<B>,
}

impl<B: Bits> Walk<B> {
    pub fn new() -> Walk<B> {
        Walk { reach: Vec::new(), all: Vec::new(), into: Vec::new() }
    }

    /// Where cell `(sq, h)` may lead by its own piece or a placed one.
    #[inline]
    fn step(p: &Problem<B>, s: &State<B>, pending: u32, sq: usize, h: u8) -> B {
        let open = s.unfinished;
        let shown_wild = s.wild == Some(sq as u8) && s.hits[sq] == h;
        let mut r = if shown_wild { B::EMPTY } else { p.targets(p.cell(sq, h), sq, open) };
        // A layer `h` still to complete places its piece on cell `h` of a square now
        // below `h` hits; the one placed already shows on `wild`.
        if let Some((k, _)) = p.layer_piece
            && (shown_wild || pending & (1 << h) != 0 && s.hits[sq] < h)
        {
            r |= p.targets(k, sq, open);
        }
        r
    }

    /// The squares a cell whose piece reaches `first` can get to.
    #[inline]
    fn closure(&self, first: B) -> B {
        let mut out = first;
        let mut f = first;
        while f.any() {
            out |= self.reach[f.pop_lsb()];
        }
        out
    }

    /// Whether the position passes the conditions.
    pub fn ok(&mut self, p: &Problem<B>, s: &State<B>) -> bool {
        let open = s.unfinished;
        if open.is_empty() {
            return true;
        }
        let n = p.n;
        for v in [&mut self.reach, &mut self.all, &mut self.into] {
            v.clear();
            v.resize(n, B::EMPTY);
        }
        let pending = pending_of(p, s.min);
        let mut it = open;
        while it.any() {
            let sq = it.pop_lsb();
            let mut r = B::EMPTY;
            for h in s.hits[sq]..p.layers {
                r |= Self::step(p, s, pending, sq, h);
            }
            self.reach[sq] = r;
        }
        close(&mut self.reach, open);
        // Everything from the last strike (anywhere, for the first one).
        if (open & !self.closure(s.targets(p))).any() {
            return false;
        }
        // Per cell: it returns to its square unless it is the last one there; and what
        // all of a square's cells reach.
        let mut it = open;
        while it.any() {
            let sq = it.pop_lsb();
            let mut all = open;
            for h in s.hits[sq]..p.layers {
                let to = self.closure(Self::step(p, s, pending, sq, h));
                if h + 1 < p.layers && !to.has(sq) {
                    return false;
                }
                all &= to;
            }
            self.all[sq] = all;
            let mut a = all;
            while a.any() {
                let t = a.pop_lsb();
                self.into[t] = self.into[t].with(sq);
            }
        }
        // Two cells of different squares: one reaches the other. A cell of `sq` that
        // does not reach square `t` needs every cell of `t` to reach `sq`.
        let mut it = open;
        while it.any() {
            let sq = it.pop_lsb();
            for h in s.hits[sq]..p.layers {
                let to = self.closure(Self::step(p, s, pending, sq, h));
                if (open & !to & !self.into[sq]).without(sq).any() {
                    return false;
                }
            }
        }
        true
    }
}

/// Closes `reach` (a row of squares per square of `open`) under "reaches what it
/// reaches": Warshall's algorithm on bit rows.
pub(super) fn close<B: Bits>(reach: &mut [B], open: B) {
    let mut ks = open;
    while ks.any() {
        let k = ks.pop_lsb();
        let row = reach[k];
        let mut is = open;
        while is.any() {
            let i = is.pop_lsb();
            if reach[i].has(k) {
                reach[i] |= row;
            }
        }
    }
}
