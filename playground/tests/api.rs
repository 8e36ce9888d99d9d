//! The JSON API over a real socket (a server on 127.0.0.1, port 0; ureq as the client):
//! games played through it with expected values worked out from the rules, and hostile
//! requests that must get a JSON 4xx and leave the server up.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use varia_playground::{Catalog, Source};

struct Server {
    base: String,
    agent: ureq::Agent,
}

static NEXT: AtomicU32 = AtomicU32::new(0);

/// A fresh scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-playground-{}-{n}", std::process::id())).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A copy of a shipped variant's folder (the repository's scripts/NAME).
fn copy_variant(name: &str) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts").join(name);
    let to = scratch(name);
    for e in std::fs::read_dir(&from).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
    to
}

fn start(sources: Vec<Source>) -> Server {
    let catalog = Catalog::load(&sources).unwrap_or_else(|e| panic!("{e}"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        varia_playground::serve(catalog, "127.0.0.1:0".parse().unwrap(), move |a: SocketAddr| tx.send(a).unwrap())
    });
    let addr = rx.recv_timeout(Duration::from_secs(60)).expect("the server binds");
    assert!(addr.ip().is_loopback());
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    Server { base: format!("http://{addr}"), agent }
}

fn named(names: &[&str]) -> Vec<Source> {
    names.iter().map(|n| Source::Named(n.to_string())).collect()
}

impl Server {
    fn raw(&self, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
        let url = format!("{}{path}", self.base);
        let mut r = match (method, body) {
            ("GET", _) => self.agent.get(&url).call(),
            (_, b) => self.agent.post(&url).header("Content-Type", "application/json").send(b.unwrap_or("")),
        }
        .expect("an HTTP reply");
        let status = r.status().as_u16();
        (status, r.body_mut().read_to_string().unwrap())
    }
    fn call(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let (status, text) = self.raw(method, path, body);
        let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON: {text:?}"));
        (status, v)
    }
    fn get(&self, path: &str) -> (u16, Value) {
        self.call("GET", path, None)
    }
    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call("POST", path, Some(&body.to_string()))
    }
    fn new_game(&self, variant: &str, fen: Option<&str>) -> (String, Value) {
        let body = match fen {
            Some(f) => json!({ "variant": variant, "fen": f }),
            None => json!({ "variant": variant }),
        };
        let (s, v) = self.post("/api/games", body);
        assert_eq!(s, 201, "{v}");
        (v["id"].as_str().unwrap().to_string(), v["state"].clone())
    }
    fn play(&self, id: &str, m: &str) -> Value {
        let (s, v) = self.post(&format!("/api/games/{id}/moves"), json!({ "move": m }));
        assert_eq!(s, 200, "{m}: {v}");
        v
    }
    fn targets(&self, id: &str, from: &str) -> Vec<(String, Vec<String>)> {
        let (s, v) = self.get(&format!("/api/games/{id}/targets?from={from}"));
        assert_eq!(s, 200, "{v}");
        let mut out: Vec<(String, Vec<String>)> = v["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let moves = t["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap().to_string());
                (t["to"].as_str().unwrap().to_string(), moves.collect())
            })
            .collect();
        out.sort();
        out
    }
}

/// The piece on a square of a state: `(side, kind)`, or `None`.
fn piece(state: &Value, sq: &str) -> Option<Value> {
    let s = state["squares"].as_array().unwrap().iter().find(|s| s["name"] == sq).unwrap();
    (!s["piece"].is_null()).then(|| s["piece"].clone())
}

fn side_kind(state: &Value, sq: &str) -> Option<(String, String)> {
    piece(state, sq).map(|p| (p["side"].as_str().unwrap().to_string(), p["kind"].as_str().unwrap().to_string()))
}

fn texts(events: &Value) -> Vec<String> {
    events.as_array().unwrap().iter().map(|e| e["text"].as_str().unwrap().to_string()).collect()
}

fn pair(a: &str, b: &str) -> Option<(String, String)> {
    Some((a.to_string(), b.to_string()))
}

