//! The HTTP side (axum on tokio): the page's files, compiled into the binary, and the
//! JSON API over the runtime. Every failure is a JSON body `{"error", "status"}` with a
//! 4xx for anything the client did (bad JSON, a body over [`MAX_BODY`], an unknown
//! variant or game, an illegal move, an unknown route), never a crash. Nothing a request
//! carries is used as a path: variants are looked up among the names served, assets
//! among the files compiled in. Games and rules sit behind mutexes and are used off the
//! async threads; a background task polls the variants' files every [`POLL`].

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::Instant;

use varia::Game;
use varia::search::{AiError, Clock};

use crate::assets;
use crate::catalog::Catalog;
use crate::error::Error;
use crate::games::Store;
use crate::realm::{RealmSite, TargetsBody};
use crate::solo::{self, SoloPlay, SystemClock, TimeSource};
use crate::view;

/// The largest request body accepted, in bytes (a FEN or a move is far smaller).
pub const MAX_BODY: usize = 16 * 1024;

/// How often the variants' files are checked for changes.
pub const POLL: Duration = Duration::from_millis(250);

/// The most plies one undo request takes back.
pub const MAX_UNDO: usize = 1000;

/// What the handlers share.
pub struct App {
    catalog: Mutex<Catalog>,
    games: Mutex<Store>,
    solos: Mutex<Store<SoloPlay>>,
    /// What solo boards' time is read from.
    clock: Arc<dyn TimeSource>,
    /// Listening on a loopback address: answer only requests addressed to this machine.
    loopback: bool,
    /// The local realm served under `/realm` (`varia serve --realm`), if any.
    realm: Option<RealmSite>,
}

impl App {
    /// `loopback`: the server listens on a loopback address only.
    pub fn new(catalog: Catalog, loopback: bool, clock: Arc<dyn TimeSource>) -> Arc<App> {
        App::with_realm(catalog, loopback, clock, None)
    }

    /// Like [`App::new`], with a realm to serve.
    pub fn with_realm(
        catalog: Catalog,
        loopback: bool,
        clock: Arc<dyn TimeSource>,
        realm: Option<RealmSite>,
    ) -> Arc<App> {
        Arc::new(App {
            catalog: Mutex::new(catalog),
            games: Mutex::new(Store::default()),
            solos: Mutex::new(Store::new('s', crate::games::MAX_GAMES)),
            clock,
            loopback,
            realm,
        })
    }

    fn solos(&self) -> MutexGuard<'_, Store<SoloPlay>> {
        self.solos.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `f` on solo board `id` (on its variant's current rules, the clock read into
    /// it first), then answers with the board's state under `key` (or as the reply).
    fn with_solo(&self, id: &str, f: impl FnOnce(&mut SoloPlay, u64) -> Result<Value, Error>) -> Result<Value, Error> {
        let name = self.solos().variant_of(id)?;
        let (current, version) = self.catalog().get(&name)?;
        let now = self.clock.now_ms();
        let mut solos = self.solos();
        let slot = solos.get(id, |_| Some(current))?;
        slot.game.tick(now)?;
        let mut out = f(&mut slot.game, now)?;
        let state = solo::state_json(id, &slot.game, version, slot.note.as_deref(), self.clock.is_manual());
        match out.as_object_mut() {
            Some(o) => {
                o.insert("state".into(), state);
                Ok(out)
            }
            None => Ok(state),
        }
    }

    fn realm(&self) -> Result<&RealmSite, Error> {
        self.realm.as_ref().ok_or(Error::NoRealm)
    }

    /// Resolves the realm's rounds that are due, saying so on stderr.
    pub fn advance_realm(&self) {
        let Some(r) = &self.realm else { return };
        match r.advance() {
            Ok(done) => {
                for a in done {
                    eprintln!("varia serve: realm round {} resolved ({} events)", a.round, a.events);
                }
            }
            Err(e) => eprintln!("varia serve: realm advance: {e}"),
        }
    }

    fn catalog(&self) -> MutexGuard<'_, Catalog> {
        self.catalog.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn games(&self) -> MutexGuard<'_, Store> {
        self.games.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Reloads the variants whose files changed (what the background task runs).
    pub fn poll(&self) -> bool {
        self.catalog().poll()
    }

    /// Runs `f` on game `id`, on the variant's current rules, with their version.
    fn with_game<T>(
        &self,
        id: &str,
        f: impl FnOnce(&mut Game, u64, Option<&str>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let name = self.games().variant_of(id)?;
        let (current, version) = self.catalog().get(&name)?;
        let mut games = self.games();
        let slot = games.get(id, |_| Some(current))?;
        let note = slot.note.clone();
        f(&mut slot.game, version, note.as_deref())
    }
}

type Shared = Arc<App>;

/// A JSON error reply.
struct Fail(StatusCode, Value);

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        (self.0, axum::Json(self.1)).into_response()
    }
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST);
        if status.is_server_error() {
            eprintln!("varia serve: {status}: {e}");
        }
        Fail(status, json!({ "error": e.to_string(), "status": status.as_u16() }))
    }
}

