//! A local realm on the page (`varia serve --realm realm.db`): the realm service of
//! `varia-realm` — its HTTP API mounted whole under `/realm` ([`varia_realm::server`]),
//! so tokens, visibility and order validation are the service's own — and two routes
//! of the page's: what the map needs to be drawn (`GET /api/realm`) and the targets of
//! a piece (`POST /api/realm/targets`), which are the runtime's movement judged by the
//! service's own validation ([`varia_realm::Service::check`]). Time is the server's
//! clock ([`RealmTime`]): the system's, or the manual clock of `--clock manual`, which
//! `POST /api/clock/wait` moves (rounds that fall due resolve before it answers).

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};
use varia::world::Pos;
use varia::world::moves::Movement;
use varia::world::state::{Realm, world_of};
use varia_realm::server::Shared;
use varia_realm::{Clock, Service};

use crate::error::Error;
use crate::solo::TimeSource;

/// The realm's clock (Unix seconds) read from the server's [`TimeSource`]: `origin`
/// plus the seconds the source has counted since the server started.
pub struct RealmTime {
    pub source: Arc<dyn TimeSource>,
    pub origin: i64,
}

impl Clock for RealmTime {
    fn now(&self) -> i64 {
        let secs = i64::try_from(self.source.now_ms() / 1000).unwrap_or(i64::MAX);
        self.origin.saturating_add(secs)
    }
}

/// The machine's time in Unix seconds (where a realm's clock starts by default).
pub fn unix_now() -> i64 {
    varia_realm::SystemClock.now()
}

/// An open realm, shared by its API's routes and the page's.
#[derive(Clone)]
pub struct RealmSite {
    service: Shared,
    /// The service's clock, to look for a due round without a write transaction.
    clock: Arc<dyn Clock>,
}

impl RealmSite {
    /// Opens the realm in `db` (a SQLite file or `postgres://…#schema`, made by `varia
    /// realm new`), its clock read from `clock` from `origin` (Unix seconds) on.
    pub fn open(db: &str, clock: Arc<dyn TimeSource>, origin: i64) -> Result<RealmSite, Error> {
        let store = varia_realm::open_store(db, false)?;
        let clock: Arc<dyn Clock> = Arc::new(RealmTime { source: clock, origin });
        let service = Service::open(store, clock.clone())?;
        Ok(RealmSite::new(service, clock))
    }

    /// A realm already open, on `clock` (the one `service` reads).
    pub fn new(service: Service, clock: Arc<dyn Clock>) -> RealmSite {
        RealmSite { service: varia_realm::server::share(service), clock }
    }

    /// The realm service's own routes.
    pub fn router(&self) -> axum::Router {
        varia_realm::server::router_shared(self.service.clone())
    }

    /// Runs `f` on the service (as the API's routes do: one call at a time).
    fn with<T>(&self, f: impl FnOnce(&mut Service) -> Result<T, Error>) -> Result<T, Error> {
        varia_realm::server::with_service(&self.service, f)
    }

    /// The player a token belongs to (the service's check).
    pub fn authenticate(&self, token: &str) -> Result<String, Error> {
        self.with(|svc| Ok(svc.authenticate(token)?))
    }

    /// Resolves the rounds that are due (the server's tick, and after the clock moves);
    /// a read of the deadline first, so the tick takes no write lock while none is due.
    pub fn advance(&self) -> Result<Vec<varia_realm::service::Advanced>, Error> {
        let now = self.clock.now();
        self.with(|svc| {
            if svc.meta()?.deadline > now {
                return Ok(Vec::new());
            }
            Ok(svc.advance(false)?)
        })
    }

    /// `GET /api/realm`: the realm's name and rules as the map needs them (public, as
    /// the realm's name and rules are).
    pub fn info_json(&self) -> Result<Value, Error> {
        self.with(info_json)
    }

    /// `POST /api/realm/targets`: every square the token's player's piece on `from` may
    /// be ordered to by its movement (`Movement::targets`: own pieces block, others do
    /// not), each with the verdict the service gives `orders` plus that move — so the
    /// page marks exactly what `PUT /realm/orders` would accept, and why not.
    pub fn targets_json(&self, token: &str, req: &TargetsBody) -> Result<Value, Error> {
        self.with(|svc| targets_json(svc, token, req))
    }
}

fn info_json(svc: &mut Service) -> Result<Value, Error> {
    let meta = svc.meta()?;
    let v = svc.variant().clone();
    let rules = world_of(&v).map_err(realm_rules)?;
    let kinds: Vec<Value> = v
        .kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            json!({
                "letter": k.letter.to_string(),
                "name": k.name,
                "royal": k.royal,
                "bound": rules.bound & (1 << i) != 0,
                "vault": rules.reserve.holds(varia::piece::KindId(i as u8)),
            })
        })
        .collect();
    Ok(json!({
        "open": true,
        "name": meta.name,
        "variant": meta.variant,
        "title": v.title,
        "round_hours": meta.round_hours,
        "tile": [rules.tile.0, rules.tile.1],
        "actions_per_board": rules.actions_per_board,
        "vault_cap": rules.reserve.cap,
        "kinds": kinds,
    }))
}

fn targets_json(svc: &mut Service, token: &str, req: &TargetsBody) -> Result<Value, Error> {
    // The service authenticates and says what this player may see.
    let view = svc.view(token)?;
    let v = svc.variant().clone();
    let rules = world_of(&v).map_err(realm_rules)?;
    let realm = Realm::from_json(&v, &view.world).map_err(realm_rules)?;
    let [x, y] = req.from;
    if x.abs() > varia::world::state::MAX_COORD || y.abs() > varia::world::state::MAX_COORD {
        return Err(Error::BadRequest { message: format!("[{x}, {y}] is outside the world") });
    }
    let from = Pos::new(x, y);
    let piece = realm.cells.get(from);
    if piece.is_empty() {
        return Err(Error::RealmRefused { why: format!("there is no piece on [{x}, {y}]") });
    }
    if realm.name(piece.owner()) != view.player {
        return Err(Error::RealmRefused {
            why: format!("the piece on [{x}, {y}] is not yours (it is {}'s)", realm.name(piece.owner())),
        });
    }
    let m = Movement::new(&v, rules);
    let occ = |p: Pos| realm.cells.get(p);
    let mut found = Vec::new();
    m.targets(&occ, from, piece, &mut found);
    found.sort_by_key(|&(p, _)| (p.y, p.x));
    let mut targets = Vec::with_capacity(found.len());
    let mut list = req.orders.clone();
    for (to, _) in found {
        list.push(json!({ "type": "move", "from": [x, y], "to": [to.x, to.y] }));
        let verdicts = svc.check(token, &list)?;
        let last = verdicts.last().cloned();
        list.pop();
        if let Some(verdict) = last {
            targets.push(json!({ "to": [to.x, to.y], "accepted": verdict.accepted, "reason": verdict.reason }));
        }
    }
    let kind = &v.kinds[piece.kind().index()];
    Ok(json!({
        "from": [x, y],
        "piece": { "kind": kind.name, "letter": kind.letter.to_string(), "owner": view.player },
        "targets": targets,
    }))
}

fn realm_rules(e: varia::world::RealmError) -> Error {
    Error::Realm(varia_realm::Error::from(e))
}

/// The body of `POST /api/realm/targets`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetsBody {
    /// The piece's square, global `[x, y]`.
    pub from: [i32; 2],
    /// The orders the page would send with the new one (the new one is judged after them).
    #[serde(default)]
    pub orders: Vec<Value>,
}
