//! `varia realm new | join | order | show | advance` as a person runs them, and crash
//! safety with real processes: a child stopped just before it commits (the
//! `VARIA_REALM_PAUSE_AT` hook) is killed with SIGKILL, and the realm is then checked
//! against what had been acknowledged; a second resolver beside a running one is
//! refused.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

const VARIA: &str = env!("CARGO_BIN_EXE_varia");
/// See realm/tests/common: the first 6-hour deadline after 1,000,000 s.
const T0: &str = "1000000";
const DEADLINE: &str = "1015200";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("varia-cli-realm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn varia(args: &[&str]) -> Output {
    Command::new(VARIA).args(args).env_remove("VARIA_REALM_PAUSE_AT").output().expect("run varia")
}

fn ok(args: &[&str]) -> String {
    let o = varia(args);
    assert!(
        o.status.success(),
        "varia {args:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Where the tests' realms live: a SQLite file, and a fresh PostgreSQL schema when
/// `VARIA_PG_URL` is set (with `CI=true` it must be; locally a note says it is skipped).
fn dbs(dir: &Path, name: &str) -> Vec<String> {
    let mut out = vec![dir.join(format!("{name}.db")).display().to_string()];
    match std::env::var("VARIA_PG_URL") {
        Ok(url) if !url.is_empty() => {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
            out.push(format!("{url}#c{}_{}_{nanos}", std::process::id(), name.replace('-', "_")));
        }
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("CI=true but VARIA_PG_URL is not set"),
        _ => eprintln!("note: VARIA_PG_URL is not set; the PostgreSQL runs of these tests are skipped"),
    }
    out
}

/// A realm with alice and bob at `db`; their tokens.
fn setup(dir: &Path, db: &str) -> (String, String, String) {
    let cfg = dir.join("realm.toml");
    std::fs::write(&cfg, "name = \"crash test\"\nround_hours = 6\nseed = 5\n").unwrap();
    let db = db.to_string();
    let out = ok(&["realm", "new", "--config", cfg.to_str().unwrap(), "--db", &db, "--at", T0]);
    assert!(out.contains("round 0 resolves at 1015200"), "{out}");
    let token = |p: &str| {
        let out = ok(&["realm", "join", "--db", &db, "--player", p, "--at", T0]);
        out.lines().find_map(|l| l.strip_prefix("token: ")).expect("a token line").to_string()
    };
    let a = token("alice");
    let b = token("bob");
    (db, a, b)
}

fn show(db: &str, token: &str) -> serde_json::Value {
    serde_json::from_str(&ok(&["realm", "show", "--db", db, "--token", token, "--at", T0])).unwrap()
}

/// Starts varia paused at `point`, and returns once it says it is there.
// The child is returned to be killed and waited for by `sigkill`, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn paused(args: &[&str], point: &str) -> Child {
    let mut child = Command::new(VARIA)
        .args(args)
        .env("VARIA_REALM_PAUSE_AT", point)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            let _ = child.kill();
            let status = child.wait();
            panic!("varia ended before pausing at {point}: {status:?}");
        }
        if line.trim() == format!("paused at {point}") {
            return child;
        }
    }
}

fn sigkill(mut child: Child) {
    // std's kill is SIGKILL on Unix: no destructor, no rollback runs in the child.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9));
}

const MOVE_Q: &str = r#"{"type":"move","from":[2,3],"to":[2,4]}"#;
const MOVE_R: &str = r#"{"type":"move","from":[1,2],"to":[0,2]}"#;
const MOVE_BOB: &str = r#"{"type":"move","from":[6,2],"to":[5,2]}"#;

