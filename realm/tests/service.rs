//! The service over its stores (SQLite always, PostgreSQL when `VARIA_PG_URL` is set):
//! realms, joins, tokens, orders until the deadline, rounds due by the clock, the
//! migrations. Positions are worked out from CA-03 and scripts/caissan/variant.toml:
//! a board [bx, by] has its corner at (5bx, 5by) and holds K +(2,2), Q +(2,3),
//! R +(1,2), B +(3,2), N +(2,1). Joins take boards ring by ring from [0, 0], each ring
//! in (y, x) order: the first player [0,0] [-1,-1] [0,-1], the second [1,-1] [-1,0] [1,0].

mod common;

use common::*;
use varia_realm::Error;
use varia_realm::service::Service;

fn has_piece(s: &varia::world::json::StateJson, x: i32, y: i32, owner: &str, kind: &str) -> bool {
    s.pieces.iter().any(|p| p.x == x && p.y == y && p.owner == owner && p.kind == kind)
}

#[test]
fn a_new_realm_keeps_its_settings_and_its_first_deadline() {
    for (name, mut open) in stores("settings") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 7);
        let m = s.meta().unwrap();
        assert_eq!((m.round_hours, m.seed, m.created_at), (6, 7, T0), "{name}");
        assert_eq!(m.deadline, FIRST_DEADLINE_6H, "{name}");
        drop(s);
        let mut again =
            Service::open(open(false).unwrap(), std::sync::Arc::new(varia_realm::ManualClock::new(T0))).unwrap();
        assert_eq!(again.meta().unwrap(), m, "{name}: reopened");
        assert_eq!(again.state().unwrap().round, 0);
    }
}

#[test]
fn deadlines_fall_on_utc_multiples_of_the_round() {
    use varia_realm::config::next_deadline;
    // 10 h = 36,000 s: 1,000,000 / 36,000 = 27.7, so 28 × 36,000.
    assert_eq!(next_deadline(T0, 10), 1_008_000);
    // 24 h: the next midnight UTC, 86,400 × 12.
    assert_eq!(next_deadline(T0, 24), 1_036_800);
    // On a multiple, the next one (the deadline is strictly after).
    assert_eq!(next_deadline(1_008_000, 10), 1_044_000);
    assert_eq!(next_deadline(-1, 6), 0);
}

