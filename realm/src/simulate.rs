//! `varia realm simulate`: bots play every player of a fresh realm for N rounds, in
//! memory, and each round is measured — boards held per player, eliminations,
//! conquests, what went into and came out of the vaults. The players join one after
//! another exactly as [`crate::Service::join`] places them in a realm without cities
//! (three boards ring by ring from the centre), so neighbours meet from the first round; each round is the pure
//! resolver's (`varia::world::round`) with the bot ordering for everyone, seeded by
//! [`crate::service::round_seed`]. The statistics are a function of (variant, players,
//! rounds, seed) alone: threads change the timings, never a figure.

use std::collections::BTreeMap;
use std::time::Instant;

use serde::Serialize;
use varia::Variant;
use varia::world::Realm;
use varia::world::events::What;
use varia::world::moves::Movement;
use varia::world::orders::Rejection;
use varia::world::round;
use varia::world::state::world_of;

use crate::error::Error;
use crate::service::{choose_boards, round_seed};

/// At most this many players (each needs three boards near the centre).
pub const MAX_PLAYERS: usize = 100_000;
/// At most this many rounds in one simulation.
pub const MAX_ROUNDS: u64 = 100_000;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub players: usize,
    pub rounds: u64,
    pub seed: u64,
    /// Bot orders and validation on all cores (the figures do not depend on it).
    pub parallel: bool,
}

/// How the boards of the world are spread over the players still in the game.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub median: u64,
    pub p90: u64,
    pub max: u64,
    /// Players in the game who hold no board (their pieces stand on others' boards).
    pub none: u64,
}

impl Spread {
    /// The spread of `counts` (one per player in the game).
    pub fn of(counts: &[u64]) -> Spread {
        if counts.is_empty() {
            return Spread::default();
        }
        let mut s = counts.to_vec();
        s.sort_unstable();
        let at = |q: usize| s[(s.len() - 1) * q / 100];
        Spread {
            mean: s.iter().sum::<u64>() as f64 / s.len() as f64,
            median: at(50),
            p90: at(90),
            max: s[s.len() - 1],
            none: s.iter().filter(|&&c| c == 0).count() as u64,
        }
    }
}

/// One round's figures (after its resolution; round 0 is the world before any).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RoundStats {
    pub round: u64,
    /// Players not eliminated.
    pub alive: u64,
    /// Players eliminated in this round.
    pub eliminated: u64,
    /// Boards held per player still in the game.
    pub boards: Spread,
    /// Boards that changed owner by conquest.
    pub conquests: u64,
    /// Orders given, and how many of them were refused.
    pub orders: u64,
    pub refused: u64,
    /// Pieces that left the map: into a vault, or destroyed (no vault holds the kind,
    /// or the vault was full: `overflow` counts those apart).
    pub banked: u64,
    pub destroyed: u64,
    pub overflow: u64,
    /// Pieces dropped from vaults; royal pieces placed (respawned) on boards.
    pub drops: u64,
    pub placed: u64,
    /// Pieces on the map and in every vault after the round.
    pub on_map: u64,
    pub in_vaults: u64,
}

/// A simulation's result.
#[derive(Clone, Debug, Serialize)]
pub struct SimReport {
    pub variant: String,
    pub players: usize,
    pub rounds: u64,
    pub seed: u64,
    /// Round 0 (the joined world) and then every round.
    pub per_round: Vec<RoundStats>,
    /// The bots' refused orders over all rounds, by reason.
    pub refused_by: BTreeMap<&'static str, u64>,
    /// Wall time of each round (bot orders, validation, resolution), in seconds: the
    /// only figures that differ from run to run.
    pub seconds: Vec<f64>,
}

/// A fresh realm where `players` players `p0`, `p1`, … joined in turn, as the service
/// places them in a realm without cities.
pub fn joined_world(v: &Variant, players: usize) -> Result<Realm, Error> {
    let rules = world_of(v)?;
    let mut realm = Realm::new(rules.tile);
    for i in 0..players {
        let (boards, _) = choose_boards(&realm, rules, &Default::default(), true)?;
        realm.join(v, &format!("p{i}"), &boards)?;
    }
    Ok(realm)
}

