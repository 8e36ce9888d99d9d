//! The fast hooks: the `allow` predicate (called only for the actions `allow_when`
//! declares), its perft walk against the full pipeline and against the same rule as
//! data, and the core's answers to `game:attacked`, `royal_square(s)` and `checkers`.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use varia::{Game, Reason, RuleError, Variant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A variant folder extending standard chess with `rules` as its rules.lua.
fn folder(rules: &str, toml_extra: &str) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-allow-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), format!("extends = \"standard\"\n{toml_extra}\n")).unwrap();
    if !rules.is_empty() {
        std::fs::write(dir.join("rules.lua"), rules).unwrap();
    }
    dir
}

fn load_with(rules: &str, toml_extra: &str) -> Arc<Variant> {
    let dir = folder(rules, toml_extra);
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

fn load(rules: &str) -> Arc<Variant> {
    load_with(rules, "")
}

fn load_err(rules: &str) -> String {
    let dir = folder(rules, "");
    match Variant::load(dir.to_str().unwrap()) {
        Ok(_) => panic!("expected a load error"),
        Err(e) => e.problems().iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"),
    }
}

/// A pawn on g7 about to promote: g8=Q/R/B/N and the king's g1, g2, h2 (7 moves).
const PROMOTE: &str = "k7/6P1/8/8/8/8/8/7K w - - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

const NO_QUEENS: &str = r#"
allow_when = { promotion = true }
function allow(game, action)
  if action.promotion == nil then error("called for " .. action.from .. "-" .. action.to) end
  if action.promotion == "queen" then return false, "pawns promote to anything but a queen here" end
end
"#;

/// Perft through the public API alone: list, apply, recurse (the full pipeline).
fn reference_perft(g: &Game, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let actions = g.try_legal_actions().unwrap();
    if depth == 1 {
        return actions.len() as u64;
    }
    actions
        .into_iter()
        .map(|a| {
            let mut c = g.clone();
            c.apply(a).unwrap();
            reference_perft(&c, depth - 1)
        })
        .sum()
}

#[test]
fn allow_takes_out_what_it_refuses_and_only_sees_what_it_declares() {
    let g = Game::from_fen(load(NO_QUEENS), PROMOTE).unwrap();
    // 7 moves less g7-g8=Q; the hook raises for any non-promotion, so it never saw one.
    assert_eq!(g.try_perft(1).unwrap(), 6);
    let texts: Vec<String> = g.legal_actions().iter().map(|a| g.format(a)).collect();
    assert!(!texts.iter().any(|t| t.ends_with("=Q")), "{texts:?}");
    assert_eq!(texts.iter().filter(|t| t.starts_with("g7-g8=")).count(), 3, "{texts:?}");

    // Without the declaration it is called for every action, and the king's moves raise.
    let all = NO_QUEENS.replace("allow_when = { promotion = true }", "");
    let err = Game::from_fen(load(&all), PROMOTE).unwrap().try_perft(1).unwrap_err().to_string();
    assert!(err.contains("rules.lua:4: called for h1-"), "{err}");
    assert!(err.contains("in hook `allow`, while listing the legal actions"), "{err}");
}

#[test]
fn allow_counts_equal_the_same_rule_as_data() {
    let hooked = Game::from_fen(load(NO_QUEENS), PROMOTE).unwrap();
    let data = Game::from_fen(
        load_with("", "[pieces.pawn]\npromotion = { zone = \"last_rank\", to = [\"rook\", \"bishop\", \"knight\"] }"),
        PROMOTE,
    )
    .unwrap();
    assert!(data.variant().hooks.is_none());
    for depth in 1..=4 {
        assert_eq!(hooked.try_perft(depth).unwrap(), data.perft(depth), "depth {depth}");
    }
    // Position 4 of the chessprogramming wiki: promotions on both sides.
    let pos4 = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
    let (h, d) = (
        Game::from_fen(hooked.variant().clone(), pos4).unwrap(),
        Game::from_fen(data.variant().clone(), pos4).unwrap(),
    );
    assert_eq!(h.try_perft(3).unwrap(), d.perft(3));
    let divide: u64 = h.try_divide(3).unwrap().iter().map(|(_, n)| n).sum();
    assert_eq!(divide, d.perft(3));
}

#[test]
fn allow_by_kind_and_by_target() {
    // Knights may not move: 20 - 4 moves at the start, and 16 × 16 after each.
    let v = load("allow_when = { kinds = { \"knight\" } }\nfunction allow(game, a) return false end\n");
    let g = Game::new(v);
    assert_eq!(g.try_perft(1).unwrap(), 16);
    assert_eq!(g.try_perft(2).unwrap(), 256);
    // No piece may go to d4 or e4 (by square names): d2-d4 and e2-e4 go.
    let v = load("allow_when = { to = { \"d4\", \"e4\" } }\nfunction allow(game, a) return false end\n");
    assert_eq!(Game::new(v).try_perft(1).unwrap(), 18);
    // By region (each side's own last rank): only the promotion squares are asked about.
    let v = load(
        "allow_when = { to = \"last_rank\" }\nfunction allow(game, a)\n  if a.to ~= \"g8\" then error(a.to) end\n  return a.promotion == \"knight\"\nend\n",
    );
    assert_eq!(Game::from_fen(v, PROMOTE).unwrap().try_perft(1).unwrap(), 4);
}

#[test]
fn the_walk_equals_the_pipeline_with_queries_ply_and_captures() {
    // Captures only of undefended pieces, and none in the first two plies of the game.
    let rules = r#"
allow_when = { capture = true }
function allow(game, a)
  if a.capture == nil then error("not a capture") end
  if game:ply() < 2 then return false, "no captures yet" end
  local them = game:to_move() == "white" and "black" or "white"
  if a.type == "en_passant" then return true end
  return not game:attacked(a.to, them)
end
"#;
    let v = load(rules);
    let g = Game::from_fen(v.clone(), KIWIPETE).unwrap();
    // At the root (ply 0) no capture is allowed: the 48 moves less kiwipete's 8 captures.
    assert_eq!(g.try_perft(1).unwrap(), 48 - 8);
    for depth in 1..=3 {
        assert_eq!(g.try_perft(depth).unwrap(), reference_perft(&g, depth), "depth {depth}");
    }
    // After two plies the rule lets captures of undefended pieces through, below the
    // game's history too (game:ply() counts the walk's plies).
    let mut later = g.clone();
    later.play("a1-b1").unwrap();
    later.play("a8-b8").unwrap();
    assert_eq!(later.try_perft(3).unwrap(), reference_perft(&later, 3));
    let d: u64 = later.divide(3).iter().map(|(_, n)| n).sum();
    assert_eq!(d, later.perft(3));
}

#[test]
fn a_refused_move_says_why_and_where() {
    let mut g = Game::from_fen(load(NO_QUEENS), PROMOTE).unwrap();
    let before = g.fen();
    let err = g.play("g7-g8=Q").unwrap_err().to_string();
    assert!(err.contains("pawns promote to anything but a queen here"), "{err}");
    assert!(err.contains("(allow, ") && err.contains("rules.lua:3)"), "{err}");
    assert_eq!(g.fen(), before);
    g.play("g7-g8=N").unwrap();
}

#[test]
fn a_failing_allow_changes_nothing_and_names_its_line() {
    let rules = "allow_when = { kinds = { \"king\" } }\nfunction allow(game, a)\n  local t = nil\n  return t.x\nend\n";
    let mut g = Game::from_fen(load(rules), PROMOTE).unwrap();
    let before = g.fen();
    let err = g.play("g7-g8=Q").unwrap_err();
    assert!(matches!(err, RuleError::Listing(_)), "{err:?}");
    assert!(err.to_string().contains("rules.lua:4: attempt to index a nil value"), "{err}");
    assert_eq!(g.fen(), before);
    // Perft names the path below the root where it failed; `perft` counts it 0.
    let g =
        Game::from_fen(load(rules.replace("kinds = { \"king\" }", "kinds = { \"queen\" }").as_str()), PROMOTE).unwrap();
    assert_eq!(g.try_perft(1).unwrap(), 7);
    // Only the queen of g7-g8=Q asks, at depth 3, after black's king moved (a7 or b7).
    // Depth 2, by hand: after =Q or =R (check along the rank) the king has a7 and b7;
    // after =B, =N and each of the three king moves, a7, b7 and b8: 2+2+3+3+9. (As a
    // data variant counts: the walk does not stop where K+B or K+N against K is a draw.)
    assert_eq!(g.try_perft(2).unwrap(), 19);
    let err = g.try_perft(3).unwrap_err().to_string();
    assert!(err.starts_with("after g7-g8=Q a8-"), "{err}");
    assert!(err.contains("rules.lua:4: attempt to index a nil value"), "{err}");
    let divide = g.divide(3);
    let queen = divide.iter().find(|(a, _)| g.format(a) == "g7-g8=Q").unwrap();
    assert_eq!(queen.1, 0, "a failing subtree counts 0");
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), g.perft(3));
    assert!(g.perft(3) > 0);
    // A limit stops it like any hook.
    let v = load("allow_when = { promotion = true }\nfunction allow(game, a)\n  while true do end\nend\n");
    let err = Game::from_fen(v, PROMOTE).unwrap().try_perft(1).unwrap_err().to_string();
    assert!(err.contains("rules.lua:3: stopped after"), "{err}");
}

