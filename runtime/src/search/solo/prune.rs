//! Necessary conditions for a position to be forgeable, checked at every node. Each is
//! a relaxation of the rules: a forging route from the position passes it, so a
//! position that fails one is refuted with certainty.
//!
//! - **The walk** over squares (`walk.rs`): reachability, order and returns.
//! - **Predecessors** (a flow on the cells): every cell still to strike needs its own
//!   predecessor (the cell struck just before it, whose piece reaches its square), and
//!   every cell but the final one a successor; the final cell is the last layer of its
//!   square. As a bipartite matching, left: the last strike and every cell still to
//!   strike, each the predecessor of one cell; right: each unfinished square with a
//!   demand of its strikes still to come, and *END*, the final cell, which only a
//!   last-layer cell can take. A level's layer rule (Master's wildcard) is exact up to
//!   timing: for each layer whose completion will still place a piece there is a
//!   *joker* node of capacity one, reaching where the placed piece reaches, which one
//!   *candidate* cell may send its unit through instead of its own reach — a cell of
//!   that layer on a square still below it (the square that completes the layer gets
//!   the piece on that very cell). The position is refuted unless the flow is perfect.
//!   By Hall's theorem this covers every counting argument: a square with more strikes
//!   to come than pieces that can still reach it, parity classes (a knight alternates
//!   colours), two dead ends (a Number 4 in the centre of 6×6 reaches nothing), a dead
//!   end below the last layer unless it can be the one the layer rule replaces, and
//!   their mixtures.
//!
//! The flow is kept from node to node and repaired with augmenting paths, so a node
//! costs a few set operations and rarely a search.

use super::board::{Problem, State, Undo};
use crate::bits::Bits;

const FREE: u16 = u16::MAX;
/// A cell's unit goes through joker `j`: `JOKER | j`.
const JOKER: u16 = 0x8000;
/// The most strikes a square takes (`[wear] strikes` is 1 to 8), so the most owners a
/// right node has.
const MAX_LAYERS: usize = 8;

/// The nodes: owners are cells `0..n*L`, the start (`n*L`, the first strike of a board
/// not yet touched), then a joker per layer (`jokers + layer`); right nodes are the
/// squares `0..n` and END (`n`).
#[derive(Clone, Copy)]
struct Layout {
    start: usize,
    jokers: usize,
    end: usize,
    layers: usize,
}

fn layout<B: Bits>(p: &Problem<B>) -> Layout {
    let start = p.n * p.layers as usize;
    Layout { start, jokers: start + 1, end: p.n, layers: p.layers as usize }
}

/// A flow of predecessors (cells, the start, through jokers or not) to squares and END.
pub(super) struct Matching {
    /// Per owner: the right node it feeds, `JOKER | j` (a cell through joker `j`), or
    /// `FREE`.
    out: Vec<u16>,
    /// Per joker: the cell whose unit it carries, or `FREE`.
    holder: Vec<u16>,
    /// Per right node: its owners.
    owners: Vec<[u16; MAX_LAYERS]>,
    load: Vec<u8>,
    /// The layers whose completion will still place a piece (bit per layer).
    pending: u32,
}

/// How an owner entered an augmenting-path search.
#[derive(Clone, Copy)]
enum Origin {
    /// A free cell: where the path starts.
    Start,
    /// It fed this right node, and would feed another instead.
    Right(u16),
    /// A cell that held this joker, displaced by the cell in `Scratch::enter`.
    Joker(u16),
    /// A cell that held this joker, which gives up what it fed (and the cell goes
    /// another way).
    Release(u16),
    /// A free joker, entered by this cell.
    Cell(u16),
}

/// Scratch space for the augmenting-path searches.
pub(super) struct Scratch {
    queue: Vec<u16>,
    /// Per right node: the owner it was reached from.
    via: Vec<u16>,
    /// Per owner: how it was reached, and whether it was.
    origin: Vec<Origin>,
    seen: Vec<u32>,
    stamp: u32,
    /// Per joker: the cell that takes it over from its holder.
    enter: Vec<u16>,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            queue: Vec::new(),
            via: Vec::new(),
            origin: Vec::new(),
            seen: Vec::new(),
            stamp: 0,
            enter: Vec::new(),
        }
    }

    fn reset(&mut self, owners: usize, rights: usize) {
        self.queue.clear();
        self.via.clear();
        self.via.resize(rights, FREE);
        if self.origin.len() < owners {
            self.origin.resize(owners, Origin::Start);
            self.seen.resize(owners, 0);
        }
        self.enter.resize(MAX_LAYERS, FREE);
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
    }

    /// Marks `owner` as reached; whether it was new.
    fn mark(&mut self, owner: usize, how: Origin) -> bool {
        if self.seen[owner] == self.stamp {
            return false;
        }
        self.seen[owner] = self.stamp;
        self.origin[owner] = how;
        self.queue.push(owner as u16);
        true
    }
}

