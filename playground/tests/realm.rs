//! The realm on the playground's server (`varia serve --realm`) over a real socket: the
//! realm service's routes under `/realm` answer exactly as `varia realm serve` does on the
//! same database, tokens are the service's (a wrong or missing one is 401 everywhere),
//! nobody sees another player's orders or vault, a piece's targets are its movement
//! judged by the service's validation (worked out by hand below), and the manual clock
//! resolves the round when it passes the deadline.
//!
//! The realm: Caissan, 6-hour rounds, made and joined at T0 = 1,000,000 s (the first
//! deadline is 1,015,200: 15,200 s later). alice joins first and holds boards [0, 0]
//! [-1, -1] [0, -1], bob [1, -1] [-1, 0] [1, 0]; each board has, from its lower-left
//! corner (bx·5, by·5), a knight at (+2, +1), rook (+1, +2), king (+2, +2), bishop
//! (+3, +2) and queen (+2, +3). So bob's board [-1, 0] holds N [-3, 1], R [-4, 2],
//! K [-3, 2], B [-2, 2], Q [-3, 3]; alice's [0, 0] holds N [2, 1], R [1, 2], K [2, 2],
//! B [3, 2], Q [2, 3]; alice's [-1, -1] holds Q [-3, -2].

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use varia_playground::{Catalog, RealmSite, Source};
use varia_realm::{RealmConfig, Service, SqliteStore};

const T0: i64 = 1_000_000;
const DEADLINE: i64 = 1_015_200;

static NEXT: AtomicU32 = AtomicU32::new(0);

fn scratch() -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-playground-realm-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Realm {
    db: PathBuf,
    alice: String,
    bob: String,
}

/// A fresh realm with alice and bob, made at T0.
fn realm() -> Realm {
    let db = scratch().join("realm.db");
    let cfg = RealmConfig::parse("name = \"Testland\"\nround_hours = 6\nseed = 1\n", "realm.toml").unwrap();
    let clock = Arc::new(varia_realm::ManualClock::new(T0));
    let mut svc = Service::create(Box::new(SqliteStore::open(&db, true).unwrap()), &cfg, clock).unwrap();
    let alice = svc.join("alice").unwrap().token;
    let bob = svc.join("bob").unwrap().token;
    Realm { db, alice, bob }
}

struct Server {
    base: String,
    agent: ureq::Agent,
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

/// The playground with the realm in `db`, on a manual clock that reads T0 at start.
fn playground(db: &std::path::Path) -> Server {
    let catalog = Catalog::load(&[Source::Named("standard".into())]).unwrap();
    let clock: Arc<dyn varia_playground::TimeSource> = Arc::new(varia_playground::ManualClock::default());
    let site = RealmSite::open(db.to_str().unwrap(), clock.clone(), T0).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let addr = "127.0.0.1:0".parse().unwrap();
        varia_playground::serve_with_realm(catalog, addr, clock, Some(site), move |a: SocketAddr| tx.send(a).unwrap())
    });
    let addr = rx.recv_timeout(Duration::from_secs(60)).expect("the playground binds");
    Server { base: format!("http://{addr}"), agent: agent() }
}

/// `varia realm serve` on the same database, its clock pinned at T0 (no tick).
fn realm_server(db: &std::path::Path) -> Server {
    let clock = Arc::new(varia_realm::ManualClock::new(T0));
    let svc = Service::open(Box::new(SqliteStore::open(db, false).unwrap()), clock).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        varia_realm::server::serve(svc, "127.0.0.1:0".parse().unwrap(), None, move |a| tx.send(a).unwrap())
    });
    let addr = rx.recv_timeout(Duration::from_secs(60)).expect("the realm server binds");
    Server { base: format!("http://{addr}"), agent: agent() }
}

