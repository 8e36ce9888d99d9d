//! The five-queen transfer (CA-19, CA-20, A-CA16) on SQLite and (with `VARIA_PG_URL`)
//! PostgreSQL. Joins: alice [0,0] [-1,-1] [0,-1], bob [1,-1] [-1,0] [1,0], carol
//! [-1,1] [0,1] [1,1], dave [-2,-2] [-1,-2] [0,-2], erin [1,-2] [2,-2] [-2,-1]. Home is
//! boards [-1,-1]..[0,0] (alice 3, bob 1: alice is its mayor and its home for both);
//! Far is [2,-2]..[3,-2], where erin holds [2,-2] (corner (10,-10): K (12,-8), Q (12,-7),
//! R (11,-8), B (13,-8), N (12,-9)) and [3,-2] has no owner. Facing Home (centre
//! (-0.5,-0.5)), Far's west side (midpoint (2,-2)) is nearest: distance² (2.5² + 1.5²)
//! = 8.5, against 11.25 for south and north and 14.5 for east. So the only active
//! border board facing Home is [2,-2].

mod common;

use common::*;
use varia_realm::Error;
use varia_realm::service::Service;
use varia_realm::transfer::{Outcome, Transfer, facing_side};

const REALM: &str = "name = \"t\"\nround_hours = 6\nseed = 5\n\
    [[cities]]\nname = \"Home\"\nboards = [[-1, -1], [0, 0]]\n\
    [[cities]]\nname = \"Far\"\nboards = [[2, -2], [3, -2]]\n\
    [[cities]]\nname = \"Empty\"\nboards = [[-1, 3], [0, 3]]\n\
    [[cities]]\nname = \"Lone\"\nboards = [[-6, 5], [-5, 5]]\n\
    [[roads]]\nbetween = [\"Home\", \"Far\"]\n\
    [[roads]]\nbetween = [\"Home\", \"Empty\"]\n";

const ERIN: [(i32, i32); 5] = [(12, -8), (12, -7), (11, -8), (13, -8), (12, -9)];

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
    let tokens: Vec<String> =
        ["alice", "bob", "carol", "dave", "erin"].iter().map(|p| s.join(p).unwrap().token).collect();
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
    assert_eq!(facing_side(&city(1), &city(0)), vec![[2, -2]]);
    // From Far, Home's east side (x = 0) is nearest: its midpoint (0, -0.5) lies 2.5 and
    // 1.5 from Far's centre (2.5, -2): 8.5, against 10 (south), 13 (north), 14.5 (west).
    assert_eq!(facing_side(&city(0), &city(1)), vec![[0, -1], [0, 0]]);
    // From Lone (centre (-5.5, 5)) to Home: north (-0.5, 0) 25 + 25 = 50 against west
    // (-1, -0.5) 20.25 + 30.25 = 50.5: north, the row y = 0.
    assert_eq!(facing_side(&city(0), &city(3)), vec![[-1, 0], [0, 0]]);
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
        assert_eq!((board, to_mayor), ([2, -2], 4), "{name}");
        let [x, y] = square;
        assert!((10..15).contains(&x) && (-10..-5).contains(&y), "{name}: {square:?} is on board [2,-2]");
        assert!(!ERIN.contains(&(x, y)), "{name}: {square:?} was empty");
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
    // A-CA16: erin's board [2,-2] is filled (20 more knights), so no queen can land.
    // alice: 50 queens, 45 after paying, 47 after the mayor gives her 2; the refund has
    // room for 3 of the 5 under the cap of 50, and 2 are destroyed (A-CA12).
    for (name, mut open) in stores("transfer-refund") {
        let (mut s, _, t) = setup(&mut open, 50);
        let a = &t[0];
        poke_world(open(false).unwrap().as_mut(), |st| {
            for y in -10..-5 {
                for x in 10..15 {
                    if !ERIN.contains(&(x, y)) {
                        st.pieces.push(varia::world::json::PieceJson { x, y, owner: "erin".into(), kind: "N".into() });
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
