//! The Lua host: hooks at each point of the pipeline, the `game` API, errors with
//! places, rollback, and hostile scripts contained.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use varia::{Game, GameResult, LoadError, RuleError, Side, Variant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A variant folder extending standard chess with `rules` as its rules.lua.
fn folder(rules: &str, toml_extra: &str) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-lua-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), format!("extends = \"standard\"\n{toml_extra}\n")).unwrap();
    std::fs::write(dir.join("rules.lua"), rules).unwrap();
    dir
}

fn load(rules: &str) -> Arc<Variant> {
    load_with(rules, "")
}

fn load_with(rules: &str, toml_extra: &str) -> Arc<Variant> {
    let dir = folder(rules, toml_extra);
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

fn load_err(rules: &str) -> Vec<String> {
    let dir = folder(rules, "");
    match Variant::load(dir.to_str().unwrap()) {
        Ok(_) => panic!("expected a load error"),
        Err(e) => e.problems().iter().map(|p| p.to_string()).collect(),
    }
}

fn play(g: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        g.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

/// The whole observable state, to compare before and after a refused action.
fn state(g: &Game) -> String {
    serde_json::to_string(&g.snapshot()).unwrap()
}

fn script_error(r: Result<Vec<varia::Event>, RuleError>) -> varia::ScriptError {
    match r {
        Err(RuleError::Script(e)) => e,
        other => panic!("expected a script error, got {other:?}"),
    }
}

#[test]
fn turn_end_and_score_hooks_award_points() {
    let v = load_with(
        r#"
        function on_turn_end(game)
          game:award(game:to_move() == "white" and "black" or "white", 1, "turn")
        end
        function score(game, action)
          if action == "e2-e4" then return game:param("bonus") end
        end
        "#,
        "[params]\nbonus = 5",
    );
    let mut g = Game::new(v.clone());
    let events = g.play("e2-e4").unwrap();
    let lines: Vec<String> = events.iter().map(|e| e.describe(&v)).collect();
    assert_eq!(
        lines,
        vec!["white pawn e2-e4", "white scores 5 (score)", "white scores 1 (turn)"],
        "score runs before on_turn_end"
    );
    play(&mut g, "e7-e5");
    assert_eq!(g.scores(), [6, 1]);
    g.undo(1);
    assert_eq!(g.scores(), [6, 0], "undo restores scores");
}

#[test]
fn before_action_can_refuse_with_a_reason() {
    let v = load(
        r#"
        function before_action(game, action)
          local p = game:piece(action:sub(1, 2))
          if p and p.kind == "queen" then return false, "queens are on strike" end
        end
        "#,
    );
    let mut g = Game::new(v);
    play(&mut g, "e2-e4 e7-e5");
    let before = state(&g);
    match g.play("d1-h5") {
        Err(RuleError::Illegal { why, .. }) => assert_eq!(why, "queens are on strike"),
        other => panic!("{other:?}"),
    }
    assert_eq!(state(&g), before);
    play(&mut g, "g1-f3");
}

#[test]
fn on_removed_reports_captures_and_rule_removals_in_order() {
    // Atomic-like: a capture also removes every non-pawn piece next to the square.
    let v = load(
        r#"
        function after_action(game, action)
          local to = action:sub(4, 5)
          if game:get("captured") then
            game:set("captured", nil)
            for dx = -1, 1 do for dy = -1, 1 do
              local sq = game:offset(to, dx, dy)
              local p = sq and game:piece(sq)
              if p and p.kind ~= "pawn" then game:remove(sq) end
            end end
          end
        end
        function on_removed(game, piece)
          if piece.cause == "capture" then game:set("captured", true) end
          game:note(piece.side .. " " .. piece.kind .. " gone from " .. piece.square .. " (" .. piece.cause .. ")")
        end
        "#,
    );
    let mut g = Game::from_fen(v.clone(), "4k3/8/2n1b3/3p4/4P3/8/8/4K3 w - - 0 1").unwrap();
    let events: Vec<String> = g.play("e4-d5").unwrap().iter().map(|e| e.describe(&v)).collect();
    // The knight (c6) and bishop (e6) next to d5 go; the capturing pawn stays (a pawn).
    // on_removed hears of the capture at once, and of the rule's removals after
    // after_action, in the order they happened.
    assert_eq!(
        events,
        vec![
            "white pawn e4-d5",
            "black pawn captured on d5",
            "note: black pawn gone from d5 (capture)",
            "black knight removed from c6",
            "black bishop removed from e6",
            "note: black knight gone from c6 (rules)",
            "note: black bishop gone from e6 (rules)",
        ]
    );
}

#[test]
fn check_outcome_declares_a_winner() {
    let v = load(
        r#"
        function check_outcome(game)
          if #game:pieces("black") < 16 then return "white", "first blood" end
        end
        "#,
    );
    let mut g = Game::new(v);
    play(&mut g, "e2-e4 d7-d5 e4-d5");
    let o = g.outcome().unwrap();
    assert_eq!(o.result, GameResult::Win(Side::White));
    assert_eq!(o.describe(), "white wins by first blood");
    assert!(g.legal_actions().is_empty());
}

#[test]
fn filter_actions_changes_the_legal_actions_and_perft_follows() {
    let v = load(
        r#"
        function filter_actions(game, actions)
          local out = {}
          for _, a in ipairs(actions) do
            local p = game:piece(a:sub(1, 2))
            if p.kind == "pawn" then out[#out + 1] = a end
          end
          return out
        end
        "#,
    );
    let g = Game::new(v);
    assert_eq!(g.legal_actions().len(), 16);
    assert_eq!(g.perft(2), 256);
    assert!(g.parse_action("g1-f3").is_err());
}

#[test]
fn random_numbers_come_from_the_game_seed() {
    let v = load(
        r#"
        function on_turn_end(game)
          game:set("r" .. game:ply(), game:random(1000))
        end
        "#,
    );
    let run = |seed| {
        let mut g = Game::with_seed(v.clone(), seed);
        play(&mut g, "e2-e4 e7-e5 g1-f3");
        (1..=3).map(|i| g.var(&format!("r{i}")).cloned()).collect::<Vec<_>>()
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}

#[test]
fn a_failing_hook_rolls_the_action_back_completely() {
    let v = load(
        r#"
        function after_action(game, action)
          game:remove("a1")
          game:award("white", 10, "halfway")
          game:set("x", 1)
          local t = nil
          return t.field   -- line 7
        end
        "#,
    );
    let mut g = Game::new(v);
    let before = state(&g);
    let e = script_error(g.play("e2-e4"));
    assert_eq!(e.hook, "after_action");
    assert!(e.message.contains("rules.lua:7: attempt to index a nil value"), "{}", e.message);
    assert!(e.traceback.contains("rules.lua:7: in function"), "{}", e.traceback);
    assert_eq!(state(&g), before, "position, scores, vars and history are as before");
    assert_eq!(g.ply(), 0);
    // The game goes on: the same error again, but nothing is stuck.
    assert!(g.play("d2-d4").is_err());
    assert_eq!(state(&g), before);
}

#[test]
fn errors_in_commands_name_the_script_line() {
    let v = load("function on_turn_end(game)\n  game:remove(\"e5\")\nend\n");
    let mut g = Game::new(v);
    let e = script_error(g.play("e2-e4"));
    assert!(e.message.ends_with("rules.lua:2: there is no piece on e5"), "{}", e.message);
}

#[test]
fn load_errors_have_places() {
    let p = load_err("function on_turn_end(game)\n  local x = = 1\nend\n");
    assert_eq!(p.len(), 1);
    assert!(p[0].contains("rules.lua:2:"), "{p:?}");
    let p = load_err("function on_turn_ned(game)\nend\n\nfunction helper() end\n");
    assert_eq!(p.len(), 1, "helpers are fine; only the misspelt hook is reported: {p:?}");
    assert!(p[0].contains("rules.lua:1: `on_turn_ned` is not a hook (did you mean `on_turn_end`?)"), "{p:?}");
    let p = load_err("error('boom at load')\n");
    assert!(p[0].contains("rules.lua:1: boom at load"), "{p:?}");
}

#[test]
fn hooks_cannot_create_globals_or_read_undefined_ones() {
    let v = load("function on_turn_end(game)\n  counter = 1\nend\n");
    let e = script_error(Game::new(v).play("e2-e4"));
    assert!(e.message.contains("rules.lua:2: hooks cannot set global variables (`counter`)"), "{}", e.message);
    let v = load("function on_turn_end(game)\n  return undefined_thing + 1\nend\n");
    let e = script_error(Game::new(v).play("e2-e4"));
    assert!(e.message.contains("rules.lua:2: unknown global `undefined_thing`"), "{}", e.message);
    // Nor change the ones there, nor go round with rawset: state a hook keeps in Lua
    // would escape rollback and undo.
    let v = load("counter = 0\nfunction on_turn_end(game)\n  counter = counter + 1\nend\n");
    let e = script_error(Game::new(v).play("e2-e4"));
    assert!(e.message.contains("rules.lua:3: hooks cannot set global variables (`counter`)"), "{}", e.message);
    let v = load("function on_turn_end(game)\n  rawset(_G, 'counter', 1)\nend\n");
    let e = script_error(Game::new(v).play("e2-e4"));
    assert!(e.message.contains("rules.lua:2: hooks cannot set global variables (`counter`)"), "{}", e.message);
}

#[test]
fn a_child_variants_hooks_replace_the_parents_and_can_call_them() {
    let parent = folder("function on_turn_end(game)\n  game:award('white', 1, 'parent')\nend\n", "");
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let child = std::env::temp_dir().join(format!("varia-lua-child-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&child);
    std::fs::create_dir_all(&child).unwrap();
    std::fs::write(child.join("variant.toml"), format!("extends = \"{}\"\n", parent.display())).unwrap();
    std::fs::write(
        child.join("rules.lua"),
        "function on_turn_end(game)\n  parent.on_turn_end(game)\n  game:award('black', 2, 'child')\nend\n",
    )
    .unwrap();
    let v = Variant::load(child.to_str().unwrap()).unwrap();
    let mut g = Game::new(v);
    play(&mut g, "e2-e4");
    assert_eq!(g.scores(), [1, 2]);
}

/// Hostile scripts: each is contained with a clear error, the state unchanged, and
/// nothing written to disk.
#[test]
fn hostile_scripts_are_contained() {
    let marker = std::env::temp_dir().join(format!("varia-pwned-{}", std::process::id()));
    let m = marker.display().to_string();
    // Each body runs in on_turn_end from the second move on (line 1 is the function,
    // line 2 the guard, the body starts on line 3).
    let cases: Vec<(&str, String, &str)> = vec![
        // Stopped by the instruction budget (the time limit is raised for this case only,
        // so that the budget is what stops it however slow the machine).
        ("endless loop", "while true do end".into(), "rules.lua:3: stopped after 5000000 instructions"),
        // Stopped by the time limit (the budget is raised for this case only).
        ("endless loop, no budget", "while true do end".into(), "rules.lua:3: stopped after 40 ms"),
        // Work done in C: library calls count their work against the budget (the time
        // limit is off for these two, so that the count is what stops them), and the
        // time limit stops what nothing counts (an operator on long strings).
        (
            "string.rep in a loop",
            "while true do local s = string.rep('x', 9000) end".into(),
            "rules.lua:3: string.rep: stopped: …instruction_limit = 5000000",
        ),
        (
            "table.sort in a loop",
            "local t = {}\nfor i = 1, 100 do t[i] = i end\nwhile true do table.sort(t) end".into(),
            "rules.lua:5: …instruction",
        ),
        (
            "concatenating a long string",
            "local s = string.rep('x', 1 << 22)\nwhile true do local t = s .. 'y' end".into(),
            "rules.lua:4: stopped after 40 ms",
        ),
        ("memory bomb", "local t = {}\nfor i = 1, 1e9 do t[i] = i end".into(), "ran out of memory"),
        (
            "string.rep bomb",
            "local s = string.rep('x', 1 << 30)".into(),
            "rules.lua:3: string.rep: stopped: this call's work (about 134217728 instructions' worth",
        ),
        ("string.rep bomb in pieces", "local s = string.rep('x', 1 << 24, 'y')".into(), "ran out of memory"),
        ("string.rep growth", "local s = 'x'\nwhile true do s = s .. s end".into(), "ran out of memory"),
        ("os.execute", format!("os.execute('touch {m}')"), "rules.lua:3: unknown global `os`"),
        ("io.open", format!("io.open('{m}', 'w')"), "rules.lua:3: unknown global `io`"),
        ("require", "require('os')".into(), "rules.lua:3: unknown global `require`"),
        ("dofile", format!("dofile('{m}')"), "rules.lua:3: unknown global `dofile`"),
        ("load bytecode", "load('\\27Lua')()".into(), "rules.lua:3: unknown global `load`"),
        (
            "string.dump",
            "return string.dump(on_turn_end)".into(),
            "rules.lua:3: attempt to call a nil value (field 'dump')",
        ),
        ("debug.sethook", "debug.sethook()".into(), "rules.lua:3: unknown global `debug`"),
        ("collectgarbage", "collectgarbage('stop')".into(), "rules.lua:3: unknown global `collectgarbage`"),
        (
            "setmetatable on game",
            "setmetatable(game, {})".into(),
            "rules.lua:3: bad argument #1 to 'setmetatable' (table expected, got userdata)",
        ),
        ("metatable of game", "getmetatable(game).__index = nil\ngame:award('white', 1)".into(), "rules.lua:3:"),
        (
            "error halfway",
            "game:remove('a1')\ngame:place('e6', 'queen', 'black')\nerror('and now I fail')".into(),
            "rules.lua:5: and now I fail",
        ),
        ("math.random", "return math.random()".into(), "rules.lua:3: attempt to call a nil value (field 'random')"),
        // One call of a pattern function runs in C to its end: a pattern whose worst
        // case on its subject is too long is refused before it starts.
        (
            "pattern bomb",
            "string.find(string.rep('a', 20000), '.-.-.-.-b')".into(),
            "rules.lua:3: string.find: this pattern may take up to 3.2e21 steps on a subject of 20000 characters",
        ),
        (
            "pattern bomb, short subject",
            "local s = string.rep('a', 1000)\nlocal t = s:gsub('a*a*a*b', '')".into(),
            "rules.lua:4: string.gsub: this pattern may take up to 1.0e12 steps",
        ),
        ("globals table", "setmetatable(_G, nil)".into(), "rules.lua:3: cannot change a protected metatable"),
        // A hook cannot catch its own stop and go on.
        (
            "pcall around an endless loop",
            "while true do pcall(function() while true do end end) end".into(),
            "rules.lua:3: stopped after",
        ),
        (
            "xpcall around an endless loop",
            "while true do xpcall(function() while true do end end, function(m) return m end) end".into(),
            "rules.lua:3: stopped after",
        ),
        // Found by a red-team review: each hung the process before.
        (
            "xpcall with a looping handler",
            "local ok, e = xpcall(error, function() while true do end end)".into(),
            "rules.lua:3: stopped after",
        ),
        (
            "a finalizer",
            "setmetatable({}, { __gc = function() while true do end end })".into(),
            "rules.lua:3: finalizers (__gc) are not allowed in rules",
        ),
        (
            "print of a looping __tostring",
            "local bad = setmetatable({}, { __tostring = function() while true do end end })\n\
             while true do print(bad) end"
                .into(),
            "stopped after",
        ),
        ("string.rep of nothing", "string.rep('', math.maxinteger)".into(), "rules.lua:3: string.rep: stopped: "),
        (
            "table.move with numbers as strings",
            "table.move({}, '1', '0x7fffffffffffffff', 1, {})".into(),
            "rules.lua:3: table.move: stopped: ",
        ),
        (
            "table.insert through __len",
            "local t = setmetatable({}, { __len = function() return 1 << 62 end })\ntable.insert(t, 1, 0)".into(),
            "rules.lua:4: table.insert: stopped: ",
        ),
        (
            "gsub with a long replacement",
            "local r = string.rep('%0', 1000000)\nstring.gsub(string.rep('x', 1000), '', r)".into(),
            "rules.lua:4: string.gsub: stopped: ",
        ),
        (
            "sorting long strings",
            "local s = string.rep('x', 1000)\nlocal t = {}\nfor i = 1, 100000 do t[i] = s end\ntable.sort(t)".into(),
            "rules.lua:6: table.sort: stopped: ",
        ),
        (
            "a pattern with a wide set",
            "string.find(string.rep('x', 100000), '[' .. string.rep('%d', 99) .. ']')".into(),
            "rules.lua:3: string.find: this pattern may take up to",
        ),
        (
            "pcall around refused work",
            "while true do pcall(string.rep, 'x', 1 << 30) end".into(),
            "string.rep: stopped: this call's work",
        ),
    ];
    for (name, body, expected) in cases {
        let rules = format!("function on_turn_end(game)\n  if game:ply() == 0 then return end\n{body}\nend\n");
        let limits = match name {
            "endless loop" => "[scripting]\ntime_limit_ms = 600000\n",
            "endless loop, no budget" => "[scripting]\ninstruction_limit = 1000000000000000\n",
            // Deterministic limits only (memory, counted work), however slow the machine.
            "string.rep in a loop" | "table.sort in a loop" | "memory bomb" | "string.rep growth" => {
                "[scripting]\ntime_limit_ms = 0\n"
            }
            _ => "",
        };
        check_contained_with(name, &rules, limits, expected);
    }
    check_contained(
        "wrong return type",
        "function score(game, action)\n  if game:ply() == 0 then return end\n  return 'lots'\nend\n",
        "rules.lua:1: `score` must return a whole number or nil, not a string",
    );
    assert!(!marker.exists(), "nothing was written to disk");
}

#[test]
fn variants_without_hooks_have_no_lua_state() {
    let v = Variant::load("standard").unwrap();
    assert!(v.hooks.is_none());
    assert!(matches!(
        Variant::from_toml("extends = \"standard\"\n[scripting]\nmemory_limt_mb = 3\n", "x.toml"),
        Err(LoadError::Invalid { .. })
    ));
}

/// Plays one move (the hook stays quiet), then checks the second move fails with
/// `expected`, leaves the state unchanged, and leaves the game usable.
fn check_contained(name: &str, rules: &str, expected: &str) {
    check_contained_with(name, rules, "", expected);
}

/// As `check_contained`, with more TOML for the variant; `expected` may list several
/// parts separated by `…`, each of which the message must contain, in order.
fn check_contained_with(name: &str, rules: &str, toml_extra: &str, expected: &str) {
    let v = load_with(rules, toml_extra);
    let mut g = Game::new(v);
    play(&mut g, "e2-e4");
    let before = state(&g);
    let e = script_error(g.play("e7-e5"));
    let mut rest = e.message.as_str();
    for part in expected.split('…') {
        let at = rest.find(part).unwrap_or_else(|| panic!("{name}: `{part}` not in: {}", e.message));
        rest = &rest[at + part.len()..];
    }
    assert_eq!(state(&g), before, "{name}: the state is unchanged");
    assert_eq!(g.legal_actions().len(), 20, "{name}: the game is still usable");
    assert_eq!(g.undo(1), 1, "{name}: and can be taken back");
}

/// A variant folder extending Chessception with `rules` (which replace its rules.lua hooks
/// of the same names; its king-repeat hook stays).
fn chessception_with(rules: &str) -> Arc<Variant> {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-lua-cc-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), "extends = \"chessception\"\n").unwrap();
    std::fs::write(dir.join("rules.lua"), rules).unwrap();
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn on_damage_changes_the_amount_and_game_damage_deals_it() {
    // A rook on d1 attacks the pawn on d7 (next to its king e8: 2 halved = 1). With the
    // hook adding 1 to primary damage, the pawn takes 2 and dies: the rook lands on d7.
    let fen = "4k3/3p4/8/8/8/8/8/3RK3 w - - 0 1";
    let plain = Variant::load("chessception").unwrap();
    let mut g = Game::from_fen(plain, fen).unwrap();
    g.play("d1-d7").unwrap();
    assert!(g.fen().contains("hp=d1:3,d7:1"), "without the hook the pawn survives: {}", g.fen());

    let v = chessception_with(
        "function on_damage(game, square, amount, cause)\n  if cause == 'primary' then return amount + 1 end\nend\n",
    );
    let mut g = Game::from_fen(v, fen).unwrap();
    let events: Vec<String> = g.play("d1-d7").unwrap().iter().map(|e| e.describe(g.variant())).collect();
    assert!(events.contains(&"black pawn on d7 takes 2 (primary, guarded): 0 HP left".to_string()), "{events:?}");
    assert!(events.contains(&"white attacker d1 lands on d7".to_string()), "{events:?}");

    // game:damage deals damage as a rule; a kill is reported to on_removed as "damage".
    let v = chessception_with(
        "function after_action(game, action)\n  if action == 'e2-e4' then game:damage('d7', 5) end\nend\n\
         function on_removed(game, piece)\n  game:note(piece.kind .. ' ' .. piece.cause)\nend\n",
    );
    let mut g = Game::new(v.clone());
    let events: Vec<String> = g.play("e2-e4").unwrap().iter().map(|e| e.describe(&v)).collect();
    assert!(events.contains(&"black pawn on d7 takes 5 (rule): 0 HP left".to_string()), "{events:?}");
    assert!(events.contains(&"note: pawn damage".to_string()), "{events:?}");
    // In a variant without hit points the command is an error at the script line.
    let std = load("function after_action(game, action)\n  game:damage('d7', 1)\nend\n");
    let e = script_error(Game::new(std).play("e2-e4"));
    assert!(e.message.contains("rules.lua:2: this variant has no hit points"), "{}", e.message);
}

/// `on_damage` reads a copy of the game without its history; `game:ply()` still counts
/// the plies played (it read 0 whatever the ply).
#[test]
fn on_damage_sees_the_ply() {
    // Two plies, then the rook on d1 attacks the pawn on d7 (beside its king on e7); the
    // hook makes the primary damage the ply count: 2.
    let fen = "4k3/3p4/8/8/8/8/8/3RK3 w - - 0 1";
    let v = chessception_with("function on_damage(game, square, amount, cause)\n  return game:ply()\nend\n");
    let mut g = Game::from_fen(v, fen).unwrap();
    g.play("e1-f1").unwrap();
    g.play("e8-e7").unwrap();
    let events: Vec<String> = g.play("d1-d7").unwrap().iter().map(|e| e.describe(g.variant())).collect();
    assert!(events.contains(&"black pawn on d7 takes 2 (primary, guarded): 0 HP left".to_string()), "{events:?}");
}

/// The limits hold while the scripts load, too: a runaway top level is a load error at
/// its line, not a hang.
#[test]
fn runaway_scripts_are_stopped_while_loading() {
    let p = load_err("local n = 0\nwhile true do n = n + 1 end\n");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("rules.lua:2: stopped after"), "{p:?}");
    let p = load_err("local t = {}\nfor i = 1, 1e9 do t[i] = i end\n");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].contains("rules.lua") && (p[0].contains("ran out of memory") || p[0].contains("stopped after")),
        "{p:?}"
    );
}

#[test]
fn pcall_and_xpcall_still_catch_ordinary_errors() {
    let v = load(
        "function after_action(game, action)\n\
         \x20 local ok, e = pcall(error, 'mine')\n\
         \x20 assert(not ok and e == 'mine')\n\
         \x20 local ok2, e2 = xpcall(function() error('x', 0) end, function(m) return 'handled ' .. m end)\n\
         \x20 assert(not ok2 and e2 == 'handled x')\n\
         \x20 local ok3, a, b = pcall(function() return 1, 2 end)\n\
         \x20 assert(ok3 and a == 1 and b == 2)\n\
         \x20 game:award('white', 1)\n\
         end\n",
    );
    let mut g = Game::new(v);
    play(&mut g, "e2-e4");
    assert_eq!(g.scores(), [1, 0]);
}

/// Games on several threads may share one variant and so one Lua state: each hook call
/// must act on its own game. (Before the host held a lock for the whole call, a second
/// thread could point `game` at its own view while the first call ran: hooks acted on
/// the wrong game or found none, "the game object can only be used while a hook runs".)
#[test]
fn games_on_several_threads_share_one_variant_safely() {
    let v = load(
        r#"
        function on_turn_end(game)
          -- Reads and writes through `game` several times in one call, so a call that
          -- switched games midway would see its own counts disagree.
          local n = #game:pieces()
          local seen = (game:get("seen") or 0) + n
          game:set("seen", seen)
          for _ = 1, 20 do
            if #game:pieces() ~= n then error("the board changed under the hook") end
          end
          game:award(game:to_move(), game:ply() % 3, "plies")
        end
        function score(game, action)
          return #game:pieces() % 2
        end
        "#,
    );
    let play_out = |v: &Arc<Variant>, seed: u64| {
        let mut rng = varia::rng::Rng::new(seed);
        let mut g = Game::with_seed(v.clone(), seed);
        for _ in 0..40 {
            let legal = g.legal_actions();
            if legal.is_empty() || g.outcome().is_some() {
                break;
            }
            let a = legal[rng.below(legal.len() as u64) as usize];
            g.apply(a).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        }
        state(&g)
    };
    let alone: Vec<String> = (0..8).map(|seed| play_out(&v, seed)).collect();
    let (play_out, shared) = (&play_out, &v);
    let together: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8).map(|seed| s.spawn(move || play_out(shared, seed))).collect();
        handles.into_iter().map(|h| h.join().expect("no thread panics")).collect()
    });
    assert_eq!(together, alone, "each game is the same whether played alone or beside others");
    assert_ne!(alone[0], alone[1], "different seeds play different games");
    // A copy with a Lua state of its own per thread: the same games, run in parallel.
    let own: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|seed| {
                let mine = v.with_own_hooks().expect("the scripts load again");
                assert!(mine.hooks.is_some());
                assert!(!Arc::ptr_eq(mine.hooks.as_ref().unwrap(), v.hooks.as_ref().unwrap()), "a state of its own");
                s.spawn(move || play_out(&mine, seed))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("no thread panics")).collect()
    });
    assert_eq!(own, alone, "a variant with hooks of its own plays the same games");
}