#[test]
fn a_config_with_another_round_length_or_an_unknown_key_is_refused() {
    let e = varia_realm::RealmConfig::parse("name = \"x\"\nround_hours = 7\n", "r.toml").unwrap_err();
    assert_eq!(e.to_string(), "r.toml: round_hours = 7: a realm's rounds last 6, 10 or 24 hours");
    let e = varia_realm::RealmConfig::parse("name = \"x\"\nround_hours = 6\nsed = 1\n", "r.toml").unwrap_err();
    assert!(e.to_string().contains("unknown field `sed`"), "{e}");
    let c = varia_realm::RealmConfig::parse("name = \"x\"\nround_hours = 24\nseed = 3\n", "r.toml").unwrap();
    assert_eq!((c.variant.as_str(), c.round_hours, c.seed, c.sector_boards), ("caissan", 24, 3, 10));
    let c = varia_realm::RealmConfig::parse("name = \"x\"\nround_hours = 6\nsector_boards = 4\n", "r.toml").unwrap();
    assert_eq!(c.sector_boards, 4);
    for bad in [0, -3, 10_001] {
        let text = format!("name = \"x\"\nround_hours = 6\nsector_boards = {bad}\n");
        let e = varia_realm::RealmConfig::parse(&text, "r.toml").unwrap_err();
        assert_eq!(e.to_string(), format!("r.toml: sector_boards = {bad}: a sector is 1 to 10000 boards a side"));
    }
    // Cities (CA-19): every problem at once — a bad name, a reversed rectangle, two
    // cities with no empty board between them, a road to nowhere, a road twice.
    let text = "name = \"x\"\nround_hours = 6\n\
        [[cities]]\nname = \"A\"\nboards = [[0, 0], [2, 2]]\n\
        [[cities]]\nname = \"B\"\nboards = [[3, 0], [4, 1]]\n\
        [[cities]]\nname = \"C!\"\nboards = [[9, 9], [8, 9]]\n\
        [[roads]]\nbetween = [\"A\", \"Z\"]\n\
        [[roads]]\nbetween = [\"A\", \"B\"]\n\
        [[roads]]\nbetween = [\"B\", \"A\"]\n";
    let e = varia_realm::RealmConfig::parse(text, "r.toml").unwrap_err().to_string();
    for want in [
        "cities[1] `B` touches cities[0] `A`: cities are separated by empty ground (CA-19), at least one board",
        "cities[2]: `C!` is not a city name",
        "cities[2] `C!`: boards = [[x0, y0], [x1, y1]] needs x0 ≤ x1 and y0 ≤ y1",
        "roads[0]: no city is called `Z`",
        "roads[2]: `B` and `A` already have a road",
    ] {
        assert!(e.contains(want), "missing {want:?} in {e}");
    }
    // One empty board between them is enough; a diagonal neighbour touches.
    let ok = "name = \"x\"\nround_hours = 6\n[[cities]]\nname = \"A\"\nboards = [[0, 0], [2, 2]]\n\
        [[cities]]\nname = \"B\"\nboards = [[4, 0], [5, 1]]\n";
    assert_eq!(varia_realm::RealmConfig::parse(ok, "r.toml").unwrap().cities.len(), 2);
    let diagonal = "name = \"x\"\nround_hours = 6\n[[cities]]\nname = \"A\"\nboards = [[0, 0], [2, 2]]\n\
        [[cities]]\nname = \"B\"\nboards = [[3, 3], [5, 5]]\n";
    assert!(varia_realm::RealmConfig::parse(diagonal, "r.toml").unwrap_err().to_string().contains("touches"));
    // join_ground: true unless said; false needs a city to join (else nobody ever could).
    assert!(varia_realm::RealmConfig::parse(ok, "r.toml").unwrap().join_ground);
    let closed = format!("join_ground = false\n{ok}");
    assert!(!varia_realm::RealmConfig::parse(&closed, "r.toml").unwrap().join_ground);
    let e = varia_realm::RealmConfig::parse("name = \"x\"\nround_hours = 6\njoin_ground = false\n", "r.toml");
    assert_eq!(
        e.unwrap_err().to_string(),
        "r.toml: join_ground = false with no [[cities]]: nobody could ever join (a new empire lies in a city or, \
         with join_ground = true, on the open ground)"
    );
    let e = varia_realm::RealmConfig::parse("name = \"x\"\nround_hours = 6\njoin_ground = 0\n", "r.toml");
    assert!(e.unwrap_err().to_string().contains("join_ground"));
}

#[test]
fn an_existing_realm_is_never_overwritten() {
    for (name, mut open) in stores("overwrite") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 1);
        s.join("alice").unwrap();
        drop(s);
        match open(true) {
            Err(Error::Exists { .. }) => {}
            Err(e) => panic!("{name}: {e}"),
            Ok(_) => panic!("{name}: made a second realm over the first"),
        }
        let mut s =
            Service::open(open(false).unwrap(), std::sync::Arc::new(varia_realm::ManualClock::new(T0))).unwrap();
        assert_eq!(s.state().unwrap().players, vec!["alice"], "{name}: the realm is intact");
    }
}

