//! The lean playout path (`Playout`) plays by the same rules as the full pipeline
//! (`Game::apply`): over seeded random games of every shipped two-sided variant, both
//! reach the same position, legal actions (as a set: the lean path leaves them in the
//! generator's order), scores and outcome at every ply.

use varia::rng::Rng;
use varia::variant::{TurnModel, known_variants};
use varia::{Game, Playout, RuleError, Variant};

const GAMES: u64 = 12;
const MAX_PLIES: usize = 1500;

fn compare(v: &std::sync::Arc<Variant>, seed: u64) -> (usize, bool) {
    let mut rng = Rng::new(seed);
    let mut full = Game::with_seed(v.clone(), seed);
    let mut lean = Playout::new(Game::with_seed(v.clone(), seed)).unwrap();
    for ply in 0..MAX_PLIES {
        let legal = full.legal_actions();
        let mut listed = lean.legal().to_vec();
        listed.sort();
        assert_eq!(listed, legal, "{} seed {seed} ply {ply}: legal actions", v.name);
        assert_eq!(lean.outcome().cloned(), full.outcome(), "{} seed {seed} ply {ply}: outcome", v.name);
        if legal.is_empty() {
            assert!(full.outcome().is_some(), "{} seed {seed}: no action and no outcome", v.name);
            return (ply, true);
        }
        let i = rng.below(legal.len() as u64) as usize;
        full.apply(legal[i]).unwrap();
        lean.apply_action(legal[i]).unwrap();
        let g = lean.game();
        assert_eq!(g.hash(), full.hash(), "{} seed {seed} ply {ply}: hash", v.name);
        assert_eq!(g.fen(), full.fen(), "{} seed {seed} ply {ply}: position", v.name);
        assert_eq!(g.scores(), full.scores(), "{} seed {seed} ply {ply}: scores", v.name);
        assert_eq!(g.vars(), full.vars(), "{} seed {seed} ply {ply}: the hooks' variables", v.name);
        assert_eq!(lean.ply(), full.ply());
    }
    (MAX_PLIES, full.outcome().is_some())
}

#[test]
fn the_lean_path_plays_by_the_same_rules_in_every_two_sided_variant() {
    let mut variants = 0;
    for found in known_variants() {
        let v = Variant::load_origin(&found.origin, &[]).unwrap();
        if v.turns != TurnModel::Alternate {
            continue;
        }
        variants += 1;
        let mut ended = 0;
        for seed in 1..=GAMES {
            let (_, over) = compare(&v, seed);
            ended += usize::from(over);
        }
        // Random games of these variants mostly end within the cap: the comparison
        // covered outcomes, not only the middle game.
        assert!(ended > 0, "{}: no game ended within {MAX_PLIES} plies", v.name);
        // The same, with the hooks left out (the lean path proper for a hooked variant).
        if v.hooks.is_some() {
            let bare = v.without_hooks();
            for seed in 1..=GAMES / 2 {
                compare(&bare, seed);
            }
        }
    }
    assert!(variants >= 4, "only {variants} two-sided variants found");
}

/// A game of random actions drawn by `Playout::play_random` (which tests the royal
/// piece's moves only when it draws them), played beside the full path: every action
/// drawn is among the full path's legal actions, and both reach the same positions and
/// outcome. Returns whether the game ended.
fn random_beside_full(v: &std::sync::Arc<Variant>, seed: u64) -> bool {
    let mut rng = Rng::new(seed);
    let mut full = Game::with_seed(v.clone(), seed);
    let mut lean = Playout::new(Game::with_seed(v.clone(), seed)).unwrap();
    for ply in 0..MAX_PLIES {
        let legal = full.legal_actions();
        assert_eq!(lean.outcome().cloned(), full.outcome(), "{} seed {seed} ply {ply}: outcome", v.name);
        match lean.play_random(&mut rng).unwrap() {
            None => {
                assert!(legal.is_empty(), "{} seed {seed} ply {ply}: no action drawn among {legal:?}", v.name);
                return full.outcome().is_some();
            }
            Some(a) => {
                assert!(legal.contains(&a), "{} seed {seed} ply {ply}: {a:?} is not legal", v.name);
                full.apply(a).unwrap();
            }
        }
        assert_eq!(lean.game().fen(), full.fen(), "{} seed {seed} ply {ply}: position", v.name);
        assert_eq!(lean.game().hash(), full.hash(), "{} seed {seed} ply {ply}: hash", v.name);
    }
    false
}

