//! `varia realm serve`: the HTTP/JSON API over a [`Service`] (axum on tokio). Every
//! route but `POST /join` needs `Authorization: Bearer <token>`; what a route returns
//! is what [`Service`] lets that player see. Every failure is a JSON body
//! `{"error", "status", …}` with a 4xx for anything the client did (bad JSON, a body
//! over [`MAX_BODY`], an unknown route or method, a post within the chat pause), never
//! a crash. The service runs off the async threads on a pool of [`Service`]s, each its
//! own database connection (a call takes a free one, or waits for one); a background
//! tick resolves the rounds that fall due.

use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::Error;
use crate::service::Service;

/// The largest request body accepted, in bytes (10,000 orders fit).
pub const MAX_BODY: usize = 1 << 20;

/// The server's connections: a call takes a free [`Service`] and gives it back when
/// done (also if the call panics), waiting while every one is busy.
pub struct Pool {
    free: Mutex<Vec<Service>>,
    ready: Condvar,
}

impl Pool {
    pub fn new(services: Vec<Service>) -> Pool {
        Pool { free: Mutex::new(services), ready: Condvar::new() }
    }

    fn take(&self) -> Lease<'_> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(s) = free.pop() {
                return Lease { pool: self, service: Some(s) };
            }
            free = self.ready.wait(free).unwrap_or_else(|p| p.into_inner());
        }
    }
}

/// A service taken from the [`Pool`]; back in it on drop.
struct Lease<'a> {
    pool: &'a Pool,
    service: Option<Service>,
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        if let Some(s) = self.service.take() {
            self.pool.free.lock().unwrap_or_else(|p| p.into_inner()).push(s);
            self.pool.ready.notify_one();
        }
    }
}

/// The service as the handlers share it: a pool of connections.
pub type Shared = Arc<Pool>;

/// A service to share between the API's routes ([`router_shared`]) and their owner
/// (`varia serve --realm`, which also calls it): a pool of that one connection.
pub fn share(service: Service) -> Shared {
    Arc::new(Pool::new(vec![service]))
}

/// Runs `f` on a shared service, waiting while every connection is busy.
pub fn with_service<T>(shared: &Shared, f: impl FnOnce(&mut Service) -> T) -> T {
    let mut lease = shared.take();
    f(lease.service.as_mut().expect("a lease holds its service until dropped"))
}

/// A JSON error reply.
struct Fail(StatusCode, Value);

impl IntoResponse for Fail {
    fn into_response(self) -> Response {
        (self.0, axum::Json(self.1)).into_response()
    }
}

fn fail(status: u16, message: impl Into<String>) -> Fail {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    Fail(status, json!({ "error": message.into(), "status": status.as_u16() }))
}

impl From<Error> for Fail {
    fn from(e: Error) -> Fail {
        let status = e.status();
        let mut f = fail(status, e.to_string());
        match &e {
            Error::OrdersRefused { verdicts, .. } => f.1["verdicts"] = json!(verdicts),
            Error::TooSoon { wait, .. } => f.1["retry_after"] = json!(wait),
            _ => {}
        }
        if status >= 500 {
            eprintln!("realm serve: {status}: {e}");
        }
        f
    }
}

fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, Fail> {
    body.map_err(|r| {
        let status = r.status().as_u16();
        if status == 413 {
            fail(413, format!("the request body is over {MAX_BODY} bytes"))
        } else {
            fail(status, r.body_text())
        }
    })
}

fn parse<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    serde_json::from_slice(bytes).map_err(|e| Error::BadRequest { message: format!("malformed JSON: {e}") })
}

fn bearer(headers: &HeaderMap) -> Result<String, Fail> {
    let h = headers
        .get(axum::http::header::AUTHORIZATION)
        .ok_or_else(|| fail(401, "missing `Authorization: Bearer <token>`"))?;
    let text = h.to_str().map_err(|_| fail(401, "unknown player or wrong token"))?;
    let token =
        text.strip_prefix("Bearer ").ok_or_else(|| fail(401, "the Authorization header must be `Bearer <token>`"))?;
    Ok(token.trim().to_string())
}