#[test]
fn joins_get_three_boards_ring_by_ring_with_the_starting_pieces() {
    for (name, mut open) in stores("join") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 1);
        let a = s.join("alice").unwrap();
        let b = s.join("bob").unwrap();
        assert_eq!(a.boards, vec![[0, 0], [-1, -1], [0, -1]], "{name}");
        assert_eq!(b.boards, vec![[1, -1], [-1, 0], [1, 0]], "{name}");
        let st = s.state().unwrap();
        assert_eq!(st.players, vec!["alice", "bob"]);
        assert_eq!(st.pieces.len(), 30, "{name}: 6 boards of 5 pieces");
        for (x, y, k) in [(2, 2, "K"), (2, 3, "Q"), (1, 2, "R"), (3, 2, "B"), (2, 1, "N"), (-3, -3, "K")] {
            assert!(has_piece(&st, x, y, "alice", k), "{name}: alice's {k} on ({x}, {y})");
        }
        for (x, y, k) in [(7, 2, "K"), (-2, 2, "B"), (7, -3, "K")] {
            assert!(has_piece(&st, x, y, "bob", k), "{name}: bob's {k} on ({x}, {y})");
        }
        assert!(matches!(s.join("alice"), Err(Error::PlayerTaken { .. })), "{name}");
        assert!(matches!(s.join("../x"), Err(Error::BadPlayer { .. })), "{name}");
        assert!(matches!(s.join(""), Err(Error::BadPlayer { .. })), "{name}");
        assert_eq!(s.state().unwrap().players.len(), 2, "{name}: refused joins changed nothing");
    }
}

#[test]
fn a_token_is_random_shown_once_and_only_its_hash_is_kept() {
    use sha2::Digest;
    let dir = scratch("token");
    let path = dir.join("realm.db");
    let (mut s, _) = realm(Box::new(varia_realm::SqliteStore::open(&path, true).unwrap()), 6, 1);
    let a = s.join("alice").unwrap();
    let b = s.join("bob").unwrap();
    let secret = a.token.strip_prefix("alice:").expect("the token names its player");
    assert_eq!(secret.len(), 64);
    assert!(secret.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(a.token.split(':').nth(1), b.token.split(':').nth(1), "two tokens differ");
    drop(s);
    let db = rusqlite::Connection::open(&path).unwrap();
    let stored: Vec<u8> = db.query_row("SELECT token_hash FROM players WHERE id = 'alice'", [], |r| r.get(0)).unwrap();
    assert_eq!(stored, sha2::Sha256::digest(a.token.as_bytes()).to_vec());
    drop(db);
    // The secret itself is nowhere in the database's files.
    for f in std::fs::read_dir(&dir).unwrap() {
        let bytes = std::fs::read(f.unwrap().path()).unwrap();
        assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "the token is stored in clear");
    }
}

#[test]
fn a_wrong_or_borrowed_token_is_refused() {
    for (name, mut open) in stores("auth") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 1);
        let a = s.join("alice").unwrap();
        let b = s.join("bob").unwrap();
        assert_eq!(s.view(&a.token).unwrap().player, "alice");
        let mut wrong = a.token.clone();
        let last = wrong.pop().unwrap();
        wrong.push(if last == '0' { '1' } else { '0' });
        // Bob's secret under alice's name, a stranger, no secret at all.
        let borrowed = format!("alice:{}", b.token.split(':').nth(1).unwrap());
        let stranger = format!("carol:{}", a.token.split(':').nth(1).unwrap());
        for t in [wrong.as_str(), borrowed.as_str(), stranger.as_str(), "alice", "", "alice:"] {
            assert!(matches!(s.view(t), Err(Error::Unauthorized)), "{name}: `{t}` let in");
            assert!(matches!(s.submit(t, &[], None), Err(Error::Unauthorized)), "{name}: `{t}` ordered");
        }
    }
}

