//! A round's resolution in parts that other processes may resolve, with exactly the
//! result of one resolution of the whole world: what a service with several workers
//! needs (issue 13, point 4). It is [`crate::world::groups`]'s split, with the parts
//! chosen by the caller and every piece of it serialisable:
//!
//! 1. [`split`]: on the round's start, with every player's validated plan, the round's
//!    start is made once for the world (abandons, drops taken from the vaults, placed
//!    royal pieces' boards cleared: [`Split::realm`] and [`Split::head`]), and the
//!    movers are dealt into [`Part`]s. The caller labels boards (a realm: by city);
//!    boards a mover's path joins form a group, and a group goes whole to the part of
//!    the lowest label among its boards, so no two parts ever share a square, whatever
//!    the labels. A part holds only the boards its movers touch.
//! 2. [`resolve_part`]: one part's micro-steps, with every bank into a vault recorded
//!    with its event's key instead of made ([`PartDone`]).
//! 3. [`merge`]: the parts' events sorted into the world's order (step, part of the step,
//!    square), the banks made in that order against the capped vaults (so a full vault
//!    overflows on the same piece as in one resolution), the boards written back, then
//!    the end of the round (eliminations, idle counts, pending royal pieces).
//!
//! A variant whose phases after the slides depend on the world's longest slide (see
//! `groups::applies`) is put in one part. `tests/realm.rs` checks the bytes against
//! [`crate::world::round::execute_whole`], with every part and result sent through JSON.

use serde::{Deserialize, Serialize};

use super::cells::{Cell, NOBODY};
use super::events::{Cause, What, WorldEvent};
use super::geometry::{BoardId, Pos};
use super::groups::{self, Done, NONE};
use super::moves::Movement;
use super::orders::PlayerPlan;
use super::resolve::{Class, Deferred, Exec, Mover};
use super::state::{Realm, RealmError};
use crate::piece::KindId;
use crate::variant::Phase;

/// A round split into parts.
pub struct Split {
    /// The realm at the start of the phases: abandons made, drops taken out of the
    /// vaults, placed royal pieces' pending boards cleared, and the pending royal pieces
    /// of the parts' boards moved into the parts. [`merge`] goes on from it.
    pub realm: Realm,
    /// What happened before the phases (the abandons), in order.
    pub head: Head,
    /// The parts, by label (ascending); a label whose boards no mover touches has none.
    pub parts: Vec<Part>,
}

/// The events of the round's start (before the phases).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Head {
    events: Vec<EventData>,
}

/// One part of a round: its boards (those its movers touch), the pending royal pieces
/// on them, and its movers in the world's order.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Part {
    /// The lowest label of its boards' groups.
    pub label: u32,
    boards: Vec<BoardData>,
    pending: Vec<([i32; 2], u32)>,
    movers: Vec<MoverData>,
}

impl Part {
    /// How many movers the part has (for progress reports).
    pub fn movers(&self) -> usize {
        self.movers.len()
    }
}

/// What became of one part: its boards, its pending royal pieces, and its events each
/// with its key in the world's order and the bank it defers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct PartDone {
    pub label: u32,
    boards: Vec<BoardData>,
    pending: Vec<([i32; 2], u32)>,
    new_pending: Vec<([i32; 2], u32)>,
    events: Vec<EventData>,
    /// The part's last micro-step.
    ms: u32,
}

impl PartDone {
    pub fn events(&self) -> usize {
        self.events.len()
    }
}

/// A board: its owner ([`NOBODY`]: none) and its pieces (square index within the
/// board, row by row from the lower-left corner; owner; kind).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
struct BoardData {
    b: [i32; 2],
    owner: u32,
    pieces: Vec<(u32, u32, u8)>,
}

/// A mover as staged: owner, kind, origin, target, direction, fields, whether it
/// slides, the phase it appears in (drops and placements), its class.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
struct MoverData(u32, u8, [i32; 2], [i32; 2], [i32; 2], i32, bool, Option<u8>, u8);