/// Runs `f` on the service off the async threads.
async fn with<T: Send + 'static>(
    s: &Shared,
    f: impl FnOnce(&mut Service) -> Result<T, Error> + Send + 'static,
) -> Result<T, Fail> {
    let s = s.clone();
    tokio::task::spawn_blocking(move || {
        let mut lease = s.take();
        match lease.service.as_mut() {
            Some(svc) => f(svc),
            None => Err(Error::Corrupt { what: "the connection pool lost a connection".into() }),
        }
    })
    .await
    .map_err(|e| fail(500, format!("internal error: {e}")))?
    .map_err(Fail::from)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    player: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrdersBody {
    orders: Vec<Value>,
    #[serde(default)]
    round: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatBody {
    text: String,
}

async fn join(State(s): State<Shared>, body: Result<Bytes, BytesRejection>) -> Result<Response, Fail> {
    let bytes = body_bytes(body)?;
    let j = with(&s, move |svc| svc.join(&parse::<JoinBody>(&bytes)?.player)).await?;
    Ok((StatusCode::CREATED, axum::Json(j)).into_response())
}

/// `POST /rejoin`: the token's player, eliminated, starts a new empire (no body needed).
async fn rejoin(State(s): State<Shared>, headers: HeaderMap) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let j = with(&s, move |svc| svc.rejoin(&t)).await?;
    Ok((StatusCode::CREATED, axum::Json(j)).into_response())
}

async fn world(State(s): State<Shared>, headers: HeaderMap) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let v = with(&s, move |svc| svc.view(&t)).await?;
    Ok(axum::Json(v).into_response())
}

async fn orders_get(State(s): State<Shared>, headers: HeaderMap) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let v = with(&s, move |svc| svc.view(&t)).await?;
    Ok(axum::Json(json!({ "round": v.round, "deadline": v.deadline, "orders": v.orders })).into_response())
}

async fn orders_put(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let bytes = body_bytes(body)?;
    // The token first: a stranger learns nothing, not even whether the body was good.
    let r = with(&s, move |svc| {
        svc.authenticate(&t)?;
        let b: OrdersBody = parse(&bytes)?;
        svc.submit(&t, &b.orders, b.round)
    })
    .await?;
    Ok(axum::Json(r).into_response())
}

async fn round(
    State(s): State<Shared>,
    headers: HeaderMap,
    n: Result<Path<u64>, PathRejection>,
) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let Path(n) = n.map_err(|_| fail(400, "a round is a number: /rounds/0 is the first"))?;
    let r = with(&s, move |svc| svc.round(&t, n)).await?;
    Ok(axum::Json(r).into_response())
}

async fn chat_get(
    State(s): State<Shared>,
    headers: HeaderMap,
    ch: Result<Path<String>, PathRejection>,
) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let Path(ch) = ch.map_err(|_| fail(400, "bad chat log name"))?;
    let r = with(&s, move |svc| svc.chat_read(&t, &ch)).await?;
    Ok(axum::Json(r).into_response())
}

async fn chat_post(
    State(s): State<Shared>,
    headers: HeaderMap,
    ch: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let Path(ch) = ch.map_err(|_| fail(400, "bad chat log name"))?;
    let bytes = body_bytes(body)?;
    let seq = with(&s, move |svc| {
        svc.authenticate(&t)?;
        let b: ChatBody = parse(&bytes)?;
        svc.chat_post(&t, &ch, &b.text)
    })
    .await?;
    Ok((StatusCode::CREATED, axum::Json(json!({ "seq": seq }))).into_response())
}

