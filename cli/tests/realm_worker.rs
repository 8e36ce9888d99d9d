//! `varia realm worker` with real processes (issue 13, point 4): three workers resolve
//! a round of a realm with a city and the ground outside it (two parts) while one of
//! them is killed with SIGKILL holding a part it has resolved but not committed; the
//! other two finish the round, every part is committed exactly once, and the round's
//! record and the world are those `advance` gives a twin realm. On SQLite and, with
//! `VARIA_PG_URL`, PostgreSQL (where the others resolve the free part meanwhile:
//! `FOR UPDATE SKIP LOCKED`; SQLite's one writer makes them wait for the lock instead).
//! And a worker killed before its merge commits: the round stays open and closed to
//! orders, and `advance` merges it, with the same bytes. And a worker killed before its
//! plan commits: nothing is left, and the next worker plans the round again.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const VARIA: &str = env!("CARGO_BIN_EXE_varia");
/// The first 6-hour deadline after it is 1,015,200 (see realm/tests/common).
const T0: &str = "1000000";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("varia-cli-worker-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ok(args: &[&str]) -> String {
    let o: Output = Command::new(VARIA).args(args).env_remove("VARIA_REALM_PAUSE_AT").output().expect("run varia");
    assert!(
        o.status.success(),
        "varia {args:?}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Pairs of fresh realms (the single process's, the workers'): SQLite files, and
/// PostgreSQL schemas when `VARIA_PG_URL` is set (with `CI=true` it must be).
fn twins(dir: &Path) -> Vec<(String, String)> {
    let mut out = vec![(dir.join("single.db").display().to_string(), dir.join("parts.db").display().to_string())];
    match std::env::var("VARIA_PG_URL") {
        Ok(url) if !url.is_empty() => {
            let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
            let id = format!("{}_{nanos}", std::process::id());
            out.push((format!("{url}#w{id}_single"), format!("{url}#w{id}_parts")));
        }
        _ if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("CI=true but VARIA_PG_URL is not set"),
        _ => eprintln!("note: VARIA_PG_URL is not set; the PostgreSQL runs of these tests are skipped"),
    }
    out
}

/// The city Caissa holds rings 0 and 1 of boards (p0, p1, p2's empires); p3, p4 and
/// p5 join on ring 2, the ground outside the cities.
const CONFIG: &str = "name = \"workers\"\nround_hours = 6\nseed = 7\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n";

/// A realm with six players who each order their first board's queen one square up
/// (Q stands at (2, 3) of every starting board) and p0 a rook on its second board
/// ([-1, -1]: R on (1, 2) of it); p0's token.
fn setup(dir: &Path, db: &str) -> String {
    let cfg = dir.join("realm.toml");
    std::fs::write(&cfg, CONFIG).unwrap();
    ok(&["realm", "new", "--config", cfg.to_str().unwrap(), "--db", db, "--at", T0]);
    let mut first = String::new();
    for p in 0..6 {
        let out = ok(&["realm", "join", "--db", db, "--player", &format!("p{p}"), "--at", T0]);
        let token = out.lines().find_map(|l| l.strip_prefix("token: ")).unwrap().to_string();
        // "p0 joined round 0 on boards [0, 0] [-1, -1] [0, -1]"
        let b: Vec<i32> = out
            .lines()
            .next()
            .unwrap()
            .split("boards ")
            .nth(1)
            .unwrap()
            .split(']')
            .next()
            .unwrap()
            .trim_start_matches('[')
            .split(", ")
            .map(|n| n.parse().unwrap())
            .collect();
        let (x, y) = (5 * b[0] + 2, 5 * b[1] + 3);
        let mut args = vec!["realm".to_string(), "order".into(), "--db".into(), db.into(), "--token".into()];
        args.extend([token.clone(), "--at".into(), T0.into(), "--order".into()]);
        args.push(format!(r#"{{"type":"move","from":[{x},{y}],"to":[{x},{}]}}"#, y + 1));
        if p == 0 {
            args.extend(["--order".into(), r#"{"type":"move","from":[-4,-3],"to":[-5,-3]}"#.into()]);
        }
        ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
        if p == 0 {
            first = token;
        }
    }
    first
}

/// Starts a worker; its stdout lines go to `lines` (tagged with `tag`).
fn worker(db: &str, pause: Option<&str>, tag: usize, lines: mpsc::Sender<(usize, String)>) -> Child {
    let mut cmd = Command::new(VARIA);
    cmd.args(["realm", "worker", "--db", db, "--at", T0, "--now", "--until", "0", "--poll", "50"]);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    match pause {
        Some(p) => cmd.env("VARIA_REALM_PAUSE_AT", p),
        None => cmd.env_remove("VARIA_REALM_PAUSE_AT"),
    };
    let mut child = cmd.spawn().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for l in out.lines().map_while(Result::ok) {
            let _ = lines.send((tag, l));
        }
    });
    child
}

/// Waits for a stderr line of `child` that is `want`.
fn wait_stderr(child: &mut Child, want: &str) {
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            panic!("the worker ended before saying `{want}`");
        }
        if line.trim() == want {
            return;
        }
    }
}

/// The next stdout line of any worker that contains `want` (the lines read meanwhile
/// are kept in `seen`).
fn wait_line(rx: &mpsc::Receiver<(usize, String)>, seen: &mut Vec<(usize, String)>, want: &str) {
    loop {
        let l = rx.recv_timeout(Duration::from_secs(600)).expect("a worker's line");
        let hit = l.1.contains(want);
        seen.push(l);
        if hit {
            return;
        }
    }
}

#[test]
fn workers_finish_a_round_when_one_is_killed_mid_part_and_match_advance() {
    let dir = scratch("kill");
    for (single, parts) in twins(&dir) {
        let token_a = setup(&dir, &single);
        let token_b = setup(&dir, &parts);
        ok(&["realm", "advance", "--db", &single, "--at", T0, "--now"]);
        let (tx, rx) = mpsc::channel();
        let mut seen = Vec::new();
        // Worker 0 plans the round, resolves the first part and stops before its commit.
        let mut w0 = worker(&parts, Some("part"), 0, tx.clone());
        wait_stderr(&mut w0, "paused at part");
        wait_line(&rx, &mut seen, "planned round 0: 2 parts");
        let w1 = worker(&parts, None, 1, tx.clone());
        let w2 = worker(&parts, None, 2, tx.clone());
        drop(tx);
        if !parts.ends_with(".db") {
            // PostgreSQL: the other part is free, and taken meanwhile.
            wait_line(&rx, &mut seen, "resolved part 1 of round 0");
        }
        w0.kill().unwrap();
        let status = w0.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9));
        for mut w in [w1, w2] {
            let st = w.wait().unwrap();
            assert!(st.success(), "{parts}: a worker failed: {st:?}");
        }
        seen.extend(rx.iter());
        let lines: Vec<&str> = seen.iter().map(|(_, l)| l.as_str()).collect();
        // Worker 0's part was never committed: the others resolved each part once.
        let resolved: Vec<&(usize, String)> = seen.iter().filter(|(_, l)| l.starts_with("resolved part")).collect();
        assert_eq!(resolved.len(), 2, "{parts}: {lines:?}");
        assert!(resolved.iter().all(|(w, _)| *w != 0), "{parts}: {lines:?}");
        assert!(resolved.iter().any(|(_, l)| l.starts_with("resolved part 0 of round 0")), "{lines:?}");
        assert!(resolved.iter().any(|(_, l)| l.starts_with("resolved part 1 of round 0")), "{lines:?}");
        assert_eq!(lines.iter().filter(|l| l.starts_with("round 0 resolved at 1000000")).count(), 1, "{lines:?}");
        // The same round and world as `advance` gives.
        let show = |db: &str, t: &str, round: bool| {
            let mut args = vec!["realm", "show", "--db", db, "--token", t, "--at", T0];
            if round {
                args.extend(["--round", "0"]);
            }
            ok(&args)
        };
        let (ra, rb) = (show(&single, &token_a, true), show(&parts, &token_b, true));
        assert!(ra == rb, "{parts}: the round differs:\n{ra}\n{rb}");
        assert!(ra.contains("\"moved\""), "{ra}");
        assert_eq!(show(&single, &token_a, false), show(&parts, &token_b, false), "{parts}: the world differs");
    }
}

