//! The five-queen transfer (CA-19, CA-20, A-CA16) on SQLite and (with `VARIA_PG_URL`)
//! PostgreSQL. A join's three boards lie in one region, the cities first in config
//! order, each ring by ring from [0,0] in (y, x) order. Home is boards [-1,-1]..[1,0]:
//! alice [0,0] [-1,-1] [0,-1] and bob [1,-1] [-1,0] [1,0], 3 boards and 15 pieces each
//! (alice is its mayor, the earliest joiner on a tie, A-CA14; it is the home of both).
//! Far is [3,-2]..[5,-2]: carol joins it whole, [3,-2] (ring 3), [4,-2], [5,-2] (corner
//! of [3,-2] (15,-10): K (17,-8), Q (17,-7), R (16,-8), B (18,-8), N (17,-9)). Empty and
//! Lone (two boards each) have no room for an empire, so dave and erin join the ground:
//! dave ring 1's top row [-1,1] [0,1] [1,1], erin ring 2's first, [-2,-2] [-1,-2] [0,-2].
//! (Before empires were kept in one region, erin held Far's [2,-2] and bob one board of
//! Home; the cities moved so that the same refusals and the arrival still show.) Facing
//! Home (centre (0,-0.5)), Far's west side (midpoint (3,-2)) is nearest: distance²
//! 3² + 1.5² = 11.25, against 18.25 for south and north (midpoint (4,-2)) and 27.25 for
//! east. So the only active border board facing Home is [3,-2], carol's.

mod common;

use common::*;
use varia_realm::Error;
use varia_realm::service::Service;
use varia_realm::transfer::{Outcome, Transfer, facing_side};

const REALM: &str = "name = \"t\"\nround_hours = 6\nseed = 5\n\
    [[cities]]\nname = \"Home\"\nboards = [[-1, -1], [1, 0]]\n\
    [[cities]]\nname = \"Far\"\nboards = [[3, -2], [5, -2]]\n\
    [[cities]]\nname = \"Empty\"\nboards = [[-1, 3], [0, 3]]\n\
    [[cities]]\nname = \"Lone\"\nboards = [[-6, 5], [-5, 5]]\n\
    [[roads]]\nbetween = [\"Home\", \"Far\"]\n\
    [[roads]]\nbetween = [\"Home\", \"Empty\"]\n";

const CAROL: [(i32, i32); 5] = [(17, -8), (17, -7), (16, -8), (18, -8), (17, -9)];

