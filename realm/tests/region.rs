//! Cities as regions (CA-19): an ordinary piece never leaves its city nor enters one,
//! on SQLite and (with `VARIA_PG_URL`) PostgreSQL. alice joins first: boards [0,0],
//! [-1,-1], [0,-1]. The city Caissa is board [0,0] alone (squares x 0..4, y 0..4), so
//! alice's [0,-1] and [-1,-1] lie outside. Each board starts with K (2,2), Q (2,3),
//! R (1,2), B (3,2), N (2,1) from its lower-left corner.

mod common;

use common::*;
use varia::world::Pos;
use varia_realm::Error;
use varia_realm::region::Regions;

const WITH_CITY: &str = "name = \"t\"\nround_hours = 6\nseed = 3\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[0, 0], [0, 0]]\n";
const NO_CITY: &str = "name = \"t\"\nround_hours = 6\nseed = 3\n";

fn mv(from: (i32, i32), to: (i32, i32)) -> serde_json::Value {
    serde_json::json!({"type": "move", "from": [from.0, from.1], "to": [to.0, to.1]})
}

/// A fresh store of the k-th kind (SQLite, then PostgreSQL when there).
fn fresh(name: &str, k: usize) -> Opener {
    stores(name).swap_remove(k).1
}

/// The verdicts of alice's one-order submission, in a fresh realm of this config.
fn verdict(name: &str, k: usize, config: &str, order: serde_json::Value) -> (bool, String) {
    let mut open = fresh(name, k);
    let (mut s, _clock) = realm_from(open(true).unwrap(), config);
    let alice = s.join("alice").unwrap().token;
    match s.submit(&alice, &[order], None) {
        Ok(ok) => (true, ok.verdicts[0].reason.clone()),
        Err(Error::OrdersRefused { verdicts, .. }) => (false, verdicts[0].reason.clone()),
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn crossing_follows_the_path_board_by_board() {
    let cities = varia_realm::RealmConfig::parse(WITH_CITY, "r.toml").unwrap().cities;
    let city = varia_realm::store::City {
        id: 1,
        name: cities[0].name.clone(),
        boards: cities[0].boards,
        roads: vec![],
        mayor: None,
        motd: None,
        motd_at: None,
        renamed: None,
    };
    let r = Regions::new(&[city]);
    let t = (5, 5);
    let p = Pos::new;
    // Inside the city, and inside the ground outside it (across two outside boards).
    assert_eq!(r.crossing(t, p(2, 3), p(2, 4)), None);
    assert_eq!(r.crossing(t, p(2, -2), p(-3, -2)), None);
    // Up out of the city: (2,5) is board [0,1].
    assert!(
        r.crossing(t, p(2, 3), p(2, 7))
            .unwrap()
            .contains("leaves the city Caissa for the ground outside the cities at board [0, 1]")
    );
    // A diagonal from outside into the city: (-1,-1) is [-1,-1], (0,0) is [0,0].
    assert!(
        r.crossing(t, p(-2, -2), p(1, 1))
            .unwrap()
            .contains("leaves the ground outside the cities for the city Caissa at board [0, 0]")
    );
    // A leap touches its first and last board only: (2,1) to (3,-1) lands on [0,-1].
    assert!(r.crossing(t, p(2, 1), p(3, -1)).unwrap().contains("at board [0, -1]"));
    assert_eq!(r.crossing(t, p(2, 1), p(0, 2)), None);
    // No cities: nothing crosses.
    assert_eq!(Regions::default().crossing(t, p(2, 3), p(2, 40)), None);
}

#[test]
fn a_move_that_leaves_its_city_is_refused_with_the_reason() {
    for (k, (name, _)) in stores("region_leave").into_iter().enumerate() {
        // The queen (2,3) up to (2,6): through (2,5) on board [0,1], outside Caissa.
        let order = mv((2, 3), (2, 6));
        assert_eq!(
            verdict("leave_a", k, NO_CITY, order.clone()),
            (true, "accepted".into()),
            "{name}: the rules allow it"
        );
        let (ok, why) = verdict("leave_b", k, WITH_CITY, order);
        assert!(!ok, "{name}");
        assert_eq!(
            why,
            "the path from [2, 3] to [2, 6] leaves the city Caissa for the ground outside the cities at board \
             [0, 1] (CA-19: only queens cross between cities, by transfer)",
            "{name}"
        );
        // Inside the city it stands.
        assert_eq!(verdict("leave_c", k, WITH_CITY, mv((2, 3), (2, 4))), (true, "accepted".into()), "{name}");
    }
}

#[test]
fn a_move_that_enters_a_city_is_refused_and_nothing_is_stored() {
    for (k, (name, mut open)) in stores("region_enter").into_iter().enumerate() {
        // The queen of [0,-1] (2,-2) up to (2,0): (2,0) is on board [0,0], in Caissa.
        let order = mv((2, -2), (2, 0));
        assert_eq!(verdict("enter_a", k, NO_CITY, order.clone()), (true, "accepted".into()), "{name}");
        let (mut s, _clock) = realm_from(open(true).unwrap(), WITH_CITY);
        let alice = s.join("alice").unwrap().token;
        // One good order and the crossing one: the list is refused whole.
        let r = s.submit(&alice, &[mv((2, 3), (2, 4)), order], None);
        let Err(Error::OrdersRefused { given: 2, refused: 1, verdicts }) = r else { panic!("{name}: {r:?}") };
        assert!(verdicts[0].accepted, "{name}");
        assert!(
            verdicts[1].reason.starts_with(
                "the path from [2, -2] to [2, 0] leaves the ground outside the cities for the city Caissa at \
                 board [0, 0]"
            ),
            "{name}: {}",
            verdicts[1].reason
        );
        assert_eq!(s.view(&alice).unwrap().orders, None, "{name}: nothing stored");
    }
}

/// A city west of alice's boards, on the ground she does not hold: board [-1,0].
const WEST_CITY: &str = "name = \"t\"\nround_hours = 6\nseed = 3\n\
    [[cities]]\nname = \"Philidor\"\nboards = [[-1, 0], [-1, 0]]\n";

#[test]
fn the_bot_never_moves_a_piece_out_of_its_region() {
    for (k, (name, _)) in stores("region_bot").into_iter().enumerate() {
        // Two twins, alice idle for 10 rounds (the bot runs her, CA-18, seed 3). Without
        // the city her bot orders N (2,-4)-(4,-5), B (3,2)-(4,1) and Q (-3,-2)-(-5,0); the
        // queen's ends on board [-1,0], Philidor's, so in the twin with the city it is
        // struck and the queen stays.
        let resolve = |config: &str, tag: &str| {
            let mut open = fresh(&format!("bot_{tag}"), k);
            let (mut s, clock) = realm_from(open(true).unwrap(), config);
            s.join("alice").unwrap();
            poke_world(open(false).unwrap().as_mut(), |st| {
                st.idle.insert("alice".into(), 10);
            });
            clock.set(FIRST_DEADLINE_6H);
            s.advance(false).unwrap();
            (s.state().unwrap(), s.record(0).unwrap())
        };
        let (free, free_rec) = resolve(NO_CITY, "free");
        let moved = |rec: &varia_realm::service::RoundRecord| -> Vec<String> {
            let ev = rec.output["events"].as_array().unwrap();
            ev.iter().map(|e| format!("{} {}-{}", e["kind"], e["from"], e["to"])).collect()
        };
        assert_eq!(moved(&free_rec), ["\"N\" [2,-4]-[4,-5]", "\"B\" [3,2]-[4,1]", "\"Q\" [-3,-2]-[-5,0]"], "{name}");
        let (after, rec) = resolve(WEST_CITY, "city");
        assert_eq!(moved(&rec), ["\"N\" [2,-4]-[4,-5]", "\"B\" [3,2]-[4,1]"], "{name}");
        let queen = |st: &varia::world::json::StateJson| {
            st.pieces.iter().filter(|p| p.kind == "Q" && p.owner == "alice").map(|p| (p.x, p.y)).collect::<Vec<_>>()
        };
        assert!(queen(&free).contains(&(-5, 0)), "{name}");
        assert!(queen(&after).contains(&(-3, -2)) && !queen(&after).contains(&(-5, 0)), "{name}");
        let v = &rec.output["validation"]["alice"];
        assert_eq!(v["bot"], true, "{name}: the orders are the bot's");
        let results: Vec<bool> = v["results"].as_array().unwrap().iter().map(|r| r["accepted"] == true).collect();
        assert_eq!(results, [true, true], "{name}");
        assert_eq!(free_rec.output["validation"]["alice"]["results"].as_array().unwrap().len(), 3, "{name}");
        // alice stays idle and bot-run, as in the free twin.
        assert_eq!(after.idle.get("alice"), Some(&11), "{name}");
        assert_eq!(free.idle.get("alice"), Some(&11), "{name}");
        assert_eq!(after.bots, free.bots, "{name}");
        assert_eq!(after.bots, vec!["alice".to_string()], "{name}");
        assert!(rec.orders.is_empty(), "{name}: alice gave no orders");
    }
}
