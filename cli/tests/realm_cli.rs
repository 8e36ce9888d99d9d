//! `varia realm resolve`: the realm contract of DESIGN.md §8 on the command line.

mod common;

use common::{scratch, stderr, stdout, varia};

const STATE: &str = r#"{"round":0,"players":["alice","bob"],
 "pieces":[{"x":2,"y":2,"owner":"alice","kind":"K"},{"x":0,"y":0,"owner":"alice","kind":"R"},
           {"x":7,"y":2,"owner":"bob","kind":"K"},{"x":0,"y":4,"owner":"bob","kind":"N"},{"x":4,"y":0,"owner":"bob","kind":"B"}],
 "vaults":{"alice":{"Q":1}},
 "boards":[{"board":[0,0],"owner":"alice"},{"board":[1,0],"owner":"bob"}]}"#;

const ORDERS: &str = r#"{"alice":[{"type":"move","from":[0,0],"to":[0,4]},{"type":"drop","kind":"Q","to":[3,3]}],
 "bob":[{"type":"move","from":[4,0],"to":[2,2]},{"type":"move","from":[0,4],"to":[1,2]}]}"#;

#[test]
fn resolve_prints_the_contract_byte_identically() {
    let dir = scratch("resolve");
    let (s, o) = (dir.join("state.json"), dir.join("orders.json"));
    std::fs::write(&s, STATE).unwrap();
    std::fs::write(&o, ORDERS).unwrap();
    let args = ["realm", "resolve", "--state", s.to_str().unwrap(), "--orders", o.to_str().unwrap(), "--json"];
    let a = varia(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    let b = varia(&args);
    assert_eq!(a.stdout, b.stdout, "the same input must give the same bytes");
    let out: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    // The guarded knight, the replaced drop and bob's second order on a used board.
    let alice = &out["validation"]["alice"];
    assert_eq!(alice["results"][0]["accepted"], false);
    assert_eq!(alice["results"][0]["reason"], "the knight on [0, 4] is guarded by bob's bishop on [4, 0]");
    assert!(alice["results"][1]["reason"].as_str().unwrap().starts_with("replaced by the forced flee"));
    assert_eq!(alice["forced_flees"][0]["to"], serde_json::json!([1, 1]));
    assert_eq!(out["validation"]["bob"]["results"][0]["accepted"], true);
    assert_eq!(out["validation"]["bob"]["results"][1]["reason"], "board [0, 0] already has its order this round");
    let state = &out["state"];
    assert_eq!(state["round"], 1);
    let pieces: Vec<String> = state["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{} {} {} {}", p["owner"].as_str().unwrap(), p["kind"].as_str().unwrap(), p["x"], p["y"]))
        .collect();
    assert_eq!(pieces, ["alice R 0 0", "alice K 1 1", "bob B 2 2", "bob K 7 2", "bob N 0 4"]);
    let events = out["events"].as_array().unwrap();
    assert_eq!(events[0]["phase"], "leaps");
    assert_eq!(events[0]["microstep"], 1);
    assert_eq!(events[0]["type"], "moved");
    assert_eq!(events[1]["microstep"], 3);
    assert_eq!(events[1]["to"], serde_json::json!([2, 2]));
    // Without --json, readable lines.
    let text = varia(&args[..6]);
    assert!(stdout(&text).contains("alice order 1: refused: the knight on [0, 4] is guarded"), "{}", stdout(&text));
}

#[test]
fn bad_input_is_an_error_with_its_place() {
    let dir = scratch("bad");
    let (s, o) = (dir.join("state.json"), dir.join("orders.json"));
    std::fs::write(&s, "{\"players\": [\"a\"],\n \"pieces\": [{\"x\": 0}]}").unwrap();
    std::fs::write(&o, "{}").unwrap();
    let r = varia(&["realm", "resolve", "--state", s.to_str().unwrap(), "--orders", o.to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(1));
    assert!(stderr(&r).contains("line 2, column"), "{}", stderr(&r));
    std::fs::write(&s, STATE).unwrap();
    let r = varia(&[
        "realm",
        "resolve",
        "--variant",
        "standard",
        "--state",
        s.to_str().unwrap(),
        "--orders",
        o.to_str().unwrap(),
    ]);
    assert_eq!(r.status.code(), Some(1));
    assert!(stderr(&r).contains("not a world of boards"), "{}", stderr(&r));
}

#[test]
fn simulate_reports_the_rounds_and_a_summary() {
    let args = ["realm", "simulate", "--players", "6", "--rounds", "5", "--seed", "3", "--json"];
    let a = varia(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    let out: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!((out["players"].as_u64(), out["rounds"].as_u64()), (Some(6), Some(5)));
    let rounds = out["per_round"].as_array().unwrap();
    assert_eq!(rounds.len(), 6, "round 0 and five rounds");
    // CA-03: six empires of three boards with five pieces each.
    assert_eq!(rounds[0]["on_map"], 90);
    assert_eq!(rounds[0]["boards"]["mean"], 3.0);
    let last = &rounds[5];
    let eliminated = 6 - last["alive"].as_u64().unwrap();
    assert_eq!(out["summary"]["eliminated"]["count"].as_u64(), Some(eliminated));
    assert_eq!(out["summary"]["survivors"], last["alive"]);
    // The figures but the timings are the seed's: a second run prints the same rounds.
    let b: serde_json::Value = serde_json::from_str(&stdout(&varia(&args))).unwrap();
    assert_eq!(b["per_round"], out["per_round"]);

    let text = varia(&["realm", "simulate", "--players", "6", "--rounds", "5", "--quiet", "--every", "2"]);
    assert!(text.status.success(), "{}", stderr(&text));
    let t = stdout(&text);
    assert!(t.contains("6 players, 5 rounds"), "{t}");
    let rows: Vec<&str> =
        t.lines().filter(|l| l.trim_start().chars().next().is_some_and(|c| c.is_ascii_digit())).collect();
    let firsts: Vec<&str> = rows.iter().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(firsts, ["0", "2", "4", "5"], "rows every 2 rounds and the last:\n{t}");
    assert!(t.contains("eliminated: ") && t.contains("95% CI") && t.contains("vaults: "), "{t}");

    let bad = varia(&["realm", "simulate", "--players", "0"]);
    assert!(!bad.status.success());
    assert!(stderr(&bad).contains("1 to 100000 players"), "{}", stderr(&bad));
}