#[test]
fn a_game_is_played_through_the_api_to_mate_and_undone() {
    let s = start(named(&["standard"]));
    let (id, st) = s.new_game("standard", None);
    assert_eq!((st["files"].as_u64(), st["ranks"].as_u64()), (Some(8), Some(8)));
    assert_eq!(st["squares"].as_array().unwrap().len(), 64);
    // Drawn from the top: a8 first, h1 last.
    assert_eq!(st["squares"][0]["name"], "a8");
    assert_eq!(st["squares"][63]["name"], "h1");
    assert_eq!(side_kind(&st, "e2"), pair("white", "pawn"));
    assert_eq!(side_kind(&st, "d8"), pair("black", "queen"));
    assert_eq!(st["to_move"], "white");
    assert_eq!(st["last_move"], Value::Null);
    // Sixteen squares of white's pieces, but only pawns and knights can move at the start.
    let movable: Vec<&str> = st["movable"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
    assert_eq!(movable, ["a2", "b1", "b2", "c2", "d2", "e2", "f2", "g1", "g2", "h2"]);
    assert_eq!(s.targets(&id, "e2"), [("e3".into(), vec!["e2-e3".into()]), ("e4".into(), vec!["e2-e4".into()])]);
    assert_eq!(s.targets(&id, "g1"), [("f3".into(), vec!["g1-f3".into()]), ("h3".into(), vec!["g1-h3".into()])]);
    assert!(s.targets(&id, "e1").is_empty(), "the king is boxed in");

    let r = s.play(&id, "e2-e4");
    assert_eq!(texts(&r["events"]), ["white pawn e2-e4"]);
    assert_eq!(r["state"]["last_move"], json!({ "from": "e2", "to": "e4", "text": "e2-e4" }));
    assert_eq!(r["state"]["to_move"], "black");
    // Scholar's mate, in the notations `varia play` reads (from-to and SAN).
    for m in ["e7-e5", "Bc4", "b8-c6", "d1-h5", "Nf6"] {
        s.play(&id, m);
    }
    let r = s.play(&id, "h5xf7");
    assert_eq!(
        texts(&r["events"]),
        ["white queen h5-f7", "black pawn captured on f7", "game over: white wins by checkmate"]
    );
    let st = &r["state"];
    assert_eq!(st["outcome"]["winner"], "white");
    assert_eq!(st["outcome"]["reason"], "checkmate");
    assert_eq!(st["outcome"]["text"], "white wins by checkmate");
    assert_eq!(st["in_check"], true);
    assert_eq!(st["check_squares"], json!([]), "no check is shown once the game is over");
    assert_eq!(st["san"], json!(["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]));
    assert_eq!(st["movable"], json!([]));
    let (code, v) = s.post(&format!("/api/games/{id}/moves"), json!({ "move": "e8-f7" }));
    assert_eq!(code, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("the game is over"), "{v}");

    let (code, v) = s.post(&format!("/api/games/{id}/undo"), json!({}));
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["undone"], 1);
    let st = &v["state"];
    assert_eq!(st["outcome"], Value::Null);
    assert_eq!(side_kind(st, "f7"), pair("black", "pawn"));
    assert_eq!(side_kind(st, "h5"), pair("white", "queen"));
    assert_eq!(st["ply"], 6);
    // Qh5xf7 is legal again, and with the queen on h5 black is not in check.
    assert_eq!(st["in_check"], false);
    let (code, v) = s.post(&format!("/api/games/{id}/undo"), json!({ "plies": 100 }));
    assert_eq!((code, v["undone"].as_u64()), (200, Some(6)), "undo stops at the start");
    let (code, v) = s.post(&format!("/api/games/{id}/undo"), json!({ "plies": 0 }));
    assert_eq!(code, 400, "{v}");
    // State reads back what the game holds.
    let (code, v) = s.get(&format!("/api/games/{id}"));
    assert_eq!((code, v["ply"].as_u64()), (200, Some(0)));
}

#[test]
fn check_is_shown_on_the_kings_square() {
    let s = start(named(&["standard"]));
    // 1. e4 f5 2. Qh5+: the black king on e8 is in check, along h5-e8.
    let (id, _) = s.new_game("standard", None);
    for m in ["e2-e4", "f7-f5"] {
        s.play(&id, m);
    }
    let st = &s.play(&id, "d1-h5")["state"];
    assert_eq!(st["in_check"], true);
    assert_eq!(st["check_squares"], json!(["e8"]));
    // Only g7-g6 blocks: f7 is on the queen's line and d8, e7, f8 are held by black pieces.
    let mut moves: Vec<String> = s.targets(&id, "g7").into_iter().flat_map(|(_, m)| m).collect();
    moves.sort();
    assert_eq!(moves, ["g7-g6"]);
}

#[test]
fn an_illegal_move_gets_a_422_with_its_reason_and_changes_nothing() {
    let s = start(named(&["standard"]));
    let (id, _) = s.new_game("standard", None);
    let (code, v) = s.post(&format!("/api/games/{id}/moves"), json!({ "move": "e2-e5" }));
    assert_eq!(code, 422, "{v}");
    let e = v["error"].as_str().unwrap();
    assert!(e.starts_with("move `e2-e5`: e2-e5 is illegal"), "{e}");
    let (code, v) = s.post(&format!("/api/games/{id}/moves"), json!({ "move": "e3-e4" }));
    assert_eq!(code, 422);
    assert!(v["error"].as_str().unwrap().contains("there is no piece on e3"), "{v}");
    let (code, v) = s.post(&format!("/api/games/{id}/moves"), json!({ "move": "zz99" }));
    assert_eq!(code, 422, "{v}");
    let (_, st) = s.get(&format!("/api/games/{id}"));
    assert_eq!(st["ply"], 0);
    assert_eq!(side_kind(&st, "e2"), pair("white", "pawn"));
    // Targets of a square that is no square, or off the board.
    let (code, v) = s.get(&format!("/api/games/{id}/targets?from=z9"));
    assert_eq!(code, 400, "{v}");
    assert_eq!(v["error"], "`z9` is not a square of this 8×8 board");
    let (code, _) = s.get(&format!("/api/games/{id}/targets"));
    assert_eq!(code, 400);
    let (code, v) = s.get("/api/games/g999/targets?from=e2");
    assert_eq!(code, 404, "{v}");
}

#[test]
fn oversized_and_malformed_bodies_get_a_4xx_and_the_server_stays_up() {
    let s = start(named(&["standard"]));
    let (id, _) = s.new_game("standard", None);
    let big = json!({ "move": "x".repeat(20_000) }).to_string();
    let (code, v) = s.call("POST", &format!("/api/games/{id}/moves"), Some(&big));
    assert_eq!(code, 413, "{v}");
    assert_eq!(v["error"], "the request body is over 16384 bytes");
    let (code, v) = s.call("POST", "/api/games", Some("{\"variant\": "));
    assert_eq!(code, 400, "{v}");
    assert!(v["error"].as_str().unwrap().starts_with("malformed JSON: "), "{v}");
    let (code, v) = s.call("POST", "/api/games", Some("[1, 2]"));
    assert_eq!(code, 400, "{v}");
    let (code, v) = s.post("/api/games", json!({ "variant": "standard", "rm": "-rf" }));
    assert_eq!(code, 400, "{v}");
    assert!(v["error"].as_str().unwrap().contains("unknown field `rm`"), "{v}");
    let (code, v) = s.post("/api/games", json!({ "variant": "standard", "fen": "8/8/8 w" }));
    assert_eq!(code, 400, "{v}");
    assert!(v["error"].as_str().unwrap().starts_with("bad FEN: "), "{v}");
    let (code, v) = s.call("POST", &format!("/api/games/{id}/moves"), Some("\u{1}\u{2}"));
    assert_eq!(code, 400, "{v}");
    // Unknown routes and methods.
    let (code, v) = s.get("/api/nothing");
    assert_eq!(code, 404, "{v}");
    let (code, v) = s.call("POST", "/api/variants", Some("{}"));
    assert_eq!(code, 405, "{v}");
    let (code, _) = s.raw("GET", "/../../etc/passwd", None);
    assert_eq!(code, 404);
    // Still up, and the game untouched.
    let (code, v) = s.get(&format!("/api/games/{id}"));
    assert_eq!((code, v["ply"].as_u64()), (200, Some(0)));
}

#[test]
fn unknown_and_path_looking_variants_are_refused() {
    let s = start(named(&["standard", "chessic"]));
    for name in ["nosuch", "../../etc", "/etc/passwd", "../scripts/standard", "scripts/standard/variant.toml", ""] {
        let (code, v) = s.post("/api/games", json!({ "variant": name }));
        assert_eq!(code, 404, "{name}: {v}");
        let e = v["error"].as_str().unwrap();
        assert!(e.starts_with("unknown variant `"), "{e}");
        assert!(e.ends_with("this server plays: standard, chessic"), "{e}");
    }
    // A name cut short in the message: the page cannot make the server echo megabytes.
    let (code, v) = s.post("/api/games", json!({ "variant": "a".repeat(1000) }));
    assert_eq!(code, 404);
    assert!(v["error"].as_str().unwrap().len() < 200, "{v}");
    // A served variant of a turn model the page does not play yet.
    let (code, v) = s.post("/api/games", json!({ "variant": "chessic" }));
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"], "`chessic` is a solo variant: the playground plays two sides alternating so far");
    let (_, list) = s.get("/api/variants");
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["standard", "chessic"]);
    assert_eq!(list[1]["playable"], false);
}

#[test]
fn a_server_refuses_a_path_given_as_a_variant_name_at_start() {
    let e = Catalog::load(&named(&["../scripts/standard"])).err().expect("refused");
    assert!(e.to_string().contains("is not a variant name"), "{e}");
    let e = Catalog::load(&named(&["standard", "standard"])).err().expect("refused");
    assert!(e.to_string().starts_with("two variants are named `standard`"), "{e}");
}

#[test]
fn boards_of_every_rectangular_size() {
    let s = start(named(&["decachess", "capablanca", "xiangqi", "minixiangqi"]));
    for (name, files, ranks, corner) in [
        ("decachess", 10, 10, "a10"),
        ("capablanca", 10, 8, "a8"),
        ("xiangqi", 9, 10, "a10"),
        ("minixiangqi", 7, 7, "a7"),
    ] {
        let (_, st) = s.new_game(name, None);
        assert_eq!((st["files"].as_u64(), st["ranks"].as_u64()), (Some(files), Some(ranks)), "{name}");
        assert_eq!(st["squares"].as_array().unwrap().len() as u64, files * ranks, "{name}");
        assert_eq!(st["squares"][0]["name"], corner, "{name}");
    }
}

#[test]
fn a_promotion_offers_every_kind_on_one_target() {
    let s = start(named(&["standard"]));
    let (id, _) = s.new_game("standard", Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1"));
    assert_eq!(
        s.targets(&id, "e7"),
        [("e8".into(), vec!["e7-e8=Q".into(), "e7-e8=R".into(), "e7-e8=B".into(), "e7-e8=N".into()])]
    );
    let (_, v) = s.get(&format!("/api/games/{id}/targets?from=e7"));
    let labels: Vec<&str> =
        v["targets"][0]["moves"].as_array().unwrap().iter().map(|m| m["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["queen", "rook", "bishop", "knight"]);
    let r = s.play(&id, "e7-e8=N");
    assert_eq!(side_kind(&r["state"], "e8"), pair("white", "knight"));
}

#[test]
fn a_chessception_attack_shows_hit_points_and_explains_itself() {
    let s = start(named(&["chessception"]));
    let (id, st) = s.new_game("chessception", None);
    assert_eq!(st["combat"], true);
    // RULES.md §4: pawns 2 HP, the other pieces 4.
    let p = piece(&st, "d2").unwrap();
    assert_eq!((p["hp"].as_u64(), p["max_hp"].as_u64()), (Some(2), Some(2)));
    let p = piece(&st, "g8").unwrap();
    assert_eq!((p["hp"].as_u64(), p["max_hp"].as_u64()), (Some(4), Some(4)));
    for m in ["e2-e4", "g8-f6", "e4-e5", "f6-d5", "c2-c4", "d7-d6"] {
        s.play(&id, m);
    }
    // The c4 pawn attacks the knight on d5: a pawn deals 2 (no knight beside c4 to
    // multiply it, the black king on e8 too far to halve it); the knight has 4 HP, so it
    // survives with 2 and the pawn stays on c4 (no kill, no landing). A knight does not
    // strike back.
    let r = s.play(&id, "c4-d5");
    assert_eq!(texts(&r["events"]), ["black knight on d5 takes 2 (primary): 2 HP left", "white attacker stays on c4"]);
    let d = &r["events"][0]["data"];
    assert_eq!((d["event"].as_str(), d["amount"].as_i64(), d["by"].as_str()), (Some("damaged"), Some(2), Some("c4")));
    let st = &r["state"];
    let p = piece(st, "d5").unwrap();
    assert_eq!((p["kind"].as_str(), p["hp"].as_u64(), p["max_hp"].as_u64()), (Some("knight"), Some(2), Some(4)));
    assert_eq!(side_kind(st, "c4"), pair("white", "pawn"));
    assert_eq!(st["last_move"]["from"], "c4");
    assert_eq!(st["last_move"]["to"], "d5");
    // The same text as `varia replay --events`/`play` will print: the state's events are the last action's.
    assert_eq!(texts(&st["events"]), texts(&r["events"]));
    // Chessception has no check rule: a king may stand attacked.
    assert_eq!(st["check_rule"], false);
}

#[test]
fn scores_appear_where_a_variant_scores() {
    let dir = scratch("scored");
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n").unwrap();
    std::fs::write(
        dir.join("rules.lua"),
        "function score(game, action)\n  if action == \"e2-e4\" then return 3 end\nend\n",
    )
    .unwrap();
    let s = start(vec![Source::Folder(dir), Source::Named("standard".into())]);
    let (id, st) = s.new_game("scored", None);
    assert_eq!(st["scores"], json!({ "white": 0, "black": 0 }));
    let r = s.play(&id, "e2-e4");
    assert_eq!(texts(&r["events"]), ["white pawn e2-e4", "white scores 3 (score)"]);
    assert_eq!(r["state"]["scores"], json!({ "white": 3, "black": 0 }));
    let (_, st) = s.new_game("standard", None);
    assert!(st.get("scores").is_none(), "standard keeps no score");
}

/// Waits (at most 20 s) until the variant's rules version passes `after`; returns the status.
fn wait_for_version(s: &Server, variant: &str, after: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (_, st) = s.get("/api/status");
        if st["variants"][variant]["version"].as_u64().unwrap() > after {
            return st;
        }
        assert!(Instant::now() < deadline, "the server never noticed the change: {st}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_saved_change_reloads_and_a_broken_save_keeps_the_last_good_rules() {
    let dir = copy_variant("chessception");
    let toml = dir.join("variant.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let queen = "[pieces.queen]\nletter = \"Q\"\nvalue = 900\nhp = 4\n";
    assert!(text.contains(queen));
    let s = start(vec![Source::Folder(dir.clone())]);
    let (id, st) = s.new_game("chessception", None);
    assert_eq!(piece(&st, "d8").unwrap()["max_hp"], 4);
    s.play(&id, "e2-e4");

    std::fs::write(&toml, text.replace(queen, &queen.replace("hp = 4", "hp = 12"))).unwrap();
    let status = wait_for_version(&s, "chessception", 0);
    assert_eq!(status["variants"]["chessception"]["problems"], json!([]));
    // The game moved to the new rules, its move replayed.
    let (_, st) = s.get(&format!("/api/games/{id}"));
    assert_eq!(piece(&st, "d8").unwrap()["max_hp"], 12);
    assert_eq!(piece(&st, "d8").unwrap()["hp"], 12);
    assert_eq!(side_kind(&st, "e4"), pair("white", "pawn"));
    assert_eq!(st["rules_version"], 1);

    // A broken save: the problem with its file and line, and the rules of version 1 run on.
    let broken = text.replace(queen, &queen.replace("hp = 4", "hp = \"twelve\""));
    let line = broken.lines().position(|l| l == "hp = \"twelve\"").unwrap() + 1;
    std::fs::write(&toml, &broken).unwrap();
    let status = wait_for_version(&s, "chessception", 1);
    let problems = status["variants"]["chessception"]["problems"].as_array().unwrap().clone();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0]["file"].as_str().unwrap().ends_with("variant.toml"), "{problems:?}");
    assert_eq!(problems[0]["line"], line, "{problems:?}");
    assert!(problems[0]["message"].as_str().unwrap().contains("invalid type"), "{problems:?}");
    let (_, st) = s.get(&format!("/api/games/{id}"));
    assert_eq!(piece(&st, "d8").unwrap()["max_hp"], 12, "the last good rules keep running");
    let (_, st) = s.new_game("chessception", None);
    assert_eq!(piece(&st, "d8").unwrap()["max_hp"], 12, "new games get them too");

    // Fixed again: the problem goes away.
    std::fs::write(&toml, &text).unwrap();
    let status = wait_for_version(&s, "chessception", 2);
    assert_eq!(status["variants"]["chessception"]["problems"], json!([]));
    let (_, st) = s.get(&format!("/api/games/{id}"));
    assert_eq!(piece(&st, "d8").unwrap()["max_hp"], 4);
}

#[test]
fn a_request_for_another_host_name_is_refused() {
    use std::io::{Read, Write};
    let s = start(named(&["standard"]));
    let addr = s.base.strip_prefix("http://").unwrap().to_string();
    let ask = |host: &str| {
        let mut c = std::net::TcpStream::connect(&addr).unwrap();
        write!(c, "GET /api/variants HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
        let mut text = String::new();
        c.read_to_string(&mut text).unwrap();
        text
    };
    // A page elsewhere whose name was rebound to 127.0.0.1 sends its own name.
    let r = ask("evil.example:8080");
    assert!(r.starts_with("HTTP/1.1 403"), "{r}");
    assert!(r.contains("this server answers requests for localhost only (Host: `evil.example:8080`)"), "{r}");
    for host in ["localhost:8080", "127.0.0.1", "[::1]:9", &addr] {
        let r = ask(host);
        assert!(r.starts_with("HTTP/1.1 200"), "{host}: {r}");
    }
}

#[test]
fn the_page_and_its_modules_are_served_from_the_binary() {
    let s = start(named(&["standard"]));
    let (code, html) = s.raw("GET", "/", None);
    assert_eq!(code, 200);
    assert!(html.contains("<script type=\"module\" src=\"/app.js\">"), "{html}");
    for (path, needle) in
        [("/app.js", "import * as api"), ("/board.js", "export function render"), ("/api.js", "/api/games")]
    {
        let (code, body) = s.raw("GET", path, None);
        assert_eq!(code, 200, "{path}");
        assert!(body.contains(needle), "{path}");
    }
}

#[test]
fn the_computer_moves_at_a_level_the_variant_has() {
    let s = start(named(&["standard"]));
    let (_, list) = s.get("/api/variants");
    assert_eq!(list[0]["levels"], json!(["novice", "veteran", "master"]));
    // Mate in one for white (Ra1-a8#): every level that searches 2 plies finds it.
    let (id, _) = s.new_game("standard", Some("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"));
    let (status, r) = s.post(&format!("/api/games/{id}/ai"), json!({"level": "veteran", "seed": 3}));
    assert_eq!(status, 200, "{r}");
    assert_eq!((r["move"].as_str(), r["san"].as_str()), (Some("a1-a8"), Some("Ra8#")), "{r}");
    assert_eq!(r["state"]["outcome"]["winner"], "white", "{r}");
    assert_eq!(texts(&r["events"])[0], "white rook a1-a8");
    // The game is over now: a 422 that says so.
    let (status, r) = s.post(&format!("/api/games/{id}/ai"), json!({}));
    assert_eq!(status, 422, "{r}");
    assert!(r["error"].as_str().unwrap().contains("the game is over"), "{r}");
    // An unknown level is the client's error, with the levels listed; nothing is played.
    let (id, _) = s.new_game("standard", None);
    let (status, r) = s.post(&format!("/api/games/{id}/ai"), json!({"level": "grandmaster"}));
    assert_eq!(status, 400, "{r}");
    assert!(r["error"].as_str().unwrap().contains("the levels are novice, veteran, master"), "{r}");
    assert_eq!(s.get(&format!("/api/games/{id}")).1["ply"], 0);
    let (status, _) = s.post(&format!("/api/games/{id}/ai"), json!({"level": 5}));
    assert_eq!(status, 400);
}

#[test]
fn a_new_game_replays_given_moves_or_is_not_made() {
    let s = start(named(&["standard"]));
    let (status, r) = s.post("/api/games", json!({"variant": "standard", "moves": "e2-e4 e7-e5 Nf3"}));
    assert_eq!(status, 201, "{r}");
    assert_eq!(r["state"]["moves"], json!(["e2-e4", "e7-e5", "g1-f3"]));
    assert_eq!(r["state"]["san"], json!(["e4", "e5", "Nf3"]));
    let (status, r) = s.post("/api/games", json!({"variant": "standard", "moves": "e2-e4 e2-e4"}));
    assert_eq!(status, 422, "{r}");
    let why = r["error"].as_str().unwrap();
    assert!(why.starts_with("the moves do not replay: move 2 (`e2-e4`)"), "{why}");
}