fn fail(status: StatusCode, message: impl Into<String>) -> Fail {
    Fail(status, json!({ "error": message.into(), "status": status.as_u16() }))
}

fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, Fail> {
    body.map_err(|r| {
        if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Fail::from(Error::TooLarge { limit: MAX_BODY })
        } else {
            fail(r.status(), r.body_text())
        }
    })
}

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| Error::BadJson { message: e.to_string() })
}

/// Runs `f` off the async threads (a rules hook may take its time).
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, Error> + Send + 'static) -> Result<T, Fail> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| fail(StatusCode::INTERNAL_SERVER_ERROR, format!("internal error: {e}")))?
        .map_err(Fail::from)
}

fn game_id(id: Result<Path<String>, PathRejection>) -> Result<String, Fail> {
    id.map(|Path(id)| id).map_err(|_| fail(StatusCode::BAD_REQUEST, "bad game id"))
}

/// Text a client sent, cut short for an error message.
fn clip(s: &str) -> String {
    let mut t: String = s.chars().take(64).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewGame {
    variant: String,
    #[serde(default)]
    fen: Option<String>,
    /// A numbered setup of the variant's `[setup.deal]` (Chess960: 0 to 959, 518 the
    /// usual one), as `varia … --deal N`; not with `fen`.
    #[serde(default)]
    deal: Option<u64>,
    /// Moves to play from the start, separated by spaces (a pasted or saved game): the
    /// game is made only if every one is legal.
    #[serde(default)]
    moves: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    #[serde(rename = "move")]
    text: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct UndoBody {
    #[serde(default)]
    plies: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct AiBody {
    /// A level of the variant's `[ai]` (default: veteran, as `varia play`).
    #[serde(default)]
    level: Option<String>,
    #[serde(default)]
    seed: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TargetsQuery {
    from: String,
}

async fn variants(State(app): State<Shared>) -> Response {
    axum::Json(app.catalog().list_json()).into_response()
}

async fn status(State(app): State<Shared>) -> Response {
    axum::Json(app.catalog().status_json()).into_response()
}

async fn new_game(State(app): State<Shared>, body: Result<Bytes, BytesRejection>) -> Result<Response, Fail> {
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let req: NewGame = parse(&bytes)?;
        let name = clip(&req.variant);
        let (variant, version) = {
            let cat = app.catalog();
            let v = cat.playable(&req.variant).map_err(|e| match e {
                Error::UnknownVariant { known, .. } => Error::UnknownVariant { name: name.clone(), known },
                other => other,
            })?;
            (v, cat.get(&req.variant)?.1)
        };
        let fen = match (req.fen, req.deal) {
            (Some(_), Some(_)) => {
                return Err(Error::BadRequest { message: "give a FEN or a setup number (deal), not both".into() });
            }
            (Some(f), None) => Some(f),
            (None, Some(n)) => Some(variant.dealt_fen(n).map_err(|message| Error::BadRequest { message })?),
            (None, None) => None,
        };
        let game = match &fen {
            Some(f) => Game::from_fen(variant, f).map_err(|e| Error::BadFen { message: e.to_string() })?,
            None => Game::new(variant),
        };
        let game = match &req.moves {
            Some(m) if !m.trim().is_empty() => {
                game.then_moves(m).map_err(|e| Error::MovesRefused { why: e.to_string() })?
            }
            _ => game,
        };
        let mut games = app.games();
        let id = games.insert(&req.variant, game)?;
        let slot = games.get(&id, |_| None)?;
        let state = view::state_json(&id, &slot.game, version, None)?;
        Ok(json!({ "id": id, "state": state }))
    })
    .await?;
    Ok((StatusCode::CREATED, axum::Json(out)).into_response())
}

async fn game_state(State(app): State<Shared>, id: Result<Path<String>, PathRejection>) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let out = blocking(move || app.with_game(&id, |g, version, note| view::state_json(&id, g, version, note))).await?;
    Ok(axum::Json(out).into_response())
}

async fn targets(
    State(app): State<Shared>,
    id: Result<Path<String>, PathRejection>,
    q: Result<Query<TargetsQuery>, QueryRejection>,
) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let Query(q) = q.map_err(|_| fail(StatusCode::BAD_REQUEST, "give the square as `?from=e2`"))?;
    let out = blocking(move || app.with_game(&id, |g, _, _| view::targets_json(g, &q.from))).await?;
    Ok(axum::Json(out).into_response())
}

