//! Parse, don't trust: a position is built only from input that agrees with itself (FEN,
//! JSON snapshots, moves), never with a panic; what a game writes reads back to the same
//! game. Expected values are worked out by hand from the rules.

use std::sync::Arc;

use serde_json::{Value, json};
use varia::rng::Rng;
use varia::{FenError, Game, RuleError, Variant};

fn load(name: &str) -> Arc<Variant> {
    Variant::load(name).unwrap_or_else(|e| panic!("{e}"))
}

fn fen_error(v: &Arc<Variant>, fen: &str) -> String {
    match Game::from_fen(v.clone(), fen) {
        Ok(g) => panic!("`{fen}` was accepted as {}", g.fen()),
        Err(e) => e.to_string(),
    }
}

fn restore_error(v: &Arc<Variant>, snapshot: &Value) -> String {
    match Game::restore(v.clone(), snapshot) {
        Ok(g) => panic!("the snapshot was accepted as {}", g.fen()),
        Err(e) => e.to_string(),
    }
}

/// What a game writes reads back: its FEN to the same position, its snapshot (with and
/// without the history) to the same game.
fn reads_back(g: &Game, with_snapshot: bool) {
    let v = g.variant().clone();
    let again = Game::from_fen(v.clone(), &g.fen()).unwrap_or_else(|e| panic!("{}: {e}", g.fen()));
    assert_eq!(again.fen(), g.fen());
    assert_eq!(again.hash(), g.hash(), "{}", g.fen());
    if with_snapshot {
        let snap = g.snapshot();
        let back = Game::restore(v.clone(), &snap).unwrap_or_else(|e| panic!("{}: {e}", g.fen()));
        assert_eq!(back.snapshot(), snap);
        let mut bare = snap.clone();
        bare.as_object_mut().unwrap().remove("history");
        // Without the moves, an outcome they decided (repetition) cannot be rebuilt.
        bare.as_object_mut().unwrap().remove("outcome");
        let back = Game::restore(v, &bare).unwrap_or_else(|e| panic!("{} without history: {e}", g.fen()));
        assert_eq!((back.fen(), back.hash()), (g.fen(), g.hash()));
    }
}

#[test]
fn every_position_of_random_games_reads_back() {
    for name in ["standard", "decachess", "chessception"] {
        let v = load(name);
        for seed in 1..=4u64 {
            let mut rng = Rng::new(seed);
            let mut g = Game::with_seed(v.clone(), seed);
            reads_back(&g, true);
            while g.ply() < 150 && g.outcome().is_none() {
                let legal = g.legal_actions();
                let a = legal[rng.below(legal.len() as u64) as usize];
                g.apply(a).unwrap();
                reads_back(&g, g.ply() % 10 == 0);
            }
            reads_back(&g, true);
        }
    }
}

/// The fixtures reach the rarer states on purpose (frozen and waiting pieces, graveyards,
/// hit points, spent stacks, guards, en passant over two squares): every position of every
/// fixture that plays moves reads back.
#[test]
fn every_position_of_the_fixtures_reads_back() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut positions = 0;
    for name in ["standard", "decachess", "chessception"] {
        let v = load(name);
        let mut files: Vec<_> = std::fs::read_dir(root.join(name)).unwrap().flatten().map(|e| e.path()).collect();
        files.sort();
        for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
            let t: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
            if t.contains_key("set") {
                continue;
            }
            let mut g = match t.get("fen").and_then(|f| f.as_str()) {
                Some(f) => Game::from_fen(v.clone(), f).unwrap(),
                None => Game::new(v.clone()),
            };
            reads_back(&g, true);
            for m in t.get("moves").and_then(|m| m.as_array()).into_iter().flatten() {
                g.play(m.as_str().unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                reads_back(&g, true);
                positions += 1;
            }
        }
    }
    assert!(positions > 100, "only {positions} positions");
}

#[test]
fn text_is_read_as_characters() {
    let v = load("standard");
    let mut g = Game::new(v.clone());
    for text in ["é", "é4-e5", "e2-é4", "e2-e4=é", "e2-e4@é", "e7-e8+é", "€1", "e\u{301}2-e4", "\u{0}"] {
        match g.play(text) {
            Err(RuleError::Notation(_)) => {}
            other => panic!("{text}: {other:?}"),
        }
    }
    assert_eq!(g.ply(), 0);
    assert!(matches!(varia::notation::fen::parse(&v, "é/8/8/8/8/8/8/8"), Err(FenError::Board(_))));
}

