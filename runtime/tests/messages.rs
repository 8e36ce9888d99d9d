//! True messages: a refusal names its real cause (a landing choice, a rule's filter, the
//! check rule only where there is one), a failing hook is an error of the listing or the
//! count that met it, and an error raised with no message still names its line.
//! Expected texts are worked out by hand from the rules.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use varia::rng::Rng;
use varia::{Action, Game, RuleError, Square, Variant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

fn folder(parent: &str, rules: &str) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-messages-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), format!("extends = \"{parent}\"\n")).unwrap();
    std::fs::write(dir.join("rules.lua"), rules).unwrap();
    dir
}

fn load(parent: &str, rules: &str) -> Arc<Variant> {
    let dir = folder(parent, rules);
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

fn refusal(g: &Game, text: &str) -> String {
    match g.parse_action(text) {
        Ok(a) => panic!("{text} was accepted as {}", g.format(&a)),
        Err(e) => e.to_string(),
    }
}

/// fixtures/chessception/cc10: the queen a4-d7 kills the knight on d7 and (by splash) the
/// pawn on e7, so it lands on d7 or e7.
fn two_kills() -> Game {
    Game::from_fen(Variant::load("chessception").unwrap(), "8/3np3/8/8/Q6k/8/8/K7 w - - 0 1").unwrap()
}

#[test]
fn an_unknown_landing_choice_lists_the_squares_on_offer() {
    let g = two_kills();
    for at in ["d8", "a4", "h8"] {
        let e = refusal(&g, &format!("a4-d7@{at}"));
        assert_eq!(e, format!("a4-d7@{at} is illegal: `@{at}` is not where it may land: choose @d7 or @e7"));
    }
    // The same for an action value whose landing is off the list.
    let mut g = g;
    let a = g.parse_action("a4-d7@d7").unwrap();
    let d8 = g.variant().geometry.parse("d8").unwrap();
    let e = g.apply(a.landing_on(d8)).unwrap_err().to_string();
    assert!(e.ends_with("`@d8` is not where it may land: choose @d7 or @e7"), "{e}");
}

#[test]
fn a_redundant_landing_choice_says_none_is_needed() {
    let cc = Variant::load("chessception").unwrap();
    // fixtures/chessception/cc09: the bishop b4-d6 kills twice but dies to the counters:
    // one action, no landing.
    let g = Game::from_fen(cc.clone(), "7k/2p1p3/3p4/4p3/1B6/8/8/7K w - - 0 1 hp=c7:1").unwrap();
    for text in ["b4-d6@d6", "b4-d6@c7"] {
        let e = refusal(&g, text);
        assert!(
            e.ends_with(&format!(
                "it needs no landing choice (there is only one way it ends): write it without `{}`",
                &text[5..]
            )),
            "{e}"
        );
    }
    // A quiet move, in chess too.
    assert!(refusal(&Game::new(cc), "a2-a3@a3").contains("it needs no landing choice"));
    let chess = Game::new(Variant::load("standard").unwrap());
    let e = refusal(&chess, "e2-e4@e4");
    assert!(e.contains("write it without `@e4`") && !e.contains("attacked"), "{e}");
}

#[test]
fn a_move_a_rule_filters_out_says_so_with_the_hook_s_place() {
    let rules = "function filter_actions(game, actions)\n  local out = {}\n  for _, a in ipairs(actions) do\n    \
                 if a ~= 'e2-e4' then out[#out + 1] = a end\n  end\n  return out\nend\n";
    for parent in ["standard", "chessception"] {
        let g = Game::new(load(parent, rules));
        let e = refusal(&g, "e2-e4");
        assert!(e.starts_with("e2-e4 is illegal: the variant's rules do not allow it here (filter_actions, "), "{e}");
        assert!(e.ends_with("rules.lua:1)"), "{e}");
        assert!(!e.contains("attacked") && !e.contains("check"), "{e}");
        assert!(g.parse_action("e2-e3").is_ok());
    }
}

#[test]
fn no_refusal_speaks_of_check_without_the_check_rule() {
    // Every from-to pair of every position of two random Chessception games.
    let v = Variant::load("chessception").unwrap();
    let mut refusals = 0;
    for seed in [3, 4] {
        let mut rng = Rng::new(seed);
        let mut g = Game::new(v.clone());
        while g.ply() < 60 && g.outcome().is_none() {
            for from in v.geometry.squares() {
                if g.piece_at(from).is_none_or(|p| p.side != g.to_move()) {
                    continue;
                }
                for to in v.geometry.squares() {
                    let text = format!("{}-{}", v.square_name(from), v.square_name(to));
                    if let Err(e) = g.parse_action(&text) {
                        let e = e.to_string();
                        assert!(!e.contains("check") && !e.contains("leave your"), "{}: {text}: {e}", g.fen());
                        refusals += 1;
                    }
                }
            }
            let legal = g.legal_actions();
            g.apply(legal[rng.below(legal.len() as u64) as usize]).unwrap();
        }
    }
    assert!(refusals > 10_000, "{refusals}");
}

#[test]
fn actions_built_by_hand_off_the_board_are_refused_not_panicked_on() {
    let mut g = Game::new(Variant::load("standard").unwrap());
    let e = g.apply(Action::new(Square(200), Square(12), varia::ActionKind::Normal)).unwrap_err().to_string();
    assert!(e.ends_with("square number 200 is off the 8×8 board"), "{e}");
    let e = g.apply(Action::new(Square(12), Square(28), varia::ActionKind::Normal).promoting(varia::KindId(40)));
    assert!(e.unwrap_err().to_string().ends_with("kind number 40 is not a kind of standard"));
    assert_eq!(g.piece_at(Square(200)), None);
    assert!(g.piece_state(Square(255)).is_none());
    assert_eq!(g.ply(), 0);
}

#[test]
fn errors_raised_without_a_message_name_the_hook_and_the_line() {
    let v = load(
        "standard",
        "function after_action(game, action)\n  if action == 'e2-e4' then error({}) end\n  \
         if action == 'd2-d4' then error(nil) end\n  if action == 'c2-c4' then error('no place', 0) end\nend\n",
    );
    for (m, line, what) in [
        ("e2-e4", 2, "error raised with a table value instead of a message"),
        ("d2-d4", 3, "error raised with nil instead of a message"),
        ("c2-c4", 4, "no place"),
    ] {
        match Game::new(v.clone()).play(m) {
            Err(RuleError::Script(e)) => {
                assert_eq!(e.hook, "after_action");
                assert!(e.message.ends_with(&format!("rules.lua:{line}: {what}")), "{}", e.message);
                assert!(!e.message.contains("0x"), "{}", e.message);
            }
            other => panic!("{m}: {other:?}"),
        }
    }
    // While loading, too: one located problem, without a traceback.
    let dir = folder("standard", "local x = 1\nerror({})\n");
    let problems = Variant::load(dir.to_str().unwrap()).unwrap_err().problems();
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].line, 2);
    assert_eq!(problems[0].message, "error raised with a table value instead of a message");
}