async fn play(
    State(app): State<Shared>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let req: MoveBody = parse(&bytes)?;
        app.with_game(&id, |g, version, note| {
            let events = g.play(&req.text).map_err(|e| Error::Refused { text: clip(&req.text), why: e.to_string() })?;
            let events = view::events_json(g.variant(), &events);
            Ok(json!({ "events": events, "state": view::state_json(&id, g, version, note)? }))
        })
    })
    .await?;
    Ok(axum::Json(out).into_response())
}

/// The computer's move for the side to move, at a level of the variant's `[ai]`, played;
/// searched on the level's own time budget, seeded by the request (default 0) and the ply
/// as `varia play` seeds it.
async fn ai_move(
    State(app): State<Shared>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let req: AiBody = if bytes.iter().all(u8::is_ascii_whitespace) { AiBody::default() } else { parse(&bytes)? };
        let level = req.level.unwrap_or_else(|| "veteran".into());
        app.with_game(&id, |g, version, note| {
            if let Some(o) = g.outcome() {
                return Err(Error::Refused {
                    text: "the computer's move".into(),
                    why: format!("the game is over: {}", o.describe()),
                });
            }
            let seed = req.seed.unwrap_or(0).wrapping_add(g.ply() as u64);
            let found = g.best_action(&level, seed, Clock::Budget(Instant::now())).map_err(|e| match e {
                AiError::UnknownLevel(why) => Error::BadRequest { message: why },
                other => Error::Rules { message: other.to_string() },
            })?;
            let text = g.action_text(&found.action);
            let san = g.san(&found.action);
            let events = g.apply(found.action).map_err(|e| Error::Rules { message: e.to_string() })?;
            let events = view::events_json(g.variant(), &events);
            Ok(json!({
                "move": text,
                "san": san,
                "depth": found.depth,
                "nodes": found.nodes,
                "events": events,
                "state": view::state_json(&id, g, version, note)?,
            }))
        })
    })
    .await?;
    Ok(axum::Json(out).into_response())
}

async fn undo(
    State(app): State<Shared>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let req: UndoBody =
            if bytes.iter().all(u8::is_ascii_whitespace) { UndoBody::default() } else { parse(&bytes)? };
        let plies = req.plies.unwrap_or(1);
        if plies == 0 || plies > MAX_UNDO {
            return Err(Error::BadRequest { message: format!("`plies` is 1 to {MAX_UNDO} (given {plies})") });
        }
        app.with_game(&id, |g, version, note| {
            let undone = g.undo(plies);
            Ok(json!({ "undone": undone, "state": view::state_json(&id, g, version, note)? }))
        })
    })
    .await?;
    Ok(axum::Json(out).into_response())
}