impl Server {
    /// A request with an optional `Authorization` header value; the status and the body.
    fn raw(&self, method: &str, path: &str, auth: Option<&str>, body: Option<&str>) -> (u16, String) {
        let url = format!("{}{path}", self.base);
        let mut r = match method {
            "GET" => {
                let mut q = self.agent.get(&url);
                if let Some(a) = auth {
                    q = q.header("Authorization", a);
                }
                q.call()
            }
            m => {
                let mut q = match m {
                    "PUT" => self.agent.put(&url),
                    _ => self.agent.post(&url),
                };
                if let Some(a) = auth {
                    q = q.header("Authorization", a);
                }
                q.header("Content-Type", "application/json").send(body.unwrap_or(""))
            }
        }
        .expect("an HTTP reply");
        (r.status().as_u16(), r.body_mut().read_to_string().unwrap())
    }

    fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
        let auth = token.map(|t| format!("Bearer {t}"));
        let body = body.map(|b| b.to_string());
        let (s, text) = self.raw(method, path, auth.as_deref(), body.as_deref());
        (s, serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON: {text:?}")))
    }

    fn targets(&self, token: &str, from: [i32; 2], orders: Value) -> Vec<(i64, i64, bool, String)> {
        let (s, v) =
            self.call("POST", "/api/realm/targets", Some(token), Some(json!({ "from": from, "orders": orders })));
        assert_eq!(s, 200, "{v}");
        v["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let to = t["to"].as_array().unwrap();
                (
                    to[0].as_i64().unwrap(),
                    to[1].as_i64().unwrap(),
                    t["accepted"].as_bool().unwrap(),
                    t["reason"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
}

fn mv(from: [i32; 2], to: [i32; 2]) -> Value {
    json!({ "type": "move", "from": from, "to": to })
}

#[test]
fn a_realm_route_through_the_playground_answers_as_the_realm_service_does() {
    let r = realm();
    let pg = playground(&r.db);
    let rs = realm_server(&r.db);
    let wrong = format!("{}0", r.alice);
    // alice's rook [1, 2] onto bob's bishop [-2, 2], which bob's queen [-3, 3] guards
    // (one step diagonally): refused, nothing stored.
    let guarded = json!({ "orders": [mv([1, 2], [-2, 2])] }).to_string();
    let cases: Vec<(&str, &str, Option<String>, Option<String>)> = vec![
        ("GET", "/world", Some(format!("Bearer {}", r.alice)), None),
        ("GET", "/world", Some(format!("Bearer {}", r.bob)), None),
        ("GET", "/world", None, None),
        ("GET", "/world", Some(format!("Bearer {wrong}")), None),
        ("GET", "/world", Some(r.alice.clone()), None),
        ("GET", "/orders", Some(format!("Bearer {}", r.alice)), None),
        ("PUT", "/orders", Some(format!("Bearer {}", r.alice)), Some(guarded)),
        ("PUT", "/orders", Some(format!("Bearer {}", r.alice)), Some("{\"orders\": [".into())),
        ("PUT", "/orders", Some(format!("Bearer {wrong}")), Some("{}".into())),
        ("GET", "/rounds/0", Some(format!("Bearer {}", r.alice)), None),
        ("GET", "/rounds/x", Some(format!("Bearer {}", r.alice)), None),
        ("GET", "/cities", Some(format!("Bearer {}", r.bob)), None),
        ("GET", "/chat/world", Some(format!("Bearer {}", r.bob)), None),
        ("GET", "/transfers", Some(format!("Bearer {}", r.alice)), None),
        ("POST", "/world", Some(format!("Bearer {}", r.alice)), Some("{}".into())),
        ("GET", "/nosuch", None, None),
        ("POST", "/join", None, Some("{\"player\": \"bad name\"}".into())),
        ("POST", "/join", None, Some("{\"player\": \"alice\"}".into())),
    ];
    for (method, path, auth, body) in &cases {
        let through = pg.raw(method, &format!("/realm{path}"), auth.as_deref(), body.as_deref());
        let direct = rs.raw(method, path, auth.as_deref(), body.as_deref());
        assert_eq!(through, direct, "{method} {path}");
    }
    // The statuses themselves, as the realm's README gives them.
    let statuses: Vec<u16> =
        cases.iter().map(|(m, p, a, b)| pg.raw(m, &format!("/realm{p}"), a.as_deref(), b.as_deref()).0).collect();
    assert_eq!(statuses, [200, 200, 401, 401, 401, 200, 422, 400, 401, 404, 400, 200, 200, 200, 405, 404, 400, 409]);
    let (_, refused) =
        pg.call("PUT", "/realm/orders", Some(&r.alice), Some(json!({ "orders": [mv([1, 2], [-2, 2])] })));
    assert_eq!(refused["verdicts"][0]["reason"], "the bishop on [-2, 2] is guarded by bob's queen on [-3, 3]");
    // An order stored through the playground is the realm's: read back by the other server.
    let (s, v) = pg.call("PUT", "/realm/orders", Some(&r.alice), Some(json!({ "orders": [mv([-3, -2], [-3, 2])] })));
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["verdicts"], json!([{ "accepted": true, "reason": "accepted" }]));
    let (_, direct) = rs.call("GET", "/orders", Some(&r.alice), None);
    assert_eq!(direct, json!({ "round": 0, "deadline": DEADLINE, "orders": [mv([-3, -2], [-3, 2])] }));
    // A body over the realm's own limit (1 MiB), not the page's (16 KiB): the realm's 413.
    let big = format!("{{\"orders\": [], \"pad\": \"{}\"}}", "x".repeat(20_000));
    let (s, _) = pg.raw("PUT", "/realm/orders", Some(&format!("Bearer {}", r.alice)), Some(&big));
    assert_eq!(s, 400, "a 20 kB body reaches the realm (which refuses the unknown field), not the page's 16 KiB limit");
    // The page's guards hold on the realm's routes too: another Host is refused (403),
    // and replies carry the page's headers.
    let addr = pg.base.trim_start_matches("http://").to_string();
    let mut sock = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        sock,
        "GET /realm/world HTTP/1.1\r\nHost: evil.example\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
        r.alice
    )
    .unwrap();
    let mut text = String::new();
    sock.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 403"), "{text}");
    assert!(!text.contains("\"player\""), "{text}");
    let mut sock = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        sock,
        "GET /realm/world HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {}\r\nConnection: close\r\n\r\n",
        r.alice
    )
    .unwrap();
    let mut text = String::new();
    sock.read_to_string(&mut text).unwrap();
    let head = text.split("\r\n\r\n").next().unwrap().to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("cache-control: no-store") && head.contains("content-security-policy:"), "{head}");
    let huge = format!("{{\"orders\": [], \"pad\": \"{}\"}}", "x".repeat(1 << 20));
    let through = pg.raw("PUT", "/realm/orders", Some(&format!("Bearer {}", r.alice)), Some(&huge));
    assert_eq!(through, rs.raw("PUT", "/orders", Some(&format!("Bearer {}", r.alice)), Some(&huge)));
    assert_eq!(through.0, 413);
}

