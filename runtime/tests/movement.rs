//! Each movement primitive of the TOML vocabulary, on small hand-made variants, with
//! the expected squares worked out by hand.

use std::sync::Arc;

use varia::{ActionKind, Game, Variant};

/// A variant with the given board, pieces (TOML `[pieces.*]` tables) and setup FEN.
fn variant(files: u32, ranks: u32, fen: &str, pieces: &str, extra: &str) -> Arc<Variant> {
    let text = format!(
        "[board]\nfiles = {files}\nranks = {ranks}\n[setup]\nfen = \"{fen}\"\n\
         [regions]\nstart = {{ ranks = [2], relative = true }}\nlast = {{ ranks = [-1], relative = true }}\n\
         {extra}\n{pieces}"
    );
    Variant::from_toml(&text, "test.toml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The destinations (sorted square names) of the actions from `from`.
fn targets(game: &Game, from: &str) -> Vec<String> {
    let v = game.variant();
    let f = v.geometry.parse(from).unwrap();
    let mut out: Vec<String> =
        game.legal_actions().iter().filter(|a| a.from == f).map(|a| v.square_name(a.to)).collect();
    out.sort();
    out.dedup();
    out
}

fn sq(list: &str) -> Vec<String> {
    let mut v: Vec<String> = list.split_whitespace().map(String::from).collect();
    v.sort();
    v
}

const KINGS: &str = "[pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{ leap = \"all\" }]\n";

#[test]
fn leap_by_named_and_explicit_vectors() {
    let pieces = format!(
        "{KINGS}[pieces.knight]\nletter = \"N\"\nmoves = [{{ leap = \"knight\" }}]\n\
         [pieces.camel]\nletter = \"C\"\nmoves = [{{ leap = [[1, 3]], symmetry = \"all\" }}]\n"
    );
    let v = variant(8, 8, "k7/8/8/8/3N4/8/8/K6C w - - 0 1", &pieces, "");
    let g = Game::new(v);
    assert_eq!(targets(&g, "d4"), sq("b3 b5 c2 c6 e2 e6 f3 f5"));
    // Camel (1,3) with all symmetries from h1: g4 and e2 only on the board.
    assert_eq!(targets(&g, "h1"), sq("e2 g4"));
}

#[test]
fn slides_stop_at_blockers_and_capture_enemies() {
    let pieces = format!(
        "{KINGS}[pieces.rook]\nletter = \"R\"\nmoves = [{{ slide = \"orthogonal\" }}]\n[pieces.pawn]\nletter = \"P\"\nmoves = []\n"
    );
    // Rook d4; own pawn d6 blocks; enemy pawn f4 can be taken, nothing beyond.
    let v = variant(8, 8, "k7/8/3P4/8/3R1p2/8/8/K7 w - - 0 1", &pieces, "");
    let g = Game::new(v);
    assert_eq!(targets(&g, "d4"), sq("a4 b4 c4 e4 f4 d5 d3 d2 d1"));
}

#[test]
fn slide_range_limits_the_steps() {
    let pieces = format!("{KINGS}[pieces.short]\nletter = \"S\"\nmoves = [{{ slide = \"diagonal\", range = 2 }}]\n");
    let v = variant(8, 8, "k7/8/8/8/3S4/8/8/K7 w - - 0 1", &pieces, "");
    assert_eq!(targets(&Game::new(v), "d4"), sq("b2 c3 e5 f6 c5 b6 e3 f2"));
}

#[test]
fn exact_distance_leaps_ignore_what_is_between() {
    let pieces = format!(
        "{KINGS}[pieces.two]\nletter = \"T\"\nmoves = [{{ leap = \"all\", distance = 2 }}]\n[pieces.pawn]\nletter = \"P\"\nmoves = []\n"
    );
    // Surrounded by own pawns, the distance-2 piece still reaches every 2-away square.
    let v = variant(8, 8, "k7/8/8/2PPP3/2PTP3/2PPP3/8/K7 w - - 0 1", &pieces, "");
    assert_eq!(targets(&Game::new(v), "d4"), sq("b2 b4 b6 d2 d6 f2 f4 f6"));
}

#[test]
fn farthest_reaches_the_last_square_of_each_line() {
    let pieces = format!("{KINGS}[pieces.far]\nletter = \"F\"\nmoves = [{{ farthest = \"orthogonal\" }}]\n");
    let v = variant(6, 6, "k5/6/6/2F3/6/K5 w - - 0 1", &pieces, "");
    // From c3 on 6x6: a3, f3, c1, c6 (the edges), whatever stands between.
    assert_eq!(targets(&Game::new(v), "c3"), sq("a3 f3 c1 c6"));
}

#[test]
fn move_only_and_capture_only_parts() {
    let pieces = format!(
        "{KINGS}[pieces.pawn]\nletter = \"P\"\nmoves = [{{ leap = \"forward\", mode = \"move\" }}, {{ leap = \"forward-diagonal\", mode = \"capture\" }}]\n"
    );
    // White pawn d4: d5 is empty (move), c5 holds an enemy (capture), e5 is empty (no capture).
    let v = variant(8, 8, "k7/8/8/2p5/3P4/8/8/K7 w - - 0 1", &pieces, "");
    let g = Game::new(v.clone());
    assert_eq!(targets(&g, "d4"), sq("c5 d5"));
    // Blocked straight ahead: no move; nothing to capture.
    let g = Game::from_fen(v, "k7/8/8/3p4/3P4/8/8/K7 w - - 0 1").unwrap();
    assert_eq!(targets(&g, "d4"), Vec::<String>::new());
}

#[test]
fn side_relative_forward_and_first_move_regions() {
    let pieces = format!(
        "{KINGS}[pieces.pawn]\nletter = \"P\"\nmoves = [\n  {{ leap = \"forward\", mode = \"move\" }},\n  \
         {{ slide = \"forward\", range = 3, mode = \"move\", from = \"start\", en_passant = \"creates\" }},\n]\n"
    );
    let v = variant(10, 10, "k9/10/4p5/10/10/10/10/10/4P5/K9 w - - 0 1", &pieces, "");
    let g = Game::new(v.clone());
    assert_eq!(targets(&g, "e2"), sq("e3 e4 e5"));
    let g = Game::from_fen(v.clone(), "k9/10/4p5/10/10/10/10/10/4P5/K9 b - - 0 1").unwrap();
    // Black's forward is down the board; its rank 2 is rank 9.
    assert_eq!(targets(&g, "e8"), sq("e7"));
    let g = Game::from_fen(v, "k9/4p5/10/10/10/10/10/10/4P5/K9 b - - 0 1").unwrap();
    assert_eq!(targets(&g, "e9"), sq("e8 e7 e6"));
}

#[test]
fn ranged_capture_leaves_the_shooter_in_place_and_ignores_blockers() {
    let pieces = format!(
        "{KINGS}[pieces.archer]\nletter = \"A\"\nmoves = [{{ leap = \"all\", mode = \"move\" }}, \
         {{ leap = \"all\", distance = 2, mode = \"capture\", capture = \"ranged\", silenced_by_adjacent_enemy = true, cannot_capture = [\"rook\"] }}]\n\
         [pieces.rook]\nletter = \"R\"\nmoves = []\n[pieces.pawn]\nletter = \"P\"\nmoves = []\n"
    );
    // Archer d4; own pawn d5 between it and the enemy pawn d6; enemy rook f4 (immune).
    let v = variant(8, 8, "k7/8/3p4/3P4/3A1r2/8/8/K7 w - - 0 1", &pieces, "");
    let mut g = Game::new(v.clone());
    let shots: Vec<String> =
        g.legal_actions().iter().filter(|a| a.kind == ActionKind::Shot).map(|a| g.format(a)).collect();
    assert_eq!(shots, vec!["d4-d6"]);
    g.play("d4-d6").unwrap();
    assert_eq!(
        g.piece_at(v.geometry.parse("d4").unwrap()).map(|p| v.kind(p.kind).name.clone()).as_deref(),
        Some("archer")
    );
    assert!(g.piece_at(v.geometry.parse("d6").unwrap()).is_none());
    // An enemy next to the archer silences it.
    let g = Game::from_fen(v, "k7/8/3p4/4p3/3A4/8/8/K7 w - - 0 1").unwrap();
    assert!(g.legal_actions().iter().all(|a| a.kind != ActionKind::Shot));
}

#[test]
fn multi_step_en_passant_targets_every_skipped_square() {
    let pieces = format!(
        "{KINGS}[pieces.pawn]\nletter = \"P\"\nmoves = [\n  {{ leap = \"forward\", mode = \"move\" }},\n  \
         {{ slide = \"forward\", range = 3, mode = \"move\", from = \"start\", en_passant = \"creates\" }},\n  \
         {{ leap = \"forward-diagonal\", mode = \"capture\", en_passant = \"captures\" }},\n]\n"
    );
    // Black pawns on d4 (middle rank of a triple step e2-e5) and d5 (landing rank).
    let v = variant(10, 10, "k9/10/10/10/10/3p6/3p6/10/4P5/K9 w - - 0 1", &pieces, "");
    let mut g = Game::new(v.clone());
    g.play("e2-e5").unwrap();
    assert!(g.fen().contains(" e3,e4 "), "{}", g.fen());
    // d4 takes onto the nearer skipped square, d5 onto the farther one.
    assert!(targets(&g, "d4").contains(&"e3".to_string()));
    assert!(targets(&g, "d5").contains(&"e4".to_string()));
    g.play("d5-e4").unwrap();
    assert!(g.piece_at(v.geometry.parse("e5").unwrap()).is_none(), "the pawn that skipped is removed");
    // The window lasts one reply: after another move the squares are gone.
    let mut g = Game::new(v);
    g.play("e2-e5").unwrap();
    g.play("a10-b10").unwrap();
    assert!(g.fen().contains(" - "), "{}", g.fen());
}

#[test]
fn boards_from_1x1_to_16x16_with_multi_digit_ranks() {
    let pieces = format!("{KINGS}[pieces.queen]\nletter = \"Q\"\nmoves = [{{ slide = \"all\" }}]\n");
    let v = variant(16, 16, "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/16/K14Q w - - 0 1", &pieces, "");
    let g = Game::new(v.clone());
    // Queen on p1: 15 along rank 1 (blocked at b1 by own king: b1..o1 = 14), 15 up the file, 15 diagonal.
    assert_eq!(targets(&g, "p1").len(), 14 + 15 + 15);
    assert_eq!(g.fen(), "k15/16/16/16/16/16/16/16/16/16/16/16/16/16/16/K14Q w - - 0 1");
    assert!(targets(&g, "p1").contains(&"p16".to_string()));
    let tiny = Variant::from_toml(
        "[board]\nfiles = 1\nranks = 1\n[setup]\nfen = \"K\"\n[pieces.king]\nletter = \"K\"\nmoves = [{ leap = \"all\" }]\n",
        "tiny.toml",
    )
    .unwrap();
    assert_eq!(Game::new(tiny).fen(), "K w - - 0 1");
}

#[test]
fn promotion_offers_each_choice_in_the_zone() {
    let pieces = format!(
        "{KINGS}[pieces.pawn]\nletter = \"P\"\nmoves = [{{ leap = \"forward\", mode = \"move\" }}]\npromotion = {{ zone = \"last\", to = [\"knight\", \"queen\"] }}\n\
         [pieces.knight]\nletter = \"N\"\nmoves = [{{ leap = \"knight\" }}]\n[pieces.queen]\nletter = \"Q\"\nmoves = [{{ slide = \"all\" }}]\n"
    );
    let v = variant(8, 8, "8/4P3/8/8/8/8/8/K6k w - - 0 1", &pieces, "");
    let mut g = Game::new(v);
    let promos: Vec<String> = g.legal_actions().iter().filter(|a| a.promotion.is_some()).map(|a| g.format(a)).collect();
    assert_eq!(promos, vec!["e7-e8=N", "e7-e8=Q"], "in the order the kinds are declared");
    let err = g.play("e7-e8").unwrap_err().to_string();
    assert!(err.contains("add one of"), "{err}");
    g.play("e7-e8=n").unwrap();
    assert!(g.fen().starts_with("4N3/"), "{}", g.fen());
}

#[test]
fn castling_is_data_with_squares_that_must_be_empty_and_safe() {
    let pieces = format!("{KINGS}[pieces.rook]\nletter = \"R\"\nmoves = [{{ slide = \"orthogonal\" }}]\n");
    // Decachess-like: king f1 goes to h1, rook j1 to g1, on a 10-wide board.
    let extra = "[[castling]]\nright = \"K\"\nking = \"f1\"\nrook = \"j1\"\nking_to = \"h1\"\nrook_to = \"g1\"\n";
    let v = variant(10, 10, "5k4/10/10/10/10/10/10/10/10/5K3R w K - 0 1", &pieces, extra);
    let c = &v.castling[0];
    let names = |l: &[varia::Square]| l.iter().map(|&s| v.square_name(s)).collect::<Vec<_>>().join(" ");
    assert_eq!(names(&c.empty), "g1 h1 i1");
    assert_eq!(names(&c.safe), "f1 g1 h1");
    assert_eq!(v.castling[1].right, 'k');
    assert_eq!(names(&v.castling[1].safe), "f10 g10 h10");
    let mut g = Game::new(v.clone());
    assert!(targets(&g, "f1").contains(&"h1".to_string()));
    g.play("f1-h1").unwrap();
    assert!(g.fen().starts_with("5k4/10/10/10/10/10/10/10/10/6RK2 b"), "{}", g.fen());
    // An enemy rook on the g-file makes g1 unsafe: no castling.
    let g = Game::from_fen(v, "5kr3/10/10/10/10/10/10/10/10/5K3R w K - 0 1").unwrap();
    assert!(!targets(&g, "f1").contains(&"h1".to_string()));
}