fn refused(r: Result<Transfer, Error>) -> String {
    match r {
        Err(Error::Refused { message }) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn queens(s: &mut Service, p: &str) -> u32 {
    s.state().unwrap().vaults.get(p).and_then(|v| v.get("Q")).copied().unwrap_or(0)
}

/// The realm with five players; alice's vault holds `q` queens.
fn setup(open: &mut Opener, q: u32) -> (Service, varia_realm::ManualClock, Vec<String>) {
    let (mut s, clock) = realm_from(open(true).unwrap(), REALM);
    let joins: Vec<_> = ["alice", "bob", "carol", "dave", "erin"].iter().map(|p| s.join(p).unwrap()).collect();
    let boards: Vec<_> = joins.iter().map(|j| (j.boards.clone(), j.city.as_deref())).collect();
    assert_eq!(
        boards,
        [
            (vec![[0, 0], [-1, -1], [0, -1]], Some("Home")),
            (vec![[1, -1], [-1, 0], [1, 0]], Some("Home")),
            (vec![[3, -2], [4, -2], [5, -2]], Some("Far")),
            (vec![[-1, 1], [0, 1], [1, 1]], None),
            (vec![[-2, -2], [-1, -2], [0, -2]], None),
        ]
    );
    let tokens: Vec<String> = joins.into_iter().map(|j| j.token).collect();
    poke_world(open(false).unwrap().as_mut(), |st| {
        st.vaults.insert("alice".into(), [("Q".to_string(), q)].into());
    });
    (s, clock, tokens)
}

#[test]
fn the_side_facing_home_is_the_one_nearest_the_home_centre() {
    let cities = varia_realm::RealmConfig::parse(REALM, "r.toml").unwrap().cities;
    let city = |i: usize| varia_realm::store::City {
        id: i as i64 + 1,
        name: cities[i].name.clone(),
        boards: cities[i].boards,
        roads: vec![],
        mayor: None,
        motd: None,
        motd_at: None,
        renamed: None,
    };
    assert_eq!(facing_side(&city(1), &city(0)), vec![[3, -2]]);
    // From Far (centre (4, -2)), Home's east side (x = 1) is nearest: its midpoint
    // (1, -0.5) lies 3 and 1.5 away: 11.25, against 17 (south (0, -1)), 20 (north
    // (0, 0)) and 27.25 (west (-1, -0.5)).
    assert_eq!(facing_side(&city(0), &city(1)), vec![[1, -1], [1, 0]]);
    // From Lone (centre (-5.5, 5)) to Home: west (-1, -0.5) 20.25 + 30.25 = 50.5 against
    // north (0, 0) 30.25 + 25 = 55.25 (south 66.25, east 72.5): west, the column x = -1.
    assert_eq!(facing_side(&city(0), &city(3)), vec![[-1, -1], [-1, 0]]);
}

#[test]
fn a_transfer_needs_a_home_city_a_road_a_present_player_and_five_queens() {
    // CA-19, CA-20. Every refusal leaves alice's 7 queens and no transfer.
    for (name, mut open) in stores("transfer-refused") {
        let (mut s, clock, t) = setup(&mut open, 7);
        let (a, b, d) = (&t[0], &t[1], &t[3]);
        assert_eq!(refused(s.transfer(a, "Lone")), "no road leads from Home to Lone", "{name}");
        assert_eq!(refused(s.transfer(a, "Empty")), "nobody is present in Empty: no piece stands there");
        assert_eq!(refused(s.transfer(a, "Home")), "Home is your home city");
        assert_eq!(
            refused(s.transfer(d, "Far")),
            "dave holds no board in any city: a queen is sent from your home city"
        );
        assert_eq!(refused(s.transfer(b, "Far")), "a transfer costs 5 vault queens; bob's vault holds 0");
        assert!(matches!(s.transfer(a, "Atlantis"), Err(Error::NotFound { .. })), "{name}");
        clock.set(FIRST_DEADLINE_6H);
        assert!(matches!(s.transfer(a, "Far"), Err(Error::DeadlinePassed { round: 0, .. })), "{name}");
        assert_eq!(queens(&mut s, "alice"), 7, "{name}");
        assert_eq!(s.transfers(a).unwrap(), vec![], "{name}");
    }
}

#[test]
fn one_queen_arrives_on_the_border_facing_home_and_four_go_to_the_mayor_vault() {
    let mut runs = Vec::new();
    for (name, mut open) in stores("transfer-arrive").into_iter().chain(stores("transfer-arrive-twin")) {
        let (mut s, _, t) = setup(&mut open, 7);
        let a = &t[0];
        let boards_before = s.state().unwrap().boards;
        let sent = s.transfer(a, "Far").unwrap();
        assert_eq!(
            sent,
            Transfer { id: 1, round: 0, player: "alice".into(), from: "Home".into(), to: "Far".into(), outcome: None }
        );
        assert_eq!(queens(&mut s, "alice"), 2, "{name}: paid at once");
        assert_eq!(s.transfers(&t[1]).unwrap(), vec![], "{name}: bob does not see alice's transfer");
        s.advance(true).unwrap();
        let st = s.state().unwrap();
        let rec = s.record(0).unwrap();
        let Some(Outcome::Arrived { board, square, to_mayor }) = rec.transfers[0].outcome.clone() else {
            panic!("{name}: {:?}", rec.transfers)
        };
        assert_eq!((board, to_mayor), ([3, -2], 4), "{name}");
        let [x, y] = square;
        assert!((15..20).contains(&x) && (-10..-5).contains(&y), "{name}: {square:?} is on board [3,-2]");
        assert!(!CAROL.contains(&(x, y)), "{name}: {square:?} was empty");
        let here: Vec<_> = st.pieces.iter().filter(|p| (p.x, p.y) == (x, y)).collect();
        assert_eq!(here.len(), 1);
        assert_eq!((here[0].owner.as_str(), here[0].kind.as_str()), ("alice", "Q"), "{name}");
        assert_eq!(st.pieces.iter().filter(|p| p.owner == "alice").count(), 16, "{name}: 15 and the queen");
        assert_eq!(st.boards, boards_before, "{name}: no board opened or changed hands");
        assert_eq!(queens(&mut s, "alice"), 2, "{name}");
        assert_eq!(s.crown(a, "Home").unwrap().vault, [("Q".to_string(), 4)].into(), "{name}");
        assert_eq!(s.transfers(a).unwrap()[0].outcome, rec.transfers[0].outcome, "{name}");
        // The round's record is public: bob sees the arrival once it is resolved.
        assert_eq!(s.round(&t[1], 0).unwrap().transfers, rec.transfers);
        runs.push((name, serde_json::to_string(&rec).unwrap(), serde_json::to_string(&st).unwrap()));
    }
    for w in runs.windows(2) {
        assert_eq!(w[0].1, w[1].1, "{} and {}: the round's record differs", w[0].0, w[1].0);
        assert_eq!(w[0].2, w[1].2, "{} and {}: the state differs", w[0].0, w[1].0);
    }
}

#[test]
fn with_no_empty_square_facing_home_the_queens_go_back_within_the_vault_cap() {
    // A-CA16: carol's board [3,-2] is filled (20 more knights), so no queen can land.
    // alice: 50 queens, 45 after paying, 47 after the mayor gives her 2; the refund has
    // room for 3 of the 5 under the cap of 50, and 2 are destroyed (A-CA12).
    for (name, mut open) in stores("transfer-refund") {
        let (mut s, _, t) = setup(&mut open, 50);
        let a = &t[0];
        poke_world(open(false).unwrap().as_mut(), |st| {
            for y in -10..-5 {
                for x in 15..20 {
                    if !CAROL.contains(&(x, y)) {
                        st.pieces.push(varia::world::json::PieceJson { x, y, owner: "carol".into(), kind: "N".into() });
                    }
                }
            }
            st.pieces.sort_by_key(|p| (p.y, p.x));
        });
        poke_sql(open(false).unwrap().as_mut(), "INSERT INTO mayor_vault (city, kind, count) VALUES (1, 'Q', 2)");
        s.transfer(a, "Far").unwrap();
        s.donate(a, "Home", "alice", "Q", 2).unwrap();
        assert_eq!(queens(&mut s, "alice"), 47, "{name}");
        s.advance(true).unwrap();
        assert_eq!(
            s.record(0).unwrap().transfers[0].outcome,
            Some(Outcome::Refunded {
                refunded: 3,
                destroyed: 2,
                reason: "no active border board of Far facing Home has an empty square".into()
            }),
            "{name}"
        );
        assert_eq!(queens(&mut s, "alice"), 50, "{name}");
        assert_eq!(s.crown(a, "Home").unwrap().vault, [("Q".to_string(), 0)].into(), "{name}: nothing to the mayor");
        assert_eq!(s.state().unwrap().pieces.iter().filter(|p| p.owner == "alice").count(), 15, "{name}");
    }
}
