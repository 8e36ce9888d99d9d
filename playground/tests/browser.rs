//! The browser tests (playground/e2e, `node --test` driving Debian's Chromium through
//! playwright-core) against a server started here on port 0, serving standard chess,
//! Decachess, Chessic (solo boards on a manual clock) and a copy of Chessception's
//! folder that the tests edit, and a Caissan realm (alice and bob joined; its tokens
//! passed to the tests as REALM_ALICE and REALM_BOB) on the same manual clock, and janggi
//! (its Pass button). Outside CI the
//! test skips with a note when Chromium, node or e2e/node_modules is missing; with
//! `CI=true` it fails instead (`.ci/run` installs them).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use varia_playground::{Catalog, Source};

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// What is missing to run the browser tests, if anything.
fn missing(e2e: &Path) -> Option<String> {
    if !chromium().is_file() {
        return Some(format!("no Chromium at {} (apt-get install chromium, or set CHROMIUM)", chromium().display()));
    }
    if Command::new("node").arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
        return Some("no `node` on the PATH (apt-get install nodejs)".into());
    }
    if !e2e.join("node_modules/playwright-core").is_dir() {
        return Some(format!("no {}/node_modules/playwright-core (run `npm ci` there)", e2e.display()));
    }
    None
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// When the realm is made: 1,000,000 s after the epoch.
const T0: i64 = 1_000_000;

#[test]
fn the_page_works_in_chromium() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let e2e = root.join("e2e");
    if let Some(why) = missing(&e2e) {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("the browser tests cannot run in CI: {why}");
        }
        eprintln!("skipped: the browser tests need {why}");
        return;
    }
    let dir = std::env::temp_dir().join(format!("varia-playground-e2e-{}", std::process::id())).join("chessception");
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&root.join("../scripts/chessception"), &dir);
    let sources = vec![
        Source::Named("standard".into()),
        Source::Named("decachess".into()),
        Source::Named("chessic".into()),
        Source::Named("chess960".into()),
        Source::Named("janggi".into()),
        Source::Folder(dir.clone()),
    ];
    let catalog = Catalog::load(&sources).unwrap_or_else(|e| panic!("{e}"));
    // The realm, made and joined at T0 = 1,000,000 s (its first deadline is 1,015,200).
    let db = dir.parent().unwrap().join("realm.db");
    for ext in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{ext}", db.display()));
    }
    // Caissa is two boards, [3,-1] and [3,0]: too few for an empire (a join's three boards
    // lie in one region, cities first), so alice and bob join the ground ring by ring.
    let cfg =
        "name = \"Testland\"\nround_hours = 6\nseed = 1\n\n[[cities]]\nname = \"Caissa\"\nboards = [[3, -1], [3, 0]]\n";
    let cfg = varia_realm::RealmConfig::parse(cfg, "realm.toml").unwrap();
    let made = std::sync::Arc::new(varia_realm::ManualClock::new(T0));
    let store = varia_realm::SqliteStore::open(&db, true).unwrap();
    let mut svc = varia_realm::Service::create(Box::new(store), &cfg, made).unwrap();
    let (alice, bob) = (svc.join("alice").unwrap().token, svc.join("bob").unwrap().token);
    drop(svc);
    // Solo boards and the realm on a manual clock: the tests move it (POST /api/clock/wait).
    let clock: std::sync::Arc<dyn varia_playground::TimeSource> =
        std::sync::Arc::new(varia_playground::ManualClock::default());
    let site = varia_playground::RealmSite::open(db.to_str().unwrap(), clock.clone(), T0).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let addr = "127.0.0.1:0".parse().unwrap();
        varia_playground::serve_with_realm(catalog, addr, clock, Some(site), move |a: SocketAddr| tx.send(a).unwrap())
    });
    let addr = rx.recv_timeout(Duration::from_secs(60)).expect("the server binds");
    let out = Command::new("node")
        .args(["--test", "--test-reporter=spec"])
        .current_dir(&e2e)
        .env("PLAYGROUND_URL", format!("http://{addr}"))
        .env("PLAYGROUND_DIR", &dir)
        .env("REALM_ALICE", &alice)
        .env("REALM_BOB", &bob)
        .env("CHROMIUM", chromium())
        .output()
        .expect("node runs");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{text}");
    assert!(out.status.success(), "the browser tests failed:\n{text}");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