/// A body that may be empty (then the defaults).
fn parse_or_default<T: serde::de::DeserializeOwned + Default>(bytes: &[u8]) -> Result<T, Error> {
    if bytes.iter().all(u8::is_ascii_whitespace) { Ok(T::default()) } else { parse(bytes) }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StrikeBody {
    square: String,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SoloUndoBody {
    #[serde(default)]
    strikes: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Empty {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitBody {
    ms: u64,
}

async fn new_solo(State(app): State<Shared>, body: Result<Bytes, BytesRejection>) -> Result<Response, Fail> {
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let req: solo::NewSolo = parse(&bytes)?;
        let name = clip(&req.variant);
        let (variant, version) = app.catalog().solo(&req.variant).map_err(|e| match e {
            Error::UnknownVariant { known, .. } => Error::UnknownVariant { name: name.clone(), known },
            other => other,
        })?;
        // Dealing may search (a forgeable board): no lock is held meanwhile.
        let play = solo::start(variant, &req, app.clock.now_ms())?;
        let mut solos = app.solos();
        let id = solos.insert(&req.variant, play)?;
        let slot = solos.get(&id, |_| None)?;
        let state = solo::state_json(&id, &slot.game, version, None, app.clock.is_manual());
        Ok(json!({ "id": id, "state": state }))
    })
    .await?;
    Ok((StatusCode::CREATED, axum::Json(out)).into_response())
}

async fn solo_state(State(app): State<Shared>, id: Result<Path<String>, PathRejection>) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let out = blocking(move || app.with_solo(&id, |_, _| Ok(Value::Null))).await?;
    Ok(axum::Json(out).into_response())
}

async fn solo_strike(
    State(app): State<Shared>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let req: StrikeBody = parse(&bytes)?;
        app.with_solo(&id, |p, _| Ok(json!({ "events": solo::strike(p, &req.square)? })))
    })
    .await?;
    Ok(axum::Json(out).into_response())
}

async fn solo_undo(
    State(app): State<Shared>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let req: SoloUndoBody = parse_or_default(&bytes)?;
        let n = req.strikes.unwrap_or(1);
        if n == 0 || n > MAX_UNDO {
            return Err(Error::BadRequest { message: format!("`strikes` is 1 to {MAX_UNDO} (given {n})") });
        }
        app.with_solo(&id, |p, now| {
            if p.watch.is_paused() {
                return Err(Error::SoloRefused { what: "undo", why: "the forge is paused: resume first".into() });
            }
            let undone = p.game.undo(n);
            // A board undone back into play counts its time again.
            p.tick(now)?;
            Ok(json!({ "undone": undone }))
        })
    })
    .await?;
    Ok(axum::Json(out).into_response())
}

/// Pause (`pause` true) or resume a board's clock.
async fn solo_clock(
    app: Shared,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
    pause: bool,
) -> Result<Response, Fail> {
    let id = game_id(id)?;
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let _: Empty = parse_or_default(&bytes)?;
        app.with_solo(&id, |p, now| {
            let what = if pause { "pause" } else { "resume" };
            let played = if pause { p.watch.pause(now) } else { p.watch.resume(now) }
                .map_err(|e| Error::SoloRefused { what, why: e.to_string() })?;
            p.game.set_elapsed(played);
            Ok(json!({ "played_ms": played }))
        })
    })
    .await?;
    Ok(axum::Json(out).into_response())
}

async fn solo_pause(
    State(app): State<Shared>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    solo_clock(app, id, body, true).await
}

async fn solo_resume(
    State(app): State<Shared>,
    id: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    solo_clock(app, id, body, false).await
}

async fn clock(State(app): State<Shared>) -> Response {
    axum::Json(json!({ "manual": app.clock.is_manual(), "now_ms": app.clock.now_ms() })).into_response()
}