#[test]
fn the_commands_make_a_realm_take_orders_show_and_advance() {
    let dir = scratch("commands");
    let (db, a, _) = setup(&dir, &dir.join("realm.db").display().to_string());
    let out = ok(&["realm", "order", "--db", &db, "--token", &a, "--at", T0, "--order", MOVE_Q]);
    assert_eq!(out, "order 1: accepted\n1 orders stored for round 0 (deadline 1015200)\n");
    // A refused order says why, and the command fails.
    let o = varia(&[
        "realm",
        "order",
        "--db",
        &db,
        "--token",
        &a,
        "--at",
        T0,
        "--order",
        r#"{"type":"move","from":[7,2],"to":[7,1]}"#,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "order 1: refused: the piece on [7, 2] is not yours (it is bob's)\n"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 of 1 orders refused; nothing was stored"));
    let v = show(&db, &a);
    assert_eq!(v["orders"], serde_json::json!([serde_json::from_str::<serde_json::Value>(MOVE_Q).unwrap()]));
    assert_eq!(v["round"], 0);
    let out = ok(&["realm", "advance", "--db", &db, "--at", T0]);
    assert_eq!(out, "no round is due: the open round resolves at 1015200\n");
    let out = ok(&["realm", "advance", "--db", &db, "--at", DEADLINE]);
    assert!(out.starts_with("round 0 resolved at 1015200: "), "{out}");
    assert!(out.ends_with("; next deadline 1036800\n"), "{out}");
    let r: serde_json::Value =
        serde_json::from_str(&ok(&["realm", "show", "--db", &db, "--token", &a, "--round", "0"])).unwrap();
    assert_eq!(r["orders"]["alice"][0]["to"], serde_json::json!([2, 4]));
    // A second `new` on the same file is refused and leaves it alone.
    let cfg = dir.join("realm.toml");
    let o = varia(&["realm", "new", "--config", cfg.to_str().unwrap(), "--db", &db]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already holds a realm"));
    assert_eq!(show(&db, &a)["round"], 1);
}

#[test]
fn chat_posts_and_reads_with_the_logs_rights() {
    let dir = scratch("chat");
    let (db, a, b) = setup(&dir, &dir.join("realm.db").display().to_string());
    let out = ok(&["realm", "chat", "--db", &db, "--token", &a, "--at", T0, "--post", "hello world"]);
    assert_eq!(out, "posted to world as line 1\n");
    // Within the 5-second pause the second post is refused (across logs, CA-24).
    let o =
        varia(&["realm", "chat", "--db", &db, "--token", &a, "--at", "1000003", "--log", "sector:0,0", "--post", "x"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("wait"), "{}", String::from_utf8_lossy(&o.stderr));
    // Bob reads it with the card: both hold 3 boards and 15 pieces; alice joined first.
    // alice's boards [0,0] [-1,-1] [0,-1] lie in three sectors of 10 boards a side.
    let out = ok(&["realm", "chat", "--db", &db, "--token", &b, "--at", T0]);
    assert_eq!(
        out,
        format!(
            "world (1 lines; you may write here)\n   1 {T0} alice: hello world\ntop 2:\n  1. alice: 3 boards, 15 pieces, 3 sectors, 0 cities\n  2. bob: 3 boards, 15 pieces, 3 sectors, 0 cities\n"
        )
    );
    // A sector where bob has no piece: refused, with the reason.
    let o = varia(&["realm", "chat", "--db", &db, "--token", &b, "--at", T0, "--log", "sector:-1,-1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("only while you have a piece standing in the sector"));
}

#[test]
fn the_mayor_commands_rename_set_the_message_and_refuse_a_non_mayor() {
    // Caissa is boards [-1,-1]..[1,1]: alice and bob hold 3 each with 15 pieces; alice
    // joined first and keeps the office on the tie (A-CA14).
    let dir = scratch("mayor");
    let cfg = dir.join("realm.toml");
    std::fs::write(
        &cfg,
        "name = \"m\"\nround_hours = 6\n[[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n\
         [[cities]]\nname = \"Philidor\"\nboards = [[3, -1], [4, 1]]\n[[roads]]\nbetween = [\"Caissa\", \"Philidor\"]\n",
    )
    .unwrap();
    let db = dir.join("realm.db").display().to_string();
    ok(&["realm", "new", "--config", cfg.to_str().unwrap(), "--db", &db, "--at", T0]);
    let token = |p: &str| {
        let out = ok(&["realm", "join", "--db", &db, "--player", p, "--at", T0]);
        out.lines().find_map(|l| l.strip_prefix("token: ")).expect("a token line").to_string()
    };
    let (a, b) = (token("alice"), token("bob"));
    let o = varia(&["realm", "mayor", "--db", &db, "--token", &b, "--city", "Caissa", "--at", T0]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("(the mayor is alice: most boards there, then pieces on them)")
    );
    let crown: serde_json::Value =
        serde_json::from_str(&ok(&["realm", "mayor", "--db", &db, "--token", &a, "--city", "Caissa", "--at", T0]))
            .unwrap();
    assert_eq!((crown["mayor"].as_str(), crown["vault"].clone()), (Some("alice"), serde_json::json!({})));
    let out = ok(&["realm", "mayor", "--db", &db, "--token", &a, "--city", "Caissa", "--rename", "Lasker", "--at", T0]);
    assert_eq!(out, "Caissa is now called Lasker\n");
    let out = ok(&["realm", "mayor", "--db", &db, "--token", &a, "--city", "Lasker", "--motd", "hello", "--at", T0]);
    assert_eq!(out, format!("message of the day of Lasker set at {T0}\n"));
    // Seven days less a second later: the same mayor waits one more second.
    let o =
        varia(&["realm", "mayor", "--db", &db, "--token", &a, "--city", "Lasker", "--rename", "M", "--at", "1604799"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("wait 1 more seconds (until 1604800)"));
    let o = varia(&["realm", "transfer", "--db", &db, "--token", &a, "--to", "Philidor", "--at", T0]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("nobody is present in Philidor"));
    assert_eq!(ok(&["realm", "transfer", "--db", &db, "--token", &a, "--at", T0]), "[]\n");
}

#[test]
fn a_join_names_its_region_and_a_realm_with_every_city_full_refuses_it() {
    // Caissa is boards [0,0] [1,0] [2,0]: alice joins it whole (rings 0, 1 and 2 of its
    // row); bob finds it full and, with the ground open (the default), gets ring 1's
    // [-1,-1] [0,-1] [1,-1]. With join_ground = false bob is refused and nothing is kept:
    // `realm show` knows alice alone.
    let dir = scratch("join-region");
    let city = "[[cities]]\nname = \"Caissa\"\nboards = [[0, 0], [2, 0]]\n";
    let runs = [false, true].map(|closed| (closed, dbs(&dir, if closed { "join-closed" } else { "join-open" })));
    for (closed, db) in runs.into_iter().flat_map(|(c, dbs)| dbs.into_iter().map(move |db| (c, db))) {
        let cfg = dir.join("realm.toml");
        let ground = if closed { "join_ground = false\n" } else { "" };
        std::fs::write(&cfg, format!("name = \"j\"\nround_hours = 6\n{ground}{city}")).unwrap();
        ok(&["realm", "new", "--config", cfg.to_str().unwrap(), "--db", &db, "--at", T0]);
        let out = ok(&["realm", "join", "--db", &db, "--player", "alice", "--at", T0]);
        assert_eq!(
            out.lines().next(),
            Some("alice joined round 0 on boards [0, 0] [1, 0] [2, 0] in the city Caissa"),
            "{db}"
        );
        let o = varia(&["realm", "join", "--db", &db, "--player", "bob", "--at", T0]);
        let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        if closed {
            assert_eq!(o.status.code(), Some(1), "{db}: {stdout}");
            assert!(
                stderr.contains(
                    "no room for a new empire: no city has 3 free boards, and this realm places no empire on the \
                     open ground outside the cities (join_ground = false)"
                ),
                "{db}: {stderr}"
            );
            let a = out.lines().find_map(|l| l.strip_prefix("token: ")).unwrap();
            assert_eq!(show(&db, a)["world"]["players"], serde_json::json!(["alice"]), "{db}");
        } else {
            assert!(o.status.success(), "{db}: {stderr}");
            assert_eq!(
                stdout.lines().next(),
                Some("bob joined round 0 on boards [-1, -1] [0, -1] [1, -1] on the open ground"),
                "{db}"
            );
        }
    }
}

#[test]
fn join_rejoin_brings_back_a_player_who_abandoned_once_the_lockout_is_over() {
    // alice holds [0,0] [-1,-1] [0,-1], bob [1,-1] [-1,0] [1,0] (no cities: ring by ring).
    // bob abandons in round 0, resolved at T0 (--now): eliminated, locked out until
    // T0 + 86,400 = 1,086,400 (CA-18), his boards free again. His comeback with his
    // token takes the first three free boards ring by ring: the same three. No round was
    // resolved since, so round 1 is open.
    let dir = scratch("rejoin");
    for db in dbs(&dir, "rejoin") {
        let (db, a, b) = setup(&dir, &db);
        ok(&["realm", "order", "--db", &db, "--token", &b, "--at", T0, "--order", r#"{"type":"abandon"}"#]);
        ok(&["realm", "advance", "--db", &db, "--now", "--at", T0]);
        let fails = |args: &[&str], want: &str| {
            let o = varia(args);
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{db}: {args:?}: {stderr}");
            assert_eq!(stderr.lines().next(), Some(want), "{db}: {args:?}");
        };
        fails(
            &["realm", "join", "--db", &db, "--rejoin", &b, "--at", "1086399"],
            "error: `bob` abandoned an empire and is locked out until 1086400 (CA-18)",
        );
        fails(
            &["realm", "join", "--db", &db, "--player", "bob", "--at", "1086400"],
            "error: `bob` is already a player of this realm",
        );
        fails(
            &["realm", "join", "--db", &db, "--rejoin", &a, "--at", "1086400"],
            "error: `alice` still has an empire in this realm (3 boards, 15 pieces on the map): only a player whose \
             empire is gone (no board and no piece on the map, CA-17) starts a new one",
        );
        let out = ok(&["realm", "join", "--db", &db, "--rejoin", &b, "--at", "1086400"]);
        let lines: Vec<&str> = out.lines().collect();
        let token = format!("token: {b}");
        assert_eq!(
            lines,
            ["bob came back in round 1 on boards [1, -1] [-1, 0] [1, 0] on the open ground", token.as_str()],
            "{db}"
        );
        assert_eq!(show(&db, &b)["world"]["players"], serde_json::json!(["alice", "bob"]), "{db}");
        assert_eq!(show(&db, &b)["world"]["eliminated"], serde_json::json!([]), "{db}");
        // --player and --rejoin together: refused by the command line (exit 2).
        let o = varia(&["realm", "join", "--db", &db, "--player", "bob", "--rejoin", &b]);
        assert_eq!(o.status.code(), Some(2), "{db}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("cannot be used with"), "{db}");
    }
}

#[test]
fn realm_show_tells_the_old_owner_of_boards_taken_over_and_nobody_else() {
    // alice holds [0,0] [-1,-1] [0,-1], bob [1,-1] [-1,0] [1,0]. alice is made idle for
    // 45 rounds (CA-18: her boards claimable) through the store, as an operator's tool
    // would; carol's join at T0 + 60 takes her three boards (ring 0, then ring 1 in
    // (y, x) order), each with alice's 5 starting pieces on it.
    let dir = scratch("takeover");
    for db in dbs(&dir, "takeover") {
        let (db, a, b) = setup(&dir, &db);
        {
            use varia_realm::db::Mode;
            let mut store = varia_realm::open_store(&db, false).unwrap();
            let mut tx = store.begin(Mode::Write).unwrap();
            let (round, text) = varia_realm::store::world(tx.as_mut()).unwrap();
            let mut st: serde_json::Value = serde_json::from_str(&text).unwrap();
            st["idle"]["alice"] = 45.into();
            varia_realm::store::put_world(tx.as_mut(), round, &st.to_string()).unwrap();
            tx.commit().unwrap();
        }
        let out = ok(&["realm", "join", "--db", &db, "--player", "carol", "--at", "1000060"]);
        assert_eq!(
            out.lines().next(),
            Some("carol joined round 0 on boards [0, 0] [-1, -1] [0, -1] on the open ground"),
            "{db}"
        );
        let o = varia(&["realm", "show", "--db", &db, "--token", &a, "--at", "1000060"]);
        assert!(o.status.success(), "{db}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let entry =
            |b: [i32; 2]| serde_json::json!({ "board": b, "by": "carol", "round": 0, "at": 1_000_060, "pieces": 5 });
        assert_eq!(v["taken_over"], serde_json::json!([entry([-1, -1]), entry([0, -1]), entry([0, 0])]), "{db}");
        let told: Vec<String> = ["[-1, -1]", "[0, -1]", "[0, 0]"]
            .iter()
            .map(|b| {
                format!("your board {b} was taken over by carol in round 0 (at 1000060); 5 of your pieces on it were removed")
            })
            .collect();
        assert_eq!(String::from_utf8_lossy(&o.stderr).lines().collect::<Vec<_>>(), told, "{db}");
        let o = varia(&["realm", "show", "--db", &db, "--token", &b, "--at", "1000060"]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!((v["taken_over"].clone(), o.stderr.is_empty()), (serde_json::json!([]), true), "{db}");
    }
}

#[test]
fn an_order_killed_before_its_commit_is_lost_and_the_acknowledged_one_stands() {
    let dir = scratch("order-crash");
    for db in dbs(&dir, "order-crash") {
        let (db, a, _) = setup(&dir, &db);
        ok(&["realm", "order", "--db", &db, "--token", &a, "--at", T0, "--order", MOVE_Q]);
        let child = paused(&["realm", "order", "--db", &db, "--token", &a, "--at", T0, "--order", MOVE_R], "order");
        sigkill(child);
        let v = show(&db, &a);
        assert_eq!(
            v["orders"][0]["from"],
            serde_json::json!([2, 3]),
            "the acknowledged list survives: {}",
            v["orders"]
        );
        assert_eq!(v["orders"].as_array().unwrap().len(), 1);
        // The realm still takes orders (no lock was left behind).
        ok(&["realm", "order", "--db", &db, "--token", &a, "--at", T0, "--order", MOVE_R]);
        assert_eq!(show(&db, &a)["orders"][0]["from"], serde_json::json!([1, 2]));
    }
}

#[test]
fn a_resolution_killed_before_its_commit_leaves_the_round_unresolved_and_a_rerun_matches() {
    let dir = scratch("resolve-crash");
    for (db, twin) in dbs(&dir, "resolve-crash").into_iter().zip(dbs(&dir, "resolve-twin")) {
        let (db, a, b) = setup(&dir, &db);
        // A twin made the same way that never crashes, for the expected result.
        let (twin, ta, tb) = setup(&dir, &twin);
        for (db, a, b) in [(&db, &a, &b), (&twin, &ta, &tb)] {
            ok(&["realm", "order", "--db", db, "--token", a, "--at", T0, "--order", MOVE_Q]);
            ok(&["realm", "order", "--db", db, "--token", b, "--at", T0, "--order", MOVE_BOB]);
        }
        let child = paused(&["realm", "advance", "--db", &db, "--at", DEADLINE], "resolve");
        sigkill(child);
        let v = show(&db, &a);
        assert_eq!(v["round"], 0, "the round is not resolved");
        assert_eq!(v["orders"][0]["to"], serde_json::json!([2, 4]), "acknowledged orders survive the crash");
        let o = varia(&["realm", "show", "--db", &db, "--token", &a, "--round", "0"]);
        assert!(String::from_utf8_lossy(&o.stderr).contains("round 0 has not been resolved"));
        // Running it again resolves it, exactly as the twin does.
        let again = ok(&["realm", "advance", "--db", &db, "--at", DEADLINE]);
        let twin_out = ok(&["realm", "advance", "--db", &twin, "--at", DEADLINE]);
        assert_eq!(again, twin_out);
        let r1 = ok(&["realm", "show", "--db", &db, "--token", &a, "--round", "0"]);
        let r2 = ok(&["realm", "show", "--db", &twin, "--token", &ta, "--round", "0"]);
        assert_eq!(r1, r2);
        let w1 = ok(&["realm", "show", "--db", &db, "--token", &b, "--at", DEADLINE]);
        let w2 = ok(&["realm", "show", "--db", &twin, "--token", &tb, "--at", DEADLINE]);
        assert_eq!(w1, w2);
        let w: serde_json::Value = serde_json::from_str(&w1).unwrap();
        assert_eq!(w["round"], 1);
        let q = w["world"]["pieces"].as_array().unwrap().iter().find(|p| p["x"] == 2 && p["y"] == 4).cloned();
        assert_eq!(q.map(|p| p["kind"].clone()), Some(serde_json::json!("Q")));
    }
}

#[test]
fn a_second_resolver_beside_a_running_one_is_refused() {
    let dir = scratch("two-resolvers");
    for db in dbs(&dir, "two-resolvers") {
        let (db, a, _) = setup(&dir, &db);
        let first = paused(&["realm", "advance", "--db", &db, "--at", DEADLINE], "resolve");
        let o = varia(&["realm", "advance", "--db", &db, "--at", DEADLINE]);
        assert_eq!(o.status.code(), Some(1));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("refused: another resolver is resolving this realm right now"), "{err}");
        sigkill(first);
        // With the first gone, the round resolves once.
        let out = ok(&["realm", "advance", "--db", &db, "--at", DEADLINE]);
        assert!(out.starts_with("round 0 resolved"), "{out}");
        assert_eq!(show(&db, &a)["round"], 1);
        assert!(ok(&["realm", "advance", "--db", &db, "--at", DEADLINE]).starts_with("no round is due"));
    }
}

#[test]
fn bench_store_times_a_stored_round_on_each_store_and_refuses_an_existing_one() {
    let dir = scratch("bench-store");
    let dbs = dbs(&dir, "bench");
    let mut args = vec!["realm", "bench-store", "--boards", "100", "--runs", "2"];
    for d in &dbs {
        args.extend(["--db", d.as_str()]);
    }
    let out = ok(&args);
    // 100 boards, one player per five, each board with the five pieces of CA-03.
    assert!(out.starts_with("stored round: 100 boards, 20 players, 500 pieces, a "), "{out}");
    let rows: Vec<&str> = out.lines().skip(2).collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r.split_whitespace().next().unwrap()).collect();
    let want: Vec<&str> = ["sqlite", "postgresql"][..dbs.len()].to_vec();
    assert_eq!(kinds, want, "{out}");
    for r in &rows {
        let figures: Vec<f64> = r.split_whitespace().skip(1).map(|f| f.parse().unwrap()).collect();
        assert_eq!(figures.len(), 6, "{r}");
        // The total is the sum of the four parts (each printed to the millisecond).
        assert!((figures[0] + figures[1] + figures[2] + figures[3] - figures[4]).abs() < 0.0025, "{r}");
    }
    // A store that exists is refused and left as it was.
    let before = std::fs::read(&dbs[0]).unwrap();
    let again = varia(&["realm", "bench-store", "--boards", "100", "--db", &dbs[0]]);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds a realm; a realm is never overwritten"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(std::fs::read(&dbs[0]).unwrap(), before);
}

#[test]
fn bench_intake_serves_concurrent_clients_and_checks_what_was_stored() {
    let dir = scratch("bench-intake");
    let dbs = dbs(&dir, "intake");
    let mut args = vec!["realm", "bench-intake", "--clients", "3", "--orders", "7", "--players", "6"];
    for d in &dbs {
        args.extend(["--db", d.as_str()]);
    }
    let out = ok(&args);
    let rows: Vec<&str> = out.lines().skip(2).collect();
    let kinds: Vec<&str> = rows.iter().map(|r| r.split_whitespace().next().unwrap()).collect();
    assert_eq!(kinds, ["sqlite", "postgres"][..dbs.len()].to_vec(), "{out}");
    for r in &rows {
        let f: Vec<f64> = r.split_whitespace().skip(1).map(|f| f.parse().unwrap()).collect();
        // Connections (SQLite 1, PostgreSQL 8 by default), then orders/s > 0 and p50 ≤ p99 ≤ max.
        assert!(f[0] == 1.0 || f[0] == 8.0, "{r}");
        assert!(f[1] > 0.0 && f[2] <= f[3] && f[3] <= f[4], "{r}");
    }
}

#[test]
fn bench_recovery_kills_serve_and_advance_and_finds_nothing_lost() {
    let dir = scratch("bench-recovery");
    let mut args = vec!["realm", "bench-recovery", "--clients", "2", "--kill-after", "10", "--boards", "200"];
    let prefix = dir.join("rec").display().to_string();
    args.extend(["--db", prefix.as_str()]);
    let out = ok(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("sqlite intake: serve killed (SIGKILL) after "), "{out}");
    assert!(lines[0].ends_with(" 0 lost"), "{out}");
    for l in &lines[1..] {
        assert!(l.ends_with("world and round record byte for byte the twin's"), "{out}");
    }
}