#[test]
fn a_fen_without_its_board_field_is_refused() {
    let v = load("standard");
    let e = fen_error(&v, "a=b");
    assert!(e.contains("a FEN starts with the board"), "{e}");
    assert!(fen_error(&v, "graveyard=Q").contains("starts with the board"));
}

#[test]
fn empty_counts_too_large_for_any_board_are_refused_before_they_overflow() {
    let v = load("standard");
    let e = fen_error(&v, "1n18446744073709551615Q6/8/8/8/8/8/8/K6k w - - 0 1");
    assert!(e.contains("rank 8: an empty count of more than 16 squares"), "{e}");
    let e = fen_error(&v, "99999999999999999999999/8/8/8/8/8/8/K6k w - - 0 1");
    assert!(e.contains("rank 8"), "{e}");
    // Up to the widest board the count is read, and the rank's width is what is wrong.
    assert!(fen_error(&v, "16/8/8/8/8/8/8/K6k w - - 0 1").contains("rank 8 describes 16 files; the board has 8"));
}

#[test]
fn clocks_are_whole_numbers_that_never_wrap() {
    let v = load("standard");
    let e = fen_error(&v, "4k3/8/8/8/8/8/8/4K3 w - - 4294967296 1");
    assert!(e.contains("`4294967296` is not a whole number from 0 to 4294967295"), "{e}");
    assert!(fen_error(&v, "4k3/8/8/8/8/8/8/4K3 w - - -1 1").contains("halfmove"));
    assert!(fen_error(&v, "4k3/8/8/8/8/8/8/4K3 w - - +1 1").contains("halfmove"));
    // The largest clocks stay the largest: counting through moves does not wrap them.
    // Black king e8: d8, f8, d7, e7, f7; then white king e1: d1, f1, d2, f2, and pawn e2:
    // e3, e4 (the kings are far apart): 5 × 6.
    let g = Game::from_fen(v, "4k3/8/8/8/8/8/4P3/4K3 b - - 4294967295 4294967295").unwrap();
    assert_eq!(g.perft(1), 5);
    assert_eq!(g.perft(2), 30);
}

#[test]
fn frozen_waiting_and_graveyard_fields_must_fit_the_board_and_the_rules() {
    let dc = load("decachess");
    // From fixtures/decachess/dc13: white pawns h10 (frozen) and b9, black rook e8.
    let base = "7P2/1P8/4r5/9k/10/4N5/10/10/10/K9 b - - 0 1";
    assert!(Game::from_fen(dc.clone(), &format!("{base} frozen=h10")).is_ok());
    assert!(fen_error(&dc, &format!("{base} frozen=h10,h10")).contains("frozen field: h10 is listed twice"));
    assert!(fen_error(&dc, &format!("{base} frozen=b9")).contains("outside its promotion zone `last_rank`"));
    assert!(fen_error(&dc, &format!("{base} frozen=e8")).contains("the black rook on e8 cannot be frozen"));
    assert!(fen_error(&dc, &format!("{base} frozen=a10")).contains("a10 is empty"));
    assert!(fen_error(&dc, &format!("{base} frozen=h10 waiting=h10")).contains("is frozen; a piece waits only"));
    assert!(fen_error(&dc, &format!("{base} waiting=b9,b9")).contains("waiting field: b9 is listed twice"));
    assert!(fen_error(&dc, &format!("{base} frozen=h10 frozen=h10")).contains("frozen field: given twice"));
    // A graveyard holds at most 255 of a kind, and says so instead of wrapping round.
    let most = format!("{base} graveyard={}", "Q".repeat(255));
    let g = Game::from_fen(dc.clone(), &most).unwrap();
    assert_eq!(g.setup().graveyard[0][dc.kind_named("queen").unwrap().0 as usize], 255);
    assert_eq!(g.fen(), most);
    let e = fen_error(&dc, &format!("{base} graveyard={}", "Q".repeat(257)));
    assert!(e.contains("more than 255 of a kind (`Q`) in one graveyard"), "{e}");

    // Chess has no freezing, no waiting and no graveyard.
    let chess = load("standard");
    let k = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    assert!(fen_error(&chess, &format!("{k} frozen=e1")).contains("the white king on e1 cannot be frozen"));
    assert!(fen_error(&chess, &format!("{k} waiting=e1")).contains("no piece ever waits in this variant"));
    assert!(fen_error(&chess, &format!("{k} graveyard=Q")).contains("this variant keeps no graveyard"));
}