/// A refusal's reason, without its particulars (squares, kinds), for counting.
pub fn reason_name(r: &Rejection) -> &'static str {
    match r {
        Rejection::Malformed { .. } => "malformed",
        Rejection::UnknownPlayer { .. } => "unknown player",
        Rejection::Eliminated => "eliminated",
        Rejection::NoPiece { .. } => "no piece",
        Rejection::NotYours { .. } => "not yours",
        Rejection::BoardUsed { .. } => "board already ordered",
        Rejection::NoPresence { .. } => "no piece on the board",
        Rejection::Reach(_) => "out of reach",
        Rejection::Guarded { .. } => "guarded",
        Rejection::SameDestination { .. } => "same destination",
        Rejection::NotEmpty { .. } => "not empty",
        Rejection::NoReserve { .. } => "not in the vault",
        Rejection::DropZone { .. } => "outside the drop zone",
        Rejection::OffBoard { .. } => "off the board",
        Rejection::NoPending { .. } => "no king to place",
        Rejection::AlreadyPlaced { .. } => "king already placed",
        Rejection::ReplacedByFlee { .. } => "replaced by the forced flee",
        Rejection::Abandoned => "abandoned",
        Rejection::NoTime => "no time",
    }
}

fn census(realm: &Realm) -> (Spread, u64, u64, u64) {
    let n = realm.players.len();
    let mut boards = vec![0u64; n];
    for &b in realm.cells.boards() {
        if let Some(c) = boards.get_mut(realm.cells.owner(b) as usize) {
            *c += 1;
        }
    }
    let alive: Vec<u64> = (0..n).filter(|&p| !realm.eliminated[p]).map(|p| boards[p]).collect();
    let on_map = realm.cells.pieces().count() as u64;
    let in_vaults = realm.vaults.iter().map(|r| u64::from(r.total())).sum();
    (Spread::of(&alive), alive.len() as u64, on_map, in_vaults)
}

/// Runs the simulation; `tick` is called after every round (for a progress bar).
pub fn simulate(v: &Variant, sim: &Simulation, tick: &mut dyn FnMut(&RoundStats)) -> Result<SimReport, Error> {
    if sim.players == 0 || sim.players > MAX_PLAYERS {
        return Err(Error::BadRequest { message: format!("a simulation has 1 to {MAX_PLAYERS} players") });
    }
    if sim.rounds > MAX_ROUNDS {
        return Err(Error::BadRequest { message: format!("a simulation has at most {MAX_ROUNDS} rounds") });
    }
    let rules = world_of(v)?;
    let m = Movement::new(v, rules);
    let mut realm = joined_world(v, sim.players)?;
    let (boards, alive, on_map, in_vaults) = census(&realm);
    let mut per_round = vec![RoundStats { round: 0, alive, boards, on_map, in_vaults, ..RoundStats::default() }];
    let mut seconds = Vec::new();
    let mut refused_by = BTreeMap::new();
    for _ in 0..sim.rounds {
        let started = Instant::now();
        let number = realm.round;
        let seed = round_seed(sim.seed, number);
        let given = round::bot_orders(&m, &realm, seed, sim.parallel);
        let orders = given.iter().flatten().map(|l| l.len() as u64).sum();
        let (plans, bots, gave) = round::validate_all(&m, &realm, given, seed, sim.parallel);
        let mut refused = 0;
        for why in plans.iter().flat_map(|p| &p.results).filter_map(|r| r.as_ref().err()) {
            refused += 1;
            *refused_by.entry(reason_name(why)).or_insert(0) += 1;
        }
        let res = round::execute_in(&m, realm, plans, bots, &gave, sim.parallel);
        seconds.push(started.elapsed().as_secs_f64());
        let mut s = RoundStats { round: number + 1, orders, refused, ..RoundStats::default() };
        for e in &res.events {
            match e.what {
                What::Removed { vault: Some(_), overflow: false, .. } => s.banked += 1,
                What::Removed { overflow, .. } => {
                    s.destroyed += 1;
                    s.overflow += u64::from(overflow);
                }
                What::Dropped { .. } => s.drops += 1,
                What::Placed { .. } => s.placed += 1,
                What::Conquered { .. } => s.conquests += 1,
                What::Eliminated { .. } => s.eliminated += 1,
                _ => {}
            }
        }
        realm = res.realm;
        (s.boards, s.alive, s.on_map, s.in_vaults) = census(&realm);
        tick(&s);
        per_round.push(s);
    }
    Ok(SimReport {
        variant: v.name.clone(),
        players: sim.players,
        rounds: sim.rounds,
        seed: sim.seed,
        per_round,
        refused_by,
        seconds,
    })
}
