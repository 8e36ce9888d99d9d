//! Cities as regions (CA-19): an ordinary piece never leaves its city nor enters one,
//! and a new empire lies in one region, cities first; on SQLite and (with
//! `VARIA_PG_URL`) PostgreSQL. A board [bx, by] has its corner at (5bx, 5by) and starts
//! with K (2,2), Q (2,3), R (1,2), B (3,2), N (2,1) from it. A join takes the first region
//! with three takeable boards — the cities in config order, then the ground outside them
//! — and there the first three ring by ring from [0,0], each ring in (y, x) order.
//! With the city Caissa = boards [0,0] [1,0] [2,0], alice joins it whole; bob finds it
//! full and gets the ground's first three, ring 1's [-1,-1] [0,-1] [1,-1].

mod common;

use common::*;
use varia::world::Pos;
use varia_realm::Error;
use varia_realm::region::Regions;

const WITH_CITY: &str = "name = \"t\"\nround_hours = 6\nseed = 3\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[0, 0], [2, 0]]\n";
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
        // bob's queen of [0,-1], (2,-2), up to (2,0): (2,0) is on board [0,0], in Caissa.
        // Without the city the same order is alice's (her [0,-1]) and the rules allow it.
        let order = mv((2, -2), (2, 0));
        assert_eq!(verdict("enter_a", k, NO_CITY, order.clone()), (true, "accepted".into()), "{name}");
        let (mut s, _clock) = realm_from(open(true).unwrap(), WITH_CITY);
        assert_eq!(s.join("alice").unwrap().boards, [[0, 0], [1, 0], [2, 0]], "{name}");
        let bob = s.join("bob").unwrap();
        assert_eq!(bob.boards, [[-1, -1], [0, -1], [1, -1]], "{name}");
        // One good order (the queen of [-1,-1], (-3,-2), up to (-3,-1), on the ground)
        // and the crossing one: the list is refused whole.
        let r = s.submit(&bob.token, &[mv((-3, -2), (-3, -1)), order], None);
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
        assert_eq!(s.view(&bob.token).unwrap().orders, None, "{name}: nothing stored");
    }
}

/// A city west of alice's boards, on the ground she does not hold: board [-1,0]. One
/// board has no room for an empire, so alice joins the ground, as in the twin without
/// it: [0,0] [-1,-1] [0,-1].
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

/// Two cities, the first in config order farther from the centre: Philidor, boards
/// [3,0]..[4,1] (rings 3 and 4), and Caissa, [-1,-1]..[0,0] (rings 0 and 1).
const TWO_CITIES: &str = "name = \"t\"\nround_hours = 6\nseed = 3\n\
    [[cities]]\nname = \"Philidor\"\nboards = [[3, 0], [4, 1]]\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [0, 0]]\n";

/// The cities of a realm, as the region module sees them.
fn regions_of(config: &str) -> Regions {
    let cities: Vec<varia_realm::store::City> = varia_realm::RealmConfig::parse(config, "r.toml")
        .unwrap()
        .cities
        .iter()
        .enumerate()
        .map(|(i, c)| varia_realm::store::City {
            id: i as i64 + 1,
            name: c.name.clone(),
            boards: c.boards,
            roads: vec![],
            mayor: None,
            motd: None,
            motd_at: None,
            renamed: None,
        })
        .collect();
    Regions::new(&cities)
}

/// A player, their three boards and their city (None: the ground).
type Empire = (&'static str, [[i32; 2]; 3], Option<&'static str>);

