//! The best-scoring route (time score excluded): branch and bound over every route,
//! forged or cooled, and the greedy route it is measured against.
//!
//! The score is kept incrementally (`Scorer`, the rules of [`ScoreState`] on a stack
//! of small frames). A node is cut when an upper bound on what it can still reach
//! does not beat the best route found: the points so far, plus per kind the strikes
//! still to come in one chain of that kind (when the chain table never decreases), plus
//! every run and sequence bonus those strikes could complete, plus the layers still to
//! complete (one fewer when the position cannot be forged any more). Children are tried
//! forgeable ones first (the necessary conditions of `prune`), then by what they pay
//! now and by fewest onward targets. A table of positions with their score state cuts a
//! position reached again with no more points. On small boards the search completes,
//! and its best is then the optimum.

use super::Budget;
use super::board::{Keys, Problem, State};
use super::prune::{Matching, Scratch};
use super::walk::Walk;
use crate::bits::Bits;
use crate::geometry::Square;
use crate::piece::KindId;
use crate::scoring::{ScoreState, ScoringRules, Tenths};
use crate::solo::{SoloGame, Status};

/// The points of `game` after striking `route` (time score excluded).
pub(super) fn route_points(game: &SoloGame, route: &[Square]) -> Tenths {
    let mut g = game.clone();
    for &s in route {
        if g.strike(s).is_err() {
            break;
        }
    }
    g.score().points()
}

/// The greedy route from the current position: always the strike worth most now (time
/// score excluded), ties to the lowest square; with its points.
pub fn greedy(game: &SoloGame) -> (Vec<Square>, Tenths) {
    let mut g = game.clone();
    let mut route = Vec::new();
    while g.status() == Status::Playing {
        let now = g.score().points();
        let mut pick: Option<(Tenths, Square)> = None;
        for t in g.targets() {
            if g.strike(t).is_err() {
                continue;
            }
            let gain = Tenths(g.score().points().0 - now.0);
            g.undo(1);
            if pick.is_none_or(|(b, _)| gain > b) {
                pick = Some((gain, t));
            }
        }
        let Some((_, t)) = pick else { break };
        if g.strike(t).is_err() {
            break;
        }
        route.push(t);
    }
    (route, g.score().points())
}

/// A sequence bonus, its points, and per kind how often it occurs in it.
type Sequence = (crate::scoring::SequenceBonus, i64, Vec<(KindId, u32)>);

/// The score rules compiled for the search.
struct Scorer {
    chain: Vec<i64>,
    /// The chain table never decreases and is never negative (so one long chain of a
    /// kind is worth at least as much as any split of it).
    chain_monotone: bool,
    chain_max: i64,
    /// Per run: its kinds (bit per kind), every, points.
    runs: Vec<(u32, u32, i64)>,
    /// Per sequence: its kinds, points, and per kind how often it occurs in it.
    seqs: Vec<Sequence>,
    layer: i64,
}

/// The score after some strikes: what decides the points of the strikes to come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
struct Frame {
    points: i64,
    chain_kind: u8,
    chain_len: u32,
}

const NO_KIND: u8 = u8::MAX;

impl Scorer {
    fn new(rules: &ScoringRules) -> Scorer {
        let chain: Vec<i64> = rules.chain.iter().map(|t| t.0).collect();
        let chain_monotone = chain.windows(2).all(|w| w[0] <= w[1]) && chain.iter().all(|&c| c >= 0);
        let chain_max = chain.iter().copied().max().unwrap_or(0).max(0);
        let runs = rules.runs.iter().map(|r| (r.kinds, r.every.max(1), r.points.0)).collect();
        let seqs = rules
            .sequences
            .iter()
            .map(|q| {
                let mut mult: Vec<(KindId, u32)> = Vec::new();
                for &k in &q.kinds {
                    match mult.iter_mut().find(|(x, _)| *x == k) {
                        Some(m) => m.1 += 1,
                        None => mult.push((k, 1)),
                    }
                }
                (q.clone(), q.points.0, mult)
            })
            .collect();
        Scorer { chain, chain_monotone, chain_max, runs, seqs, layer: rules.layer.0 }
    }

    fn width(&self) -> usize {
        self.runs.len() + self.seqs.len()
    }

    /// The frame and progress (runs, then sequences) of a game's score.
    fn frame_of(&self, s: &ScoreState) -> (Frame, Vec<u32>) {
        let f = Frame {
            points: s.points().0,
            chain_kind: s.chain.map_or(NO_KIND, |(k, _)| k.0),
            chain_len: s.chain.map_or(0, |(_, n)| n),
        };
        let mut prog: Vec<u32> = s.runs.clone();
        prog.extend(s.sequences.iter().map(|&p| p as u32));
        (f, prog)
    }