/// An event with its key in the world's order and the bank it defers (vault, kind).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
struct EventData {
    key: (u64, u64),
    bank: Option<(u32, u8)>,
    phase: Option<u8>,
    ms: u32,
    what: WhatData,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
enum WhatData {
    Placed(u32, u8, [i32; 2]),
    Dropped(u32, u8, [i32; 2]),
    Moved(u32, u8, [i32; 2], [i32; 2]),
    Stopped(u32, u8, [i32; 2], [i32; 2], [i32; 2]),
    Cancelled(u32, u8, [i32; 2]),
    Removed(u32, u8, [i32; 2], u8, Option<u32>, bool),
    Conquered([i32; 2], u32, u32),
    KingPending([i32; 2], u32),
    Eliminated(u32),
    Abandoned(u32),
}

const PHASES: [Phase; 4] = [Phase::PlaceKings, Phase::Drops, Phase::Leaps, Phase::Slides];
const CAUSES: [Cause; 6] =
    [Cause::Captured, Cause::Intercepted, Cause::LostFight, Cause::Tie, Cause::Conquest, Cause::Abandoned];
const CLASSES: [Class; 4] = [Class::Place, Class::Drop, Class::Hop, Class::Slide];

fn phase_code(p: Phase) -> u8 {
    PHASES.iter().position(|&q| q == p).unwrap_or(0) as u8
}

fn xy(p: Pos) -> [i32; 2] {
    [p.x, p.y]
}

fn bxy(b: BoardId) -> [i32; 2] {
    [b.bx, b.by]
}

fn pos([x, y]: [i32; 2]) -> Pos {
    Pos::new(x, y)
}

fn board([bx, by]: [i32; 2]) -> BoardId {
    BoardId { bx, by }
}

/// Splits a round: `plans` are every player's validated plans (join order), `label`
/// names the part a board belongs to.
pub fn split(m: &Movement, realm: Realm, plans: &[PlayerPlan], label: impl Fn(BoardId) -> u32) -> Split {
    let mut exec = Exec::new(m, realm);
    let staged = exec.stage(plans);
    let head = Head { events: exec.events.iter().map(|e| event_data(e, (0, 0), None)).collect() };
    let mut g = groups::group(m, &exec.realm, &staged);
    let total = g.slots();
    // Each group's label: the lowest of its boards' (one part when the variant cannot
    // be resolved by groups).
    let whole = !groups::applies(m.rules);
    let mut root_label: Vec<u32> = vec![NONE; total];
    for s in 0..total {
        if let Some(r) = g.root(s) {
            let l = if whole { 0 } else { label(g.board(&exec.realm, s)) };
            let x = &mut root_label[r as usize];
            *x = (*x).min(l);
        }
    }
    let mut labels: Vec<u32> = root_label.iter().copied().filter(|&l| l != NONE).collect();
    labels.sort_unstable();
    labels.dedup();
    let mut job_of: Vec<u32> = vec![NONE; total];
    for (s, j) in job_of.iter_mut().enumerate() {
        if let Some(r) = g.root(s) {
            *j = labels.binary_search(&root_label[r as usize]).unwrap_or(0) as u32;
        }
    }
    let shares = groups::deal(&mut exec, &g, &staged, &job_of, labels.len());
    let parts = shares
        .into_iter()
        .zip(&labels)
        .map(|(share, &label)| Part {
            label,
            boards: share
                .boards
                .iter()
                .map(|&t| {
                    board_data(
                        exec.realm.cells.boards()[t],
                        exec.realm.cells.owners[t],
                        exec.realm.cells.board_cells(t),
                    )
                })
                .collect(),
            pending: share.pending.iter().map(|&(b, p)| (bxy(b), p)).collect(),
            movers: share
                .movers
                .iter()
                .map(|(mv, class)| {
                    MoverData(
                        mv.owner,
                        mv.kind.0,
                        xy(mv.origin),
                        xy(mv.target),
                        [mv.dir.0, mv.dir.1],
                        mv.fields,
                        mv.slide,
                        mv.appear.map(phase_code),
                        CLASSES.iter().position(|c| c == class).unwrap_or(0) as u8,
                    )
                })
                .collect(),
        })
        .collect();
    Split { realm: exec.realm, head, parts }
}

fn board_data(b: BoardId, owner: u32, cells: &[Cell]) -> BoardData {
    let pieces = cells
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.is_empty())
        .map(|(i, c)| (i as u32, c.owner(), c.kind().0))
        .collect();
    BoardData { b: bxy(b), owner, pieces }
}

/// Why a part or its result cannot be used (a corrupt store): names the part.
fn bad(label: u32, message: impl Into<String>) -> RealmError {
    RealmError::State { at: format!("part {label}"), message: message.into() }
}

/// Checks a part's numbers against the variant and the players, so nothing indexes
/// out of range.
struct Check<'a> {
    m: &'a Movement<'a>,
    players: usize,
    label: u32,
}

