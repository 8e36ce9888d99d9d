//! Helpers shared by the realm's tests: scratch folders, realms on a pinned clock,
//! and the PostgreSQL server the store tests also run against (`VARIA_PG_URL`).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use varia_realm::{ManualClock, RealmConfig, Service, SqliteStore, Store};

/// 1,000,000 s after the epoch: 46 whole 6-hour periods and 6,400 s; the first
/// 6-hour deadline after it is 47 × 21,600 = 1,015,200.
pub const T0: i64 = 1_000_000;
pub const FIRST_DEADLINE_6H: i64 = 1_015_200;

static N: AtomicU64 = AtomicU64::new(0);

/// A fresh scratch folder in the system temp dir (left there after the test, for a look).
pub fn scratch(name: &str) -> PathBuf {
    let n = N.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-realm-{}-{name}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

pub fn config(hours: i64, seed: u64) -> RealmConfig {
    RealmConfig {
        name: "test realm".into(),
        variant: "caissan".into(),
        round_hours: hours,
        seed,
        sector_boards: 10,
        cities: vec![],
        roads: vec![],
        join_ground: true,
        rejoin_keeps_vault: false,
    }
}

/// The stores to run a test on: SQLite always, PostgreSQL when a server is there.
pub type Opener = Box<dyn FnMut(bool) -> Result<Box<dyn Store>, varia_realm::Error>>;

pub fn stores(name: &str) -> Vec<(String, Opener)> {
    let dir = scratch(name);
    let path = dir.join("realm.db");
    let mut out: Vec<(String, Opener)> = vec![(
        "sqlite".into(),
        Box::new(move |create| Ok(Box::new(SqliteStore::open(&path, create)?) as Box<dyn Store>)),
    )];
    if let Some(url) = pg_url() {
        let schema = fresh_schema(&url, name);
        out.push((
            "postgres".into(),
            Box::new(move |create| Ok(Box::new(varia_realm::PgStore::open(&url, &schema, create)?) as Box<dyn Store>)),
        ));
    }
    out
}

/// The PostgreSQL URL of the tests: `VARIA_PG_URL`. Without it: with `CI=true` the
/// test fails (CI must run both stores); locally it prints a note and skips PostgreSQL.
pub fn pg_url() -> Option<String> {
    match std::env::var("VARIA_PG_URL") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("CI=true but VARIA_PG_URL is not set: .ci/run must start PostgreSQL for the store tests");
            }
            eprintln!("note: VARIA_PG_URL is not set; PostgreSQL store tests skipped (SQLite only)");
            None
        }
    }
}

/// A new, empty schema for one test (dropped first if a previous run left it).
pub fn fresh_schema(url: &str, name: &str) -> String {
    let n = N.fetch_add(1, Ordering::SeqCst);
    let schema: String = format!("t{}_{}_{n}", std::process::id(), name)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
        .collect();
    let mut c = postgres::Client::connect(url, postgres::NoTls).expect("connect to VARIA_PG_URL");
    c.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).expect("drop schema");
    schema
}

/// A new realm on a pinned clock.
pub fn realm(store: Box<dyn Store>, hours: i64, seed: u64) -> (Service, ManualClock) {
    let clock = ManualClock::new(T0);
    let s = Service::create(store, &config(hours, seed), Arc::new(clock.clone())).expect("create realm");
    (s, clock)
}

pub fn j(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("test JSON")
}

/// Rewrites the stored world through a second connection (as an operator's tool
/// would), to set up positions that joins alone do not give.
pub fn poke_world(store: &mut dyn Store, f: impl FnOnce(&mut varia::world::json::StateJson)) {
    let mut tx = store.begin(varia_realm::db::Mode::Write).expect("begin");
    let (round, text) = varia_realm::store::world(tx.as_mut()).expect("world");
    let mut state: varia::world::json::StateJson = serde_json::from_str(&text).expect("state");
    f(&mut state);
    varia_realm::store::put_world(tx.as_mut(), round, &serde_json::to_string(&state).unwrap()).expect("put");
    tx.commit().expect("commit");
}

/// Runs one statement through a second connection.
pub fn poke_sql(store: &mut dyn Store, sql: &str) {
    let mut tx = store.begin(varia_realm::db::Mode::Write).expect("begin");
    tx.exec(sql, &[]).expect(sql);
    tx.commit().expect("commit");
}

/// Takes away the pieces on these squares.
pub fn remove_pieces(state: &mut varia::world::json::StateJson, squares: &[(i32, i32)]) {
    let before = state.pieces.len();
    state.pieces.retain(|p| !squares.contains(&(p.x, p.y)));
    assert_eq!(before - state.pieces.len(), squares.len(), "every square held a piece");
}

/// A realm on a pinned clock from a config's text.
pub fn realm_from(store: Box<dyn Store>, text: &str) -> (Service, ManualClock) {
    let clock = ManualClock::new(T0);
    let cfg = RealmConfig::parse(text, "realm.toml").expect("config");
    let s = Service::create(store, &cfg, Arc::new(clock.clone())).expect("create realm");
    (s, clock)
}

/// A client of a realm served over loopback ([`serve`]).
pub struct Http {
    base: String,
    agent: ureq::Agent,
}

/// Serves a service on a free loopback port (no tick: the test resolves).
pub fn serve(svc: Service) -> Http {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        varia_realm::server::serve(svc, "127.0.0.1:0".parse().unwrap(), None, move |a| tx.send(a).unwrap())
    });
    let addr = rx.recv_timeout(Duration::from_secs(60)).expect("the server binds");
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    Http { base: format!("http://{addr}"), agent }
}

impl Http {
    pub fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        let auth = token.map(|t| format!("Bearer {t}"));
        let mut r = if method == "GET" {
            let mut q = self.agent.get(&url);
            if let Some(a) = &auth {
                q = q.header("Authorization", a);
            }
            q.call()
        } else {
            let mut q = if method == "PUT" { self.agent.put(&url) } else { self.agent.post(&url) };
            if let Some(a) = &auth {
                q = q.header("Authorization", a);
            }
            q.header("Content-Type", "application/json").send(body.map(|b| b.to_string()).unwrap_or_default())
        }
        .expect("an HTTP reply");
        let status = r.status().as_u16();
        let text = r.body_mut().read_to_string().unwrap();
        (status, serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON: {text:?}")))
    }
}

/// Every row of every table of the realm's store, read through a second connection,
/// one line per row (`table: [values]`), sorted: equal dumps mean nothing was stored.
pub fn dump(store: &mut dyn Store) -> Vec<String> {
    use varia_realm::db::{Dialect, Mode};
    let mut tx = store.begin(Mode::Read).expect("begin");
    let list = match tx.dialect() {
        Dialect::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name",
        Dialect::Postgres => {
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1"
        }
    };
    let tables: Vec<String> =
        tx.query(list, &[]).expect(list).iter().map(|r| r[0].text().expect("a name").to_string()).collect();
    assert!(tables.iter().any(|t| t == "players"), "the dump sees the realm's tables: {tables:?}");
    let mut out = Vec::new();
    for t in tables {
        let sql = format!("SELECT * FROM {t}");
        for row in tx.query(&sql, &[]).expect(&sql) {
            out.push(format!("{t}: {row:?}"));
        }
    }
    out.sort();
    out
}
