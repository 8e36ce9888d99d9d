//! The world of boards at scale and at its edges: parallel validation gives the single-
//! threaded result, the resolver is deterministic, bad states are refused with their
//! place, and bot orders are always accepted.

use std::collections::BTreeMap;

use varia::Variant;
use varia::world::generate::generate;
use varia::world::json::StateJson;
use varia::world::moves::Movement;
use varia::world::{Realm, RealmError, round};

fn caissan() -> std::sync::Arc<Variant> {
    Variant::load("caissan").expect("caissan loads")
}

#[test]
fn parallel_validation_equals_single_threaded() {
    let v = caissan();
    let rules = v.world.as_deref().unwrap();
    let m = Movement::new(&v, rules);
    let realm = generate(rules, 3_000, 600, 11);
    let one = round::bot_orders(&m, &realm, 5, false);
    let many = round::bot_orders(&m, &realm, 5, true);
    assert_eq!(one, many, "bot orders differ with threads");
    let a = round::resolve(&v, &realm, one, 5, false).unwrap();
    let b = round::resolve(&v, &realm, many, 5, true).unwrap();
    assert_eq!(a.plans, b.plans);
    assert_eq!(a.events, b.events);
    let (ja, jb) = (round::output(&v, &a, &[]), round::output(&v, &b, &[]));
    assert_eq!(serde_json::to_string(&ja).unwrap(), serde_json::to_string(&jb).unwrap());
    // Something happened: orders on every board, most of them moves.
    let orders: usize = a.plans.iter().map(|p| p.results.len()).sum();
    assert!(orders >= 3_000, "{orders} orders for 3000 boards");
}

#[test]
fn bot_orders_are_legal() {
    let v = caissan();
    let rules = v.world.as_deref().unwrap();
    let m = Movement::new(&v, rules);
    let realm = generate(rules, 2_000, 400, 3);
    let given = round::bot_orders(&m, &realm, 9, false);
    let r = round::resolve(&v, &realm, given, 9, false).unwrap();
    for (p, plan) in r.plans.iter().enumerate() {
        for (i, res) in plan.results.iter().enumerate() {
            // A forced flee may replace a bot's order; nothing else may refuse one.
            if let Err(e) = res {
                assert!(e.to_string().starts_with("replaced by the forced flee"), "player {p} order {}: {e}", i + 1);
            }
        }
    }
    let moves: usize = r.plans.iter().map(|p| p.moves.len()).sum();
    assert!(moves > 1_000, "the bots moved only {moves} times on 2000 boards");
}

#[test]
fn bad_states_are_refused_with_their_place() {
    let v = caissan();
    let bad = |json: &str| -> String {
        let s: StateJson = serde_json::from_str(json).unwrap();
        match Realm::from_json(&v, &s) {
            Err(e @ RealmError::State { .. }) => e.to_string(),
            other => panic!("expected a state error, got {other:?}"),
        }
    };
    assert_eq!(
        bad(r#"{"players":["a"],"pieces":[{"x":0,"y":0,"owner":"b","kind":"Q"}]}"#),
        "state: pieces[0]: `b` is not in `players`"
    );
    assert!(bad(r#"{"players":["a"],"pieces":[{"x":0,"y":0,"owner":"a","kind":"P"}]}"#).contains("`P` is not a kind"));
    assert!(
        bad(
            r#"{"players":["a"],"pieces":[{"x":0,"y":0,"owner":"a","kind":"Q"},{"x":0,"y":0,"owner":"a","kind":"R"}]}"#
        )
        .contains("two pieces on [0, 0]")
    );
    assert!(bad(r#"{"players":["a"],"pieces":[{"x":0,"y":0,"owner":"a","kind":"K"}]}"#).contains("owned by nobody"));
    assert!(bad(r#"{"players":["a"],"vaults":{"a":{"Q":51}}}"#).contains("a vault holds at most 50"));
    assert!(bad(r#"{"players":["a"],"vaults":{"a":{"K":1}}}"#).contains("never holds a king"));
    assert!(bad(r#"{"players":["a","a"]}"#).contains("listed twice"));
    assert!(
        bad(r#"{"players":["a"],"pieces":[{"x":999999999,"y":0,"owner":"a","kind":"Q"}]}"#)
            .contains("outside the world")
    );
    assert!(bad(r#"{"players":["a"],"pending_kings":[{"board":[0,0],"player":"a"}]}"#).contains("not owned by `a`"));
}

#[test]
fn malformed_orders_and_strangers_are_refused_each_with_a_reason() {
    let v = caissan();
    let state: StateJson =
        serde_json::from_str(r#"{"players":["a"],"pieces":[{"x":0,"y":0,"owner":"a","kind":"R"}]}"#).unwrap();
    let orders: BTreeMap<String, Vec<serde_json::Value>> = serde_json::from_str(
        r#"{"a":[{"type":"fly","to":[1,1]},{"type":"move","from":[0,0],"to":[1,1]},{"type":"move","from":[0,0],"to":[0,3]}],
            "z":[{"type":"pass","board":[0,0]}]}"#,
    )
    .unwrap();
    let out = round::resolve_json(&v, &state, &orders, 0).unwrap();
    let a = &out.validation["a"].results;
    assert!(!a[0].accepted && a[0].reason.starts_with("not an order: unknown variant `fly`"), "{}", a[0].reason);
    assert_eq!(a[1].reason, "a rook does not move from [0, 0] to [1, 1]");
    assert!(a[2].accepted);
    assert_eq!(out.validation["z"].results[0].reason, "`z` is not a player of this realm");
    assert_eq!(out.state.pieces.len(), 1);
    assert_eq!((out.state.pieces[0].x, out.state.pieces[0].y), (0, 3));
}

#[test]
fn the_same_round_gives_the_same_bytes() {
    let v = caissan();
    let rules = v.world.as_deref().unwrap();
    let realm = generate(rules, 200, 40, 21);
    let state = realm.to_json(&v);
    let again = Realm::from_json(&v, &state).unwrap().to_json(&v);
    assert_eq!(state, again, "a state round-trips");
    let orders = BTreeMap::new();
    // Everyone idle for long enough: the bots order, seeded.
    let mut s = state.clone();
    for p in &s.players.clone() {
        s.idle.insert(p.clone(), 10);
    }
    let a = serde_json::to_string(&round::resolve_json(&v, &s, &orders, 4).unwrap()).unwrap();
    let b = serde_json::to_string(&round::resolve_json(&v, &s, &orders, 4).unwrap()).unwrap();
    assert_eq!(a, b);
    assert!(a.contains("\"bot\":true"));
}

#[test]
fn world_tables_are_checked() {
    let base =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../scripts/caissan/variant.toml")).unwrap();
    let err = |from: &str, to: &str| {
        let text = base.replacen(from, to, 1);
        assert_ne!(text, base, "{from} not found");
        Variant::from_toml(&text, "x.toml").unwrap_err().to_string()
    };
    assert!(err("king_phase = \"leaps\"", "king_phase = \"hops\"").contains("unknown king_phase `hops`"));
    assert!(err("\"leaps\", \"slides\"]", "\"leaps\"]").contains("missing: slides"));
    assert!(err("knight = 1, king = 0 }", "knight = 1 }").contains("no strength for `king`"));
    assert!(err("holds = [\"queen\"", "holds = [\"qeen\"").contains("unknown piece kind `qeen`"));
    assert!(
        err("moves = [{ slide = \"all\" }]", "moves = [{ farthest = \"all\" }]").contains("not supported in a world")
    );
    assert!(err("model = \"simultaneous\"", "model = \"alternate\"").contains("needs turns.model"));
}
