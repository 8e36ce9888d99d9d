//! Workers (issue 13, point 4): a round resolved by several processes, on one machine
//! or many, sharing the realm's database — with exactly the bytes one `advance` gives.
//!
//! A round goes through three kinds of transactions, each run by whichever worker
//! comes first ([`Service::work`] does one of them):
//!
//! 1. **Plan** (one, under the resolver's lock): the round's start as `advance` reads
//!    it, the bots' orders for idle players and every player's validation (they need
//!    the whole start position; pure and seeded), the round's start made
//!    (`varia::world::parts::split`: abandons, drops out of the vaults, placements), and
//!    the movers dealt into parts, one per city and one for the ground outside the
//!    cities (CA-19: no ordinary piece crosses between them, so no part meets
//!    another's squares; a path that did would only join the parts). The plan and one
//!    row per part are stored; `realm_meta.resolving` closes the round: orders, joins,
//!    transfers and donations answer `Resolving` (503) until the merge.
//! 2. **Part** (one per part, any worker): the lowest unresolved part is claimed with
//!    `FOR UPDATE SKIP LOCKED` (workers never wait on each other), resolved with its
//!    banks deferred, and its result — boards, events with their keys in the world's
//!    order and the banks they defer — written in the same transaction. A worker
//!    killed mid-part holds nothing: its transaction dies with its connection and the
//!    part is claimed again; a part's result is written once (`finish_part` refuses a
//!    second).
//! 3. **Merge** (one, under the resolver's lock, once no part is left): the parts'
//!    events sorted into the world's order, the banks made in that order against the
//!    capped vaults, the end of the round; then what `advance` does after its
//!    resolution — the bots' players kept idle, queen transfers, elections, the
//!    world, the round's record and the next deadline — and the plan dropped.
//!
//! So a kill at any point loses nothing and duplicates nothing: each step is one
//! transaction, and what it starts from is in the database. On SQLite the same steps
//! run, one writer at a time.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use varia::world::json::{OutputJson, StateJson, VerdictsJson};
use varia::world::moves::Movement;
use varia::world::orders::{Order, Rejection};
use varia::world::parts::{self, Head, Part, PartDone};
use varia::world::resolve::GivenOrders;
use varia::world::round;
use varia::world::state::{Realm, world_of};

use crate::db::{Lock, Mode};
use crate::error::Error;
use crate::region::Regions;
use crate::service::{Advanced, RoundKeys, Service, commit_round, pause_point, round_start};
use crate::store;

/// A planned round, as stored.
#[derive(Serialize, Deserialize)]
struct Plan {
    keys: RoundKeys,
    /// The realm at the start of the phases (`parts::Split::realm`).
    realm: StateJson,
    head: Head,
    validation: BTreeMap<String, VerdictsJson>,
    /// Per player in join order: they gave orders (their idle count starts again).
    gave: Vec<bool>,
}

/// One part as stored.
#[derive(Serialize, Deserialize)]
struct PartInput {
    players: usize,
    part: Part,
}

/// What one call of [`Service::work`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A round was planned, in this many parts.
    Planned { round: u64, parts: usize },
    /// A part was resolved.
    Part { round: u64, label: u32, movers: usize, events: usize },
    /// The last part was in: the round is resolved.
    Merged(Advanced),
    /// Parts are being resolved by other workers (or another worker holds the
    /// resolver's lock): try again shortly.
    Waiting { round: Option<u64> },
    /// No round is due before this deadline.
    Idle { deadline: i64 },
}

/// A board's part: its city's place in the list of cities from 1, 0 for the ground
/// outside the cities.
fn label(regions: &Regions) -> impl Fn(varia::world::BoardId) -> u32 + '_ {
    move |b| regions.of(b).map_or(0, |i| i as u32 + 1)
}

impl Service {
    /// Does one step of a worker's job: plans the open round if it is due (or at once
    /// with `force`) and not after round `upto`, else resolves one part of the round
    /// being resolved, else merges it once every part is in.
    pub fn work(&mut self, force: bool, upto: Option<u64>) -> Result<Step, Error> {
        let meta = {
            let mut tx = self.store.begin(Mode::Read)?;
            store::meta(tx.as_mut())?
        };
        match meta.resolving {
            None => self.plan(force, upto),
            Some(round) => match self.resolve_a_part(round)? {
                Some(step) => Ok(step),
                None => self.merge(round),
            },
        }
    }

    /// The open round, and the round being resolved by workers if one is.
    pub fn progress(&mut self) -> Result<(u64, Option<u64>), Error> {
        let mut tx = self.store.begin(Mode::Read)?;
        let meta = store::meta(tx.as_mut())?;
        Ok((store::world_round(tx.as_mut())?, meta.resolving))
    }

    /// Resolves a round that workers planned, here: every part nobody holds, then the
    /// merge (`advance` does this when it finds a planned round). Refused while another
    /// worker holds a part.
    pub(crate) fn finish_planned(&mut self, round: u64) -> Result<Advanced, Error> {
        while let Some(Step::Part { .. }) = self.resolve_a_part(round)? {}
        match self.merge(round)? {
            Step::Merged(a) => Ok(a),
            _ => Err(Error::ResolverBusy { location: self.store.location() }),
        }
    }

