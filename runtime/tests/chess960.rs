//! Chess960 as data: dealt setups (`[setup] deal`, Scharnagl's numbers worked out by
//! hand), free castling (`free = true`) with Shredder-FEN and X-FEN castling fields, SAN,
//! snapshots, and the errors of malformed entries. Perft against Fairy-Stockfish is in
//! `fsf_perft.rs` (`DEALT`, `DEALT_FENS`).

use std::collections::BTreeSet;
use std::sync::Arc;

use varia::{Game, Variant};

fn chess960() -> Arc<Variant> {
    Variant::load("chess960").unwrap()
}

/// White's first rank of a FEN, as letters with the empty squares spelt out.
fn first_rank(fen: &str) -> String {
    fen.split(['/', ' ']).nth(7).unwrap().to_string()
}

#[test]
fn setups_are_numbered_as_scharnagl_numbers_them() {
    let v = chess960();
    assert_eq!(v.deal.as_ref().unwrap().count, 960);
    // 518: light bishop 518 % 4 = 2 → f1; 129 % 4 = 1 → dark bishop c1; 32 % 6 = 2 → the
    // queen on the third free square (a b d e g h) = d1; 32 / 6 = 5 → knights on the 6th
    // pair of (a b e g h) = b, g; then R K R on a, e, h: the usual setup.
    assert_eq!(v.dealt_fen(518).unwrap(), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    // 0: light 0 → b1, dark 0 → a1, queen 0 → c1, knights 0 → d1, e1, R K R on f, g, h.
    assert_eq!(v.dealt_fen(0).unwrap(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    // 1: light 1 → d1; dark 0 → a1; queen 0 → b1; knights 0 → c1, e1; R K R f g h.
    assert_eq!(first_rank(&v.dealt_fen(1).unwrap()), "BQNBNRKR");
    // 959: light 3 → h1; 239 % 4 = 3 → g1; 59 % 6 = 5 → the last free (f1); 9 → knights
    // on d1, e1; R K R on a, b, c.
    assert_eq!(first_rank(&v.dealt_fen(959).unwrap()), "RKRNNQBB");
    let e = v.dealt_fen(960).unwrap_err();
    assert!(e.contains("setup 960 does not exist") && e.contains("0 to 959"), "{e}");
}

#[test]
fn every_setup_is_a_different_legal_chess960_rank_mirrored_for_black() {
    let v = chess960();
    let mut seen = BTreeSet::new();
    for n in 0..960 {
        let fen = v.dealt_fen(n).unwrap();
        let rank: Vec<char> = first_rank(&fen).chars().collect();
        assert_eq!(rank.len(), 8, "{fen}");
        let at = |c: char| rank.iter().enumerate().filter(|&(_, &x)| x == c).map(|(i, _)| i).collect::<Vec<_>>();
        let (b, r, k) = (at('B'), at('R'), at('K'));
        assert_eq!((b.len(), r.len(), k.len(), at('Q').len(), at('N').len()), (2, 2, 1, 1, 2), "{fen}");
        assert_ne!(b[0] % 2, b[1] % 2, "bishops on both colours: {fen}");
        assert!(r[0] < k[0] && k[0] < r[1], "the king between the rooks: {fen}");
        let black: String = fen.split('/').next().unwrap().to_string();
        assert_eq!(black, rank.iter().collect::<String>().to_lowercase(), "{fen}");
        assert!(fen.ends_with(" w KQkq - 0 1"), "{fen}");
        // The FEN reads back and plays: 20 first moves or more (castling may add some).
        let g = Game::from_fen(v.clone(), &fen).unwrap();
        assert_eq!(g.fen(), fen);
        assert!(seen.insert(fen));
    }
}

#[test]
fn shredder_and_x_fen_fields_name_the_same_rights() {
    let v = chess960();
    // Setup 0 (BBQNNRKR): H and F are the outermost rooks, so X-FEN writes K and Q.
    let x = Game::from_fen(v.clone(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1").unwrap();
    assert_eq!(x.fen(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    let k = Game::from_fen(v.clone(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1").unwrap();
    assert_eq!(x.hash(), k.hash());
    // Errors, each naming the letter.
    let err = |fen: &str| Game::from_fen(v.clone(), fen).err().unwrap().to_string();
    let e = err("4k3/8/8/8/8/8/8/4K2R w A - 0 1");
    assert!(e.contains("`A` names the white rook on file a, and there is none on rank 1"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/4K2R w Q - 0 1");
    assert!(e.contains("`Q` needs a white rook on rank 1 on the lower files' side of the king"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/4KRR1 w FG - 0 1");
    assert!(e.contains("one rook on each side of its king, not with both f1 and g1"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/R6R w K - 0 1");
    assert!(e.contains("`K` needs one white king on rank 1"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/R3K2R w Z - 0 1");
    assert!(e.contains("`Z` is not a castling right"), "{e}");
    // K and H name the same right: given twice, it is one right.
    assert_eq!(
        Game::from_fen(v.clone(), "4k3/8/8/8/8/8/8/R3K2R w KH - 0 1").unwrap().fen(),
        "4k3/8/8/8/8/8/8/R3K2R w K - 0 1"
    );
}

#[test]
fn san_writes_and_reads_free_castling_by_its_direction() {
    let v = chess960();
    // King b1, rooks a1 and h1: O-O is b1-h1 (king to g1), O-O-O is b1-a1 (king to c1).
    let g = Game::from_fen(v.clone(), "r5kr/8/8/8/8/8/8/RK5R w KQkq - 0 1").unwrap();
    let short = g.read_move("O-O").unwrap().0;
    assert_eq!(g.format(&short), "b1-h1");
    assert_eq!(g.san(&short), "O-O");
    let long = g.read_move("O-O-O").unwrap().0;
    assert_eq!(g.format(&long), "b1-a1");
    assert_eq!(g.san(&long), "O-O-O");
    let mut after = g.clone();
    after.apply(long).unwrap();
    assert_eq!(after.fen(), "r5kr/8/8/8/8/8/8/2KR3R b kq - 1 1");
    // The snapshot keeps the rights as the FEN writes them, and reads them back.
    let snap = g.snapshot().to_string();
    assert!(snap.contains(r#""castling":["K","Q","k","q"]"#), "{snap}");
    let back = Game::from_snapshot(v.clone(), &snap).unwrap();
    assert_eq!(back.fen(), g.fen());
}

/// A variant like chess960 with `castling` and `deal` replaced.
fn variant(castling: &str, deal: &str) -> Result<Arc<Variant>, varia::LoadError> {
    let text = format!(
        r#"
[board]
files = 8
ranks = 8
[setup]
fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
{deal}
[pieces.king]
letter = "K"
royal = true
moves = [{{ leap = "all" }}]
[pieces.queen]
letter = "Q"
moves = [{{ slide = "all" }}]
[pieces.rook]
letter = "R"
moves = [{{ slide = "orthogonal" }}]
[pieces.bishop]
letter = "B"
moves = [{{ slide = "diagonal" }}]
[pieces.knight]
letter = "N"
moves = [{{ leap = "knight" }}]
[pieces.pawn]
letter = "P"
moves = [{{ leap = "forward", mode = "move" }}]
{castling}
"#
    );
    Variant::from_toml(&text, "960.toml")
}

fn problems(castling: &str, deal: &str) -> String {
    let e = variant(castling, deal).expect_err("should fail");
    e.problems().iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n")
}

const FREE: &str = "[[castling]]\nright = \"K\"\nking = \"e1\"\nrook = \"h1\"\nking_to = \"g1\"\nrook_to = \"f1\"\nfree = true\n\
                    [[castling]]\nright = \"Q\"\nking = \"e1\"\nrook = \"a1\"\nking_to = \"c1\"\nrook_to = \"d1\"\nfree = true\n";

#[test]
fn malformed_deals_and_free_castlings_are_errors_with_their_place() {
    assert!(variant(FREE, "").is_ok());
    let p = problems(&FREE.replace("king_to = \"g1\"", "king_to = \"g2\""), "");
    assert!(p.contains("a free castling's king, rook, king_to and rook_to stand on one rank"), "{p}");
    let p = problems(&FREE.replacen("free = true", "free = true\nsafe = [\"f1\"]", 1), "");
    assert!(p.contains("leave out `empty`, `safe` and `also_to`"), "{p}");
    let deal = |steps: &str| format!("[setup.deal]\nrank = 1\nsteps = [{steps}]\n");
    let p = problems(FREE, &deal("{ place = [\"queen\"] }, { place = [\"bishop\"], colour = \"light\" }"));
    assert!(p.contains("a deal step with a `colour` comes before every step without one"), "{p}");
    let p = problems(FREE, &deal("{ place = [\"queen\", \"king\"] }"));
    assert!(p.contains("the deal's steps leave 6 squares of rank 1 empty: they fill the rank"), "{p}");
    let p = problems(
        FREE,
        &deal("{ place = [\"bishop\", \"bishop\", \"bishop\", \"bishop\", \"bishop\"], colour = \"dark\" }"),
    );
    assert!(p.contains("this step places 5 pieces on the 4 squares left free"), "{p}");
    let p = problems(FREE, &deal("{ place = [\"quen\"] }"));
    assert!(p.contains("unknown piece kind `quen`"), "{p}");
    let p = problems(FREE, &deal("{ place = [\"queen\"], colour = \"grey\" }"));
    assert!(p.contains("`grey`: a deal step's colour is \"light\" or \"dark\""), "{p}");
    let p = problems(FREE, "[setup.deal]\nrank = 9\nsteps = []\n");
    assert!(p.contains("`rank = 9` is off the board (1 to 8)"), "{p}");
    let p = problems(FREE, "[setup.deal]\nrank = 1\nsteps = [{ place = [], colour = \"light\" }]\n");
    assert!(p.contains("a deal step places at least one piece"), "{p}");
    // Every problem names the file and a line.
    assert!(p.starts_with("960.toml:"), "{p}");
    // A variant without a deal has no numbered setups.
    let e = variant(FREE, "").unwrap().dealt_fen(0).unwrap_err();
    assert!(e.contains("has no dealt setups"), "{e}");
}

#[test]
fn fischerandom_is_chess960_under_fairy_stockfishs_name() {
    // `scripts/fischerandom/` extends chess960: the same deal, numbers and castling.
    let f = Variant::load("fischerandom").unwrap();
    assert_eq!(f.name, "fischerandom");
    assert_eq!(f.deal.as_ref().unwrap().count, 960);
    let v = chess960();
    for n in [0, 1, 518, 959] {
        assert_eq!(f.dealt_fen(n).unwrap(), v.dealt_fen(n).unwrap());
    }
    // Setup 0 (BBQNNRKR): 16 pawn moves, and each knight's two (d1-c3, d1-e3, e1-d3,
    // e1-f3); black the same, untouched by white's first move: 20, then 400.
    let g = Game::from_fen(f.clone(), &f.dealt_fen(0).unwrap()).unwrap();
    assert_eq!([1, 2].map(|d| g.perft(d)), [20, 400]);
    // Castling as the king taking its own rook: with the king on g1 and the rook on h1,
    // g1-h1 leaves the king on g1 and puts the rook on f1.
    let mut g = Game::from_fen(f, "4k3/8/8/8/8/8/8/6KR w H - 0 1").unwrap();
    g.play("g1-h1").unwrap();
    assert_eq!(g.fen(), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
}