#[test]
fn a_wrong_or_missing_token_is_401_on_every_realm_route_of_the_page() {
    let r = realm();
    let pg = playground(&r.db);
    let wrong = format!("alice:{}", "0".repeat(64));
    let routes: [(&str, &str, Option<Value>); 5] = [
        ("GET", "/realm/world", None),
        ("GET", "/realm/orders", None),
        ("PUT", "/realm/orders", Some(json!({ "orders": [] }))),
        ("GET", "/realm/rounds/0", None),
        ("POST", "/api/realm/targets", Some(json!({ "from": [2, 1] }))),
    ];
    for (method, path, body) in routes {
        let (s, v) = pg.call(method, path, None, body.clone());
        assert_eq!((s, v["error"].as_str().unwrap()), (401, "missing `Authorization: Bearer <token>`"), "{path}");
        let (s, v) = pg.call(method, path, Some(&wrong), body.clone());
        assert_eq!((s, v["error"].as_str().unwrap()), (401, "unknown player or wrong token"), "{path}");
    }
    // The token is checked before the body: a stranger learns nothing of it.
    let (s, _) = pg.call("POST", "/api/realm/targets", Some(&wrong), Some(json!({ "nonsense": true })));
    assert_eq!(s, 401);
    let (s, v) = pg.call("POST", "/api/realm/targets", Some(&r.alice), Some(json!({ "nonsense": true })));
    assert_eq!(s, 400, "{v}");
    // Nothing was stored by the refused calls.
    let (_, v) = pg.call("GET", "/realm/orders", Some(&r.alice), None);
    assert_eq!(v["orders"], Value::Null);
}