/// Moves a manual clock on (every board's time reads it on its next request); the
/// realm's rounds that fall due are resolved before the answer.
async fn clock_wait(State(app): State<Shared>, body: Result<Bytes, BytesRejection>) -> Result<Response, Fail> {
    let bytes = body_bytes(body)?;
    let req: WaitBody = parse(&bytes).map_err(Fail::from)?;
    let now = app.clock.wait(req.ms).map_err(Fail::from)?;
    let a = app.clone();
    blocking(move || {
        a.advance_realm();
        Ok(())
    })
    .await?;
    Ok(axum::Json(json!({ "manual": true, "now_ms": now })).into_response())
}

/// `GET /api/realm`: whether a realm is open here, and what the map needs to draw it.
async fn realm_info(State(app): State<Shared>) -> Result<Response, Fail> {
    if app.realm.is_none() {
        return Ok(axum::Json(json!({ "open": false })).into_response());
    }
    let out = blocking(move || app.realm()?.info_json()).await?;
    Ok(axum::Json(out).into_response())
}

/// The token of `Authorization: Bearer <token>` (checked by the realm service).
fn bearer(headers: &axum::http::HeaderMap) -> Result<String, Fail> {
    let unauthorized = |m: &str| fail(StatusCode::UNAUTHORIZED, m);
    let h =
        headers.get(header::AUTHORIZATION).ok_or_else(|| unauthorized("missing `Authorization: Bearer <token>`"))?;
    let text = h.to_str().map_err(|_| unauthorized("unknown player or wrong token"))?;
    let token = text
        .strip_prefix("Bearer ")
        .ok_or_else(|| unauthorized("the Authorization header must be `Bearer <token>`"))?;
    Ok(token.trim().to_string())
}

/// `POST /api/realm/targets`: a piece's targets, each with the service's verdict.
async fn realm_targets(
    State(app): State<Shared>,
    headers: axum::http::HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    app.realm().map_err(Fail::from)?;
    let token = bearer(&headers)?;
    let bytes = body_bytes(body)?;
    let out = blocking(move || {
        let site = app.realm()?;
        // The token first: a stranger learns nothing, not even whether the body was good.
        site.authenticate(&token)?;
        let req: TargetsBody = parse(&bytes)?;
        site.targets_json(&token, &req)
    })
    .await?;
    Ok(axum::Json(out).into_response())
}

/// `/realm/…` on a server without a realm.
async fn no_realm() -> Fail {
    Fail::from(Error::NoRealm)
}

async fn asset(uri: axum::http::Uri) -> Result<Response, Fail> {
    let Some(a) = assets::find(uri.path()) else {
        return Err(fail(StatusCode::NOT_FOUND, format!("no such page: {}", clip(uri.path()))));
    };
    Ok(([(header::CONTENT_TYPE, a.content_type)], a.body).into_response())
}

async fn api_not_found() -> Fail {
    fail(
        StatusCode::NOT_FOUND,
        "no such route; routes: GET /api/variants, GET /api/status, POST /api/games, GET /api/games/ID, GET /api/games/ID/targets?from=SQ, POST /api/games/ID/moves, POST /api/games/ID/undo, POST /api/games/ID/ai, POST /api/solo, GET /api/solo/ID, POST /api/solo/ID/strikes, POST /api/solo/ID/undo, POST /api/solo/ID/pause, POST /api/solo/ID/resume, GET /api/clock, POST /api/clock/wait, GET /api/realm, POST /api/realm/targets (and the realm's own API under /realm/)",
    )
}

async fn not_allowed() -> Fail {
    fail(StatusCode::METHOD_NOT_ALLOWED, "this route does not take that method")
}

/// Headers on every reply: nothing cached (a reload must show new rules at once), no
/// content sniffing, and the page may load only its own files.
async fn headers(req: Request, next: Next) -> Response {
    let mut r = next.run(req).await;
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'"),
    );
    r
}

/// Whether a `Host` header names this machine (`localhost`, `127.x.y.z`, `[::1]`, any port).
fn local_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(n, _)| n),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// On a loopback server, refuses requests for another host name: a web page elsewhere
/// that rebinds its own name to 127.0.0.1 must not drive the API.
async fn guard(State(app): State<Shared>, req: Request, next: Next) -> Response {
    if app.loopback {
        let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
        if !local_host(host) {
            return fail(
                StatusCode::FORBIDDEN,
                format!("this server answers requests for localhost only (Host: `{}`)", clip(host)),
            )
            .into_response();
        }
    }
    next.run(req).await
}

