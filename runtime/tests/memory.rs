//! Memory that stays bounded: values kept with `game:set` count against `[scripting]
//! memory_limit_mb` (with the Lua state's own memory), and the history keeps them
//! without copying them every ply, while undo, rollback, clones, replays under new rules
//! and snapshots give exactly what they gave before. Expected values are worked out by
//! hand from the rules below.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use varia::hooks::Var;
use varia::{Game, Hook, HookGame, Hooks, RuleError, ScriptError, Variant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A variant folder extending standard chess, with `rules` as its rules.lua.
fn folder(rules: &str, toml_extra: &str) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-memory-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), format!("extends = \"standard\"\n{toml_extra}\n")).unwrap();
    std::fs::write(dir.join("rules.lua"), rules).unwrap();
    dir
}

/// With deterministic limits only: a busy machine must not stop a hook by the clock.
fn load(rules: &str, memory_mb: u32) -> Arc<Variant> {
    let dir = folder(rules, &format!("[scripting]\nmemory_limit_mb = {memory_mb}\ntime_limit_ms = 0\n"));
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

fn play(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        g.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

fn script_error(r: Result<Vec<varia::Event>, RuleError>) -> ScriptError {
    match r {
        Err(RuleError::Script(e)) => e,
        other => panic!("expected a script error, got {other:?}"),
    }
}

/// The variables as (name, value) pairs, in name order.
fn vars(g: &Game) -> Vec<(String, Var)> {
    g.vars().iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

fn text(s: &str) -> Var {
    Var::Text(s.into())
}

fn state(g: &Game) -> String {
    serde_json::to_string(&g.snapshot()).unwrap()
}

const MIB: usize = 1 << 20;

/// Rules in Rust that keep a 1 MiB text under a new name every ply.
struct KeepAMegabyte;

impl Hooks for KeepAMegabyte {
    fn defines(&self, hook: Hook) -> bool {
        hook == Hook::AfterAction
    }
    fn after_action(&self, g: &mut HookGame<'_>, _action: &str) -> Result<(), ScriptError> {
        let name = format!("k{}", g.ply());
        g.set_var(&name, Some(Var::Text("x".repeat(MIB).into()))).map_err(|e| ScriptError::new("after_action", e))
    }
}

#[test]
fn kept_values_are_held_to_the_memory_limit() {
    // 4 MiB: each value is 1 MiB plus its name and a node (under a kilobyte), so three
    // fit and the fourth would take the variables past 4 MiB.
    let base = Variant::load_with("standard", &["scripting.memory_limit_mb=4".parse().unwrap()]).unwrap();
    let v = base.with_hooks(Arc::new(KeepAMegabyte));
    let mut g = Game::new(v.clone());
    play(&mut g, "e2-e4 e7-e5 g1-f3");
    assert_eq!(g.vars().len(), 3);
    let held = g.vars().bytes();
    assert!((3 * MIB..3 * MIB + 3 * 1024).contains(&held), "{held} bytes for three 1 MiB values");
    let before = state(&g);
    let e = script_error(g.play("b8-c6"));
    assert!(
        e.message.contains("game:set(\"k3\", …) would take the game's variables to 4.0 MB")
            && e.message.contains("over [scripting] memory_limit_mb = 4"),
        "{}",
        e.message
    );
    assert_eq!((g.ply(), g.vars().len(), g.vars().bytes(), state(&g)), (3, 3, held, before), "nothing changed");

    // Replayed under a limit of 2 MiB, the second value no longer fits: the replay
    // stops at move 2 and names it, and the game is untouched.
    let small = Variant::load_with("standard", &["scripting.memory_limit_mb=2".parse().unwrap()]).unwrap();
    match g.with_variant(small.with_hooks(Arc::new(KeepAMegabyte))) {
        Err(RuleError::Replay { index: 2, action, why }) => {
            assert_eq!(action, "e7-e5");
            assert!(why.contains("memory_limit_mb = 2"), "{why}");
        }
        other => panic!("expected the replay to stop at move 2, got {other:?}"),
    }
    assert_eq!(g.ply(), 3);
}

#[test]
fn a_game_set_past_the_limit_is_refused_at_its_line() {
    // `big` is 512 KiB, kept by the script (so in the Lua state's memory all along). Each
    // ply keeps it once more in the game. At the n-th set the variables would hold n
    // values of 512 KiB and a little, beside the state's 512 KiB and a little: under
    // 4 MiB up to n = 6, over it at n = 7.
    let v = load(
        r#"local big = string.rep("ab", 1 << 18)
function after_action(game, action)
  game:set("k" .. game:ply(), big)
end
"#,
        4,
    );
    let mut g = Game::new(v);
    play(&mut g, "e2-e4 e7-e5 g1-f3 b8-c6 f1-c4 f8-c5");
    assert_eq!(g.vars().len(), 6);
    let (before, held) = (state(&g), vars(&g));
    let e = script_error(g.play("d2-d3"));
    assert_eq!(e.hook, "after_action");
    assert!(
        e.message
            .contains("rules.lua:3: game:set(\"k6\", …) would take the game's variables to 3.5 MB, which with the"),
        "{}",
        e.message
    );
    assert!(e.message.contains("MB the script's state uses is over [scripting] memory_limit_mb = 4"), "{}", e.message);
    assert_eq!((g.ply(), vars(&g), state(&g)), (6, held, before), "rolled back: the state is unchanged");
    // Taking a ply back takes its value back, and the room it held.
    assert_eq!(g.undo(1), 1);
    assert_eq!(g.vars().len(), 5);
    play(&mut g, "f8-e7");
    assert_eq!(g.vars().len(), 6);
}

#[test]
fn garbage_does_not_count_against_a_set() {
    // `s` (1.5 MiB) is set while the 1 MiB string made by `garbage` waits to be
    // collected: counted, it would make 1.5 + 1.5 + 1 MiB, over the 4; it is collected
    // before the set is refused, which leaves 1.5 + 1.5.
    let v = load(
        r#"local function garbage() return #string.rep("z", 1 << 20) end
function after_action(game, action)
  local s = string.rep("a", 3 << 19)
  garbage()
  game:set("v", s)
end
"#,
        4,
    );
    let mut g = Game::new(v);
    play(&mut g, "e2-e4");
    assert!(matches!(g.var("v"), Some(Var::Text(t)) if t.len() == 3 << 19));
}

#[test]
fn pcall_cannot_catch_a_refused_set_and_go_on() {
    // Without the stop, the loop would swallow every refusal and the hook would succeed.
    let v = load(
        r#"local big = string.rep("ab", 1 << 18)
function after_action(game, action)
  for i = 1, 100 do pcall(game.set, game, "k" .. i, big) end
  game:set("survived", true)
end
"#,
        4,
    );
    let mut g = Game::new(v);
    let e = script_error(g.play("e2-e4"));
    assert!(e.message.contains("rules.lua:3: game:set(\"k7\", …) would take the game's variables to"), "{}", e.message);
    assert!(g.vars().is_empty() && g.ply() == 0, "rolled back: {:?}", vars(&g));
}

#[test]
fn the_lua_state_may_use_only_what_the_variables_leave() {
    // The first ply keeps `big` (512 KiB) under five names: 2.5 MiB of the 4. The second
    // builds a 768 KiB string, which string.rep makes in a buffer of the same size before
    // copying it: 1.5 MiB at once, beside `big` itself, is more than the 1.5 MiB left.
    let rules = |names: u32| {
        format!(
            r#"local big = string.rep("ab", 1 << 18)
function after_action(game, action)
  if game:ply() == 0 then
    for i = 1, {names} do game:set("k" .. i, big) end
  else
    local t = string.rep("c", 3 << 18)
  end
end
"#
        )
    };
    let mut g = Game::new(load(&rules(5), 4));
    play(&mut g, "e2-e4");
    let e = script_error(g.play("e7-e5"));
    assert!(
        e.message.contains(
            "ran out of memory ([scripting] memory_limit_mb = 4, of which the game's variables (game:set) hold 2.5 MB)"
        ),
        "{}",
        e.message
    );
    assert_eq!((g.ply(), g.vars().len()), (1, 5));
    // The same rules keeping nothing: the string fits in the 4 MiB.
    let mut g = Game::new(load(&rules(0), 4));
    play(&mut g, "e2-e4 e7-e5");
}

/// Rules that keep the last action and, per ply, ten times its number; `h2-h3` sets a
/// value and then fails.
const HISTORY_RULES: &str = r#"
function after_action(game, action)
  game:set("last", action)
  game:set("n" .. game:ply(), game:ply() * 10)
  if action == "h2-h3" then
    game:set("doomed", true)
    error("no h-pawn moves")
  end
end
"#;

/// The variables after the plies `moves` (an after_action at ply n keeps `n<n>` = 10n).
fn after(moves: &[&str]) -> Vec<(String, Var)> {
    let mut want: Vec<(String, Var)> = moves.last().map(|m| ("last".to_string(), text(m))).into_iter().collect();
    want.extend((0..moves.len()).map(|n| (format!("n{n}"), Var::Int(10 * n as i64))));
    want
}

#[test]
fn undo_takes_back_every_set_ply_by_ply() {
    let mut g = Game::new(load(HISTORY_RULES, 32));
    play(&mut g, "e2-e4 e7-e5 g1-f3 b8-c6");
    assert_eq!(
        vars(&g),
        vec![
            ("last".into(), text("b8-c6")),
            ("n0".into(), Var::Int(0)),
            ("n1".into(), Var::Int(10)),
            ("n2".into(), Var::Int(20)),
            ("n3".into(), Var::Int(30)),
        ]
    );
    assert_eq!(g.undo(1), 1);
    assert_eq!(vars(&g), after(&["e2-e4", "e7-e5", "g1-f3"]));
    assert_eq!(g.undo(2), 2);
    assert_eq!(vars(&g), vec![("last".into(), text("e2-e4")), ("n0".into(), Var::Int(0))]);
    assert_eq!(g.undo(5), 1);
    assert!(g.vars().is_empty());
    // And forward again, the same.
    play(&mut g, "e2-e4 e7-e5");
    assert_eq!(vars(&g), after(&["e2-e4", "e7-e5"]));
}

#[test]
fn a_failed_action_takes_back_its_sets() {
    let mut g = Game::new(load(HISTORY_RULES, 32));
    play(&mut g, "e2-e4 e7-e5");
    let before = state(&g);
    let e = script_error(g.play("h2-h3"));
    assert!(e.message.contains("rules.lua:7: no h-pawn moves"), "{}", e.message);
    assert_eq!(vars(&g), after(&["e2-e4", "e7-e5"]), "no `doomed`, no `n2`, `last` as it was");
    assert_eq!(state(&g), before);
    play(&mut g, "g1-f3");
    assert_eq!(vars(&g), after(&["e2-e4", "e7-e5", "g1-f3"]));
    assert_eq!(g.undo(1), 1);
    assert_eq!(state(&g), before);
}

#[test]
fn a_clone_and_its_original_keep_their_own_sets() {
    let mut g = Game::new(load(HISTORY_RULES, 32));
    play(&mut g, "e2-e4 e7-e5");
    let mut c = g.clone();
    play(&mut g, "g1-f3");
    play(&mut c, "d2-d4 d7-d5");
    assert_eq!(vars(&g), after(&["e2-e4", "e7-e5", "g1-f3"]));
    assert_eq!(vars(&c), after(&["e2-e4", "e7-e5", "d2-d4", "d7-d5"]));
    // Undo in the clone, through plies the original shares, leaves the original alone.
    assert_eq!(c.undo(3), 3);
    assert_eq!(vars(&c), after(&["e2-e4"]));
    assert_eq!(vars(&g), after(&["e2-e4", "e7-e5", "g1-f3"]));
    assert_eq!(g.history_text(), ["e2-e4", "e7-e5", "g1-f3"]);
    // ...and the original's undo through them leaves the clone alone.
    assert_eq!(g.undo(2), 2);
    assert_eq!(vars(&g), after(&["e2-e4"]));
    assert_eq!(state(&g), state(&c));
    play(&mut c, "c7-c5");
    assert_eq!(vars(&c), after(&["e2-e4", "c7-c5"]));
    assert_eq!(vars(&g), after(&["e2-e4"]));
}

#[test]
fn replays_and_snapshots_rebuild_the_same_variables() {
    let v = load(HISTORY_RULES, 32);
    let mut g = Game::new(v.clone());
    play(&mut g, "e2-e4 e7-e5 g1-f3");
    let want = after(&["e2-e4", "e7-e5", "g1-f3"]);
    let replayed = g.with_variant(v.clone()).unwrap();
    assert_eq!((vars(&replayed), state(&replayed)), (want.clone(), state(&g)));
    let restored = Game::from_snapshot(v, &state(&g)).unwrap();
    assert_eq!((vars(&restored), state(&restored)), (want, state(&g)));
}

#[test]
fn in_a_read_only_hook_game_set_is_the_usual_error_that_pcall_catches() {
    // `big` would not fit either (2 MiB in the game beside 2 MiB in the state is over 4),
    // but the refusal is the read-only one, not a stop by a limit.
    let v = load(
        r#"local big = string.rep("ab", 1 << 20)
function filter_actions(game, actions)
  local ok, why = pcall(game.set, game, "x", big)
  if ok or not tostring(why):find("only reads the game") then error("unexpected: " .. tostring(why)) end
  return actions
end
"#,
        4,
    );
    let g = Game::new(v);
    assert_eq!(g.try_legal_actions().map(|a| a.len()), Ok(20));
    assert!(g.vars().is_empty());
}
