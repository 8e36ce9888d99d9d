//! Captures that explode (`[rules.explosion]`), and atomic chess built on them: perft
//! against the reference counts (lichess's and python-chess's `AtomicBoard`: from the
//! start, and from positions by hand and from seeded random games), the blast's victims,
//! kings side by side, the illegal self-explosion, the mechanism's options in another
//! variant, and the errors of malformed tables. The fixtures (`fixtures/atomic/`) show
//! the same rules move by move.

use std::sync::Arc;

use varia::{Event, Game, GameResult, Reason, Variant};

fn atomic() -> Arc<Variant> {
    Variant::load("atomic").unwrap()
}

fn game(fen: &str) -> Game {
    Game::from_fen(atomic(), fen).unwrap()
}

#[test]
fn perft_from_the_start_equals_the_reference() {
    let g = Game::new(atomic());
    assert_eq!([1, 2, 3, 4].map(|d| g.perft(d)), [20, 400, 8902, 197326]);
}

#[test]
fn perft_5_from_the_start_equals_the_reference() {
    assert_eq!(Game::new(atomic()).perft(5), 4864979);
}

/// Perft 1 to 3 as python-chess 1.11.2's `AtomicBoard` counts them: positions made by
/// hand (kings side by side, castling next to the enemy king, en passant, a win while in
/// check, a check only the king can answer, captures that promote), then positions of
/// seeded random games (half their moves captures).
const POSITIONS: &[(&str, [u64; 3])] = &[
    ("8/8/8/3kK3/8/8/3r4/4R3 w - - 0 1", [17, 278, 5036]),
    ("6r1/8/8/8/8/8/5k2/R3K2R w KQ - 0 1", [25, 491, 12609]),
    ("8/8/8/2k5/3pP3/8/8/4K3 b - e3 0 1", [8, 46, 379]),
    ("kn6/8/8/8/8/8/6q1/1R5K w - - 0 1", [1, 0, 0]),
    ("4k3/8/8/8/8/8/3p4/3RK3 w - - 0 1", [3, 15, 180]),
    ("r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1", [32, 845, 22010]),
    ("r2qkb2/p1p1pp2/1p6/2np4/P5p1/4PP2/RPPPN1P1/2BQKBN1 b q - 0 8", [28, 519, 14494]),
    ("1n2kb2/4p2p/5p2/8/6Q1/3P4/4PP2/4K3 b - - 0 19", [12, 340, 4065]),
    ("3k2nr/4b2p/3p4/pN6/P7/8/1PP1PPKP/R7 b - - 2 13", [12, 370, 5464]),
    ("rnb2bnr/1pp1kppp/p3p3/3p4/6P1/3P1P2/P1P1PK1P/RNB1QBNR w - - 0 7", [32, 705, 22464]),
    ("r1b1kb1r/3n1p1p/2ppp3/pp6/6P1/PP1P4/2PNP2P/R1BQKB1R w KQkq - 1 11", [21, 527, 12748]),
    ("1r2kb1r/4p1pp/5p2/p7/3P3P/8/1PP1PP2/1R1QK1NR b Kk - 0 14", [21, 438, 9400]),
    ("1q2k3/2ppp3/b4ppP/1p6/3P1P1R/8/1P4P1/2B1K3 b - - 0 16", [20, 379, 7979]),
    ("3qkbnr/3n1ppp/3p4/p7/PP6/R7/3PP1PP/4KBR1 w k - 0 13", [22, 570, 11989]),
];

#[test]
fn perft_from_positions_equals_python_chess() {
    for (fen, want) in POSITIONS {
        let g = game(fen);
        assert_eq!([1, 2, 3].map(|d| g.perft(d)), *want, "{fen}");
    }
}

/// The legal actions as text, sorted.
fn moves(g: &Game) -> Vec<String> {
    let mut m: Vec<String> = g.legal_actions().iter().map(|a| g.format(a)).collect();
    m.sort();
    m
}

fn exploded(events: &[Event], g: &Game) -> Vec<String> {
    events.iter().filter(|e| matches!(e, Event::Exploded { .. })).map(|e| e.describe(g.variant())).collect()
}

#[test]
fn a_capture_blasts_the_capturer_and_the_pieces_around_but_pawns() {
    // White queen d1 takes the knight on d5. Around d5: c6 (black bishop) and e6 (white
    // rook) go, whatever their side; c4 and e4 are pawns and stay; d6 and d4 are empty.
    // The queen goes too. The kings (a8, h1) are far away.
    let mut g = game("k7/8/2b1R3/3n4/2p1P3/8/8/3Q3K w - - 0 1");
    let ev = g.play("d1-d5").unwrap();
    assert_eq!(
        exploded(&ev, &g),
        ["white queen on d5 exploded", "black bishop on c6 exploded", "white rook on e6 exploded"]
    );
    assert_eq!(g.fen(), "k7/8/8/8/2p1P3/8/8/7K b - - 0 1");
    assert_eq!(g.outcome(), None);
}