impl Check<'_> {
    fn player(&self, p: u32) -> Result<u32, RealmError> {
        if (p as usize) < self.players { Ok(p) } else { Err(bad(self.label, format!("no player {p}"))) }
    }
    fn owner(&self, p: u32) -> Result<u32, RealmError> {
        if p == NOBODY { Ok(p) } else { self.player(p) }
    }
    fn kind(&self, k: u8) -> Result<KindId, RealmError> {
        if (k as usize) < self.m.v.kinds.len() { Ok(KindId(k)) } else { Err(bad(self.label, format!("no kind {k}"))) }
    }
    fn coord(&self, [x, y]: [i32; 2]) -> Result<[i32; 2], RealmError> {
        let lim = super::state::MAX_COORD;
        if x.abs() < lim && y.abs() < lim {
            Ok([x, y])
        } else {
            Err(bad(self.label, format!("[{x}, {y}] is out of the world")))
        }
    }
    fn phase(&self, p: u8) -> Result<Phase, RealmError> {
        PHASES.get(p as usize).copied().ok_or_else(|| bad(self.label, format!("no phase {p}")))
    }
    fn boards(&self, list: &[BoardData], into: &mut Realm) -> Result<(), RealmError> {
        let area = self.m.tile().0 as u32 * self.m.tile().1 as u32;
        for d in list {
            let b = board(self.coord(d.b)?);
            into.cells.set_owner(b, self.owner(d.owner)?);
            let t = into.cells.board_index(b);
            let cells = into.cells.board_cells_mut(t);
            cells.fill(Cell::EMPTY);
            for &(i, o, k) in &d.pieces {
                if i >= area {
                    return Err(bad(self.label, format!("square {i} is off a board")));
                }
                cells[i as usize] = Cell::piece(self.player(o)?, self.kind(k)?);
            }
        }
        Ok(())
    }
    fn pending(&self, list: &[([i32; 2], u32)]) -> Result<Vec<(BoardId, u32)>, RealmError> {
        list.iter().map(|&(b, p)| Ok((board(self.coord(b)?), self.player(p)?))).collect()
    }
}

/// Resolves one part: its micro-steps with every bank deferred. `players` is the
/// number of players of the realm (owners are checked against it).
pub fn resolve_part(m: &Movement, players: usize, part: &Part) -> Result<PartDone, RealmError> {
    let c = Check { m, players, label: part.label };
    let mut sub = Realm::new(m.tile());
    sub.cells.reserve(part.boards.len());
    c.boards(&part.boards, &mut sub)?;
    sub.pending = c.pending(&part.pending)?;
    let mut movers = Vec::with_capacity(part.movers.len());
    for MoverData(owner, kind, origin, target, dir, fields, slide, appear, class) in &part.movers {
        let class = *CLASSES.get(*class as usize).ok_or_else(|| bad(part.label, "no such class of mover"))?;
        let appear = appear.map(|p| c.phase(p)).transpose()?;
        if !(0..=2 * super::state::MAX_COORD).contains(fields) || dir[0].abs() > 1 << 16 || dir[1].abs() > 1 << 16 {
            return Err(bad(part.label, "a mover's path is out of the world"));
        }
        let mv = Mover::staged(
            c.player(*owner)?,
            c.kind(*kind)?,
            pos(c.coord(*origin)?),
            pos(c.coord(*target)?),
            (dir[0], dir[1]),
            *fields,
            *slide,
            appear,
        );
        movers.push((mv, class));
    }
    let done = groups::resolve_part(m, sub, &movers);
    let cells = &done.realm.cells;
    Ok(PartDone {
        label: part.label,
        boards: cells
            .boards()
            .iter()
            .enumerate()
            .map(|(t, &b)| board_data(b, cells.owners[t], cells.board_cells(t)))
            .collect(),
        pending: done.realm.pending.iter().map(|&(b, p)| (bxy(b), p)).collect(),
        new_pending: done.new_pending.iter().map(|&(b, p)| (bxy(b), p)).collect(),
        events: done.events.iter().zip(&done.deferred).map(|(e, d)| event_data(e, d.key, d.bank)).collect(),
        ms: done.ms,
    })
}