    /// A strike on `kind` after `f` with progress `prog`: the new frame, progress
    /// written to `out`.
    #[inline]
    fn strike(&self, f: Frame, prog: &[u32], kind: KindId, layer_done: bool, out: &mut [u32]) -> Frame {
        let len = if f.chain_kind == kind.0 { f.chain_len.saturating_add(1) } else { 1 };
        let mut points = f.points;
        if let Some(&last) = self.chain.last() {
            points = points.saturating_add(self.chain.get(len as usize - 1).copied().unwrap_or(last));
        }
        for (i, &(kinds, every, pts)) in self.runs.iter().enumerate() {
            if kinds & (1 << kind.0) == 0 {
                out[i] = 0;
            } else {
                out[i] = prog[i].saturating_add(1);
                if out[i] % every == 0 {
                    points = points.saturating_add(pts);
                }
            }
        }
        let r = self.runs.len();
        for (j, (seq, pts, _)) in self.seqs.iter().enumerate() {
            let p = seq.step(prog[r + j] as usize, kind);
            if p == seq.kinds.len() {
                out[r + j] = 0;
                points = points.saturating_add(*pts);
            } else {
                out[r + j] = p as u32;
            }
        }
        if layer_done {
            points = points.saturating_add(self.layer);
        }
        Frame { points, chain_kind: kind.0, chain_len: len }
    }

    /// Chain points of `count` strikes of one chain whose first is the chain's `from`th.
    fn chain_run(&self, from: u32, count: u32) -> i64 {
        let cap = self.chain.len() as u32;
        if cap == 0 || count == 0 {
            return 0;
        }
        let mut sum = 0i64;
        let mut i = from;
        while i < from + count && i <= cap {
            sum += self.chain[i as usize - 1];
            i += 1;
        }
        sum.saturating_add(self.chain[cap as usize - 1].saturating_mul((from + count - i) as i64))
    }

    /// The most the strikes still to come can add: `count[k]` cells of kind `k` left,
    /// adjusted for the layer rule (`minus` one of a kind a placed piece hides, `plus`
    /// more of the kind it places), `left` strikes, `layers_left` layers to complete.
    #[allow(clippy::too_many_arguments)]
    fn bound(
        &self,
        f: Frame,
        prog: &[u32],
        count: &[u32],
        minus: Option<usize>,
        plus: Option<(usize, u32)>,
        left: u32,
        layers_left: u32,
    ) -> i64 {
        let c = |k: usize| count[k] - (minus == Some(k)) as u32 + plus.filter(|&(x, _)| x == k).map_or(0, |(_, e)| e);
        let total = left;
        let mut up = 0i64;
        if self.chain_monotone {
            for k in 0..count.len() {
                let n = c(k);
                let from = if f.chain_kind as usize == k { f.chain_len.saturating_add(1) } else { 1 };
                up = up.saturating_add(self.chain_run(from, n));
            }
        } else {
            up = up.saturating_add(self.chain_max.saturating_mul(total as i64));
        }
        for (i, &(kinds, every, pts)) in self.runs.iter().enumerate() {
            if pts <= 0 {
                continue;
            }
            let n: u32 = (0..count.len()).filter(|&k| kinds & (1 << k) != 0).map(c).sum();
            let paid = (prog[i] as u64 + n as u64) / every as u64 - prog[i] as u64 / every as u64;
            up = up.saturating_add(pts.saturating_mul(paid as i64));
        }
        let r = self.runs.len();
        for (j, (seq, pts, mult)) in self.seqs.iter().enumerate() {
            if *pts <= 0 {
                continue;
            }
            let done = &seq.kinds[..prog[r + j] as usize];
            let times = mult
                .iter()
                .map(|&(k, m)| (c(k.index()) + done.iter().filter(|&&x| x == k).count() as u32) / m)
                .min()
                .unwrap_or(0);
            up = up.saturating_add(pts.saturating_mul(times as i64));
        }
        up.saturating_add(self.layer.max(0).saturating_mul(layers_left as i64))
    }
}

/// What the score search found.
pub(super) struct Best {
    pub score: Tenths,
    pub route: Vec<Square>,
    /// The search completed: nothing scores more.
    pub proved: bool,
}

/// Positions with their score state, and the most points they were reached with. A
/// slot that is overwritten only costs a search again.
struct Seen {
    slots: Vec<(u128, u128, i64)>,
}