#[test]
fn the_king_never_captures_and_kings_side_by_side_give_no_check() {
    // White king e5 beside black king d5. The rook on d2 attacks d4 and d6, but a capture
    // of the white king there would blast the black one: they are not attacked.
    let g = game("8/8/8/3kK3/8/8/3r4/4R3 w - - 0 1");
    assert!(!g.in_check());
    let king: Vec<String> = moves(&g).into_iter().filter(|m| m.starts_with("e5")).collect();
    assert_eq!(king, ["e5-d4", "e5-d6", "e5-e4", "e5-e6", "e5-f4", "e5-f5", "e5-f6"]);
    // A king next to a piece it could take does not take it: the black rook on e4 checks
    // the king on e5 (the kings are apart), and Kxe4 is no move. (The pawn on a7 keeps
    // the game going: king and rook against a bare king is drawn by material.)
    let g = game("8/p7/1k6/4K3/4r3/8/8/8 w - - 0 1");
    assert!(g.in_check());
    assert_eq!(moves(&g), ["e5-d5", "e5-d6", "e5-f5", "e5-f6"]);
    let e = g.clone().play("e5-e4").unwrap_err().to_string();
    assert!(e.contains("e5-e4 is illegal"), "{e}");
}

#[test]
fn a_move_that_explodes_ones_own_king_is_illegal_and_one_that_explodes_the_other_wins() {
    // Rd1xd2 would take the checking pawn, but the blast around d2 reaches e1.
    let g = game("4k3/8/8/8/8/8/3p4/3RK3 w - - 0 1");
    assert!(g.in_check());
    assert_eq!(moves(&g), ["e1-e2", "e1-f1", "e1-f2"]);
    let e = g.clone().play("d1-d2").unwrap_err().to_string();
    assert!(e.ends_with("d1-d2 is illegal: it would explode your king"), "{e}");
    // Exploding both kings at once is illegal too: Nd4xc6 would blast b7 (the black king)
    // and d7 (the white one). Left: the knight's 7 other leaps and 5 king steps (c6 is
    // no capture for a king, d8 is the knight's).
    let g = game("8/1k1K4/2n5/8/3N4/8/8/8 w - - 0 1");
    assert_eq!(
        moves(&g),
        ["d4-b3", "d4-b5", "d4-c2", "d4-e2", "d4-e6", "d4-f3", "d4-f5", "d7-c7", "d7-c8", "d7-d6", "d7-e6", "d7-e8"]
    );
    // While in check, a capture that explodes the enemy king is legal, and wins.
    let mut g = game("kn6/8/8/8/8/8/6q1/1R5K w - - 0 1");
    assert!(g.in_check());
    assert_eq!(g.legal_actions().len(), 1);
    g.play("b1-b8").unwrap();
    assert_eq!(g.outcome().unwrap().describe(), "white wins by explosion");
    assert!(g.legal_actions().is_empty());
}

/// Kings, rooks and knights on 8×8 with `blast` as the `[rules.explosion]` table.
fn blast_variant(blast: &str, fen: &str) -> Result<Arc<Variant>, varia::LoadError> {
    let text = format!(
        r#"
[board]
files = 8
ranks = 8
[setup]
fen = "{fen}"
[rules.explosion]
{blast}
[pieces.king]
letter = "K"
royal = true
moves = [{{ leap = "all" }}]
[pieces.rook]
letter = "R"
moves = [{{ slide = "orthogonal" }}]
[pieces.knight]
letter = "N"
moves = [{{ leap = "knight" }}]
"#
    );
    Variant::from_toml(&text, "blast.toml")
}

#[test]
fn the_blast_area_the_spared_kinds_and_the_capturer_are_data() {
    // Orthogonal neighbours only, knights spared, the capturer survives. Rd3xd4: the rooks
    // on c4 and e4 go; the knight on d5 is spared; the rook on e5 is diagonal to d4 and
    // stays; the white rook stands on d4.
    let fen = "4k3/8/8/3nr3/2rnr3/3R4/8/7K w - - 0 1";
    let v = blast_variant("around = \"orthogonal\"\nspares = [\"knight\"]\ncapturer = \"survives\"", fen).unwrap();
    let mut g = Game::new(v);
    let ev = g.play("d3-d4").unwrap();
    assert_eq!(exploded(&ev, &g), ["black rook on c4 exploded", "black rook on e4 exploded"]);
    assert_eq!(g.fen(), "4k3/8/8/3nr3/3R4/8/8/7K b - - 0 1");
    // An explicit area is mirrored for black, like movement: `forward` is the square
    // beyond the capture square as the capturer sees it. Black Rc4xd4 blasts d3 (white's
    // knight there goes), not d5 (white's knight there stays); the capturer explodes (the
    // default).
    let fen = "4k3/8/8/3Nr3/2rRr3/3N4/8/7K b - - 0 1";
    let mut g = Game::new(blast_variant("around = [[0, 1]]", fen).unwrap());
    let ev = g.play("c4-d4").unwrap();
    assert_eq!(exploded(&ev, &g), ["black rook on d4 exploded", "white knight on d3 exploded"]);
    assert_eq!(g.fen(), "4k3/8/8/3Nr3/4r3/8/8/7K w - - 0 2");
}

