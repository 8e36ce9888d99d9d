//! The computer player: mates, material, stalemate, repetition, determinism, hooks, and
//! `[ai]` parsing. Every search here runs without a clock (depth or node limits only),
//! so results are reproducible.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use varia::search::{AiConfig, AiError, Backend, Clock, HashTable, Level, SearchResult, Think};
use varia::{Game, GameResult, Reason, Variant};

static NEXT: AtomicUsize = AtomicUsize::new(0);

fn standard() -> Arc<Variant> {
    Variant::load("standard").unwrap()
}

fn game(fen: &str) -> Game {
    Game::from_fen(standard(), fen).unwrap()
}

fn best(g: &Game, level: &str, seed: u64) -> SearchResult {
    g.best_action(level, seed, Clock::Off).unwrap_or_else(|e| panic!("{e}"))
}

fn text(g: &Game, r: &SearchResult) -> String {
    g.format(&r.action)
}

/// A variant folder extending standard chess with `toml` added and `rules` as rules.lua.
fn folder(toml: &str, rules: Option<&str>) -> PathBuf {
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("varia-search-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), format!("extends = \"standard\"\n{toml}\n")).unwrap();
    if let Some(r) = rules {
        std::fs::write(dir.join("rules.lua"), r).unwrap();
    }
    dir
}

fn load(dir: &std::path::Path) -> Arc<Variant> {
    Variant::load(dir.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"))
}

/// The `[ai]` problems of a variant, as printed.
/// (A variant whose `[ai]` has problems does not load: `varia check` reports them.)
fn problems(toml: &str) -> Vec<String> {
    let dir = folder(toml, None);
    match Variant::load(dir.to_str().unwrap()) {
        Ok(v) => panic!("expected problems, got {:?}", AiConfig::from_variant(&v)),
        Err(e) => e.problems().iter().map(|p| p.to_string().replace(&format!("{}/", dir.display()), "")).collect(),
    }
}

// Back-rank mate: Ra1-a8#.
const MATE_IN_1: &str = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
// Morphy's problem: 1.Ra6! bxa6 2.b7#, or 1...B moves 2.Rxa7#.
const MATE_IN_2: &str = "kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1";
// After 1.e4 e5 2.Nf3 Qh4?: the queen hangs to the knight.
const HANGING_QUEEN: &str = "rnb1kbnr/pppp1ppp/8/4p3/4P2q/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
// Qxc7 wins the knight and stalemates the king on a8; every other queen move keeps a win.
const STALEMATE_TRAP: &str = "k7/2n5/8/K7/8/8/8/2Q5 w - - 0 1";

#[test]
fn mate_in_one_is_found_at_every_level_that_looks() {
    let g = game(MATE_IN_1);
    for level in ["veteran", "master"] {
        let r = best(&g, level, 0);
        assert_eq!((text(&g, &r).as_str(), r.mate), ("a1-a8", Some(1)), "{level}");
        assert_eq!(r.backend, Backend::Fast);
    }
    // The greedy novice sees a mate one ply ahead too.
    let r = best(&g, "novice", 0);
    assert_eq!((text(&g, &r).as_str(), r.mate), ("a1-a8", Some(1)));
    let mut after = g.clone();
    after.apply(r.action).unwrap();
    assert_eq!(after.outcome().map(|o| o.describe()), Some("white wins by checkmate".to_string()));
}

#[test]
fn mate_in_one_for_black() {
    let g = game("r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1");
    let r = best(&g, "veteran", 0);
    assert_eq!((text(&g, &r).as_str(), r.mate, r.score), ("a8-a1", Some(1), 29_999));
}

#[test]
fn mate_in_two_is_found_and_played_out() {
    let g = game(MATE_IN_2);
    for level in ["veteran", "master"] {
        let r = best(&g, level, 0);
        assert_eq!((text(&g, &r).as_str(), r.mate), ("a1-a6", Some(2)), "{level}");
        assert_eq!(r.score, 29_997, "{level}: mate in 3 plies");
    }
    // Whatever black answers, the search then mates in one.
    let mut g1 = g.clone();
    g1.play("a1-a6").unwrap();
    for reply in g1.legal_actions() {
        let mut g2 = g1.clone();
        g2.apply(reply).unwrap();
        let r = best(&g2, "veteran", 0);
        assert_eq!(r.mate, Some(1), "after {}", g1.format(&reply));
        g2.apply(r.action).unwrap();
        assert_eq!(g2.outcome().map(|o| o.describe()), Some("white wins by checkmate".to_string()));
    }
}

#[test]
fn the_shorter_mate_is_preferred() {
    // Both a1-a8 (mate in 1) and slower wins exist; mate scores fall with distance.
    let g = game("6k1/5ppp/8/8/8/8/Q7/R5K1 w - - 0 1");
    let r = best(&g, "master", 0);
    assert_eq!(r.mate, Some(1));
    assert!(["a1-a8", "a2-a8"].contains(&text(&g, &r).as_str()), "{}", text(&g, &r));
}

#[test]
fn a_hanging_queen_is_taken_from_depth_two() {
    let g = game(HANGING_QUEEN);
    let config = AiConfig::from_variant(g.variant()).unwrap();
    for depth in [2, 3, 4] {
        let level = Level { depth, ..Level::default() };
        let r = g.search(&config, &level, 0, Clock::Off).unwrap();
        assert_eq!(text(&g, &r), "f3-h4", "depth {depth}");
        assert_eq!(r.depth, depth);
    }
    for level in ["veteran", "master"] {
        assert_eq!(text(&g, &best(&g, level, 0)), "f3-h4", "{level}");
    }
}

#[test]
fn a_winning_side_does_not_stalemate() {
    let mut trap = game(STALEMATE_TRAP);
    trap.play("c1-c7").unwrap();
    assert_eq!(trap.outcome().map(|o| o.describe()), Some("draw by stalemate".to_string()));

    let g = game(STALEMATE_TRAP);
    for level in ["novice", "veteran", "master"] {
        let r = best(&g, level, 0);
        assert_ne!(text(&g, &r), "c1-c7", "{level}");
        assert!(r.score > 500, "{level}: {}", r.score);
    }
}

// White is a queen up, but 98 plies have passed without a capture or a pawn move: after
// a quiet piece move, black's reply makes 100 (a draw by the 50-move rule); a pawn move
// starts the count again and keeps the win.
const NO_PROGRESS: &str = "k7/8/8/8/8/8/P7/KQ6 w - - 98 80";

#[test]
fn a_draw_by_no_progress_is_seen_inside_the_tree() {
    let mut quiet = game(NO_PROGRESS);
    quiet.play("b1-b2").unwrap();
    quiet.play("a8-a7").unwrap();
    let o = quiet.outcome().unwrap();
    assert_eq!((o.result, o.reason), (GameResult::Draw, Reason::NoProgress));

    // The draw is two plies down, at a node the search asks for the verdicts that need no
    // move list (before reverse futility and the null move, which need none either).
    let g = game(NO_PROGRESS);
    for level in ["veteran", "master"] {
        let r = best(&g, level, 0);
        assert!(["a2-a3", "a2-a4"].contains(&text(&g, &r).as_str()), "{level}: {}", text(&g, &r));
        assert!(r.score > 500, "{level}: {}", r.score);
    }
}

#[test]
fn repeating_a_position_of_the_game_is_a_draw() {
    // White has no queen: any new position is bad, a repetition is worth 0.
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1";
    let fresh = game(fen);
    let r = best(&fresh, "veteran", 0);
    assert!(r.score < -500, "{}", r.score);

    let mut g = game(fen);
    for m in ["g1-f3", "g8-f6", "f3-g1", "f6-g8"] {
        g.play(m).unwrap();
    }
    // g1-f3 brings back the position after white's first move.
    for level in ["veteran", "master"] {
        let r = best(&g, level, 0);
        assert_eq!((text(&g, &r).as_str(), r.score), ("g1-f3", 0), "{level}");
    }
}

#[test]
fn the_same_seed_gives_the_same_action() {
    let g = Game::new(standard());
    for level in ["novice", "veteran", "master"] {
        for seed in [0, 1, 42] {
            let a = best(&g, level, seed);
            let b = best(&g, level, seed);
            assert_eq!(a, b, "{level}, seed {seed}");
        }
    }
    // Without noise the seed does not matter.
    assert_eq!(best(&g, "master", 1).action, best(&g, "master", 2).action);
}

#[test]
fn the_novice_varies_with_the_seed() {
    let g = Game::new(standard());
    let mut seen: Vec<String> = (0..12).map(|s| text(&g, &best(&g, "novice", s))).collect();
    seen.sort();
    seen.dedup();
    assert!(seen.len() >= 3, "{seen:?}");
    for m in &seen {
        assert!(g.legal_actions().iter().any(|a| g.format(a) == *m));
    }
}

#[test]
fn the_level_can_change_between_moves() {
    let mut g = Game::new(standard());
    let r = best(&g, "novice", 3);
    assert_eq!(r.depth, 2);
    g.apply(r.action).unwrap();
    let r = best(&g, "master", 3);
    assert_eq!(r.depth, 5);
    g.apply(r.action).unwrap();
    let r = best(&g, "veteran", 3);
    assert_eq!(r.depth, 3);
}

#[test]
fn a_node_budget_stops_deepening_but_a_move_is_always_found() {
    let g = Game::new(standard());
    let config = AiConfig::from_variant(g.variant()).unwrap();
    let level = Level { depth: 30, time_ms: 0, noise: 0, quiescence: true, nodes: 2_000, ..Level::default() };
    let r = g.search(&config, &level, 0, Clock::Off).unwrap();
    assert!(r.stopped);
    assert!(r.depth < 30 && r.depth >= 1, "{}", r.depth);
    assert!(g.legal_actions().contains(&r.action));
    // The same budget stops at the same place.
    assert_eq!(g.search(&config, &level, 0, Clock::Off).unwrap(), r);
    // A deadline already past still gives the depth-1 move.
    let past = Clock::Deadline(std::time::Instant::now());
    let r = g.search(&config, &config.levels[2].1, 0, past).unwrap();
    assert_eq!((r.depth, r.stopped), (1, true));
}

#[test]
fn a_finished_game_has_no_best_action() {
    let mut g = game(MATE_IN_1);
    g.play("a1-a8").unwrap();
    assert_eq!(g.best_action("master", 0, Clock::Off), Err(AiError::GameOver("white wins by checkmate".into())));
    let e = Game::new(standard()).best_action("mastr", 0, Clock::Off).unwrap_err();
    assert_eq!(e.to_string(), "unknown level `mastr` (did you mean `master`?); the levels are novice, veteran, master");
}

#[test]
fn the_search_obeys_filter_actions() {
    // The hook forbids taking the queen: the search must play something else it allows.
    let rules = r#"
function filter_actions(game, actions)
  local out = {}
  for _, a in ipairs(actions) do
    if a ~= "f3-h4" then out[#out + 1] = a end
  end
  return out
end
"#;
    let v = load(&folder("", Some(rules)));
    let g = Game::from_fen(v, HANGING_QUEEN).unwrap();
    assert!(!g.legal_actions().iter().any(|a| g.format(a) == "f3-h4"));
    for level in ["novice", "veteran"] {
        let r = best(&g, level, 0);
        assert_eq!(r.backend, Backend::Slow, "{level}");
        assert_ne!(text(&g, &r), "f3-h4", "{level}");
        assert!(g.legal_actions().contains(&r.action), "{level}");
        let mut after = g.clone();
        after.apply(r.action).unwrap();
    }
}

#[test]
fn the_search_plays_for_outcomes_that_hooks_declare() {
    // A variant where white wins by putting a pawn on e4: from the start, e2-e4 wins at once.
    let rules = r#"
function check_outcome(game)
  local p = game:piece("e4")
  if p and p.kind == "pawn" and p.side == "white" then return "white", "the centre" end
end
"#;
    let v = load(&folder("", Some(rules)));
    let g = Game::new(v);
    for level in ["novice", "veteran"] {
        let r = best(&g, level, 0);
        assert_eq!((text(&g, &r).as_str(), r.mate, r.backend), ("e2-e4", Some(1), Backend::Slow), "{level}");
    }
}

#[test]
fn both_back_ends_agree_on_plain_chess() {
    // A hook that changes nothing sends the search through the slow back end.
    let v = load(&folder("", Some("function on_turn_end(game) end")));
    for fen in [MATE_IN_2, HANGING_QUEEN, STALEMATE_TRAP] {
        let slow = Game::from_fen(v.clone(), fen).unwrap();
        let fast = game(fen);
        let (s, f) = (best(&slow, "veteran", 0), best(&fast, "veteran", 0));
        assert_eq!((s.backend, f.backend), (Backend::Slow, Backend::Fast));
        assert_eq!((s.action, s.score, s.mate), (f.action, f.score, f.mate), "{fen}");
    }
}

#[test]
fn defaults_apply_without_an_ai_table() {
    // Courier has no `[ai]` and extends nothing (standard has its own now).
    let c = AiConfig::from_variant(&Variant::load("courier").unwrap()).unwrap();
    assert_eq!(c, AiConfig::default());
    let names: Vec<&str> = c.levels.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["novice", "veteran", "master"]);
    let depths: Vec<u32> = c.levels.iter().map(|(_, l)| l.depth).collect();
    assert_eq!(depths, [2, 3, 5]);
    assert!(c.level("master").unwrap().quiescence);
    assert!(c.level("novice").unwrap().noise > 0);
}

#[test]
fn ai_keys_override_the_defaults() {
    let dir = folder(
        "[ai]\ntempo = 0\nmobility = 5\n[ai.levels.master]\ntime_ms = 500\n[ai.levels.blitz]\ndepth = 2\nnoise = 10\n",
        None,
    );
    let c = AiConfig::from_variant(&load(&dir)).unwrap();
    assert_eq!((c.weights.tempo, c.weights.mobility, c.weights.material), (0, 5, 100));
    let master = c.level("master").unwrap();
    assert_eq!((master.depth, master.time_ms, master.quiescence), (5, 500, true));
    assert_eq!(
        c.level("blitz").unwrap(),
        &Level {
            depth: 2,
            time_ms: 0,
            noise: 10,
            quiescence: false,
            nodes: 0,
            reductions: false,
            null_move: false,
            deepen: false,
            futility: 0,
            reverse_futility_depth: 3,
            reverse_futility: 0,
            late_move_pruning: false,
            late_move_pruning_depth: 4,
            move_futility_depth: 0,
            see: false,
            iir: false,
            history: false,
            continuation: false,
            improving: false,
            singular: false,
        }
    );
    let names: Vec<&str> = c.levels.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["novice", "veteran", "master", "blitz"]);
    // The new level plays.
    let g = Game::new(load(&dir));
    assert_eq!(best(&g, "blitz", 0).depth, 2);
}

