//! Takeovers (CA-18, issue 13): a join or a rejoin that places an empire on claimable
//! boards (their owner idle for `claimable_after` = 45 rounds) records each board for
//! its old owner, in the join's transaction, and the old owner alone sees them in their
//! view (`taken_over`). On SQLite and (with `VARIA_PG_URL`) PostgreSQL. Every expected
//! value is worked out by hand from RULES.md and realm/README.md.
//!
//! Joins in a realm without cities take the first three takeable boards ring by ring
//! from board [0, 0] (ring r: max(|bx|, |by|) = r), a ring in (y, x) order: alice gets
//! [0,0] [-1,-1] [0,-1], bob [1,-1] [-1,0] [1,0]. A board [bx, by] has its corner at
//! (5bx, 5by) and holds K +(2,2), Q +(2,3), R +(1,2), B +(3,2), N +(2,1) (CA-03). A board
//! is takeable when free (no owner, no piece) or claimable (its owner idle 45 rounds or
//! more, scripts/caissan/variant.toml `claimable_after = 45`).
//!
//! Clock: T0 = 1,000,000; the first 6-hour deadline is 1,015,200.

mod common;

use common::*;
use varia::world::json::{PieceJson, StateJson};
use varia_realm::service::Service;
use varia_realm::store::TakenOver;
use varia_realm::{Error, ManualClock};

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

const NONE: Vec<TakenOver> = Vec::new();

fn took(board: [i32; 2], by: &str, round: u64, at: i64, pieces: u32) -> TakenOver {
    TakenOver { board, by: by.to_string(), round, at, pieces }
}

/// Every stored takeover, as (round, board, old owner, new owner, at, pieces), in the
/// table's key order.
type Row = (i64, [i64; 2], String, String, i64, i64);
fn rows(open: &mut Opener) -> Vec<Row> {
    let mut db = open(false).unwrap();
    let mut tx = db.begin(varia_realm::db::Mode::Read).unwrap();
    let sql = "SELECT round, board_x, board_y, old_owner, new_owner, at, pieces FROM takeovers \
               ORDER BY round, board_x, board_y";
    tx.query(sql, &[])
        .unwrap()
        .iter()
        .map(|r| {
            let i = |k: usize| r[k].int().unwrap();
            let t = |k: usize| r[k].text().unwrap().to_string();
            (i(0), [i(1), i(2)], t(3), t(4), i(5), i(6))
        })
        .collect()
}

fn set_idle(open: &mut Opener, p: &str, n: u32) {
    poke_world(open(false).unwrap().as_mut(), |st| {
        st.idle.insert(p.to_string(), n);
    });
}

/// alice and bob join at T0; alice is then idle 45 rounds (her boards claimable), her
/// queen on [0,0] (2, 3) is gone, and a knight of bob's stands on her board [0,-1] at
/// (0, -5). carol joins at T0 + 60 and takes alice's three boards.
fn carol_takes_alices_boards(open: &mut Opener) -> (Service, ManualClock, [String; 3]) {
    let (mut s, clock) = realm(open(true).unwrap(), 6, 1);
    let a = s.join("alice").unwrap().token;
    let b = s.join("bob").unwrap().token;
    poke_world(open(false).unwrap().as_mut(), |st| {
        st.idle.insert("alice".into(), 45);
        remove_pieces(st, &[(2, 3)]);
        st.pieces.push(PieceJson { x: 0, y: -5, owner: "bob".into(), kind: "N".into() });
    });
    clock.set(T0 + 60);
    let c = s.join("carol").unwrap();
    assert_eq!((c.boards.clone(), c.city.clone(), c.round), (vec![[0, 0], [-1, -1], [0, -1]], None, 0));
    (s, clock, [a, b, c.token])
}