#[test]
fn a_merge_killed_before_its_commit_leaves_the_round_closed_and_advance_finishes_it() {
    let dir = scratch("merge");
    for (single, parts) in twins(&dir) {
        let token_a = setup(&dir, &single);
        let token_b = setup(&dir, &parts);
        ok(&["realm", "advance", "--db", &single, "--at", T0, "--now"]);
        // One worker plans, resolves both parts and stops before the merge's commit.
        let (tx, rx) = mpsc::channel();
        let mut w = worker(&parts, Some("merge"), 0, tx);
        wait_stderr(&mut w, "paused at merge");
        w.kill().unwrap();
        w.wait().unwrap();
        let lines: Vec<String> = rx.iter().map(|(_, l)| l).collect();
        assert_eq!(lines.iter().filter(|l| l.starts_with("resolved part")).count(), 2, "{lines:?}");
        // The merge never happened: round 0 is still open, and closed to orders.
        let world: serde_json::Value =
            serde_json::from_str(&ok(&["realm", "show", "--db", &parts, "--token", &token_b, "--at", T0])).unwrap();
        assert_eq!(world["round"], 0, "{parts}");
        let o = Command::new(VARIA)
            .args(["realm", "order", "--db", &parts, "--token", &token_b, "--at", T0])
            .args(["--order", r#"{"type":"pass","board":[0,0]}"#])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("round 0 is being resolved by the realm's workers"),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        // `advance` finds the planned round, every part in, and merges it.
        let out = ok(&["realm", "advance", "--db", &parts, "--at", T0, "--now"]);
        assert!(out.starts_with("round 0 resolved at 1000000: "), "{out}");
        let show = |db: &str, t: &str, round: bool| {
            let mut args = vec!["realm", "show", "--db", db, "--token", t, "--at", T0];
            if round {
                args.extend(["--round", "0"]);
            }
            ok(&args)
        };
        assert_eq!(show(&single, &token_a, true), show(&parts, &token_b, true), "{parts}: the round differs");
        assert_eq!(show(&single, &token_a, false), show(&parts, &token_b, false), "{parts}: the world differs");
    }
}

#[test]
fn a_plan_killed_before_its_commit_leaves_nothing_and_the_next_worker_plans_the_round_again() {
    // Issue 13 point 7 (crash tests): the plan is the one worker step no test killed. A
    // worker stopped and killed just before the plan's commit leaves the round open and
    // unplanned (no part, no `resolving`), so a fresh worker plans it from the start and
    // gives the twin's bytes.
    let dir = scratch("plan");
    for (single, parts) in twins(&dir) {
        let token_a = setup(&dir, &single);
        let token_b = setup(&dir, &parts);
        ok(&["realm", "advance", "--db", &single, "--at", T0, "--now"]);
        let (tx, rx) = mpsc::channel();
        let mut w = worker(&parts, Some("plan"), 0, tx);
        wait_stderr(&mut w, "paused at plan");
        w.kill().unwrap();
        w.wait().unwrap();
        let lines: Vec<String> = rx.iter().map(|(_, l)| l).collect();
        assert!(lines.is_empty(), "{parts}: the killed worker reported {lines:?}");
        let world: serde_json::Value =
            serde_json::from_str(&ok(&["realm", "show", "--db", &parts, "--token", &token_b, "--at", T0])).unwrap();
        assert_eq!(world["round"], 0, "{parts}");
        let (tx, rx) = mpsc::channel();
        let mut again = worker(&parts, None, 1, tx);
        assert!(again.wait().unwrap().success(), "{parts}");
        let lines: Vec<String> = rx.iter().map(|(_, l)| l).collect();
        assert_eq!(lines.iter().filter(|l| l.starts_with("planned round 0: 2 parts")).count(), 1, "{lines:?}");
        assert_eq!(lines.iter().filter(|l| l.starts_with("resolved part")).count(), 2, "{lines:?}");
        let show = |db: &str, t: &str, round: bool| {
            let mut args = vec!["realm", "show", "--db", db, "--token", t, "--at", T0];
            if round {
                args.extend(["--round", "0"]);
            }
            ok(&args)
        };
        assert_eq!(show(&single, &token_a, true), show(&parts, &token_b, true), "{parts}: the round differs");
        assert_eq!(show(&single, &token_a, false), show(&parts, &token_b, false), "{parts}: the world differs");
    }
}
