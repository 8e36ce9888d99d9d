//! A round's resolution split into independent groups of boards, resolved apart (on
//! threads when asked) with exactly the result of one resolution of the whole world.
//!
//! Boards joined by a mover's path form a group: movers of different groups never meet
//! on a square, and a conquest or a pending royal piece concerns one board, so a group's
//! micro-steps see nothing of the others. What groups share is the vaults: a group
//! records each bank with its event instead of making it, and the merge sorts every
//! group's events into the world's order (step, part of the step, square — two groups
//! never share a square, see [`EventKey`]) and makes the banks in that order, which is
//! the order one resolution of the world makes them in (so a full vault overflows on
//! the same piece).

use super::cells::FxMap;
use super::events::What;
use super::geometry::BoardId;
use super::moves::Movement;
use super::resolve::{Class, Deferred, EventKey, Exec, Mover};
use super::round::map_players;
use super::state::Realm;
use crate::mechanics::reserve::Banked;
use crate::variant::{Phase, WorldRules};

/// The groups are dealt into this many jobs, a fixed number: the work done, and every
/// intermediate layout, is the same with one thread or many.
const JOBS: usize = 64;

/// Whether a world's rounds can be resolved by groups: the micro-steps of a phase after
/// the slides would be numbered after the world's longest slide, which one group cannot
/// know, so a variant with such a phase is resolved whole.
pub(crate) fn applies(rules: &WorldRules) -> bool {
    match rules.phases.iter().position(|&p| p == Phase::Slides) {
        Some(i) => i + 1 == rules.phases.len(),
        None => true,
    }
}

/// Union-find over board slots (the realm's boards, then boards a path enters that do
/// not exist yet).
struct Sets {
    parent: Vec<u32>,
}

impl Sets {
    fn find(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            // Path halving: every other node points to its grandparent.
            let g = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = g;
            i = g;
        }
        i
    }

    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        // The lower slot is the root: roots do not depend on the order of unions.
        if ra < rb {
            self.parent[rb as usize] = ra;
        } else if rb < ra {
            self.parent[ra as usize] = rb;
        }
    }
}

/// What one job gives back.
pub(crate) struct Done {
    pub realm: Realm,
    pub events: Vec<super::events::WorldEvent>,
    pub deferred: Vec<Deferred>,
    pub new_pending: Vec<(BoardId, u32)>,
    /// Its last micro-step.
    pub ms: u32,
}

/// A slot that belongs to no group with a mover.
pub(crate) const NONE: u32 = u32::MAX;

/// The groups of a round's boards: every mover's path joins the boards it touches.
pub(crate) struct Grouping {
    /// Boards of the realm (slots below `n`, the realm's board indices).
    n: usize,
    /// Boards a path enters that do not exist yet (slots from `n`, in order).
    fresh: Vec<BoardId>,
    sets: Sets,
    /// Each staged mover's home slot (the board it starts or appears on).
    pub home: Vec<u32>,
    /// Per slot: whether its group has a mover.
    used: Vec<bool>,
}

impl Grouping {
    /// Slots in all (the realm's boards, then the fresh ones).
    pub fn slots(&self) -> usize {
        self.sets.parent.len()
    }

    /// The board of a slot.
    pub fn board(&self, realm: &Realm, s: usize) -> BoardId {
        if s < self.n { realm.cells.boards()[s] } else { self.fresh[s - self.n] }
    }

    /// The root (lowest slot) of a slot's group, if the group has a mover.
    pub fn root(&mut self, s: usize) -> Option<u32> {
        let r = self.sets.find(s as u32);
        self.used[r as usize].then_some(r)
    }
}

/// Joins the boards of `staged` (as [`Exec::stage`] gave them, on `realm`) into groups.
pub(crate) fn group(m: &Movement, realm: &Realm, staged: &[(Mover, Class)]) -> Grouping {
    let tile = m.tile();
    let n = realm.cells.boards().len();
    // Slots of boards that do not exist yet, after the realm's.
    let mut fresh: FxMap<BoardId, u32> = FxMap::default();
    let mut fresh_list: Vec<BoardId> = Vec::new();
    let mut sets = Sets { parent: (0..n as u32).collect() };
    let mut slot = |b: BoardId, sets: &mut Sets| -> u32 {
        if let Some(t) = realm.cells.find(b) {
            return t as u32;
        }
        let next = (n + fresh.len()) as u32;
        let s = *fresh.entry(b).or_insert(next);
        if s == next {
            sets.parent.push(next);
            fresh_list.push(b);
        }
        s
    };
    // Each mover's home slot (the board it starts or appears on), joined with every
    // board its path touches.
    let mut home: Vec<u32> = Vec::with_capacity(staged.len());
    for (mv, class) in staged {
        let h = slot(mv.origin.board(tile), &mut sets);
        home.push(h);
        match class {
            Class::Place | Class::Drop => {}
            Class::Hop => {
                let t = slot(mv.target.board(tile), &mut sets);
                sets.union(h, t);
            }
            Class::Slide => {
                let mut last = mv.origin.board(tile);
                for i in 1..=mv.fields {
                    let Some(p) = mv.origin.offset(mv.dir.0 * i, mv.dir.1 * i) else { break };
                    let b = p.board(tile);
                    if b != last {
                        last = b;
                        let t = slot(b, &mut sets);
                        sets.union(h, t);
                    }
                }
            }
        }
    }
    let total = sets.parent.len();
    let mut used = vec![false; total];
    for &h in &home {
        let r = sets.find(h);
        used[r as usize] = true;
    }
    Grouping { n, fresh: fresh_list, sets, home, used }
}

