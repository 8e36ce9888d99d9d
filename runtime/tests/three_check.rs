//! Counted checks (`[[rules.end]] when = "checks"`, three-check): the counts in the FEN as
//! Fairy-Stockfish writes them (the checks each side still needs, `3+3`, after en
//! passant), in snapshots, in perft, and the errors of malformed entries and fields.
//! Perft against FSF is in `fsf_perft.rs`.

use std::sync::Arc;

use varia::{Game, Variant};

fn three_check() -> Arc<Variant> {
    Variant::load("3check").unwrap()
}

#[test]
fn perft_counts_no_move_after_the_last_check() {
    // White king e1, rook h1, one check to go; black king e8. White has 15 moves (rook:
    // f1 g1 h2..h8, king: d1 f1 d2 e2 f2, castling g1). h1-h8 checks and wins: no reply.
    // Every other white move leaves black its 5 king moves, but h1-f1 and e1-g1 (the
    // f-file guarded: d8 d7 e7, 3) and h1-h7 (rank 7 guarded: d8 f8, 2): 63.
    let g = Game::from_fen(three_check(), "4k3/8/8/8/8/8/8/4K2R w K - 1+3 0 1").unwrap();
    assert_eq!(g.perft(1), 15);
    let d: Vec<(String, u64)> = g.divide(2).into_iter().map(|(a, n)| (g.format(&a), n)).collect();
    let at = |m: &str| d.iter().find(|(x, _)| x == m).unwrap().1;
    assert_eq!((at("h1-h8"), at("h1-h7"), at("h1-f1"), at("e1-g1"), at("e1-d1")), (0, 2, 3, 3, 5));
    assert_eq!(g.perft(2), 63);
    // The same position with the counts left out: no check given yet, so h1-h8 has its
    // replies (d7 e7 f7; d8 and f8 are on the rook's rank): 63 + 3.
    let fresh = Game::from_fen(three_check(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
    assert_eq!(fresh.fen(), "4k3/8/8/8/8/8/8/4K2R w K - 3+3 0 1");
    assert_eq!(fresh.perft(2), 63 + 3);
}

#[test]
fn counts_travel_in_snapshots_and_count_in_the_hash() {
    let v = three_check();
    let a = Game::from_fen(v.clone(), "4k3/8/8/8/8/8/8/4K2R w K - 2+3 0 1").unwrap();
    let b = Game::from_fen(v.clone(), "4k3/8/8/8/8/8/8/4K2R w K - 3+3 0 1").unwrap();
    assert_ne!(a.hash(), b.hash());
    let snap = a.snapshot().to_string();
    assert!(snap.contains(r#""checks":{"black":0,"white":1}"#), "{snap}");
    assert_eq!(Game::from_snapshot(v.clone(), &snap).unwrap().fen(), a.fen());
    // A snapshot of a variant that counts no checks refuses the key.
    let std = Variant::load("standard").unwrap();
    let plain = Game::new(std.clone()).snapshot().to_string();
    assert!(!plain.contains("checks"), "{plain}");
    let bad = plain.replacen(r#""castling""#, r#""checks":{"white":1,"black":0},"castling""#, 1);
    let e = Game::from_snapshot(std, &bad).err().unwrap().to_string();
    assert!(e.contains("standard does not count checks"), "{e}");
}

#[test]
fn malformed_counts_in_a_fen_are_errors() {
    let v = three_check();
    let err = |fen: &str| Game::from_fen(v.clone(), fen).err().unwrap().to_string();
    let e = err("4k3/8/8/8/8/8/8/4K2R w K - 4+3 0 1");
    assert!(e.contains("`4+3` should be the checks white and black still need, joined by `+` (0 to 3"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/4K2R w K - x+3 0 1");
    assert!(e.contains("`x+3` should be"), "{e}");
    let e = err("4k3/8/8/8/8/8/8/4K2R w K - +3 0 1");
    assert!(e.contains("`+3` should be"), "{e}");
    // A variant that counts no checks reads no such field.
    let std = Variant::load("standard").unwrap();
    let e = Game::from_fen(std, "4k3/8/8/8/8/8/8/4K2R w K - 3+3 0 1").err().unwrap().to_string();
    assert!(e.contains("halfmove"), "{e}");
}

fn problems(end: &str) -> String {
    let text = format!(
        "[board]\nfiles = 8\nranks = 8\n[setup]\nfen = \"4k3/8/8/8/8/8/8/4K2R w - - 0 1\"\n\
         [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{{ leap = \"all\" }}]\n\
         [pieces.rook]\nletter = \"R\"\nmoves = [{{ slide = \"orthogonal\" }}]\n{end}"
    );
    let e = Variant::from_toml(&text, "checks.toml").expect_err("should fail");
    e.problems().iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n")
}

#[test]
fn malformed_entries_are_errors_with_their_place() {
    let end = |rest: &str| format!("[[rules.end]]\nwhen = \"checks\"\nresult = \"win\"\n{rest}");
    let p = problems(&end(""));
    assert!(p.contains("when = \"checks\" needs `count`"), "{p}");
    let p = problems(&end("count = 0\n"));
    assert!(p.contains("`count = 0`: the checks that end the game are 1 to 99"), "{p}");
    let p = problems(&end("count = 100\n"));
    assert!(p.contains("`count = 100`"), "{p}");
    let p = problems(&end("count = 3\nregion = \"x\"\n"));
    assert!(p.contains("`region` means nothing with when = \"checks\""), "{p}");
    let p = problems(&end("count = 3\nkinds = [\"king\"]\n"));
    assert!(p.contains("`kinds` means nothing with when = \"checks\""), "{p}");
    let p = problems(&format!("{}{}", end("count = 3\n"), end("count = 5\n")));
    assert!(p.contains("one `[[rules.end]]` entry may count checks"), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"extinct\"\ncount = 3\nresult = \"win\"\n");
    assert!(p.contains("`count` means nothing with when = \"extinct\""), "{p}");
    assert!(p.starts_with("checks.toml:"), "{p}");
}