#[test]
fn a_join_on_claimable_boards_records_each_for_the_old_owner_who_alone_sees_it() {
    for (name, mut open) in stores("takeover-join") {
        let (mut s, _, t) = carol_takes_alices_boards(&mut open);
        // Stored in the join's transaction: one row per board, the open round (0), the
        // join's time, and alice's pieces that stood there: 5, 5 (bob's knight on
        // [0,-1] is not hers), and 4 on [0,0] (her queen was gone).
        let at = T0 + 60;
        let row = |b: [i64; 2], n: i64| -> Row { (0, b, "alice".to_string(), "carol".to_string(), at, n) };
        assert_eq!(rows(&mut open), [row([-1, -1], 5), row([0, -1], 5), row([0, 0], 4)], "{name}");
        // The boards are wiped and carol's (CA-18): alice has no board and no piece left,
        // bob's knight on [0,-1] is gone too, carol has the starting pieces.
        let st = s.state().unwrap();
        let carol = [[-1, -1], [0, -1], [0, 0]];
        assert_eq!(boards_of(&st, "carol"), carol, "{name}");
        assert_eq!(pieces_of(&st, "carol"), start_pieces(&carol), "{name}");
        assert!(boards_of(&st, "alice").is_empty() && pieces_of(&st, "alice").is_empty(), "{name}");
        assert_eq!(pieces_of(&st, "bob"), start_pieces(&[[1, -1], [-1, 0], [1, 0]]), "{name}");
        // alice's view lists them by round, time, then board in (y, x) order; bob's and
        // the new owner's list nothing.
        let want =
            vec![took([-1, -1], "carol", 0, at, 5), took([0, -1], "carol", 0, at, 5), took([0, 0], "carol", 0, at, 4)];
        assert_eq!(s.view(&t[0]).unwrap().taken_over, want, "{name}");
        assert_eq!(s.view(&t[1]).unwrap().taken_over, NONE, "{name}");
        assert_eq!(s.view(&t[2]).unwrap().taken_over, NONE, "{name}");
        // A join on free boards takes nothing over: dave gets ring 1's y = 1 row, and
        // no row is added.
        let d = s.join("dave").unwrap();
        assert_eq!(d.boards, [[-1, 1], [0, 1], [1, 1]], "{name}");
        assert_eq!(rows(&mut open).len(), 3, "{name}");
        assert_eq!(s.view(&d.token).unwrap().taken_over, NONE, "{name}");
        assert_eq!(s.view(&t[0]).unwrap().taken_over, want, "{name}: unchanged");
    }
}

#[test]
fn a_rejoin_on_claimable_boards_records_them_and_the_old_list_stays_the_names() {
    for (name, mut open) in stores("takeover-rejoin") {
        let (mut s, clock, t) = carol_takes_alices_boards(&mut open);
        // Round 0, resolved at T0 + 60 with no orders: alice, with no board and no piece,
        // is eliminated (CA-17); bob, carol and dave are idle 1.
        let d = s.join("dave").unwrap().token;
        s.advance(true).unwrap();
        assert_eq!(s.state().unwrap().eliminated, ["alice"], "{name}");
        // bob is now idle 45 rounds: his boards are claimable; alice comes back (no
        // lockout after a loss) at T0 + 120, in round 1. Ring 0 [0,0] and ring 1's
        // [-1,-1] [0,-1] are carol's (idle 1); then bob's [1,-1] [-1,0] [1,0].
        set_idle(&mut open, "bob", 45);
        clock.set(T0 + 120);
        let j = s.rejoin(&t[0]).unwrap();
        assert_eq!((j.boards.clone(), j.round, j.deadline), (vec![[1, -1], [-1, 0], [1, 0]], 1, 1_015_200), "{name}");
        let at = T0 + 120;
        let bob =
            vec![took([1, -1], "alice", 1, at, 5), took([-1, 0], "alice", 1, at, 5), took([1, 0], "alice", 1, at, 5)];
        assert_eq!(s.view(&t[1]).unwrap().taken_over, bob, "{name}");
        // alice's own losses of round 0 stay hers through her new empire.
        let t0 = T0 + 60;
        let alice =
            vec![took([-1, -1], "carol", 0, t0, 5), took([0, -1], "carol", 0, t0, 5), took([0, 0], "carol", 0, t0, 4)];
        assert_eq!(s.view(&t[0]).unwrap().taken_over, alice, "{name}");
        assert_eq!(s.view(&t[2]).unwrap().taken_over, NONE, "{name}");
        assert_eq!(s.view(&d).unwrap().taken_over, NONE, "{name}");
        let r = rows(&mut open);
        assert_eq!(r.len(), 6, "{name}");
        assert_eq!(r[3], (1, [-1, 0], "bob".to_string(), "alice".to_string(), at, 5), "{name}");
        let st = s.state().unwrap();
        assert_eq!(pieces_of(&st, "alice"), start_pieces(&[[1, -1], [-1, 0], [1, 0]]), "{name}");
        assert!(pieces_of(&st, "bob").is_empty(), "{name}");
    }
}