/// The end of a split round: `realm` and `head` as [`split`] gave them, every part's
/// result (in any order: they are sorted by label), and which players gave orders.
/// Returns the realm after the round and its events, as one resolution gives them.
pub fn merge(
    m: &Movement,
    realm: Realm,
    head: &Head,
    done: &[PartDone],
    gave: &[bool],
) -> Result<(Realm, Vec<WorldEvent>), RealmError> {
    let players = realm.players.len();
    let mut done: Vec<&PartDone> = done.iter().collect();
    done.sort_by_key(|d| d.label);
    if let Some(w) = done.windows(2).find(|w| w[0].label == w[1].label) {
        return Err(bad(w[0].label, "given twice"));
    }
    let mut exec = Exec::new(m, realm);
    for e in &head.events {
        exec.events.push(event_of(&Check { m, players, label: 0 }, e)?.0);
    }
    let mut jobs = Vec::with_capacity(done.len());
    for d in done {
        let c = Check { m, players, label: d.label };
        let mut sub = Realm::new(m.tile());
        c.boards(&d.boards, &mut sub)?;
        sub.pending = c.pending(&d.pending)?;
        let mut events = Vec::with_capacity(d.events.len());
        let mut deferred = Vec::with_capacity(d.events.len());
        for e in &d.events {
            let (ev, bank) = event_of(&c, e)?;
            events.push(ev);
            deferred.push(Deferred { key: e.key, bank });
        }
        jobs.push(Done { realm: sub, events, deferred, new_pending: c.pending(&d.new_pending)?, ms: d.ms });
    }
    groups::merge(m, &mut exec, jobs, false);
    exec.finish(gave);
    Ok((exec.realm, exec.events))
}

fn event_data(e: &WorldEvent, key: (u64, u64), bank: Option<(u32, KindId)>) -> EventData {
    let cause = |c: Cause| CAUSES.iter().position(|&d| d == c).unwrap_or(0) as u8;
    let what = match e.what {
        What::Placed { player, kind, at } => WhatData::Placed(player, kind.0, xy(at)),
        What::Dropped { player, kind, at } => WhatData::Dropped(player, kind.0, xy(at)),
        What::Moved { player, kind, from, to } => WhatData::Moved(player, kind.0, xy(from), xy(to)),
        What::Stopped { player, kind, from, at, target } => {
            WhatData::Stopped(player, kind.0, xy(from), xy(at), xy(target))
        }
        What::Cancelled { player, kind, at } => WhatData::Cancelled(player, kind.0, xy(at)),
        What::Removed { player, kind, at, cause: c, vault, overflow } => {
            WhatData::Removed(player, kind.0, xy(at), cause(c), vault, overflow)
        }
        What::Conquered { board, from, to } => WhatData::Conquered(bxy(board), from, to),
        What::KingPending { board, player } => WhatData::KingPending(bxy(board), player),
        What::Eliminated { player } => WhatData::Eliminated(player),
        What::Abandoned { player } => WhatData::Abandoned(player),
    };
    EventData { key, bank: bank.map(|(v, k)| (v, k.0)), phase: e.phase.map(phase_code), ms: e.microstep, what }
}

fn event_of(c: &Check, e: &EventData) -> Result<(WorldEvent, Option<(u32, KindId)>), RealmError> {
    let at = |p: [i32; 2]| c.coord(p).map(pos);
    let what = match e.what {
        WhatData::Placed(p, k, a) => What::Placed { player: c.player(p)?, kind: c.kind(k)?, at: at(a)? },
        WhatData::Dropped(p, k, a) => What::Dropped { player: c.player(p)?, kind: c.kind(k)?, at: at(a)? },
        WhatData::Moved(p, k, f, t) => What::Moved { player: c.player(p)?, kind: c.kind(k)?, from: at(f)?, to: at(t)? },
        WhatData::Stopped(p, k, f, a, t) => {
            What::Stopped { player: c.player(p)?, kind: c.kind(k)?, from: at(f)?, at: at(a)?, target: at(t)? }
        }
        WhatData::Cancelled(p, k, a) => What::Cancelled { player: c.player(p)?, kind: c.kind(k)?, at: at(a)? },
        WhatData::Removed(p, k, a, cause, vault, overflow) => What::Removed {
            player: c.player(p)?,
            kind: c.kind(k)?,
            at: at(a)?,
            cause: *CAUSES.get(cause as usize).ok_or_else(|| bad(c.label, format!("no cause {cause}")))?,
            vault: vault.map(|v| c.player(v)).transpose()?,
            overflow,
        },
        WhatData::Conquered(b, f, t) => {
            What::Conquered { board: board(c.coord(b)?), from: c.owner(f)?, to: c.player(t)? }
        }
        WhatData::KingPending(b, p) => What::KingPending { board: board(c.coord(b)?), player: c.player(p)? },
        WhatData::Eliminated(p) => What::Eliminated { player: c.player(p)? },
        WhatData::Abandoned(p) => What::Abandoned { player: c.player(p)? },
    };
    let bank = e.bank.map(|(v, k)| Ok::<_, RealmError>((c.player(v)?, c.kind(k)?))).transpose()?;
    let phase = e.phase.map(|p| c.phase(p)).transpose()?;
    Ok((WorldEvent { phase, microstep: e.ms, what }, bank))
}