/// Layers above `min` with the layer rule (still to place their piece).
pub(super) fn pending_of<B: Bits>(p: &Problem<B>, min: u8) -> u32 {
    p.layer_piece.map_or(0, |(_, m)| m & !((1u32 << (min + 1)) - 1))
}

impl Matching {
    /// An empty flow for the position `s` (use [`Matching::repair`] to fill it).
    pub fn new<B: Bits>(p: &Problem<B>, s: &State<B>) -> Matching {
        let lay = layout(p);
        Matching {
            out: vec![FREE; lay.jokers + MAX_LAYERS],
            holder: vec![FREE; MAX_LAYERS],
            owners: vec![[FREE; MAX_LAYERS]; p.n + 1],
            load: vec![0; p.n + 1],
            pending: pending_of(p, s.min),
        }
    }

    /// Becomes a copy of `other`, reusing this one's memory.
    pub fn copy_from(&mut self, other: &Matching) {
        self.out.clone_from(&other.out);
        self.holder.clone_from(&other.holder);
        self.owners.clone_from(&other.owners);
        self.load.clone_from(&other.load);
        self.pending = other.pending;
    }

    fn add(&mut self, r: usize, o: usize) {
        self.owners[r][self.load[r] as usize] = o as u16;
        self.load[r] += 1;
    }

    fn remove(&mut self, r: usize, o: usize) {
        let n = self.load[r] as usize;
        let list = &mut self.owners[r];
        let i = list[..n].iter().position(|&x| x as usize == o).expect("an owner is listed at its right node");
        list[i] = list[n - 1];
        list[n - 1] = FREE;
        self.load[r] -= 1;
    }

    /// Frees joker `j` and what it fed.
    fn free_joker(&mut self, lay: &Layout, j: usize) {
        let id = lay.jokers + j;
        if self.out[id] != FREE {
            self.remove(self.out[id] as usize, id);
            self.out[id] = FREE;
        }
        let h = self.holder[j];
        if h != FREE {
            self.out[h as usize] = FREE;
            self.holder[j] = FREE;
        }
    }

    /// Frees cell (or start) `q` and what it fed.
    fn free_cell(&mut self, lay: &Layout, q: usize) {
        let o = self.out[q];
        if o == FREE {
        } else if o & JOKER != 0 {
            self.free_joker(lay, (o & !JOKER) as usize);
        } else {
            self.remove(o as usize, q);
            self.out[q] = FREE;
        }
    }

    /// Updates the flow after the strike `u` that led to `after` (the flow was
    /// repaired for the position before it).
    pub fn struck<B: Bits>(&mut self, p: &Problem<B>, after: &State<B>, u: &Undo) {
        let lay = layout(p);
        let l = lay.layers;
        let sq = u.sq as usize;
        let hits_before = |x: usize| after.hits[x] as usize - (x == sq) as usize;
        // The previous last strike now has its successor: it leaves.
        let prev = match u.last {
            Some(last) => last.sq as usize * l + hits_before(last.sq as usize) - 1,
            None => lay.start,
        };
        self.free_cell(&lay, prev);
        // The cell just struck needs a successor of its own now (not END, and not a
        // joker: it was a candidate only while unstruck); so do the square's cells no
        // longer below their joker's layer.
        let struck = sq * l + hits_before(sq);
        if self.out[struck] as usize == lay.end {
            self.free_cell(&lay, struck);
        }
        for q in struck..(sq + 1) * l {
            let o = self.out[q];
            if o != FREE && o & JOKER != 0 && (o & !JOKER) as usize <= after.hits[sq] as usize {
                self.free_cell(&lay, q);
            }
        }
        // One strike of `sq` is done: its demand drops by one.
        if self.load[sq] as usize > l - after.hits[sq] as usize {
            let o = self.owners[sq][self.load[sq] as usize - 1] as usize;
            if o >= lay.jokers {
                self.free_joker(&lay, o - lay.jokers);
            } else {
                self.free_cell(&lay, o);
            }
        }
        // A layer completed: its piece is placed (the cell shows it, reaching by its
        // own kind now), so its joker goes.
        if after.min > u.min && self.pending & (1 << after.min) != 0 {
            self.pending &= !(1 << after.min);
            self.free_joker(&lay, after.min as usize);
        }
        if p.any_rays && after.hits[sq] == p.layers {
            // A cleared square cuts slides short: drop the pairs it breaks.
            for q in 0..lay.start {
                let r = self.out[q];
                if r != FREE && r & JOKER == 0 && (r as usize) < p.n && !reach(p, after, &lay, q).has(r as usize) {
                    self.free_cell(&lay, q);
                }
            }
            for j in 0..MAX_LAYERS {
                let (h, r) = (self.holder[j], self.out[lay.jokers + j]);
                if h != FREE && r != FREE && !joker_reach(p, after, j, h as usize).has(r as usize) {
                    self.free_joker(&lay, j);
                }
            }
        }
    }

