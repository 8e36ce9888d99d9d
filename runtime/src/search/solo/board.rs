//! The solver's own compact board: a solo game compiled to square sets, and a search
//! state that strikes and takes back in place (no `SoloGame` cloned per node).
//!
//! A *cell* is one layer of one square, `(square, layer)`, numbered `square * L + layer`;
//! a forging route strikes every cell once, the cells of a square in layer order. Where
//! a cell's piece reaches depends only on its kind and square, and on which squares are
//! cleared (a cleared square is never a target; a slide also stops before one), so
//! every set here is computed once from the variant's movement atoms (`Forge::reach`).
//!
//! The one route-dependent piece is a level's `layer_piece` (Master's wildcard): the
//! strike that completes one of its layers leaves that kind on the square it struck.
//! At most one such piece is showing at a time (it is placed when the least hit count
//! reaches its layer, and stays only while its square has exactly that many hits), so
//! the state keeps it as one optional square.

use crate::bits::Bits;
use crate::geometry::Square;
use crate::piece::KindId;
use crate::solo::{SoloGame, Status};

/// A solo board compiled for search.
pub(super) struct Problem<B: Bits> {
    /// Squares.
    pub n: usize,
    /// Layers per square (strikes that clear it).
    pub layers: u8,
    pub all: B,
    /// The stack: `cell_kind[square * layers + layer]`.
    pub cell_kind: Vec<KindId>,
    /// Per kind: it reaches every unfinished square (its own included).
    pub anywhere: Vec<bool>,
    /// Per kind: some of its reach is a slide, which a cleared square cuts short.
    pub has_rays: Vec<bool>,
    /// `fixed[kind * n + square]`: leaps and farthest squares (targets while unfinished).
    pub fixed: Vec<B>,
    /// `rays[kind * n + square]`: slides, square by square.
    pub rays: Vec<Vec<Vec<u8>>>,
    /// The level's layer rule: the kind it leaves, and the layers (bit per layer).
    pub layer_piece: Option<(KindId, u32)>,
    /// Whether any kind slides (only then do cleared squares change reach sets).
    pub any_rays: bool,
}

impl<B: Bits> Problem<B> {
    pub fn new(game: &SoloGame) -> Problem<B> {
        let forge = game.forge();
        let v = &forge.variant;
        let board = game.board();
        let n = board.squares();
        let layers = board.layers();
        let kinds = v.kinds.len();
        let mut all = B::EMPTY;
        for s in 0..n {
            all = all.with(s);
        }
        let mut cell_kind = Vec::with_capacity(n * layers as usize);
        for s in 0..n {
            cell_kind.extend_from_slice(board.stack(Square(s as u8)));
        }
        let mut anywhere = vec![false; kinds];
        let mut has_rays = vec![false; kinds];
        let mut fixed = vec![B::EMPTY; kinds * n];
        let mut rays = vec![Vec::new(); kinds * n];
        for k in 0..kinds {
            for s in 0..n {
                let r = forge.reach(KindId(k as u8), Square(s as u8));
                let i = k * n + s;
                anywhere[k] |= r.anywhere;
                for t in &r.fixed {
                    fixed[i] = fixed[i].with(t.index());
                }
                rays[i] = r.rays.iter().map(|ray| ray.iter().map(|t| t.0).collect()).collect();
                has_rays[k] |= !r.rays.is_empty();
            }
        }
        for k in 0..kinds {
            if anywhere[k] {
                has_rays[k] = false;
            }
        }
        let layer_piece = forge.rules().levels[game.level()]
            .layer_piece
            .as_ref()
            .map(|lp| (lp.kind, lp.layers.iter().fold(0u32, |m, &l| m | 1 << l)));
        let any_rays = has_rays.iter().any(|&r| r);
        Problem { n, layers, all, cell_kind, anywhere, has_rays, fixed, rays, layer_piece, any_rays }
    }

    pub fn cell(&self, sq: usize, layer: u8) -> KindId {
        self.cell_kind[sq * self.layers as usize + layer as usize]
    }

    /// The squares `kind` reaches from `sq` now.
    #[inline]
    pub fn targets(&self, kind: KindId, sq: usize, unfinished: B) -> B {
        let k = kind.index();
        if self.anywhere[k] {
            return unfinished;
        }
        let i = k * self.n + sq;
        let mut t = self.fixed[i] & unfinished;
        if self.has_rays[k] {
            for ray in &self.rays[i] {
                for &q in ray {
                    if !unfinished.has(q as usize) {
                        break;
                    }
                    t = t.with(q as usize);
                }
            }
        }
        t
    }

