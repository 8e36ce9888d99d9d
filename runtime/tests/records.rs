//! Game records: SAN written and read for every shipped two-sided variant (expected
//! texts worked out by hand from the positions), and PGN import and export.

use std::sync::Arc;

use varia::notation::pgn::{self, PgnError};
use varia::{Game, Variant};

fn v(name: &str) -> Arc<Variant> {
    Variant::load(name).unwrap_or_else(|e| panic!("{e}"))
}

fn at(variant: &str, fen: &str) -> Game {
    Game::from_fen(v(variant), fen).unwrap_or_else(|e| panic!("{e}"))
}

/// The SAN of the legal action written `from_to` in from-to notation.
fn san(g: &Game, from_to: &str) -> String {
    let a = g.parse_action(from_to).unwrap_or_else(|e| panic!("{from_to}: {e}"));
    g.san(&a)
}

/// The from-to text of the action a SAN text reads as.
fn read(g: &Game, text: &str) -> String {
    let (a, _) = g.read_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    g.format(&a)
}

fn read_err(g: &Game, text: &str) -> String {
    g.read_move(text).map(|(a, _)| g.format(&a)).unwrap_err().to_string()
}

#[test]
fn standard_san_is_written_as_in_chess() {
    let start = Game::new(v("standard"));
    assert_eq!(
        (san(&start, "e2-e4"), san(&start, "g1-f3"), san(&start, "b1-a3")),
        ("e4".into(), "Nf3".into(), "Na3".into())
    );
    // Two knights reach d2: the file tells them apart.
    let g = at("standard", "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert_eq!((san(&g, "b1-d2"), san(&g, "f3-d2"), san(&g, "f3-e5")), ("Nbd2".into(), "Nfd2".into(), "Ne5".into()));
    // Two rooks on the a-file: the rank.
    let g = at("standard", "4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
    assert_eq!((san(&g, "a1-a3"), san(&g, "a5-a3")), ("R1a3".into(), "R5a3".into()));
    // Three queens reach e1: h4 shares its file with h1 and its rank with e4, so both.
    let g = at("standard", "1k6/8/8/8/4Q2Q/8/8/K6Q w - - 0 1");
    assert_eq!((san(&g, "h4-e1"), san(&g, "e4-e1"), san(&g, "h1-e1")), ("Qh4e1".into(), "Qee1".into(), "Q1e1".into()));
    // Castling both ways.
    let g = at("standard", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!((san(&g, "e1-g1"), san(&g, "e1-c1")), ("O-O".into(), "O-O-O".into()));
    // A capture that promotes and checks (the new queen on d8 sees h8 along the rank; the
    // king escapes to g7 or h7); a push that promotes and checks.
    let g = at("standard", "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
    assert_eq!((san(&g, "e7-d8=Q"), san(&g, "e7-e8=N")), ("exd8=Q+".into(), "e8=N".into()));
    assert_eq!(san(&g, "e7-e8=R"), "e8=R+");
    // Mate.
    let g = at("standard", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    assert_eq!(san(&g, "a1-a8"), "Ra8#");
    // En passant is a pawn capture onto the skipped square.
    let mut g = Game::new(v("standard"));
    for m in ["e4", "a6", "e5", "d5"] {
        g.play(m).unwrap();
    }
    assert_eq!(san(&g, "e5-d6"), "exd6");
    g.play("exd6").unwrap();
    assert_eq!(g.last_events().len(), 2, "{:?}", g.last_events());
}

#[test]
fn standard_san_is_read_in_its_usual_forms() {
    let start = Game::new(v("standard"));
    for (text, move_) in [
        ("e4", "e2-e4"),
        ("Nf3", "g1-f3"),
        ("Ng1-f3", "g1-f3"),
        ("Ng1f3", "g1-f3"),
        ("Nf3!?", "g1-f3"),
        ("Pe4", "e2-e4"),
        ("e2-e4", "e2-e4"),
        ("e2e4", "e2-e4"),
    ] {
        assert_eq!(read(&start, text), move_, "{text}");
    }
    let g = at("standard", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    for (text, move_) in [("O-O", "e1-g1"), ("0-0", "e1-g1"), ("O-O-O", "e1-c1"), ("0-0-0+", "e1-c1"), ("Kg1", "e1-g1")]
    {
        assert_eq!(read(&g, text), move_, "{text}");
    }
    let g = at("standard", "3r3k/4P3/8/8/8/8/8/K7 w - - 0 1");
    for (text, move_) in [
        ("exd8=Q+", "e7-d8=Q"),
        ("exd8Q", "e7-d8=Q"),
        ("e8=N", "e7-e8=N"),
        ("exd8(R)", "e7-d8=R"),
        ("e7:d8=B", "e7-d8=B"),
    ] {
        assert_eq!(read(&g, text), move_, "{text}");
    }
    assert_eq!(read_err(&g, "e8"), "`e8` is not a move: it promotes: add one of =Q, =R, =B, =N");
    let g = at("standard", "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert_eq!(read(&g, "Nbd2"), "b1-d2");
    assert_eq!(read(&g, "N1d2"), "b1-d2");
    assert_eq!(
        read_err(&g, "Nd2"),
        "`Nd2` is not a move: ambiguous: a knight on b1 and on f3 can go to d2; name the one you mean (like Nb1d2)"
    );
    assert_eq!(read_err(&g, "Qe4"), "`Qe4` is not a move: no white queen can go to e4");
    assert_eq!(read_err(&g, "Nhd2"), "`Nhd2` is not a move: no white knight on the h-file can go to d2");
    assert_eq!(read_err(&g, "O-O"), "`O-O` is not a move: white cannot castle O-O here");
    assert_eq!(
        read_err(&g, "Ze4"),
        "`Ze4` is not a move: `Z` is not a piece letter of standard (expected SAN like e4, Nf3, exd5, O-O, e8=Q, or from-to like e2-e4)"
    );
    assert_eq!(read_err(&g, "P@e4"), "`P@e4` is not a move: `P@e4` is a drop: standard has no drops");
    // Text that starts as from-to keeps the from-to reason.
    assert_eq!(read_err(&start, "e2-e5"), "e2-e5 is illegal: a pawn on e2 cannot move to e5");
    // The complaint: `e4` and `Qe4` now read (or say why not), nothing is a
    // "square name" puzzle.
    assert!(!read_err(&start, "Qe4").contains("square name"), "{}", read_err(&start, "Qe4"));
    // A refused move changes nothing.
    let mut g = Game::new(v("standard"));
    assert!(g.play("Nd5").is_err());
    assert_eq!(g.ply(), 0);
}

#[test]
fn san_round_trips_every_legal_action_of_playthroughs() {
    // Each legal action's SAN reads back as that action, on random walks through every
    // shipped two-sided variant (hooks, landings, shots and promotions included).
    for name in ["standard", "decachess", "chessception", "capablanca"] {
        let mut g = Game::new(v(name));
        let mut rng = varia::rng::Rng::new(7);
        for _ in 0..60 {
            let legal = g.legal_actions();
            if legal.is_empty() {
                break;
            }
            let mut seen = std::collections::HashSet::new();
            for a in &legal {
                let text = g.san(a);
                assert!(seen.insert(text.clone()), "{name}: two actions write {text} in {}", g.fen());
                let (back, _) = g.read_move(&text).unwrap_or_else(|e| panic!("{name}: {text} in {}: {e}", g.fen()));
                assert_eq!(back, *a, "{name}: {text} in {}", g.fen());
            }
            let pick = legal[rng.below(legal.len() as u64) as usize];
            g.apply(pick).unwrap();
        }
    }
}

#[test]
fn variant_extensions_in_san() {
    // Decachess: the archer on e4 shoots the queen on e6 and stays: a capture by its letter.
    let g = at("decachess", "5k4/10/10/10/4q5/10/4A5/10/10/5K4 w - - 0 1");
    assert_eq!(san(&g, "e4-e6"), "Axe6");
    assert_eq!(read(&g, "Axe6"), "e4-e6");
    // Decachess castling: king f1-h1 is O-O, f1-d1 is O-O-O.
    let g = at("decachess", "r4k3r/10/10/10/10/10/10/10/10/R4K3R w KQkq - 0 1");
    assert_eq!((san(&g, "f1-h1"), san(&g, "f1-d1")), ("O-O".into(), "O-O-O".into()));
    // A capture after which white's oldest frozen pawn (e10) returns as the knight lost.
    let mut g = at("decachess", "2P1P5/10/3r5k/10/10/3N6/7B2/10/5b4/K9 b - - 0 1 frozen=e10,c10");
    g.play("Rxd5").unwrap();
    assert_eq!(g.history_san(), ["Rxd5+N"]);
    let mut again = at("decachess", "2P1P5/10/3r5k/10/10/3N6/7B2/10/5b4/K9 b - - 0 1 frozen=e10,c10");
    again.play("Rxd5+N").unwrap();
    assert_eq!(again.fen(), g.fen());
    let mut wrong = at("decachess", "2P1P5/10/3r5k/10/10/3N6/7B2/10/5b4/K9 b - - 0 1 frozen=e10,c10");
    assert!(wrong.play("Rxd5+Q").is_err());
    assert_eq!(wrong.ply(), 0);
    // Chessception: no check rule, so no `+`; a landing choice is written after `@`.
    let g = at("chessception", "8/8/2pbp3/3n4/2k5/8/8/3Q3K w - - 0 1");
    assert_eq!(san(&g, "d1-d5@c6"), "Qxd5@c6");
    assert_eq!(read(&g, "Qxd5@e6"), "d1-d5@e6");
    assert_eq!(
        read_err(&g, "Qxd5"),
        "`Qxd5` is not a move: it kills on several squares: choose where to land with @c6 or @e6"
    );
}

#[test]
fn moves_are_numbered_from_the_start_position() {
    let mut g = Game::new(v("standard"));
    for m in ["e4", "e5", "Nf3", "Nc6", "Bb5"] {
        g.play(m).unwrap();
    }
    assert_eq!(g.moves_san(), "1. e4 e5 2. Nf3 Nc6 3. Bb5");
    let mut g = at("standard", "4k3/8/8/8/8/8/4P3/4K3 b - - 0 17");
    g.play("Kd7").unwrap();
    g.play("e4").unwrap();
    assert_eq!(g.moves_san(), "17... Kd7 18. e4");
}

#[test]
fn pgn_export_and_import_round_trip() {
    let mut g = Game::new(v("standard"));
    for m in ["f3", "e5", "g4", "Qh4#"] {
        g.play(m).unwrap();
    }
    let mut record = g.to_pgn(&["book".to_string()]);
    record.set_tag("White", "varia master");
    let text = pgn::write(&record);
    assert!(text.contains("[Result \"0-1\"]\n[Variant \"Standard\"]\n\n"), "{text}");
    assert!(text.ends_with("1. f3 {book} 1... e5 2. g4 Qh4# {black wins by checkmate} 0-1\n"), "{text}");
    let back = Game::from_pgn_text(v("standard"), &text, 1).unwrap();
    assert_eq!((back.fen(), back.ply()), (g.fen(), 4));
    assert_eq!(back.outcome(), g.outcome());
    // From a FEN: SetUp and FEN tags, numbering from the FEN.
    let mut g = at("capablanca", "4k5/10/10/10/10/10/10/4K4C b - - 0 30");
    g.play("Kd7").unwrap();
    let text = pgn::write(&g.to_pgn(&[]));
    assert!(
        text.contains("[Variant \"Capablanca\"]\n[SetUp \"1\"]\n[FEN \"4k5/10/10/10/10/10/10/4K4C b - - 0 30\"]"),
        "{text}"
    );
    assert!(text.contains("\n30... Kd7 *\n"), "{text}");
    assert_eq!(Game::from_pgn_text(v("capablanca"), &text, 1).unwrap().fen(), g.fen());
}

#[test]
fn bad_pgn_is_refused_with_its_place() {
    let std = v("standard");
    let err = |t: &str| Game::from_pgn_text(std.clone(), t, 1).unwrap_err();
    assert_eq!(
        err("[Event \"x\"]\n\n1. e4 e5\n2. Ke3 *").to_string(),
        "line 4, column 4: move 3 (`Ke3`): `Ke3` is not a move: no white king can go to e3"
    );
    assert!(matches!(err("1. e4 e5 2. Qh5 {never closed"), PgnError::Syntax { line: 1, col: 17, .. }));
    assert_eq!(
        err("[Variant \"Capablanca\"]\n1. e4 *").to_string(),
        "line 1: the Variant tag: `Capablanca` is not standard (give the variant it names)"
    );
    // (The FEN's own reason is the FEN reader's; the place and the tag are ours.)
    let fen = err("[FEN \"8/8/8 w\"]\n1. e4 *").to_string();
    assert!(fen.starts_with("line 1: the FEN tag: board field: "), "{fen}");
    assert_eq!(
        err("1. f3 e5 2. g4 Qh4# 1-0").to_string(),
        "line 1, column 16: the result 1-0 does not match the game, which ended 0-1 (black wins by checkmate)"
    );
    assert_eq!(err("").to_string(), "the text holds no PGN game");
    assert_eq!(
        Game::from_pgn_text(std.clone(), "1. e4 *", 2).unwrap_err().to_string(),
        "there is no game 2: the text holds 1 game"
    );
    // A move after the end.
    assert_eq!(
        err("1. f3 e5 2. g4 Qh4# 3. a3").to_string(),
        "line 1, column 24: move 5 (`a3`): the game is over (black wins by checkmate)"
    );
}

#[test]
fn long_algebraic_reads_two_digit_ranks_whole() {
    use varia::geometry::Square;
    use varia::notation::lan::parse;
    let deca = v("decachess");
    let w = parse(&deca, "a10a9").unwrap();
    assert_eq!((w.from, w.to), (Square(90), Square(80)));
    let w = parse(&deca, "a9a10a").unwrap();
    assert_eq!((w.from, w.to, w.promotion), (Square(80), Square(90), deca.kind_by_letter('A')));
    let w = parse(&deca, "c9c10+p").unwrap();
    assert_eq!(w.returned, deca.kind_by_letter('P'));
}