#[test]
fn another_players_orders_and_vault_are_never_in_the_view() {
    let r = realm();
    let pg = playground(&r.db);
    // bob's knight [-3, 1] leaps away to [-1, 2] (micro-step 1); alice's queen [-3, -2]
    // slides up the file to bob's king [-3, 2], through the square the knight left, and
    // takes it at its 4th field (micro-step 5): board [-1, 0] is hers, and bob's rook,
    // bishop, queen and the knight still on that board go to her vault.
    let (s, _) = pg.call("PUT", "/realm/orders", Some(&r.bob), Some(json!({ "orders": [mv([-3, 1], [-1, 2])] })));
    assert_eq!(s, 200);
    let (s, _) = pg.call("PUT", "/realm/orders", Some(&r.alice), Some(json!({ "orders": [mv([-3, -2], [-3, 2])] })));
    assert_eq!(s, 200);
    let (_, a) = pg.call("GET", "/realm/world", Some(&r.alice), None);
    let (_, b) = pg.call("GET", "/realm/world", Some(&r.bob), None);
    assert_eq!(a["orders"], json!([mv([-3, -2], [-3, 2])]));
    assert_eq!(b["orders"], json!([mv([-3, 1], [-1, 2])]), "bob sees his own orders only");
    assert!(!b.to_string().contains("[-3,-2]"), "alice's order is nowhere in bob's view: {b}");
    // The targets route judges with the service: bob cannot even ask about alice's piece.
    let (s, v) = pg.call("POST", "/api/realm/targets", Some(&r.bob), Some(json!({ "from": [-3, -2] })));
    assert_eq!((s, v["error"].as_str().unwrap()), (422, "the piece on [-3, -2] is not yours (it is alice's)"));
    // The deadline passes on the manual clock: the round resolves before the reply.
    let (s, _) = pg.call("POST", "/api/clock/wait", None, Some(json!({ "ms": (DEADLINE - T0) * 1000 })));
    assert_eq!(s, 200);
    let (_, a) = pg.call("GET", "/realm/world", Some(&r.alice), None);
    let (_, b) = pg.call("GET", "/realm/world", Some(&r.bob), None);
    assert_eq!((a["round"].as_u64(), a["now"].as_i64()), (Some(1), Some(DEADLINE)));
    assert_eq!(a["vault"], json!({ "B": 1, "N": 1, "Q": 1, "R": 1 }));
    let empty = json!({ "B": 0, "N": 0, "Q": 0, "R": 0 });
    assert_eq!(b["vault"], empty, "bob's own vault: empty (his king is destroyed, the rest are alice's)");
    assert_eq!(a["world"]["vaults"], json!({}), "the world's vaults are never shown, one's own is `vault`");
    assert_eq!(b["world"]["vaults"], json!({}));
    assert!(!b.to_string().contains("\"Q\":1"), "alice's vault is nowhere in bob's view: {b}");
    let owner = |v: &Value, board: [i32; 2]| {
        v["world"]["boards"].as_array().unwrap().iter().find(|x| x["board"] == json!(board)).unwrap()["owner"].clone()
    };
    assert_eq!(owner(&a, [-1, 0]), "alice");
    assert_eq!(a["world"]["pending_kings"], json!([{ "board": [-1, 0], "player": "alice" }]));
    // The round's record: orders public now, vaults one's own.
    let (_, ra) = pg.call("GET", "/realm/rounds/0", Some(&r.alice), None);
    let (_, rb) = pg.call("GET", "/realm/rounds/0", Some(&r.bob), None);
    assert_eq!(ra["vault_after"], json!({ "B": 1, "N": 1, "Q": 1, "R": 1 }));
    assert_eq!(rb["vault_after"], empty);
    assert_eq!(ra["events"], rb["events"]);
    let kinds: Vec<String> = ra["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} {} {}", e["phase"].as_str().unwrap(), e["microstep"], e["type"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [
            "leaps 1 moved",
            "slides 5 removed",
            "slides 5 moved",
            "slides 5 conquered",
            "slides 5 removed",
            "slides 5 removed",
            "slides 5 removed",
            "slides 5 removed",
            "slides 5 king_pending"
        ]
    );
    // The new round's orders start empty for both.
    assert_eq!((a["orders"].clone(), b["orders"].clone()), (Value::Null, Value::Null));
}

#[test]
fn a_pieces_targets_are_its_movement_judged_by_the_service() {
    let r = realm();
    let pg = playground(&r.db);
    let ok = |x: i64, y: i64| (x, y, true, "accepted".to_string());
    // alice's knight [2, 1]: its eight leaps, none onto her own pieces (R [1, 2], K [2, 2],
    // B [3, 2], Q [2, 3]); [1, -1] and [3, -1] are on her board [0, -1]. In (y, x) order.
    assert_eq!(
        pg.targets(&r.alice, [2, 1], json!([])),
        [ok(1, -1), ok(3, -1), ok(0, 0), ok(4, 0), ok(0, 2), ok(4, 2), ok(1, 3), ok(3, 3)]
    );
    // alice's rook [1, 2]: right, her king [2, 2] blocks at once; left along rank 2 into
    // bob's board [-1, 0] (enemy pieces do not block an order): [0, 2], [-1, 2], bob's
    // bishop [-2, 2] (guarded by his queen [-3, 3]: refused), his king [-3, 2] (kings
    // are never guarded), his rook [-4, 2] (guarded by the same queen), [-5, 2]; then
    // [-6, 2] would be a second board beside its own. Up: [1, 3], [1, 4], then board
    // [0, 1] to [1, 9]. Down: [1, 1], [1, 0], board [0, -1]'s [1, -1] and [1, -2], then
    // her own rook [1, -3] blocks.
    let guarded = |x: i64, y: i64, kind: &str| {
        (x, y, false, format!("the {kind} on [{x}, {y}] is guarded by bob's queen on [-3, 3]"))
    };
    assert_eq!(
        pg.targets(&r.alice, [1, 2], json!([])),
        [
            ok(1, -2),
            ok(1, -1),
            ok(1, 0),
            ok(1, 1),
            ok(-5, 2),
            guarded(-4, 2, "rook"),
            ok(-3, 2),
            guarded(-2, 2, "bishop"),
            ok(-1, 2),
            ok(0, 2),
            ok(1, 3),
            ok(1, 4),
            ok(1, 5),
            ok(1, 6),
            ok(1, 7),
            ok(1, 8),
            ok(1, 9)
        ]
    );
    // The orders the page would send with it count: a knight of board [0, -1] already
    // going to [1, -2] makes that square a second order's destination (A-CA8).
    let with = pg.targets(&r.alice, [1, 2], json!([mv([2, -4], [1, -2])]));
    assert_eq!(with[0], (1, -2, false, "another of your orders already goes to [1, -2]".to_string()));
    assert_eq!(with[1..], pg.targets(&r.alice, [1, 2], json!([]))[1..]);
    // Another order of the same board uses its one action: every target is refused, the
    // guarded ones still for their guard (judged first), the others for the board.
    let alone = pg.targets(&r.alice, [1, 2], json!([]));
    let used: Vec<_> = alone
        .iter()
        .map(|(x, y, ok, why)| {
            (*x, *y, false, if *ok { "board [0, 0] already has its order this round".to_string() } else { why.clone() })
        })
        .collect();
    assert_eq!(pg.targets(&r.alice, [1, 2], json!([mv([2, 1], [0, 0])])), used);
    // Nothing was stored by asking.
    let (_, v) = pg.call("GET", "/realm/orders", Some(&r.alice), None);
    assert_eq!(v["orders"], Value::Null);
    // Bad requests: no piece, outside the world, malformed.
    let (s, v) = pg.call("POST", "/api/realm/targets", Some(&r.alice), Some(json!({ "from": [0, 0] })));
    assert_eq!((s, v["error"].as_str().unwrap()), (422, "there is no piece on [0, 0]"));
    let (s, _) = pg.call("POST", "/api/realm/targets", Some(&r.alice), Some(json!({ "from": [1 << 30, 0] })));
    assert_eq!(s, 400);
    let (s, _) = pg.call("POST", "/api/realm/targets", Some(&r.alice), Some(json!({ "from": "b2" })));
    assert_eq!(s, 400);
}

#[test]
fn the_page_learns_the_realm_and_a_server_without_one_says_so() {
    let r = realm();
    let pg = playground(&r.db);
    let (s, v) = pg.call("GET", "/api/realm", None, None);
    assert_eq!(s, 200);
    assert_eq!(
        (
            &v["open"],
            &v["name"],
            &v["variant"],
            &v["round_hours"],
            &v["tile"],
            &v["actions_per_board"],
            &v["vault_cap"]
        ),
        (&json!(true), &json!("Testland"), &json!("caissan"), &json!(6), &json!([5, 5]), &json!(1), &json!(50))
    );
    let letters: Vec<(&str, bool, bool)> = v["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["letter"].as_str().unwrap(), k["royal"].as_bool().unwrap(), k["bound"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        letters,
        [("K", true, true), ("Q", false, false), ("R", false, false), ("B", false, false), ("N", false, false)]
    );
    // A server started without --realm.
    let catalog = Catalog::load(&[Source::Named("standard".into())]).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        varia_playground::serve(catalog, "127.0.0.1:0".parse().unwrap(), move |a: SocketAddr| tx.send(a).unwrap())
    });
    let addr = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    let plain = Server { base: format!("http://{addr}"), agent: agent() };
    assert_eq!(plain.call("GET", "/api/realm", None, None), (200, json!({ "open": false })));
    let (s, v) = plain.call("GET", "/realm/world", Some(&r.alice), None);
    assert_eq!(s, 404);
    assert!(v["error"].as_str().unwrap().starts_with("no realm is open on this server"), "{v}");
    let (s, _) = plain.call("POST", "/api/realm/targets", Some(&r.alice), Some(json!({ "from": [2, 1] })));
    assert_eq!(s, 404);
}

