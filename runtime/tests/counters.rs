//! Rule commands keep the position consistent, and counters never wrap: hook commands
//! (`game:remove`, `game:place`, `game:move`) carry or clear every mark of the pieces they
//! touch; scores, clocks, damage, material and piece counts stop with a clear error or at
//! their bound instead of overflowing. Expected values are worked out by hand.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use varia::search::Clock;
use varia::variant::Override;
use varia::{Game, Reason, RuleError, Variant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A variant folder extending `parent` with `rules` as its rules.lua.
fn folder(parent: &str, rules: &str) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-counters-{}-{n}", std::process::id()));
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

fn set(list: &[&str]) -> Vec<Override> {
    list.iter().map(|s| s.parse().unwrap()).collect()
}

fn sq(g: &Game, name: &str) -> varia::Square {
    g.variant().geometry.parse(name).unwrap()
}

/// The game's FEN and snapshot read back to the same position.
fn reads_back(g: &Game) {
    let again = Game::from_fen(g.variant().clone(), &g.fen()).unwrap_or_else(|e| panic!("{}: {e}", g.fen()));
    assert_eq!((again.fen(), again.hash()), (g.fen(), g.hash()));
    let back = Game::restore(g.variant().clone(), &g.snapshot()).unwrap_or_else(|e| panic!("{}: {e}", g.fen()));
    assert_eq!(back.snapshot(), g.snapshot());
}

#[test]
fn removing_the_piece_that_skipped_ends_its_en_passant() {
    let v = load(
        "standard",
        "function after_action(game, action)\n  if action == 'e2-e4' then game:remove('e4') end\nend\n",
    );
    let mut g = Game::from_fen(v, "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1").unwrap();
    g.play("e2-e4").unwrap();
    assert!(g.fen().starts_with("4k3/8/8/8/3p4/8/8/4K3 b - - "), "{}", g.fen());
    // Black: the king's five steps and d4-d3; nothing to take on e3.
    let mut moves: Vec<String> = g.legal_actions().iter().map(|a| g.format(a)).collect();
    moves.sort();
    assert_eq!(moves, ["d4-d3", "e8-d7", "e8-d8", "e8-e7", "e8-f7", "e8-f8"]);
    let e = g.play("d4-e3").unwrap_err().to_string();
    assert!(e.contains("it goes there only to capture, and e3 is empty"), "{e}");
    reads_back(&g);
}

#[test]
fn a_piece_put_on_a_skipped_square_ends_its_en_passant() {
    let v = load(
        "standard",
        "function after_action(game, action)\n  if action == 'e2-e4' then game:place('e3', 'knight', 'white') end\nend\n",
    );
    let mut g = Game::from_fen(v, "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1").unwrap();
    g.play("e2-e4").unwrap();
    assert!(g.fen().starts_with("4k3/8/8/8/3pP3/4N3/8/4K3 b - - "), "{}", g.fen());
    reads_back(&g);
    // d4xe3 is an ordinary capture of the knight; the e4 pawn stays.
    let events: Vec<String> = g.play("d4-e3").unwrap().iter().map(|e| e.describe(g.variant())).collect();
    assert!(events.contains(&"white knight captured on e3".to_string()), "{events:?}");
    assert_eq!(g.piece_at(sq(&g, "e4")).map(|p| g.variant().kind(p.kind).name.clone()), Some("pawn".into()));
}

#[test]
fn a_frozen_piece_removed_by_a_rule_leaves_the_frozen_queue() {
    // fixtures/decachess/dc13: h9-h10 freezes the pawn on h10 (the graveyard is empty).
    let v = load(
        "decachess",
        "function after_action(game, action)\n  if action == 'j7-j6' then game:remove('h10') end\nend\n",
    );
    let mut g = Game::from_fen(v, "10/1P5P2/4r5/9k/10/4N5/10/10/10/K9 w - - 0 1").unwrap();
    g.play("h9-h10").unwrap();
    assert!(g.fen().ends_with(" frozen=h10"), "{}", g.fen());
    g.play("j7-j6").unwrap();
    // The king went j7-j6 (one ply without progress); no frozen field any more.
    assert_eq!(g.fen(), "10/1P8/4r5/10/9k/4N5/10/10/10/K9 w - - 1 2");
    assert!(g.setup().frozen.is_empty());
    reads_back(&g);
}

#[test]
fn a_frozen_piece_moved_by_a_rule_stays_frozen_only_in_its_zone() {
    let v = load(
        "decachess",
        "function after_action(game, action)\n  if action == 'j7-j6' then game:move('h10', 'g10') end\n  \
         if action == 'j6-j5' then game:move('g10', 'g9') end\nend\n",
    );
    let mut g = Game::from_fen(v, "10/1P5P2/4r5/9k/10/4N5/10/10/10/K9 w - - 0 1").unwrap();
    for m in ["h9-h10", "j7-j6"] {
        g.play(m).unwrap();
    }
    assert!(g.fen().ends_with(" frozen=g10"), "{}", g.fen());
    reads_back(&g);
    for m in ["a1-a2", "j6-j5"] {
        g.play(m).unwrap();
    }
    assert!(g.setup().frozen.is_empty(), "{}", g.fen());
    reads_back(&g);
}

#[test]
fn pieces_placed_or_moved_by_a_rule_keep_true_hit_points() {
    // Chessception: a knight has 4 HP. The rule puts a knight on d4, and moves the b1
    // knight (wounded to 1 HP by the FEN) to b4 with its hit points.
    let v = load(
        "chessception",
        "function after_action(game, action)\n  if action == 'e2-e3' then\n    game:place('d4', 'knight', 'white')\n    \
         game:move('b1', 'b4')\n  end\nend\n",
    );
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 hp=b1:1";
    let mut g = Game::from_fen(v, start).unwrap();
    g.play("e2-e3").unwrap();
    let hp = |g: &Game, s: &str| g.piece_state(sq(g, s)).and_then(|st| st.hp);
    assert_eq!((hp(&g, "d4"), hp(&g, "b4"), hp(&g, "b1")), (Some(4), Some(1), None));
    assert!(g.fen().ends_with(" hp=b4:1"), "{}", g.fen());
    // The placed knight is an aura source like any other: with b4 it is no neighbour, so
    // each has its own stack.
    assert_eq!(g.piece_state(sq(&g, "d4")).unwrap().stacks, 1);
    reads_back(&g);
}

#[test]
fn awards_that_would_overflow_a_score_are_script_errors_at_their_line() {
    let v = load(
        "standard",
        "function after_action(game, action)\n  game:award('white', math.maxinteger)\n  game:award('white', math.maxinteger)\nend\n",
    );
    let mut g = Game::new(v);
    match g.play("e2-e4") {
        Err(RuleError::Script(e)) => {
            assert!(e.message.contains("rules.lua:3: awarding 9223372036854775807 to white"), "{}", e.message);
            assert!(e.message.contains("past the range of whole numbers"), "{}", e.message);
            assert_eq!(e.hook, "after_action");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((g.ply(), g.scores()), (0, [0, 0]), "rolled back");
    // The lowest score is a bound too.
    let v = load(
        "standard",
        "function after_action(game)\n  game:award('black', math.mininteger)\n  game:award('black', -1)\nend\n",
    );
    assert!(matches!(Game::new(v).play("e2-e4"), Err(RuleError::Script(e)) if e.message.contains("rules.lua:3:")));
}

#[test]
fn a_score_hook_that_would_overflow_the_score_is_refused() {
    let v = load("standard", "function score(game, action)\n  return math.maxinteger\nend\n");
    let mut g = Game::new(v);
    g.play("e2-e4").unwrap();
    g.play("e7-e5").unwrap();
    assert_eq!(g.scores(), [i64::MAX, i64::MAX]);
    match g.play("d2-d4") {
        Err(RuleError::Script(e)) => {
            assert_eq!(e.hook, "score");
            assert!(
                e.message.contains("rules.lua:1: `score` returned 9223372036854775807, but awarding"),
                "{}",
                e.message
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((g.ply(), g.scores()), (2, [i64::MAX, i64::MAX]));
}

#[test]
fn game_time_beyond_the_millisecond_counter_is_the_largest_time() {
    // 2^64 ms: as a 64-bit count of milliseconds it would wrap to 0 (no time passed).
    let mut g = Game::new(Variant::load("chessception").unwrap());
    g.set_elapsed(Duration::new(18_446_744_073_709_551, 616_000_000));
    assert_eq!(g.outcome().map(|o| o.reason), Some(Reason::TimeLimit));
}

#[test]
fn damage_multiplied_past_the_largest_number_stays_the_largest() {
    // A lone knight has one stack (its own): damage × base¹ = (2³²−1)², past 2⁶³.
    let v =
        Variant::load_with("chessception", &set(&["auras.knight.base=4294967295", "pieces.knight.damage=4294967295"]))
            .unwrap();
    let mut g = Game::from_fen(v, "4k3/8/8/3p4/8/4N3/8/4K3 w - - 0 1").unwrap();
    let lines: Vec<String> = g.play("e3-d5").unwrap().iter().map(|e| e.describe(g.variant())).collect();
    assert!(
        lines.iter().any(|l| l.starts_with("black pawn on d5 takes 9223372036854775807 (primary, ×4294967295)")),
        "{lines:?}"
    );
    assert!(lines.contains(&"black pawn on d5 killed".to_string()), "{lines:?}");
    assert_eq!(g.piece_at(sq(&g, "d5")).map(|p| g.variant().kind(p.kind).name.clone()), Some("knight".into()));
}

#[test]
fn the_largest_piece_values_do_not_overflow_the_evaluation() {
    let v = Variant::load_with("standard", &set(&["pieces.queen.value=2147483647", "pieces.pawn.value=-2147483648"]))
        .unwrap();
    let g = Game::new(v);
    let r = g.best_action("novice", 1, Clock::Off).unwrap();
    assert!(g.legal_actions().contains(&r.action));
}

#[test]
fn a_board_full_of_one_kind_is_counted_without_overflow() {
    // 16×16 squares of white men: 256 of one kind, one more than a byte counts.
    let toml = format!(
        "[board]\nfiles = 16\nranks = 16\n[setup]\nfen = \"{}\"\n[draws]\ninsufficient_material = {{ material = [\"MvM\"] }}\n\
         [pieces.man]\nletter = \"M\"\nmoves = [{{ leap = \"orthogonal\" }}]\n",
        vec!["MMMMMMMMMMMMMMMM"; 16].join("/")
    );
    let v = Variant::from_toml(&toml, "full.toml").unwrap_or_else(|e| panic!("{e}"));
    let g = Game::new(v);
    // Every man is surrounded: no legal move, black has none either; white to move with
    // none is a stalemate, a draw.
    assert_eq!(g.outcome().map(|o| o.reason), Some(Reason::Stalemate));
}

#[test]
fn a_rule_that_leaves_the_mover_s_king_attacked_is_refused() {
    // Under the check rule no action ends with the mover's king attacked, commands or not.
    let v = load(
        "standard",
        "function after_action(game, action)\n  if action == 'e2-e4' then game:place('e2', 'queen', 'black') end\nend\n",
    );
    let mut g = Game::new(v);
    let e = g.play("e2-e4").unwrap_err().to_string();
    assert_eq!(e, "e2-e4 is illegal: with the rules' commands it leaves white's royal piece attacked");
    assert_eq!(g.ply(), 0);
    g.play("d2-d4").unwrap();
    reads_back(&g);
}

#[test]
fn perft_deeper_than_any_count_is_refused_not_a_crash() {
    let g = Game::from_fen(Variant::load("standard").unwrap(), "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    assert_eq!(g.try_perft(64).unwrap(), 0, "stalemate: nothing to count");
    assert!(matches!(g.try_perft(65), Err(RuleError::TooDeep(65))));
    assert_eq!(g.try_divide(4_000_000_000).unwrap_err().to_string(), "a perft depth of 4000000000 is more than 64");
    assert_eq!(g.perft(u32::MAX), 0);
}