    fn plan(&mut self, force: bool, upto: Option<u64>) -> Result<Step, Error> {
        let now = self.clock.now();
        let v = self.variant.clone();
        let mut tx = match self.store.begin(Mode::Write) {
            Ok(tx) => tx,
            Err(Error::Busy { .. }) => return Ok(Step::Waiting { round: None }),
            Err(e) => return Err(e),
        };
        match tx.lock_resolver() {
            Ok(()) => {}
            Err(Error::ResolverBusy { .. }) => return Ok(Step::Waiting { round: None }),
            Err(e) => return Err(e),
        }
        tx.lock_meta(Lock::Update)?;
        let meta = store::meta(tx.as_mut())?;
        if let Some(round) = meta.resolving {
            return Ok(Step::Waiting { round: Some(round) });
        }
        if let Some(r) = upto
            && store::world_round(tx.as_mut())? > r
        {
            return Ok(Step::Idle { deadline: meta.deadline });
        }
        let Some(start) = round_start(tx.as_mut(), &v, &meta, now, force)? else {
            return Ok(Step::Idle { deadline: meta.deadline });
        };
        // As `round::resolve_json` reads the orders and validates them.
        let rules = world_of(&v)?;
        let m = Movement::new(&v, rules);
        let realm = Realm::from_json(&v, &start.state)?;
        let mut given: GivenOrders = vec![None; realm.players.len()];
        let mut strangers = Vec::new();
        for (id, list) in &start.given {
            let read: Vec<Result<Order, Rejection>> = list.iter().map(|o| Order::read(&v, o)).collect();
            match realm.player(id) {
                Some(p) => given[p as usize] = Some(read),
                None => strangers.push((id.clone(), read.len())),
            }
        }
        let (plans, bots, gave) = round::validate_all(&m, &realm, given, start.seed, true);
        let validation = round::validation(&realm.players, &plans, &bots, &strangers);
        let regions = Regions::new(&store::cities(tx.as_mut())?);
        let players = realm.players.len();
        let split = parts::split(&m, realm, &plans, label(&regions));
        let plan = Plan { keys: start.record(), realm: split.realm.to_json(&v), head: split.head, validation, gave };
        let round = start.round;
        store::put_plan(tx.as_mut(), round, start.at, &serde_json::to_string(&plan)?)?;
        let n = split.parts.len();
        for part in split.parts {
            let label = part.label;
            store::put_part(tx.as_mut(), round, label, &serde_json::to_string(&PartInput { players, part })?)?;
        }
        store::set_resolving(tx.as_mut(), Some(round))?;
        pause_point("plan");
        tx.commit()?;
        Ok(Step::Planned { round, parts: n })
    }

    /// Claims, resolves and records one part of `round`; None when no part is free.
    fn resolve_a_part(&mut self, round: u64) -> Result<Option<Step>, Error> {
        let v = self.variant.clone();
        let mut tx = match self.store.begin(Mode::Write) {
            Ok(tx) => tx,
            Err(Error::Busy { .. }) => return Ok(Some(Step::Waiting { round: Some(round) })),
            Err(e) => return Err(e),
        };
        let Some((label, text)) = store::claim_part(tx.as_mut(), round)? else { return Ok(None) };
        let input: PartInput = serde_json::from_str(&text)
            .map_err(|e| Error::Corrupt { what: format!("part {label} of round {round}: {e}") })?;
        let m = Movement::new(&v, world_of(&v)?);
        let done = parts::resolve_part(&m, input.players, &input.part)?;
        store::finish_part(tx.as_mut(), round, label, &serde_json::to_string(&done)?, &self.holder)?;
        pause_point("part");
        tx.commit()?;
        Ok(Some(Step::Part { round, label, movers: input.part.movers(), events: done.events() }))
    }

    fn merge(&mut self, round: u64) -> Result<Step, Error> {
        let now = self.clock.now();
        let v = self.variant.clone();
        let mut tx = match self.store.begin(Mode::Write) {
            Ok(tx) => tx,
            Err(Error::Busy { .. }) => return Ok(Step::Waiting { round: Some(round) }),
            Err(e) => return Err(e),
        };
        match tx.lock_resolver() {
            Ok(()) => {}
            Err(Error::ResolverBusy { .. }) => return Ok(Step::Waiting { round: Some(round) }),
            Err(e) => return Err(e),
        }
        tx.lock_meta(Lock::Update)?;
        let meta = store::meta(tx.as_mut())?;
        if meta.resolving != Some(round) {
            // Another worker merged it meanwhile.
            return Ok(Step::Waiting { round: Some(round) });
        }
        let (_, left) = store::parts_left(tx.as_mut(), round)?;
        if left > 0 {
            return Ok(Step::Waiting { round: Some(round) });
        }
        let text = store::plan(tx.as_mut(), round)?
            .ok_or_else(|| Error::Corrupt { what: format!("round {round} is being resolved but has no plan") })?;
        let plan: Plan =
            serde_json::from_str(&text).map_err(|e| Error::Corrupt { what: format!("round {round}'s plan: {e}") })?;
        let mut done: Vec<PartDone> = Vec::new();
        for (label, text, _) in store::part_outputs(tx.as_mut(), round)? {
            done.push(
                serde_json::from_str(&text)
                    .map_err(|e| Error::Corrupt { what: format!("part {label} of round {round}: {e}") })?,
            );
        }
        let m = Movement::new(&v, world_of(&v)?);
        let realm = Realm::from_json(&v, &plan.realm)?;
        let (after, events) = parts::merge(&m, realm, &plan.head, &done, &plan.gave)?;
        let names = &after.players;
        let out = OutputJson {
            state: after.to_json(&v),
            validation: plan.validation,
            events: events.iter().map(|e| e.to_json(&v, names)).collect(),
        };
        let a = commit_round(tx.as_mut(), &v, &meta, &self.holder, now, plan.keys, out)?;
        store::set_resolving(tx.as_mut(), None)?;
        store::clear_plan(tx.as_mut(), round)?;
        pause_point("merge");
        tx.commit()?;
        Ok(Step::Merged(a))
    }
}
