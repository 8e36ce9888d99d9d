//! Coming back under one's own name (CA-17, CA-18, issue 13): `Service::rejoin` and
//! `POST /rejoin`, on SQLite and (with `VARIA_PG_URL`) PostgreSQL. Every expected value is
//! worked out by hand from RULES.md and realm/README.md.
//!
//! The realm: Caissa is boards [-1,-1]..[1,1], Philidor [3,-1]..[4,1] (6-hour rounds).
//! Joins fill the cities in config order, each ring by ring from board [0, 0] (ring r:
//! max(|bx|, |by|) = r), a ring in (y, x) order: alice gets [0,0] [-1,-1] [0,-1], bob
//! [1,-1] [-1,0] [1,0], carol [-1,1] [0,1] [1,1]; Caissa is then full, and the next
//! empire goes to Philidor's ring 3 ([3,-1] [3,0] [3,1]), the one after to its ring 4
//! ([4,-1] [4,0] [4,1]). A board [bx, by] has its corner at (5bx, 5by) and holds K +(2,2),
//! Q +(2,3), R +(1,2), B +(3,2), N +(2,1) (CA-03).
//!
//! Clock: T0 = 1,000,000. Round 0 is resolved at T0 (`advance(true)`); the next deadlines
//! are the 6-hour multiples after it: 1,015,200, 1,036,800, 1,058,400, 1,080,000, 1,101,600.

mod common;

use std::collections::BTreeMap;

use common::*;
use serde_json::json;
use varia::world::json::StateJson;
use varia_realm::service::{Joined, Service};
use varia_realm::{Clock, Error, ManualClock};

const CAISSA: &str = "name = \"rejoin\"\nround_hours = 6\nseed = 1\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n\
    [[cities]]\nname = \"Philidor\"\nboards = [[3, -1], [4, 1]]\n\
    [[roads]]\nbetween = [\"Caissa\", \"Philidor\"]\n";

/// CA-18: carol abandons at T0 (`lockout_hours = 24`): locked out until T0 + 86,400.
const LOCKED_UNTIL: i64 = T0 + 86_400;
const CAROL_BOARDS: [[i32; 2]; 3] = [[-1, 1], [0, 1], [1, 1]];
const PHILIDOR_RING_3: [[i32; 2]; 3] = [[3, -1], [3, 0], [3, 1]];
const START: [(&str, i32, i32); 5] = [("K", 2, 2), ("Q", 2, 3), ("R", 1, 2), ("B", 3, 2), ("N", 2, 1)];

/// The starting pieces (CA-03) on these boards, as (x, y, kind), sorted.
fn start_pieces(boards: &[[i32; 2]]) -> Vec<(i32, i32, String)> {
    let mut v: Vec<_> = boards
        .iter()
        .flat_map(|&[bx, by]| START.iter().map(move |&(k, dx, dy)| (5 * bx + dx, 5 * by + dy, k.to_string())))
        .collect();
    v.sort();
    v
}

fn pieces_of(st: &StateJson, p: &str) -> Vec<(i32, i32, String)> {
    let mut v: Vec<_> = st.pieces.iter().filter(|pc| pc.owner == p).map(|pc| (pc.x, pc.y, pc.kind.clone())).collect();
    v.sort();
    v
}

fn boards_of(st: &StateJson, p: &str) -> Vec<[i32; 2]> {
    st.boards.iter().filter(|b| b.owner.as_deref() == Some(p)).map(|b| b.board).collect()
}

/// A vault as the state writes it: every kind the vault holds (CA-16: Q R B N), with its count.
fn vault(q: u32, r: u32) -> BTreeMap<String, u32> {
    [("B", 0), ("N", 0), ("Q", q), ("R", r)].into_iter().map(|(k, n)| (k.to_string(), n)).collect()
}

/// alice, bob and carol join Caissa at T0 (tokens in that order).
fn three(open: &mut Opener, config: &str) -> (Service, ManualClock, Vec<String>) {
    let (mut s, clock) = realm_from(open(true).unwrap(), config);
    let t = ["alice", "bob", "carol"].iter().map(|p| s.join(p).unwrap().token).collect();
    (s, clock, t)
}