/// The SAN record is written by walking back over the game, never by replaying it: a
/// hook runs once per action. (A replay ran every hook again, and could not follow a
/// script whose state escapes the game — here an upvalue that allows four actions.)
#[test]
fn the_san_record_runs_no_hook_again() {
    let v = load(
        r#"
        local taken = 0
        function before_action(game, action)
          taken = taken + 1
          if taken > 4 then return false, "this Lua state allows four actions" end
        end
        "#,
    );
    let mut g = Game::new(v);
    play(&mut g, "e2-e4 e7-e5 g1-f3 b8-c6");
    assert_eq!(g.moves_san(), "1. e4 e5 2. Nf3 Nc6");
    assert_eq!(g.history_san(), ["e4", "e5", "Nf3", "Nc6"]);
    let refused = g.play("f1-b5").unwrap_err().to_string();
    assert!(refused.contains("this Lua state allows four actions"), "{refused}");
}

/// The guarded library functions (`string.*`, `table.*`, `utf8.*`, `tonumber`: the
/// sandbox checks each call, then runs the original) answer and fail as Lua's own library
/// does: the same results, and the same error messages, with the rules' line. Stock Lua
/// 5.4 (a plain state, the same chunk name) runs the same text as the reference.
#[test]
fn guarded_library_functions_answer_and_fail_as_lua_does() {
    let snippets = [
        "return string.find('hello world', 'o w')",
        "return ('a,b,,c'):gsub(',', ';')",
        "local t = {} for w in string.gmatch('one two three', '%a+') do t[#t + 1] = w end return table.concat(t, '|')",
        "local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end) return table.concat(t, ',')",
        "return tonumber('0x10'), tonumber('z', 36), tonumber('nope'), tonumber(7)",
        "return string.format('%5.2f|%d|%s', 3.14159, 42, 'x')",
        "return utf8.len('h\\u{e9}llo'), utf8.codepoint('\\u{e9}'), utf8.offset('h\\u{e9}llo', 3)",
        "return select('#', table.unpack({1, nil, 3}, 1, 3))",
        "return string.byte('abc', 1, -1)",
        "local t = {1, 2, 3} return table.remove(t), table.move(t, 1, 2, 2)[3], #t",
        "return string.unpack('i4', string.pack('i4', 7))",
        "return ('AbC'):upper(), ('AbC'):lower(), ('abc'):reverse(), ('abcdef'):sub(2, -2)",
        "return string.rep()",
        "return ('x'):rep({})",
        "return string.find('x', '%')",
        "return table.concat({1, {}, 3})",
        "return tonumber('10', 99)",
        "return table.insert({}, 1, 2, 3)",
        "return string.format('%d', 'x')",
        "return pcall(string.rep)",
        "return utf8.codepoint('\\xff')",
        "return table.sort({3, 1, 2}, 42)",
        "return table.insert(setmetatable({}, { __len = function() error('no length') end }), 1)",
        "return table.concat(setmetatable({}, { __len = function() return 2 end, __index = function(_, i) return 'v' .. i end }))",
    ];
    let mut rules = String::from(
        "local function show(...)\n\
         \x20 local t = table.pack(...)\n\
         \x20 for i = 1, t.n do t[i] = tostring(t[i]) end\n\
         \x20 return table.concat(t, ' ', 1, t.n)\n\
         end\n\
         function after_action(game, action)\n\
         \x20 local out = {}\n",
    );
    for s in snippets {
        rules.push_str(&format!("  out[#out + 1] = show(pcall(function() {s} end))\n"));
    }
    rules.push_str("  game:set('out', table.concat(out, '\\n'))\nend\n");

    let v = load(&rules);
    let label = v.scripts.last().unwrap().label.clone();
    let mut g = Game::new(v);
    play(&mut g, "e2-e4");
    let got = match g.var("out") {
        Some(varia::hooks::Var::Text(t)) => t.to_string(),
        other => panic!("out: {other:?}"),
    };

    let lua = mlua::Lua::new();
    lua.load(&rules).set_name(format!("@{label}")).exec().unwrap();
    let game: mlua::Table = lua.load("return { set = function(self, k, v) OUT = v end }").eval().unwrap();
    let hook: mlua::Function = lua.globals().get("after_action").unwrap();
    hook.call::<()>((game, "e2-e4")).unwrap();
    let stock: String = lua.globals().get("OUT").unwrap();

    let (got, stock): (Vec<&str>, Vec<&str>) = (got.lines().collect(), stock.lines().collect());
    assert_eq!(got.len(), snippets.len());
    for ((s, g), r) in snippets.iter().zip(&got).zip(&stock) {
        assert_eq!(g, r, "{s}");
    }
    // What Lua's library says, worked out from its sources (lstrlib.c, ltablib.c,
    // lbaselib.c, lauxlib.c): the rules' line (the `show(pcall(...))` of each snippet,
    // from line 8 on) and the function's name as the rules called it.
    let line = |i: usize| format!("{label}:{}:", 8 + i);
    assert_eq!(got[0], "true 5 7");
    assert_eq!(got[1], "true a;b;;c 3");
    assert_eq!(got[2], "true one|two|three");
    assert_eq!(got[3], "true 3,2,1");
    assert_eq!(got[4], "true 16 35 nil 7");
    assert_eq!(got[5], "true  3.14|42|x");
    assert_eq!(got[6], "true 5 233 4");
    assert_eq!(got[7], "true 3");
    assert_eq!(got[8], "true 97 98 99");
    assert_eq!(got[9], "true 3 2 3");
    assert_eq!(got[10], "true 7 5");
    assert_eq!(got[11], "true ABC abc cba bcde");
    assert_eq!(got[12], format!("false {} bad argument #1 to 'rep' (string expected, got no value)", line(12)));
    assert_eq!(got[13], format!("false {} bad argument #1 to 'rep' (number expected, got table)", line(13)));
    assert_eq!(got[14], format!("false {} malformed pattern (ends with '%')", line(14)));
    assert_eq!(got[15], format!("false {} invalid value (table) at index 2 in table for 'concat'", line(15)));
    assert_eq!(got[16], format!("false {} bad argument #2 to 'tonumber' (base out of range)", line(16)));
    assert_eq!(got[17], format!("false {} wrong number of arguments to 'insert'", line(17)));
    assert_eq!(got[18], format!("false {} bad argument #2 to 'format' (number expected, got string)", line(18)));
    assert_eq!(got[19], "true false bad argument #1 to 'string.rep' (string expected, got no value)");
    assert_eq!(got[20], format!("false {} invalid UTF-8 code", line(20)));
    assert_eq!(got[21], format!("false {} bad argument #2 to 'sort' (function expected, got number)", line(21)));
    // A `__len` that fails leaves the guard's count at 0, and the library's own call of it
    // raises its error; `table.concat` reads through `__len` and `__index`.
    assert_eq!(got[22], format!("false {} no length", line(22)));
    assert_eq!(got[23], "true v1v2");
}

/// A guarded function refused inside `pcall` is still an error at the rules' line (the
/// work is counted, so the hook's budget is spent: the stop passes through `pcall`), and
/// a costly `gsub` called as a method is refused with its own line.
#[test]
fn refused_library_calls_name_the_rules_line() {
    check_contained(
        "gsub as a method, in a helper",
        "local function strip(s)\n  return (s:gsub('a*a*a*b', ''))\nend\n\
         function on_turn_end(game)\n  if game:ply() == 0 then return end\n  strip(string.rep('a', 1000))\nend\n",
        "rules.lua:2: string.gsub: this pattern may take up to 1.0e12 steps on a subject of 1000 characters",
    );
    check_contained(
        "a pattern refused inside pcall is caught like any error",
        "function on_turn_end(game)\n  if game:ply() == 0 then return end\n\
         \x20 local ok, e = pcall(string.find, string.rep('a', 20000), '.-.-.-.-b')\n\
         \x20 error('caught: ' .. tostring(ok) .. ' ' .. e, 0)\nend\n",
        "caught: false …rules.lua:3: string.find: this pattern may take up to 3.2e21 steps",
    );
}