#[test]
fn a_failing_filter_is_an_error_of_the_listing_and_of_perft() {
    let v = load(
        "standard",
        "function filter_actions(game, actions)\n  if game:ply() == 1 then error('boom') end\n  return actions\nend\n",
    );
    let g = Game::new(v);
    assert_eq!(g.try_legal_actions().unwrap().len(), 20);
    assert_eq!(g.try_perft(1).unwrap(), 20);
    let e = g.try_perft(2).unwrap_err().to_string();
    // Actions go in square order: the first is the b1 knight's b1-a3; after it the hook fails.
    assert!(e.starts_with("after b1-a3: "), "{e}");
    assert!(e.contains("rules.lua:2: boom (in hook `filter_actions`, while listing the legal actions"), "{e}");
    assert!(g.try_divide(2).unwrap_err().to_string().starts_with("after b1-a3: "));
    let mut after = g.clone();
    after.play("e2-e4").unwrap();
    assert!(matches!(after.try_legal_actions(), Err(RuleError::Listing(e)) if e.hook == "filter_actions"));
    assert!(matches!(after.play("e7-e5"), Err(RuleError::Listing(_))));
}

#[test]
fn listed_actions_are_written_as_the_history_writes_them() {
    // fixtures/decachess/dc13: the rook takes e5; white's frozen h10 pawn becomes the
    // knight just lost.
    let v = Variant::load("decachess").unwrap();
    let mut g = Game::from_fen(v, "7P2/1P8/4r5/9k/10/4N5/10/10/10/K9 b - - 0 1 frozen=h10").unwrap();
    let a = g.parse_action("e8-e5").unwrap();
    assert_eq!(g.action_text(&a), "e8-e5+N");
    let quiet = g.parse_action("e8-e7").unwrap();
    assert_eq!(g.action_text(&quiet), "e8-e7");
    g.apply(a).unwrap();
    assert_eq!(g.history_text(), ["e8-e5+N"]);
}