/// carol abandons in round 0, resolved at T0: eliminated, locked out until T0 + 24 h.
fn abandoned(open: &mut Opener) -> (Service, ManualClock, Vec<String>) {
    let (mut s, clock, t) = three(open, CAISSA);
    s.submit(&t[2], &[json!({ "type": "abandon" })], None).unwrap();
    s.advance(true).unwrap();
    (s, clock, t)
}

/// carol's empire is conquered, as a conquest leaves the map (CA-14): her three boards
/// are alice's, none of her pieces stands anywhere; her vault holds 7 queens and 2
/// rooks. Round 0, resolved at T0, finds her with no board and no piece: eliminated
/// (CA-17: the vault does not count), vault kept, no lockout.
fn conquered(open: &mut Opener, config: &str) -> (Service, ManualClock, Vec<String>) {
    let (mut s, clock, t) = three(open, config);
    poke_world(open(false).unwrap().as_mut(), |st| {
        for b in st.boards.iter_mut().filter(|b| b.owner.as_deref() == Some("carol")) {
            b.owner = Some("alice".into());
        }
        st.pieces.retain(|p| p.owner != "carol");
        st.vaults.insert("carol".into(), vault(7, 2));
    });
    s.advance(true).unwrap();
    let st = s.state().unwrap();
    assert_eq!(st.eliminated, vec!["carol"]);
    assert_eq!(st.vaults["carol"], vault(7, 2));
    assert!(st.lockouts.is_empty());
    (s, clock, t)
}

fn joined(j: &Joined) -> (&str, Vec<[i32; 2]>, Option<&str>, u64, i64) {
    (j.player.as_str(), j.boards.clone(), j.city.as_deref(), j.round, j.deadline)
}

fn joined_at(open: &mut Opener, p: &str) -> i64 {
    let mut db = open(false).unwrap();
    let mut tx = db.begin(varia_realm::db::Mode::Read).unwrap();
    tx.query("SELECT joined_at FROM players WHERE id = ?1", &[p.into()]).unwrap()[0][0].int().unwrap()
}

fn still_playing(p: &str, boards: usize, pieces: usize) -> String {
    format!(
        "`{p}` still has an empire in this realm ({boards} boards, {pieces} pieces on the map): only a player whose \
         empire is gone (no board and no piece on the map, CA-17) starts a new one"
    )
}

fn locked_out() -> String {
    format!("`carol` abandoned an empire and is locked out until {LOCKED_UNTIL} (CA-18)")
}