#[test]
fn orders_are_judged_like_the_resolver_and_a_refused_list_stores_nothing() {
    for (name, mut open) in stores("orders") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 1);
        let a = s.join("alice").unwrap();
        s.join("bob").unwrap();
        let q = j(r#"{"type":"move","from":[2,3],"to":[2,4]}"#);
        let ok = s.submit(&a.token, std::slice::from_ref(&q), Some(0)).unwrap();
        assert_eq!(ok.round, 0);
        assert_eq!(ok.deadline, FIRST_DEADLINE_6H);
        assert_eq!(ok.verdicts.len(), 1);
        assert!(ok.verdicts[0].accepted, "{name}: {:?}", ok.verdicts);
        assert_eq!(s.view(&a.token).unwrap().orders, Some(vec![q.clone()]));

        // Bob's bishop on (-2,2) is guarded by bob's queen on (-3,3) (CA-06); moving
        // bob's king on (7,2) is not alice's to do. Neither list is stored.
        let guarded = j(r#"{"type":"move","from":[1,2],"to":[-2,2]}"#);
        let theirs = j(r#"{"type":"move","from":[7,2],"to":[7,1]}"#);
        let pass = j(r#"{"type":"pass","board":[0,-1]}"#);
        match s.submit(&a.token, &[pass.clone(), guarded, theirs], None) {
            Err(Error::OrdersRefused { given: 3, refused: 2, verdicts }) => {
                assert!(verdicts[0].accepted);
                assert!(verdicts[1].reason.contains("guarded by bob's queen"), "{name}: {}", verdicts[1].reason);
                assert!(verdicts[2].reason.contains("is not yours (it is bob's)"), "{name}: {}", verdicts[2].reason);
            }
            other => panic!("{name}: {other:?}"),
        }
        assert_eq!(s.view(&a.token).unwrap().orders, Some(vec![q.clone()]), "{name}: the earlier list stands");

        // Replacing: the new list takes the old one's place.
        s.submit(&a.token, std::slice::from_ref(&pass), None).unwrap();
        assert_eq!(s.view(&a.token).unwrap().orders, Some(vec![pass]), "{name}");
        assert!(matches!(s.submit(&a.token, &[], Some(3)), Err(Error::WrongRound { given: 3, current: 0 })));
        let bad = j(r#"{"type":"teleport"}"#);
        match s.submit(&a.token, &[bad], None) {
            Err(Error::OrdersRefused { verdicts, .. }) => {
                assert!(verdicts[0].reason.starts_with("not an order:"), "{}", verdicts[0].reason)
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn orders_close_at_the_deadline_and_the_round_resolves_then() {
    for (name, mut open) in stores("deadline") {
        let (mut s, clock) = realm(open(true).unwrap(), 6, 1);
        let a = s.join("alice").unwrap();
        let b = s.join("bob").unwrap();
        s.submit(&a.token, &[j(r#"{"type":"move","from":[2,3],"to":[2,4]}"#)], None).unwrap();
        assert_eq!(s.advance(false).unwrap(), vec![], "{name}: not due yet");
        clock.set(FIRST_DEADLINE_6H - 1);
        s.submit(&b.token, &[j(r#"{"type":"pass","board":[1,0]}"#)], None).unwrap();
        clock.set(FIRST_DEADLINE_6H);
        assert!(
            matches!(
                s.submit(&b.token, &[], None),
                Err(Error::DeadlinePassed { round: 0, deadline: FIRST_DEADLINE_6H })
            ),
            "{name}"
        );
        let done = s.advance(false).unwrap();
        assert_eq!(done.len(), 1, "{name}");
        assert_eq!(
            (done[0].round, done[0].resolved_at, done[0].next_deadline),
            (0, FIRST_DEADLINE_6H, FIRST_DEADLINE_6H + 21_600)
        );
        let st = s.state().unwrap();
        assert_eq!(st.round, 1);
        assert!(has_piece(&st, 2, 4, "alice", "Q"), "{name}: the queen moved");
        assert!(!st.pieces.iter().any(|p| p.x == 2 && p.y == 3), "{name}");
        assert_eq!(st.time, Some(FIRST_DEADLINE_6H));
        // The record reveals both players' orders and keeps the seed.
        let rec = s.record(0).unwrap();
        assert_eq!(rec.orders.keys().collect::<Vec<_>>(), vec!["alice", "bob"]);
        assert_eq!(rec.seed, varia_realm::service::round_seed(1, 0));
        assert_eq!(rec.output["validation"]["alice"]["results"][0]["accepted"], true);
        // Orders now go to round 1.
        assert_eq!(s.submit(&b.token, &[], None).unwrap().round, 1);
        assert!(matches!(s.record(1), Err(Error::NoSuchRound { round: 1 })));
    }
}

#[test]
fn a_realm_left_alone_catches_up_every_due_round_and_now_resolves_one_early() {
    for (name, mut open) in stores("catchup") {
        let (mut s, clock) = realm(open(true).unwrap(), 6, 1);
        s.join("alice").unwrap();
        // --now before the deadline: round 0 at T0; the next deadline is still the
        // first multiple after T0.
        let one = s.advance(true).unwrap();
        assert_eq!(
            one,
            vec![varia_realm::service::Advanced {
                round: 0,
                resolved_at: T0,
                next_deadline: FIRST_DEADLINE_6H,
                events: one[0].events
            }]
        );
        // Two periods past the deadline: rounds 1, 2 and 3 are due (deadlines
        // 1,015,200, 1,036,800 and 1,058,400).
        clock.set(FIRST_DEADLINE_6H + 2 * 21_600);
        let done = s.advance(false).unwrap();
        let rounds: Vec<(u64, i64)> = done.iter().map(|a| (a.round, a.resolved_at)).collect();
        assert_eq!(rounds, vec![(1, 1_015_200), (2, 1_036_800), (3, 1_058_400)], "{name}");
        assert_eq!(s.meta().unwrap().deadline, 1_080_000);
        let st = s.state().unwrap();
        assert_eq!(st.round, 4);
        assert_eq!(st.idle.get("alice"), Some(&4), "{name}: four rounds without orders");
    }
}

#[test]
fn the_same_realm_and_orders_resolve_to_the_same_bytes() {
    let mut outputs = Vec::new();
    for (name, mut open) in stores("determinism").into_iter().chain(stores("determinism2")) {
        let (mut s, clock) = realm(open(true).unwrap(), 6, 9);
        let a = s.join("alice").unwrap();
        s.join("bob").unwrap();
        s.submit(&a.token, &[j(r#"{"type":"move","from":[1,2],"to":[-1,2]}"#)], None).unwrap();
        clock.set(FIRST_DEADLINE_6H);
        s.advance(false).unwrap();
        let rec = s.record(0).unwrap();
        outputs.push((name, serde_json::to_string(&rec).unwrap(), serde_json::to_string(&s.state().unwrap()).unwrap()));
    }
    for w in outputs.windows(2) {
        assert_eq!(w[0].1, w[1].1, "{} and {} differ", w[0].0, w[1].0);
        assert_eq!(w[0].2, w[1].2);
    }
}

#[test]
fn a_schema_newer_than_this_build_is_refused_and_an_old_one_migrates() {
    let dir = scratch("schema");
    let path = dir.join("realm.db");
    let (s, _) = realm(Box::new(varia_realm::SqliteStore::open(&path, true).unwrap()), 6, 1);
    drop(s);
    let db = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = db.query_row("SELECT version FROM schema_version", [], |r| r.get(0)).unwrap();
    assert_eq!(v, varia_realm::store::SCHEMA_VERSION);
    db.execute("UPDATE schema_version SET version = 99", []).unwrap();
    drop(db);
    let clock = std::sync::Arc::new(varia_realm::ManualClock::new(T0));
    let e = Service::open(Box::new(varia_realm::SqliteStore::open(&path, false).unwrap()), clock).err().unwrap();
    assert!(matches!(e, Error::SchemaTooNew { found: 99, .. }), "{e}");
    // A realm of schema version 1 (before sectors had a size, and cities): opening it
    // migrates it, with the sector of A-CA1, 10 boards a side, and keeps the rest.
    let db = rusqlite::Connection::open(&path).unwrap();
    db.execute_batch(
        "DROP TABLE takeovers; \
         ALTER TABLE realm_meta DROP COLUMN rejoin_keeps_vault; ALTER TABLE realm_meta DROP COLUMN join_ground; \
         DROP TABLE round_parts; DROP TABLE round_plans; ALTER TABLE realm_meta DROP COLUMN resolving; \
         DROP TABLE transfers; DROP TABLE donations; DROP TABLE mayor_vault; DROP TABLE mayors; \
         DROP TABLE roads; DROP TABLE cities; ALTER TABLE realm_meta DROP COLUMN sector_boards; \
         UPDATE schema_version SET version = 1",
    )
    .unwrap();
    drop(db);
    let clock = std::sync::Arc::new(varia_realm::ManualClock::new(T0));
    let mut old = Service::open(Box::new(varia_realm::SqliteStore::open(&path, false).unwrap()), clock).unwrap();
    let m = old.meta().unwrap();
    assert_eq!((m.sector_boards, m.round_hours, m.seed, m.join_ground), (10, 6, 1, true));
    drop(old);
    let db = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = db.query_row("SELECT version FROM schema_version", [], |r| r.get(0)).unwrap();
    assert_eq!(v, varia_realm::store::SCHEMA_VERSION);
    drop(db);
    // A file that is not a realm.
    let other = dir.join("other.db");
    rusqlite::Connection::open(&other).unwrap().execute("CREATE TABLE x (y INTEGER)", []).unwrap();
    let clock = std::sync::Arc::new(varia_realm::ManualClock::new(T0));
    assert!(Service::open(Box::new(varia_realm::SqliteStore::open(&other, false).unwrap()), clock).is_err());
}

#[test]
fn a_realm_of_schema_version_5_migrates_and_goes_on_joining_on_the_ground() {
    // Version 6 adds realm_meta.join_ground, 1 by default: a realm made before it placed
    // every empire ring by ring, on the ground too, and goes on doing so.
    for (name, mut open) in stores("schema-5") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 1);
        s.join("alice").unwrap();
        drop(s);
        let mut db = open(false).unwrap();
        poke_sql(db.as_mut(), "DROP TABLE takeovers");
        poke_sql(db.as_mut(), "ALTER TABLE realm_meta DROP COLUMN rejoin_keeps_vault");
        poke_sql(db.as_mut(), "ALTER TABLE realm_meta DROP COLUMN join_ground");
        poke_sql(db.as_mut(), "UPDATE schema_version SET version = 5");
        drop(db);
        let clock = std::sync::Arc::new(varia_realm::ManualClock::new(T0));
        let mut s = Service::open(open(false).unwrap(), clock).unwrap();
        let m = s.meta().unwrap();
        assert_eq!((m.join_ground, m.round_hours, m.seed), (true, 6, 1), "{name}");
        // bob's empire is the second ring by ring, on the ground (the realm has no city).
        let b = s.join("bob").unwrap();
        assert_eq!((b.boards, b.city), (vec![[1, -1], [-1, 0], [1, 0]], None), "{name}");
        drop(s);
        let mut db = open(false).unwrap();
        let mut tx = db.begin(varia_realm::db::Mode::Read).unwrap();
        let v = tx.query("SELECT version FROM schema_version", &[]).unwrap()[0][0].int().unwrap();
        assert_eq!(v, varia_realm::store::SCHEMA_VERSION, "{name}");
        assert_eq!(v, 8, "{name}");
    }
}

#[test]
fn a_resolver_is_refused_while_another_holds_the_realm_and_goes_ahead_after() {
    use varia_realm::db::{Lock, Mode};
    for (name, mut open) in stores("lock") {
        let (mut s, clock) = realm(open(true).unwrap(), 6, 1);
        s.join("alice").unwrap();
        clock.set(FIRST_DEADLINE_6H);
        // Another resolver's transaction, as `resolve_one` opens it.
        let mut other = open(false).unwrap();
        let mut tx = other.begin(Mode::Write).unwrap();
        tx.lock_resolver().unwrap();
        tx.lock_meta(Lock::Update).unwrap();
        match s.advance(false) {
            Err(Error::ResolverBusy { .. }) => {}
            other => panic!("{name}: {other:?}"),
        }
        drop(tx);
        assert_eq!(s.advance(false).unwrap().len(), 1, "{name}");
        assert_eq!(s.state().unwrap().round, 1, "{name}: resolved once");
    }
}
