//! Helpers shared by the realm's tests: scratch folders, realms on a pinned clock,
//! and the PostgreSQL server the store tests also run against (`VARIA_PG_URL`).
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
