//! Hands and drops (issue 14): the reserve read as a two-sided game's hands, on
//! crazyhouse and small hand-made variants, with expected values worked out by hand.

use std::sync::Arc;

use varia::{Game, Variant};

fn crazyhouse(fen: &str) -> Game {
    Game::from_fen(Variant::load("crazyhouse").unwrap(), fen).unwrap()
}

fn fen_error(v: &str, fen: &str) -> String {
    match Game::from_fen(Variant::load(v).unwrap(), fen) {
        Ok(_) => panic!("{fen} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn crazyhouse_perft_from_the_start_is_the_published_count() {
    // No capture is possible before ply 3, so black (moving at ply 4) holds nothing and
    // the first drops are white's at ply 5: the counts are chess's to depth 4, and at
    // depth 5 FSF's (and the published) 4888832 against chess's 4865609.
    let g = Game::new(Variant::load("crazyhouse").unwrap());
    assert_eq!([1, 2, 3, 4, 5].map(|d| g.perft(d)), [20, 400, 8902, 197281, 4888832]);
}

#[test]
fn drops_are_counted_by_hand_and_each_kind_has_its_zone() {
    // White: king e1, a knight and a pawn in hand; black: king e8. 62 empty squares.
    // Knight drops: 62. Pawn drops: ranks 2 to 7 minus nothing: 48. King: 5. = 115.
    let g = crazyhouse("4k3/8/8/8/8/8/8/4K3[NP] w - - 0 1");
    assert_eq!(g.legal_actions().len(), 62 + 48 + 5);
    assert_eq!(g.perft(1), 115);
}

#[test]
fn hands_round_trip_through_fen_and_snapshot() {
    let text = "rQ~2k3/8/8/8/8/8/8/4K3[QPnp] b - - 0 1";
    let g = crazyhouse(text);
    // Written back in the variant's kind order, white's first.
    assert_eq!(g.fen(), "rQ~2k3/8/8/8/8/8/8/4K3[QPnp] b - - 0 1");
    let snap = g.snapshot();
    assert_eq!(snap["hands"]["white"], serde_json::json!(["queen", "pawn"]));
    assert_eq!(snap["hands"]["black"], serde_json::json!(["knight", "pawn"]));
    assert_eq!(snap["promoted"], serde_json::json!(["b8"]));
    let back = Game::restore(g.variant().clone(), &snap).unwrap();
    assert_eq!(back.fen(), g.fen());
    // A variant without hands keeps its snapshot keys as they were.
    assert!(Game::new(Variant::load("standard").unwrap()).snapshot().get("hands").is_none());
}

#[test]
fn bad_hands_are_refused_with_a_reason() {
    assert!(fen_error("standard", "4k3/8/8/8/8/8/8/4K3[] w - - 0 1").contains("standard has no hands"));
    assert!(fen_error("crazyhouse", "4k3/8/8/8/8/8/8/4K3[K] w - - 0 1").contains("a hand never holds a king"));
    assert!(fen_error("crazyhouse", "4k3/8/8/8/8/8/8/4K3[X] w - - 0 1").contains("`X` is not a piece letter"));
    assert!(fen_error("crazyhouse", "4k3/8/8/8/8/8/8/4K3[P w - - 0 1").contains("closed by `]`"));
    // `~` marks only what a promotion can make: not a pawn, not a king.
    assert!(fen_error("crazyhouse", "4k3/8/8/8/8/8/P~7/4K3[] w - - 0 1").contains("no promotion to a pawn"));
    assert!(fen_error("crazyhouse", "4k3/8/8/8/8/8/8/~4K3[] w - - 0 1").contains("`~` follows a piece letter"));
    assert!(fen_error("standard", "4k3/8/8/8/8/8/8/Q~3K3 w - - 0 1").contains("no hands"));
}

#[test]
fn a_drop_is_written_alike_in_every_notation() {
    let mut g = crazyhouse("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1");
    let a = g.parse_action("N@f6").unwrap();
    assert_eq!(g.format(&a), "N@f6");
    assert_eq!(varia::notation::lan::format(g.variant(), &a), "N@f6");
    // The knight on f6 checks e8: SAN marks it.
    assert_eq!(g.san(&a), "N@f6+");
    assert_eq!(g.parse_action("n@f6").unwrap(), a);
    g.apply(a).unwrap();
    assert_eq!(g.fen(), "4k3/8/5N2/8/8/8/8/4K3[] b - - 1 1");
    // A move text that only looks like a drop of a hand-less kind is refused, not guessed.
    let e = g.parse_action("Q@d4").unwrap_err().to_string();
    assert!(e.contains("black has no queen in hand"), "{e}");
}

#[test]
fn a_hand_on_a_two_sided_board_needs_a_drop_zone_of_its_own() {
    let text = "[board]\nfiles = 4\nranks = 4\n[setup]\nfen = \"k3/4/4/3K w - - 0 1\"\n\
                [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{ leap = \"all\" }]\n\
                [pieces.man]\nletter = \"M\"\nmoves = [{ leap = \"all\" }]\n\
                [reserve]\nholds = [\"man\"]\ndrop_zones = { man = \"nowhere\" }\n";
    let e = match Variant::from_toml(text, "t.toml") {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("\"presence\", the default, is for worlds of boards"), "{e}");
    assert!(e.contains("drop_zones.man: unknown region `nowhere`"), "{e}");
}

#[test]
fn the_hand_is_part_of_the_position_for_repetition() {
    // The same board with and without a pawn in hand hashes apart.
    let a = crazyhouse("4k3/8/8/8/8/8/8/4K3[] w - - 0 1");
    let b = crazyhouse("4k3/8/8/8/8/8/8/4K3[p] w - - 0 1");
    let c: Arc<Variant> = a.variant().clone();
    assert_ne!(a.hash(), b.hash());
    assert_eq!(Game::from_fen(c, "4k3/8/8/8/8/8/8/4K3[p] w - - 0 1").unwrap().hash(), b.hash());
}