#[test]
fn random_draws_are_legal_and_judged_as_on_the_full_path_in_every_two_sided_variant() {
    for found in known_variants() {
        let v = Variant::load_origin(&found.origin, &[]).unwrap();
        if v.turns != TurnModel::Alternate {
            continue;
        }
        let v = if v.hooks.is_some() { v.without_hooks() } else { v };
        let ended = (1..=GAMES / 2).filter(|&seed| random_beside_full(&v, seed)).count();
        assert!(ended > 0, "{}: no game ended within {MAX_PLIES} plies", v.name);
    }
}

#[test]
fn a_random_draw_is_uniform_over_the_legal_actions_only() {
    // After ...Kd8-e8: white king e1, knight a1; black king e8, rook d2 (undefended). The
    // king's targets are d1, f1, d2, e2 and f2; the rook attacks d1 (down its file), e2
    // and f2 (along the rank), so only Kf1 and Kxd2 are legal; the knight has b3 and c2.
    // Four legal actions: each must be drawn a quarter of the time, and the three
    // illegal king moves, listed untested beside them, never.
    let v = Variant::load("standard").unwrap();
    let before = "3k4/8/8/8/8/8/3r4/N3K3 b - - 0 1";
    let fresh = || {
        let mut p = Playout::new(Game::from_fen(v.clone(), before).unwrap()).unwrap();
        let a = p.game().parse_action("d8-e8").unwrap();
        p.apply_action(a).unwrap();
        p
    };
    let mut p = fresh();
    let mut legal: Vec<String> = p.legal().to_vec().iter().map(|a| p.game().format(a)).collect();
    legal.sort();
    assert_eq!(legal, ["a1-b3", "a1-c2", "e1-d2", "e1-f1"]);
    let mut counts = std::collections::BTreeMap::<String, u32>::new();
    let mut rng = Rng::new(11);
    const DRAWS: u32 = 8000;
    for _ in 0..DRAWS {
        let mut p = fresh();
        let a = p.play_random(&mut rng).unwrap().expect("a legal action");
        // (The game went on: format the action from the position it was drawn in.)
        *counts.entry(fresh().game().format(&a)).or_default() += 1;
    }
    assert_eq!(counts.keys().collect::<Vec<_>>(), ["a1-b3", "a1-c2", "e1-d2", "e1-f1"]);
    // 2000 expected each; the binomial spread is about 39, so 1800–2200 is over five of
    // them (the draws are seeded: the same counts every run).
    for (a, &n) in &counts {
        assert!((1800..=2200).contains(&n), "{a} drawn {n} times of {DRAWS}: {counts:?}");
    }
}

#[test]
fn a_stalemate_found_among_the_royal_moves_alone_ends_the_playout() {
    // Black: king a8 alone; white: king h1, queen b5. After Qb5-b6 the black king's
    // targets a7, b7 and b8 are all attacked by the queen and a8 is not: stalemate, found
    // by testing the (untested) royal moves, the only ones listed.
    let v = Variant::load("standard").unwrap();
    let mut p = Playout::new(Game::from_fen(v, "k7/8/8/1Q6/8/8/8/7K w - - 0 1").unwrap()).unwrap();
    let a = p.game().parse_action("b5-b6").unwrap();
    p.apply_action(a).unwrap();
    let o = p.outcome().cloned().expect("stalemate");
    assert_eq!(o.result, varia::GameResult::Draw);
    assert_eq!(o.reason, varia::Reason::Stalemate);
    assert!(p.legal().is_empty());
    assert_eq!(p.play_random(&mut Rng::new(1)).unwrap(), None);
}

