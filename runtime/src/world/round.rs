//! One round, from the contract's JSON to the contract's JSON: read the orders, let
//! bots order for idle players, validate every player's orders (independent of one
//! another, so in parallel when asked; the result is the same), resolve, and write the
//! new state, the verdicts and the events.

use std::collections::BTreeMap;

use super::bot;
use super::geometry::Pos;
use super::groups;
use super::json::{FleeJson, OutputJson, PlacementJson, ResultJson, StateJson, VerdictsJson};
use super::moves::Movement;
use super::orders::{Order, PlayerPlan, Rejection, validate_seen};
use super::resolve::{Exec, GivenOrders, Resolution};
use super::sight::Sight;
use super::state::{Realm, RealmError, world_of};
use crate::variant::Variant;

/// Resolves a round given as the contract's JSON values; `seed` drives the bots.
pub fn resolve_json(
    v: &Variant,
    state: &StateJson,
    orders: &BTreeMap<String, Vec<serde_json::Value>>,
    seed: u64,
) -> Result<OutputJson, RealmError> {
    let realm = Realm::from_json(v, state)?;
    let mut given: GivenOrders = vec![None; realm.players.len()];
    let mut strangers = Vec::new();
    for (id, list) in orders {
        let read: Vec<Result<Order, Rejection>> = list.iter().map(|o| Order::read(v, o)).collect();
        match realm.player(id) {
            Some(p) => given[p as usize] = Some(read),
            None => strangers.push((id.clone(), read.len())),
        }
    }
    let r = resolve(v, &realm, given, seed, false)?;
    Ok(output(v, &r, &strangers))
}

/// Resolves a round: the pure function of (variant, state, orders, seed).
/// `parallel` validates players on several threads (with the `parallel` feature); the
/// result does not depend on it.
pub fn resolve(
    v: &Variant,
    realm: &Realm,
    given: GivenOrders,
    seed: u64,
    parallel: bool,
) -> Result<Resolution, RealmError> {
    let rules = world_of(v)?;
    let m = Movement::new(v, rules);
    let (plans, bots, gave) = validate_all(&m, realm, given, seed, parallel);
    Ok(execute_in(&m, realm.clone(), plans, bots, &gave, parallel))
}

/// Every player's orders validated (the bot's for idle players), in join order; also
/// which players the bot ordered for, and which gave orders.
pub fn validate_all(
    m: &Movement,
    realm: &Realm,
    given: GivenOrders,
    seed: u64,
    parallel: bool,
) -> (Vec<PlayerPlan>, Vec<bool>, Vec<bool>) {
    validate_all_seen(m, realm, &Sight::new(m, &realm.cells, parallel), given, seed, parallel)
}

/// [`validate_all`] with the round's [`Sight`] of `realm`, made once for the bots and the
/// validation (the same result).
pub fn validate_all_seen(
    m: &Movement,
    realm: &Realm,
    sight: &Sight,
    mut given: GivenOrders,
    seed: u64,
    parallel: bool,
) -> (Vec<PlayerPlan>, Vec<bool>, Vec<bool>) {
    let rules = m.rules;
    let n = realm.players.len();
    given.resize(n, None);
    let gave: Vec<bool> = given.iter().map(|g| g.as_ref().is_some_and(|l| !l.is_empty())).collect();
    let kings = kings_by_player(m, realm);
    let bots: Vec<bool> = (0..n)
        .map(|p| !gave[p] && !realm.eliminated[p] && rules.bot_after > 0 && realm.idle[p] >= rules.bot_after)
        .collect();
    let pieces = if bots.iter().any(|&b| b) { pieces_by_player(realm) } else { Vec::new() };
    let one = |p: usize, list: Option<&Vec<Result<Order, Rejection>>>| -> PlayerPlan {
        let list = if bots[p] {
            bot::orders_seen(m, realm, sight, p as u32, &pieces[p], seed).into_iter().map(Ok).collect::<Vec<_>>()
        } else {
            list.cloned().unwrap_or_default()
        };
        if realm.eliminated[p] {
            return PlayerPlan {
                results: list.iter().map(|_| Err(Rejection::Eliminated)).collect(),
                ..Default::default()
            };
        }
        let list: Vec<Result<Order, Rejection>> = list
            .into_iter()
            .map(|o| match o {
                Ok(Order::Abandon) if realm.time.is_none() => Err(Rejection::NoTime),
                other => other,
            })
            .collect();
        validate_seen(m, realm, sight, p as u32, &list, &kings[p])
    };
    let plans = map_players(n, parallel, |p| one(p, given[p].as_ref()));
    (plans, bots, gave)
}

/// The resolution of validated plans.
pub fn execute(m: &Movement, realm: &Realm, plans: Vec<PlayerPlan>, bots: Vec<bool>, gave: &[bool]) -> Resolution {
    execute_owned(m, realm.clone(), plans, bots, gave)
}

/// [`execute`] on a realm the caller gives up (a service that keeps its world in memory
/// resolves it in place, without copying it first); the same result.
pub fn execute_owned(m: &Movement, realm: Realm, plans: Vec<PlayerPlan>, bots: Vec<bool>, gave: &[bool]) -> Resolution {
    execute_in(m, realm, plans, bots, gave, false)
}