#[test]
fn a_refused_join_or_rejoin_stores_no_takeover_and_45_idle_rounds_is_the_line() {
    // Caissa is boards [-1,-1]..[1,1] and no empire goes to the ground: alice, bob and
    // carol fill it ([0,0] [-1,-1] [0,-1]; [1,-1] [-1,0] [1,0]; [-1,1] [0,1] [1,1]).
    let config = "name = \"takeover\"\nround_hours = 6\nseed = 1\njoin_ground = false\n\
        [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n";
    for (name, mut open) in stores("takeover-refused") {
        let (mut s, _) = realm_from(open(true).unwrap(), config);
        let t: Vec<String> = ["alice", "bob", "carol"].iter().map(|p| s.join(p).unwrap().token).collect();
        // Idle 44 rounds: not yet claimable, so the city is full.
        set_idle(&mut open, "alice", 44);
        let before = dump(open(false).unwrap().as_mut());
        let e = s.join("dave").unwrap_err();
        assert!(matches!(e, Error::CitiesFull { want: 3 }), "{name}: {e:?}");
        assert_eq!(dump(open(false).unwrap().as_mut()), before, "{name}: nothing stored");
        // At 45 her boards are claimable; every refused call still stores nothing.
        set_idle(&mut open, "alice", 45);
        let before = dump(open(false).unwrap().as_mut());
        let forged = format!("alice:{}", "0".repeat(64));
        let refusals = [
            (s.join("alice").unwrap_err(), 409),
            (s.join("no name").unwrap_err(), 400),
            (s.rejoin(&t[0]).unwrap_err(), 409),
            (s.rejoin(&forged).unwrap_err(), 401),
        ];
        for (e, status) in refusals {
            assert_eq!(e.status(), status, "{name}: {e}");
        }
        assert_eq!(dump(open(false).unwrap().as_mut()), before, "{name}: nothing stored");
        assert_eq!(rows(&mut open), Vec::<Row>::new(), "{name}");
        // dave's join takes alice's three boards in Caissa.
        let d = s.join("dave").unwrap();
        assert_eq!((d.boards, d.city.as_deref()), (vec![[0, 0], [-1, -1], [0, -1]], Some("Caissa")), "{name}");
        let want =
            vec![took([-1, -1], "dave", 0, T0, 5), took([0, -1], "dave", 0, T0, 5), took([0, 0], "dave", 0, T0, 5)];
        assert_eq!(s.view(&t[0]).unwrap().taken_over, want, "{name}");
        assert_eq!(rows(&mut open).len(), 3, "{name}");
    }
}

#[test]
fn a_realm_of_schema_version_7_migrates_and_records_takeovers() {
    // Version 8 adds the takeovers table.
    for (name, mut open) in stores("takeover-schema-7") {
        let (mut s, _) = realm(open(true).unwrap(), 6, 1);
        let a = s.join("alice").unwrap().token;
        s.join("bob").unwrap();
        drop(s);
        let mut db = open(false).unwrap();
        poke_sql(db.as_mut(), "DROP TABLE takeovers");
        poke_sql(db.as_mut(), "UPDATE schema_version SET version = 7");
        drop(db);
        let clock = std::sync::Arc::new(ManualClock::new(T0));
        let mut s = Service::open(open(false).unwrap(), clock).unwrap();
        {
            let mut db = open(false).unwrap();
            let mut tx = db.begin(varia_realm::db::Mode::Read).unwrap();
            let v = tx.query("SELECT version FROM schema_version", &[]).unwrap()[0][0].int().unwrap();
            assert_eq!(v, 8, "{name}");
            assert_eq!(v, varia_realm::store::SCHEMA_VERSION, "{name}");
        }
        assert_eq!(s.view(&a).unwrap().taken_over, NONE, "{name}");
        set_idle(&mut open, "alice", 45);
        assert_eq!(s.join("carol").unwrap().boards, [[0, 0], [-1, -1], [0, -1]], "{name}");
        let want =
            vec![took([-1, -1], "carol", 0, T0, 5), took([0, -1], "carol", 0, T0, 5), took([0, 0], "carol", 0, T0, 5)];
        assert_eq!(s.view(&a).unwrap().taken_over, want, "{name}");
    }
}
