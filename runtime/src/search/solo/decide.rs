//! The decision search: is there a forging route from a position? Depth first, with
//! the necessary conditions of `end`, `walk` and `prune` checked on every child before
//! it is entered (dealing leaves out `end`, see `Checks`), and a table of refuted
//! positions, so a position is refuted once whatever the route to it.
//!
//! Children are tried the square with the fewest ways in to spare first (the cells
//! still to strike that can reach it, less the strikes it still needs): in the spirit
//! of Warnsdorff's rule, the square hardest to come back to is struck while it still
//! can be.
//!
//! A depth-first search that goes wrong early can spend any time below the mistake,
//! so the search *restarts*: run `k` may visit `RESTART_BASE` times the `k`th term of
//! Luby's sequence (1 1 2 1 1 2 4 1 1 2 …) nodes, breaking ties between equally urgent
//! squares at random from a seed fixed by `k` (run 0 in square order), and every run
//! keeps the refutations of the runs before. The time to find a route is heavy tailed
//! (most orders find one at once, a few wander for millions of nodes below an early
//! mistake), so many short runs find routes that a few long ones miss; the sequence
//! still holds runs of every length, so a board without a route is refuted all the
//! same, by a run long enough for what the table has not refuted already. Dealing
//! keeps the first scheme, allowances doubling run by run (`Restarts`), so that a seed
//! deals the board it always did. The first run that finds a route, or refutes the
//! whole tree within its allowance, decides; a node limit makes it all deterministic.

use super::Budget;
use super::board::{Keys, Problem, State};
use super::end::Ends;
use super::prune::{Matching, Scratch, ways_in};
use super::walk::Walk;
use crate::bits::Bits;
use crate::rng::Rng;

/// Positions proved unforgeable: a set of keys with a bounded memory. A key that falls
/// out only costs a search again, never a wrong answer.
pub(super) struct Refuted {
    slots: Vec<u128>,
    len: usize,
}

/// Four keys a bucket; the table doubles up to this many slots (64 MB).
const WAYS: usize = 4;
const MAX_SLOTS: usize = 1 << 22;

impl Refuted {
    pub fn new() -> Refuted {
        Refuted { slots: vec![0; 1 << 12], len: 0 }
    }

    fn bucket(&self, key: u128) -> usize {
        let h = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (h >> 20) as usize & (self.slots.len() / WAYS - 1)
    }

    pub fn contains(&self, key: u128) -> bool {
        let b = self.bucket(key) * WAYS;
        key != 0 && self.slots[b..b + WAYS].contains(&key)
    }

    pub fn insert(&mut self, key: u128) {
        if key == 0 {
            return;
        }
        if self.len * 4 >= self.slots.len() * 3 && self.slots.len() < MAX_SLOTS {
            let grown = vec![0; self.slots.len() * 2];
            let old = std::mem::replace(&mut self.slots, grown);
            self.len = 0;
            for k in old.into_iter().filter(|&k| k != 0) {
                self.put(k);
            }
        }
        self.put(key);
    }

    fn put(&mut self, key: u128) {
        let b = self.bucket(key) * WAYS;
        let bucket = &mut self.slots[b..b + WAYS];
        if bucket.contains(&key) {
            return;
        }
        match bucket.iter().position(|&k| k == 0) {
            Some(i) => {
                bucket[i] = key;
                self.len += 1;
            }
            // Full: the oldest goes (the bucket is kept in insertion order).
            None => {
                bucket.rotate_left(1);
                bucket[WAYS - 1] = key;
            }
        }
    }
}

/// What a search of a subtree ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Found {
    Forged,
    Refuted,
    Stopped,
}

pub(super) struct Decider<'a, B: Bits> {
    pub p: &'a Problem<B>,
    pub keys: &'a Keys,
    pub s: State<B>,
    /// The matching of each depth's position.
    matchings: Vec<Matching>,
    scratch: Scratch,
    refuted: Refuted,
    budget: &'a mut Budget,
    /// The strikes from the root to the current position.
    pub route: Vec<u8>,
    /// Children to try, per depth: (urgency, tie-break, square).
    order: Vec<Vec<(i32, u32, u8)>>,
    ways: Vec<u16>,
    walk: Walk<B>,
    ends: Ends<B>,
    /// This run's allowance of nodes, and its tie-breaking generator.
    run_left: u64,
    restarts: Restarts,
    checks: Checks,
    ties: Option<Rng>,
}

/// Which necessary conditions a node must pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Checks {
    /// The walk and the matching: what boards have always been dealt with (a sound
    /// condition added later changes how many nodes a board takes, so which draw a
    /// seed deals).
    Dealing,
    /// Those and the sinks of the top layers (`end.rs`).
    All,
}

/// The first run's allowance, the unit of the others.
const RESTART_BASE: u64 = 2_000;

/// How the runs' allowances grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Restarts {
    /// `RESTART_BASE × 2^k`: what boards have always been dealt with.
    Doubling,
    /// `RESTART_BASE × luby(k + 1)`.
    Luby,
}

/// The `i`th term (from 1) of Luby's sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 …: `2^(k-1)`
/// at `i = 2^k - 1`, and otherwise the sequence again from the last such place.
pub(super) fn luby(i: u64) -> u64 {
    let mut i = i.max(1) as u128;
    loop {
        // 2^(k-1) <= i < 2^k
        let k = 128 - i.leading_zeros();
        if i == (1u128 << k) - 1 {
            return 1u64 << (k - 1);
        }
        i -= (1u128 << (k - 1)) - 1;
    }
}

