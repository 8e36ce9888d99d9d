//! Workers (issue 13, point 4), in one process: several `Service`s on one store, each a
//! worker, take the steps of a round in turn (plan, parts, merge); the round's record
//! and the world must be byte for byte those of a twin realm resolved by `advance`, on
//! SQLite and (with `VARIA_PG_URL`) PostgreSQL. Killed workers are tested with real
//! processes in cli/tests/realm_worker.rs.

mod common;

use common::*;
use varia::world::moves::Movement;
use varia::world::state::{Realm, world_of};
use varia::world::{bot, round};
use varia_realm::worker::Step;
use varia_realm::{Error, Service};

/// Three cities of nine boards around the centre. A join's boards lie in one region,
/// the cities first in config order: Caissa (rings 0 and 1), Philidor and Morphy take
/// three empires each, and the other seven lie on the ground outside, from ring 2 on.
const CONFIG: &str = "name = \"workers\"\nround_hours = 6\nseed = 11\n\
    [[cities]]\nname = \"Caissa\"\nboards = [[-1, -1], [1, 1]]\n\
    [[cities]]\nname = \"Philidor\"\nboards = [[3, -1], [5, 1]]\n\
    [[cities]]\nname = \"Morphy\"\nboards = [[-1, 3], [1, 5]]\n";

const PLAYERS: usize = 16;

/// Every player's orders for the open round: the rules' bot's, without the moves that
/// would leave their region and without what the rules refuse.
fn orders_for_everyone(s: &mut Service, tokens: &[String], seed: u64) {
    let v = s.variant().clone();
    let rules = world_of(&v).unwrap();
    let m = Movement::new(&v, rules);
    let state = s.state().unwrap();
    let realm = Realm::from_json(&v, &state).unwrap();
    let pieces = round::pieces_by_player(&realm);
    let mut cities = Vec::new();
    for (i, c) in varia_realm::RealmConfig::parse(CONFIG, "r.toml").unwrap().cities.iter().enumerate() {
        cities.push(varia_realm::store::City {
            id: i as i64 + 1,
            name: c.name.clone(),
            boards: c.boards,
            roads: vec![],
            mayor: None,
            motd: None,
            motd_at: None,
            renamed: None,
        });
    }
    let regions = varia_realm::region::Regions::new(&cities);
    for (p, token) in tokens.iter().enumerate() {
        if realm.eliminated[p] {
            continue;
        }
        let list: Vec<serde_json::Value> = bot::orders(&m, &realm, p as u32, &pieces[p], seed)
            .iter()
            .map(|o| varia_realm::region::order_json(&v, o))
            .filter(|o| regions.order_crossing(rules.tile, o).is_none())
            .collect();
        let verdicts = varia_realm::service::judge(&v, &state, &realm.players[p], &list, T0).unwrap();
        let list: Vec<serde_json::Value> =
            list.into_iter().zip(&verdicts).filter(|(_, v)| v.accepted).map(|(o, _)| o).collect();
        if !list.is_empty() {
            s.submit(token, &list, None).unwrap();
        }
    }
}

/// The world and a round's record, as text.
fn bytes(s: &mut Service, round: u64) -> (String, String) {
    (serde_json::to_string(&s.state().unwrap()).unwrap(), serde_json::to_string(&s.record(round).unwrap()).unwrap())
}

#[test]
fn three_workers_give_the_single_process_bytes() {
    let twins = stores("workers-single").into_iter().zip(stores("workers-parts"));
    for ((kind, mut open_a), (_, mut open_b)) in twins {
        let (mut a, _ca) = realm_from(open_a(true).unwrap(), CONFIG);
        let (mut b, cb) = realm_from(open_b(true).unwrap(), CONFIG);
        let mut tokens = Vec::new();
        for i in 0..PLAYERS {
            let name = format!("p{i:02}");
            let ta = a.join(&name).unwrap().token;
            let tb = b.join(&name).unwrap().token;
            tokens.push((ta, tb));
        }
        let (ta, tb): (Vec<String>, Vec<String>) = tokens.into_iter().unzip();
        // Two more workers on b's store, each with its own connection.
        let mut workers = [
            Service::open(open_b(false).unwrap(), std::sync::Arc::new(cb.clone())).unwrap(),
            Service::open(open_b(false).unwrap(), std::sync::Arc::new(cb.clone())).unwrap(),
        ];
        let mut parts_seen = 0;
        for r in 0..3u64 {
            orders_for_everyone(&mut a, &ta, 100 + r);
            orders_for_everyone(&mut b, &tb, 100 + r);
            a.advance(true).unwrap();
            if r == 2 {
                // A planned round that `advance` finds is finished by it.
                assert!(matches!(workers[0].work(true, None).unwrap(), Step::Planned { .. }));
                assert!(matches!(workers[1].work(true, None).unwrap(), Step::Part { .. }));
                let done = b.advance(true).unwrap();
                assert_eq!(done.len(), 1, "{kind}");
            } else {
                // Worker 0 plans; the three take parts in turn; whoever is last merges.
                let planned = workers[0].work(true, None).unwrap();
                let Step::Planned { round, parts } = planned else { panic!("{kind}: {planned:?}") };
                assert_eq!(round, r);
                assert!(parts >= 3, "{kind}, round {r}: {parts} parts (a city, the ground and more)");
                parts_seen += parts;
                // While the round is being resolved, the world is closed to changes.
                let refused = b.submit(&tb[0], &[j(r#"{"type":"pass","board":[0,0]}"#)], None);
                assert!(matches!(refused, Err(Error::Resolving { round }) if round == r), "{kind}: {refused:?}");
                assert!(matches!(b.join("late"), Err(Error::Resolving { .. })));
                let mut merged = None;
                for turn in 0..100 {
                    let w = turn % 3;
                    let step = if w == 2 { b.work(true, None) } else { workers[w].work(true, None) }.unwrap();
                    match step {
                        Step::Part { .. } => {}
                        Step::Merged(adv) => {
                            merged = Some(adv);
                            break;
                        }
                        other => panic!("{kind}, round {r}: {other:?}"),
                    }
                }
                assert_eq!(merged.map(|m| m.round), Some(r), "{kind}");
            }
            let (sa, ra) = bytes(&mut a, r);
            let (sb, rb) = bytes(&mut b, r);
            assert!(ra == rb, "{kind}, round {r}: the workers' record differs from advance's");
            assert!(sa == sb, "{kind}, round {r}: the workers' world differs from advance's");
            assert!(ra.contains("\"moved\""), "{kind}, round {r}: no move in the round");
            // Nothing is left of the plan, and the next round is open.
            assert_eq!(b.progress().unwrap(), (r + 1, None), "{kind}");
        }
        assert!(parts_seen >= 6, "{kind}");
        let cities_a = serde_json::to_string(&a.cities(&ta[0]).unwrap()).unwrap();
        let cities_b = serde_json::to_string(&b.cities(&tb[0]).unwrap()).unwrap();
        assert_eq!(cities_a, cities_b, "{kind}: the elections differ");
    }
}
