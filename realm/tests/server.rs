//! The HTTP API over real sockets (a server on 127.0.0.1, port 0; ureq as the client):
//! one test per visibility or permission rule, and hostile requests that must get a
//! JSON 4xx and leave the server up. Positions as in tests/service.rs: alice holds
//! [0,0] [-1,-1] [0,-1], bob [1,-1] [-1,0] [1,0].

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use varia_realm::{ManualClock, Service, SqliteStore};

struct Server {
    base: String,
    addr: SocketAddr,
    clock: ManualClock,
    db: PathBuf,
    agent: ureq::Agent,
}

fn start(name: &str) -> Server {
    start_with(name, config(6, 1))
}

fn start_with(name: &str, cfg: varia_realm::RealmConfig) -> Server {
    let dir = scratch(name);
    let db = dir.join("realm.db");
    let clock = ManualClock::new(T0);
    let svc = Service::create(Box::new(SqliteStore::open(&db, true).unwrap()), &cfg, Arc::new(clock.clone())).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        varia_realm::server::serve(svc, "127.0.0.1:0".parse().unwrap(), None, move |a| tx.send(a).unwrap())
    });
    let addr = rx.recv_timeout(Duration::from_secs(60)).expect("the server binds");
    assert!(addr.ip().is_loopback());
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    Server { base: format!("http://{addr}"), addr, clock, db, agent }
}

impl Server {
    fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<&str>) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        let auth = token.map(|t| format!("Bearer {t}"));
        let mut r = match (method, body) {
            ("GET", _) => {
                let mut q = self.agent.get(&url);
                if let Some(a) = &auth {
                    q = q.header("Authorization", a);
                }
                q.call()
            }
            (m, b) => {
                let mut q = match m {
                    "POST" => self.agent.post(&url),
                    "PUT" => self.agent.put(&url),
                    _ => self.agent.delete(&url).force_send_body(),
                };
                if let Some(a) = &auth {
                    q = q.header("Authorization", a);
                }
                q.header("Content-Type", "application/json").send(b.unwrap_or(""))
            }
        }
        .expect("an HTTP reply");
        let status = r.status().as_u16();
        let text = r.body_mut().read_to_string().unwrap();
        let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON: {text:?}"));
        (status, v)
    }
    fn get(&self, path: &str, token: &str) -> (u16, Value) {
        self.call("GET", path, Some(token), None)
    }
    fn send(&self, method: &str, path: &str, token: &str, body: Value) -> (u16, Value) {
        self.call(method, path, Some(token), Some(&body.to_string()))
    }
    fn join(&self, player: &str) -> String {
        let (s, v) = self.call("POST", "/join", None, Some(&json!({ "player": player }).to_string()));
        assert_eq!(s, 201, "{v}");
        v["token"].as_str().unwrap().to_string()
    }
    /// Edits the stored world directly, as an operator would (test setup only).
    fn edit_world(&self, f: impl FnOnce(&mut Value)) {
        let db = rusqlite::Connection::open(&self.db).unwrap();
        let text: String = db.query_row("SELECT state FROM world WHERE id = 1", [], |r| r.get(0)).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        f(&mut v);
        db.execute("UPDATE world SET state = ?1 WHERE id = 1", [v.to_string()]).unwrap();
    }
}

const ROUTES: &[(&str, &str)] = &[
    ("GET", "/world"),
    ("GET", "/orders"),
    ("PUT", "/orders"),
    ("GET", "/rounds/0"),
    ("GET", "/chat/world"),
    ("POST", "/chat/world"),
    ("GET", "/chat/sector:0,0"),
    ("GET", "/chat/city:Caissa"),
    ("GET", "/cities"),
];

#[test]
fn every_route_but_join_needs_a_token() {
    let s = start("no-token");
    s.join("alice");
    for &(m, p) in ROUTES {
        let (status, v) = s.call(m, p, None, Some("{}"));
        assert_eq!(status, 401, "{m} {p}: {v}");
        assert_eq!(v["error"], "missing `Authorization: Bearer <token>`", "{m} {p}");
    }
}

