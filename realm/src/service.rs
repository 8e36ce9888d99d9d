//! The realm's service logic, over any [`Store`]: making a realm, joining it (a secret
//! token, only its hash kept; coming back under one's name with it once one's empire is
//! gone), orders until the deadline (validated by the rules'
//! own validation; a refused list stores nothing), what a player may see, and the
//! resolution of rounds that are due by the [`Clock`], each in one transaction — with,
//! in that transaction, the round's queen transfers ([`crate::transfer::arrive`]) and the
//! cities' elections ([`crate::mayor::update_mayors`]).
//!
//! Every call is one transaction: what it reports done is committed before it returns,
//! and a call that fails changes nothing.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use varia::Variant;
use varia::world::cells::NOBODY;
use varia::world::json::{OutputJson, StateJson};
use varia::world::moves::Movement;
use varia::world::orders::{Order, Rejection, validate};
use varia::world::state::{Realm, world_of};
use varia::world::{BoardId, round};

use crate::chat::Geometry;
use crate::clock::Clock;
use crate::config::{RealmConfig, next_deadline};
use crate::db::{Lock, Mode, Store, Tx};
use crate::error::Error;
use crate::store::{self, Meta};
use crate::{token, transfer};

/// At most this many orders in one submission (a player has one per board).
pub const MAX_ORDERS: usize = 10_000;
/// A new empire is looked for within this many rings of boards around the origin.
pub const JOIN_RINGS: i32 = 2048;

/// The environment variable of the crash tests: set to `order` or `resolve`, the
/// process stops just before committing that transaction (printing `paused at …` on
/// stderr) and waits to be killed.
pub const PAUSE_VAR: &str = "VARIA_REALM_PAUSE_AT";