/// Refuses every move onto d4 or e4 (so 18 of white's 20 first moves; black's 20 cannot
/// reach them), and, when `WRITES` is in it, writes into its action table on some calls.
const NO_CENTRE: &str = r#"
function allow(game, a)
  -- What earlier calls wrote must not show: every field is this action's own.
  if a.extra ~= nil then error("a write leaked into the next call: extra") end
  if a.piece == nil or a.type == nil or a.from == nil or a.to == "h8" then
    error("a stale field: " .. tostring(a.from) .. "-" .. tostring(a.to) .. " " .. tostring(a.piece))
  end
  if a.from == "a1" and a.piece ~= "rook" then error("a stale from: a1 " .. a.piece) end
  if a.promotion ~= nil then error("a stale promotion " .. a.promotion) end
  if a.type ~= "move" and a.type ~= "skip" then error("a stale type " .. a.type) end
  local refuse = a.to == "d4" or a.to == "e4"
  WRITES
  if refuse then return false, "not the centre" end
end
"#;

/// Writes of every kind into the action table (knight moves, pawn moves to the third rank).
const WRITES: &str = r#"
  if a.piece == "knight" then
    a.to = nil
    if a.to ~= nil then error("a field set to nil still reads " .. a.to) end
    a.capture, a.promotion, a.extra, a.type = "queen", "queen", 1, "castle"
    if a.capture ~= "queen" or a.extra ~= 1 or a.type ~= "castle" then error("a write did not read back") end
    a.to, a.from, a.piece = "h8", "a1", "pawn"
    local keys = {}
    for k in pairs(a) do keys[#keys + 1] = k end
    table.sort(keys)
    if table.concat(keys, ",") ~= "capture,extra,from,piece,promotion,to,type" then
      error("pairs after writes: " .. table.concat(keys, ","))
    end
  elseif a.to == "a3" or a.to == "e3" then
    rawset(a, "to", "h8")
    rawset(a, "piece", nil)
    if rawget(a, "to") ~= "h8" or a.to ~= "h8" then error("rawset did not read back") end
  elseif a.to == "h3" then
    -- A table of its own as a field: kept for this call only, like the rest.
    a.extra = { 1 }
  end
"#;

#[test]
fn what_allow_writes_into_its_action_lasts_for_its_call_only() {
    // The host sets only the fields that changed since the last action: a write of the
    // script must never leave a stale field for the next call (knights' moves write through
    // `__newindex`, some pawns' through `rawset`, between calls that write nothing).
    let quiet = Game::new(load(&NO_CENTRE.replace("WRITES", "")));
    let writing = Game::new(load(&NO_CENTRE.replace("WRITES", WRITES)));
    assert_eq!(writing.try_perft(1).unwrap(), 18);
    // Black's 20 replies reach neither d4 nor e4.
    assert_eq!(writing.try_perft(2).unwrap(), 18 * 20);
    assert_eq!(writing.try_perft(3).unwrap(), quiet.try_perft(3).unwrap());
    assert_eq!(writing.try_perft(3).unwrap(), reference_perft(&writing, 3));
    // Each played move asks `allow` on its own (the one-action path): the same rule.
    let mut g = writing.clone();
    for m in ["g1-f3", "b8-c6", "e2-e3", "c6-e5", "f3-e5"] {
        g.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    let err = g.play("d7-d5").and_then(|_| g.play("e3-e4")).unwrap_err().to_string();
    assert!(err.contains("not the centre"), "{err}");
}

#[test]
fn the_action_reads_like_a_table_and_keeps_its_metatable() {
    // `pairs` lists the action's fields (the one-action path: the reason of a refusal;
    // the listing's path: an error), and the table's metatable is not the script's.
    let rules = r#"
allow_when = { promotion = true }
function allow(game, a)
  local t = {}
  for k, v in pairs(a) do t[#t + 1] = k .. "=" .. v end
  table.sort(t)
  local text = table.concat(t, " ")
  if a.promotion == "knight" and FAIL then error(text) end
  if getmetatable(a) ~= "protected" then error("the metatable shows") end
  if pcall(setmetatable, a, {}) then error("the metatable changed") end
  return false, text
end
"#;
    let mut g = Game::from_fen(load(&rules.replace("FAIL", "false")), PROMOTE).unwrap();
    // The four promotions refused, the king's three moves left.
    assert_eq!(g.try_perft(1).unwrap(), 3);
    let err = g.play("g7-g8=Q").unwrap_err().to_string();
    assert!(err.contains("from=g7 piece=pawn promotion=queen to=g8 type=move"), "{err}");
    let fail = rules.replace("FAIL", "true");
    let err = Game::from_fen(load(&fail), PROMOTE).unwrap().try_perft(1).unwrap_err().to_string();
    assert!(err.contains("rules.lua:8: from=g7 piece=pawn promotion=knight to=g8 type=move"), "{err}");
    // A capture lists its `capture` (g8 blocked: the pawn's only way is to take on f8).
    let g = Game::from_fen(load(&fail), "k4rn1/6P1/8/8/8/8/8/7K w - - 0 1").unwrap();
    let err = g.try_perft(1).unwrap_err().to_string();
    assert!(err.contains("capture=rook from=g7 piece=pawn promotion=knight to=f8 type=move"), "{err}");
}

#[test]
fn allow_when_is_checked_when_the_variant_loads() {
    let e = load_err("allow_when = { kinds = { \"pawnn\" } }\nfunction allow(game, a) end\n");
    assert!(e.contains("`allow_when.kinds`: `pawnn` is not a piece kind of this variant"), "{e}");
    let e = load_err("allow_when = { promo = true }\nfunction allow(game, a) end\n");
    assert!(e.contains("`allow_when` has no key `promo`"), "{e}");
    let e = load_err("allow_when = { to = \"h9\" }\nfunction allow(game, a) end\n");
    assert!(e.contains("`h9` is neither a region of variant.toml nor a square"), "{e}");
    let e = load_err("allow_when = { capture = 1 }\nfunction allow(game, a) end\n");
    assert!(e.contains("`allow_when.capture` must be true or false, not a integer"), "{e}");
    let e = load_err("allow_when = { capture = true }\n");
    assert!(e.contains("there is no function `allow`"), "{e}");
}

#[test]
fn allow_must_answer_true_false_or_nothing() {
    let v = load("function allow(game, a) return 3 end\n");
    let err = Game::new(v).try_perft(1).unwrap_err().to_string();
    assert!(
        err.contains("rules.lua:1: `allow` must return nothing, true, or false and a reason, not a integer"),
        "{err}"
    );
}

#[test]
fn the_core_answers_attacks_royal_squares_and_checkers() {
    let v = Variant::load("standard").unwrap();
    let mut g = Game::new(v);
    g.play("e2-e4").unwrap();
    let sq = |s: &str| g.variant().geometry.parse(s).unwrap();
    // d2 and f2 guard e3; nothing white reaches e5; the queen sees h5 through e2 now.
    assert!(g.attacked(sq("e3"), varia::Side::White));
    assert!(!g.attacked(sq("e5"), varia::Side::White));
    assert!(g.attacked(sq("h5"), varia::Side::White));
    assert!(!g.attacked(sq("e4"), varia::Side::Black));
    assert_eq!(g.royal_squares(varia::Side::Black), vec![sq("e8")]);
    assert!(g.checkers().is_empty());

    // The same through Lua: check_outcome reports what it read as its reason.
    let rules = r#"
function check_outcome(game)
  local c = game:checkers()
  local seen = {
    tostring(game:attacked("d2", "white")), tostring(game:attacked("d2", "black")),
    tostring(game:attacked("e3", "black")), game:royal_square("white"), #game:royal_squares("black"),
    #c .. ":" .. table.concat(c, ","),
  }
  return "draw", table.concat(seen, " ")
end
"#;
    // A double check: the rook on h1 along the rank, the bishop on b4 along the diagonal
    // (listed in square order: h1 is square 7, b4 square 25).
    let g = Game::from_fen(load(rules), "4k3/8/8/8/1b6/8/8/4K2r w - - 0 1").unwrap();
    let Some(o) = g.outcome() else { panic!("check_outcome ends it") };
    assert_eq!(o.reason, Reason::Rule("true true false e1 1 2:h1,b4".into()));
}

/// The same rule as data and through `allow`, for a profiler (not a test: nothing is
/// timed or asserted). `VARIA_PROBE=RULE,DEPTH` with RULE one of `data` (standard chess,
/// no hooks), `every` (`allow` called for every action, returning nothing), `reads` (the
/// same, reading four fields), `promotions` (`allow_when = { promotion = true }`) or
/// `attacked` (each capture asks `game:attacked`), from Kiwipete; e.g.
/// `valgrind --tool=callgrind --toggle-collect='*probe_perft*' target/…/lua_allow-… --ignored probe --exact`.
#[test]
#[ignore]
fn probe() {
    let spec = std::env::var("VARIA_PROBE").unwrap_or_else(|_| "every,3".into());
    let (rule, depth) = spec.split_once(',').unwrap_or((&spec, "3"));
    let depth: u32 = depth.parse().unwrap_or(3);
    // The time limit off: under a profiler the clock runs slow (the instruction budget
    // still holds).
    let limits = "[scripting]\ntime_limit_ms = 0\n";
    let v = match rule {
        "data" => load_with("", limits),
        "every" => load_with("function allow(game, a) end\n", limits),
        "promotions" => load_with(
            "allow_when = { promotion = true }\nfunction allow(game, a) return a.promotion ~= \"queen\" end\n",
            limits,
        ),
        "reads" => {
            load_with("function allow(game, a) local f, t, p, c = a.from, a.to, a.piece, a.capture end\n", limits)
        }
        "attacked" => load_with(
            "allow_when = { capture = true }\nfunction allow(game, a)\n  return game:attacked(a.to, game:to_move()) or true\nend\n",
            limits,
        ),
        other => panic!("unknown rule {other}"),
    };
    let g = Game::from_fen(v, KIWIPETE).unwrap();
    let nodes = probe_perft(&g, depth);
    println!("{rule}: perft {depth} = {nodes}");
}

#[inline(never)]
fn probe_perft(g: &Game, depth: u32) -> u64 {
    if g.variant().hooks.is_none() { g.perft(depth) } else { g.try_perft(depth).unwrap() }
}