#[test]
fn after_the_lockout_carol_comes_back_where_a_new_join_would_go_and_plays_the_next_round() {
    for (name, mut open) in stores("rejoin-lockout") {
        let (mut s, clock, t) = abandoned(&mut open);
        // Her boards are free again (CA-18: no owner, no piece): dave, new, takes them.
        clock.set(T0 + 1);
        let d = s.join("dave").unwrap();
        assert_eq!(joined(&d), ("dave", CAROL_BOARDS.to_vec(), Some("Caissa"), 1, 1_015_200), "{name}");
        // During the lockout: refused with its end (422), nothing stored.
        for at in [T0 + 1, LOCKED_UNTIL - 1] {
            clock.set(at);
            let before = dump(open(false).unwrap().as_mut());
            let e = s.rejoin(&t[2]).unwrap_err();
            assert!(matches!(e, Error::LockedOut { until: LOCKED_UNTIL, .. }), "{name}: {e:?}");
            assert_eq!((e.status(), e.to_string()), (422, locked_out()), "{name}");
            assert_eq!(dump(open(false).unwrap().as_mut()), before, "{name}: nothing stored at {at}");
        }
        // At the end of the lockout; the rounds due meanwhile are resolved first, as the
        // server's tick would have: rounds 1 to 4 at their deadlines, round 5 open.
        clock.set(LOCKED_UNTIL);
        let done: Vec<(u64, i64)> = s.advance(false).unwrap().iter().map(|a| (a.round, a.resolved_at)).collect();
        assert_eq!(done, [(1, 1_015_200), (2, 1_036_800), (3, 1_058_400), (4, 1_080_000)], "{name}");
        let st = s.state().unwrap();
        assert_eq!(st.idle.get("carol"), Some(&4), "{name}: no orders in rounds 1..4");
        assert_eq!(st.lockouts.get("carol"), Some(&LOCKED_UNTIL), "{name}");
        // A join by the bare name is still refused: the name is hers.
        let before = dump(open(false).unwrap().as_mut());
        let e = s.join("carol").unwrap_err();
        assert_eq!((e.status(), e.to_string()), (409, "`carol` is already a player of this realm".into()), "{name}");
        assert_eq!(dump(open(false).unwrap().as_mut()), before, "{name}: nothing stored");
        // Her token: Caissa is full (alice, bob, dave), so Philidor's ring 3.
        let j = s.rejoin(&t[2]).unwrap();
        assert_eq!(joined(&j), ("carol", PHILIDOR_RING_3.to_vec(), Some("Philidor"), 5, 1_101_600), "{name}");
        assert_eq!(j.token, t[2], "{name}: the token stays");
        assert_eq!(s.authenticate(&t[2]).unwrap(), "carol", "{name}");
        let st = s.state().unwrap();
        assert_eq!(st.players, ["alice", "bob", "dave", "carol"], "{name}: last in the join order (A-CA14)");
        assert!(st.eliminated.is_empty(), "{name}");
        assert!(st.lockouts.is_empty(), "{name}");
        // Idle counts: alice and bob gave no order in rounds 0..4, dave in 1..4; carol's
        // count starts again (absent: 0).
        assert_eq!(st.idle, [("alice".into(), 5), ("bob".into(), 5), ("dave".into(), 4)].into(), "{name}");
        assert_eq!(boards_of(&st, "carol"), PHILIDOR_RING_3, "{name}");
        assert_eq!(pieces_of(&st, "carol"), start_pieces(&PHILIDOR_RING_3), "{name}");
        assert_eq!(st.vaults["carol"], vault(0, 0), "{name}: the abandon emptied it");
        assert_eq!(joined_at(&mut open, "carol"), LOCKED_UNTIL, "{name}");
        // The only holder in Philidor: its mayor from now (CA-21).
        let philidor = s.cities(&t[2]).unwrap().into_iter().find(|c| c.name == "Philidor").unwrap();
        assert_eq!(philidor.mayor.as_deref(), Some("carol"), "{name}");
        // Round 5: her knight on [3, 0] leaps from (17, 1) to (16, 3) (empty); accepted,
        // and resolved.
        let knight = json!({ "type": "move", "from": [17, 1], "to": [16, 3] });
        let sub = s.submit(&t[2], std::slice::from_ref(&knight), None).unwrap();
        assert_eq!((sub.round, sub.verdicts[0].accepted), (5, true), "{name}: {:?}", sub.verdicts);
        let a = s.advance(true).unwrap();
        assert_eq!((a[0].round, a[0].resolved_at), (5, LOCKED_UNTIL), "{name}");
        assert_eq!(s.record(5).unwrap().orders.get("carol"), Some(&vec![knight]), "{name}");
        let st = s.state().unwrap();
        let mut want = start_pieces(&PHILIDOR_RING_3);
        want.retain(|p| (p.0, p.1) != (17, 1));
        want.push((16, 3, "N".into()));
        want.sort();
        assert_eq!(pieces_of(&st, "carol"), want, "{name}");
        assert_eq!(st.idle.get("carol"), None, "{name}: she gave orders");
        // And she cannot come back again while this empire stands.
        let e = s.rejoin(&t[2]).unwrap_err();
        assert_eq!((e.status(), e.to_string()), (409, still_playing("carol", 3, 15)), "{name}");
    }
}

