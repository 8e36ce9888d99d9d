//! Gating (issue 14): a held piece enters the square a back-rank piece leaves on its first
//! move (`[reserve] gating`), on Seirawan chess, with expected values worked out by hand
//! from the rules (and the FEN and move texts as Fairy-Stockfish 11.1 writes them).

use varia::{Event, Game, Variant};

fn seirawan(fen: &str) -> Game {
    Game::from_fen(Variant::load("seirawan").unwrap(), fen).unwrap()
}

fn start() -> Game {
    Game::new(Variant::load("seirawan").unwrap())
}

fn fen_error(fen: &str) -> String {
    match Game::from_fen(Variant::load("seirawan").unwrap(), fen) {
        Ok(_) => panic!("{fen} was accepted"),
        Err(e) => e.to_string(),
    }
}

fn legal_from(g: &Game, sq: &str) -> Vec<String> {
    let mut l: Vec<String> = g.legal_actions().iter().map(|a| g.format(a)).filter(|t| t.starts_with(sq)).collect();
    l.sort();
    l
}

fn sorted(l: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = l.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn the_start_has_every_gate_open_and_counts_by_hand() {
    let g = start();
    // The castling field lists the gates after the castling rights, as FSF writes it.
    assert_eq!(g.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQABCDEFGHkqabcdefgh - 0 1");
    // 16 pawn moves (pawns stand on no gate); 4 knight moves, each plain or gating an
    // elephant or a hawk: 16 + 4 × 3 = 28. Black's replies are the same 28 whatever
    // white played (nothing of black's is reached or blocked): 28 × 28 = 784.
    assert_eq!(g.perft(1), 28);
    assert_eq!(g.perft(2), 784);
    // Deeper, FSF's counts (runtime/tests/fsf_perft.rs compares them live).
    assert_eq!(g.perft(3), 24830);
    assert_eq!(legal_from(&g, "g1"), sorted(&["g1-f3", "g1-f3/E", "g1-f3/H", "g1-h3", "g1-h3/E", "g1-h3/H"]));
    assert_eq!(legal_from(&g, "e2"), sorted(&["e2-e3", "e2-e4"]));
}

#[test]
fn a_gating_move_puts_the_held_piece_on_the_square_left() {
    let mut g = start();
    let events = g.play("g1-f3/H").unwrap();
    assert!(events.iter().any(|e| matches!(e, Event::Moved { .. })));
    assert!(events.iter().any(|e| matches!(e, Event::Dropped { .. })));
    // Knight on f3, hawk on g1, white holds the elephant; g1's gate is closed (the hawk
    // never gates), the other seven stay open; the knight's move counts up the clock.
    assert_eq!(g.fen(), "rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKBHR[Eeh] b KQABCDEFHkqabcdefgh - 1 1");
    let snap = g.snapshot();
    assert_eq!(snap["gates"].as_array().unwrap().len(), 7 + 8);
    assert_eq!(snap["hands"]["white"], serde_json::json!(["elephant"]));
    let back = Game::restore(g.variant().clone(), &snap).unwrap();
    assert_eq!(back.fen(), g.fen());
    assert_eq!(back.hash(), g.hash());
}

#[test]
fn no_gating_once_the_piece_has_moved() {
    let mut g = start();
    for m in ["g1-f3", "g8-f6", "f3-g1", "f6-g8"] {
        g.play(m).unwrap();
    }
    // The knights are home again, but their first moves are spent: no gate on g1 or g8.
    assert_eq!(legal_from(&g, "g1"), sorted(&["g1-f3", "g1-h3"]));
    assert_eq!(g.fen(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[EHeh] w KQABCDEFHkqabcdefh - 4 3");
    // The same board with the gates open is another position.
    assert_ne!(g.hash(), start().hash());
    let e = g.play("g1-f3/H").unwrap_err().to_string();
    assert!(e.contains("illegal"), "{e}");
}

#[test]
fn gating_on_castling_uses_the_kings_square_or_the_rooks() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R[EHeh] w KQkq - 0 1";
    let g = seirawan(fen);
    // K and Q open the gates of the king's and the rooks' squares.
    assert_eq!(g.fen(), "r3k2r/8/8/8/8/8/8/R3K2R[EHeh] w KQAEHkqaeh - 0 1");
    // Rook a1: 3 + 7 squares, rook h1: 2 + 7, king: 5; each plain or with E or H:
    // (10 + 9 + 5) × 3 = 72. Each castling: plain, E or H on e1, E or H on the rook's
    // square: 5, twice. 72 + 10 = 82.
    assert_eq!(g.perft(1), 82);
    let castles: Vec<String> = legal_from(&g, "e1-g1");
    assert_eq!(castles, sorted(&["e1-g1", "e1-g1/E", "e1-g1/H", "e1-g1/Eh1", "e1-g1/Hh1"]));

    let mut rook = seirawan(fen);
    rook.play("e1-g1/Hh1").unwrap();
    // King g1, rook f1, hawk h1; white keeps only a1's gate and holds the elephant.
    assert_eq!(rook.fen(), "r3k2r/8/8/8/8/8/8/R4RKH[Eeh] b Akqaeh - 1 1");

    let mut king = seirawan(fen);
    king.play("O-O/E").unwrap();
    assert_eq!(king.fen(), "r3k2r/8/8/8/8/8/8/R3ERK1[Heh] b Akqaeh - 1 1");
}

#[test]
fn moves_are_written_as_fsf_writes_them() {
    let g = seirawan("r3k2r/8/8/8/8/8/8/R3K2R[EHeh] w KQkq - 0 1");
    let v = g.variant().clone();
    let rook_gate = g.parse_action("e1-g1/Hh1").unwrap();
    let king_gate = g.parse_action("e1-g1/H").unwrap();
    let rook_move = g.parse_action("h1-g1/E").unwrap();
    // Long algebraic (UCI): the kind's letter in lower case; a castling that gates on the
    // rook's square written from the rook's square to the king's.
    assert_eq!(varia::notation::lan::format(&v, &rook_gate), "h1e1h");
    assert_eq!(varia::notation::lan::format(&v, &king_gate), "e1g1h");
    assert_eq!(varia::notation::lan::format(&v, &rook_move), "h1g1e");
    // SAN: `/X`, with the rook's square when it gates there.
    assert_eq!(g.san(&rook_gate), "O-O/Hh1");
    assert_eq!(g.san(&king_gate), "O-O/H");
    assert_eq!(g.san(&rook_move), "Rg1/E");
    assert_eq!(g.read_move("O-O/Hh1").unwrap().0, rook_gate);
    assert_eq!(g.read_move("Rg1/E").unwrap().0, rook_move);
    assert_eq!(g.read_move("O-O/H").unwrap().0, king_gate);
    // Long algebraic read back names the same actions.
    let legal = g.legal_actions();
    for (text, a) in [("h1e1h", rook_gate), ("e1g1h", king_gate), ("h1g1e", rook_move), ("h1g1", legal[0])] {
        let w = varia::notation::lan::parse(&v, text).unwrap();
        let found: Vec<_> = legal.iter().filter(|x| w.names(x)).collect();
        if text == "h1g1" {
            assert_eq!(found.len(), 1, "{text}");
            assert!(found[0].gate.is_none());
        } else {
            assert_eq!(found, vec![&a], "{text}");
        }
    }
    // A gate that is no square the move leaves, or a kind that does not gate.
    let e = g.parse_action("e1-g1/Hf1").unwrap_err().to_string();
    assert!(e.contains("its king's square (e1) or its rook's (h1)"), "{e}");
    let e = g.parse_action("h1-g1/Q").unwrap_err().to_string();
    assert!(e.contains("a queen does not enter by gating"), "{e}");
}

#[test]
fn an_empty_hand_closes_the_sides_gates() {
    let mut g = start();
    for m in ["g1-f3/H", "g8-f6", "b1-c3/E"] {
        g.play(m).unwrap();
    }
    // White holds nothing more: its gates are gone (its castling rights stay).
    assert_eq!(g.fen(), "rnbqkb1r/pppppppp/5n2/8/8/2N2N2/PPPPPPPP/REBQKBHR[eh] b KQkqabcdefh - 3 2");
}

#[test]
fn the_piece_entering_does_not_make_a_move_legal() {
    // The bishop on d1 is pinned by the rook on a1: gating a hawk on d1 behind it would
    // close the line, but the move is judged without it (as FSF does): no bishop move.
    let g = seirawan("4k3/8/8/8/8/8/8/r2BK2R[H] w KD - 0 1");
    assert_eq!(legal_from(&g, "d1"), Vec::<String>::new());
    // The king in check from h1: d1 stays attacked through e1 even with a hawk gated on
    // e1; f1 is attacked; d2, e2, f2 are safe, each plain or gating the hawk on e1. The
    // rook on a1 can neither block nor capture, and castling out of check is illegal.
    let g = seirawan("4k3/8/8/8/8/8/8/R3K2r[H] w QA - 0 1");
    assert_eq!(legal_from(&g, "e1"), sorted(&["e1-d2", "e1-d2/H", "e1-e2", "e1-e2/H", "e1-f2", "e1-f2/H"]));
    assert_eq!(g.perft(1), 6);
}

#[test]
fn bad_gates_are_refused_with_a_reason() {
    let e = fen_error("4k3/8/8/8/8/8/8/4K3[H] w C - 0 1");
    assert!(e.contains("`C`: no white piece stands on a gating square of file c"), "{e}");
    let e = fen_error("4k3/8/8/8/8/8/8/4K3[H] w 1 - 0 1");
    assert!(e.contains("nor a file letter"), "{e}");
    // The TOML: an unknown region, a kind the hand does not hold.
    let text = "[board]\nfiles = 4\nranks = 4\n[setup]\nfen = \"k3/4/4/3K[] w - - 0 1\"\n\
                [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{ leap = \"all\" }]\n\
                [pieces.man]\nletter = \"M\"\nmoves = [{ leap = \"all\" }]\n\
                [reserve]\nholds = [\"man\"]\ndrop = \"none\"\ncaptured = \"none\"\n\
                gating = { region = \"nowhere\", kinds = [\"king\"] }\n";
    let e = match Variant::from_toml(text, "t.toml") {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    assert!(e.contains("gating.region: unknown region `nowhere`"), "{e}");
    assert!(e.contains("gating.kinds: `king` is not a kind the hand holds"), "{e}");
}

#[test]
fn a_game_of_gating_moves_replays_and_undoes() {
    let mut g = start();
    let before = (g.fen(), g.hash());
    for m in ["e2-e4", "e7-e5", "g1-f3", "b8-c6/H", "f1-c4", "g8-f6/E", "O-O/Hh1"] {
        g.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    // White: king g1, rook f1, hawk h1, the elephant still in hand; a1 to d1 keep their
    // gates. Black gated both pieces: its hand is empty and its gates closed; its castling
    // rights stay (king and rooks unmoved).
    assert_eq!(g.fen(), "rhbqkber/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RKH[E] b ABCDkq - 5 4");
    g.undo(7);
    assert_eq!((g.fen(), g.hash()), before);
}

#[test]
fn gating_with_a_free_castling_is_refused_at_load() {
    // Chess960 castling (`free = true`) with gating: refused, naming the file, the line and
    // column of `free`, and the reason; the same variant with fixed castling squares loads.
    let text = |free: &str| {
        format!(
            "[board]\nfiles = 8\nranks = 8\n[setup]\nfen = \"r3k2r/8/8/8/8/8/8/R3K2R[Hh] w KAka - 0 1\"\n\
             [regions]\nback_rank = {{ ranks = [1], relative = true }}\n\
             [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{{ leap = \"all\" }}]\n\
             [pieces.rook]\nletter = \"R\"\nmoves = [{{ slide = \"orthogonal\" }}]\n\
             [pieces.hawk]\nletter = \"H\"\nmoves = [{{ slide = \"diagonal\" }}, {{ leap = \"knight\" }}]\n\
             [reserve]\nholds = [\"hawk\"]\ndrop = \"none\"\ncaptured = \"none\"\ngating = {{ region = \"back_rank\" }}\n\
             [[castling]]\nright = \"K\"\nking = \"e1\"\nrook = \"h1\"\nking_to = \"g1\"\nrook_to = \"f1\"\n{free}"
        )
    };
    let e = match Variant::from_toml(&text("free = true\n"), "t.toml") {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    };
    // `free = true` is line 29 of the text; its value starts at column 8.
    assert!(
        e.contains(
            "t.toml:29:8: a free castling (`free = true`, Chess960) cannot be combined with `[reserve] gating` yet"
        ),
        "{e}"
    );
    let v = Variant::from_toml(&text(""), "t.toml").unwrap();
    // White: the king's 5 steps, each also gating the hawk on e1 (10); O-O plain, gating
    // on e1 or on h1 (3); the a1 rook's 10 moves and the h1 rook's 9, each also gating (38).
    assert_eq!(Game::new(v).perft(1), 51);
}