/// [`execute_owned`] with independent groups of boards resolved on threads when asked
/// (with the `parallel` feature); the result does not depend on it.
pub fn execute_in(
    m: &Movement,
    realm: Realm,
    plans: Vec<PlayerPlan>,
    bots: Vec<bool>,
    gave: &[bool],
    parallel: bool,
) -> Resolution {
    let mut exec = Exec::new(m, realm);
    if groups::applies(m.rules) {
        let staged = exec.stage(&plans);
        groups::run(m, &mut exec, &staged, parallel);
    } else {
        exec.run(&plans);
    }
    exec.finish(gave);
    Resolution { realm: exec.realm, plans, bots, strangers: Vec::new(), events: exec.events }
}

/// The resolution of the whole world at once, without splitting it into groups of
/// boards: the reference [`execute_in`] is checked against.
pub fn execute_whole(m: &Movement, realm: Realm, plans: Vec<PlayerPlan>, bots: Vec<bool>, gave: &[bool]) -> Resolution {
    let mut exec = Exec::new(m, realm);
    exec.run(&plans);
    exec.finish(gave);
    Resolution { realm: exec.realm, plans, bots, strangers: Vec::new(), events: exec.events }
}

/// The bot's orders for every player that is not eliminated (a generated world's
/// round), on threads when asked.
pub fn bot_orders(m: &Movement, realm: &Realm, seed: u64, parallel: bool) -> GivenOrders {
    bot_orders_seen(m, realm, &Sight::new(m, &realm.cells, parallel), seed, parallel)
}

/// [`bot_orders`] with the round's [`Sight`] of `realm` (the same orders).
pub fn bot_orders_seen(m: &Movement, realm: &Realm, sight: &Sight, seed: u64, parallel: bool) -> GivenOrders {
    let pieces = pieces_by_player(realm);
    map_players(realm.players.len(), parallel, |p| {
        (!realm.eliminated[p])
            .then(|| bot::orders_seen(m, realm, sight, p as u32, &pieces[p], seed).into_iter().map(Ok).collect())
    })
}

/// `f` for every player index, in order; on threads when asked and available.
pub fn map_players<T: Send>(n: usize, parallel: bool, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    #[cfg(feature = "parallel")]
    if parallel {
        use rayon::prelude::*;
        return (0..n).into_par_iter().map(f).collect();
    }
    let _ = parallel;
    (0..n).map(f).collect()
}

/// Each player's pieces on the map.
pub fn pieces_by_player(realm: &Realm) -> Vec<Vec<Pos>> {
    let n = realm.players.len();
    // Counted first, so each list is allocated once.
    let mut count = vec![0usize; n];
    // `for_each` folds over the boards (no per-piece step of the flattened iterator).
    realm.cells.pieces().for_each(|(_, c)| {
        if let Some(k) = count.get_mut(c.owner() as usize) {
            *k += 1;
        }
    });
    let mut out: Vec<Vec<Pos>> = count.into_iter().map(Vec::with_capacity).collect();
    realm.cells.pieces().for_each(|(p, c)| {
        if let Some(v) = out.get_mut(c.owner() as usize) {
            v.push(p);
        }
    });
    out
}

/// Each player's royal pieces on the map, in (y, x) order.
pub fn kings_by_player(m: &Movement, realm: &Realm) -> Vec<Vec<Pos>> {
    let mut kings: Vec<Vec<Pos>> = vec![Vec::new(); realm.players.len()];
    realm.cells.pieces().for_each(|(p, c)| {
        if m.is_royal(c.kind()) && (c.owner() as usize) < kings.len() {
            kings[c.owner() as usize].push(p);
        }
    });
    for k in kings.iter_mut() {
        k.sort();
    }
    kings
}

/// The contract's output for a resolution.
pub fn output(v: &Variant, r: &Resolution, strangers: &[(String, usize)]) -> OutputJson {
    let validation = validation(&r.realm.players, &r.plans, &r.bots, strangers);
    let names = &r.realm.players;
    OutputJson { state: r.realm.to_json(v), validation, events: r.events.iter().map(|e| e.to_json(v, names)).collect() }
}

/// The output's verdicts: per player (`players` in join order) what became of their
/// orders, and of orders given in the name of players the realm does not know.
pub fn validation(
    players: &[String],
    plans: &[PlayerPlan],
    bots: &[bool],
    strangers: &[(String, usize)],
) -> BTreeMap<String, VerdictsJson> {
    let mut validation = BTreeMap::new();
    let result = |x: &Result<(), Rejection>| match x {
        Ok(()) => ResultJson { accepted: true, reason: "accepted".into() },
        Err(e) => ResultJson { accepted: false, reason: e.to_string() },
    };
    for (p, plan) in plans.iter().enumerate() {
        let id = players[p].clone();
        validation.insert(
            id,
            VerdictsJson {
                results: plan.results.iter().map(result).collect(),
                forced_flees: plan
                    .flees
                    .iter()
                    .map(|&(b, f, t)| FleeJson { board: [b.bx, b.by], from: [f.x, f.y], to: [t.x, t.y] })
                    .collect(),
                placements: plan
                    .placements
                    .iter()
                    .map(|&(b, t, a)| PlacementJson { board: [b.bx, b.by], to: [t.x, t.y], automatic: a })
                    .collect(),
                bot: bots.get(p).copied().unwrap_or(false),
            },
        );
    }
    for (id, n) in strangers {
        let e = Rejection::UnknownPlayer { player: id.clone() };
        validation.insert(
            id.clone(),
            VerdictsJson { results: (0..*n).map(|_| result(&Err(e.clone()))).collect(), ..Default::default() },
        );
    }
    validation
}
