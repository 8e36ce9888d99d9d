//! A necessary condition on how a forging route can *end*, which the predecessor
//! matching (`prune.rs`) cannot see because it pairs cells with squares, not with
//! moments: it looks at the *last cells*, the top layer of each unfinished square.
//!
//! Draw `G → t` when the piece `G`'s last cell shows reaches `t ≠ G` now. A *sink* is a
//! set of squares closed under these arrows, every one reaching every other (a sink
//! component; every finite graph has one). Of a sink `C`, take the square `X` that
//! clears last: when its last cell is struck, every square it reaches has cleared, so
//! it has no successor. It is the final cell of the route, or it shows the piece the
//! layer rule leaves when the last layer completes (Master's wildcard), which is placed
//! once, on one cell, and must reach out of `C`. So two sinks need that piece to rescue
//! one of them, and three are refuted. A Number 4 on the top layer of a centre square
//! of 6×6 is a sink by itself (it reaches nothing); so are the top layers of two corner
//! bishops on a long diagonal that reach only each other, or corner rooks and queens
//! that reach only corners.
//!
//! Arrows count reach *now*; later they only disappear (a cleared square is no target),
//! so a sink stays closed in every position below this one. The condition also says
//! where a route can end: a dead end that no other last cell enters (so no strike can
//! precede the final one) leaves a second sink among the other squares.

use super::board::{Problem, State};
use super::prune::pending_of;
use super::walk::close;
use crate::bits::Bits;

/// Where cell `(sq, h)` reaches by the piece it shows for sure (the stack's, or the
/// layer rule's if that shows there now), and by the layer rule's piece if that may
/// still be placed on it.
#[inline]
fn cell_pieces<B: Bits>(p: &Problem<B>, s: &State<B>, pending: u32, sq: usize, h: u8) -> (B, B) {
    let open = s.unfinished;
    let shown_wild = s.wild == Some(sq as u8) && s.hits[sq] == h;
    match p.layer_piece {
        Some((k, _)) if shown_wild => (p.targets(k, sq, open), B::EMPTY),
        Some((k, _)) if pending & (1 << h) != 0 && s.hits[sq] < h => {
            (p.targets(p.cell(sq, h), sq, open), p.targets(k, sq, open))
        }
        _ => (p.targets(p.cell(sq, h), sq, open), B::EMPTY),
    }
}

/// Scratch rows for the sinks.
pub(super) struct Ends<B: Bits> {
    /// Per square: where its last cell leads for sure, then everything from there.
    reach: Vec<B>,
    /// Per square: where the layer rule's piece would lead from its last cell.
    placed: Vec<B>,
}

impl<B: Bits> Ends<B> {
    pub fn new() -> Ends<B> {
        Ends { reach: Vec::new(), placed: Vec::new() }
    }

    /// Whether the position passes: at most one sink that the layer rule's piece cannot
    /// rescue, and at most two in all.
    pub fn ok(&mut self, p: &Problem<B>, s: &State<B>) -> bool {
        if s.left < 2 {
            return true;
        }
        let n = p.n;
        let open = s.unfinished;
        let last = p.layers - 1;
        let pending = pending_of(p, s.min);
        self.reach.clear();
        self.reach.resize(n, B::EMPTY);
        self.placed.clear();
        self.placed.resize(n, B::EMPTY);
        let mut it = open;
        while it.any() {
            let sq = it.pop_lsb();
            let (own, placed) = cell_pieces(p, s, pending, sq, last);
            self.reach[sq] = own.without(sq);
            self.placed[sq] = placed.without(sq);
        }
        // Closure, then reflexive.
        close(&mut self.reach, open);
        let mut it = open;
        while it.any() {
            let sq = it.pop_lsb();
            self.reach[sq] = self.reach[sq].with(sq);
        }
        // The sinks (a square is in one when everything it reaches reaches the same), and
        // which of them the layer rule's piece can rescue.
        let mut sinks: [(B, bool); 2] = [(B::EMPTY, false); 2];
        let mut found = 0;
        let mut left = open;
        while left.any() {
            let x = left.lsb();
            let c = self.reach[x];
            let mut members = c;
            let mut sink = true;
            while members.any() {
                if self.reach[members.pop_lsb()] != c {
                    sink = false;
                    break;
                }
            }
            if !sink {
                left = left.without(x);
                continue;
            }
            left &= !c;
            if found == 2 {
                return false;
            }
            let mut rescued = false;
            let mut members = c;
            while members.any() {
                let m = members.pop_lsb();
                rescued |= (self.placed[m] & !c).any();
            }
            sinks[found] = (c, rescued);
            found += 1;
        }
        // Two sinks: the placed piece rescues one, the final cell ends the other.
        found < 2 || sinks[0].1 || sinks[1].1
    }
}