#[test]
fn an_en_passant_square_must_be_one_the_last_move_skipped() {
    let chess = load("standard");
    // The e-pawn on e4 came from e2 over e3: fine.
    let g = Game::from_fen(chess.clone(), "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1").unwrap();
    assert!(g.legal_actions().iter().any(|a| g.format(a) == "d4-e3"));
    for (fen, why) in [
        // e2 is occupied: the pawn cannot have come from there.
        ("4k3/8/8/8/3pP3/8/4N3/4K3 b - e3 0 1", "no white piece could have skipped e3"),
        // A knight never skips.
        ("4k3/8/8/8/3pN3/8/8/4K3 b - e3 0 1", "no white piece could have skipped e3"),
        // Nothing but the kings: the square names no victim at all.
        ("4k3/8/8/8/8/8/8/4K3 b - e3 0 1", "no white piece could have skipped e3"),
        // A pawn two squares away skips one square, not e3 and e4 from e2 to e5.
        ("4k3/8/8/4P3/8/8/8/4K3 b - e3,e4 0 1", "no white piece could have skipped e3 and e4"),
        ("4k3/8/8/8/3pP3/8/8/4K3 b - e3,e3 0 1", "e3 is listed twice"),
    ] {
        let e = fen_error(&chess, fen);
        assert!(e.contains(why), "{fen}: {e}");
    }
    // Decachess pawns step three squares from their start: e2-e5 skips e3 and e4, and a
    // pawn on e6 cannot have skipped e4 and e5 (it would have started on e3).
    let dc = load("decachess");
    assert!(Game::from_fen(dc.clone(), "4k5/10/10/10/10/4P5/10/10/10/4K5 b - e3,e4 0 1").is_ok());
    assert!(Game::from_fen(dc.clone(), "4k5/10/10/10/10/4P5/10/10/10/4K5 b - e4 0 1").is_ok());
    let e = fen_error(&dc, "4k5/10/10/10/4P5/10/10/10/10/4K5 b - e4,e5 0 1");
    assert!(e.contains("no white piece could have skipped e4 and e5"), "{e}");
}

/// A standard game after 1. e4 a6 2. e5 d5: black's pawn skipped d6, so white may take
/// it en passant (e5xd6, removing d5).
fn en_passant_game() -> (Arc<Variant>, Game) {
    let v = load("standard");
    let mut g = Game::new(v.clone());
    for m in ["e2-e4", "a7-a6", "e4-e5", "d7-d5"] {
        g.play(m).unwrap();
    }
    (v, g)
}

#[test]
fn a_snapshot_s_en_passant_victim_must_be_the_piece_that_skipped() {
    let (v, g) = en_passant_game();
    let good = g.snapshot();
    assert_eq!((good["en_passant"].clone(), good["en_passant_victim"].clone()), (json!(["d6"]), json!("d5")));
    // The case: the victim set to the black king's square (without the `fen`,
    // which no longer agrees, nothing else gave it away).
    for history in [true, false] {
        let mut s = good.clone();
        s["en_passant_victim"] = json!("e8");
        s.as_object_mut().unwrap().remove("fen");
        if !history {
            s.as_object_mut().unwrap().remove("history");
        }
        let e = restore_error(&v, &s);
        assert!(e.contains("field `en_passant_victim`: the piece on e8 could not have skipped d6"), "{e}");
    }
    let mut s = good.clone();
    s.as_object_mut().unwrap().remove("history");
    s["en_passant"] = json!([]);
    s.as_object_mut().unwrap().remove("fen");
    assert!(restore_error(&v, &s).contains("names a piece to take en passant, but `en_passant` lists no square"));
}

#[test]
fn snapshot_fields_must_agree_with_the_replayed_history() {
    let (v, g) = en_passant_game();
    let good = g.snapshot();
    let mut s = good.clone();
    s["ply"] = json!(7);
    let e = restore_error(&v, &s);
    assert_eq!(e, "field `ply` disagrees with the replayed history: it says 7, but it is 4");
    // A field alone, without the pieces, is checked too.
    let mut s = good.clone();
    for k in ["pieces", "fen"] {
        s.as_object_mut().unwrap().remove(k);
    }
    s["to_move"] = json!("black");
    assert!(restore_error(&v, &s).contains("field `to_move` disagrees with the replayed history"));
    let mut s = good.clone();
    s["in_check"] = json!(true);
    assert!(restore_error(&v, &s).contains("field `in_check` disagrees"));
    let mut s = good.clone();
    s["events"] = json!([]);
    assert!(restore_error(&v, &s).contains("field `events` disagrees"));
    let mut s = good.clone();
    s.as_object_mut().unwrap().remove("pieces");
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    s["fen"] = json!(start);
    assert_eq!(
        restore_error(&v, &s),
        format!("field `fen` disagrees with the replayed history: it says {start}, but it is {}", g.fen())
    );
    // A lone field describes no game.
    let e = restore_error(&v, &json!({"variant": "standard", "to_move": "white"}));
    assert!(e.contains("a snapshot needs `history`, `pieces` or `fen`"), "{e}");
    // Unknown fields are refused, not skipped.
    let mut s = good.clone();
    s["to_mvoe"] = json!("white");
    assert!(restore_error(&v, &s).contains("field `to_mvoe`: not a snapshot field (known: "));
    let mut s = good.clone();
    s["pieces"][0]["colour"] = json!("white");
    assert!(restore_error(&v, &s).contains("field `pieces[0].colour`: not a piece field"));
    let mut s = good.clone();
    s["history"]["undo"] = json!([]);
    assert!(restore_error(&v, &s).contains("field `history.undo`: not a history field"));
}