#[test]
fn a_fixture_meeting_a_failing_filter_stops_with_the_error() {
    let dir = folder(
        "standard",
        "function filter_actions(game, actions)\n  if game:ply() == 2 then error('boom') end\n  return actions\nend\n",
    );
    let fixture = |name: &str, body: &str| {
        let path = dir.join(name);
        std::fs::write(&path, format!("description = \"x\"\nvariant = \".\"\n{body}")).unwrap();
        varia::fixture::Fixture::load_as(&path, name).unwrap_or_else(|e| panic!("{e}")).run()
    };
    // Before, the failing listing read as "no legal action": the playthrough just stopped.
    let e = fixture("walk.toml", "playthrough = { seed = 1, plies = 10 }\n").unwrap_err().to_string();
    assert!(e.contains("playthrough ply 3: "), "{e}");
    assert!(e.contains("rules.lua:2: boom (in hook `filter_actions`, while listing the legal actions"), "{e}");
    let e = fixture("moves.toml", "moves = [\"e2-e4\", \"e7-e5\"]\n[[expect]]\nafter = 0\nlegal_count = 20\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("at the end: ") && e.contains("boom"), "{e}");
}

#[test]
fn what_a_filter_returns_is_read_not_trusted() {
    // Text cut inside a character once killed the host; now it is the hook's error.
    for (returned, why) in [
        ("é", "returned `é`, which is not an action"),
        ("e2-é4", "returned `e2-é4`, which is not an action"),
        ("e7-e5", "returned `e7-e5`, but e7 holds no piece of the side to move"),
        // Not a move the core knows: played as a plain move, it would stack the king on
        // the queen.
        ("e1-d1", "returned `e1-d1`, but d1 holds a piece of the side to move"),
    ] {
        let v =
            load("standard", &format!("function filter_actions(game, actions)\n  return {{ '{returned}' }}\nend\n"));
        let mut g = Game::new(v.clone());
        match g.try_legal_actions() {
            Err(RuleError::Listing(e)) => assert!(e.message.contains(why), "{}", e.message),
            other => panic!("{returned}: {other:?}"),
        }
        assert!(matches!(g.play("e2-e4"), Err(RuleError::Listing(_))));
        assert_eq!(g.fen(), Game::new(v).fen());
    }
    // A plain move the core does not know, onto an empty square, is the rule's to allow.
    let v = load(
        "standard",
        "function filter_actions(game, actions)\n  if game:to_move() == 'white' then return { 'e1-e3' } end\n  return actions\nend\n",
    );
    let mut g = Game::from_fen(v, "4k3/8/8/8/8/8/P7/4K3 w - - 0 1").unwrap();
    g.play("e1-e3").unwrap();
    assert!(g.fen().starts_with("4k3/8/8/8/8/4K3/P7/8 b"), "{}", g.fen());
}