#[test]
fn every_new_empire_lies_in_one_region_cities_first() {
    // Worked by hand (rings from [0,0]; a ring in (y, x) order):
    // - alice: Philidor first, though farther: ring 3 gives [3,0] and [3,1], ring 4's
    //   first in (y, x) order is [4,0] (before [4,1]).
    // - bob: Philidor has one board left ([4,1]), so Caissa: ring 0's [0,0], then ring
    //   1's [-1,-1] and [0,-1].
    // - carol: Philidor 1 left, Caissa 1 ([-1,0]): the ground, ring 1 without Caissa's
    //   boards: [1,-1] (y = -1), [1,0] (y = 0, after Caissa's [-1,0]), [-1,1] (y = 1).
    //   Ring by ring regardless of regions she would get [1,-1] [-1,0] [1,0], straddling
    //   Caissa's edge ([-1,0] is Caissa's).
    // - dave: the ground again: ring 1's [0,1] and [1,1], then ring 2's first, [-2,-2].
    let want: [Empire; 4] = [
        ("alice", [[3, 0], [3, 1], [4, 0]], Some("Philidor")),
        ("bob", [[0, 0], [-1, -1], [0, -1]], Some("Caissa")),
        ("carol", [[1, -1], [1, 0], [-1, 1]], None),
        ("dave", [[0, 1], [1, 1], [-2, -2]], None),
    ];
    let regions = regions_of(TWO_CITIES);
    for (name, mut open) in stores("region_join") {
        let (mut s, _clock) = realm_from(open(true).unwrap(), TWO_CITIES);
        let mut tokens = Vec::new();
        for (player, boards, city) in want {
            let j = s.join(player).unwrap();
            assert_eq!(j.boards, boards, "{name}: {player}'s boards");
            assert_eq!(j.city.as_deref(), city, "{name}: {player}'s region");
            let reply = serde_json::to_value(&j).unwrap();
            assert_eq!(reply["city"], serde_json::json!(city), "{name}: the join's reply names it");
            tokens.push(j.token);
        }
        // Every piece of an empire stands in its region: the 15 of each player on their
        // three boards, and alice's king of [3,0] on (17,2), bob's of [0,0] on (2,2).
        let st = s.state().unwrap();
        let region = |c: Option<&str>| c.map(|c| if c == "Philidor" { 0 } else { 1 });
        for (player, _, city) in want {
            let mine: Vec<_> = st.pieces.iter().filter(|p| p.owner == player).collect();
            assert_eq!(mine.len(), 15, "{name}: {player}");
            for p in mine {
                let b = Pos::new(p.x, p.y).board((5, 5));
                assert_eq!(regions.of(b), region(city), "{name}: {player}'s {} on ({}, {})", p.kind, p.x, p.y);
            }
        }
        let king = |x: i32, y: i32| st.pieces.iter().find(|p| (p.x, p.y) == (x, y)).map(|p| (&*p.owner, &*p.kind));
        assert_eq!(king(17, 2), Some(("alice", "K")), "{name}");
        assert_eq!(king(2, 2), Some(("bob", "K")), "{name}");
        // Philidor's last board, [4,1], and Caissa's, [-1,0], are left to nobody.
        let owner = |b: [i32; 2]| st.boards.iter().find(|x| x.board == b).and_then(|x| x.owner.clone());
        assert_eq!((owner([4, 1]), owner([-1, 0])), (None, None), "{name}");
        // Each city's mayor holds all of its empire there (CA-21).
        let cities = s.cities(&tokens[0]).unwrap();
        let mayors: Vec<_> = cities.iter().map(|c| (c.name.as_str(), c.mayor.as_deref())).collect();
        assert_eq!(mayors, [("Philidor", Some("alice")), ("Caissa", Some("bob"))], "{name}");
    }
}

/// No ground for new empires (`join_ground = false`): Caissa, [-1,-1]..[1,1], holds
/// three empires, Philidor, [3,0]..[4,1], one.
const CLOSED: &str = "name = \"t\"\nround_hours = 6\nseed = 3\njoin_ground = false\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n\
    [[cities]]\nname = \"Philidor\"\nboards = [[3, 0], [4, 1]]\n";

