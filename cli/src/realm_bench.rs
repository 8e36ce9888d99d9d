//! `varia realm bench-store`: a stored round of a generated world (issue 13 point 6(b)),
//! timed in its parts on each store given: the load (the world's STATE row read in a
//! write transaction and parsed into the rules' realm), the bots' orders for every
//! player, validation and resolution, and the write-back (the new state serialised,
//! written and committed). The world read back after the commit must equal the
//! resolution's state, or the bench fails.

use std::time::Instant;

use varia::Variant;
use varia::world::generate::generate;
use varia::world::json::StateJson;
use varia::world::moves::Movement;
use varia::world::round;
use varia::world::state::Realm;
use varia_realm::db::Mode;
use varia_realm::{open_store, store};

use crate::Fail;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// A store to time, made for the bench (it must not exist yet): a SQLite file, or
    /// `postgres://user@host:port/database#schema` (a new schema). Repeatable.
    #[arg(long, required = true)]
    db: Vec<String>,
    /// Boards of the generated world (one player per five boards).
    #[arg(long, default_value_t = 1_000_000)]
    boards: usize,
    /// Rounds to time per store (each one resolves the state the last one wrote); the
    /// figures are their medians.
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// Bots, validation and resolution on one thread.
    #[arg(long)]
    single_thread: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn run(a: BenchArgs) -> Result<(), Fail> {
    let v = Variant::load("caissan")?;
    let rules = v.world.as_deref().ok_or_else(|| Fail("caissan has no [world]".into()))?;
    let m = Movement::new(&v, rules);
    let threads = !a.single_thread;
    let players = (a.boards / 5).max(1);
    let world = generate(rules, a.boards, players, 1).to_json(&v);
    let text = serde_json::to_string(&world)?;
    println!(
        "stored round: {} boards, {players} players, {} pieces, a {:.1} MB STATE row (medians of {})",
        world.boards.len(),
        world.pieces.len(),
        text.len() as f64 / 1e6,
        a.runs.max(1)
    );
    println!(
        "{:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "store", "load s", "bots s", "resolve s", "write s", "total s", "MB out"
    );
    for db in &a.db {
        let mut s = open_store(db, true)?;
        {
            let mut tx = s.begin(Mode::Write)?;
            store::migrate(tx.as_mut())?;
            store::insert_meta(
                tx.as_mut(),
                &store::Meta {
                    name: "bench".into(),
                    variant: "caissan".into(),
                    round_hours: 24,
                    seed: 1,
                    created_at: 0,
                    deadline: 86_400,
                    sector_boards: 10,
                    resolving: None,
                    join_ground: true,
                    rejoin_keeps_vault: false,
                },
            )?;
            store::put_world(tx.as_mut(), 0, &text)?;
            tx.commit()?;
        }
        let mut t: [Vec<f64>; 4] = Default::default();
        let mut out_len = 0;
        for r in 0..a.runs.max(1) {
            let t0 = Instant::now();
            let mut tx = s.begin(Mode::Write)?;
            let (round, stored) = store::world(tx.as_mut())?;
            let state: StateJson = serde_json::from_str(&stored)?;
            let realm = Realm::from_json(&v, &state)?;
            drop((stored, state));
            let t1 = Instant::now();
            let seed = 7 + r as u64;
            let given = round::bot_orders(&m, &realm, seed, threads);
            let t2 = Instant::now();
            let (plans, bots, gave) = round::validate_all(&m, &realm, given, seed, threads);
            let res = round::execute_in(&m, realm, plans, bots, &gave, threads);
            let t3 = Instant::now();
            let after = res.realm.to_json(&v);
            let written = serde_json::to_string(&after)?;
            store::put_world(tx.as_mut(), round + 1, &written)?;
            tx.commit()?;
            let t4 = Instant::now();
            out_len = written.len();
            let mut check = s.begin(Mode::Read)?;
            let (back_round, back) = store::world(check.as_mut())?;
            if back_round != round + 1 || back != written {
                return Err(Fail(format!("{db}: the world read back is not the one written (round {back_round})")));
            }
            for (i, d) in [t1 - t0, t2 - t1, t3 - t2, t4 - t3].iter().enumerate() {
                t[i].push(d.as_secs_f64());
            }
        }
        let [l, b, re, w] = t.map(median);
        let kind = if db.starts_with("postgres") { "postgresql" } else { "sqlite" };
        println!(
            "{kind:<10} {l:>9.3} {b:>9.3} {re:>9.3} {w:>9.3} {:>9.3} {:>9.1}",
            l + b + re + w,
            out_len as f64 / 1e6
        );
    }
    Ok(())
}