const SEEN_SLOTS: usize = 1 << 18;

impl Seen {
    fn bucket(&self, key: (u128, u128)) -> usize {
        let x = key.0 as u64 ^ (key.0 >> 64) as u64 ^ (key.1 as u64).rotate_left(23) ^ (key.1 >> 64) as u64;
        (splitmix(x) >> 32) as usize & (self.slots.len() - 1)
    }

    /// Whether `key` was reached before with at least `points`; records it otherwise.
    fn beaten(&mut self, key: (u128, u128), points: i64) -> bool {
        let b = self.bucket(key);
        let slot = &mut self.slots[b];
        if (slot.0, slot.1) == key && slot.2 >= points {
            return true;
        }
        *slot = (key.0, key.1, points);
        false
    }
}

struct Search<'a, B: Bits> {
    p: &'a Problem<B>,
    keys: &'a Keys,
    s: State<B>,
    sc: Scorer,
    budget: &'a mut Budget,
    frames: Vec<Frame>,
    /// Progress of runs and sequences, `width` per depth.
    prog: Vec<u32>,
    /// Cells still to strike, by their stack's kind.
    count: Vec<u32>,
    matchings: Vec<Matching>,
    scratch: Scratch,
    walk: Walk<B>,
    seen: Seen,
    route: Vec<u8>,
    best: (i64, Vec<u8>),
    kids: Vec<Vec<(i64, u8, bool)>>,
}

/// Branch and bound from `state` (the position of `game`), starting from `incumbent`.
pub(super) fn search<B: Bits>(
    p: &Problem<B>,
    keys: &Keys,
    state: State<B>,
    game: &SoloGame,
    budget: &mut Budget,
    incumbent: (Tenths, Vec<Square>),
) -> Best {
    let rules = game.forge().variant.scoring.clone().unwrap_or_default();
    let sc = Scorer::new(&rules);
    let (f, prog) = sc.frame_of(game.score());
    let mut count = vec![0u32; game.forge().variant.kinds.len()];
    for sq in 0..p.n {
        for h in state.hits[sq]..p.layers {
            count[p.cell(sq, h).index()] += 1;
        }
    }
    let mut m = Matching::new(p, &state);
    let mut scratch = Scratch::new();
    let mut walk = Walk::new();
    let feasible = state.left == 0 || (walk.ok(p, &state) && m.repair(p, &state, &mut scratch));
    let mut s = Search {
        p,
        keys,
        s: state,
        sc,
        budget,
        frames: vec![f],
        prog,
        count,
        matchings: vec![m],
        scratch,
        walk,
        seen: Seen { slots: vec![(u128::MAX, u128::MAX, i64::MIN); SEEN_SLOTS] },
        route: Vec::new(),
        best: (incumbent.0.0, incumbent.1.iter().map(|s| s.0).collect()),
        kids: Vec::new(),
    };
    s.dfs(0, feasible);
    let proved = !s.budget.stopped();
    Best { score: Tenths(s.best.0), route: s.best.1.iter().map(|&q| Square(q)).collect(), proved }
}