#[test]
fn a_realm_full_in_every_region_refuses_a_join_and_stores_nothing() {
    // Caissa's nine boards ring by ring: alice [0,0] [-1,-1] [0,-1], bob [1,-1] [-1,0]
    // [1,0], carol ring 1's top row [-1,1] [0,1] [1,1]; dave finds Caissa full and
    // takes Philidor's [3,0] [3,1] [4,0] (as in the test above). erin: Caissa has no
    // board left and Philidor one, [4,1]; the ground is closed, so she is refused.
    let full = "no room for a new empire: no city has 3 free boards, and this realm places no empire on the open \
                ground outside the cities (join_ground = false)";
    for (name, mut open) in stores("region_full") {
        let (mut s, _clock) = realm_from(open(true).unwrap(), CLOSED);
        let boards: Vec<_> = ["alice", "bob", "carol", "dave"].map(|p| s.join(p).unwrap()).into_iter().collect();
        let got: Vec<_> = boards.iter().map(|j| (j.boards.clone(), j.city.clone().unwrap())).collect();
        assert_eq!(
            got,
            [
                (vec![[0, 0], [-1, -1], [0, -1]], "Caissa".to_string()),
                (vec![[1, -1], [-1, 0], [1, 0]], "Caissa".to_string()),
                (vec![[-1, 1], [0, 1], [1, 1]], "Caissa".to_string()),
                (vec![[3, 0], [3, 1], [4, 0]], "Philidor".to_string()),
            ],
            "{name}"
        );
        let before = serde_json::to_string(&s.state().unwrap()).unwrap();
        for _ in 0..2 {
            // Refused each time with the same answer (no row was left to say the name is taken).
            let e = s.join("erin").unwrap_err();
            assert!(matches!(e, Error::CitiesFull { want: 3 }), "{name}: {e:?}");
            assert_eq!(e.to_string(), full, "{name}");
            assert_eq!(e.status(), 422, "{name}");
        }
        // Nothing stored: the world is byte for byte the same (no board of erin's, [4,1]
        // still nobody's), and no player row.
        assert_eq!(serde_json::to_string(&s.state().unwrap()).unwrap(), before, "{name}");
        let mut db = open(false).unwrap();
        let mut tx = db.begin(varia_realm::db::Mode::Read).unwrap();
        let rows = tx.query("SELECT id FROM players ORDER BY id", &[]).unwrap();
        let ids: Vec<String> = rows.iter().map(|r| r[0].text().unwrap().to_string()).collect();
        assert_eq!(ids, ["alice", "bob", "carol", "dave"], "{name}");
    }
}

#[test]
fn a_region_is_walked_ring_by_ring_and_only_within_the_rings() {
    let r = regions_of(TWO_CITIES);
    let walk = |region: Option<usize>, rings: i32| {
        let mut seen = Vec::new();
        let stopped = r.walk(region, rings, |b| {
            seen.push([b.bx, b.by]);
            false
        });
        assert!(!stopped);
        seen
    };
    // Philidor (rings 3 and 4): ring 3 in (y, x) order, then ring 4.
    assert_eq!(walk(Some(0), 10), [[3, 0], [3, 1], [4, 0], [4, 1]]);
    // Caissa: ring 0, then ring 1's three boards of it in (y, x) order.
    assert_eq!(walk(Some(1), 10), [[0, 0], [-1, -1], [0, -1], [-1, 0]]);
    // Within 2 rings Philidor has no board; within 3, its ring-3 column.
    assert_eq!(walk(Some(0), 2), Vec::<[i32; 2]>::new());
    assert_eq!(walk(Some(0), 3), [[3, 0], [3, 1]]);
    // The ground within one ring: ring 1 without Caissa's [-1,-1] [0,-1] [-1,0] (and
    // ring 0, [0,0], is Caissa's).
    assert_eq!(walk(None, 1), [[1, -1], [1, 0], [-1, 1], [0, 1], [1, 1]]);
    // The ground's ring 3 leaves out Philidor's [3,0] and [3,1]: 24 boards less 2.
    let ring3: Vec<_> = walk(None, 3).into_iter().filter(|[x, y]| x.abs().max(y.abs()) == 3).collect();
    assert_eq!(ring3.len(), 22);
    assert!(!ring3.contains(&[3, 0]) && !ring3.contains(&[3, 1]) && ring3.contains(&[3, -1]));
    // The walk stops where the visitor says so.
    let mut n = 0;
    assert!(r.walk(None, 5, |_| {
        n += 1;
        n == 4
    }));
    assert_eq!(n, 4);
}