/// A diagram-order table (the top rank first) of 64 zeros with `x` at `square` ("g1").
fn table_with(square: &str, x: i32) -> String {
    let b = square.as_bytes();
    let (file, rank) = ((b[0] - b'a') as usize, (b[1] - b'1') as usize);
    let mut t = vec![0; 64];
    t[(7 - rank) * 8 + file] = x;
    format!("[{}]", t.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "))
}

/// `[ai.pieces.knight]` with all four terms given, so that standard's own (learned) knight
/// terms drop out of the comparison.
fn knight_terms(square_mg: &str, square_eg: &str, mobility: i32) -> String {
    format!(
        "[ai.pieces.knight]\nsquare_mg = {square_mg}\nsquare_eg = {square_eg}\nmobility_mg = {mobility}\nmobility_eg = {mobility}\n"
    )
}

fn evaluation(dir: &std::path::Path, fen: &str) -> i32 {
    Game::from_fen(load(dir), fen).unwrap().evaluate().unwrap()
}

#[test]
fn piece_square_tables_and_mobility_add_their_centipawns() {
    // A white knight on g1 against a bare king: the game phase is neither 0 nor 256, so
    // a term in only one of the tables would be blended; the same number in both adds
    // exactly itself.
    let fen = "4k3/8/8/8/8/8/8/4K1N1 w - - 0 1";
    let (zeros, t75) = (table_with("g1", 0), table_with("g1", 75));
    let plain = folder(&knight_terms(&zeros, &zeros, 0), None);
    let both = folder(&knight_terms(&t75, &t75, 0), None);
    assert_eq!(evaluation(&both, fen), evaluation(&plain, fen) + 75);
    // The table is White's view: g1's entry is not read for a knight on f1.
    assert_eq!(
        evaluation(&both, "4k3/8/8/8/8/8/8/4KN2 w - - 0 1"),
        evaluation(&plain, "4k3/8/8/8/8/8/8/4KN2 w - - 0 1")
    );
    // Black's knight on g8 reads g1's entry (mirrored across the ranks): −75 for White,
    // so +75 for Black to move.
    let black = "4k1n1/8/8/8/8/8/8/4K3 b - - 0 1";
    assert_eq!(evaluation(&both, black), evaluation(&plain, black) + 75);
    // In the middlegame table only, at phase p the knight gains 75·p/256 (rounded down
    // with the rest): the phase of one knight is 320 of the start's 6400, 256·320/6400 =
    // 12.8 → 12, so 75·12/256 = 3.5 → 3 or 4.
    let mg = folder(&knight_terms(&t75, &zeros, 0), None);
    let d = evaluation(&mg, fen) - evaluation(&plain, fen);
    assert!((3..=4).contains(&d), "{d}");
    // Mobility: the knight on g1 reaches e2, f3 and h3; 7 per square in both tables = 21.
    let mob = folder(&knight_terms(&zeros, &zeros, 7), None);
    assert_eq!(evaluation(&mob, fen), evaluation(&plain, fen) + 21);
    // Parsed by kind index, in White's square order (a1 first).
    let c = AiConfig::from_variant(&load(&both)).unwrap();
    let knight = load(&both).kinds.iter().position(|k| k.name == "knight").unwrap();
    assert_eq!(c.pieces[knight].square_mg[6], 75);
    assert_eq!(c.pieces[knight].square_eg.iter().sum::<i32>(), 75);
}

#[test]
fn piece_table_problems_are_located() {
    assert_eq!(
        problems(
            "[ai.pieces.knigth]\nmobility_mg = 2\n\n[ai.pieces.rook]\nsquare_mg = [1, 2, 3]\nmobilty_eg = 1\nsquare_eg = 4\n"
        ),
        [
            "variant.toml:2:12: no kind `knigth` for `ai.pieces.knigth` (did you mean `knight`?); the kinds are king, queen, rook, bishop, knight, pawn",
            "variant.toml:6:13: `ai.pieces.rook.square_mg` has 3 numbers; the board has 64 squares (8 files by 8 ranks), one number each, the top rank first",
            "variant.toml:7:1: unknown key `ai.pieces.rook.mobilty_eg` (did you mean `mobility_eg`?); expected one of mobility_mg, mobility_eg, square_mg, square_eg, danger_attack, danger_check",
            "variant.toml:8:13: `ai.pieces.rook.square_eg` must be a list of 64 numbers (one per square), not the number 4",
        ]
    );
    let mut t = vec!["0".to_string(); 64];
    t[10] = "\"x\"".into();
    assert_eq!(
        problems(&format!("[ai.pieces.queen]\nsquare_eg = [{}]\n", t.join(","))),
        [
            "variant.toml:3:13: `ai.pieces.queen.square_eg`: entry 11 must be a whole number from -10000 to 10000, not the text \"x\""
        ]
    );
}

#[test]
fn ai_problems_are_located_with_suggestions() {
    assert_eq!(
        problems("[ai]\nmobilty = 3\n"),
        [
            "variant.toml:3:1: unknown key `ai.mobilty` (did you mean `mobility`?); expected one of material, mobility, centre, advance, king_shelter, king_centre, tempo, hp, royal_hp, stacks, guarded, passed, pair, open_file, doubled, isolated, king_attack, hand, threat, pawn_threat, king_danger, hanging, pawn_shelter, pawn_storm, connected, passed_king, passed_free, outpost, space, levels, pieces"
        ]
    );
    assert_eq!(
        problems("[ai.levels.master]\ndepth = \"five\"\nquiesence = true\n"),
        [
            "variant.toml:3:9: `ai.levels.master.depth` must be a whole number, not the text \"five\"",
            "variant.toml:4:1: unknown key `ai.levels.master.quiesence` (did you mean `quiescence`?); expected one of depth, time_ms, noise, quiescence, nodes, reductions, null_move, deepen, futility, late_move_pruning, see, iir, history, continuation, improving, singular, reverse_futility_depth, reverse_futility, late_move_pruning_depth, move_futility_depth",
        ]
    );
    assert_eq!(
        problems("[ai.levels.blitz]\nnoise = 5\n\n[ai.levels.novice]\ndepth = 0\nquiescence = 1\n"),
        [
            "variant.toml:2:12: level `blitz` needs a `depth` (plies, 1 to 64)",
            "variant.toml:6:9: `ai.levels.novice.depth` must be from 1 to 64, not 0",
            "variant.toml:7:14: `ai.levels.novice.quiescence` must be true or false, not the number 1",
        ]
    );
    assert_eq!(
        problems("[ai]\nlevels = 3\n"),
        ["variant.toml:3:10: `ai.levels` must be a table of levels ([ai.levels.<name>]), not the number 3"]
    );
    // An override is checked the same way.
    let e = Variant::load_with("standard", &["ai.tempo=high".parse().unwrap()]).unwrap_err();
    assert!(e.to_string().contains("`ai.tempo` must be a whole number, not the text \"high\""), "{e}");
}

#[test]
fn decachess_archers_shoot_on_the_wide_board() {
    // 10×10 (the 128-bit back end): the archer on e4 shoots the queen two squares away.
    let v = Variant::load("decachess").unwrap();
    let g = Game::from_fen(v.clone(), "5k4/10/10/10/4q5/10/4A5/10/10/5K4 w - - 0 1").unwrap();
    for level in ["veteran", "master"] {
        let r = best(&g, level, 0);
        assert_eq!((text(&g, &r).as_str(), r.action.kind), ("e4-e6", varia::ActionKind::Shot), "{level}");
        assert_eq!(r.backend, Backend::Fast);
    }
    // From the start, every level answers with one of the legal actions.
    let start = Game::new(v);
    for level in ["novice", "veteran", "master"] {
        let r = best(&start, level, 9);
        assert!(start.legal_actions().contains(&r.action), "{level}");
    }
}

#[test]
fn without_the_check_rule_taking_the_royal_piece_wins() {
    // `royal_lost`: the king can be taken, and taking it ends the game. The attacked king
    // is not "in check" (no extension, no evasion search), the capture is a mate in 1.
    let toml = "[rules]\ncheck = false\nroyal_lost = \"loss\"\n";
    let fen = "R3k3/8/8/8/8/8/8/4K3 w - - 0 1";
    for (rules, backend) in [(None, Backend::Fast), (Some("function on_turn_end(game) end"), Backend::Slow)] {
        let g = Game::from_fen(load(&folder(toml, rules)), fen).unwrap();
        for level in ["novice", "veteran", "master"] {
            let r = best(&g, level, 0);
            assert_eq!((text(&g, &r).as_str(), r.mate, r.backend), ("a8-e8", Some(1), backend), "{level}");
        }
    }
}

#[test]
fn hit_point_attacks_do_not_flood_quiescence() {
    // Chessception: attacks often only damage, so quiescence follows only actions that
    // remove a piece; its king attacked without the check rule is no check. Master's
    // full depth from the start stays small (it once ran for minutes).
    let v = Variant::load("chessception").unwrap();
    let g = Game::new(v.clone());
    let config = AiConfig::from_variant(&v).unwrap();
    let master = Level { nodes: 2_000_000, ..*config.level("master").unwrap() };
    let r = g.search(&config, &master, 0, Clock::Off).unwrap();
    assert_eq!((r.depth, r.stopped, r.backend), (5, false, Backend::Slow));
    assert!(g.legal_actions().contains(&r.action));
}

#[test]
fn the_evaluation_sees_hit_points_and_auras() {
    let v = Variant::load("chessception").unwrap();
    let eval = |fen: &str| Game::from_fen(v.clone(), fen).unwrap().evaluate().unwrap();
    let base = "q6k/8/8/8/8/8/8/K7 w - - 0 1";
    // A black queen at 2 of 4 HP is worth less to black: white is better off. With the
    // default weights (hp = 60: 60% of the value scales with HP) that is 900·60/100·2/4 = 270.
    assert_eq!(eval(&format!("{base} hp=a8:2")) - eval(base), 270);
    // A wounded white king is a liability: royal_hp = 150 per hit point lost.
    assert_eq!(eval(base) - eval(&format!("{base} hp=a1:1")), 450);
    // A weight changed in TOML changes the evaluation: hp = 100 makes the damaged queen
    // cost her whole value share: 900·100/100·2/4 = 450.
    let w = Variant::load_with("chessception", &["ai.hp=100".parse().unwrap()]).unwrap();
    let eval_w = |fen: &str| Game::from_fen(w.clone(), fen).unwrap().evaluate().unwrap();
    assert_eq!(eval_w(&format!("{base} hp=a8:2")) - eval_w(base), 450);
    // A knight's stack on a friend counts (stacks = 12 per stack beyond a knight's own).
    let with_knight = "q6k/8/8/8/8/8/1N6/K7 w - - 0 1";
    let lone = Game::from_fen(v.clone(), with_knight).unwrap().piece_state(v.geometry.parse("a1").unwrap()).unwrap();
    assert_eq!(lone.stacks, 1, "the king next to the knight holds one stack");
}

#[test]
fn late_move_reductions_reach_the_same_depth_on_fewer_nodes_and_keep_tactics() {
    // From the start (nothing forced), depth 5 with quiescence: reduced late quiet moves
    // make the tree smaller; both searches finish the depth.
    let g = Game::new(standard());
    let config = AiConfig::default();
    let plain = Level { depth: 5, time_ms: 0, noise: 0, quiescence: true, nodes: 0, ..Level::default() };
    let reduced = Level { reductions: true, ..plain };
    let a = g.search(&config, &plain, 0, Clock::Off).unwrap();
    let b = g.search(&config, &reduced, 0, Clock::Off).unwrap();
    assert_eq!((a.depth, b.depth), (5, 5));
    assert!(b.nodes < a.nodes, "reduced {} vs full {}", b.nodes, a.nodes);
    // A mate in two whose first move is quiet (the kind reductions touch) is still found.
    let g = game(MATE_IN_2);
    let r = g.search(&config, &reduced, 0, Clock::Off).unwrap();
    assert_eq!((text(&g, &r).as_str(), r.mate), ("a1-a6", Some(2)));
    // And the master level has them on, the others off.
    let levels: Vec<bool> = config.levels.iter().map(|(_, l)| l.reductions).collect();
    assert_eq!(levels, [false, false, true]);
    let v = Variant::load(folder("[ai.levels.veteran]\nreductions = true\n", None).to_str().unwrap()).unwrap();
    let c = AiConfig::from_variant(&v).unwrap();
    assert!(c.level("veteran").unwrap().reductions);
}

/// A level with every switch given: depth `depth`, quiescence, reductions, no clock.
fn plain(depth: u32, null_move: bool) -> Level {
    Level { depth, quiescence: true, reductions: true, null_move, ..Level::default() }
}

#[test]
fn null_move_pruning_cuts_the_tree_and_keeps_tactics() {
    let config = AiConfig::default();
    // From the start and from an Italian game: the same depth on fewer nodes.
    let italian = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    for g in [Game::new(standard()), game(italian)] {
        let a = g.search(&config, &plain(6, false), 0, Clock::Off).unwrap();
        let b = g.search(&config, &plain(6, true), 0, Clock::Off).unwrap();
        assert_eq!((a.depth, b.depth, a.stopped, b.stopped), (6, 6, false, false));
        assert!(b.nodes < a.nodes, "with null moves {} vs without {}", b.nodes, a.nodes);
        assert!(g.legal_actions().contains(&b.action));
        // Deterministic: the same search gives the same result.
        assert_eq!(g.search(&config, &plain(6, true), 0, Clock::Off).unwrap(), b);
    }
    // Mates (the first move quiet) and a hanging queen are still found.
    let g = game(MATE_IN_2);
    let r = g.search(&config, &plain(6, true), 0, Clock::Off).unwrap();
    assert_eq!((text(&g, &r).as_str(), r.mate), ("a1-a6", Some(2)));
    let g = game(HANGING_QUEEN);
    assert_eq!(text(&g, &g.search(&config, &plain(6, true), 0, Clock::Off).unwrap()), "f3-h4");
    // With only king and pawns (zugzwang is common) the side to move never passes: the
    // tree is the same with the switch on or off.
    let g = game("8/8/4k3/8/4P3/4K3/8/8 w - - 0 1");
    let (a, b) = (
        g.search(&config, &plain(8, false), 0, Clock::Off).unwrap(),
        g.search(&config, &plain(8, true), 0, Clock::Off).unwrap(),
    );
    assert_eq!((a.nodes, a.action), (b.nodes, b.action));
    // The slow back end never passes (hooks may count turns): the same tree either way.
    let v = load(&folder("", Some("function on_turn_end(game) end")));
    let g = Game::from_fen(v, italian).unwrap();
    let (a, b) = (
        g.search(&config, &plain(4, false), 0, Clock::Off).unwrap(),
        g.search(&config, &plain(4, true), 0, Clock::Off).unwrap(),
    );
    assert_eq!((a.backend, a.nodes, a.action), (Backend::Slow, b.nodes, b.action));
    // Master has it, the others not; TOML switches it.
    let on: Vec<bool> = config.levels.iter().map(|(_, l)| l.null_move).collect();
    assert_eq!(on, [false, false, true]);
    let v = Variant::load(folder("[ai.levels.master]\nnull_move = false\n", None).to_str().unwrap()).unwrap();
    assert!(!AiConfig::from_variant(&v).unwrap().level("master").unwrap().null_move);
}

#[test]
fn a_level_given_time_deepens_past_its_depth() {
    let g = Game::new(standard());
    let config = AiConfig::default();
    let master = *config.level("master").unwrap();
    // Without a time given, master stops at its depth 5.
    let capped = g.search(&config, &Level { nodes: 400_000, ..master }, 0, Clock::Off).unwrap();
    assert_eq!((capped.depth, capped.stopped), (5, false));
    // Given one, it deepens until the budget (here nodes, to be reproducible) is spent.
    let timed = Level { nodes: 400_000, ..master.given_time() };
    let r = g.search(&config, &timed, 0, Clock::Off).unwrap();
    assert!(r.stopped && r.depth > 5, "depth {} stopped {}", r.depth, r.stopped);
    assert_eq!(g.search(&config, &timed, 0, Clock::Off).unwrap(), r);
    // A deadline stops it too, with a legal move (no depth is reached in 50 ms from the
    // start that would end a search of depth 64).
    let soon = Clock::Deadline(std::time::Instant::now() + std::time::Duration::from_millis(50));
    let r = g.search(&config, &master.given_time(), 0, soon).unwrap();
    assert!(r.stopped && r.depth >= 1 && g.legal_actions().contains(&r.action));
    // Novice and veteran keep their depth as a cap; a level's `deepen` comes from TOML.
    for name in ["novice", "veteran"] {
        let l = *config.level(name).unwrap();
        assert_eq!(l.given_time(), l, "{name}");
    }
    let v = Variant::load(folder("[ai.levels.veteran]\ndeepen = true\n", None).to_str().unwrap()).unwrap();
    let c = AiConfig::from_variant(&v).unwrap();
    assert_eq!(c.level("veteran").unwrap().given_time().depth, varia::search::config::MAX_DEPTH);
}

#[test]
fn a_passed_pawn_is_worth_more() {
    // King and pawn endings (phase 0: the endgame weights alone). The white pawn on e5 is
    // passed when black's pawn is on a7, not when it is on d7 (ahead, on the next file).
    // Both black pawns stand on their start rank, where `advance`, the central-file term
    // and a passed bonus are all 0, so the two evaluations differ by the passed bonus of
    // e5 alone: with `passed = 80`, e5 has covered t = 60% of the way (zone distance 3
    // of at most 7: (7 − 1 − 3)·100/(7 − 2)), so 80·60·60/100 = 2880 hundredths: 28.
    // Standard's learned pawn tables are set to 0 here (they read d7 and a7 differently),
    // and so are its other passed-pawn terms (passed_king, passed_free: their own test).
    let zeros = format!("[{}]", vec!["0"; 64].join(", "));
    let dir = folder(
        &format!(
            "[ai]\npassed_king = 0\npassed_free = 0\n\n[ai.pieces.pawn]\nsquare_mg = {zeros}\nsquare_eg = {zeros}\n"
        ),
        None,
    );
    let v = load(&dir);
    let eval = |fen: &str| Game::from_fen(v.clone(), fen).unwrap().evaluate().unwrap();
    let blocked = eval("4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1");
    let passed = eval("4k3/p7/8/4P3/8/8/8/4K3 w - - 0 1");
    assert_eq!(passed - blocked, 28);
    // The weight is `ai.passed`: 0 removes the difference.
    let v0 = Variant::load_with(dir.to_str().unwrap(), &["ai.passed=0".parse().unwrap()]).unwrap();
    let eval0 = |fen: &str| Game::from_fen(v0.clone(), fen).unwrap().evaluate().unwrap();
    assert_eq!(eval0("4k3/p7/8/4P3/8/8/8/4K3 w - - 0 1"), eval0("4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1"));
    // For black, the same: black's pawn on d4 passed (white's on h2) or not (white's on e2).
    let black_blocked = eval("4k3/8/8/8/3p4/8/4P3/4K3 b - - 0 1");
    let black_passed = eval("4k3/8/8/8/3p4/8/7P/4K3 b - - 0 1");
    assert_eq!(black_passed - black_blocked, 28);
}

/// Crazyhouse after 1.e4 d5 2.exd5 Qxd5: both sides hold a pawn, so drops are legal
/// everywhere.
fn crazyhouse_after_exd5_qxd5() -> Game {
    let mut g = Game::new(Variant::load("crazyhouse").unwrap());
    for m in ["e2-e4", "d7-d5", "e4-d5", "d8-d5"] {
        g.play(m).unwrap();
    }
    g
}

#[test]
fn quiescence_follows_captures_not_drops() {
    // A drop names the kind it drops where a promotion names its new kind: quiescence
    // once took every drop for a promotion and followed them all, and a depth-1 search
    // here visited 124,596 nodes (novice self-play in crazyhouse seemed to hang). Depth 1
    // is the 30-odd root actions, each followed by captures only: a few hundred nodes.
    let g = crazyhouse_after_exd5_qxd5();
    let config = AiConfig::from_variant(g.variant()).unwrap();
    for name in ["novice", "veteran", "master"] {
        let level = Level { depth: 1, ..*config.level(name).unwrap() };
        let r = g.search(&config, &level, 0, Clock::Off).unwrap();
        assert_eq!((r.depth, r.stopped), (1, false), "{name}");
        assert!(r.nodes < 1_000, "{name}: depth 1 visited {} nodes", r.nodes);
        assert!(g.legal_actions().contains(&r.action));
    }
    // The novice's own depth (2) stays small too.
    let r = best(&g, "novice", 0);
    assert!(r.nodes < 20_000, "novice visited {} nodes", r.nodes);
}

#[test]
fn a_novice_crazyhouse_game_ends_on_a_bounded_search() {
    // Self-play as `varia selfplay crazyhouse --ai novice` plays it: every move a novice
    // search without a clock. The game ends (or reaches the cap) and no search is large.
    let mut g = Game::new(Variant::load("crazyhouse").unwrap());
    let config = AiConfig::from_variant(g.variant()).unwrap();
    let novice = *config.level("novice").unwrap();
    let (mut plies, mut most) = (0u32, 0u64);
    while g.outcome().is_none() && plies < 200 {
        let r = g.search(&config, &novice, plies as u64, Clock::Off).unwrap();
        most = most.max(r.nodes);
        g.apply(r.action).unwrap();
        plies += 1;
    }
    assert!(plies <= 200);
    assert!(most < 60_000, "the largest novice search visited {most} nodes");
}

#[test]
fn static_exchange_counts_recaptures() {
    let see = |fen: &str, m: &str| {
        let g = game(fen);
        g.static_exchange(g.parse_action(m).unwrap()).unwrap()
    };
    // Rxe5 on an undefended knight wins it: 320.
    assert_eq!(see("4k3/8/8/4n3/8/8/8/4RK2 w - - 0 1", "e1-e5"), Some(320));
    // Defended by a pawn: Rxe5 dxe5 loses the rook for the knight: 320 − 500.
    assert_eq!(see("4k3/8/3p4/4n3/8/8/8/4RK2 w - - 0 1", "e1-e5"), Some(-180));
    // Defended by a rook, attacked by two (the second behind the first): Rxe5 Rxe5 Rxe5
    // wins the knight: 320 − 500 + 500.
    assert_eq!(see("4r1k1/8/8/4n3/8/8/4R3/4RK2 w - - 0 1", "e2-e5"), Some(320));
    // The king takes back only where nothing else attacks: Qxe7 Kxe7 loses the queen for
    // a pawn (100 − 900); with a rook behind the queen the king may not take back.
    assert_eq!(see("4k3/4p3/8/8/8/8/4Q3/5K2 w - - 0 1", "e2-e7"), Some(-800));
    assert_eq!(see("4k3/4p3/8/8/8/8/4Q3/4RK2 w - - 0 1", "e2-e7"), Some(100));
    // A quiet move or a drop is no exchange.
    assert_eq!(see("4k3/8/8/4n3/8/8/8/4RK2 w - - 0 1", "e1-e2"), None);
}

/// The static evaluation of `fen` in standard chess with `weight` set to `value`.
fn eval_with(fen: &str, weight: &str, value: i32) -> i32 {
    let v = Variant::load_with("standard", &[format!("ai.{weight}={value}").parse().unwrap()]).unwrap();
    Game::from_fen(v, fen).unwrap().evaluate().unwrap()
}

/// How much the term `weight` at `value` adds to the evaluation of `fen` (against 0).
fn gain(fen: &str, weight: &str, value: i32) -> i32 {
    eval_with(fen, weight, value) - eval_with(fen, weight, 0)
}

/// How much the term `weight` (at its default) adds to the evaluation of `fen`.
fn term(fen: &str, weight: &str) -> i32 {
    game(fen).evaluate().unwrap() - eval_with(fen, weight, 0)
}

#[test]
fn the_bishop_pair_counts_once_per_side() {
    // Bishops on c1 (dark) and f1 (light): the pair, 30.
    assert_eq!(term("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", "pair"), 30);
    // Both on dark squares (c1, e3): no pair.
    assert_eq!(term("4k3/8/8/8/8/4B3/8/2B1K3 w - - 0 1", "pair"), 0);
    // Both sides have it: it cancels; for black to move, black's own pair counts for it.
    assert_eq!(term("2b1kb2/8/8/8/8/8/8/2B1KB2 w - - 0 1", "pair"), 0);
    assert_eq!(term("2b1kb2/8/8/8/8/8/8/4K3 b - - 0 1", "pair"), 30);
    // The weight scales it.
    let fen = "4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1";
    assert_eq!(gain(fen, "pair", 50), 50);
}

#[test]
fn a_rook_on_an_open_file_gains() {
    // Rook c1, no pawn on the c-file: open, 20. (The pawns are on a2 and h7.)
    assert_eq!(term("4k3/7p/8/8/8/8/P7/2R1K3 w - - 0 1", "open_file"), 20);
    // Rook a1 behind its own a2 pawn: closed, 0.
    assert_eq!(term("4k3/7p/8/8/8/8/P7/R3K3 w - - 0 1", "open_file"), 0);
    // Rook h1 with only black's h7 pawn on the file: half-open, 10.
    assert_eq!(term("4k3/7p/8/8/8/8/P7/4K2R w - - 0 1", "open_file"), 10);
    // A queen slides along files too: on d1, open, 20 (and black's rook on e8 as well,
    // which cancels it: both on open files).
    assert_eq!(term("4k3/7p/8/8/8/8/P7/3QK3 w - - 0 1", "open_file"), 20);
    assert_eq!(term("4r1k1/7p/8/8/8/8/P7/3QK3 w - - 0 1", "open_file"), 0);
}

#[test]
fn doubled_and_isolated_pawns_cost() {
    // White pawns e2 and e3: one doubled (−12), both isolated (−2 × 10).
    let fen = "4k3/8/8/8/8/4P3/4P3/4K3 w - - 0 1";
    assert_eq!(term(fen, "doubled"), -12);
    assert_eq!(term(fen, "isolated"), -20);
    // Pawns d2 and e2 support each other: neither term.
    let fen = "4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1";
    assert_eq!((term(fen, "doubled"), term(fen, "isolated")), (0, 0));
    // Black's tripled h-pawns, isolated, with white's a2 pawn isolated too, black to
    // move: black pays 2 × 12 doubled; isolated 3 × 10 for black against 10 for white.
    let fen = "4k3/7p/7p/7p/8/8/P7/4K3 b - - 0 1";
    assert_eq!(term(fen, "doubled"), -24);
    assert_eq!(term(fen, "isolated"), -20);
}

#[test]
fn pieces_near_the_enemy_king_count_in_the_middlegame() {
    // After 1.e4 e5 2.Qh5 (white to move again, all the material on the board, so the
    // game phase is the opening's): the queen reaches f7, a square next to black's
    // king; nothing else reaches either king's zone. 4 per square: +4.
    let fen = "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR w KQkq - 2 3";
    assert_eq!(term(fen, "king_attack"), 4);
    // From the start nothing reaches a king's zone.
    assert_eq!(term("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "king_attack"), 0);
    // The weight scales it: 10 per square.
    assert_eq!(gain(fen, "king_attack", 10), 10);
}

#[test]
fn threats_count_pieces_attacked_by_cheaper_ones() {
    // The knight on e3 attacks the rook on d5 (320 against 500): one threat for white;
    // the rook reaches nothing of white's.
    let fen = "4k3/8/8/3r4/8/4N3/8/4K3 w - - 0 1";
    assert_eq!(gain(fen, "threat", 30), 30);
    // For black to move, the same threat counts against it.
    let black = "4k3/8/8/3r4/8/4N3/8/4K3 b - - 0 1";
    assert_eq!(gain(black, "threat", 30), -30);
    // A rook on a knight is no threat (the rook is worth more); pawn_threat is not threat.
    let rook = "4k3/8/8/3n4/8/8/8/3RK3 w - - 0 1";
    assert_eq!(gain(rook, "threat", 30), 0);
    // The pawn on e4 attacks the knight on d5: pawn_threat, not threat.
    let pawn = "4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1";
    assert_eq!(gain(pawn, "pawn_threat", 40), 40);
    assert_eq!(gain(pawn, "threat", 40), 0);
}

#[test]
fn king_danger_grows_with_the_square_of_the_attack() {
    // Black's queen on h4 attacks f2 and h2, in the ring of white's king on g1 (f1, g1,
    // h1, f2, g2, h2): one attacker, and of black's most valuable kind (no discount, so
    // one is enough), weighing its kind's danger_attack (10 in standard) → 1 × 10; two
    // attacks next to the king → 2 × 69; f2 and h2 are attacked and no white piece but
    // the king defends them: two weak squares → 2 × 185. Its checks from f2 and h2 are
    // not safe (the king defends them). Danger 10 + 138 + 370 = 518.
    // At king_danger 178: middlegame 518² × 178 / 524,300 = 91.1 → 91, endgame 518 × 178 /
    // 3,400 = 27.1 → 27. The phase: the queen's 900 of the start's 6,400 → 256 · 900 /
    // 6,400 = 36. Blended: (91 × 36 + 27 × 220) / 256 = 9,216 / 256 = 36 exactly (the
    // weight is chosen so, so the rest of the evaluation cannot round it): −36 for white.
    let fen = "4k3/8/8/8/7q/8/5PPP/6K1 w - - 0 1";
    assert_eq!(gain(fen, "king_danger", 178), -36);
    // Without the f2 pawn the queen also reaches e1 and d4, from which it would check g1
    // along the empty first rank and the diagonal, and which white does not attack: a
    // safe check, its kind's danger_check (780) once. f2 and h2 are still attacked, next
    // to the king and weak: 10 + 138 + 370 + 780 = 1,298. At 113: 1,298² × 113 / 524,300
    // = 363.1 → 363 and 1,298 × 113 / 3,400 = 43.1 → 43; (363 × 36 + 43 × 220) / 256 =
    // 22,528 / 256 = 88.
    let open = "4k3/8/8/8/7q/8/6PP/6K1 w - - 0 1";
    assert_eq!(gain(open, "king_danger", 113), -88);
    // A rook in the queen's place attacks the same squares, but black has no queen: the
    // danger is discounted (−873), and one attacker without the most valuable kind is
    // no attack at all.
    let rook = "4k3/8/8/8/7r/8/5PPP/6K1 w - - 0 1";
    assert_eq!(gain(rook, "king_danger", 178), 0);
    // The same queen with its weight raised by `[ai.pieces.queen] danger_attack = 188`:
    // 508 + 188 = 696; at 178: 696² × 178 / 524,300 = 164.5 → 164, 696 × 178 / 3,400 =
    // 36.4 → 36; (164 × 36 + 36 × 220) / 256 = 13,824 / 256 = 54.
    let v = Variant::load_with(
        "standard",
        &["ai.king_danger=178".parse().unwrap(), "ai.pieces.queen.danger_attack=188".parse().unwrap()],
    )
    .unwrap();
    let heavy = Game::from_fen(v, fen).unwrap().evaluate().unwrap();
    assert_eq!(heavy - eval_with(fen, "king_danger", 0), -54);
}

#[test]
fn a_piece_attacked_and_not_defended_hangs() {
    // White's rook on d1 attacks black's rook on d5, which nothing of black's defends: one
    // hanging piece for white. Black's rook attacks d1, but the king on e1 defends it.
    let fen = "4k3/8/8/3r4/8/8/8/3RK3 w - - 0 1";
    assert_eq!(gain(fen, "hanging", 40), 40);
    // For black to move the same piece counts against it.
    let black = "4k3/8/8/3r4/8/8/8/3RK3 b - - 0 1";
    assert_eq!(gain(black, "hanging", 40), -40);
    // A pawn on c6 defends d5: nothing hangs (the pawn itself is out of the rook's reach).
    let defended = "4k3/8/2p5/3r4/8/8/8/3RK3 w - - 0 1";
    assert_eq!(gain(defended, "hanging", 40), 0);
    // A royal piece never hangs: the rook on e1's attack on the king counts nothing.
    let royal = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    assert_eq!(gain(royal, "hanging", 40), 0);
}

#[test]
fn connected_pawns_gain_more_the_further_they_are() {
    // e4 is defended by d3: rank 4 is n = 2 ranks past the second, (4 + 2²) / 4 = 2
    // connected; d3 is neither defended nor beside a pawn. At 20: 2 × 20 = 40.
    let fen = "4k3/8/8/8/4P3/3P4/8/4K3 w - - 0 1";
    assert_eq!(gain(fen, "connected", 20), 40);
    // d4 and e4 side by side: both count, 2 + 2 → 80.
    let phalanx = "4k3/8/8/8/3PP3/8/8/4K3 w - - 0 1";
    assert_eq!(gain(phalanx, "connected", 20), 80);
    // On the second rank (n = 0) each counts the weight once: 2 × 20.
    let home = "4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1";
    assert_eq!(gain(home, "connected", 20), 40);
    // Black's d5, defended by e6, is as far along (rank 5 is its fourth): it cancels
    // white's e4 defended by d3.
    let both = "4k3/8/4p3/3p4/4P3/3P4/8/4K3 w - - 0 1";
    assert_eq!(gain(both, "connected", 20), 0);
    // Pawns apart (b2, e4, h6): none is connected.
    let apart = "4k3/8/7P/8/4P3/8/1P6/4K3 w - - 0 1";
    assert_eq!(gain(apart, "connected", 20), 0);
}

#[test]
fn the_pawn_shield_and_storm_count_in_the_middlegame() {
    // White's king on g1 with pawns on f2 and g2 (one rank ahead: 2 half units each) and
    // h3 (two ranks ahead: 1): 5 half units. Black's king has no pawns. The queens make
    // the phase 256 × 1,800 / 6,400 = 72; at pawn_shelter 64: 5 × 64 / 2 = 160 →
    // 160 × 72 / 256 = 45.
    let fen = "3qk3/8/8/8/8/7P/5PP1/3Q2K1 w - - 0 1";
    assert_eq!(gain(fen, "pawn_shelter", 64), 45);
    // Without the queens it is an endgame (phase 0): nothing.
    let late = "4k3/8/8/8/8/7P/5PP1/6K1 w - - 0 1";
    assert_eq!(gain(late, "pawn_shelter", 64), 0);
    // A king on the edge (h1) is shielded on f, g and h, as on g1: the same 45.
    let edge = "3qk3/8/8/8/8/7P/5PP1/3Q3K w - - 0 1";
    assert_eq!(gain(edge, "pawn_shelter", 64), 45);
    // Storm: black's h3 is two ranks ahead of the king on g1 on a file without a white
    // pawn (2 half units); f4 three ranks ahead (1), not blocked (white's f2 is two
    // ranks below it, not right in front). 3 × 64 / 2 = 96 → 96 × 72 / 256 = 27. (The
    // kings and their shelters mirror each other, so the rest of the middlegame terms
    // is 0 and rounding toward zero cannot shift it.)
    let storm = "3q2k1/5pp1/8/8/5p2/7p/5PP1/3Q2K1 w - - 0 1";
    assert_eq!(gain(storm, "pawn_storm", 64), -27);
    // f3 right in front of f2 is a blocked storm; g3 on g2 as well: nothing.
    let blocked = "3qk3/8/8/8/8/5pp1/5PP1/3Q2K1 w - - 0 1";
    assert_eq!(gain(blocked, "pawn_storm", 64), 0);
}

#[test]
fn a_knight_on_an_outpost_gains() {
    // e5 is in black's half, d4 defends it, and black has no pawn on d or f to chase it.
    let fen = "4k3/8/8/4N3/3P4/8/8/4K3 w - - 0 1";
    assert_eq!(gain(fen, "outpost", 30), 30);
    // A black pawn on f7 could come to f6 and attack it: no outpost.
    let chased = "4k3/5p2/8/4N3/3P4/8/8/4K3 w - - 0 1";
    assert_eq!(gain(chased, "outpost", 30), 0);
    // e4 defended by d3 is in white's own half: none either.
    let home = "4k3/8/8/8/4N3/3P4/8/4K3 w - - 0 1";
    assert_eq!(gain(home, "outpost", 30), 0);
    // Undefended on e5: none.
    let bare = "4k3/8/8/4N3/8/8/8/4K3 w - - 0 1";
    assert_eq!(gain(bare, "outpost", 30), 0);
    // Black's knight on e4, defended by d5, in white's half: against white.
    let black = "4k3/8/8/3p4/4n3/8/8/4K3 w - - 0 1";
    assert_eq!(gain(black, "outpost", 30), -30);
}

#[test]
fn space_counts_safe_central_squares_behind_the_pawns() {
    // 1.e4 e5 2.d4, white to move. White's zone is c2-f4 (files c-f, ranks 2-4): without
    // its pawns on c2, f2, d4, e4 eight squares, less f4 (the e5 pawn attacks it) seven;
    // of them d2, d3 (behind d4) and e2, e3 (behind e4), which no black piece attacks,
    // count twice: 11. Black's zone c7-f5: without c7, d7, f7, e5 eight, less c5, d5, f5
    // (white's pawns attack them) five, and e6, e7 behind e5 twice: 7. Both sides have 16
    // pieces: (11 − 7) × 15² = 900 units, × 160 / 1600 = 90 centipawns, all middlegame
    // (every piece is on the board: the phase is full).
    let fen = "rnbqkbnr/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(gain(fen, "space", 160), 90);
    // For black to move, the same 90 against it.
    let black = "rnbqkbnr/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 1";
    assert_eq!(gain(black, "space", 160), -90);
    // Without the queens less than three quarters of the starting material is left
    // (4,600 of 6,400): no space term.
    let thin = "rnb1kbnr/pppp1ppp/8/4p3/3PP3/8/PPP2PPP/RNB1KBNR w KQkq - 0 1";
    assert_eq!(gain(thin, "space", 160), 0);
}

#[test]
fn a_passed_pawn_wants_the_kings_near_it() {
    // White's e6 is passed, 5 ranks from its back rank: w = 5 × 5 − 13 = 12. The square
    // in front, e7: black's king on a8 is 4 steps from it, white's on e1 6 (counted 5);
    // e8 after it, 7 (5). 5 × 4 − 2 × 5 − 5 = 5; × 12 = 60, at passed_king 100 → 60 in
    // the endgame, and without pieces the phase is the endgame's.
    let fen = "k7/8/4P3/8/8/8/8/4K3 w - - 0 1";
    assert_eq!(gain(fen, "passed_king", 100), 60);
    // Black's king on d8 is next to e7: 5 × 1 − 10 − 5 = −10 → −120.
    let held = "3k4/8/4P3/8/8/8/8/4K3 w - - 0 1";
    assert_eq!(gain(held, "passed_king", 100), -120);
    // e7 is empty and black does not attack it from a8: free, 12 × 10 / 10 = 12.
    assert_eq!(gain(fen, "passed_free", 10), 12);
    // From d8 black attacks e7: not free.
    assert_eq!(gain(held, "passed_free", 10), 0);
    // On its third rank (c = 2, w = −3) neither counts.
    let early = "k7/8/8/8/8/4P3/8/4K3 w - - 0 1";
    assert_eq!(gain(early, "passed_king", 100), 0);
    assert_eq!(gain(early, "passed_free", 10), 0);
    // Black's d3 mirrors white's e6 (c = 5 from rank 8): for black to move with the kings
    // mirrored too, the same 60.
    let black = "4k3/8/8/8/8/3p4/8/7K b - - 0 1";
    assert_eq!(gain(black, "passed_king", 100), 60);
}

/// Master's pruning switched off: the search of the previous master (reductions and
/// null move only).
fn unpruned(l: Level) -> Level {
    Level { futility: 0, late_move_pruning: false, see: false, iir: false, ..l }
}

#[test]
fn pruning_shrinks_fixed_depth_trees_and_keeps_tactics() {
    let config = AiConfig::default();
    let master = Level { depth: 6, deepen: false, ..*config.level("master").unwrap() };
    let italian = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    for g in [Game::new(standard()), game(italian)] {
        let a = g.search(&config, &unpruned(master), 0, Clock::Off).unwrap();
        let b = g.search(&config, &master, 0, Clock::Off).unwrap();
        assert_eq!((a.depth, b.depth, a.stopped, b.stopped), (6, 6, false, false));
        assert!(b.nodes * 2 < a.nodes, "pruned {} vs unpruned {}", b.nodes, a.nodes);
        assert!(g.legal_actions().contains(&b.action));
        assert_eq!(g.search(&config, &master, 0, Clock::Off).unwrap(), b);
    }
    // Mates and the hanging queen are still found.
    let g = game(MATE_IN_2);
    let r = g.search(&config, &master, 0, Clock::Off).unwrap();
    assert_eq!((text(&g, &r).as_str(), r.mate), ("a1-a6", Some(2)));
    let g = game(MATE_IN_1);
    assert_eq!(text(&g, &g.search(&config, &master, 0, Clock::Off).unwrap()), "a1-a8");
    let g = game(HANGING_QUEEN);
    assert_eq!(text(&g, &g.search(&config, &master, 0, Clock::Off).unwrap()), "f3-h4");
    // Master has them; the others not; TOML sets them.
    let on: Vec<(i32, bool, bool, bool)> =
        config.levels.iter().map(|(_, l)| (l.futility, l.late_move_pruning, l.see, l.iir)).collect();
    assert_eq!(on, [(0, false, false, false), (0, false, false, false), (100, true, true, true)]);
    let v =
        load(&folder("[ai.levels.veteran]\nfutility = 150\nlate_move_pruning = true\nsee = true\niir = true\n", None));
    let l = *AiConfig::from_variant(&v).unwrap().level("veteran").unwrap();
    assert_eq!((l.futility, l.late_move_pruning, l.see, l.iir), (150, true, true, true));
}

#[test]
fn pruning_depths_and_margins_are_set_per_level_and_prune_more_the_further_they_reach() {
    let config = AiConfig::default();
    let master = Level { depth: 7, deepen: false, ..*config.level("master").unwrap() };
    // Master's defaults: reverse futility within 3 plies at `futility`'s 100 a ply, late
    // move pruning within 4, no futility by action.
    let get = |l: &Level| {
        (l.reverse_futility_depth, l.reverse_futility_margin(), l.late_move_pruning_depth, l.move_futility_depth)
    };
    assert_eq!(get(&master), (3, 100, 4, 0));
    // Reverse futility's own margin wins over `futility`'s; `futility = 0` is off for both.
    assert_eq!(Level { reverse_futility: 150, ..master }.reverse_futility_margin(), 150);
    assert_eq!(Level { futility: 0, reverse_futility: 150, ..master }.reverse_futility_margin(), 0);
    let g = game("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
    let nodes = |l: Level| {
        let r = g.search(&config, &l, 0, Clock::Off).unwrap();
        assert_eq!((r.depth, r.stopped), (7, false));
        assert_eq!(g.search(&config, &l, 0, Clock::Off).unwrap(), r, "reproducible");
        r.nodes
    };
    let base = nodes(master);
    // Reverse futility reaching further from the frontier, or cutting with a smaller
    // margin, prunes more of the same depth-7 tree (4,681 nodes); a larger margin, or
    // none within reach (depth 0), prunes less. Its own margin at `futility`'s value is
    // the default.
    let rfp = |d, m| Level { reverse_futility_depth: d, reverse_futility: m, ..master };
    assert!(nodes(rfp(6, 0)) < base);
    assert!(nodes(rfp(3, 60)) < base);
    assert!(nodes(rfp(3, 300)) > base);
    assert!(nodes(rfp(0, 0)) > base);
    assert_eq!(nodes(rfp(3, 100)), base);
    // Futility by move prunes more; late move pruning nearer the frontier prunes less,
    // within none is off, and reaching further changes the tree (at a fixed depth the
    // count may go either way: what it prunes changes the order and the bounds after).
    assert!(nodes(Level { move_futility_depth: 6, ..master }) < base);
    assert!(nodes(Level { late_move_pruning_depth: 2, ..master }) > base);
    assert_eq!(
        nodes(Level { late_move_pruning_depth: 0, ..master }),
        nodes(Level { late_move_pruning: false, ..master })
    );
    assert_ne!(nodes(Level { late_move_pruning_depth: 7, ..master }), base);
    // All four reaching further still find the mate and the hanging queen (Morphy's mate
    // ends with a quiet check, b7#, after the rook sacrifice: futility by move, blind to
    // checks, would skip it at every depth).
    let bundle = Level {
        reverse_futility_depth: 6,
        reverse_futility: 150,
        late_move_pruning_depth: 8,
        move_futility_depth: 6,
        ..Level { depth: 6, ..master }
    };
    keeps_tactics(&config, &bundle);
    // Other levels carry the same defaults; TOML sets them per level.
    assert!(config.levels.iter().all(|(_, l)| get(l) == (3, l.futility, 4, 0)));
    let c = AiConfig::from_variant(&load(&folder(
        "[ai.levels.master]\nreverse_futility_depth = 6\nreverse_futility = 150\nlate_move_pruning_depth = 8\nmove_futility_depth = 6\n",
        None,
    )))
    .unwrap();
    assert_eq!(get(c.level("master").unwrap()), (6, 150, 8, 6));
    assert_eq!(get(c.level("veteran").unwrap()), (3, 0, 4, 0));
    assert_eq!(
        problems(
            "[ai.levels.master]\nmove_futility_depth = 40\nreverse_futility = -5\nlate_move_pruning_depth = \"4\"\n"
        ),
        [
            "variant.toml:3:23: `ai.levels.master.move_futility_depth` must be from 0 to 32, not 40",
            "variant.toml:4:20: `ai.levels.master.reverse_futility` must be from 0 to 10000, not -5",
            "variant.toml:5:27: `ai.levels.master.late_move_pruning_depth` must be a whole number, not the text \"4\"",
        ]
    );
}

/// A level switch `key` (read by `get`): master's alone by default, set per level from
/// TOML, and a number in its place refused where it stands.
fn masters_switch_set_from_toml(key: &str, get: fn(&Level) -> bool) {
    let on: Vec<bool> = AiConfig::default().levels.iter().map(|(_, l)| get(l)).collect();
    assert_eq!(on, [false, false, true], "{key}");
    let toml = format!("[ai.levels.veteran]\n{key} = true\n\n[ai.levels.master]\n{key} = false\n");
    let c = AiConfig::from_variant(&load(&folder(&toml, None))).unwrap();
    assert_eq!((get(c.level("veteran").unwrap()), get(c.level("master").unwrap())), (true, false), "{key}");
    // The value's column: after the key and " = ".
    let column = key.len() + 4;
    assert_eq!(
        problems(&format!("[ai.levels.master]\n{key} = 1\n")),
        [format!("variant.toml:3:{column}: `ai.levels.master.{key}` must be true or false, not the number 1")]
    );
}

/// The level still mates in two (Morphy's problem) and takes the hanging queen.
fn keeps_tactics(config: &AiConfig, level: &Level) {
    let g = game(MATE_IN_2);
    let r = g.search(config, level, 0, Clock::Off).unwrap();
    assert_eq!((text(&g, &r).as_str(), r.mate), ("a1-a6", Some(2)));
    let g = game(HANGING_QUEEN);
    assert_eq!(text(&g, &g.search(config, level, 0, Clock::Off).unwrap()), "f3-h4");
}

#[test]
fn history_with_maluses_keeps_tactics_and_is_set_from_toml() {
    let config = AiConfig::default();
    let master = Level { depth: 6, deepen: false, ..*config.level("master").unwrap() };
    let plain = Level { history: false, ..master };
    // The same tactics with and without it, at the same depth.
    for level in [master, plain] {
        keeps_tactics(&config, &level);
    }
    // It changes the tree (the order of quiet actions and their reductions), reproducibly.
    let italian = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let g = game(italian);
    let a = g.search(&config, &master, 0, Clock::Off).unwrap();
    let b = g.search(&config, &plain, 0, Clock::Off).unwrap();
    assert_ne!(a.nodes, b.nodes);
    assert_eq!(g.search(&config, &master, 0, Clock::Off).unwrap(), a);
    // Master has it; the others not; TOML sets it.
    masters_switch_set_from_toml("history", |l| l.history);
}

#[test]
fn continuation_history_and_improving_keep_tactics_and_are_set_from_toml() {
    let config = AiConfig::default();
    // Deep enough for the histories to steer the tree (at depth 6 continuation changes
    // no node count here).
    let master = Level { depth: 8, deepen: false, ..*config.level("master").unwrap() };
    let italian = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let g = game(italian);
    let full = g.search(&config, &master, 0, Clock::Off).unwrap();
    for level in [Level { continuation: false, ..master }, Level { improving: false, ..master }] {
        // The same tactics with each switched off, at the same depth.
        keeps_tactics(&config, &level);
        // Each changes the tree (the order and reductions of quiet actions, the pruning).
        let r = g.search(&config, &level, 0, Clock::Off).unwrap();
        assert_ne!(r.nodes, full.nodes);
        assert_eq!(g.search(&config, &level, 0, Clock::Off).unwrap(), r);
    }
    // Continuation needs `history`: without it, switching continuation changes nothing.
    let plain = Level { history: false, ..master };
    assert_eq!(
        g.search(&config, &plain, 0, Clock::Off).unwrap(),
        g.search(&config, &Level { continuation: false, ..plain }, 0, Clock::Off).unwrap()
    );
    // Master has them; the others not; TOML sets them.
    let on: Vec<(bool, bool)> = config.levels.iter().map(|(_, l)| (l.continuation, l.improving)).collect();
    assert_eq!(on, [(false, false), (false, false), (true, true)]);
    let v = load(&folder(
        "[ai.levels.veteran]\nhistory = true\ncontinuation = true\nimproving = true\n\n[ai.levels.master]\ncontinuation = false\n",
        None,
    ));
    let c = AiConfig::from_variant(&v).unwrap();
    let (vet, mas) = (c.level("veteran").unwrap(), c.level("master").unwrap());
    assert_eq!((vet.continuation, vet.improving, mas.continuation, mas.improving), (true, true, false, true));
    assert_eq!(
        problems("[ai.levels.master]\nimproving = \"yes\"\n"),
        ["variant.toml:3:13: `ai.levels.master.improving` must be true or false, not the text \"yes\""]
    );
}

#[test]
fn singular_extensions_work_from_depth_eight_keep_tactics_and_are_set_from_toml() {
    let config = AiConfig::default();
    let master = Level { deepen: false, ..*config.level("master").unwrap() };
    let italian = game("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
    let search = |depth: u32, singular: bool| {
        italian.search(&config, &Level { depth, singular, ..master }, 0, Clock::Off).unwrap()
    };
    // Below a root of depth 7 no node has depth 8 (a check extends a ply, no more than
    // the ply it costs): nothing changes. At 8 a line of checks reaches one.
    assert_eq!(search(7, true), search(7, false));
    assert_ne!(search(8, true).nodes, search(8, false).nodes);
    // At depth 10 the nodes of depth 8 and 9 try it: the tree changes, reproducibly.
    let (on, off) = (search(10, true), search(10, false));
    assert_eq!((on.depth, off.depth), (10, 10));
    assert_ne!(on.nodes, off.nodes);
    assert_eq!(search(10, true), on);
    assert!(italian.legal_actions().contains(&on.action));
    // The same tactics with and without it.
    for singular in [true, false] {
        keeps_tactics(&config, &Level { depth: 10, singular, ..master });
    }
    // Master has it; the others not; TOML sets it.
    masters_switch_set_from_toml("singular", |l| l.singular);
}

#[test]
fn a_kept_table_carries_what_was_learnt_until_cleared() {
    let config = AiConfig::default();
    let master = Level { depth: 6, deepen: false, ..*config.level("master").unwrap() };
    let italian = game("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
    let mut next = italian.clone();
    next.play("e1-g1").unwrap();
    // A fresh search makes a table of the same size (16 MB at depth 6).
    let fresh = next.search(&config, &master, 0, Clock::Off).unwrap();
    let mut table = HashTable::with_megabytes(16);
    let think = |g: &Game, table: &mut HashTable| {
        g.think(&config, &master, Think { table: Some(table), ..Think::default() }).unwrap()
    };
    assert_eq!(think(&next, &mut table), fresh);
    // After a search of the position before, the next one starts from what it learnt:
    // the table's positions and the actions' histories.
    table.clear();
    think(&italian, &mut table);
    let warm = think(&next, &mut table);
    assert!(warm.nodes < fresh.nodes, "warm {} vs fresh {}", warm.nodes, fresh.nodes);
    // Cleared, it is a fresh table again, histories included.
    table.clear();
    assert_eq!(think(&next, &mut table), fresh);
}

#[test]
fn pieces_in_hand_are_worth_their_value() {
    // Crazyhouse: a captured piece goes to the captor's hand, where it is still worth
    // its value (once it counted nothing, so a drop looked like winning material).
    // White holds a queen, black a pawn: 900 − 100 = 800 for white.
    let eval = |fen: &str, hand: i32| {
        let v = Variant::load_with("crazyhouse", &[format!("ai.hand={hand}").parse().unwrap()]).unwrap();
        Game::from_fen(v, fen).unwrap().evaluate().unwrap()
    };
    let fen = "4k3/8/8/8/8/8/8/4K3[Qp] w - - 0 1";
    assert_eq!(eval(fen, 100) - eval(fen, 0), 800);
    assert_eq!(eval(fen, 50) - eval(fen, 0), 400);
    // For black to move, the same holding counts against it.
    let fen = "4k3/8/8/8/8/8/8/4K3[Qp] b - - 0 1";
    assert_eq!(eval(fen, 100) - eval(fen, 0), -800);
}
