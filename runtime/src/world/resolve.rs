//! The round resolver: every player's accepted orders take effect together, phase by
//! phase as the variant declares (royal pieces placed, drops, leaps, slides), in
//! micro-steps. Within a micro-step every mover leaves, friendly movers stop before
//! friendly pieces, enemy swaps collide, then each square in (y, x) order: the movers
//! entering it fight (strongest wins and banks the rest; equals destroy each other),
//! and the survivor meets the sitter (landing captures it, passing is stopped and
//! banked). Royal pieces lost conquer their board at the end of the micro-step.
//!
//! Pure: a function of the variant, the state and the orders (and the seed, through the
//! bots), with no I/O; the same input gives the same output, threads or not.

use super::cells::{Cell, NOBODY};
use super::events::{Cause, What, WorldEvent};
use super::geometry::{BoardId, Pos};
use super::moves::Movement;
use super::orders::{Order, PlayerPlan, Rejection};
use super::state::Realm;
use crate::mechanics::reserve::Banked;
use crate::piece::KindId;
use crate::variant::Phase;

/// The result of a round.
#[derive(Clone, Debug)]
pub struct Resolution {
    /// The state after the round.
    pub realm: Realm,
    /// Per player (join order): what became of their orders.
    pub plans: Vec<PlayerPlan>,
    /// Per player: the orders were the bot's.
    pub bots: Vec<bool>,
    /// Orders given in the name of players the realm does not know.
    pub strangers: Vec<(String, usize)>,
    pub events: Vec<WorldEvent>,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Mover {
    pub(crate) owner: u32,
    pub(crate) kind: KindId,
    pub(crate) origin: Pos,
    cur: Pos,
    pub(crate) target: Pos,
    pub(crate) dir: (i32, i32),
    pub(crate) fields: i32,
    done: i32,
    pub(crate) slide: bool,
    /// A drop or a placement: it appears, from nowhere.
    pub(crate) appear: Option<Phase>,
    alive: bool,
    finished: bool,
}

impl Mover {
    /// A mover as [`Exec::stage`] makes it (it has not moved yet).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn staged(
        owner: u32,
        kind: KindId,
        origin: Pos,
        target: Pos,
        dir: (i32, i32),
        fields: i32,
        slide: bool,
        appear: Option<Phase>,
    ) -> Mover {
        Mover {
            owner,
            kind,
            origin,
            cur: origin,
            target,
            dir,
            fields,
            done: 0,
            slide,
            appear,
            alive: true,
            finished: false,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Entrant {
    mover: u32,
    /// The mover's owner, kept here so sorting needs no lookup.
    owner: u32,
    from: Option<Pos>,
    to: Pos,
    state: St,
}

/// Which list of a round a mover is in: it decides the phase it acts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Place,
    Drop,
    Hop,
    Slide,
}

/// Where an event falls in the world's order of a round, for resolutions split into
/// independent groups of boards (see `world::groups`): the step (phase index and
/// micro-step), the part of the step (0: stops and cancels, 1: swaps, 2: arrivals,
/// 3: conquests) and the square the part is at. Two groups never share a square, so
/// sorting their events by this key, stably, gives the order one resolution of the
/// whole world has.
pub(crate) type EventKey = (u64, u64);

/// A bank into a vault not yet made (a group does not see the other groups' banks):
/// made when the groups' events are merged, in the world's order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deferred {
    pub key: EventKey,
    pub bank: Option<(u32, KindId)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Active,
    Stopped,
    Cancelled,
}

pub(crate) struct Exec<'a> {
    m: &'a Movement<'a>,
    pub realm: Realm,
    movers: Vec<Mover>,
    leaving: Vec<bool>,
    pub events: Vec<WorldEvent>,
    phase: Option<Phase>,
    pub(crate) ms: u32,
    conquests: Vec<(Pos, BoardId, u32, u32)>,
    pub(crate) new_pending: Vec<(BoardId, u32)>,
    /// Banks are deferred (a group of boards resolved apart): `deferred` holds one
    /// entry per event.
    defer: bool,
    pub(crate) deferred: Vec<Deferred>,
    /// The phase's index in the variant's list, and the part and square of the step
    /// being resolved: the key of the events emitted now.
    phase_idx: u8,
    part: (u8, Pos),
}