#[test]
fn a_playout_refuses_what_is_not_legal_and_changes_nothing() {
    let v = Variant::load("standard").unwrap();
    let mut p = Playout::new(Game::new(v)).unwrap();
    let n = p.legal().len();
    assert_eq!(n, 20);
    let fen = p.game().fen();
    assert!(p.apply(n).is_err());
    assert_eq!(p.game().fen(), fen);
    assert_eq!(p.ply(), 0);
    // e2-e4 is legal; applying it moves the pawn.
    let e4 = p.game().parse_action("e2-e4").unwrap();
    p.apply_action(e4).unwrap();
    assert_eq!(p.game().fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert!(p.apply_action(e4).is_err());
    assert_eq!(p.ply(), 1);
}

#[test]
fn fools_mate_ends_the_playout_with_the_same_outcome() {
    let v = Variant::load("standard").unwrap();
    let mut p = Playout::new(Game::new(v.clone())).unwrap();
    for m in ["f2-f3", "e7-e5", "g2-g4", "d8-h4"] {
        let a = p.game().parse_action(m).unwrap();
        p.apply_action(a).unwrap();
    }
    let o = p.outcome().cloned().expect("mate");
    assert_eq!(o.result, varia::GameResult::Win(varia::Side::Black));
    assert_eq!(o.reason, varia::Reason::Checkmate);
    assert!(p.legal().is_empty());
    assert!(matches!(p.apply(0), Err(varia::RuleError::GameOver(_))));
}

/// A fixed number of random playouts on the lean path, for a profiler (not a test:
/// nothing is timed or asserted). `VARIA_PROBE=VARIANT,PLAYOUTS[,bare]` (`bare`: with
/// the hooks left out), e.g. `valgrind --tool=callgrind --toggle-collect='*probe_playouts*'
/// target/debug/deps/playout-… --ignored probe --exact`; it prints the plies played.
#[test]
#[ignore]
fn probe() {
    let spec = std::env::var("VARIA_PROBE").unwrap_or_else(|_| "standard,100".into());
    let mut parts = spec.split(',');
    let name = parts.next().unwrap_or("standard");
    let playouts: u64 = parts.next().and_then(|n| n.parse().ok()).unwrap_or(100);
    // The time limit off: under a profiler, loading the scripts takes longer than it allows
    // (the instruction budget still holds).
    let mut v = Variant::load_with(name, &["scripting.time_limit_ms=0".parse().unwrap()]).unwrap();
    if parts.next() == Some("bare") {
        v = v.without_hooks();
    }
    let plies = probe_playouts(&v, playouts);
    println!("{name}: {playouts} playouts, {plies} plies");
}

#[inline(never)]
fn probe_playouts(v: &std::sync::Arc<Variant>, playouts: u64) -> u64 {
    let mut rng = Rng::new(1);
    let mut plies = 0u64;
    for _ in 0..playouts {
        let mut p = Playout::new(Game::new(v.clone())).unwrap();
        while p.outcome().is_none() && p.ply() < 2000 && p.play_random(&mut rng).unwrap().is_some() {
            plies += 1;
        }
    }
    plies
}

/// A variant folder extending standard chess with `rules` as its rules.lua.
fn with_rules(rules: &str) -> std::sync::Arc<Variant> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-playout-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n").unwrap();
    std::fs::write(dir.join("rules.lua"), rules).unwrap();
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn an_on_turn_end_hook_sees_the_same_ply_and_events_on_both_paths() {
    // The hook writes down what it saw: the ply, and every event with its fields in the
    // order `pairs` gives them.
    let v = with_rules(
        r#"
        local function dump(t)
          if type(t) ~= "table" then return tostring(t) end
          local out = {}
          for k, x in pairs(t) do out[#out + 1] = tostring(k) .. "=" .. dump(x) end
          return "{" .. table.concat(out, ",") .. "}"
        end
        function on_turn_end(game)
          local seen = {tostring(game:ply())}
          for _, e in ipairs(game:events()) do seen[#seen + 1] = dump(e) end
          game:set("seen", table.concat(seen, ";"))
        end
        "#,
    );
    for seed in 1..=4 {
        let (plies, _) = compare(&v, seed);
        assert!(plies > 0);
    }
    // And what it saw is right: after 1. e4 the hook was called at ply 0 with one move.
    let mut p = Playout::new(Game::new(v.clone())).unwrap();
    let e4 = p.game().parse_action("e2-e4").unwrap();
    p.apply_action(e4).unwrap();
    let seen = match p.game().var("seen") {
        Some(varia::hooks::Var::Text(t)) => t.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(seen.starts_with("0;{"), "{seen}");
    for part in ["event=moved", "from=e2", "to=e4", "kind=pawn", "side=white"] {
        assert!(seen.contains(part), "{seen} lacks {part}");
    }
    assert_eq!(seen.matches('{').count(), 1, "one event: {seen}");
}

#[test]
fn a_failing_hook_leaves_the_playout_as_it_was() {
    // The fourth action fails in on_turn_end: the playout is unchanged, and stays so.
    let v = with_rules(
        r#"
        function on_turn_end(game)
          if game:ply() == 3 then error("no fourth move") end
          game:set("last", game:ply())
        end
        "#,
    );
    let mut p = Playout::new(Game::new(v)).unwrap();
    for _ in 0..3 {
        p.apply(0).unwrap();
    }
    let (fen, legal, ply) = (p.game().fen(), p.legal().to_vec(), p.ply());
    assert_eq!(ply, 3);
    assert_eq!(p.game().var("last"), Some(&varia::hooks::Var::Int(2)));
    for _ in 0..2 {
        match p.apply(0) {
            Err(RuleError::Script(e)) => assert!(e.message.contains("no fourth move"), "{}", e.message),
            other => panic!("expected the hook's error, got {other:?}"),
        }
        assert_eq!(p.game().fen(), fen);
        assert_eq!(p.legal(), &legal[..]);
        assert_eq!(p.ply(), 3);
        assert_eq!(p.game().ply(), 3);
        assert_eq!(p.game().var("last"), Some(&varia::hooks::Var::Int(2)));
    }
}