impl<'a, B: Bits> Decider<'a, B> {
    pub fn new(
        p: &'a Problem<B>,
        keys: &'a Keys,
        s: State<B>,
        budget: &'a mut Budget,
        restarts: Restarts,
        checks: Checks,
    ) -> Decider<'a, B> {
        Decider {
            p,
            keys,
            matchings: Vec::new(),
            scratch: Scratch::new(),
            refuted: Refuted::new(),
            budget,
            route: Vec::new(),
            order: Vec::new(),
            ways: Vec::new(),
            walk: Walk::new(),
            ends: Ends::new(),
            run_left: u64::MAX,
            restarts,
            checks,
            ties: None,
            s,
        }
    }

    /// Decides the position: runs with growing allowances until one decides, or the
    /// budget ends. On `Forged`, `route` holds the route.
    pub fn run(&mut self) -> Found {
        if !self.root_feasible() {
            return Found::Refuted;
        }
        let root = self.s.clone();
        for k in 0u64.. {
            self.run_left = match self.restarts {
                Restarts::Doubling => RESTART_BASE.checked_shl(k.min(40) as u32).unwrap_or(u64::MAX),
                Restarts::Luby => RESTART_BASE.saturating_mul(luby(k + 1)),
            };
            self.ties = (k > 0).then(|| Rng::new(0x7135_0000 + k));
            self.route.clear();
            let r = self.search(0);
            match r {
                Found::Stopped if !self.budget.stopped() => {
                    // The run's allowance ended: the next run starts over from the root.
                    self.s = root.clone();
                }
                found => return found,
            }
        }
        unreachable!("the runs' allowances grow until the budget ends")
    }

    /// Whether the current position passes every necessary condition (its matching,
    /// built from scratch, is left at depth 0).
    fn root_feasible(&mut self) -> bool {
        let mut m = Matching::new(self.p, &self.s);
        let ok = self.s.left == 0
            || (self.ends_ok() && self.walk.ok(self.p, &self.s) && m.repair(self.p, &self.s, &mut self.scratch));
        self.matchings.clear();
        self.matchings.push(m);
        ok
    }

    /// Whether the position passes the sink condition (when that check is on).
    fn ends_ok(&mut self) -> bool {
        self.checks == Checks::Dealing || self.ends.ok(self.p, &self.s)
    }

    /// Counts a node; whether the search must stop (the budget, or this run's
    /// allowance, is spent).
    fn spend(&mut self) -> bool {
        if self.run_left == 0 {
            return true;
        }
        self.run_left -= 1;
        self.budget.spend()
    }

    /// Searches from the current position (which passed its checks, its matching at
    /// `depth`).
    fn search(&mut self, depth: usize) -> Found {
        if self.s.left == 0 {
            return Found::Forged;
        }
        while self.order.len() <= depth {
            self.order.push(Vec::new());
        }
        while self.matchings.len() <= depth + 1 {
            let m = Matching::new(self.p, &self.s);
            self.matchings.push(m);
        }
        let mut kids = std::mem::take(&mut self.order[depth]);
        kids.clear();
        ways_in(self.p, &self.s, &mut self.ways);
        let mut targets = self.s.targets(self.p);
        while targets.any() {
            let t = targets.pop_lsb();
            if self.spend() {
                self.order[depth] = kids;
                return Found::Stopped;
            }
            if self.enter(depth, t) {
                let spare = self.ways[t] as i32 - (self.p.layers - self.s.hits[t]) as i32;
                let tie = self.ties.as_mut().map_or(0, |r| r.next_u64() as u32);
                kids.push((spare, tie, t as u8));
            }
        }
        kids.sort_unstable();
        let mut result = Found::Refuted;
        for &(_, _, t) in kids.iter() {
            // Again, to leave the child's matching at depth + 1 (a check is cheaper than
            // keeping every child's matching).
            let entered = self.enter(depth, t as usize);
            debug_assert!(entered);
            let u = self.s.strike(self.p, self.keys, t as usize);
            self.route.push(t);
            let r = self.search(depth + 1);
            if r == Found::Forged {
                // The route and the position stay at the forged leaf.
                self.order[depth] = kids;
                return r;
            }
            if r == Found::Refuted {
                self.refuted.insert(self.keys.key(self.p, &self.s));
            }
            self.route.pop();
            self.s.undo(self.p, self.keys, u);
            if r == Found::Stopped {
                result = r;
                break;
            }
        }
        self.order[depth] = kids;
        result
    }

    /// Strikes `t`, checks the child, takes it back; the child's matching is left at
    /// `depth + 1`. Whether the child passed.
    fn enter(&mut self, depth: usize, t: usize) -> bool {
        let p = self.p;
        let u = self.s.strike(p, self.keys, t);
        let ok = self.s.left == 0 || {
            let key = self.keys.key(p, &self.s);
            self.s.targets(p).any() && !self.refuted.contains(key) && self.ends_ok() && self.walk.ok(p, &self.s) && {
                let (lo, hi) = self.matchings.split_at_mut(depth + 1);
                let m = &mut hi[0];
                m.copy_from(&lo[depth]);
                m.struck(p, &self.s, &u);
                m.repair(p, &self.s, &mut self.scratch)
            }
        };
        self.s.undo(p, self.keys, u);
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::luby;

    #[test]
    fn luby_sequence() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
        // 2^k - 1 is the first place of 2^(k-1); far out it neither wraps nor panics.
        assert_eq!(luby(1023), 512);
        assert_eq!(luby(u64::MAX), 1 << 63);
        assert_eq!(luby(0), 1);
    }
}