#[test]
fn the_manual_clock_resolves_the_round_only_once_the_deadline_is_reached() {
    let r = realm();
    let pg = playground(&r.db);
    let (_, v) = pg.call("GET", "/realm/world", Some(&r.alice), None);
    assert_eq!((v["round"].as_u64(), v["now"].as_i64(), v["deadline"].as_i64()), (Some(0), Some(T0), Some(DEADLINE)));
    // One second short of the deadline: still open (and orders still taken).
    pg.call("POST", "/api/clock/wait", None, Some(json!({ "ms": (DEADLINE - T0 - 1) * 1000 })));
    let (_, v) = pg.call("GET", "/realm/world", Some(&r.alice), None);
    assert_eq!((v["round"].as_u64(), v["now"].as_i64()), (Some(0), Some(DEADLINE - 1)));
    let (s, _) = pg.call("PUT", "/realm/orders", Some(&r.alice), Some(json!({ "orders": [mv([2, 1], [0, 0])] })));
    assert_eq!(s, 200);
    // The last second: resolved before the clock's reply; the next deadline 6 h on.
    pg.call("POST", "/api/clock/wait", None, Some(json!({ "ms": 1000 })));
    let (_, v) = pg.call("GET", "/realm/world", Some(&r.alice), None);
    assert_eq!((v["round"].as_u64(), v["deadline"].as_i64()), (Some(1), Some(DEADLINE + 6 * 3600)));
    let (_, rec) = pg.call("GET", "/realm/rounds/0", Some(&r.alice), None);
    assert_eq!(rec["resolved_at"].as_i64(), Some(DEADLINE));
    assert_eq!(rec["orders"]["alice"], json!([mv([2, 1], [0, 0])]));
    let (s, _) = pg.call("GET", "/realm/rounds/1", Some(&r.alice), None);
    assert_eq!(s, 404, "round 1 is open, not resolved");
}