pub(crate) fn pause_point(point: &str) {
    if std::env::var(PAUSE_VAR).is_ok_and(|v| v == point) {
        eprintln!("paused at {point}");
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
}

/// What became of one order of a submission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OrderVerdict {
    pub accepted: bool,
    pub reason: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Joined {
    pub player: String,
    /// Shown once; only its hash is kept.
    pub token: String,
    pub boards: Vec<[i32; 2]>,
    /// The city the three boards lie in (null: the open ground outside the cities).
    pub city: Option<String>,
    pub round: u64,
    pub deadline: i64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Submitted {
    pub round: u64,
    pub deadline: i64,
    pub verdicts: Vec<OrderVerdict>,
}

/// The world as one player may see it: the map is public; vaults, idle counts and
/// lockouts are the owner's alone; orders are one's own until the round is resolved.
#[derive(Clone, Debug, Serialize)]
pub struct View {
    pub realm: String,
    pub player: String,
    pub round: u64,
    pub deadline: i64,
    pub now: i64,
    pub world: StateJson,
    pub vault: BTreeMap<String, u32>,
    /// Your orders for the open round (null: none given).
    pub orders: Option<Vec<serde_json::Value>>,
    /// Your boards that new empires took over while you were idle (CA-18), oldest
    /// first; yours alone, like the vault.
    pub taken_over: Vec<store::TakenOver>,
}

/// A resolved round as stored: every order (public once resolved) and the resolver's
/// output.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct RoundRecord {
    pub round: u64,
    pub resolved_at: i64,
    pub seed: u64,
    pub orders: BTreeMap<String, Vec<serde_json::Value>>,
    pub output: serde_json::Value,
    /// The five-queen transfers of the round and what became of them (public once
    /// resolved, like the orders). `output.state` already holds their arrivals.
    #[serde(default)]
    pub transfers: Vec<crate::transfer::Transfer>,
}

/// A resolved round as one player may see it: the orders, verdicts and events are
/// public; of the vaults, only their own.
#[derive(Clone, Debug, Serialize)]
pub struct RoundView {
    pub round: u64,
    pub resolved_at: i64,
    pub orders: BTreeMap<String, Vec<serde_json::Value>>,
    pub validation: serde_json::Value,
    pub events: serde_json::Value,
    pub vault_after: serde_json::Value,
    pub transfers: Vec<crate::transfer::Transfer>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Advanced {
    pub round: u64,
    pub resolved_at: i64,
    pub next_deadline: i64,
    pub events: usize,
}

pub struct Service {
    pub(crate) store: Box<dyn Store>,
    pub(crate) variant: Arc<Variant>,
    pub(crate) clock: Arc<dyn Clock>,
    /// Who resolves, for the resolver's lock row.
    pub(crate) holder: String,
}

/// A round's seed: the realm's seed and the round number, mixed (SplitMix64), so no
/// two rounds share one.
pub fn round_seed(seed: u64, round: u64) -> u64 {
    let mut z = seed ^ round.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn check_player_name(p: &str) -> Result<(), Error> {
    let ok = (1..=32).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok { Ok(()) } else { Err(Error::BadPlayer { player: p.chars().take(40).collect() }) }
}

pub(crate) fn parse_state(text: &str) -> Result<StateJson, Error> {
    serde_json::from_str(text).map_err(|e| Error::Corrupt { what: format!("the world's state: {e}") })
}

impl Service {
    /// Makes a new realm in an empty store.
    pub fn create(mut store: Box<dyn Store>, config: &RealmConfig, clock: Arc<dyn Clock>) -> Result<Service, Error> {
        let variant = Variant::load(&config.variant)?;
        world_of(&variant)?;
        let now = clock.now();
        let meta = Meta {
            name: config.name.clone(),
            variant: config.variant.clone(),
            round_hours: config.round_hours,
            seed: config.seed,
            created_at: now,
            deadline: next_deadline(now, config.round_hours),
            sector_boards: config.sector_boards,
            resolving: None,
            join_ground: config.join_ground,
            rejoin_keeps_vault: config.rejoin_keeps_vault,
        };
        {
            let mut tx = store.begin(Mode::Write)?;
            store::migrate(tx.as_mut())?;
            store::insert_meta(tx.as_mut(), &meta)?;
            store::insert_cities(tx.as_mut(), &config.cities, &config.roads)?;
            store::put_world(tx.as_mut(), 0, &serde_json::to_string(&StateJson::default())?)?;
            tx.commit()?;
        }
        Ok(Service { store, variant, clock, holder: holder() })
    }

    /// Opens an existing realm (migrating an older schema).
    pub fn open(mut store: Box<dyn Store>, clock: Arc<dyn Clock>) -> Result<Service, Error> {
        let (meta, current) = {
            let mut tx = store.begin(Mode::Read)?;
            store::check_schema(tx.as_mut())?;
            let v = tx.query("SELECT version FROM schema_version", &[]).ok();
            let current = v.and_then(|r| r.first().and_then(|r| r[0].int().ok())) == Some(store::SCHEMA_VERSION);
            let meta = if current { Some(store::meta(tx.as_mut())?) } else { None };
            (meta, current)
        };
        let meta = match (meta, current) {
            (Some(m), true) => m,
            _ => {
                let mut tx = store.begin(Mode::Write)?;
                store::migrate(tx.as_mut())?;
                let m = store::meta(tx.as_mut())?;
                tx.commit()?;
                m
            }
        };
        let variant = Variant::load(&meta.variant)?;
        world_of(&variant)?;
        Ok(Service { store, variant, clock, holder: holder() })
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    pub fn meta(&mut self) -> Result<Meta, Error> {
        let mut tx = self.store.begin(Mode::Read)?;
        store::meta(tx.as_mut())
    }

    /// The player a token belongs to, or `Unauthorized`.
    pub fn authenticate(&mut self, token: &str) -> Result<String, Error> {
        let mut tx = self.store.begin(Mode::Read)?;
        authenticate(tx.as_mut(), token)
    }

    /// The whole state (for the operator and tests; players see [`Service::view`]).
    pub fn state(&mut self) -> Result<StateJson, Error> {
        let mut tx = self.store.begin(Mode::Read)?;
        parse_state(&store::world(tx.as_mut())?.1)
    }

    /// A new player joins: three boards (CA-03) in one region, found by
    /// [`choose_boards`], and a token. Claimable boards it takes (CA-18) are recorded
    /// for their old owner ([`store::insert_takeovers`]) in the same transaction.
    /// Refused, storing nothing, when no region has room (`NoRoom`, or `CitiesFull` in
    /// a realm with `join_ground = false`). A name that is
    /// already a player's stays theirs (`PlayerTaken`, or `LockedOut` during the lockout
    /// after abandoning): its player comes back with [`Service::rejoin`] and their token.
    pub fn join(&mut self, player: &str) -> Result<Joined, Error> {
        check_player_name(player)?;
        let now = self.clock.now();
        let v = self.variant.clone();
        let mut tx = self.store.begin(Mode::Write)?;
        tx.lock_meta(Lock::Update)?;
        if store::token_hash(tx.as_mut(), player)?.is_some() {
            // A player who abandoned is told of the lockout (CA-18), not only of the name.
            let until = parse_state(&store::world(tx.as_mut())?.1)?.lockouts.get(player).copied();
            if let Some(until) = until.filter(|&u| now < u) {
                return Err(Error::LockedOut { player: player.to_string(), until });
            }
            return Err(Error::PlayerTaken { player: player.to_string() });
        }
        let meta = store::meta(tx.as_mut())?;
        meta.check_not_resolving()?;
        let (round, text) = store::world(tx.as_mut())?;
        let placed = place_empire(tx.as_mut(), &v, &meta, player, (round, &parse_state(&text)?), now)?;
        let token = token::new_token(player)?;
        store::insert_player(tx.as_mut(), player, &token::hash(&token), now)?;
        store::insert_takeovers(tx.as_mut(), round, player, now, &placed.taken)?;
        tx.commit()?;
        Ok(placed.joined(player, token, round, &meta))
    }

    /// A player whose empire is gone — eliminated (CA-17: no board and no piece on the
    /// map), by conquest or by abandoning once the lockout is over (CA-18) — starts a new
    /// one under their name, proving who they are by their token: three boards placed
    /// exactly as [`Service::join`] places a new player's (same regions, same order),
    /// idle count reset, lockout gone, `joined_at` set to now. Like any new empire it
    /// comes last in the join order that breaks ties (A-CA14), and it starts with an
    /// empty vault unless the realm says `rejoin_keeps_vault = true`.
    ///
    /// The token stays the same (its hash is not touched) and comes back in the reply:
    /// it is the player's proof of the name, and the name's records (their past orders,
    /// chat lines, transfers) stay theirs; a new token would buy no safety (the old one
    /// was never shown to anyone else) and would break every client that holds it.
    /// Refused, storing nothing: a wrong token (`Unauthorized`), a player still in the
    /// game (`StillPlaying`, with what they hold), a lockout not over (`LockedOut` with
    /// its end), no room (as a join).
    pub fn rejoin(&mut self, token: &str) -> Result<Joined, Error> {
        let now = self.clock.now();
        let v = self.variant.clone();
        let mut tx = self.store.begin(Mode::Write)?;
        tx.lock_meta(Lock::Update)?;
        let player = authenticate(tx.as_mut(), token)?;
        let meta = store::meta(tx.as_mut())?;
        meta.check_not_resolving()?;
        let (round, text) = store::world(tx.as_mut())?;
        let mut state = parse_state(&text)?;
        if !state.eliminated.contains(&player) {
            let boards = state.boards.iter().filter(|b| b.owner.as_deref() == Some(player.as_str())).count();
            let pieces = state.pieces.iter().filter(|p| p.owner == player).count();
            return Err(Error::StillPlaying { player, boards, pieces });
        }
        if let Some(&until) = state.lockouts.get(&player).filter(|&&u| now < u) {
            return Err(Error::LockedOut { player, until });
        }
        // A new empire: last in the join order (A-CA14), as a new player's would be.
        state.players.retain(|p| *p != player);
        state.players.push(player.clone());
        if !meta.rejoin_keeps_vault {
            state.vaults.remove(&player);
        }
        let placed = place_empire(tx.as_mut(), &v, &meta, &player, (round, &state), now)?;
        store::set_joined_at(tx.as_mut(), &player, now)?;
        store::insert_takeovers(tx.as_mut(), round, &player, now, &placed.taken)?;
        tx.commit()?;
        Ok(placed.joined(&player, token.to_string(), round, &meta))
    }

    /// Submits (or replaces) the token's player's orders for the open round. Every
    /// order is judged as the resolver will judge it against the round's start; if any
    /// is refused, nothing is stored and each one's verdict comes back in the error.
    pub fn submit(
        &mut self,
        token: &str,
        orders: &[serde_json::Value],
        round: Option<u64>,
    ) -> Result<Submitted, Error> {
        if orders.len() > MAX_ORDERS {
            return Err(Error::TooManyOrders { given: orders.len(), max: MAX_ORDERS });
        }
        let now = self.clock.now();
        let v = self.variant.clone();
        let mut tx = self.store.begin(Mode::Write)?;
        tx.lock_meta(Lock::Share)?;
        let player = authenticate(tx.as_mut(), token)?;
        let meta = store::meta(tx.as_mut())?;
        let (current, text) = store::world(tx.as_mut())?;
        if let Some(given) = round
            && given != current
        {
            return Err(Error::WrongRound { given, current });
        }
        if now >= meta.deadline {
            return Err(Error::DeadlinePassed { round: current, deadline: meta.deadline });
        }
        meta.check_not_resolving()?;
        let verdicts = verdicts(tx.as_mut(), &v, &text, &player, orders, now)?;
        let refused = verdicts.iter().filter(|v| !v.accepted).count();
        if refused > 0 {
            return Err(Error::OrdersRefused { given: orders.len(), refused, verdicts });
        }
        store::put_orders(tx.as_mut(), current, &player, &serde_json::to_string(orders)?, now)?;
        pause_point("order");
        tx.commit()?;
        Ok(Submitted { round: current, deadline: meta.deadline, verdicts })
    }

    /// What [`Service::submit`] would answer the token's player for these orders now,
    /// each order's verdict, storing nothing (the playground asks it for the legal
    /// targets of a piece). The deadline and the round are not checked.
    pub fn check(&mut self, token: &str, orders: &[serde_json::Value]) -> Result<Vec<OrderVerdict>, Error> {
        if orders.len() > MAX_ORDERS {
            return Err(Error::TooManyOrders { given: orders.len(), max: MAX_ORDERS });
        }
        let now = self.clock.now();
        let v = self.variant.clone();
        let mut tx = self.store.begin(Mode::Read)?;
        let player = authenticate(tx.as_mut(), token)?;
        let (_, text) = store::world(tx.as_mut())?;
        verdicts(tx.as_mut(), &v, &text, &player, orders, now)
    }

    /// The world as the token's player may see it.
    pub fn view(&mut self, token: &str) -> Result<View, Error> {
        let now = self.clock.now();
        let mut tx = self.store.begin(Mode::Read)?;
        let player = authenticate(tx.as_mut(), token)?;
        let meta = store::meta(tx.as_mut())?;
        let (round, text) = store::world(tx.as_mut())?;
        let mut world = parse_state(&text)?;
        let vault = world.vaults.remove(&player).unwrap_or_default();
        world.vaults.clear();
        world.idle.retain(|p, _| *p == player);
        world.lockouts.retain(|p, _| *p == player);
        let orders = match store::orders_of(tx.as_mut(), round, &player)? {
            Some(t) => {
                Some(serde_json::from_str(&t).map_err(|e| Error::Corrupt { what: format!("stored orders: {e}") })?)
            }
            None => None,
        };
        let taken_over = store::taken_over(tx.as_mut(), &player)?;
        Ok(View { realm: meta.name, player, round, deadline: meta.deadline, now, world, vault, orders, taken_over })
    }

    /// A resolved round (0 is the first) as the token's player may see it.
    pub fn round(&mut self, token: &str, round: u64) -> Result<RoundView, Error> {
        let mut tx = self.store.begin(Mode::Read)?;
        let player = authenticate(tx.as_mut(), token)?;
        let (_, text) = store::result(tx.as_mut(), round)?.ok_or(Error::NoSuchRound { round })?;
        let rec: RoundRecord =
            serde_json::from_str(&text).map_err(|e| Error::Corrupt { what: format!("round {round}: {e}") })?;
        let out = &rec.output;
        Ok(RoundView {
            round: rec.round,
            resolved_at: rec.resolved_at,
            orders: rec.orders.clone(),
            validation: out["validation"].clone(),
            events: out["events"].clone(),
            vault_after: out["state"]["vaults"][&player].clone(),
            transfers: rec.transfers.clone(),
        })
    }

    /// The stored record of a resolved round, whole (for the operator and tests).
    pub fn record(&mut self, round: u64) -> Result<RoundRecord, Error> {
        let mut tx = self.store.begin(Mode::Read)?;
        let (_, text) = store::result(tx.as_mut(), round)?.ok_or(Error::NoSuchRound { round })?;
        serde_json::from_str(&text).map_err(|e| Error::Corrupt { what: format!("round {round}: {e}") })
    }

    /// Resolves every round that is due by the clock, each in its own transaction; with
    /// `now`, the open round at once (exactly one). Refused while another resolver is
    /// at work on the realm.
    pub fn advance(&mut self, now_flag: bool) -> Result<Vec<Advanced>, Error> {
        let mut done = Vec::new();
        loop {
            match self.resolve_one(now_flag)? {
                Some(a) => done.push(a),
                None => break,
            }
            if now_flag {
                break;
            }
        }
        Ok(done)
    }

    fn resolve_one(&mut self, force: bool) -> Result<Option<Advanced>, Error> {
        let now = self.clock.now();
        let v = self.variant.clone();
        let location = self.store.location();
        let busy = |e: Error| match e {
            Error::Busy { location } => Error::ResolverBusy { location },
            e => e,
        };
        let mut tx = self.store.begin(Mode::Write).map_err(busy)?;
        tx.lock_resolver()?;
        tx.lock_meta(Lock::Update).map_err(busy)?;
        let meta = store::meta(tx.as_mut())?;
        if let Some(round) = meta.resolving {
            // Workers planned this round: finish it their way.
            drop(tx);
            return self.finish_planned(round).map(Some);
        }
        let Some(start) = round_start(tx.as_mut(), &v, &meta, now, force)? else { return Ok(None) };
        let out: OutputJson = round::resolve_json(&v, &start.state, &start.given, start.seed)?;
        let a = commit_round(tx.as_mut(), &v, &meta, &self.holder, now, start.record(), out)?;
        pause_point("resolve");
        tx.commit().map_err(|e| match e {
            Error::Busy { .. } => Error::ResolverBusy { location },
            e => e,
        })?;
        Ok(Some(a))
    }

    /// Runs `f` in a write transaction with the token's player; for the chat module.
    pub(crate) fn with_player<T>(
        &mut self,
        token: &str,
        mode: Mode,
        f: impl FnOnce(&mut dyn Tx, &str, &StateJson, i64) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let now = self.clock.now();
        let mut tx = self.store.begin(mode)?;
        let player = authenticate(tx.as_mut(), token)?;
        let (_, text) = store::world(tx.as_mut())?;
        let state = parse_state(&text)?;
        let out = f(tx.as_mut(), &player, &state, now)?;
        if mode == Mode::Write {
            tx.commit()?;
        }
        Ok(out)
    }
}

/// Where [`place_empire`] put a new empire.
struct Placed {
    boards: Vec<BoardId>,
    city: Option<String>,
    /// The claimable boards taken from their owners: (board, old owner, the old owner's
    /// pieces on it), for [`store::insert_takeovers`].
    taken: Vec<([i32; 2], String, u32)>,
}

impl Placed {
    fn joined(self, player: &str, token: String, round: u64, meta: &Meta) -> Joined {
        Joined {
            player: player.to_string(),
            token,
            boards: self.boards.iter().map(|b| [b.bx, b.by]).collect(),
            city: self.city,
            round,
            deadline: meta.deadline,
        }
    }
}

/// Places a new empire for `player` (new, or eliminated and coming back) in the
/// caller's transaction: the boards [`choose_boards`] finds, taken by the rules'
/// [`Realm::join`] (which judges a lockout at `now` and resets the idle count), the
/// cities' elections, the world written back. Also says which of the boards had an
/// owner (claimable, CA-18): the caller records those takeovers once the player's row
/// is there (the new owner is a key of `players`).
fn place_empire(
    tx: &mut dyn Tx,
    v: &Variant,
    meta: &Meta,
    player: &str,
    (round, state): (u64, &StateJson),
    now: i64,
) -> Result<Placed, Error> {
    let rules = world_of(v)?;
    let mut realm = Realm::from_json(v, state)?;
    let regions = crate::region::Regions::new(&store::cities(tx)?);
    let (boards, city) = choose_boards(&realm, rules, &regions, meta.join_ground)?;
    let taken = boards
        .iter()
        .filter_map(|&b| {
            let owner = realm.cells.owner(b);
            (owner != NOBODY).then(|| {
                let pieces = b
                    .squares(rules.tile)
                    .filter(|&s| {
                        let c = realm.cells.get(s);
                        !c.is_empty() && c.owner() == owner
                    })
                    .count();
                ([b.bx, b.by], realm.name(owner).to_string(), pieces as u32)
            })
        })
        .collect();
    // The lockout after abandoning is judged at the time of joining.
    realm.time = Some(now);
    realm.join(v, player, &boards)?;
    realm.time = state.time;
    let after = realm.to_json(v);
    let geo = Geometry { tile: rules.tile, sector_boards: meta.sector_boards };
    crate::mayor::update_mayors(tx, &after, geo, now)?;
    store::put_world(tx, round, &serde_json::to_string(&after)?)?;
    Ok(Placed { boards, city: city.map(|i| regions.city_name(i).to_string()), taken })
}

/// What a round's resolution starts from, read in the resolver's transaction.
pub(crate) struct RoundStart {
    pub round: u64,
    /// The resolution's time: the deadline, or the clock's time if earlier (`--now`).
    pub at: i64,
    pub seed: u64,
    /// The world with the time set and the players whose bot orders the realm gives
    /// shown as not idle (see `region::hide_bots`).
    pub state: StateJson,
    /// The players' own orders (the round's record), and those plus the bots' lists.
    pub orders: BTreeMap<String, Vec<serde_json::Value>>,
    pub given: BTreeMap<String, Vec<serde_json::Value>>,
    /// The hidden players' idle counts, for `region::restore_bots`.
    pub idle: BTreeMap<String, u32>,
}

/// What [`commit_round`] needs of a [`RoundStart`] (a worker's merge keeps it in the
/// round's plan).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub(crate) struct RoundKeys {
    pub round: u64,
    pub at: i64,
    pub seed: u64,
    pub orders: BTreeMap<String, Vec<serde_json::Value>>,
    pub idle: BTreeMap<String, u32>,
}

impl RoundStart {
    pub fn record(&self) -> RoundKeys {
        RoundKeys {
            round: self.round,
            at: self.at,
            seed: self.seed,
            orders: self.orders.clone(),
            idle: self.idle.clone(),
        }
    }
}

/// The open round's start, if it is due by `now` (or `force`).
pub(crate) fn round_start(
    tx: &mut dyn Tx,
    v: &Variant,
    meta: &Meta,
    now: i64,
    force: bool,
) -> Result<Option<RoundStart>, Error> {
    if now < meta.deadline && !force {
        return Ok(None);
    }
    let at = now.min(meta.deadline);
    let (round, text) = store::world(tx)?;
    let mut state = parse_state(&text)?;
    state.time = Some(at);
    let mut orders = BTreeMap::new();
    for (p, list) in store::round_orders(tx, round)? {
        let list: Vec<serde_json::Value> =
            serde_json::from_str(&list).map_err(|e| Error::Corrupt { what: format!("orders of {p}: {e}") })?;
        orders.insert(p, list);
    }
    let seed = round_seed(meta.seed, round);
    let regions = crate::region::Regions::new(&store::cities(tx)?);
    let bots = crate::region::bot_orders(v, &state, &orders, &regions, seed)?;
    let idle = crate::region::hide_bots(&mut state, &bots);
    let mut given = orders.clone();
    given.extend(bots);
    Ok(Some(RoundStart { round, at, seed, state, orders, given, idle }))
}

/// Writes a resolved round in the caller's transaction: the bots' players kept idle,
/// the queen transfers (CA-20), the elections (CA-21), the new world, the round's
/// record and the next deadline.
pub(crate) fn commit_round(
    tx: &mut dyn Tx,
    v: &Variant,
    meta: &Meta,
    holder: &str,
    now: i64,
    keys: RoundKeys,
    mut out: OutputJson,
) -> Result<Advanced, Error> {
    let RoundKeys { round, at, seed, orders, idle } = keys;
    crate::region::restore_bots(v, &mut out, &idle)?;
    let rules = world_of(v)?;
    let geo = Geometry { tile: rules.tile, sector_boards: meta.sector_boards };
    // Queens cross after the resolution (CA-20); then the cities elect (CA-21).
    let transfers = transfer::arrive(tx, &mut out.state, round, meta.seed, geo, rules.reserve.cap)?;
    crate::mayor::update_mayors(tx, &out.state, geo, at)?;
    let next = next_deadline(at, meta.round_hours);
    let events = out.events.len();
    let rec = RoundRecord { round, resolved_at: at, seed, orders, output: serde_json::to_value(&out)?, transfers };
    store::put_world(tx, out.state.round, &serde_json::to_string(&out.state)?)?;
    store::put_result(tx, round, at, &serde_json::to_string(&rec)?)?;
    store::set_deadline(tx, next)?;
    store::mark_resolver(tx, holder, now)?;
    Ok(Advanced { round, resolved_at: at, next_deadline: next, events })
}

pub(crate) fn holder() -> String {
    format!("pid {}", std::process::id())
}

/// The player a token belongs to, or `Unauthorized` (the same answer for an unknown
/// player and a wrong secret).
fn authenticate(tx: &mut dyn Tx, token: &str) -> Result<String, Error> {
    let player = token::player_of(token).ok_or(Error::Unauthorized)?;
    let stored = store::token_hash(tx, player)?;
    match stored {
        Some(h) if token::matches(token, &h) => Ok(player.to_string()),
        _ => Err(Error::Unauthorized),
    }
}

/// Each order's verdict at submission: the rules' judgement on the round's start
/// (`text`, the stored state), then CA-19 — an ordinary piece never leaves its city
/// (nor enters one).
fn verdicts(
    tx: &mut dyn Tx,
    v: &Variant,
    text: &str,
    player: &str,
    orders: &[serde_json::Value],
    now: i64,
) -> Result<Vec<OrderVerdict>, Error> {
    let state = parse_state(text)?;
    let mut verdicts = judge(v, &state, player, orders, now)?;
    let regions = crate::region::Regions::new(&store::cities(tx)?);
    let tile = world_of(v)?.tile;
    for (verdict, order) in verdicts.iter_mut().zip(orders) {
        if let Some(why) = regions.order_crossing(tile, order).filter(|_| verdict.accepted) {
            *verdict = OrderVerdict { accepted: false, reason: why };
        }
    }
    Ok(verdicts)
}

/// Each order's verdict, as the resolver will give it on this start position.
pub fn judge(
    v: &Variant,
    state: &StateJson,
    player: &str,
    orders: &[serde_json::Value],
    now: i64,
) -> Result<Vec<OrderVerdict>, Error> {
    let rules = world_of(v)?;
    let mut realm = Realm::from_json(v, state)?;
    realm.time = Some(now);
    let Some(p) = realm.player(player) else {
        let e = Rejection::UnknownPlayer { player: player.to_string() };
        return Ok(orders.iter().map(|_| OrderVerdict { accepted: false, reason: e.to_string() }).collect());
    };
    if realm.eliminated[p as usize] {
        let e = Rejection::Eliminated;
        return Ok(orders.iter().map(|_| OrderVerdict { accepted: false, reason: e.to_string() }).collect());
    }
    let m = Movement::new(v, rules);
    let list: Vec<Result<Order, Rejection>> = orders.iter().map(|o| Order::read(v, o)).collect();
    let mut kings: Vec<varia::world::Pos> = state
        .pieces
        .iter()
        .filter(|pc| pc.owner == player)
        .filter_map(|pc| {
            let k = varia::world::state::kind_letter(v, &pc.kind)?;
            m.is_royal(k).then_some(varia::world::Pos::new(pc.x, pc.y))
        })
        .collect();
    kings.sort();
    let plan = validate(&m, &realm, p, &list, &kings);
    Ok(plan
        .results
        .iter()
        .map(|r| match r {
            Ok(()) => OrderVerdict { accepted: true, reason: "accepted".into() },
            // The order stands; the server will move the royal piece instead (CA-13).
            Err(e @ Rejection::ReplacedByFlee { .. }) => OrderVerdict { accepted: true, reason: e.to_string() },
            Err(e) => OrderVerdict { accepted: false, reason: e.to_string() },
        })
        .collect())
}

/// The boards a new empire gets, all in one region (so no piece of it is ever cut off
/// from the others by a city's edge, CA-19): the first region with `start_boards`
/// takeable boards — the cities in config order, then the open ground outside every
/// city (unless `join_ground` is false) — and in it the first takeable boards ring by
/// ring outward from board [0, 0] (each ring in (y, x) order, as far as [`JOIN_RINGS`]).
/// A board is takeable when it is free — no owner and no piece — or claimable (its owner
/// idle for `claimable_after` rounds, CA-18). Also gives the city's index (None: the
/// ground). With no cities this is the first takeable boards ring by ring.
pub fn choose_boards(
    realm: &Realm,
    rules: &varia::variant::WorldRules,
    regions: &crate::region::Regions,
    join_ground: bool,
) -> Result<(Vec<BoardId>, Option<usize>), Error> {
    let want = rules.start_boards as usize;
    let takeable = |b: BoardId| {
        let owner = realm.cells.owner(b);
        if owner == NOBODY {
            b.squares(rules.tile).all(|s| realm.cells.get(s).is_empty())
        } else {
            rules.claimable_after > 0 && realm.idle.get(owner as usize).is_some_and(|&i| i >= rules.claimable_after)
        }
    };
    let mut out = Vec::with_capacity(want);
    let ground = join_ground.then_some(None);
    for region in (0..regions.len()).map(Some).chain(ground) {
        out.clear();
        let found = want == 0
            || regions.walk(region, JOIN_RINGS, |b| {
                if takeable(b) {
                    out.push(b);
                }
                out.len() == want
            });
        if found {
            return Ok((out, region));
        }
    }
    if join_ground {
        Err(Error::NoRoom { want: rules.start_boards, rings: JOIN_RINGS })
    } else {
        Err(Error::CitiesFull { want: rules.start_boards })
    }
}