#[test]
fn a_claimed_outcome_must_be_the_game_s_even_when_it_is_none() {
    let v = load("standard");
    let mut g = Game::new(v.clone());
    for m in ["f2-f3", "e7-e5", "g2-g4", "d8-h4"] {
        g.play(m).unwrap();
    }
    let mut s = g.snapshot();
    s["outcome"] = Value::Null;
    let e = restore_error(&v, &s);
    assert!(
        e.contains(
            "field `outcome` disagrees with the replayed history: it says no outcome, but it is black wins by checkmate"
        ),
        "{e}"
    );
    // A repetition needs the moves that repeated.
    let mut g = Game::new(v.clone());
    for m in "g1-f3 g8-f6 f3-g1 f6-g8 g1-f3 g8-f6 f3-g1 f6-g8".split(' ') {
        g.play(m).unwrap();
    }
    let mut s = g.snapshot();
    s.as_object_mut().unwrap().remove("history");
    assert!(restore_error(&v, &s).contains("an outcome that the moves played decide needs `history`"));
}

#[test]
fn snapshot_numbers_are_range_checked_not_truncated() {
    let (v, g) = en_passant_game();
    let mut s = g.snapshot();
    s.as_object_mut().unwrap().remove("history");
    s.as_object_mut().unwrap().remove("fen");
    s["halfmove_clock"] = json!(4294967296u64);
    assert!(restore_error(&v, &s).contains("field `halfmove_clock`: expected a whole number from 0 to 4294967295"));

    let dc = load("decachess");
    let g = Game::from_fen(dc.clone(), "7P2/1P8/4r5/9k/10/4N5/10/10/10/K9 b - - 0 1 frozen=h10").unwrap();
    let mut s = g.snapshot();
    s.as_object_mut().unwrap().remove("history");
    s.as_object_mut().unwrap().remove("fen");
    let mut dup = s.clone();
    dup["frozen"] = json!(["h10", "h10"]);
    assert!(restore_error(&dc, &dup).contains("h10 is listed twice"));
    let mut many = s.clone();
    many["graveyard"] = json!({"white": vec!["queen"; 256], "black": []});
    assert!(restore_error(&dc, &many).contains("more than 255 queens in white's graveyard"));

    let cc = load("chessception");
    let g = Game::new(cc.clone());
    let mut s = g.snapshot();
    s.as_object_mut().unwrap().remove("history");
    s.as_object_mut().unwrap().remove("fen");
    let mut over = s.clone();
    over["pieces"][0]["hp"] = json!(5); // the rook on a1 has at most 4
    assert!(restore_error(&cc, &over).contains("a1: 5 HP is not within 1 to 4, the rook's maximum"));
    let mut max = s.clone();
    max["pieces"][0]["max_hp"] = json!(9);
    assert!(restore_error(&cc, &max).contains("field `pieces[0].max_hp` disagrees with the position it describes"));
}

#[test]
fn a_playthrough_is_bounded() {
    let dir = std::env::temp_dir().join(format!("varia-inputs-{}-walk", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("walk.toml");
    for (plies, ok) in [(0u64, false), (100_000, true), (100_001, false), (4_000_000_000, false)] {
        let text =
            format!("description = \"x\"\nvariant = \"standard\"\nplaythrough = {{ seed = 1, plies = {plies} }}\n");
        std::fs::write(&path, text).unwrap();
        match varia::fixture::Fixture::load_as(&path, "walk.toml") {
            Ok(_) => assert!(ok, "{plies} plies loaded"),
            Err(e) => {
                assert!(!ok, "{plies}: {e}");
                assert!(e.to_string().contains("a playthrough needs `plies` from 1 to 100000"), "{e}");
            }
        }
    }
}