#[test]
fn a_wrong_token_or_another_players_secret_gets_401() {
    let s = start("bad-token");
    let a = s.join("alice");
    let b = s.join("bob");
    let borrowed = format!("alice:{}", b.split(':').nth(1).unwrap());
    for t in ["alice:0000", borrowed.as_str(), "nobody:x", &a[..a.len() - 1]] {
        for &(m, p) in ROUTES {
            let (status, v) = s.call(m, p, Some(t), Some(r#"{"orders": []}"#));
            assert_eq!(status, 401, "{m} {p} with {t}: {v}");
            assert_eq!(v["error"], "unknown player or wrong token");
        }
    }
    assert_eq!(s.get("/world", &a).0, 200);
}

#[test]
fn others_orders_are_hidden_until_the_round_is_resolved() {
    let s = start("hidden-orders");
    let a = s.join("alice");
    let b = s.join("bob");
    let bobs = json!([{ "type": "move", "from": [6, 2], "to": [5, 2] }]);
    let (st, v) = s.send("PUT", "/orders", &b, json!({ "orders": bobs }));
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["verdicts"][0]["accepted"], true);
    let (_, w) = s.get("/world", &a);
    assert_eq!(w["orders"], Value::Null, "alice sees no orders of hers, and none of bob's");
    assert!(!w.to_string().contains("[5,2]"), "bob's destination appears in alice's view: {w}");
    assert_eq!(s.get("/orders", &a).1["orders"], Value::Null);
    assert_eq!(s.get("/orders", &b).1["orders"], bobs, "bob sees his own");
    let (st, v) = s.get("/rounds/0", &a);
    assert_eq!((st, v["error"].as_str()), (404, Some("round 0 has not been resolved")));
    s.clock.set(FIRST_DEADLINE_6H);
    // The server was started without a tick: resolve as `varia realm advance` would.
    let mut svc = Service::open(Box::new(SqliteStore::open(&s.db, false).unwrap()), Arc::new(s.clock.clone())).unwrap();
    assert_eq!(svc.advance(false).unwrap().len(), 1);
    let (st, r) = s.get("/rounds/0", &a);
    assert_eq!(st, 200, "{r}");
    assert_eq!(r["orders"]["bob"], bobs, "resolved: bob's orders are public");
    assert_eq!(r["validation"]["bob"]["results"][0]["accepted"], true);
}

#[test]
fn a_vault_is_seen_only_by_its_owner() {
    let s = start("vault");
    let a = s.join("alice");
    let b = s.join("bob");
    s.edit_world(|w| w["vaults"]["alice"]["Q"] = json!(3));
    let (_, wa) = s.get("/world", &a);
    assert_eq!(wa["vault"]["Q"], 3);
    assert_eq!(wa["world"]["vaults"], json!({}), "no vault inside the shared world");
    let (_, wb) = s.get("/world", &b);
    assert_eq!(wb["vault"]["Q"], 0, "bob's own vault");
    assert_eq!(wb["world"]["vaults"], json!({}));
    assert!(!wb.to_string().contains("\"alice\":{"), "alice's vault leaks to bob: {wb}");
    // After a round, each sees only their own vault in the round's result.
    s.clock.set(FIRST_DEADLINE_6H);
    let mut svc = Service::open(Box::new(SqliteStore::open(&s.db, false).unwrap()), Arc::new(s.clock.clone())).unwrap();
    svc.advance(false).unwrap();
    assert_eq!(s.get("/rounds/0", &a).1["vault_after"]["Q"], 3);
    assert_eq!(s.get("/rounds/0", &b).1["vault_after"]["Q"], 0);
}

#[test]
fn a_player_orders_only_their_own_pieces_and_never_in_anothers_name() {
    let s = start("act-for");
    let a = s.join("alice");
    let b = s.join("bob");
    let (st, v) = s.send("PUT", "/orders", &a, json!({ "orders": [{ "type": "move", "from": [7, 2], "to": [7, 1] }] }));
    assert_eq!(st, 422, "{v}");
    assert_eq!(v["verdicts"][0]["reason"], "the piece on [7, 2] is not yours (it is bob's)");
    assert_eq!(v["error"], "1 of 1 orders refused; nothing was stored");
    let (st, v) = s.send("PUT", "/orders", &a, json!({ "player": "bob", "orders": [] }));
    assert_eq!(st, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("unknown field `player`"), "{v}");
    assert_eq!(s.get("/orders", &b).1["orders"], Value::Null, "nothing stored for bob");
    assert_eq!(s.get("/orders", &a).1["orders"], Value::Null, "nothing stored for alice");
}

#[test]
fn orders_after_the_deadline_get_409_and_a_stale_round_409() {
    let s = start("deadline");
    let a = s.join("alice");
    let (st, v) = s.send("PUT", "/orders", &a, json!({ "orders": [], "round": 2 }));
    assert_eq!((st, v["error"].as_str()), (409, Some("these orders are for round 2, but round 0 is open")));
    s.clock.set(FIRST_DEADLINE_6H);
    let (st, v) = s.send("PUT", "/orders", &a, json!({ "orders": [] }));
    assert_eq!(st, 409, "{v}");
    assert_eq!(v["error"], "round 0's deadline (1015200) has passed; its orders are closed until it is resolved");
}

#[test]
fn a_join_gets_a_token_once_and_a_taken_or_bad_name_is_refused() {
    let s = start("join");
    let (st, v) = s.call("POST", "/join", None, Some(r#"{"player": "alice"}"#));
    assert_eq!(st, 201);
    assert_eq!(v["boards"], json!([[0, 0], [-1, -1], [0, -1]]));
    assert!(v["token"].as_str().unwrap().starts_with("alice:"));
    let (st, v) = s.call("POST", "/join", None, Some(r#"{"player": "alice"}"#));
    assert_eq!((st, v["error"].as_str()), (409, Some("`alice` is already a player of this realm")));
    let (st, _) = s.call("POST", "/join", None, Some(r#"{"player": "a b"}"#));
    assert_eq!(st, 400);
}

#[test]
fn hostile_requests_get_a_json_4xx_and_the_server_stays_up() {
    let s = start("hostile");
    let a = s.join("alice");
    let cases: &[(&str, &str, &str, u16)] = &[
        ("PUT", "/orders", "{not json", 400),
        ("PUT", "/orders", "[1, 2]", 400),
        ("PUT", "/orders", r#"{"orders": "all"}"#, 400),
        ("PUT", "/orders", "", 400),
        ("POST", "/chat/world", r#"{"text": 5}"#, 400),
        ("POST", "/chat/sector", r#"{"text": "hi"}"#, 400),
        ("GET", "/nowhere", "", 404),
        ("GET", "/rounds/minus-one", "", 400),
        ("DELETE", "/world", "", 405),
    ];
    for &(m, p, body, want) in cases {
        let (st, v) = s.call(m, p, Some(&a), Some(body));
        assert_eq!(st, want, "{m} {p} {body:?}: {v}");
        assert_eq!(v["status"], want);
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    }
    // A body over the limit, on a raw socket.
    let body = vec![b' '; varia_realm::server::MAX_BODY + 10];
    let mut sock = TcpStream::connect(s.addr).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "PUT /orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {a}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    sock.write_all(head.as_bytes()).unwrap();
    let _ = sock.write_all(&body);
    let mut reply = String::new();
    let _ = sock.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");
    assert!(reply.contains(&format!("the request body is over {} bytes", varia_realm::server::MAX_BODY)), "{reply}");
    // Garbage that is not HTTP at all.
    let mut sock = TcpStream::connect(s.addr).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    sock.write_all(b"\x00\x01\x02 hello\r\n\r\n").unwrap();
    let mut reply = Vec::new();
    let _ = sock.read_to_end(&mut reply);
    assert!(reply.starts_with(b"HTTP/1.1 400") || reply.is_empty(), "{}", String::from_utf8_lossy(&reply));
    assert_eq!(s.get("/world", &a).0, 200, "still serving");
}

#[test]
fn world_chat_one_post_per_five_seconds_per_player() {
    let s = start("chat-pause");
    let a = s.join("alice");
    let (st, v) = s.send("POST", "/chat/world", &a, json!({ "text": "hello" }));
    assert_eq!((st, v["seq"].as_i64()), (201, Some(1)), "{v}");
    s.clock.advance(4);
    let (st, v) = s.send("POST", "/chat/world", &a, json!({ "text": "again" }));
    assert_eq!(st, 429, "{v}");
    assert_eq!(v["retry_after"], 1);
    assert_eq!(v["error"], "one post every 5 seconds: wait 1 more");
    s.clock.advance(1);
    assert_eq!(s.send("POST", "/chat/world", &a, json!({ "text": "again" })).0, 201);
    let (_, log) = s.get("/chat/world", &a);
    let lines: Vec<&str> = log["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert_eq!(lines, vec!["hello", "again"]);
    assert_eq!(log["lines"][1]["at"], T0 + 5);
    assert_eq!(s.send("POST", "/chat/world", &a, json!({ "text": "   " })).0, 400);
    assert_eq!(s.send("POST", "/chat/world", &a, json!({ "text": "x".repeat(501) })).0, 400);
}

#[test]
fn world_chat_keeps_the_newest_100_lines() {
    let s = start("chat-cap");
    let a = s.join("alice");
    for i in 1..=105 {
        let (st, v) = s.send("POST", "/chat/world", &a, json!({ "text": format!("line {i}") }));
        assert_eq!(st, 201, "{v}");
        s.clock.advance(5);
    }
    let (_, log) = s.get("/chat/world", &a);
    let lines = log["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 100);
    assert_eq!(lines[0]["text"], "line 6");
    assert_eq!(lines[0]["seq"], 6);
    assert_eq!(lines[99]["text"], "line 105");
}

#[test]
fn world_chat_is_read_by_all_and_written_by_the_top_20_real_players() {
    let s = start("chat-top");
    let tokens: Vec<String> = (1..=21).map(|i| s.join(&format!("p{i:02}"))).collect();
    // Everyone holds 3 boards and 15 pieces: join order decides (A-CA14), so p21 is
    // 21st. Give p21 one of p01's boards (with its pieces): p21 climbs to first with
    // 4 boards, p02…p20 follow, and p01, down to 2 boards, is 21st.
    s.edit_world(|w| {
        for b in w["boards"].as_array_mut().unwrap() {
            if b["board"] == json!([0, 0]) {
                b["owner"] = json!("p21");
            }
        }
        for p in w["pieces"].as_array_mut().unwrap() {
            if p["x"].as_i64().unwrap().div_euclid(5) == 0 && p["y"].as_i64().unwrap().div_euclid(5) == 0 {
                p["owner"] = json!("p21");
            }
        }
    });
    let (st, log) = s.get("/chat/world", &tokens[0]);
    assert_eq!(st, 200);
    let top = log["top"].as_array().unwrap();
    assert_eq!(top.len(), 20);
    // p21 joined 21st: boards 60–62 in ring order, the 12th–14th of ring 4 ((y, x)
    // order: nine of y = -4, then the ends of each row): [-4,-2] [4,-2] [-4,-1], and now
    // [0, 0]: sectors (10 boards a side) (-1,-1), (0,-1) and (0,0).
    assert_eq!(top[0], json!({ "player": "p21", "boards": 4, "pieces": 20, "sectors": 3, "cities": 0, "bot": false }));
    assert_eq!(top[1]["player"], "p02");
    assert_eq!(top[19]["player"], "p20");
    assert_eq!(log["may_write"], false, "p01 is 21st");
    let (st, v) = s.send("POST", "/chat/world", &tokens[0], json!({ "text": "let me in" }));
    assert_eq!(st, 403, "{v}");
    assert_eq!(v["error"], "only the top 20 players of the realm (by boards, then pieces) write here");
    assert_eq!(s.send("POST", "/chat/world", &tokens[20], json!({ "text": "first" })).0, 201);
    assert_eq!(s.send("POST", "/chat/world", &tokens[19], json!({ "text": "p20, 20th" })).0, 201);
    // p01 still reads it.
    let (_, log) = s.get("/chat/world", &tokens[0]);
    let lines: Vec<&str> = log["lines"].as_array().unwrap().iter().map(|l| l["text"].as_str().unwrap()).collect();
    assert_eq!(lines, vec!["first", "p20, 20th"]);
}

#[test]
fn a_sector_log_is_read_and_written_only_with_a_piece_in_the_sector() {
    // CA-24, A-CA15. Sectors are 10 boards a side: alice's boards [0,0] [-1,-1] [0,-1]
    // lie in sectors (0,0), (-1,-1) and (0,-1); bob's [1,-1] [-1,0] [1,0] in (0,-1),
    // (-1,0) and (0,0).
    let s = start("chat-sector");
    let a = s.join("alice");
    let b = s.join("bob");
    assert_eq!(s.send("POST", "/chat/sector:0,-1", &a, json!({ "text": "hello neighbour" })).0, 201);
    let (st, log) = s.get("/chat/sector:0,-1", &b);
    assert_eq!(st, 200, "{log}");
    assert_eq!(log["channel"], "sector:0,-1");
    assert_eq!(log["lines"][0]["text"], "hello neighbour");
    assert_eq!(log["may_write"], true);
    // The card counts what lies in the sector: alice board [0,-1], bob [1,-1], five
    // pieces each; join order breaks the tie.
    assert_eq!(
        log["top"][0],
        json!({ "player": "alice", "boards": 1, "pieces": 5, "sectors": 1, "cities": 0, "bot": false })
    );
    assert_eq!(log["top"][1]["player"], "bob");
    // Bob has nothing in (-1,-1), alice nothing in (-1,0), nobody anything in (5,5).
    for (token, sector) in [(&b, "-1,-1"), (&a, "-1,0"), (&a, "5,5")] {
        let (st, v) = s.get(&format!("/chat/sector:{sector}"), token);
        assert_eq!(st, 403, "{sector}: {v}");
        assert_eq!(v["error"], "a sector's log is read and written only while you have a piece standing in the sector");
        let (st, _) = s.send("POST", &format!("/chat/sector:{sector}"), token, json!({ "text": "let me in" }));
        assert_eq!(st, 403, "{sector}");
    }
    // The right follows the pieces: bob's knight of [1,-1] (corner (5,-5), +(2,1)) put on
    // the free corner square (-5,-5) of alice's board [-1,-1] lets him into (-1,-1).
    s.edit_world(|w| {
        for p in w["pieces"].as_array_mut().unwrap() {
            if p["owner"] == "bob" && p["x"] == 7 && p["y"] == -4 {
                assert_eq!(p["kind"], "N");
                (p["x"], p["y"]) = (json!(-5), json!(-5));
            }
        }
    });
    assert_eq!(s.get("/chat/sector:-1,-1", &b).0, 200);
    // The world's pause holds across logs (one post per 5 s per player).
    let (st, v) = s.send("POST", "/chat/world", &a, json!({ "text": "too soon" }));
    assert_eq!(st, 429, "{v}");
    for bad in ["sector", "sector:", "sector:1", "sector:a,b", "sector:1,2,3", "sector:99999999999,0"] {
        let (st, v) = s.get(&format!("/chat/{bad}"), &a);
        assert_eq!(st, 400, "{bad}: {v}");
    }
}

fn with_cities() -> varia_realm::RealmConfig {
    let text = "name = \"cities\"\nround_hours = 6\nseed = 1\n\
        [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n\
        [[cities]]\nname = \"Philidor\"\nboards = [[3, -1], [4, 1]]\n\
        [[roads]]\nbetween = [\"Philidor\", \"Caissa\"]\n";
    varia_realm::RealmConfig::parse(text, "realm.toml").unwrap()
}

#[test]
fn the_cities_and_their_roads_are_public() {
    let s = start_with("cities", with_cities());
    let a = s.join("alice");
    let (st, v) = s.get("/cities", &a);
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        v["cities"],
        json!([
            { "id": 1, "name": "Caissa", "boards": [[-1, -1], [1, 1]], "roads": ["Philidor"],
              "mayor": "alice", "motd": null, "motd_at": null },
            { "id": 2, "name": "Philidor", "boards": [[3, -1], [4, 1]], "roads": ["Caissa"],
              "mayor": null, "motd": null, "motd_at": null },
        ])
    );
}

#[test]
fn only_the_mayor_uses_the_crown_and_sees_the_mayor_vault() {
    // CA-21..23 over HTTP: alice holds 3 boards of Caissa and is its mayor; bob ties
    // her 3 boards and 15 pieces, and the incumbent keeps the office (A-CA14).
    let s = start_with("crown", with_cities());
    let (a, b) = (s.join("alice"), s.join("bob"));
    let mut db = SqliteStore::open(&s.db, false).unwrap();
    poke_sql(&mut db, "INSERT INTO mayor_vault (city, kind, count) VALUES (1, 'Q', 3)");
    let reason = "only the mayor of Caissa may use the crown menu and the mayor vault (the mayor is alice: most boards there, then pieces on them)";
    let (st, v) = s.get("/cities/Caissa/crown", &b);
    assert_eq!((st, v["error"].as_str()), (403, Some(reason)), "{v}");
    for (path, body) in [
        ("/cities/Caissa/rename", json!({ "name": "Bobville" })),
        ("/cities/Caissa/motd", json!({ "text": "hi" })),
        ("/cities/Caissa/donate", json!({ "to": "bob", "count": 2 })),
    ] {
        let (st, v) = s.send("POST", path, &b, body.clone());
        assert_eq!((st, v["error"].as_str()), (403, Some(reason)), "{path}: {v}");
        assert_eq!(s.call("POST", path, None, Some(&body.to_string())).0, 401, "{path}");
    }
    let (st, v) = s.get("/cities/Caissa/crown", &a);
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        (v["mayor"].clone(), v["vault"].clone(), v["round"].clone()),
        (json!("alice"), json!({ "Q": 3 }), json!(0))
    );
    let (st, v) = s.send("POST", "/cities/Caissa/donate", &a, json!({ "to": "bob", "count": 2 }));
    assert_eq!((st, v["given_this_round"].clone()), (200, json!(2)), "{v}");
    let (st, v) = s.send("POST", "/cities/Caissa/donate", &a, json!({ "to": "bob", "count": 1 }));
    assert_eq!(st, 422, "{v}");
    assert_eq!(s.get("/world", &b).1["vault"], json!({ "B": 0, "N": 0, "Q": 2, "R": 0 }));
    let (st, v) = s.send("POST", "/cities/Caissa/motd", &a, json!({ "text": "Welcome" }));
    assert_eq!((st, v["motd"].clone()), (200, json!("Welcome")), "{v}");
    let (st, v) = s.send("POST", "/cities/Caissa/motd", &a, json!({ "text": "Again" }));
    assert_eq!(st, 429, "{v}");
    let (st, v) = s.send("POST", "/cities/Caissa/rename", &a, json!({ "name": "New Caissa" }));
    assert_eq!((st, v["name"].clone()), (200, json!("New Caissa")), "{v}");
    let (st, v) = s.get("/cities/New%20Caissa/crown", &a);
    assert_eq!((st, v["city"].clone()), (200, json!("New Caissa")), "{v}");
    assert_eq!(s.get("/cities/Caissa/crown", &a).0, 404);
    let (st, _) = s.send("POST", "/cities/New%20Caissa/rename", &a, json!({ "name": "X", "extra": 1 }));
    assert_eq!(st, 400);
}

#[test]
fn a_transfer_is_the_senders_until_the_round_is_resolved() {
    // CA-20 over HTTP: alice has no vault queens, so the transfer is refused (422);
    // GET /transfers lists one's own.
    let s = start_with("transfer", with_cities());
    let a = s.join("alice");
    let (st, v) = s.send("POST", "/transfers", &a, json!({ "to": "Philidor" }));
    assert_eq!((st, v["error"].as_str()), (422, Some("nobody is present in Philidor: no piece stands there")), "{v}");
    let (st, v) = s.get("/transfers", &a);
    assert_eq!((st, v), (200, json!({ "transfers": [] })));
    assert_eq!(s.call("GET", "/transfers", None, None).0, 401);
}

#[test]
fn a_join_when_every_city_is_full_and_the_ground_is_closed_is_422() {
    // join_ground = false: Caissa's nine boards take alice, bob and carol; Philidor's six
    // dave ([3,-1] [3,0] [3,1]) and erin ([4,-1] [4,0] [4,1]); frank finds no room.
    let mut cfg = with_cities();
    cfg.join_ground = false;
    let s = start_with("join-full", cfg);
    for p in ["alice", "bob", "carol", "dave"] {
        s.join(p);
    }
    let (st, v) = s.call("POST", "/join", None, Some(&json!({ "player": "erin" }).to_string()));
    assert_eq!(
        (st, v["city"].clone(), v["boards"].clone()),
        (201, json!("Philidor"), json!([[4, -1], [4, 0], [4, 1]]))
    );
    let (st, v) = s.call("POST", "/join", None, Some(&json!({ "player": "frank" }).to_string()));
    assert_eq!(st, 422, "{v}");
    assert_eq!(
        v["error"],
        "no room for a new empire: no city has 3 free boards, and this realm places no empire on the open ground \
         outside the cities (join_ground = false)"
    );
}

#[test]
fn a_city_log_is_read_by_all_and_written_by_its_top_20_real_players() {
    // CA-25. Caissa is boards [-1,-1]..[1,1]. alice [0,0] [-1,-1] [0,-1], bob [1,-1]
    // [-1,0] [1,0] and carol [-1,1] [0,1] [1,1] hold ring 1 and the centre, all in
    // Caissa. A join's boards lie in one region, cities first: dave finds Caissa full and
    // takes Philidor's ([3,-1]..[4,1]) first three ring by ring, ring 3's [3,-1] [3,0]
    // [3,1] (before empires were kept in one region he got ring 2's, in no city).
    let s = start_with("chat-city", with_cities());
    let [a, b, c, d] = ["alice", "bob", "carol", "dave"].map(|p| s.join(p));
    let (st, log) = s.get("/chat/city:Caissa", &d);
    assert_eq!(st, 200, "{log}");
    assert_eq!(log["may_write"], false, "dave holds no board in Caissa");
    // The card: boards there, pieces on those boards, and the sectors (10 boards a
    // side) of those boards: carol's [-1,1] is in sector (-1,0), [0,1] and [1,1] in (0,0).
    let top: Vec<Value> = log["top"].as_array().unwrap().clone();
    assert_eq!(
        top,
        vec![
            json!({ "player": "alice", "boards": 3, "pieces": 15, "sectors": 3, "cities": 1, "bot": false }),
            json!({ "player": "bob", "boards": 3, "pieces": 15, "sectors": 3, "cities": 1, "bot": false }),
            json!({ "player": "carol", "boards": 3, "pieces": 15, "sectors": 2, "cities": 1, "bot": false }),
        ]
    );
    let (st, v) = s.send("POST", "/chat/city:Caissa", &d, json!({ "text": "let me in" }));
    assert_eq!(st, 403, "{v}");
    assert_eq!(
        v["error"],
        "only the top 20 players of Caissa (by boards there, then pieces on those boards) write here"
    );
    assert_eq!(s.send("POST", "/chat/city:Caissa", &c, json!({ "text": "welcome to Caissa" })).0, 201);
    let (_, log) = s.get("/chat/city:Caissa", &b);
    assert_eq!(log["lines"][0]["text"], "welcome to Caissa");
    assert_eq!(log["may_write"], true);
    // Philidor: alice reads it but holds no board there, so she does not write; dave
    // does. His [3,-1] is in sector (0,-1), [3,0] and [3,1] in (0,0).
    let (st, log) = s.get("/chat/city:Philidor", &a);
    assert_eq!((st, log["may_write"].clone()), (200, json!(false)), "{log}");
    assert_eq!(
        log["top"],
        json!([{ "player": "dave", "boards": 3, "pieces": 15, "sectors": 2, "cities": 1, "bot": false }])
    );
    assert_eq!(s.send("POST", "/chat/city:Philidor", &a, json!({ "text": "hello?" })).0, 403);
    assert_eq!(s.send("POST", "/chat/city:Philidor", &d, json!({ "text": "hello from Philidor" })).0, 201);
    let (st, v) = s.get("/chat/city:Nowhere", &a);
    assert_eq!((st, v["error"].clone()), (404, json!("no city is called `Nowhere`")));
    // The world card counts cities: each empire lies in one.
    let (_, log) = s.get("/chat/world", &a);
    let dave = log["top"].as_array().unwrap().iter().find(|r| r["player"] == "dave").unwrap().clone();
    assert_eq!(dave["cities"], 1);
    assert_eq!(log["top"][0]["cities"], 1);
}