#[test]
fn malformed_tables_are_errors_with_their_place() {
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    let problems = |blast: &str| {
        let e = blast_variant(blast, fen).expect_err("should fail");
        e.problems().iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n")
    };
    let p = problems("spares = [\"pawn\"]");
    assert!(p.contains("unknown piece kind `pawn`"), "{p}");
    let p = problems("capturer = \"dies\"");
    assert!(p.contains("`dies`: capturer is \"explodes\" or \"survives\""), "{p}");
    let p = problems("around = \"everywhere\"");
    assert!(p.contains("unknown vector set `everywhere`"), "{p}");
    let p = problems("around = [[0, 0]]");
    assert!(p.contains("offset [0, 0] must be non-zero"), "{p}");
    let p = problems("radius = 1");
    assert!(p.contains("unknown field `radius`"), "{p}");
    assert!(p.starts_with("blast.toml:"), "{p}");
}

#[test]
fn a_draw_by_material_only_where_neither_king_can_be_exploded() {
    // As python-chess's `AtomicBoard` and lichess judge it: drawn when neither side can
    // win. A bare king has nothing to explode the other king with; against it, a lone
    // knight, bishop or rook, or two knights, cannot mate (the bare king walks next to
    // the other king, where it is never in check, or keeps out of reach).
    let reason =
        |v: &Arc<Variant>, fen: &str| Game::from_fen(v.clone(), fen).unwrap().outcome().map(|o| (o.result, o.reason));
    let draw = Some((GameResult::Draw, Reason::InsufficientMaterial));
    let a = atomic();
    for fen in [
        "8/8/3k4/8/8/4K3/8/8 w - - 0 1",
        "8/8/3k4/8/8/4K3/8/6N1 w - - 0 1",
        "8/8/3k4/8/8/4K3/8/5B2 b - - 0 1",
        "8/8/3k4/8/8/4K3/8/7R w - - 0 1",
        "6n1/1n6/3k4/8/8/4K3/8/8 w - - 0 1",
    ] {
        assert_eq!(reason(&a, fen), draw, "{fen}");
    }
    // Not drawn: a queen, or a pawn (a queen to be), against a bare king; a knight each
    // (a capture next to a king explodes it); a knight and a bishop; two bishops on light
    // squares against a bare king, which chess draws (`same_colour`), atomic does not.
    for fen in [
        "8/8/3k4/8/8/4K3/8/Q7 w - - 0 1",
        "8/8/3k4/8/8/4K3/P7/8 w - - 0 1",
        "n7/8/3k4/8/8/4K3/8/6N1 w - - 0 1",
        "8/8/3k4/8/8/4K3/8/1B4N1 w - - 0 1",
        "8/8/3k4/8/8/4K3/8/1B1B4 w - - 0 1",
    ] {
        assert_eq!(reason(&a, fen), None, "{fen}");
    }
    let chess = Variant::load("standard").unwrap();
    assert_eq!(reason(&chess, "8/8/3k4/8/8/4K3/8/1B1B4 w - - 0 1"), draw);
}

#[test]
fn bishops_that_can_never_take_each_other_draw() {
    // python-chess 1.11.2's `AtomicBoard.is_insufficient_material`: only bishops besides
    // the kings, each side holding some, white's all on one colour and black's all on the
    // other: neither can ever capture (and so explode) anything. (a1 and c1 are dark, b1
    // and h1 light, h2 dark, g1 dark.) Each expected value is python-chess's.
    let reason = |fen: &str| Game::from_fen(atomic(), fen).unwrap().outcome().map(|o| (o.result, o.reason));
    let draw = Some((GameResult::Draw, Reason::InsufficientMaterial));
    for fen in [
        "4k3/8/8/8/8/8/8/B3K2b w - - 0 1",   // a1 dark against h1 light
        "4k3/8/8/8/8/8/8/B1B1K2b w - - 0 1", // a1, c1 dark against h1 light
        "4k3/8/8/8/8/8/8/1B2K1b1 b - - 0 1", // b1 light against g1 dark
    ] {
        assert_eq!(reason(fen), draw, "{fen}");
    }
    for fen in [
        "4k3/8/8/8/8/8/7b/B3K3 w - - 0 1",  // a1 and h2: both dark, they can meet
        "4k3/8/8/8/8/8/8/BB2K2b w - - 0 1", // white on both colours
        "4k3/8/8/8/8/8/8/B3K1bb w - - 0 1", // black on both colours
        "4k3/8/8/8/8/8/8/BN2K2b w - - 0 1", // a knight besides
        "4k3/8/8/8/8/8/8/B1B1K3 w - - 0 1", // two bishops against a bare king
    ] {
        assert_eq!(reason(fen), None, "{fen}");
    }
}