/// `varia realm bench-intake` (issue 13 point 6(a)).
#[derive(clap::Args)]
pub struct IntakeArgs {
    /// A store to serve, made for the bench (it must not exist yet): a SQLite file, or
    /// `postgres://user@host:port/database#schema` (a new schema). Repeatable.
    #[arg(long, required = true)]
    db: Vec<String>,
    /// Concurrent clients, each on its own players.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// Order lists each client submits (`PUT /orders`, one order each).
    #[arg(long, default_value_t = 100)]
    orders: usize,
    /// Players in the realm (at least one per client).
    #[arg(long, default_value_t = 32)]
    players: usize,
    /// The server's connections to the store (default: as `serve`: 8 for PostgreSQL,
    /// 1 for SQLite).
    #[arg(long)]
    connections: Option<usize>,
}

/// One HTTP/1.1 request over a new loopback connection; the status and the body.
fn http(addr: std::net::SocketAddr, method: &str, path: &str, token: &str, body: &str) -> Result<(u16, String), Fail> {
    use std::io::{Read, Write};
    let io = |e: std::io::Error| Fail(format!("{addr}: {e}"));
    let mut s = std::net::TcpStream::connect(addr).map_err(io)?;
    s.set_nodelay(true).map_err(io)?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(io)?;
    let mut reply = String::new();
    s.read_to_string(&mut reply).map_err(io)?;
    let status =
        reply.split(' ').nth(1).and_then(|c| c.parse().ok()).ok_or_else(|| Fail(format!("{addr}: no status")))?;
    let body = reply.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
    Ok((status, body))
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub fn intake(a: IntakeArgs) -> Result<(), Fail> {
    use std::sync::Arc;
    use varia_realm::{RealmConfig, Service, SystemClock};
    let clients = a.clients.max(1);
    let players = a.players.max(clients);
    println!(
        "order intake: {clients} clients over loopback, {} order lists each (one order per list), {players} players",
        a.orders
    );
    println!("{:<10} {:>5} {:>10} {:>9} {:>9} {:>9}", "store", "conns", "orders/s", "p50 ms", "p99 ms", "max ms");
    for db in &a.db {
        let cfg = RealmConfig::parse("name = \"bench\"\nround_hours = 24\nseed = 1\n", "bench")?;
        let mut admin = Service::create(open_store(db, true)?, &cfg, Arc::new(SystemClock))?;
        // Each player's two orders, alternated: its first board's queen up, or a pass.
        let mut who: Vec<(String, [String; 2])> = Vec::with_capacity(players);
        for p in 0..players {
            let j = admin.join(&format!("p{p}"))?;
            let [bx, by] = j.boards[0];
            let (x, y) = (5 * bx + 2, 5 * by + 3);
            let up = format!(r#"{{"orders":[{{"type":"move","from":[{x},{y}],"to":[{x},{}]}}]}}"#, y + 1);
            let pass = format!(r#"{{"orders":[{{"type":"pass","board":[{bx},{by}]}}]}}"#);
            who.push((j.token, [up, pass]));
        }
        let pg = db.starts_with("postgres://") || db.starts_with("postgresql://");
        let conns = a.connections.unwrap_or(if pg { 8 } else { 1 }).max(1);
        let mut pool = Vec::with_capacity(conns);
        for _ in 0..conns {
            pool.push(Service::open(open_store(db, false)?, Arc::new(SystemClock))?);
        }
        let (tx, rx) = std::sync::mpsc::channel();
        // The server runs until the process ends.
        std::thread::spawn(move || {
            let _ = varia_realm::server::serve_pool(pool, "127.0.0.1:0".parse().unwrap(), None, move |addr| {
                let _ = tx.send(addr);
            });
        });
        let addr =
            rx.recv_timeout(std::time::Duration::from_secs(60)).map_err(|_| Fail("the server did not start".into()))?;
        let who = Arc::new(who);
        let start = Instant::now();
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let who = who.clone();
                let n = a.orders;
                std::thread::spawn(move || -> Result<Vec<f64>, Fail> {
                    let mut lat = Vec::with_capacity(n);
                    for i in 0..n {
                        let (token, lists) = &who[c + clients * (i % (who.len() / clients).max(1))];
                        let t = Instant::now();
                        let (status, body) = http(addr, "PUT", "/orders", token, &lists[i % 2])?;
                        lat.push(t.elapsed().as_secs_f64() * 1e3);
                        if status != 200 {
                            return Err(Fail(format!("PUT /orders: {status}: {body}")));
                        }
                    }
                    Ok(lat)
                })
            })
            .collect();
        let mut lat = Vec::new();
        for h in handles {
            lat.extend(h.join().map_err(|_| Fail("a client panicked".into()))??);
        }
        let secs = start.elapsed().as_secs_f64();
        lat.sort_by(|x, y| x.total_cmp(y));
        // Every acknowledged order is stored: each player's last list is the one kept.
        let per = (who.len() / clients).max(1);
        for c in 0..clients {
            let mut last = std::collections::BTreeMap::new();
            for i in 0..a.orders {
                last.insert(c + clients * (i % per), i % 2);
            }
            for (&p, &k) in &last {
                let (token, lists) = &who[p];
                let stored = admin.view(token)?.orders;
                let want: serde_json::Value = serde_json::from_str(&lists[k])?;
                if stored.as_ref() != want["orders"].as_array() {
                    return Err(Fail(format!("{db}: p{p}'s stored orders are not the last acknowledged ones")));
                }
            }
        }
        let kind = if pg { "postgres" } else { "sqlite" };
        println!(
            "{kind:<10} {conns:>5} {:>10.0} {:>9.1} {:>9.1} {:>9.1}",
            lat.len() as f64 / secs,
            percentile(&lat, 0.5),
            percentile(&lat, 0.99),
            lat.last().copied().unwrap_or(0.0)
        );
    }
    Ok(())
}

/// `varia realm bench-recovery` (issue 13 point 6(c)).
#[derive(clap::Args)]
pub struct RecoveryArgs {
    /// A new store per scenario is made from this: a path prefix for SQLite files
    /// (`/tmp/rec` gives `/tmp/rec-intake.db`, …), or `postgres://…#prefix` (schemas
    /// `prefix_intake`, …). Repeatable.
    #[arg(long, required = true)]
    db: Vec<String>,
    /// Concurrent clients during the intake scenario.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// The server is killed once this many order lists are acknowledged.
    #[arg(long, default_value_t = 300)]
    kill_after: usize,
    /// Boards of the generated world of the resolution scenario (its players all idle,
    /// so the bots order for everyone).
    #[arg(long, default_value_t = 10_000)]
    boards: usize,
}

fn derived(db: &str, name: &str) -> String {
    if db.starts_with("postgres://") || db.starts_with("postgresql://") {
        match db.rsplit_once('#') {
            Some((url, prefix)) => format!("{url}#{prefix}_{name}"),
            None => format!("{db}#bench_{name}"),
        }
    } else {
        format!("{db}-{name}.db")
    }
}

fn varia_cmd() -> Result<std::process::Command, Fail> {
    let exe = std::env::current_exe().map_err(|e| Fail(format!("this program's path: {e}")))?;
    let mut c = std::process::Command::new(exe);
    c.env_remove("VARIA_REALM_PAUSE_AT");
    Ok(c)
}

/// Starts `varia realm serve` on a free port; the child and its address.
fn spawn_server(db: &str) -> Result<(std::process::Child, std::net::SocketAddr), Fail> {
    use std::io::BufRead;
    let mut child = varia_cmd()?
        .args(["realm", "serve", "--db", db, "--port", "0", "--tick", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| Fail(format!("starting serve: {e}")))?;
    let mut out = std::io::BufReader::new(child.stdout.take().ok_or_else(|| Fail("serve's stdout".into()))?);
    let mut line = String::new();
    out.read_line(&mut line).map_err(|e| Fail(format!("serve: {e}")))?;
    let addr = line
        .trim()
        .rsplit("http://")
        .next()
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| Fail(format!("serve said `{}`", line.trim())))?;
    Ok((child, addr))
}

/// Per player of the intake scenario: the last list acknowledged, and the one in flight.
type Flight = (Option<usize>, Option<usize>);

pub fn recovery(a: RecoveryArgs) -> Result<(), Fail> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use varia_realm::{RealmConfig, Service, SystemClock};
    let clients = a.clients.max(1);
    for base in &a.db {
        let pg = base.starts_with("postgres://") || base.starts_with("postgresql://");
        let kind = if pg { "postgres" } else { "sqlite" };
        // 1. Order intake: the server is killed with SIGKILL mid-stream.
        let db = derived(base, "intake");
        let cfg = RealmConfig::parse("name = \"bench\"\nround_hours = 24\nseed = 1\n", "bench")?;
        let mut admin = Service::create(open_store(&db, true)?, &cfg, Arc::new(SystemClock))?;
        let mut who: Vec<(String, [String; 2])> = Vec::new();
        for p in 0..clients * 2 {
            let j = admin.join(&format!("p{p}"))?;
            let [bx, by] = j.boards[0];
            let (x, y) = (5 * bx + 2, 5 * by + 3);
            let up = format!(r#"{{"orders":[{{"type":"move","from":[{x},{y}],"to":[{x},{}]}}]}}"#, y + 1);
            let pass = format!(r#"{{"orders":[{{"type":"pass","board":[{bx},{by}]}}]}}"#);
            who.push((j.token, [up, pass]));
        }
        let (mut server, addr) = spawn_server(&db)?;
        let acked = Arc::new(AtomicUsize::new(0));
        // Per player: the last acknowledged list, and the one in flight when the server died.
        let state: Arc<Mutex<Vec<Flight>>> = Arc::new(Mutex::new(vec![(None, None); who.len()]));
        let who = Arc::new(who);
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let (who, acked, state) = (who.clone(), acked.clone(), state.clone());
                std::thread::spawn(move || {
                    for i in 0.. {
                        let p = c + clients * (i % 2);
                        let k = i % 2;
                        let lock = |s: &Mutex<Vec<Flight>>| {
                            s.lock().unwrap_or_else(|e| e.into_inner())[p].1 = Some(k);
                        };
                        lock(&state);
                        match http(addr, "PUT", "/orders", &who[p].0, &who[p].1[k]) {
                            Ok((200, _)) => {
                                state.lock().unwrap_or_else(|e| e.into_inner())[p] = (Some(k), None);
                                acked.fetch_add(1, Ordering::SeqCst);
                            }
                            _ => return,
                        }
                    }
                })
            })
            .collect();
        while acked.load(Ordering::SeqCst) < a.kill_after {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        server.kill().map_err(|e| Fail(format!("kill: {e}")))?;
        let _ = server.wait();
        for h in handles {
            let _ = h.join();
        }
        let total = acked.load(Ordering::SeqCst);
        let t = Instant::now();
        let (mut server, addr) = spawn_server(&db)?;
        loop {
            if let Ok((200, _)) = http(addr, "GET", "/orders", &who[0].0, "") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let restart = t.elapsed().as_secs_f64();
        let (mut kept, mut landed, mut lost) = (0, 0, 0);
        for (p, &(last, flying)) in state.lock().unwrap_or_else(|e| e.into_inner()).iter().enumerate() {
            let (_, body) = http(addr, "GET", "/orders", &who[p].0, "")?;
            let stored: serde_json::Value = serde_json::from_str(&body)?;
            let is = |k: Option<usize>| {
                k.is_some_and(|k| {
                    serde_json::from_str::<serde_json::Value>(&who[p].1[k]).ok().map(|v| v["orders"].clone())
                        == Some(stored["orders"].clone())
                })
            };
            if flying.is_some() && flying != last && is(flying) {
                landed += 1;
            } else if last.is_none() || is(last) {
                kept += 1;
            } else {
                lost += 1;
            }
        }
        let _ = server.kill();
        let _ = server.wait();
        println!(
            "{kind} intake: serve killed (SIGKILL) after {total} acknowledged order lists from {clients} clients; \
             restarted and answering in {:.2} s; {} players: {kept} hold their last acknowledged list, {landed} the \
             list in flight at the kill (committed, not acknowledged), {lost} lost",
            restart,
            who.len()
        );
        if lost > 0 {
            return Err(Fail(format!("{db}: {lost} acknowledged order lists were lost")));
        }
        // 2. Resolution: `advance` killed with SIGKILL at a quarter, half and three
        // quarters of an uninterrupted run's time, then run again; compared with a twin.
        let v = Variant::load("caissan")?;
        let rules = v.world.as_deref().ok_or_else(|| Fail("caissan has no [world]".into()))?;
        let mut world = generate(rules, a.boards, (a.boards / 5).max(1), 3).to_json(&v);
        for p in &world.players.clone() {
            world.idle.insert(p.clone(), rules.bot_after);
        }
        let text = serde_json::to_string(&world)?;
        let at = "1000000";
        let make = |name: &str| -> Result<String, Fail> {
            let db = derived(base, name);
            let cfg = RealmConfig::parse("name = \"bench\"\nround_hours = 24\nseed = 1\n", "bench")?;
            let clock = Arc::new(varia_realm::ManualClock::new(1_000_000));
            drop(Service::create(open_store(&db, true)?, &cfg, clock)?);
            let mut s = open_store(&db, false)?;
            let mut tx = s.begin(Mode::Write)?;
            store::put_world(tx.as_mut(), 0, &text)?;
            tx.commit()?;
            Ok(db)
        };
        let advance = |db: &str| -> Result<f64, Fail> {
            let t = Instant::now();
            let st = varia_cmd()?
                .args(["realm", "advance", "--db", db, "--now", "--at", at])
                .stdout(std::process::Stdio::null())
                .status()
                .map_err(|e| Fail(format!("advance: {e}")))?;
            if !st.success() {
                return Err(Fail(format!("{db}: advance failed")));
            }
            Ok(t.elapsed().as_secs_f64())
        };
        let bytes = |db: &str| -> Result<(String, Option<String>), Fail> {
            let mut s = open_store(db, false)?;
            let mut tx = s.begin(Mode::Read)?;
            let (_, world) = store::world(tx.as_mut())?;
            Ok((world, store::result(tx.as_mut(), 0)?.map(|r| r.1)))
        };
        let twin = make("twin")?;
        let full = advance(&twin)?;
        let want = bytes(&twin)?;
        for (i, frac) in [0.25, 0.5, 0.75].into_iter().enumerate() {
            let db = make(&format!("resolve{i}"))?;
            let mut child = varia_cmd()?
                .args(["realm", "advance", "--db", &db, "--now", "--at", at])
                .stdout(std::process::Stdio::null())
                .spawn()
                .map_err(|e| Fail(format!("advance: {e}")))?;
            std::thread::sleep(std::time::Duration::from_secs_f64(full * frac));
            let _ = child.kill();
            let st = child.wait().map_err(|e| Fail(format!("advance: {e}")))?;
            let after_kill = bytes(&db)?;
            let outcome = match (&after_kill.1, st.success()) {
                (None, _) if after_kill.0 == text => "round 0 unresolved, the world untouched",
                (Some(_), _) if after_kill == want => "round 0 already committed, as the twin's",
                _ => return Err(Fail(format!("{db}: after the kill the realm is neither before nor after the round"))),
            };
            let rerun = if after_kill.1.is_none() { advance(&db)? } else { 0.0 };
            if bytes(&db)? != want {
                return Err(Fail(format!("{db}: the rerun's round differs from the twin's")));
            }
            println!(
                "{kind} resolution ({} boards, uninterrupted {full:.2} s): killed at {:.0}%: {outcome}; rerun {rerun:.2} s, \
                 world and round record byte for byte the twin's",
                a.boards,
                frac * 100.0
            );
        }
    }
    Ok(())
}