impl<'a> Exec<'a> {
    pub fn new(m: &'a Movement<'a>, realm: Realm) -> Exec<'a> {
        Exec {
            m,
            realm,
            movers: Vec::new(),
            leaving: Vec::new(),
            events: Vec::new(),
            phase: None,
            ms: 0,
            conquests: Vec::new(),
            new_pending: Vec::new(),
            defer: false,
            deferred: Vec::new(),
            phase_idx: 0,
            part: (0, Pos::new(0, 0)),
        }
    }

    /// A resolver for one group of boards: banks into vaults are recorded with their
    /// events' keys instead of made.
    pub fn deferring(m: &'a Movement<'a>, realm: Realm) -> Exec<'a> {
        Exec { defer: true, ..Exec::new(m, realm) }
    }

    fn key(&self) -> EventKey {
        let (part, p) = self.part;
        let hi = ((self.phase_idx as u64) << 40) | ((self.ms as u64) << 8) | part as u64;
        // (y, x) order, signed coordinates made unsigned with the order kept.
        let lo = (((p.y as u32 ^ 0x8000_0000) as u64) << 32) | (p.x as u32 ^ 0x8000_0000) as u64;
        (hi, lo)
    }

    fn ev(&mut self, phase: Option<Phase>, what: What) {
        self.ev_banked(phase, what, None);
    }

    fn ev_banked(&mut self, phase: Option<Phase>, what: What, bank: Option<(u32, KindId)>) {
        if self.defer {
            let key = self.key();
            self.deferred.push(Deferred { key, bank });
        }
        self.events.push(WorldEvent { phase, microstep: self.ms, what });
    }

    fn strength(&self, id: u32) -> i64 {
        self.m.rules.strength[self.movers[id as usize].kind.index()]
    }

    fn mover_phase(&self, id: u32) -> Option<Phase> {
        let mv = &self.movers[id as usize];
        mv.appear.or(Some(if mv.slide { Phase::Slides } else { Phase::Leaps }))
    }

    /// Sends a piece of `owner` to `vault`'s reserve (None: destroyed), with its event.
    fn bank(&mut self, phase: Option<Phase>, owner: u32, kind: KindId, at: Pos, cause: Cause, vault: Option<u32>) {
        let rule = &self.m.rules.reserve;
        if self.defer {
            // Whether the vault overflows is known when the banks are made in order;
            // whether it holds the kind at all is known now.
            let vault = vault.filter(|&v| v != NOBODY && rule.holds(kind));
            let what = What::Removed { player: owner, kind, at, cause, vault, overflow: false };
            self.ev_banked(phase, what, vault.map(|v| (v, kind)));
            return;
        }
        let (vault, overflow) = match vault {
            Some(v) if v != NOBODY => match self.realm.vaults[v as usize].bank(rule, kind) {
                Banked::Stored => (Some(v), false),
                Banked::Overflow => (Some(v), true),
                Banked::NotHeld => (None, false),
            },
            _ => (None, false),
        };
        self.ev(phase, What::Removed { player: owner, kind, at, cause, vault, overflow });
    }

    /// Where a piece taken by `taker` goes.
    fn taker_vault(&self, taker: u32) -> Option<u32> {
        self.m.rules.reserve.captured_to_taker.then_some(taker)
    }

    /// A royal piece of `owner` was lost on `at`; `taker` conquers its board.
    fn royal_lost(&mut self, at: Pos, owner: u32, taker: Option<u32>) {
        let b = at.board(self.m.tile());
        match taker {
            Some(t) if t != owner => self.conquests.push((at, b, t, owner)),
            _ => {
                if self.realm.cells.owner(b) == owner {
                    self.new_pending.push((b, owner));
                    self.ev(self.phase, What::KingPending { board: b, player: owner });
                }
            }
        }
    }

    /// Removes the piece standing on `at` (a sitter), cancelling its move if it had one.
    fn remove_sitter(&mut self, phase: Option<Phase>, at: Pos, cause: Cause, taker: u32) {
        let c = self.realm.cells.get(at);
        if c.is_empty() {
            return;
        }
        if let Some(id) = c.mover() {
            self.movers[id as usize].alive = false;
        }
        self.realm.cells.set(at, Cell::EMPTY);
        let vault = if cause == Cause::Conquest { Some(taker) } else { self.taker_vault(taker) };
        self.bank(phase, c.owner(), c.kind(), at, cause, vault);
        if self.m.is_royal(c.kind()) {
            self.royal_lost(at, c.owner(), Some(taker));
        }
    }

    /// Removes a mover that is not on the board (it left its square this micro-step).
    fn remove_mover(&mut self, id: u32, at: Pos, cause: Cause, vault: Option<u32>, taker: Option<u32>) {
        let mv = self.movers[id as usize];
        self.movers[id as usize].alive = false;
        let phase = self.mover_phase(id);
        self.bank(phase, mv.owner, mv.kind, at, cause, vault);
        if self.m.is_royal(mv.kind) {
            self.royal_lost(at, mv.owner, taker);
        }
    }

    /// CA-11, CA-12, A-CA7: the movers arriving on `at` together fight; returns the
    /// survivor. Losers go strongest first, then in join order.
    fn fight(&mut self, at: Pos, mut rest: Vec<u32>) -> Option<u32> {
        loop {
            if rest.len() <= 1 {
                return rest.pop();
            }
            let max = rest.iter().map(|&i| self.strength(i)).max().unwrap_or(0);
            let mut top: Vec<u32> = rest.iter().copied().filter(|&i| self.strength(i) == max).collect();
            if top.len() == 1 {
                let w = top[0];
                let winner = self.movers[w as usize].owner;
                let mut losers: Vec<u32> = rest.into_iter().filter(|&i| i != w).collect();
                losers.sort_by_key(|&i| (-self.strength(i), self.movers[i as usize].owner, i));
                for l in losers {
                    self.remove_mover(l, at, Cause::LostFight, self.taker_vault(winner), Some(winner));
                }
                return Some(w);
            }
            top.sort_by_key(|&i| (self.movers[i as usize].owner, i));
            for &t in &top {
                let own = self.movers[t as usize].owner;
                self.remove_mover(t, at, Cause::Tie, Some(own), None);
            }
            rest.retain(|&i| self.strength(i) != max);
        }
    }

    /// Adds a mover; a moving piece carries its index in its cell.
    fn add(&mut self, mv: Mover) -> u32 {
        let id = self.movers.len() as u32;
        if mv.appear.is_none() {
            let c = self.realm.cells.get(mv.origin);
            self.realm.cells.set(mv.origin, c.with_mover(id));
        }
        self.movers.push(mv);
        self.leaving.push(false);
        id
    }

    /// One micro-step for these entrants.
    fn step(&mut self, mut ents: Vec<Entrant>) {
        ents.retain(|e| self.movers[e.mover as usize].alive);
        if ents.is_empty() {
            return;
        }
        ents.sort_unstable_by_key(|e| (e.to, e.owner, e.mover));
        for e in &ents {
            self.leaving[e.mover as usize] = e.from.is_some();
        }
        // A-CA22: a slider stops if another friendly mover enters its next field too.
        let mut i = 0;
        while i < ents.len() {
            let mut j = i;
            while j < ents.len() && ents[j].to == ents[i].to {
                j += 1;
            }
            for a in i..j {
                let ma = self.movers[ents[a].mover as usize];
                if ma.slide
                    && ents[a].from.is_some()
                    && (i..j).any(|b| b != a && self.movers[ents[b].mover as usize].owner == ma.owner)
                {
                    ents[a].state = St::Stopped;
                    self.leaving[ents[a].mover as usize] = false;
                }
            }
            i = j;
        }
        // A-CA8, A-CA22: nobody enters a square a friendly piece keeps; a stop can
        // stop the friend behind it, so repeat until nothing changes.
        loop {
            let mut changed = false;
            for e in ents.iter_mut() {
                if e.state != St::Active {
                    continue;
                }
                let owner = self.movers[e.mover as usize].owner;
                let c = self.realm.cells.get(e.to);
                let keeps = !c.is_empty() && c.owner() == owner && !c.mover().is_some_and(|m| self.leaving[m as usize]);
                if keeps {
                    e.state = if e.from.is_some() { St::Stopped } else { St::Cancelled };
                    self.leaving[e.mover as usize] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for e in &ents {
            let mv = self.movers[e.mover as usize];
            self.part = (0, e.to);
            match e.state {
                St::Stopped => {
                    self.movers[e.mover as usize].finished = true;
                    let phase = self.mover_phase(e.mover);
                    self.ev(
                        phase,
                        What::Stopped {
                            player: mv.owner,
                            kind: mv.kind,
                            from: mv.origin,
                            at: mv.cur,
                            target: mv.target,
                        },
                    );
                }
                St::Cancelled => {
                    self.movers[e.mover as usize].alive = false;
                    let mut bank = None;
                    if mv.appear == Some(Phase::Drops) {
                        if self.defer {
                            bank = Some((mv.owner, mv.kind));
                        } else {
                            let _ = self.realm.vaults[mv.owner as usize].bank(&self.m.rules.reserve, mv.kind);
                        }
                    } else {
                        self.new_pending.push((mv.target.board(self.m.tile()), mv.owner));
                    }
                    self.ev_banked(mv.appear, What::Cancelled { player: mv.owner, kind: mv.kind, at: e.to }, bank);
                }
                St::Active => {
                    if let Some(f) = e.from {
                        self.realm.cells.set(f, Cell::EMPTY);
                    }
                }
            }
        }
        if self.m.rules.swap_collision {
            self.swaps(&ents);
        }
        for e in &ents {
            self.leaving[e.mover as usize] = false;
        }
        let mut i = 0;
        while i < ents.len() {
            let to = ents[i].to;
            self.part = (2, to);
            let mut group = Vec::new();
            while i < ents.len() && ents[i].to == to {
                let e = ents[i];
                if e.state == St::Active && self.movers[e.mover as usize].alive {
                    group.push(e.mover);
                }
                i += 1;
            }
            let last = |s: &Self, id: u32| {
                let mv = &s.movers[id as usize];
                mv.appear.is_some() || mv.done + 1 >= mv.fields
            };
            let Some(w) = self.fight(to, group) else { continue };
            let mw = self.movers[w as usize];
            let sitter = self.realm.cells.get(to);
            let phase = self.mover_phase(w);
            if !sitter.is_empty() && sitter.owner() != mw.owner {
                if last(self, w) {
                    self.remove_sitter(phase, to, Cause::Captured, mw.owner);
                } else {
                    let so = sitter.owner();
                    self.remove_mover(w, to, Cause::Intercepted, self.taker_vault(so), Some(so));
                    continue;
                }
            } else if !sitter.is_empty() {
                // A friendly sitter the stop rule did not foresee (it cannot arise from
                // validated orders): the piece goes back to its owner's reserve.
                self.remove_mover(w, to, Cause::Tie, Some(mw.owner), None);
                continue;
            }
            self.realm.cells.set(to, Cell::piece(mw.owner, mw.kind).with_mover(w));
            let done = last(self, w);
            let mv = &mut self.movers[w as usize];
            mv.cur = to;
            mv.done += 1;
            if done {
                mv.finished = true;
                let what = match mv.appear {
                    Some(Phase::Drops) => What::Dropped { player: mv.owner, kind: mv.kind, at: to },
                    Some(_) => What::Placed { player: mv.owner, kind: mv.kind, at: to },
                    None => What::Moved { player: mv.owner, kind: mv.kind, from: mv.origin, to },
                };
                self.ev(phase, what);
            }
        }
        self.conquer();
    }

    /// A-CA6: enemy movers swapping adjacent squares collide as if arriving together.
    fn swaps(&mut self, ents: &[Entrant]) {
        let mut by_from: Vec<(Pos, usize)> = ents
            .iter()
            .enumerate()
            .filter(|(_, e)| e.state == St::Active && e.from.is_some())
            .map(|(i, e)| (e.from.unwrap_or(e.to), i))
            .collect();
        by_from.sort();
        for k in 0..by_from.len() {
            let (fa, a) = by_from[k];
            self.part = (1, fa);
            let ea = ents[a];
            let Ok(j) = by_from.binary_search_by(|(p, _)| p.cmp(&ea.to)) else { continue };
            let (fb, b) = by_from[j];
            let eb = ents[b];
            if eb.to != fa || fb <= fa {
                continue;
            }
            let (ma, mb) = (self.movers[ea.mover as usize], self.movers[eb.mover as usize]);
            if !ma.alive || !mb.alive || ma.owner == mb.owner {
                continue;
            }
            if ea.to.x.abs_diff(fa.x) > 1 || ea.to.y.abs_diff(fa.y) > 1 {
                continue;
            }
            // As an arrival fight of two; each loser is reported where it came from.
            let (sa, sb) = (self.strength(ea.mover), self.strength(eb.mover));
            if sa > sb {
                self.remove_mover(eb.mover, fb, Cause::LostFight, self.taker_vault(ma.owner), Some(ma.owner));
            } else if sb > sa {
                self.remove_mover(ea.mover, fa, Cause::LostFight, self.taker_vault(mb.owner), Some(mb.owner));
            } else {
                self.remove_mover(ea.mover, fa, Cause::Tie, Some(ma.owner), None);
                self.remove_mover(eb.mover, fb, Cause::Tie, Some(mb.owner), None);
            }
        }
    }

    /// A-CA21: conquests of this micro-step, in (y, x) order of the royal pieces taken.
    fn conquer(&mut self) {
        if self.conquests.is_empty() {
            return;
        }
        let mut list = std::mem::take(&mut self.conquests);
        list.sort();
        let tile = self.m.tile();
        for (at, board, captor, former) in list {
            self.part = (3, at);
            if self.realm.cells.owner(board) != former {
                continue;
            }
            self.realm.cells.set_owner(board, captor);
            self.ev(self.phase, What::Conquered { board, from: former, to: captor });
            for sq in board.squares(tile).collect::<Vec<_>>() {
                let c = self.realm.cells.get(sq);
                if !c.is_empty() && c.owner() == former {
                    self.remove_sitter(self.phase, sq, Cause::Conquest, captor);
                }
            }
            self.realm.pending.retain(|&(b, _)| b != board);
            self.new_pending.retain(|&(b, _)| b != board);
            self.new_pending.push((board, captor));
            self.ev(self.phase, What::KingPending { board, player: captor });
        }
    }

    /// Runs every phase for these plans (one per player, join order).
    pub fn run(&mut self, plans: &[PlayerPlan]) {
        let staged = self.stage(plans);
        self.run_staged(&staged);
    }

    /// The round's start: abandons, then every placement, drop and move as a mover,
    /// in join order (placements, drops, moves of each player); drops take their
    /// pieces out of the vault here, and placements clear their pending boards.
    pub(crate) fn stage(&mut self, plans: &[PlayerPlan]) -> Vec<(Mover, Class)> {
        let m = self.m;
        for (p, plan) in plans.iter().enumerate() {
            if plan.abandon {
                self.abandon(p as u32);
            }
        }
        let mut out = Vec::new();
        let royal = (0..m.v.kinds.len()).map(|k| KindId(k as u8)).find(|&k| m.is_royal(k));
        for (p, plan) in plans.iter().enumerate() {
            let p = p as u32;
            for &(board, to, _) in &plan.placements {
                let Some(k) = royal else { break };
                self.realm.pending.retain(|&(b, o)| !(b == board && o == p));
                out.push((appear(p, k, to, Phase::PlaceKings), Class::Place));
            }
            for &(to, k) in &plan.drops {
                if self.realm.vaults[p as usize].take(k) {
                    out.push((appear(p, k, to, Phase::Drops), Class::Drop));
                }
            }
            for mv in &plan.moves {
                let kind = mv.piece.kind();
                let slide = if m.is_royal(kind) { m.rules.kings_slide } else { mv.reach.slide };
                let (dir, fields) =
                    if mv.reach.slide || !slide { (mv.reach.dir, mv.reach.fields) } else { (mv.reach.dir, 1) };
                let mover = Mover {
                    owner: p,
                    kind,
                    origin: mv.from,
                    cur: mv.from,
                    target: mv.to,
                    dir,
                    fields: if slide { fields } else { 1 },
                    done: 0,
                    slide,
                    appear: None,
                    alive: true,
                    finished: false,
                };
                out.push((mover, if slide { Class::Slide } else { Class::Hop }));
            }
        }
        out
    }

    /// Every phase for these movers (as [`Exec::stage`] gives them, or a part of that
    /// list in its order).
    pub(crate) fn run_staged(&mut self, staged: &[(Mover, Class)]) {
        let m = self.m;
        let mut placements = Vec::new();
        let mut drops = Vec::new();
        let mut hops = Vec::new();
        let mut slides = Vec::new();
        for &(mv, class) in staged {
            let id = self.add(mv);
            match class {
                Class::Place => placements.push(id),
                Class::Drop => drops.push(id),
                Class::Hop => hops.push(id),
                Class::Slide => slides.push(id),
            }
        }
        let phases = m.rules.phases.clone();
        let mut slides_done = false;
        for (i, &phase) in phases.iter().enumerate() {
            self.phase = Some(phase);
            self.phase_idx = i as u8;
            match phase {
                Phase::PlaceKings | Phase::Drops => {
                    let ids = if phase == Phase::PlaceKings { &placements } else { &drops };
                    let ents = ids.iter().map(|&id| self.enter(id)).collect();
                    let keep = self.ms;
                    self.ms = 0;
                    self.step(ents);
                    self.ms = keep;
                }
                Phase::Leaps => {
                    self.ms += 1;
                    let mut ents: Vec<Entrant> = hops.iter().map(|&id| self.enter(id)).collect();
                    if m.rules.slides_with_leaps && phases.get(i + 1) == Some(&Phase::Slides) {
                        ents.extend(slides.iter().map(|&id| self.enter(id)));
                        self.step(ents);
                        self.slide_on(&slides);
                        slides_done = true;
                    } else {
                        self.step(ents);
                    }
                }
                Phase::Slides => {
                    if !slides_done {
                        self.ms += 1;
                        let ents = slides.iter().map(|&id| self.enter(id)).collect();
                        self.step(ents);
                        self.slide_on(&slides);
                    }
                }
            }
        }
        self.phase = None;
        // Pieces keep no mover marks between rounds.
        for mv in &self.movers {
            if mv.alive {
                let c = self.realm.cells.get(mv.cur);
                self.realm.cells.set(mv.cur, c.plain());
            }
        }
        for mv in self.movers.iter_mut() {
            mv.finished = true;
        }
    }

    /// Slider fields after the first, one micro-step each, until every slider is done.
    fn slide_on(&mut self, slides: &[u32]) {
        loop {
            let ents: Vec<Entrant> = slides
                .iter()
                .filter(|&&id| {
                    let mv = &self.movers[id as usize];
                    mv.alive && !mv.finished
                })
                .map(|&id| self.enter(id))
                .collect();
            if ents.is_empty() {
                return;
            }
            self.ms += 1;
            self.step(ents);
        }
    }

    fn enter(&self, id: u32) -> Entrant {
        let mv = &self.movers[id as usize];
        match mv.appear {
            Some(_) => Entrant { mover: id, owner: mv.owner, from: None, to: mv.target, state: St::Active },
            None => {
                let to = if mv.slide { Pos::new(mv.cur.x + mv.dir.0, mv.cur.y + mv.dir.1) } else { mv.target };
                Entrant { mover: id, owner: mv.owner, from: Some(mv.cur), to, state: St::Active }
            }
        }
    }

    /// The player leaves: their pieces go, their boards belong to nobody.
    fn abandon(&mut self, p: u32) {
        self.ev(None, What::Abandoned { player: p });
        let mut mine: Vec<Pos> = self.realm.cells.pieces().filter(|(_, c)| c.owner() == p).map(|(s, _)| s).collect();
        mine.sort();
        for s in mine {
            let c = self.realm.cells.get(s);
            self.realm.cells.set(s, Cell::EMPTY);
            self.ev(
                None,
                What::Removed {
                    player: p,
                    kind: c.kind(),
                    at: s,
                    cause: Cause::Abandoned,
                    vault: None,
                    overflow: false,
                },
            );
        }
        let boards: Vec<BoardId> = self.realm.cells.boards().to_vec();
        for b in boards {
            if self.realm.cells.owner(b) == p {
                self.realm.cells.set_owner(b, NOBODY);
            }
        }
        self.realm.pending.retain(|&(_, o)| o != p);
        self.realm.vaults[p as usize] = Default::default();
        self.realm.eliminated[p as usize] = true;
        let until = self.realm.time.unwrap_or(0).saturating_add(self.m.rules.lockout_hours as i64 * 3600);
        let name = self.realm.name(p).to_string();
        self.realm.lockouts.insert(name, until);
    }

    /// The end of the round: new pending royal pieces, eliminations, idle counts.
    pub fn finish(&mut self, given: &[bool]) {
        let n = self.realm.players.len();
        let mut pending = std::mem::take(&mut self.new_pending);
        pending.retain(|&(b, o)| self.realm.cells.owner(b) == o);
        self.realm.pending.extend(pending);
        self.realm.pending.sort();
        self.realm.pending.dedup_by_key(|e| e.0);
        let mut alive = vec![false; n];
        for &o in &self.realm.cells.owners {
            if o != NOBODY {
                alive[o as usize] = true;
            }
        }
        for (_, c) in self.realm.cells.pieces() {
            alive[c.owner() as usize] = true;
        }
        for (p, &a) in alive.iter().enumerate() {
            if !a && !self.realm.eliminated[p] {
                self.realm.eliminated[p] = true;
                self.ev(None, What::Eliminated { player: p as u32 });
            }
        }
        for (idle, &gave) in self.realm.idle.iter_mut().zip(given) {
            *idle = if gave { 0 } else { idle.saturating_add(1) };
        }
        self.realm.round = self.realm.round.saturating_add(1);
    }
}

fn appear(owner: u32, kind: KindId, to: Pos, phase: Phase) -> Mover {
    Mover {
        owner,
        kind,
        origin: to,
        cur: to,
        target: to,
        dir: (0, 0),
        fields: 1,
        done: 0,
        slide: false,
        appear: Some(phase),
        alive: true,
        finished: false,
    }
}

/// The orders of a round, per player in join order (None: the player gave none).
pub type GivenOrders = Vec<Option<Vec<Result<Order, Rejection>>>>;
