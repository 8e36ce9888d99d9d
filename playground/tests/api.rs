//! The JSON API over a real socket (a server on 127.0.0.1, port 0; ureq as the client):
//! games played through it with expected values worked out from the rules, and hostile
//! requests that must get a JSON 4xx and leave the server up.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
    start_with(sources, Arc::new(varia_playground::SystemClock::new()))
}

/// A server whose solo boards read a manual clock (moved by POST /api/clock/wait).
fn start_manual(sources: Vec<Source>) -> Server {
    start_with(sources, Arc::new(varia_playground::ManualClock::default()))
}

fn start_with(sources: Vec<Source>, clock: Arc<dyn varia_playground::TimeSource>) -> Server {
    let catalog = Catalog::load(&sources).unwrap_or_else(|e| panic!("{e}"));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let addr = "127.0.0.1:0".parse().unwrap();
        varia_playground::serve_with_clock(catalog, addr, clock, move |a: SocketAddr| tx.send(a).unwrap())
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
fn a_pass_is_the_states_not_a_target_of_the_general() {
    let s = start(named(&["janggi", "standard"]));
    // Janggi's start: white may pass (e2-e2, the general staying put); the general on e2
    // lists its real moves only.
    let (id, st) = s.new_game("janggi", None);
    assert_eq!((st["pass_rule"].clone(), st["pass"].clone()), (json!(true), json!("e2-e2")));
    let targets: Vec<String> = s.targets(&id, "e2").into_iter().map(|(t, _)| t).collect();
    assert!(targets.contains(&"e1".to_string()) && !targets.contains(&"e2".to_string()), "{targets:?}");
    // Black's pass is written on its general's square, e9.
    let st = &s.play(&id, "e2-e2")["state"];
    assert_eq!((st["to_move"].clone(), st["pass"].clone()), (json!("black"), json!("e9-e9")));
    assert_eq!(texts(&st["events"]), ["white passes"]);
    // In check (the black chariot on e1 against the general on e2) there is no pass; the
    // general, which may take it, is still movable.
    let (_, st) = s.new_game("janggi", Some("3k5/9/9/9/9/9/9/9/4K4/4r4 w - - 0 1"));
    assert_eq!((st["pass_rule"].clone(), st["pass"].clone()), (json!(true), Value::Null));
    assert!(st["movable"].as_array().unwrap().contains(&json!("e2")));
    // Chess: no pass rule.
    let (_, st) = s.new_game("standard", None);
    assert_eq!((st["pass_rule"].clone(), st["pass"].clone()), (json!(false), Value::Null));
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
    // A solo variant is not a two-sided game, and a two-sided one is not a solo board.
    let (code, v) = s.post("/api/games", json!({ "variant": "chessic" }));
    assert_eq!(code, 422, "{v}");
    assert_eq!(
        v["error"],
        "`chessic` is a solo variant: POST /api/games plays two sides alternating (solo boards: POST /api/solo)"
    );
    let (code, v) = s.post("/api/solo", json!({ "variant": "standard" }));
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"], "`standard` is not a solo variant (turns.model = \"alternate\"): POST /api/games plays it");
    let (code, v) = s.post("/api/solo", json!({ "variant": "../../etc" }));
    assert_eq!(code, 404, "{v}");
    let (_, list) = s.get("/api/variants");
    let names: Vec<&str> = list.as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["standard", "chessic"]);
    assert_eq!(list[1]["playable"], true);
    assert_eq!(list[1]["turns"], "solo");
    assert_eq!(list[1]["levels"], json!(["apprentice", "journeyman", "artisan", "master"]));
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
fn knight_stacks_and_the_kings_guard_are_in_the_state() {
    let s = start(named(&["chessception"]));
    let (_, st) = s.new_game("chessception", None);
    // CC-11: a knight gives one stack to itself and its 8 neighbours (damage ×2 per
    // stack); the king guards the pieces within one square (half damage). At the start
    // the b1 knight covers a1-c2, the e1 king d1-f2 (as `varia play` lists them).
    let aura = |sq: &str| {
        let p = piece(&st, sq).unwrap();
        (p["stacks"].as_u64().unwrap(), p["multiplier"].as_u64().unwrap(), p["guarded"].as_bool().unwrap())
    };
    assert_eq!(aura("b1"), (1, 2, false));
    assert_eq!(aura("c2"), (1, 2, false));
    assert_eq!(aura("d2"), (0, 1, true));
    assert_eq!(aura("f1"), (1, 2, true), "f1 is beside the king and the g1 knight");
    assert_eq!(aura("d8"), (0, 1, true));
    assert_eq!(aura("a7"), (1, 2, false));
}

#[test]
fn an_attack_that_kills_on_two_squares_offers_its_landing_squares() {
    let s = start(named(&["chessception"]));
    // The queen on a4 strikes the knight on d7 for 4 (all its 4 HP), and its area damage
    // (2) reaches the pawn on e7 (2 HP): both die, so it lands on either, by choice (the
    // choices `varia play` names for this position, cli/tests/cli.rs).
    let (id, _) = s.new_game("chessception", Some("8/3np3/8/8/Q6k/8/8/K7 w - - 0 1"));
    let (st, v) = s.get(&format!("/api/games/{id}/targets?from=a4"));
    assert_eq!(st, 200);
    let d7 = v["targets"].as_array().unwrap().iter().find(|t| t["to"] == "d7").unwrap();
    let moves: Vec<(&str, &str, &str)> = d7["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["move"].as_str().unwrap(), m["label"].as_str().unwrap(), m["landing"].as_str().unwrap()))
        .collect();
    assert_eq!(moves, [("a4-d7@d7", "land on d7", "d7"), ("a4-d7@e7", "land on e7", "e7")]);
    // An ordinary target has no landing.
    let b5 = v["targets"].as_array().unwrap().iter().find(|t| t["to"] == "b5").unwrap();
    assert!(b5["moves"][0].get("landing").is_none(), "{b5}");
}

#[test]
fn the_archers_shot_is_a_target_marked_as_a_shot() {
    let s = start(named(&["decachess"]));
    // The Archer on d4 steps to any of its 8 empty neighbours (DC-03) and shoots an enemy
    // exactly two squares away (DC-04): the pawn on d6, the one piece in its reach.
    let (id, _) = s.new_game("decachess", Some("5k4/10/10/10/3p6/10/3A6/10/10/5K4 w - - 0 1"));
    let (_, v) = s.get(&format!("/api/games/{id}/targets?from=d4"));
    let shots: Vec<(&str, &str)> = v["targets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| {
            t["moves"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["shot"] == true)
                .map(move |m| (t["to"].as_str().unwrap(), m["move"].as_str().unwrap()))
        })
        .collect();
    assert_eq!(shots, [("d6", "d4-d6")]);
    assert_eq!(v["targets"].as_array().unwrap().len(), 9);
    // The shot removes the pawn; the Archer stays on d4.
    let v = s.play(&id, "d4-d6");
    assert_eq!(side_kind(&v["state"], "d4"), pair("white", "archer"));
    assert_eq!(piece(&v["state"], "d6"), None);
}

#[test]
fn a_frozen_pawn_and_the_piece_it_returns_as_are_marked() {
    let s = start(named(&["decachess"]));
    // White's pawn reaches a10 with an empty graveyard: it freezes there (DC-12). Black's
    // rook then takes the knight on c1: at that loss the pawn resolves into a knight
    // (DC-13), which waits through white's next turn (DC-14).
    let (id, _) = s.new_game("decachess", Some("5k4/P9/10/10/10/2r7/10/10/10/2N2K4 w - - 0 1"));
    let v = s.play(&id, "a9-a10");
    assert_eq!(
        piece(&v["state"], "a10"),
        Some(json!({ "kind": "pawn", "letter": "P", "side": "white", "royal": false, "frozen": true }))
    );
    let v = s.play(&id, "c5-c1");
    assert_eq!(
        piece(&v["state"], "a10"),
        Some(json!({ "kind": "knight", "letter": "N", "side": "white", "royal": false, "waiting": true }))
    );
    assert_eq!(v["state"]["graveyards"], json!({ "white": [], "black": [] }), "the knight left the graveyard");
}

#[test]
fn decachess_shows_each_sides_graveyard_and_standard_has_none() {
    let s = start(named(&["standard", "decachess"]));
    let (id, st) = s.new_game("decachess", None);
    assert_eq!(st["graveyards"], json!({ "white": [], "black": [] }));
    s.play(&id, "e2-e5");
    s.play(&id, "d9-d6");
    // The white pawn takes on d6: black's pawn goes to black's graveyard (DC-11: each
    // side promotes from its own captured pieces).
    let v = s.play(&id, "e5-d6");
    assert_eq!(v["state"]["graveyards"], json!({ "white": [], "black": [{ "kind": "pawn", "count": 1 }] }));
    let (_, st) = s.new_game("standard", None);
    assert!(st.get("graveyards").is_none(), "standard chess promotes from no graveyard");
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

// ---- Solo boards (Chessic). Scores are in tenths; the rules are scripts/chessic's:
// every strike pays the chain table by the run's length on one kind (1.0, 1.1, …, the
// last repeating), `perfect` pays 5.0 for one, two, three, four struck in a row, a layer
// 20.0, and the time score is 50.0 less 0.1 per whole second.

/// A board given as text: every square `111` (a one at every layer) but these.
fn board_text(except: &[(&str, &str)]) -> String {
    let files = ["a", "b", "c", "d", "e", "f"];
    let mut out = Vec::new();
    for rank in 1..=6 {
        for f in files {
            let name = format!("{f}{rank}");
            out.push(except.iter().find(|(s, _)| *s == name).map_or("111", |(_, t)| t).to_string());
        }
    }
    out.join(" ")
}

impl Server {
    fn new_solo(&self, body: Value) -> (String, Value) {
        let (s, v) = self.post("/api/solo", body);
        assert_eq!(s, 201, "{v}");
        (v["id"].as_str().unwrap().to_string(), v["state"].clone())
    }
    fn strike(&self, id: &str, sq: &str) -> Value {
        let (s, v) = self.post(&format!("/api/solo/{id}/strikes"), json!({ "square": sq }));
        assert_eq!(s, 200, "{sq}: {v}");
        v
    }
    fn wait(&self, ms: u64) {
        let (s, v) = self.post("/api/clock/wait", json!({ "ms": ms }));
        assert_eq!(s, 200, "{v}");
    }
}

fn solo_square<'a>(state: &'a Value, sq: &str) -> &'a Value {
    state["squares"].as_array().unwrap().iter().find(|s| s["name"] == sq).unwrap()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// `(strike_points, perfect, layer, time, total)` of a state's score.
fn score(state: &Value) -> [i64; 5] {
    let s = &state["score"];
    ["strike_points", "perfect", "layer", "time", "total"].map(|k| s[k].as_i64().unwrap_or_else(|| panic!("{k}: {s}")))
}

#[test]
fn a_solo_board_is_struck_scored_paused_and_undone_on_a_manual_clock() {
    let s = start_manual(named(&["chessic"]));
    let text = board_text(&[("c3", "211"), ("e5", "311"), ("e2", "411")]);
    let (id, st) = s.new_solo(json!({ "variant": "chessic", "board": text, "level": "apprentice" }));
    assert_eq!(id, "s1");
    assert_eq!((st["files"].as_u64(), st["ranks"].as_u64(), st["layers"].as_u64()), (Some(6), Some(6), Some(3)));
    assert_eq!(st["squares"][0]["name"], "a6", "drawn from the top");
    assert_eq!(st["status"], "playing");
    assert_eq!(st["targets"].as_array().unwrap().len(), 36, "the first strike lands anywhere");
    assert_eq!(score(&st), [0, 0, 0, 500, 500], "the full time score at 0 s");
    assert_eq!(st["clock"]["manual"], true);
    assert_eq!(solo_square(&st, "e2")["piece"]["letter"], "4");
    // a1 (a one): 1.0 (a chain of 1).
    let r = s.strike(&id, "a1");
    assert_eq!(texts(&r["events"]), ["struck the one on a1 (1 hit)", "a1 now shows a one", "+1.0 (strike)"]);
    assert_eq!(strings(&r["state"]["targets"]), ["b1", "a2", "b2"], "a one reaches the squares 1 away");
    let a1 = solo_square(&r["state"], "a1");
    assert_eq!((a1["hits"].as_u64(), a1["state"].as_str()), (Some(1), Some("cracked")));
    // b2, a one again: the chain's second entry, 1.1.
    let r = s.strike(&id, "b2");
    assert_eq!(texts(&r["events"])[2], "+1.1 (strike)");
    assert_eq!(r["state"]["progress"]["chain"], json!({ "kind": "one", "length": 2, "points": 11 }));
    // c3 (a two; 1.0, a new chain), then 12.9 s pass: the time score is 50.0 − 0.1 × 12.
    let r = s.strike(&id, "c3");
    assert_eq!(texts(&r["events"]), ["struck the two on c3 (1 hit)", "c3 now shows a one", "+1.0 (strike)"]);
    assert_eq!(r["state"]["progress"]["sequences"], json!([{ "name": "perfect", "count": 2, "of": 4 }]));
    s.wait(12_900);
    // e5 (a three, two squares diagonally from c3), e2 (a four, three below e5): one,
    // two, three, four in a row pays `perfect`.
    s.strike(&id, "e5");
    let r = s.strike(&id, "e2");
    assert_eq!(
        texts(&r["events"]),
        ["struck the four on e2 (1 hit)", "e2 now shows a one", "+1.0 (strike)", "+5.0 (perfect)"]
    );
    let st = &r["state"];
    assert_eq!(strings(&st["targets"]), ["a2", "a6", "e6"], "a four reaches 4 away: e6, a2, a6");
    assert_eq!(score(st), [10 + 11 + 10 + 10 + 10, 50, 0, 488, 51 + 50 + 488]);
    assert_eq!(st["clock"]["elapsed_ms"], 12_900);
    let labels: Vec<(String, i64)> = st["breakdown"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["label"].as_str().unwrap().to_string(), p["tenths"].as_i64().unwrap()))
        .collect();
    let want =
        [("strikes (with chains)", 51), ("royal runs", 0), ("perfect sequences", 50), ("layers", 0), ("time", 488)];
    assert_eq!(labels, want.map(|(l, t)| (l.to_string(), t)));
    assert_eq!(strings(&st["strikes"]), ["a1", "b2", "c3", "e5", "e2"]);
    // A square that is not a gold target, and one off the board: refused, nothing changed.
    let (code, v) = s.post(&format!("/api/solo/{id}/strikes"), json!({ "square": "b1" }));
    assert_eq!(code, 422, "{v}");
    assert_eq!(v["error"], "strike `b1`: b1 cannot be struck: the four struck on e2 reaches only a2, a6, e6");
    let (code, v) = s.post(&format!("/api/solo/{id}/strikes"), json!({ "square": "z9" }));
    assert_eq!((code, v["error"].as_str()), (400, Some("`z9` is not a square of this 6×6 board")));
    // Paused: the clock stops and strikes and undo wait.
    let (code, v) = s.post(&format!("/api/solo/{id}/pause"), json!({}));
    assert_eq!((code, v["played_ms"].as_u64()), (200, Some(12_900)), "{v}");
    s.wait(5_000);
    let (code, v) = s.post(&format!("/api/solo/{id}/strikes"), json!({ "square": "a2" }));
    assert_eq!((code, v["error"].as_str()), (422, Some("strike `a2`: the forge is paused: resume first")));
    let (code, v) = s.post(&format!("/api/solo/{id}/undo"), json!({}));
    assert_eq!((code, v["error"].as_str()), (422, Some("undo: the forge is paused: resume first")));
    let (code, v) = s.post(&format!("/api/solo/{id}/pause"), json!({}));
    assert_eq!((code, v["error"].as_str()), (422, Some("pause: the clock is already paused")));
    let (_, st) = s.get(&format!("/api/solo/{id}"));
    assert_eq!((st["clock"]["paused"].as_bool(), st["clock"]["elapsed_ms"].as_u64()), (Some(true), Some(12_900)));
    assert_eq!(score(&st)[3], 488, "no time passes while paused");
    let (code, _) = s.post(&format!("/api/solo/{id}/resume"), json!({}));
    assert_eq!(code, 200);
    s.wait(1_000);
    let (_, st) = s.get(&format!("/api/solo/{id}"));
    assert_eq!(st["clock"]["elapsed_ms"], 13_900);
    assert_eq!(score(&st), [51, 50, 0, 487, 588]);
    // Undo takes e2 back: perfect unpaid, and e5's three decides the targets again.
    let (code, v) = s.post(&format!("/api/solo/{id}/undo"), json!({ "strikes": 1 }));
    assert_eq!((code, v["undone"].as_u64()), (200, Some(1)), "{v}");
    assert_eq!(score(&v["state"]), [41, 0, 0, 487, 528]);
    assert_eq!(strings(&v["state"]["targets"]), ["b2", "e2", "b5"]);
    // Bad requests: a JSON 4xx, the board untouched.
    for (body, code) in [("{", 400), (r#"{"square":"a2","x":1}"#, 400), (r#"{"sq":"a2"}"#, 400)] {
        let (c, v) = s.call("POST", &format!("/api/solo/{id}/strikes"), Some(body));
        assert_eq!(c, code, "{body}: {v}");
    }
    let (code, _) = s.post(&format!("/api/solo/{id}/undo"), json!({ "strikes": 0 }));
    assert_eq!(code, 400);
    let (code, v) = s.get("/api/solo/s99");
    assert_eq!(code, 404, "{v}");
    let (code, v) = s.post("/api/solo", json!({ "variant": "chessic", "board": "111 222" }));
    assert_eq!(code, 400, "{v}");
    let (code, v) = s.post("/api/solo", json!({ "variant": "chessic", "seed": 1, "level": "grandmaster" }));
    assert_eq!(code, 400, "{v}");
    assert_eq!(v["error"], "unknown level `grandmaster`; levels: apprentice, journeyman, artisan, master");
    let (code, v) = s.post("/api/solo", json!({ "variant": "chessic", "seed": 1, "board": text }));
    assert_eq!((code, v["error"].as_str()), (400, Some("give `board` or `seed`, not both")));
    let (_, st) = s.get(&format!("/api/solo/{id}"));
    assert_eq!(st["ply"], 4);
}

#[test]
fn a_solo_board_cools_and_forges_and_its_time_is_fixed_at_the_end() {
    let s = start_manual(named(&["chessic"]));
    // Fours everywhere: from c3 a four reaches nothing on a 6×6 board, so the board cools.
    let fours = vec!["444"; 36].join(" ");
    let (id, _) = s.new_solo(json!({ "variant": "chessic", "board": fours }));
    let r = s.strike(&id, "c3");
    assert_eq!(
        texts(&r["events"]),
        ["struck the four on c3 (1 hit)", "c3 now shows a four", "+1.0 (strike)", "the board ends: cooled"]
    );
    assert_eq!(r["state"]["status"], "cooled");
    assert_eq!(r["state"]["outcome"]["result"], "cooled");
    assert_eq!(score(&r["state"]), [10, 0, 0, 500, 510], "a cooled board keeps its time score");
    s.wait(10_000);
    let (_, st) = s.get(&format!("/api/solo/{id}"));
    assert_eq!(score(&st), [10, 0, 0, 500, 510], "fixed when the board ended");
    let (code, v) = s.post(&format!("/api/solo/{id}/strikes"), json!({ "square": "c3" }));
    assert_eq!((code, v["error"].as_str()), (422, Some("strike `c3`: the board is over (cooled)")));
    // Wildcards everywhere (they reach any unfinished square): a1 … f6 three times over
    // forges it. 108 strikes on one kind: 1.0 + 1.1 + 1.2 + 1.3 + 1.4 + 103 × 1.5 =
    // 160.5; three layers, 60.0; the time 2 s after this board was made, 49.8.
    let names: Vec<String> = (1..=6).flat_map(|r| ["a", "b", "c", "d", "e", "f"].map(|f| format!("{f}{r}"))).collect();
    let mut all = Vec::new();
    for _ in 0..3 {
        all.extend(names.iter().cloned());
    }
    let first = all[..107].join(" ");
    let wild = vec!["WWW"; 36].join(" ");
    let (id, st) = s.new_solo(json!({ "variant": "chessic", "board": wild, "strikes": first }));
    assert_eq!((st["ply"].as_u64(), st["layers_completed"].as_u64()), (Some(107), Some(2)));
    assert_eq!(strings(&st["targets"]), ["f6"], "only f6 is unfinished");
    assert_eq!(solo_square(&st, "a1")["piece"], Value::Null, "cleared");
    s.wait(2_000);
    let r = s.strike(&id, "f6");
    assert_eq!(
        texts(&r["events"]),
        [
            "struck the wildcard on f6 (3 hits)",
            "f6 is cleared",
            "layer 3 completed",
            "+1.5 (strike)",
            "+20.0 (layer)",
            "the board ends: forged"
        ]
    );
    assert_eq!(r["state"]["status"], "forged");
    assert_eq!(score(&r["state"]), [1605, 0, 600, 498, 1605 + 600 + 498]);
    // A board that replays no further is refused whole.
    let (code, v) = s.post("/api/solo", json!({ "variant": "chessic", "board": fours, "strikes": "c3 c4" }));
    assert_eq!(
        (code, v["error"].as_str()),
        (422, Some("the moves do not replay: strike 2 (`c4`): the board is over (cooled)"))
    );
}

#[test]
fn a_dealt_solo_board_is_the_board_varia_play_deals_and_the_system_clock_cannot_be_moved() {
    let s = start(named(&["chessic"]));
    let (_, st) = s.new_solo(json!({ "variant": "chessic", "seed": 3, "level": "journeyman" }));
    let forge = varia::solo::Forge::new(varia::Variant::load("chessic").unwrap()).unwrap();
    let level = forge.level("journeyman").unwrap();
    let dealt = varia::search::solo::deal(&forge, level, 3, false).unwrap();
    let v = &forge.variant;
    for sq in v.geometry.squares() {
        let want = dealt.shown(sq).map(|k| v.kind(k).name.clone());
        let got = solo_square(&st, &v.square_name(sq))["piece"]["kind"].as_str().map(str::to_string);
        assert_eq!(got, want, "{}", v.square_name(sq));
    }
    assert_eq!(
        (st["seed"].as_u64(), st["level"].as_str(), st["clock"]["manual"].as_bool()),
        (Some(3), Some("journeyman"), Some(false))
    );
    let (code, v) = s.post("/api/clock/wait", json!({ "ms": 1000 }));
    assert_eq!(code, 422, "{v}");
    assert_eq!(
        v["error"],
        "this server reads the system clock: only `varia serve --clock manual` lets time be moved by hand"
    );
}

/// Chess960's numbered setups on the page: the list says how many there are, a game
/// starts from the one asked for (Scharnagl's numbering), and a number out of range, a
/// variant without deals, or a FEN with a number are refused with the reason.
#[test]
fn a_game_starts_from_a_numbered_setup_of_a_variant_that_deals_them() {
    let s = start(named(&["chess960", "standard"]));
    let (code, list) = s.get("/api/variants");
    assert_eq!(code, 200);
    let deals = |name: &str| list.as_array().unwrap().iter().find(|v| v["name"] == name).unwrap()["deals"].clone();
    assert_eq!(deals("chess960"), json!(960));
    assert_eq!(deals("standard"), Value::Null);
    // Setup 0: light bishop b1 (digit 0 of b d f h), dark bishop a1 (0 of a c e g),
    // queen on c1 (the first of the six left), knights on d1 e1 (the first of the ten
    // pairs of d e f g h), then rook, king, rook on f1 g1 h1; black mirrors white.
    let (code, v) = s.post("/api/games", json!({ "variant": "chess960", "deal": 0 }));
    assert_eq!(code, 201, "{v}");
    assert_eq!(v["state"]["fen"], "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    // 518 is the usual setup.
    let (code, v) = s.post("/api/games", json!({ "variant": "chess960", "deal": 518 }));
    assert_eq!(code, 201, "{v}");
    assert_eq!(v["state"]["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let refused = [
        (json!({ "variant": "chess960", "deal": 960 }), "setup 960 does not exist: chess960 has setups 0 to 959"),
        (json!({ "variant": "standard", "deal": 3 }), "standard has no dealt setups (no `[setup] deal`)"),
        (
            json!({ "variant": "chess960", "deal": 0, "fen": "8/8/8/8/8/8/8/K6k w - - 0 1" }),
            "give a FEN or a setup number (deal), not both",
        ),
    ];
    for (body, why) in refused {
        let (code, v) = s.post("/api/games", body.clone());
        assert_eq!(code, 400, "{body}: {v}");
        assert_eq!(v["error"], why, "{body}");
    }
    let (code, v) = s.post("/api/games", json!({ "variant": "chess960", "deal": -1 }));
    assert_eq!(code, 400, "a negative setup: {v}");
}
