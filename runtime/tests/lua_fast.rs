//! The `game` methods hooks call most (`to_move`, `ply`, `events`, `get`, `set`,
//! `attacked`) take a
//! fast path in C (`runtime/src/script/fast.rs`); every unusual case goes to the ordinary
//! method. These tests hold both to the same answers and the same errors.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use varia::hooks::Var;
use varia::{Game, RuleError, Variant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

fn load(rules: &str) -> Arc<Variant> {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir: PathBuf = std::env::temp_dir().join(format!("varia-lua-fast-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n").unwrap();
    std::fs::write(dir.join("rules.lua"), rules).unwrap();
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

fn script_error(r: Result<Vec<varia::Event>, RuleError>) -> varia::ScriptError {
    match r {
        Err(RuleError::Script(e)) => e,
        other => panic!("expected a script error, got {other:?}"),
    }
}

fn state(g: &Game) -> String {
    serde_json::to_string(&g.snapshot()).unwrap()
}

#[test]
fn the_fast_methods_answer_as_the_game_is() {
    // Each ply writes what the methods saw into variables, read back from Rust.
    let v = load(
        r#"
        function on_turn_end(game)
          local e = game:events()[1]
          game:set("to_move", game:to_move())
          game:set("ply", game:ply())
          game:set("moved", e.event .. " " .. e.side .. " " .. e.kind .. " " .. e.from .. "-" .. e.to)
          game:set("count", (game:get("count") or 0) + 1)
          game:set("flag", game:get("flag") == nil)
          game:set("gone", "here")
          game:set("gone", nil)
          game:set("text", (game:get("text") or "") .. game:to_move():sub(1, 1))
        end
        "#,
    );
    let mut g = Game::new(v);
    g.play("e2-e4").unwrap();
    assert!(matches!(g.var("to_move"), Some(Var::Text(t)) if &**t == "black"));
    // `on_turn_end` runs before the ply enters the history: it sees the plies before it.
    assert_eq!(g.var("ply"), Some(&Var::Int(0)));
    assert!(matches!(g.var("moved"), Some(Var::Text(t)) if &**t == "moved white pawn e2-e4"), "{:?}", g.var("moved"));
    assert_eq!(g.var("count"), Some(&Var::Int(1)));
    assert_eq!(g.var("flag"), Some(&Var::Bool(true)));
    assert_eq!(g.var("gone"), None);
    g.play("g8-f6").unwrap();
    assert!(matches!(g.var("to_move"), Some(Var::Text(t)) if &**t == "white"));
    assert_eq!(g.var("ply"), Some(&Var::Int(1)));
    assert!(matches!(g.var("moved"), Some(Var::Text(t)) if &**t == "moved black knight g8-f6"));
    assert_eq!(g.var("count"), Some(&Var::Int(2)));
    // `get` read the boolean true back: `== nil` is false now.
    assert_eq!(g.var("flag"), Some(&Var::Bool(false)));
    assert!(matches!(g.var("text"), Some(Var::Text(t)) if &**t == "bw"));
    // Undo restores what `set` changed.
    assert_eq!(g.undo(1), 1);
    assert_eq!(g.var("count"), Some(&Var::Int(1)));
    assert!(matches!(g.var("text"), Some(Var::Text(t)) if &**t == "b"));
}

#[test]
fn attacked_answers_as_the_method_does() {
    // "white" and "black" take the fast path; "White" and "b" the method's: the same answers.
    let v = load(
        r#"
        function on_turn_end(game)
          local seen = {}
          for _, q in ipairs({ { "e3", "white" }, { "e3", "White" }, { "e6", "black" }, { "e6", "b" },
                               { "e5", "white" }, { "e5", "w" }, { "e4", "black" }, { "e4", "Black" },
                               { "d5", "white" }, { "f5", "WHITE" } }) do
            seen[#seen + 1] = tostring(game:attacked(q[1], q[2]))
          end
          game:set("seen", table.concat(seen, " "))
        end
        "#,
    );
    let mut g = Game::new(v);
    g.play("e2-e4").unwrap();
    // After 1.e4: d2 and f2 guard e3, d7 and f7 guard e6, nothing reaches e5 or e4 (for
    // black), and the pawn on e4 guards d5 and f5.
    let expected = "true true true true false false false false true true";
    assert!(matches!(g.var("seen"), Some(Var::Text(t)) if &**t == expected), "{:?}", g.var("seen"));
}

#[test]
fn events_with_free_text_still_come_through_the_method() {
    // A note is an event made through JSON: `game:events()` then takes the method's way.
    let v = load(
        r#"
        function after_action(game, action)
          game:note("hello")
          local ev = game:events()
          game:set("seen", #ev .. " " .. ev[1].event .. " " .. ev[#ev].event)
        end
        "#,
    );
    let mut g = Game::new(v);
    g.play("e2-e4").unwrap();
    assert!(matches!(g.var("seen"), Some(Var::Text(t)) if &**t == "2 moved note"), "{:?}", g.var("seen"));
}

#[test]
fn wrong_arguments_are_errors_at_the_script_line() {
    let cases = [
        ("game:get({})", "rules.lua:3:"),
        ("game:set(\"x\", {})", "rules.lua:3: game:set keeps whole numbers, booleans and strings, not a table"),
        ("game:set({}, 1)", "rules.lua:3:"),
        // Called with `.`, `self` is missing: the method's own error.
        ("game.get(\"x\")", "rules.lua:3:"),
        ("game.to_move()", "rules.lua:3:"),
        ("game.set(\"x\", 1)", "rules.lua:3:"),
        // `attacked`: anything but a square's name and "white" or "black" is the method's.
        ("game:attacked(\"z9\", \"white\")", "rules.lua:3: square z9 is off the 8×8 board"),
        ("game:attacked(\"e4\", \"green\")", "rules.lua:3: `green` is not a side (\"white\" or \"black\")"),
        ("game:attacked(\"e4\")", "rules.lua:3:"),
        ("game:attacked({}, \"white\")", "rules.lua:3:"),
        ("game.attacked(\"e4\", \"white\")", "rules.lua:3:"),
    ];
    for (call, expected) in cases {
        let v = load(&format!("function on_turn_end(game)\n  local ok = 1\n  {call}\nend\n"));
        let mut g = Game::new(v);
        let before = state(&g);
        let e = script_error(g.play("e2-e4"));
        assert!(e.message.contains(expected), "{call}: {}", e.message);
        assert_eq!(state(&g), before, "{call}: rolled back");
    }
}

#[test]
fn a_set_before_an_error_is_rolled_back() {
    let v = load(
        r#"
        function on_turn_end(game)
          game:set("n", (game:get("n") or 0) + 1)
          game:set("s", "long text " .. game:get("n"))
          if game:get("n") == 2 then error("second ply") end   -- line 5
        end
        "#,
    );
    let mut g = Game::new(v);
    g.play("e2-e4").unwrap();
    assert_eq!(g.var("n"), Some(&Var::Int(1)));
    let before = state(&g);
    let e = script_error(g.play("e7-e5"));
    assert!(e.message.contains("rules.lua:5: second ply"), "{}", e.message);
    assert_eq!(state(&g), before);
    assert_eq!(g.var("n"), Some(&Var::Int(1)));
    assert!(matches!(g.var("s"), Some(Var::Text(t)) if &**t == "long text 1"));
}

#[test]
fn set_in_a_read_only_hook_is_refused() {
    // `allow` only reads: the fast `set` leaves it to the method, which refuses.
    let v = load("function allow(game, a)\n  game:set(\"x\", 1)\nend\n");
    let g = Game::new(v);
    let e = g.try_legal_actions().map(|_| ()).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("rules.lua:2: this hook only reads the game"), "{text}");
}

#[test]
fn ply_in_allow_counts_the_plies_below_the_game() {
    // In a perft walk `game:ply()` counts the plies walked. From ply 1 knights may not
    // move: white's 20 first moves stand, and each leaves black its 16 pawn moves (the
    // 4 knight moves a6, c6, f6, h6 are out): 20 × 16.
    let v =
        load("function allow(game, a)\n  if game:ply() >= 1 and a.piece == \"knight\" then return false end\nend\n");
    let g = Game::new(v);
    assert_eq!(g.try_perft(1).unwrap(), 20);
    assert_eq!(g.try_perft(2).unwrap(), 320);
}