/// One job's share of a round: its boards (the realm's board indices), its movers in
/// the staged order, and the pending royal pieces of its boards.
pub(crate) struct Share {
    pub boards: Vec<usize>,
    pub movers: Vec<(Mover, Class)>,
    pub pending: Vec<(BoardId, u32)>,
}

/// Deals the groups into `jobs` shares by `job_of` (per slot, its group's job, or
/// [`NONE`]); the pending royal pieces of dealt boards leave `exec`'s realm.
pub(crate) fn deal(
    exec: &mut Exec,
    g: &Grouping,
    staged: &[(Mover, Class)],
    job_of: &[u32],
    jobs: usize,
) -> Vec<Share> {
    let mut shares: Vec<Share> =
        (0..jobs).map(|_| Share { boards: Vec::new(), movers: Vec::new(), pending: Vec::new() }).collect();
    for (t, &j) in job_of.iter().take(g.n).enumerate() {
        if j != NONE {
            shares[j as usize].boards.push(t);
        }
    }
    for (s, &h) in staged.iter().zip(&g.home) {
        shares[job_of[h as usize] as usize].movers.push(*s);
    }
    // Pending royal pieces of boards in a job move into it; the rest stay.
    exec.realm.pending.retain(|&(b, p)| match exec.realm.cells.find(b).map(|t| job_of[t]) {
        Some(j) if j != NONE => {
            shares[j as usize].pending.push((b, p));
            false
        }
        _ => true,
    });
    shares
}

/// Resolves a sub-realm's movers with banks deferred.
pub(crate) fn resolve_part(m: &Movement, sub: Realm, movers: &[(Mover, Class)]) -> Done {
    let mut e = Exec::deferring(m, sub);
    e.run_staged(movers);
    Done { realm: e.realm, events: e.events, deferred: e.deferred, new_pending: e.new_pending, ms: e.ms }
}

/// Resolves `staged` (as [`Exec::stage`] gave them, on `exec`'s realm) by groups of
/// boards, writing the result into `exec` as [`Exec::run_staged`] would have.
pub(crate) fn run(m: &Movement, exec: &mut Exec, staged: &[(Mover, Class)], parallel: bool) {
    let tile = m.tile();
    let mut g = group(m, &exec.realm, staged);
    // A group goes to the job of its lowest slot (its root): neighbouring boards (close
    // in the realm's order) share a job, and the deal depends on nothing but the groups.
    let total = g.slots();
    let mut job_of: Vec<u32> = vec![NONE; total];
    for (s, j) in job_of.iter_mut().enumerate() {
        if let Some(r) = g.root(s) {
            *j = (r as usize * JOBS / total).min(JOBS - 1) as u32;
        }
    }
    let shares = deal(exec, &g, staged, &job_of, JOBS);
    let realm = &exec.realm;
    let done: Vec<Done> = map_players(JOBS, parallel, |j| {
        let share = &shares[j];
        let mut sub = Realm::new(tile);
        sub.cells.reserve(share.boards.len());
        for &t in &share.boards {
            let b = realm.cells.boards()[t];
            sub.cells.set_owner(b, realm.cells.owners[t]);
            let local = sub.cells.board_index(b);
            sub.cells.board_cells_mut(local).copy_from_slice(realm.cells.board_cells(t));
        }
        sub.pending = share.pending.clone();
        resolve_part(m, sub, &share.movers)
    });
    drop(shares);
    merge(m, exec, done, parallel);
}

/// The jobs' results back into `exec`: their events in the world's order with the
/// banks made in that order, their boards, and their pending royal pieces.
pub(crate) fn merge(m: &Movement, exec: &mut Exec, done: Vec<Done>, parallel: bool) {
    // The world's last micro-step is the latest of the jobs' (the round's own events,
    // such as eliminations, carry it as the whole world's resolution gives it).
    exec.ms = done.iter().map(|d| d.ms).max().unwrap_or(exec.ms).max(exec.ms);
    // The events in the world's order; equal keys come from one job, in its order. One
    // job alone keeps the order it made them in (which is the world's).
    let mut order: Vec<(EventKey, u32, u32)> = Vec::with_capacity(done.iter().map(|d| d.events.len()).sum());
    for (j, d) in done.iter().enumerate() {
        order.extend(d.deferred.iter().enumerate().map(|(i, x)| (x.key, j as u32, i as u32)));
    }
    if done.len() > 1 {
        sort(&mut order, parallel);
    }
    let rule = &m.rules.reserve;
    exec.events.reserve(order.len());
    for &(_, j, i) in &order {
        let d = &done[j as usize];
        let mut ev = d.events[i as usize].clone();
        if let Some((v, kind)) = d.deferred[i as usize].bank {
            let banked = exec.realm.vaults[v as usize].bank(rule, kind);
            if let What::Removed { vault, overflow, .. } = &mut ev.what {
                match banked {
                    Banked::Stored => {}
                    Banked::Overflow => *overflow = true,
                    Banked::NotHeld => *vault = None,
                }
            }
        }
        exec.events.push(ev);
    }
    // The groups' boards back into the world (boards a group created are created here,
    // job by job in the group's order of creation).
    for d in done {
        let sub = &d.realm.cells;
        for (local, &b) in sub.boards().iter().enumerate() {
            let t = exec.realm.cells.board_index(b);
            exec.realm.cells.owners[t] = sub.owners[local];
            exec.realm.cells.board_cells_mut(t).copy_from_slice(sub.board_cells(local));
        }
        exec.realm.pending.extend(d.realm.pending);
        exec.new_pending.extend(d.new_pending);
    }
}

/// Sorts, on threads when asked (the keys are distinct, so the order is the same).
fn sort<T: Ord + Send>(v: &mut [T], parallel: bool) {
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        v.par_sort_unstable();
        return;
    }
    let _ = parallel;
    v.sort_unstable();
}