    /// Completes the flow with augmenting paths; whether every strike still to come
    /// (and the final cell) has a predecessor.
    pub fn repair<B: Bits>(&mut self, p: &Problem<B>, s: &State<B>, scratch: &mut Scratch) -> bool {
        if s.left == 0 {
            return true;
        }
        let lay = layout(p);
        loop {
            let short =
                (0..p.n).any(|r| (self.load[r] as usize) < lay.layers - s.hits[r] as usize) || self.load[lay.end] == 0;
            if !short {
                return true;
            }
            if !self.augment(p, s, &lay, scratch) {
                return false;
            }
        }
    }

    /// One augmenting path from any free cell to any right node short of its demand
    /// (breadth first, from all free cells at once).
    fn augment<B: Bits>(&mut self, p: &Problem<B>, s: &State<B>, lay: &Layout, sc: &mut Scratch) -> bool {
        let l = lay.layers;
        sc.reset(lay.jokers + MAX_LAYERS, p.n + 1);
        for q in live(p, s, lay) {
            if self.out[q] == FREE {
                sc.mark(q, Origin::Start);
            }
        }
        let mut seen = B::EMPTY;
        let mut end_seen = false;
        let mut head = 0;
        while head < sc.queue.len() {
            let x = sc.queue[head] as usize;
            head += 1;
            let mut next;
            if x >= lay.jokers {
                let j = x - lay.jokers;
                let from = match sc.origin[x] {
                    Origin::Cell(q) => q as usize,
                    _ => {
                        // Rerouted, or given up: then its holder goes another way.
                        let h = self.holder[j] as usize;
                        sc.mark(h, Origin::Release(j as u16));
                        h
                    }
                };
                next = joker_reach(p, s, j, from) & !seen;
            } else {
                // Only a last-layer cell still to strike can be the final one.
                if !end_seen && x < lay.start && x % l == l - 1 && x % l >= s.hits[x / l] as usize {
                    end_seen = true;
                    if self.visit(s, lay, sc, x, lay.end) {
                        return true;
                    }
                }
                next = reach(p, s, lay, x) & !seen;
                // The jokers this cell may send its unit through.
                let mut js = self.pending;
                while js != 0 {
                    let j = js.trailing_zeros() as usize;
                    js &= js - 1;
                    if !candidate(s, lay, x, j) {
                        continue;
                    }
                    let jid = lay.jokers + j;
                    let h = self.holder[j];
                    if h == FREE {
                        sc.mark(jid, Origin::Cell(x as u16));
                    } else if sc.seen[h as usize] != sc.stamp && joker_reach(p, s, j, x).has(self.out[jid] as usize) {
                        sc.enter[j] = x as u16;
                        sc.mark(h as usize, Origin::Joker(j as u16));
                    }
                }
            }
            seen |= next;
            while next.any() {
                let r = next.pop_lsb();
                if self.visit(s, lay, sc, x, r) {
                    return true;
                }
            }
        }
        false
    }

    /// Right node `r` reached from owner `x`: augments if `r` is short, else queues its
    /// owners.
    #[inline]
    fn visit<B: Bits>(&mut self, s: &State<B>, lay: &Layout, sc: &mut Scratch, x: usize, r: usize) -> bool {
        sc.via[r] = x as u16;
        let demand = if r == lay.end { 1 } else { lay.layers - s.hits[r] as usize };
        if (self.load[r] as usize) < demand {
            self.flip(lay, r, sc);
            return true;
        }
        for i in 0..self.load[r] as usize {
            let o = self.owners[r][i] as usize;
            sc.mark(o, Origin::Right(r as u16));
        }
        false
    }