    /// Whether the layer rule places its piece when layer `layer` completes.
    pub fn places_on(&self, layer: u8) -> Option<KindId> {
        self.layer_piece.filter(|&(_, m)| m & (1 << layer) != 0).map(|(k, _)| k)
    }
}

/// The last strike: its square and the piece it struck.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Last {
    pub sq: u8,
    pub kind: KindId,
}

/// What a strike changed besides the hit count (what `undo` restores).
#[derive(Clone, Copy, Debug)]
pub(super) struct Undo {
    pub sq: u8,
    pub last: Option<Last>,
    pub wild: Option<u8>,
    pub min: u8,
}

/// A position of the search.
#[derive(Clone)]
pub(super) struct State<B: Bits> {
    pub hits: Vec<u8>,
    /// `at[h]`: the squares with exactly `h` hits (`at[layers]`: the cleared ones).
    pub at: Vec<B>,
    pub unfinished: B,
    /// Layers completed (the least hit count).
    pub min: u8,
    pub last: Option<Last>,
    /// The square showing the layer rule's piece instead of its stack's.
    pub wild: Option<u8>,
    /// Cells not yet struck.
    pub left: u32,
    /// The hit counts packed (or hashed, on boards too big to pack), kept incrementally.
    hits_key: u128,
}

/// The key of a position: everything the rest of the board depends on — the hit
/// counts, the piece the layer rule left, and where the next strike may land.
///
/// Keyed by targets, the last strike counts only through its
/// targets: two routes whose last strikes differ but leave the same targets (two
/// wildcards; two rooks whose other farthest squares have cleared; a wildcard and the
/// first strike of the board) meet in one key, so a refutation of one refutes the
/// other. Keyed by the last strike (its square, and whether it was a placed piece), as
/// dealing does so that every seed keeps the board it was always dealt. Exact when it
/// fits in 128 bits (6×6 with 3 layers: 72 + 36 + 6 by targets); otherwise a 128-bit
/// Zobrist hash.
pub(super) struct Keys {
    bits_per: u32,
    by_targets: bool,
    /// Where the targets and the placed piece start (exact keys by targets).
    targets_at: u32,
    wild_at: u32,
    exact: bool,
    zobrist: Vec<u128>,
}

impl Keys {
    pub fn new(n: usize, layers: u8, by_targets: bool) -> Keys {
        let bits_per = 32 - (layers as u32).leading_zeros();
        let wild_bits = 32 - (n as u32 + 1).leading_zeros();
        let targets_at = n as u32 * bits_per;
        let wild_at = targets_at + n as u32;
        let exact = if by_targets { wild_at + wild_bits <= 128 } else { targets_at + 19 <= 128 };
        let mut zobrist = Vec::new();
        if !exact {
            // A fixed generator: keys are in-process only, but searches stay repeatable.
            let mut r = crate::rng::Rng::new(0x05ee_d0ff_0e6e);
            zobrist = (0..(n * (layers as usize + 1) + 3 * 257))
                .map(|_| (r.next_u64() as u128) << 64 | r.next_u64() as u128)
                .collect();
        }
        Keys { bits_per, by_targets, targets_at, wild_at, exact, zobrist }
    }

    fn hit(&self, layers: u8, sq: usize, from: u8) -> u128 {
        if self.exact {
            1u128 << (sq as u32 * self.bits_per)
        } else {
            let i = sq * (layers as usize + 1) + from as usize;
            self.zobrist[i] ^ self.zobrist[i + 1]
        }
    }

    pub fn key<B: Bits>(&self, p: &Problem<B>, s: &State<B>) -> u128 {
        if !self.by_targets {
            return self.key_by_last(p, s);
        }
        // Before the first strike the targets are every unfinished square, as after a
        // wildcard: the same future, so the same key.
        let mut targets = s.targets(p);
        let wild = s.wild.map_or(0, |w| 1 + w as usize);
        if self.exact {
            let mut t = 0u128;
            while targets.any() {
                t |= 1u128 << (self.targets_at + targets.pop_lsb() as u32);
            }
            s.hits_key | t | (wild as u128) << self.wild_at
        } else {
            // Squares (at most 256) and the placed piece's 257 values fit the 3 × 257
            // entries after the hits.
            let at = p.n * (p.layers as usize + 1);
            let mut h = s.hits_key ^ self.zobrist[at + 514 + wild];
            while targets.any() {
                h ^= self.zobrist[at + targets.pop_lsb()];
            }
            h
        }
    }