impl<B: Bits> Search<'_, B> {
    fn bound(&self, depth: usize, feasible: bool) -> i64 {
        let w = self.sc.width();
        let f = self.frames[depth];
        let prog = &self.prog[depth * w..(depth + 1) * w];
        let (mut minus, mut plus) = (None, None);
        if let Some((k, layers)) = self.p.layer_piece {
            let pending = (layers & !((1u32 << (self.s.min + 1)) - 1)).count_ones();
            let mut more = pending;
            if let Some(wsq) = self.s.wild {
                minus = Some(self.p.cell(wsq as usize, self.s.hits[wsq as usize]).index());
                more += 1;
            }
            plus = Some((k.index(), more));
        }
        let mut layers_left = (self.p.layers - self.s.min) as u32;
        if !feasible {
            layers_left = layers_left.saturating_sub(1);
        }
        let up = self.sc.bound(f, prog, &self.count, minus, plus, self.s.left, layers_left);
        f.points.saturating_add(up)
    }

    /// Searches below the current position at `depth` (`feasible`: it passed the
    /// necessary conditions, its matching at `depth`).
    fn dfs(&mut self, depth: usize, feasible: bool) {
        let f = self.frames[depth];
        if f.points > self.best.0 {
            self.best = (f.points, self.route.clone());
        }
        if self.s.left == 0 || self.bound(depth, feasible) <= self.best.0 {
            return;
        }
        let w = self.sc.width();
        while self.frames.len() <= depth + 1 {
            self.frames.push(Frame::default());
            self.prog.extend(std::iter::repeat_n(0, w));
            self.kids.push(Vec::new());
        }
        while self.matchings.len() <= depth + 1 {
            let m = Matching::new(self.p, &self.s);
            self.matchings.push(m);
        }
        let mut kids = std::mem::take(&mut self.kids[depth]);
        kids.clear();
        let mut targets = self.s.targets(self.p);
        while targets.any() {
            let t = targets.pop_lsb();
            if self.budget.spend() {
                self.kids[depth] = kids;
                return;
            }
            let kind = self.s.shown(self.p, t);
            let (u, gain) = self.step(depth, t, kind);
            let ok = feasible && (self.s.left == 0 || self.check(depth, &u));
            let onward = self.s.targets(self.p).count() as i64;
            self.unstep(u);
            // Forgeable first, then what the strike pays, then fewest onward targets.
            kids.push((-(gain * 1024 - onward) - if ok { 1 << 40 } else { 0 }, t as u8, ok));
        }
        kids.sort_unstable();
        for &(_, t, ok) in kids.iter() {
            let kind = self.s.shown(self.p, t as usize);
            let (u, _) = self.step(depth, t as usize, kind);
            if ok && self.s.left > 0 {
                // Again, to leave the child's matching at depth + 1.
                let again = self.check(depth, &u);
                debug_assert!(again);
            }
            self.route.push(t);
            let key = (self.keys.key(self.p, &self.s), self.signature(depth + 1));
            if !self.seen.beaten(key, self.frames[depth + 1].points) {
                self.dfs(depth + 1, ok);
            }
            self.route.pop();
            self.unstep(u);
            if self.budget.stopped() {
                break;
            }
        }
        self.kids[depth] = kids;
    }

    /// Strikes `t` (showing `kind`) and scores it into frame `depth + 1`.
    fn step(&mut self, depth: usize, t: usize, kind: KindId) -> (super::board::Undo, i64) {
        let w = self.sc.width();
        let cell = self.p.cell(t, self.s.hits[t]);
        let u = self.s.strike(self.p, self.keys, t);
        self.count[cell.index()] -= 1;
        let layer_done = self.s.min > u.min;
        let (lo, hi) = self.prog.split_at_mut((depth + 1) * w);
        let f = self.sc.strike(self.frames[depth], &lo[depth * w..], kind, layer_done, &mut hi[..w]);
        let gain = f.points - self.frames[depth].points;
        self.frames[depth + 1] = f;
        (u, gain)
    }

    fn unstep(&mut self, u: super::board::Undo) {
        self.s.undo(self.p, self.keys, u);
        let t = u.sq as usize;
        self.count[self.p.cell(t, self.s.hits[t]).index()] += 1;
    }

    /// The necessary conditions of the position just entered from `depth`.
    fn check(&mut self, depth: usize, u: &super::board::Undo) -> bool {
        let p = self.p;
        if self.s.targets(p).is_empty() || !self.walk.ok(p, &self.s) {
            return false;
        }
        let (lo, hi) = self.matchings.split_at_mut(depth + 1);
        let m = &mut hi[0];
        m.copy_from(&lo[depth]);
        m.struck(p, &self.s, u);
        m.repair(p, &self.s, &mut self.scratch)
    }

    /// What of the score state at `depth` decides the points still to come: the chain
    /// (its length only up to the table's end), runs up to their period, sequences.
    /// Packed exactly when it fits (always, for tables of ordinary size), else hashed.
    fn signature(&self, depth: usize) -> u128 {
        let w = self.sc.width();
        let f = self.frames[depth];
        let cap = self.sc.chain.len().max(1) as u32;
        let mut packed = f.chain_kind as u128 | (f.chain_len.min(cap) as u128) << 8;
        let mut used = 8 + 32;
        let mut hash = packed as u64 ^ 0x51_7cc1_b727_220a;
        for (i, &x) in self.prog[depth * w..(depth + 1) * w].iter().enumerate() {
            let (x, span) = match self.sc.runs.get(i) {
                Some(r) => (x % r.1, r.1),
                None => (x, self.sc.seqs[i - self.sc.runs.len()].0.kinds.len() as u32 + 1),
            };
            let bits = 32 - span.leading_zeros();
            if used + bits <= 127 {
                packed |= (x as u128) << used;
            }
            used += bits;
            hash = splitmix(hash ^ splitmix(x as u64 ^ (i as u64) << 40));
        }
        if used <= 127 { packed } else { hash as u128 | 1 << 127 }
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