    /// Flips the augmenting path that ends at right node `r`.
    fn flip(&mut self, lay: &Layout, r: usize, sc: &Scratch) {
        enum Step {
            /// Right node `r` takes its new owner (`via`).
            Right(usize),
            /// Cell `q` has its new use; it gives up the old one.
            Leaves(usize),
        }
        let mut step = Step::Right(r);
        loop {
            step = match step {
                Step::Right(r) => {
                    let x = sc.via[r] as usize;
                    if x < lay.jokers {
                        self.out[x] = r as u16;
                        self.add(r, x);
                        Step::Leaves(x)
                    } else {
                        let j = x - lay.jokers;
                        match sc.origin[x] {
                            Origin::Right(old) => {
                                self.remove(old as usize, x);
                                self.out[x] = r as u16;
                                self.add(r, x);
                                Step::Right(old as usize)
                            }
                            Origin::Cell(q) => {
                                self.holder[j] = q;
                                self.out[x] = r as u16;
                                self.add(r, x);
                                self.out[q as usize] = JOKER | j as u16;
                                Step::Leaves(q as usize)
                            }
                            _ => unreachable!("a joker is reached from a cell or a right node"),
                        }
                    }
                }
                Step::Leaves(q) => match sc.origin[q] {
                    Origin::Start => return,
                    Origin::Right(old) => {
                        self.remove(old as usize, q);
                        Step::Right(old as usize)
                    }
                    Origin::Joker(j) => {
                        let q0 = sc.enter[j as usize];
                        self.holder[j as usize] = q0;
                        self.out[q0 as usize] = JOKER | j;
                        Step::Leaves(q0 as usize)
                    }
                    Origin::Release(j) => {
                        let jid = lay.jokers + j as usize;
                        let Origin::Right(old) = sc.origin[jid] else {
                            unreachable!("a joker gives up only what it fed")
                        };
                        self.remove(old as usize, jid);
                        self.out[jid] = FREE;
                        self.holder[j as usize] = FREE;
                        Step::Right(old as usize)
                    }
                    Origin::Cell(_) => unreachable!("a cell is reached as free, from a right node or a joker"),
                },
            };
        }
    }
}

/// Whether cell `q` may be the one the layer rule replaces at layer `j`: a cell of
/// that layer, on a square still below it.
#[inline]
fn candidate<B: Bits>(s: &State<B>, lay: &Layout, q: usize, j: usize) -> bool {
    q < lay.start && q % lay.layers == j && (s.hits[q / lay.layers] as usize) < j
}

/// The cells in play: the last strike (or the start) and every cell still to strike.
fn live<B: Bits>(p: &Problem<B>, s: &State<B>, lay: &Layout) -> impl Iterator<Item = usize> {
    let l = lay.layers;
    let last = match s.last {
        Some(x) => x.sq as usize * l + s.hits[x.sq as usize] as usize - 1,
        None => lay.start,
    };
    let cells = (0..p.n).flat_map(move |sq| (sq * l + s.hits[sq] as usize)..(sq + 1) * l);
    std::iter::once(last).chain(cells)
}

/// The squares cell `q` may precede by its own piece.
#[inline]
fn reach<B: Bits>(p: &Problem<B>, s: &State<B>, lay: &Layout, q: usize) -> B {
    if q >= lay.start {
        return s.unfinished;
    }
    let l = lay.layers;
    let (sq, h) = (q / l, (q % l) as u8);
    if let Some(last) = s.last
        && last.sq as usize == sq
        && s.hits[sq] == h + 1
    {
        return p.targets(last.kind, sq, s.unfinished);
    }
    let kind = if s.wild == Some(sq as u8) && s.hits[sq] == h { s.shown(p, sq) } else { p.cell(sq, h) };
    p.targets(kind, sq, s.unfinished)
}

/// Where joker `j` reaches when the layer rule's piece stands on cell `q`'s square.
#[inline]
fn joker_reach<B: Bits>(p: &Problem<B>, s: &State<B>, _j: usize, q: usize) -> B {
    match p.layer_piece {
        Some((k, _)) => p.targets(k, q / p.layers as usize, s.unfinished),
        None => B::EMPTY,
    }
}

/// Per square, how many cells still to strike (by their own piece, or the layer
/// rule's piece shown now) can reach it: how many ways in it has left.
pub(super) fn ways_in<B: Bits>(p: &Problem<B>, s: &State<B>, out: &mut Vec<u16>) {
    out.clear();
    out.resize(p.n, 0);
    let lay = layout(p);
    let l = lay.layers;
    for sq in 0..p.n {
        for h in s.hits[sq] as usize..l {
            let mut r = reach(p, s, &lay, sq * l + h);
            while r.any() {
                out[r.pop_lsb()] += 1;
            }
        }
    }
}
