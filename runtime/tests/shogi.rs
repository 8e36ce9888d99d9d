//! Shogi's rules as data (issue 14), on minishogi and shogi: promotion into, within and
//! out of the zone, forced where a piece would have no move, promoted pieces written
//! `+P` in FEN and reverting when captured, and the drop rules (no drop where the piece
//! would have no move, `one_per_file`, `no_drop_mate`). Expected values worked out by hand.

use varia::{Game, Variant};

fn game(v: &str, fen: &str) -> Game {
    Game::from_fen(Variant::load(v).unwrap(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// The actions from `from`, as the game writes them, sorted.
fn from(g: &Game, from: &str) -> Vec<String> {
    let f = g.variant().geometry.parse(from).unwrap();
    let mut out: Vec<String> =
        g.legal_actions().iter().filter(|a| a.from == f && !a.is_drop()).map(|a| g.format(a)).collect();
    out.sort();
    out
}

fn drops(g: &Game) -> Vec<String> {
    let mut out: Vec<String> = g.legal_actions().iter().filter(|a| a.is_drop()).map(|a| g.format(a)).collect();
    out.sort();
    out
}

fn list(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.split_whitespace().map(String::from).collect();
    v.sort();
    v
}

fn refusal(g: &Game, text: &str) -> String {
    match g.parse_action(text) {
        Ok(a) => panic!("{text} was accepted as {a:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn minishogi_starts_with_fourteen_moves() {
    // King a1: b2 (a2 holds its pawn, b1 its gold). Gold b1: b2, c2. Silver c1: b2, c2,
    // d2. Bishop d1: c2, b3, a4, e2. Rook e1: e2, e3 and the pawn on e4. Pawn a2-a3.
    // 1 + 2 + 3 + 4 + 3 + 1 = 14, as FSF lists them (go perft 1).
    let g = game("minishogi", "rbsgk/4p/5/P4/KGSBR[] w - - 0 1");
    assert_eq!(g.perft(1), 14);
    assert_eq!(from(&g, "e1"), list("e1-e2 e1-e3 e1-e4"));
}

#[test]
fn a_piece_may_promote_leaving_the_zone_and_must_where_it_would_have_no_move() {
    // A silver on c5 (in the far rank) steps back out of it: each move may promote
    // (FSF: c5b4, c5d4, c5b4+, c5d4+).
    let g = game("minishogi", "2S1k/5/5/5/K4[] w - - 0 1");
    assert_eq!(from(&g, "c5"), list("c5-b4 c5-b4=V c5-d4 c5-d4=V"));
    // A pawn reaching the far rank must promote (it would have no move).
    let g = game("minishogi", "4k/P4/5/5/K4[] w - - 0 1");
    assert_eq!(from(&g, "a4"), list("a4-a5=T"));
    // Shogi: a lance onto the last rank and a knight onto the last two must promote; a
    // knight landing on rank 7 may stay.
    let g = game("shogi", "4k4/L8/9/2N6/9/9/9/9/4K4[] w - - 0 1");
    assert_eq!(from(&g, "a8"), list("a8-a9=Y"));
    assert_eq!(from(&g, "c6"), list("c6-b8=M c6-d8=M"));
    let g = game("shogi", "4k4/9/9/9/2N6/9/9/9/4K4[] w - - 0 1");
    assert_eq!(from(&g, "c5"), list("c5-b7 c5-b7=M c5-d7 c5-d7=M"));
}

#[test]
fn a_promoted_piece_is_written_plus_and_goes_to_the_hand_unpromoted() {
    // The pawn b4 must promote on b5; black's gold on c5 takes the tokin, which goes to
    // black's hand as a pawn.
    let mut g = game("minishogi", "2g1k/1P3/5/5/K4[] w - - 0 1");
    assert_eq!(from(&g, "b4"), list("b4-b5=T"));
    g.play("b4-b5=T").unwrap();
    assert_eq!(g.fen(), "1+Pg1k/5/5/5/K4[] b - - 1 1");
    g.play("c5-b5").unwrap();
    assert_eq!(g.fen(), "1g2k/5/5/5/K4[p] w - - 0 2");
    // `+P` reads back, either side; an unknown `+X` is refused with the known ones.
    let g = game("minishogi", "4k/1+P3/5/1+r3/K4[Gs] w - - 0 1");
    assert_eq!(g.fen(), "4k/1+P3/5/1+r3/K4[Gs] w - - 0 1");
    let e = Game::from_fen(Variant::load("minishogi").unwrap(), "4k/1+G3/5/5/K4[] w - - 0 1").unwrap_err();
    assert!(e.to_string().contains("`+G` is not a piece of this variant (known: +P +S +B +R)"), "{e}");
    let e = Game::from_fen(Variant::load("minishogi").unwrap(), "4k/1+3/5/5/K4[] w - - 0 1").unwrap_err();
    assert!(e.to_string().contains("`+` is followed by a piece letter"), "{e}");
}

#[test]
fn nifu_no_second_pawn_of_a_side_dropped_on_a_file() {
    // White: king a1, pawn c2, a pawn in hand; black: king e5, pawn d3. Pawn drops go on
    // ranks 1–4: 20 squares less a1, c2, d3 = 17, less the c-file's c1, c3, c4 = 14 (the
    // d-file holds only black's pawn). King a2, b1, b2; pawn c2-c3: 18 in all.
    let g = game("minishogi", "4k/5/3p1/2P2/K4[P] w - - 0 1");
    assert_eq!(drops(&g), list("P@a2 P@a3 P@a4 P@b1 P@b2 P@b3 P@b4 P@d1 P@d2 P@d4 P@e1 P@e2 P@e3 P@e4"));
    assert_eq!(g.perft(1), 18);
    let e = refusal(&g, "P@c3");
    assert!(e.contains("white has a pawn on the c-file already"), "{e}");
    // A tokin is not a pawn: with the c2 pawn promoted, the c-file takes a drop.
    let g = game("minishogi", "4k/5/3p1/2+P2/K4[P] w - - 0 1");
    assert!(g.parse_action("P@c3").is_ok());
}

/// Minishogi with `drop_mate` as given.
fn minishogi_with(drop_mate: &str, fen: &str) -> Game {
    let set = [format!("reserve.drop_mate={drop_mate}").parse().unwrap()];
    Game::from_fen(Variant::load_with("minishogi", &set).unwrap(), fen).unwrap()
}

// Black's king e5, black's pawn a4 (free to step); white's golds c4 (covers d5 and d4)
// and e3 (guards e4), a pawn in hand. P@e4 checks, and the king has no escape: d5 and d4
// are covered, e4 is guarded, and the pawn a4 cannot take it.
const UCHIFUZUME: &str = "4k/p1G2/4G/5/K4[P] w - - 0 1";

#[test]
fn uchifuzume_refused_no_pawn_drop_gives_mate() {
    // drop_mate = "illegal": the mating drop is not listed. Pawn drops: ranks 1–4 less a1,
    // c4, e3, a4 = 16 squares, less e4 = 15. King a2, b1, b2; gold c4: b4, b5, c3, c5, d4,
    // d5; gold e3: d3, d4, e2, e4. 15 + 3 + 6 + 4 = 28.
    let g = minishogi_with("illegal", UCHIFUZUME);
    assert!(!drops(&g).contains(&"P@e4".to_string()));
    assert_eq!(drops(&g).len(), 15);
    assert_eq!(g.perft(1), 28);
    let e = refusal(&g, "P@e4");
    assert!(e.contains("a pawn dropped on e4 would give checkmate, which it may not (`no_drop_mate`)"), "{e}");
    // A gold may mate by a drop.
    let mut g = minishogi_with("illegal", "4k/p1G2/4G/5/K4[G] w - - 0 1");
    g.play("G@e4").unwrap();
    assert_eq!(
        g.outcome().map(|o| (o.winner(), o.reason.name().to_string())),
        Some((Some(varia::Side::White), "checkmate".into()))
    );
    // A pawn drop that checks without mating is allowed: with no gold on c4, d5 is open.
    let g = minishogi_with("illegal", "4k/p4/4G/5/K4[P] w - - 0 1");
    assert!(drops(&g).contains(&"P@e4".to_string()));
}

#[test]
fn uchifuzume_as_fairy_stockfish_plays_it_the_mating_pawn_drop_loses() {
    // Shipped minishogi (drop_mate = "loses", FSF's reading): P@e4 is listed (28 + 1 = 29
    // moves, FSF's perft 1 here too), and after it black, mated, wins (FSF scores P@e4
    // `mate -1` for white: `go depth 3 searchmoves P@e4`).
    let mut g = game("minishogi", UCHIFUZUME);
    assert_eq!(g.perft(1), 29);
    g.play("P@e4").unwrap();
    let o = g.outcome().expect("the game is over");
    assert_eq!((o.winner(), o.reason.name()), (Some(varia::Side::Black), "drop_mate"));
    // A mate by a gold drop is an ordinary checkmate.
    let mut g = game("minishogi", "4k/p1G2/4G/5/K4[G] w - - 0 1");
    g.play("G@e4").unwrap();
    let o = g.outcome().expect("the game is over");
    assert_eq!((o.winner(), o.reason.name()), (Some(varia::Side::White), "checkmate"));
}

#[test]
fn no_drop_where_the_piece_would_have_no_move() {
    // Shogi: a knight is never dropped on the last two ranks, a pawn or lance on the last.
    let g = game("shogi", "4k4/9/9/9/9/9/9/9/4K4[NLP] w - - 0 1");
    let e = refusal(&g, "N@c8");
    assert!(e.contains("a knight may not be dropped on c8: it drops only on `drops_but_last_two`"), "{e}");
    assert!(g.parse_action("N@c7").is_ok());
    assert!(refusal(&g, "L@c9").contains("it drops only on `drops_but_last`"));
    assert!(refusal(&g, "P@a9").contains("it drops only on `drops_but_last`"));
    // 79 empty squares. Knights: not on ranks 8–9 (17 of them empty, e9 holds the black
    // king): 62. Lances and pawns: not on rank 9 (8 empty): 71 each. P@e8 checks, but the
    // king takes it: no mate.
    assert_eq!(drops(&g).len(), 62 + 71 + 71);
}

#[test]
fn fairy_stockfishs_four_field_fens_are_read_where_there_is_no_castling_or_en_passant() {
    // FSF's start strings leave out the castling and en-passant fields: `board side
    // halfmove fullmove`. FSF 11.1's `d` after `position fen …[-] b 5 12` shows
    // `…[] b - - 5 12`, the FEN varia writes.
    let g = game("minishogi", "rbsgk/4p/5/P4/KGSBR[-] w 0 1");
    assert_eq!(g.fen(), "rbsgk/4p/5/P4/KGSBR[] w - - 0 1");
    assert_eq!(g.fen(), Game::new(Variant::load("minishogi").unwrap()).fen());
    let g = game("shogi", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[-] b 5 12");
    assert_eq!(g.fen(), "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL[] b - - 5 12");
    // The rule is general: xiangqi has no castling and no en passant either.
    let g = game("xiangqi", "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w 0 1");
    assert_eq!(g.fen(), Game::new(Variant::load("xiangqi").unwrap()).fen());
    // Where castling or en passant exist, a number where castling belongs is refused,
    // saying why; so is a three-field `board side number`.
    let chess = Variant::load("standard").unwrap();
    let e = Game::from_fen(chess.clone(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0 1").unwrap_err().to_string();
    assert!(
        e.contains(
            "castling field: `0` is not castling rights: a FEN of four fields (board, side, halfmove, fullmove, as \
             Fairy-Stockfish writes shogi's) is read only for variants without castling and en passant, and"
        ) && e.contains(
            "standard has castling and en passant; write the castling and en-passant fields (`- -` for none)"
        ),
        "{e}"
    );
    assert!(Game::from_fen(chess, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w 0").is_err());
    let e = Game::from_fen(Variant::load("minishogi").unwrap(), "rbsgk/4p/5/P4/KGSBR[-] w 0").unwrap_err();
    assert!(e.to_string().starts_with("castling field:"), "{e}");
    // A counter that is not a number is not taken for one.
    assert!(Game::from_fen(Variant::load("minishogi").unwrap(), "rbsgk/4p/5/P4/KGSBR[-] w 0 x").is_err());
}
