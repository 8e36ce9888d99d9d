//! The `Game` API on standard chess: outcomes and draw rules, explanations of illegal
//! moves, undo, FEN and JSON snapshots. Expected values are worked out by hand.

use std::sync::Arc;

use varia::{FenError, Game, GameResult, Reason, RuleError, Side, Variant};

fn standard() -> Arc<Variant> {
    Variant::load("standard").unwrap()
}

fn play(game: &mut Game, moves: &str) {
    for m in moves.split_whitespace() {
        game.play(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
}

fn why(game: &Game, text: &str) -> String {
    game.parse_action(text).unwrap_err().to_string()
}

#[test]
fn fools_mate_is_a_checkmate_win_for_black() {
    let mut g = Game::new(standard());
    play(&mut g, "f2-f3 e7-e5 g2-g4");
    assert!(g.outcome().is_none());
    let events = g.play("d8-h4").unwrap();
    let o = g.outcome().unwrap();
    assert_eq!((o.result, o.reason), (GameResult::Win(Side::Black), Reason::Checkmate));
    assert!(matches!(events.last(), Some(varia::Event::Ended { .. })));
    assert!(g.legal_actions().is_empty());
    assert!(matches!(g.play("a2-a3"), Err(RuleError::GameOver(_))));
}

#[test]
fn stalemate_is_a_draw() {
    let g = Game::from_fen(standard(), "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
    let o = g.outcome().unwrap();
    assert_eq!((o.result, o.reason), (GameResult::Draw, Reason::Stalemate));
}

#[test]
fn fifty_move_rule_counts_plies_without_capture_or_pawn_move() {
    let fen = "7k/8/8/8/8/8/4P3/K7 w - - 99 80";
    let mut g = Game::from_fen(standard(), fen).unwrap();
    g.play("a1-b1").unwrap();
    assert_eq!(g.outcome().map(|o| o.reason), Some(Reason::NoProgress));
    // A pawn move on the 100th ply resets the count instead.
    let mut g = Game::from_fen(standard(), fen).unwrap();
    g.play("e2-e3").unwrap();
    assert_eq!(g.outcome(), None);
    assert!(g.fen().ends_with(" 0 80"), "{}", g.fen());
}

#[test]
fn checkmate_on_the_hundredth_ply_beats_the_fifty_move_rule() {
    // Back-rank mate with the clock at 99.
    let mut g = Game::from_fen(standard(), "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 70").unwrap();
    g.play("a1-a8").unwrap();
    assert_eq!(g.outcome().map(|o| o.reason), Some(Reason::Checkmate));
}

#[test]
fn threefold_repetition_draws_on_the_third_occurrence() {
    let mut g = Game::new(standard());
    play(&mut g, "g1-f3 g8-f6 f3-g1 f6-g8 g1-f3 g8-f6 f3-g1");
    assert_eq!(g.outcome(), None, "the start position has occurred twice so far");
    g.play("f6-g8").unwrap();
    assert_eq!(g.outcome().map(|o| (o.result, o.reason)), Some((GameResult::Draw, Reason::Repetition)));
}

#[test]
fn insufficient_material_by_the_variants_table() {
    let v = standard();
    // The white king takes the last black piece: king against king.
    let mut g = Game::from_fen(v.clone(), "7k/8/8/8/8/8/8/Kq6 w - - 0 1").unwrap();
    g.play("a1-b1").unwrap();
    assert_eq!(g.outcome().map(|o| o.reason), Some(Reason::InsufficientMaterial));
    // King and bishop against king.
    assert!(Game::from_fen(v.clone(), "7k/8/8/8/8/8/8/KB6 w - - 0 1").unwrap().outcome().is_some());
    // Bishops on squares of one colour (b1 and e4 are both light).
    assert!(Game::from_fen(v.clone(), "7k/8/8/8/4b3/8/8/KB6 w - - 0 1").unwrap().outcome().is_some());
    // ...but not on opposite colours (d4 is dark), and not two knights against a knight.
    assert!(Game::from_fen(v.clone(), "7k/8/8/8/3b4/8/8/KB6 w - - 0 1").unwrap().outcome().is_none());
    assert!(Game::from_fen(v, "7k/8/8/8/3n4/8/8/KNN5 w - - 0 1").unwrap().outcome().is_none());
}

#[test]
fn illegal_moves_say_why() {
    let mut g = Game::new(standard());
    assert!(why(&g, "e2-e5").contains("a pawn on e2 cannot move to e5"), "{}", why(&g, "e2-e5"));
    assert!(why(&g, "e7-e5").contains("the pawn on e7 is black's, and it is white's turn"));
    assert!(why(&g, "e3-e4").contains("there is no piece on e3"));
    assert!(why(&g, "z9-a1").contains("off the 8×8 board"), "{}", why(&g, "z9-a1"));
    assert!(why(&g, "hello").contains("is not a move"));
    // A pinned knight may not move.
    let p = Game::from_fen(standard(), "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1").unwrap();
    assert!(why(&p, "e2-c3").contains("would leave your king attacked"), "{}", why(&p, "e2-c3"));
    // Castling after the king has moved and come back.
    let mut c = Game::from_fen(standard(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
    play(&mut c, "e1-f1 e8-d8 f1-e1 d8-e8");
    assert!(why(&c, "e1-g1").contains("no longer allowed"), "{}", why(&c, "e1-g1"));
    // Case does not matter, and `x` or no dash are accepted.
    play(&mut g, "E2-E4 d7d5 e4xd5");
}

#[test]
fn illegal_moves_name_the_part_of_the_movement_that_fails() {
    let g = Game::new(standard());
    let r = |g: &Game, m: &str, reason: &str| {
        let w = why(g, m);
        assert!(w.ends_with(reason), "{m}: {w}");
    };
    r(&g, "e2-e5", "a pawn on e2 cannot move to e5"); // no part of a pawn's movement goes 3 squares
    r(&g, "g1-e2", "a knight on g1 cannot move to e2: your own pawn stands on e2");
    r(&g, "a1-a3", "a rook on a1 cannot move to a3: the way is blocked by the white pawn on a2");
    r(&g, "e2-d3", "a pawn on e2 cannot move to d3: it goes there only to capture, and d3 is empty");
    let mut p = Game::new(standard());
    play(&mut p, "e2-e4 e7-e5 d2-d3 a7-a6");
    r(&p, "e4-e5", "it goes there only when the square is empty, and the black pawn stands on e5");
    r(&p, "d3-d5", "a pawn on d3 cannot move to d5: it moves that way only from its `pawn_start` squares");
    // Decachess's archer: moves only onto empty squares, never shoots a rook, and is
    // silenced by any adjacent enemy.
    let dc = Variant::load("decachess").unwrap();
    let a = Game::from_fen(dc.clone(), "9k/10/10/4r1r3/5n4/4A5/10/10/10/K9 w - - 0 1").unwrap();
    r(
        &a,
        "e5-f6",
        "an archer on e5 cannot move to f6: it goes there only when the square is empty, and the black knight stands on f6",
    );
    r(&a, "e5-c7", "an archer on e5 cannot move to c7: it goes there only to shoot, and c7 is empty");
    r(&a, "e5-e7", "an archer on e5 cannot move to e7: it can never shoot a rook");
    let s = Game::from_fen(dc, "9k/10/10/4p5/4qn4/4A5/10/10/10/K9 w - - 0 1").unwrap();
    r(&s, "e5-e7", "it cannot shoot while an enemy is next to it (the black queen on e6)");
}

#[test]
fn a_captured_rook_takes_its_castling_right_with_it() {
    let mut g = Game::from_fen(standard(), "r3k2r/8/8/8/8/8/6B1/R3K2R w KQkq - 0 1").unwrap();
    g.play("g2-a8").unwrap();
    assert!(g.fen().contains(" b KQk "), "{}", g.fen());
}

#[test]
fn en_passant_is_offered_for_one_reply_only() {
    let mut g = Game::new(standard());
    play(&mut g, "e2-e4 a7-a6 e4-e5 d7-d5");
    assert!(g.fen().contains(" d6 "), "{}", g.fen());
    let mut taken = g.clone();
    taken.play("e5-d6").unwrap();
    assert!(taken.piece_at(standard().geometry.parse("d5").unwrap()).is_none());
    play(&mut g, "h2-h3 h7-h6");
    assert!(why(&g, "e5-d6").contains("cannot move to d6"));
}

#[test]
fn undo_restores_positions_and_outcomes() {
    let mut g = Game::new(standard());
    let start = g.fen();
    play(&mut g, "f2-f3 e7-e5 g2-g4 d8-h4");
    assert!(g.outcome().is_some());
    assert_eq!(g.undo(1), 1);
    assert!(g.outcome().is_none());
    assert_eq!(g.undo(10), 3);
    assert_eq!(g.fen(), start);
    assert_eq!(g.ply(), 0);
}

#[test]
fn snapshots_round_trip_through_json() {
    let v = standard();
    let mut g = Game::new(v.clone());
    play(&mut g, "e2-e4 c7-c5 e4-e5 d7-d5 g1-f3");
    let text = serde_json::to_string_pretty(&g.snapshot()).unwrap();
    let back = Game::from_snapshot(v.clone(), &text).unwrap();
    assert_eq!(serde_json::to_string_pretty(&back.snapshot()).unwrap(), text);
    assert_eq!(back.ply(), 5);
    assert_eq!(back.hash(), g.hash());

    // Without history, the position fields alone describe the game.
    let mut bare = g.snapshot();
    bare.as_object_mut().unwrap().remove("history");
    let from_fields = Game::restore(v.clone(), &bare).unwrap();
    assert_eq!(from_fields.fen(), g.fen());
    // Or a FEN alone.
    let only_fen = serde_json::json!({"variant": "standard", "fen": g.fen()});
    assert_eq!(Game::restore(v, &only_fen).unwrap().fen(), g.fen());
}

#[test]
fn corrupt_snapshots_are_refused_with_the_reason() {
    let v = standard();
    let mut g = Game::new(v.clone());
    play(&mut g, "e2-e4 e7-e5");
    let good = g.snapshot();
    let err =
        |value: serde_json::Value| Game::restore(v.clone(), &value).err().map(|e| e.to_string()).unwrap_or_default();

    let e = Game::from_snapshot(v.clone(), "{\"variant\": \"standard\",\n \"ply\": }").err().unwrap().to_string();
    assert!(e.contains("line 2"), "{e}");

    let mut other = good.clone();
    other["variant"] = "shogi".into();
    assert!(err(other).contains("variant `shogi`"));

    let mut bad_move = good.clone();
    bad_move["history"]["moves"][1] = "e7-e4".into();
    assert!(err(bad_move).contains("history move 2"));

    let mut moved_piece = good.clone();
    moved_piece["pieces"][1]["square"] = "a3".into(); // the b1 knight
    assert!(err(moved_piece.clone()).contains("field `fen`: disagrees with `pieces`"));
    moved_piece.as_object_mut().unwrap().remove("fen");
    assert!(err(moved_piece).contains("disagrees with the replayed history"));

    let mut bad_kind = good;
    bad_kind.as_object_mut().unwrap().remove("history");
    bad_kind["pieces"][0]["kind"] = "dragon".into();
    assert!(err(bad_kind).contains("unknown kind `dragon`"));
}

#[test]
fn bad_fens_name_the_field_and_the_reason() {
    let v = standard();
    let e = |f: &str| Game::from_fen(v.clone(), f).err().unwrap();
    assert!(matches!(e("8/8/8 w - - 0 1"), FenError::Board(m) if m.contains("expected 8 ranks")));
    assert!(matches!(e("8/8/8/8/8/8/8/7X w - - 0 1"), FenError::Board(m) if m.contains("`X` is not a piece letter")));
    assert!(matches!(e("8/8/8/8/8/8/8/9 w - - 0 1"), FenError::Board(m) if m.contains("9 files")));
    assert!(matches!(e("4k3/8/8/8/8/8/8/4K3 x - - 0 1"), FenError::Side(_)));
    assert!(matches!(e("4k3/8/8/8/8/8/8/4K3 w Z - 0 1"), FenError::Castling(m) if m.contains("`Z`")));
    assert!(matches!(e("4k3/8/8/8/8/8/8/4K3 w K - 0 1"), FenError::Castling(m) if m.contains("h1")));
    assert!(matches!(e("4k3/8/8/8/4P3/8/8/4K3 b - e4 0 1"), FenError::EnPassant(m) if m.contains("occupied")));
    assert!(matches!(e("4k3/8/8/8/8/8/8/4K3 w - - x 1"), FenError::Counter { field: "halfmove", .. }));
    assert!(matches!(e(""), FenError::Empty));
}

#[test]
fn positions_where_the_side_not_to_move_is_attacked_are_refused() {
    // A-DC5: a shot never takes the king. With the check rule, the only way to reach a
    // position where it could is a FEN where the side not to move is already attacked.
    let d = Variant::load("decachess").unwrap();
    let e = Game::from_fen(d.clone(), "10/10/4k5/10/4A5/10/10/10/10/K9 w - - 0 1").unwrap_err();
    assert!(matches!(&e, FenError::Position(m) if m.contains("black is not to move")), "{e}");
    // The same in chess: white to move while black's king is in check.
    let e = Game::from_fen(standard(), "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1").unwrap_err();
    assert!(matches!(e, FenError::Position(_)));
    // Without the check rule such positions are ordinary (Chessception has no check).
    assert!(Game::from_fen(Variant::load("chessception").unwrap(), "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1").is_ok());
}

#[test]
fn castling_rights_need_the_castling_pieces_themselves() {
    let d = Variant::load("decachess").unwrap();
    // A knight on j1 instead of the rook: the right K cannot be claimed.
    let e = Game::from_fen(d.clone(), "4k5/10/10/10/10/10/10/10/10/R4K3N w KQ - 0 1").unwrap_err();
    assert_eq!(e.to_string(), "castling field: `K` needs white a king on f1 and a rook on j1");
    let e = Game::from_fen(d, "4k5/10/10/10/10/10/10/10/K9/R4Q3R w KQ - 0 1").unwrap_err();
    assert!(e.to_string().contains("needs white a king on f1"), "{e}");
}

#[test]
fn combat_fields_of_a_fen_must_make_sense() {
    let c = Variant::load("chessception").unwrap();
    let e = |fen: &str| Game::from_fen(c.clone(), fen).unwrap_err().to_string();
    let k = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    assert_eq!(e(&format!("{k} hp=e8:9")), "hp field: e8: 9 HP is not within 1 to 4, the king's maximum");
    assert_eq!(e(&format!("{k} hp=e8:0")), "hp field: e8: 0 HP is not within 1 to 4, the king's maximum");
    assert!(
        e(&format!("{k} spent=e1:e8"))
            .starts_with("spent field: e1:e8: a spent mark joins a piece and a friendly knight")
    );
    assert_eq!(e(&format!("{k} spent=e5:e1")), "spent field: e5 is empty");
    assert!(Game::from_fen(c, "4k3/8/8/8/8/8/4N3/4K3 w - - 0 1 hp=e1:3 spent=e1:e2").is_ok());
    let e = Game::from_fen(standard(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1 hp=e1:1").unwrap_err().to_string();
    assert_eq!(e, "hp field: this variant has no hit points or auras (no [combat])");
}

#[test]
fn a_castling_named_by_its_click_target_is_that_castling() {
    // Chessception's queenside castling may be named by b1 (A-CC20); refused, it is
    // explained as the castling it names.
    let v = Variant::load("chessception").unwrap();
    let g = Game::from_fen(v.clone(), "r3k3/8/8/8/8/8/8/R3K2R w - - 0 1").unwrap();
    assert!(
        why(&g, "e1-b1").ends_with(
            "castling e1-c1 is no longer allowed (the king or the rook has moved, or the rook was captured)"
        ),
        "{}",
        why(&g, "e1-b1")
    );
    let mut g = Game::from_fen(v, "r3k3/8/8/8/8/8/8/R3K2R w Q - 0 1").unwrap();
    play(&mut g, "e1-b1");
    assert_eq!(g.history_text(), ["e1-c1"]);
    // Standard chess names no click target: e1-b1 is just not a king move.
    let mut s = Game::from_fen(standard(), "r3k3/8/8/8/8/8/8/R3K2R w Q - 0 1").unwrap();
    assert!(why(&s, "e1-b1").ends_with("a king on e1 cannot move to b1"), "{}", why(&s, "e1-b1"));
    play(&mut s, "e1-c1");
}