    fn key_by_last<B: Bits>(&self, p: &Problem<B>, s: &State<B>) -> u128 {
        let last = s.last.map_or(0, |l| {
            let placed = s.hits[l.sq as usize] > 0 && p.cell(l.sq as usize, s.hits[l.sq as usize] - 1) != l.kind;
            1 + l.sq as u128 * 2 + placed as u128
        });
        let wild = s.wild.map_or(0, |w| 1 + w as u128);
        if self.exact {
            let base = p.n as u32 * self.bits_per;
            s.hits_key | last << base | wild << (base + 10)
        } else {
            let z = p.n * (p.layers as usize + 1);
            s.hits_key ^ self.zobrist[z + last as usize] ^ self.zobrist[z + 514 + wild as usize]
        }
    }
}

impl<B: Bits> State<B> {
    /// The position of `game` (which must be playing).
    pub fn new(p: &Problem<B>, keys: &Keys, game: &SoloGame) -> State<B> {
        let l = p.layers;
        let mut s = State {
            hits: vec![0; p.n],
            at: vec![B::EMPTY; l as usize + 1],
            unfinished: B::EMPTY,
            min: game.layers_completed(),
            last: game.last().map(|(sq, kind)| Last { sq: sq.0, kind }),
            wild: None,
            left: 0,
            hits_key: 0,
        };
        for sq in 0..p.n {
            let h = game.hits(Square(sq as u8)).min(l);
            s.hits[sq] = h;
            s.at[h as usize] = s.at[h as usize].with(sq);
            s.left += (l - h) as u32;
            for from in 0..h {
                s.hits_key ^= keys.hit(l, sq, from);
            }
            if h < l && game.shown(Square(sq as u8)).is_some_and(|k| k != p.cell(sq, h)) {
                s.wild = Some(sq as u8);
            }
        }
        if keys.exact {
            s.hits_key = (0..p.n).map(|sq| (s.hits[sq] as u128) << (sq as u32 * keys.bits_per)).sum();
        }
        s.unfinished = p.all & !s.at[l as usize];
        debug_assert!(game.status() == Status::Playing || s.left == 0 || game.targets().is_empty());
        s
    }

    /// The piece `sq` shows (it must be unfinished).
    #[inline]
    pub fn shown(&self, p: &Problem<B>, sq: usize) -> KindId {
        match (self.wild, p.layer_piece) {
            (Some(w), Some((k, _))) if w as usize == sq => k,
            _ => p.cell(sq, self.hits[sq]),
        }
    }

    /// Where the next strike may land.
    #[inline]
    pub fn targets(&self, p: &Problem<B>) -> B {
        match self.last {
            None => self.unfinished,
            Some(l) => p.targets(l.kind, l.sq as usize, self.unfinished),
        }
    }

    /// Strikes `sq` (a legal target). Returns what `undo` needs.
    #[inline]
    pub fn strike(&mut self, p: &Problem<B>, keys: &Keys, sq: usize) -> Undo {
        let undo = Undo { sq: sq as u8, last: self.last, wild: self.wild, min: self.min };
        let kind = self.shown(p, sq);
        if self.wild == Some(sq as u8) {
            self.wild = None;
        }
        let h = self.hits[sq];
        self.hits_key = if keys.exact {
            self.hits_key + keys.hit(p.layers, sq, h)
        } else {
            self.hits_key ^ keys.hit(p.layers, sq, h)
        };
        self.hits[sq] = h + 1;
        self.at[h as usize] = self.at[h as usize].without(sq);
        self.at[h as usize + 1] = self.at[h as usize + 1].with(sq);
        if h + 1 == p.layers {
            self.unfinished = self.unfinished.without(sq);
        }
        self.left -= 1;
        self.last = Some(Last { sq: sq as u8, kind });
        if h == self.min && self.at[h as usize].is_empty() {
            self.min = h + 1;
            // The square that completed the layer shows the layer rule's piece, unless
            // its stack already has that kind there (then nothing changes).
            if let Some(k) = p.places_on(self.min)
                && self.min < p.layers
                && p.cell(sq, self.min) != k
            {
                self.wild = Some(sq as u8);
            }
        }
        undo
    }

    #[inline]
    pub fn undo(&mut self, p: &Problem<B>, keys: &Keys, u: Undo) {
        let sq = u.sq as usize;
        let h = self.hits[sq] - 1;
        self.hits[sq] = h;
        self.hits_key = if keys.exact {
            self.hits_key - keys.hit(p.layers, sq, h)
        } else {
            self.hits_key ^ keys.hit(p.layers, sq, h)
        };
        self.at[h as usize + 1] = self.at[h as usize + 1].without(sq);
        self.at[h as usize] = self.at[h as usize].with(sq);
        self.unfinished = self.unfinished.with(sq);
        self.left += 1;
        self.last = u.last;
        self.wild = u.wild;
        self.min = u.min;
    }
}