/// The page's files and the API.
pub fn router(app: Shared) -> Router {
    let api = Router::new()
        .route("/variants", get(variants))
        .route("/status", get(status))
        .route("/games", post(new_game))
        .route("/games/{id}", get(game_state))
        .route("/games/{id}/targets", get(targets))
        .route("/games/{id}/moves", post(play))
        .route("/games/{id}/undo", post(undo))
        .route("/games/{id}/ai", post(ai_move))
        .route("/solo", post(new_solo))
        .route("/solo/{id}", get(solo_state))
        .route("/solo/{id}/strikes", post(solo_strike))
        .route("/solo/{id}/undo", post(solo_undo))
        .route("/solo/{id}/pause", post(solo_pause))
        .route("/solo/{id}/resume", post(solo_resume))
        .route("/clock", get(clock))
        .route("/clock/wait", post(clock_wait))
        .route("/realm", get(realm_info))
        .route("/realm/targets", post(realm_targets))
        .fallback(api_not_found)
        .method_not_allowed_fallback(not_allowed);
    // The realm service's own API, whole (its tokens, visibility, limits and errors).
    let realm = match &app.realm {
        Some(r) => r.router(),
        None => Router::new().fallback(no_realm),
    };
    Router::new()
        .nest("/api", api)
        .fallback(get(asset))
        .with_state(app.clone())
        .nest("/realm", realm)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .layer(middleware::from_fn(headers))
}

/// Serves `catalog` on `addr` until the process ends, solo boards on the system clock;
/// `bound` hears the address actually bound (port 0 picks a free one).
pub fn serve(catalog: Catalog, addr: SocketAddr, bound: impl FnOnce(SocketAddr)) -> Result<(), Error> {
    serve_with_clock(catalog, addr, Arc::new(SystemClock::new()), bound)
}

/// Like [`serve`], solo boards' time read from `clock` (a [`crate::solo::ManualClock`]
/// for tests and scripted sessions).
pub fn serve_with_clock(
    catalog: Catalog,
    addr: SocketAddr,
    clock: Arc<dyn TimeSource>,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    serve_with_realm(catalog, addr, clock, None, bound)
}

/// How often the realm's due rounds are looked for (they are also resolved as soon as
/// a manual clock is moved past the deadline).
pub const REALM_TICK: Duration = Duration::from_secs(1);

/// Like [`serve_with_clock`], with a local realm under `/realm` (its clock read from
/// the same `clock`), whose due rounds are resolved every [`REALM_TICK`].
pub fn serve_with_realm(
    catalog: Catalog,
    addr: SocketAddr,
    clock: Arc<dyn TimeSource>,
    realm: Option<RealmSite>,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::Io { what: "the server's runtime".into(), source: e })?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Error::Io { what: format!("binding {addr}"), source: e })?;
        let local = listener.local_addr().map_err(|e| Error::Io { what: "the bound address".into(), source: e })?;
        let app = App::with_realm(catalog, local.ip().is_loopback(), clock, realm);
        if app.realm.is_some() {
            let ticker = app.clone();
            tokio::spawn(async move {
                let mut every = tokio::time::interval(REALM_TICK);
                every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    every.tick().await;
                    let t = ticker.clone();
                    if tokio::task::spawn_blocking(move || t.advance_realm()).await.is_err() {
                        eprintln!("varia serve: the realm's tick failed; rounds resolve only by `varia realm advance`");
                        return;
                    }
                }
            });
        }
        let watcher = app.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(POLL);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                let w = watcher.clone();
                // Reloading reads files and compiles rules: off the async threads.
                if tokio::task::spawn_blocking(move || w.poll()).await.is_err() {
                    eprintln!("varia serve: the reload task failed; live reload stops");
                    return;
                }
            }
        });
        bound(local);
        axum::serve(listener, router(app)).await.map_err(|e| Error::Io { what: "serving".into(), source: e })
    })
}