async fn cities(State(s): State<Shared>, headers: HeaderMap) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let c = with(&s, move |svc| svc.cities(&t)).await?;
    Ok(axum::Json(json!({ "cities": c })).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RenameBody {
    name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DonateBody {
    to: String,
    #[serde(default = "queen")]
    kind: String,
    count: i64,
}

fn queen() -> String {
    crate::transfer::TRANSFER_KIND.to_string()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TransferBody {
    to: String,
}

fn city_path(p: Result<Path<String>, PathRejection>) -> Result<String, Fail> {
    p.map(|Path(c)| c).map_err(|_| fail(400, "bad city name in the path"))
}

async fn crown(
    State(s): State<Shared>,
    headers: HeaderMap,
    city: Result<Path<String>, PathRejection>,
) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let city = city_path(city)?;
    let c = with(&s, move |svc| svc.crown(&t, &city)).await?;
    Ok(axum::Json(c).into_response())
}

/// A crown action: the token first (a stranger learns nothing), then the body.
async fn crown_post<B: serde::de::DeserializeOwned + Send + 'static, T: serde::Serialize + Send + 'static>(
    s: Shared,
    headers: HeaderMap,
    city: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
    f: impl FnOnce(&mut Service, &str, &str, B) -> Result<T, Error> + Send + 'static,
) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let city = city_path(city)?;
    let bytes = body_bytes(body)?;
    let r = with(&s, move |svc| {
        svc.authenticate(&t)?;
        let b: B = parse(&bytes)?;
        f(svc, &t, &city, b)
    })
    .await?;
    Ok(axum::Json(r).into_response())
}

async fn rename(
    State(s): State<Shared>,
    headers: HeaderMap,
    city: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    crown_post(s, headers, city, body, |svc, t, c, b: RenameBody| svc.rename_city(t, c, &b.name)).await
}

async fn motd(
    State(s): State<Shared>,
    headers: HeaderMap,
    city: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    crown_post(s, headers, city, body, |svc, t, c, b: ChatBody| svc.set_motd(t, c, &b.text)).await
}

async fn donate(
    State(s): State<Shared>,
    headers: HeaderMap,
    city: Result<Path<String>, PathRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    crown_post(s, headers, city, body, |svc, t, c, b: DonateBody| svc.donate(t, c, &b.to, &b.kind, b.count)).await
}

async fn transfer_post(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let bytes = body_bytes(body)?;
    let r = with(&s, move |svc| {
        svc.authenticate(&t)?;
        let b: TransferBody = parse(&bytes)?;
        svc.transfer(&t, &b.to)
    })
    .await?;
    Ok((StatusCode::CREATED, axum::Json(r)).into_response())
}

async fn transfer_get(State(s): State<Shared>, headers: HeaderMap) -> Result<Response, Fail> {
    let t = bearer(&headers)?;
    let r = with(&s, move |svc| svc.transfers(&t)).await?;
    Ok(axum::Json(json!({ "transfers": r })).into_response())
}

async fn not_found() -> Fail {
    fail(
        404,
        "no such route; routes: POST /join, POST /rejoin, GET /world, GET|PUT /orders, GET /rounds/N, GET /cities, GET /cities/NAME/crown, POST /cities/NAME/rename|motd|donate, GET|POST /transfers, GET|POST /chat/world, GET|POST /chat/sector:SX,SY, GET|POST /chat/city:NAME",
    )
}

async fn not_allowed() -> Fail {
    fail(405, "this route does not take that method")
}

/// The API's routes over a service.
pub fn router(service: Service) -> Router {
    router_shared(Arc::new(Pool::new(vec![service])))
}

/// The API's routes over a service shared with its owner (the playground mounts them
/// under `/realm` and resolves due rounds on the same service).
pub fn router_shared(shared: Shared) -> Router {
    Router::new()
        .route("/join", post(join))
        .route("/rejoin", post(rejoin))
        .route("/world", get(world))
        .route("/orders", put(orders_put).get(orders_get))
        .route("/rounds/{n}", get(round))
        .route("/chat/{channel}", get(chat_get).post(chat_post))
        .route("/cities", get(cities))
        .route("/cities/{city}/crown", get(crown))
        .route("/cities/{city}/rename", post(rename))
        .route("/cities/{city}/motd", post(motd))
        .route("/cities/{city}/donate", post(donate))
        .route("/transfers", post(transfer_post).get(transfer_get))
        .fallback(not_found)
        .method_not_allowed_fallback(not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(shared)
}

/// Serves on `addr` until the process ends; `bound` hears the address actually bound
/// (port 0 picks a free one). With `tick`, resolves due rounds that often.
pub fn serve(
    service: Service,
    addr: SocketAddr,
    tick: Option<Duration>,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    serve_pool(vec![service], addr, tick, bound)
}

/// [`serve`] with several connections to the realm (each a [`Service`]), used by the
/// calls in parallel.
pub fn serve_pool(
    services: Vec<Service>,
    addr: SocketAddr,
    tick: Option<Duration>,
    bound: impl FnOnce(SocketAddr),
) -> Result<(), Error> {
    if services.is_empty() {
        return Err(Error::Config { path: "serve".into(), message: "no connection to serve with".into() });
    }
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
        let shared: Shared = Arc::new(Pool::new(services));
        if let Some(every) = tick {
            let s = shared.clone();
            tokio::spawn(async move {
                let mut iv = tokio::time::interval(every);
                loop {
                    iv.tick().await;
                    let s = s.clone();
                    let r = tokio::task::spawn_blocking(move || {
                        let mut lease = s.take();
                        lease.service.as_mut().map_or(Ok(Vec::new()), |svc| svc.advance(false))
                    })
                    .await;
                    match r {
                        Ok(Ok(done)) => {
                            for a in done {
                                eprintln!("realm serve: round {} resolved ({} events)", a.round, a.events);
                            }
                        }
                        Ok(Err(e)) => eprintln!("realm serve: advance: {e}"),
                        Err(e) => eprintln!("realm serve: advance: {e}"),
                    }
                }
            });
        }
        bound(local);
        axum::serve(listener, router_shared(shared)).await.map_err(|e| Error::Io { what: "serving".into(), source: e })
    })
}