#[test]
fn a_player_eliminated_by_conquest_comes_back_at_once_with_an_empty_vault_or_the_old_one() {
    // CA-17 keeps an eliminated player's vault; a new empire starts as any new one does,
    // with an empty vault (README, decided), unless the realm says rejoin_keeps_vault.
    let keeps = format!("rejoin_keeps_vault = true\n{CAISSA}");
    for (keep, config) in [(false, CAISSA), (true, keeps.as_str())] {
        for (name, mut open) in stores(if keep { "rejoin-conquest-keep" } else { "rejoin-conquest" }) {
            let (mut s, clock, t) = conquered(&mut open, config);
            assert_eq!(s.meta().unwrap().rejoin_keeps_vault, keep, "{name}");
            assert_eq!(s.state().unwrap().idle.get("carol"), Some(&1), "{name}");
            let before = dump(open(false).unwrap().as_mut());
            let e = s.join("carol").unwrap_err();
            assert_eq!((e.status(), e.to_string()), (409, "`carol` is already a player of this realm".into()));
            assert_eq!(dump(open(false).unwrap().as_mut()), before, "{name}: nothing stored");
            // No lockout: at once, at T0. Caissa is alice's (6 boards) and bob's (3).
            assert_eq!(clock.now(), T0);
            let j = s.rejoin(&t[2]).unwrap();
            assert_eq!(joined(&j), ("carol", PHILIDOR_RING_3.to_vec(), Some("Philidor"), 1, 1_015_200), "{name}");
            let st = s.state().unwrap();
            assert_eq!(st.players, ["alice", "bob", "carol"], "{name}");
            assert!(st.eliminated.is_empty() && !st.idle.contains_key("carol"), "{name}");
            assert_eq!(pieces_of(&st, "carol"), start_pieces(&PHILIDOR_RING_3), "{name}");
            let want = if keep { vault(7, 2) } else { vault(0, 0) };
            assert_eq!(st.vaults["carol"], want, "{name}: keep = {keep}");
            assert_eq!(s.view(&t[2]).unwrap().vault, want, "{name}");
            assert_eq!(joined_at(&mut open, "carol"), T0, "{name}");
        }
    }
}

#[test]
fn a_rejoin_is_refused_to_a_live_player_and_to_a_wrong_token_and_stores_nothing() {
    for (name, mut open) in stores("rejoin-refused") {
        let (mut s, _, t) = three(&mut open, CAISSA);
        // carol has given the order to abandon, but the round is not resolved: she still
        // holds her empire.
        s.submit(&t[2], &[json!({ "type": "abandon" })], None).unwrap();
        // bob's boards lose their owner, his pieces stay: not eliminated (CA-17).
        poke_world(open(false).unwrap().as_mut(), |st| {
            for b in st.boards.iter_mut().filter(|b| b.owner.as_deref() == Some("bob")) {
                b.owner = None;
            }
        });
        let before = dump(open(false).unwrap().as_mut());
        for (token, who, boards) in [(&t[0], "alice", 3), (&t[1], "bob", 0), (&t[2], "carol", 3)] {
            let e = s.rejoin(token).unwrap_err();
            assert!(matches!(e, Error::StillPlaying { .. }), "{name}: {e:?}");
            assert_eq!((e.status(), e.to_string()), (409, still_playing(who, boards, 15)), "{name}");
        }
        let forged = format!("carol:{}", "0".repeat(64));
        for bad in [forged.as_str(), "carol", "", "nobody:1234"] {
            let e = s.rejoin(bad).unwrap_err();
            assert!(matches!(e, Error::Unauthorized), "{name}: {bad:?}: {e:?}");
            assert_eq!(e.status(), 401, "{name}");
        }
        assert_eq!(dump(open(false).unwrap().as_mut()), before, "{name}: nothing stored");
    }
}

#[test]
fn a_rejoin_with_no_room_is_refused_as_a_join_and_stores_nothing() {
    // join_ground = false: carol, conquered, comes back only in a city. erin and frank
    // fill Philidor (rings 3 and 4), so no city has three free boards.
    let closed = format!("join_ground = false\n{CAISSA}");
    for (name, mut open) in stores("rejoin-full") {
        let (mut s, _, t) = conquered(&mut open, &closed);
        assert_eq!(s.join("erin").unwrap().boards, PHILIDOR_RING_3, "{name}");
        assert_eq!(s.join("frank").unwrap().boards, [[4, -1], [4, 0], [4, 1]], "{name}");
        let before = dump(open(false).unwrap().as_mut());
        let e = s.rejoin(&t[2]).unwrap_err();
        assert!(matches!(e, Error::CitiesFull { want: 3 }), "{name}: {e:?}");
        assert_eq!(e.status(), 422, "{name}");
        assert_eq!(dump(open(false).unwrap().as_mut()), before, "{name}: nothing stored");
        assert_eq!(s.state().unwrap().eliminated, vec!["carol"], "{name}");
    }
}

#[test]
fn post_rejoin_answers_as_post_join_and_401_without_the_right_token() {
    for (name, mut open) in stores("rejoin-http") {
        let (s, clock, t) = abandoned(&mut open);
        let http = serve(s);
        let (st, v) = http.call("POST", "/rejoin", None, None);
        assert_eq!((st, v["error"].as_str()), (401, Some("missing `Authorization: Bearer <token>`")), "{name}");
        let forged = format!("carol:{}", "0".repeat(64));
        let (st, v) = http.call("POST", "/rejoin", Some(&forged), None);
        assert_eq!((st, v["error"].as_str()), (401, Some("unknown player or wrong token")), "{name}");
        let (st, v) = http.call("POST", "/rejoin", Some(&t[0]), None);
        assert_eq!((st, v["error"].as_str()), (409, Some(still_playing("alice", 3, 15).as_str())), "{name}");
        let (st, v) = http.call("POST", "/rejoin", Some(&t[2]), None);
        assert_eq!((st, v["error"].as_str()), (422, Some(locked_out().as_str())), "{name}");
        // At the end of the lockout (no round resolved since T0: round 1 is open, its
        // deadline passed; a rejoin, like a join, does not wait for it).
        clock.set(LOCKED_UNTIL);
        let (st, v) = http.call("POST", "/rejoin", Some(&t[2]), None);
        let want = json!({
            "player": "carol",
            "token": t[2],
            "boards": CAROL_BOARDS,
            "city": "Caissa",
            "round": 1,
            "deadline": 1_015_200,
        });
        assert_eq!((st, &v), (201, &want), "{name}");
        let (st, v) = http.call("GET", "/world", Some(&t[2]), None);
        assert_eq!((st, v["player"].as_str()), (200, Some("carol")), "{name}");
        let (st, v) = http.call("POST", "/nope", Some(&t[2]), None);
        assert!(st == 404 && v["error"].as_str().unwrap().contains("POST /join, POST /rejoin,"), "{name}: {v}");
    }
}

#[test]
fn a_realm_of_schema_version_6_migrates_and_starts_comebacks_with_an_empty_vault() {
    // Version 7 adds realm_meta.rejoin_keeps_vault, 0 by default.
    for (name, mut open) in stores("rejoin-schema-6") {
        let (s, _, _) = conquered(&mut open, CAISSA);
        drop(s);
        let mut db = open(false).unwrap();
        poke_sql(db.as_mut(), "DROP TABLE takeovers");
        poke_sql(db.as_mut(), "ALTER TABLE realm_meta DROP COLUMN rejoin_keeps_vault");
        poke_sql(db.as_mut(), "UPDATE schema_version SET version = 6");
        drop(db);
        let clock = std::sync::Arc::new(ManualClock::new(T0));
        let mut s = Service::open(open(false).unwrap(), clock).unwrap();
        assert!(!s.meta().unwrap().rejoin_keeps_vault, "{name}");
        let mut db = open(false).unwrap();
        let mut tx = db.begin(varia_realm::db::Mode::Read).unwrap();
        let v = tx.query("SELECT version FROM schema_version", &[]).unwrap()[0][0].int().unwrap();
        assert_eq!(v, 8, "{name}");
    }
}
