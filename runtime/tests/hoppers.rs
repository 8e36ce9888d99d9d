//! Hops, blockable leaps, confinement to a region and royal facing (issue 14), on small
//! hand-made variants and on xiangqi, with the expected squares worked out by hand.

use std::sync::Arc;

use varia::{Game, Variant};

fn variant(files: u32, ranks: u32, fen: &str, body: &str) -> Result<Arc<Variant>, String> {
    let text = format!(
        "[board]\nfiles = {files}\nranks = {ranks}\n[setup]\nfen = \"{fen}\"\n\
         [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{{ leap = \"all\" }}]\n\
         [pieces.pawn]\nletter = \"P\"\nmoves = []\n{body}"
    );
    Variant::from_toml(&text, "test.toml").map_err(|e| e.to_string())
}

/// The destinations (sorted square names) of the legal actions from `from`.
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

fn xiangqi(fen: &str) -> Game {
    Game::from_fen(Variant::load("xiangqi").unwrap(), fen).unwrap()
}

#[test]
fn janggi_cannon_needs_a_screen_to_move_and_never_hops_or_takes_a_cannon() {
    let body = "[pieces.cannon]\nletter = \"C\"\n\
                moves = [{ hop = \"orthogonal\", cannot_hop = [\"cannon\"], cannot_capture = [\"cannon\"] }]\n";
    // Cannon d4. Up: d5 own pawn (a screen), d6 and d7 empty, d8 a black cannon (not
    // capturable). Down: d3 a black cannon, which may not screen. Right: e4 empty, f4
    // black pawn (screen), g4 empty, h4 black pawn (captured). Left: no screen at all.
    let v = variant(8, 8, "k2c4/8/8/3P4/3C1p1p/3c4/8/K7 w - - 0 1", body).unwrap();
    let g = Game::new(v);
    assert_eq!(targets(&g, "d4"), sq("d6 d7 g4 h4"));
}

#[test]
fn a_plain_hop_passes_any_one_screen_and_stops_at_the_next_piece() {
    let body = "[pieces.cannon]\nletter = \"C\"\nmoves = [{ hop = \"orthogonal\" }]\n";
    // The same board without the janggi options: up d6, d7 and the cannon on d8; down,
    // over the cannon on d3: d2, d1; right g4, h4; left nothing.
    let v = variant(8, 8, "k2c4/8/8/3P4/3C1p1p/3c4/8/K7 w - - 0 1", body).unwrap();
    let g = Game::new(v);
    assert_eq!(targets(&g, "d4"), sq("d6 d7 d8 d2 d1 g4 h4"));
}

#[test]
fn a_cannon_checks_over_its_screen_and_moving_the_screen_away_answers_it() {
    // Black cannon e7, red horse e4 between it and the red general e1: check. The horse's
    // 8 leaps (all legs open) each take the screen away; the general may step to d1 or f1
    // but not e2 (still behind the one screen). The black general on e10 stays hidden
    // behind its own cannon. 8 + 2 = 10.
    let g = xiangqi("4k4/9/9/4c4/9/9/4N4/9/9/4K4 w - - 0 1");
    assert!(g.in_check());
    assert_eq!(targets(&g, "e4"), sq("d6 f6 d2 f2 c5 c3 g5 g3"));
    assert_eq!(targets(&g, "e1"), sq("d1 f1"));
    assert_eq!(g.legal_actions().len(), 10);
}

#[test]
fn a_horse_checks_only_through_an_open_leg() {
    // Black horse f3 reaches e1 by [-1, -2]: its leg is f2.
    assert!(xiangqi("5k3/9/9/9/9/9/9/5n3/9/4K4 w - - 0 1").in_check());
    assert!(!xiangqi("5k3/9/9/9/9/9/9/5n3/5A3/4K4 w - - 0 1").in_check());
}

#[test]
fn a_long_blockable_leap_passes_an_orthogonal_then_a_diagonal_square() {
    let body =
        "[pieces.elephant]\nletter = \"E\"\nmoves = [{ leap = [[2, 3]], symmetry = \"all\", blockable = true }]\n";
    // Janggi's elephant on e5 of 9×10: eight targets on an empty board.
    let v = variant(9, 10, "k8/9/9/9/9/4E4/9/9/9/K8 w - - 0 1", body).unwrap();
    assert_eq!(targets(&Game::new(v), "e5"), sq("g8 c8 g2 c2 h7 b7 h3 b3"));
    // A pawn on f7 is the second square of the leap to g8 (e6, f7) only.
    let v = variant(9, 10, "k8/9/9/5P3/9/4E4/9/9/9/K8 w - - 0 1", body).unwrap();
    assert_eq!(targets(&Game::new(v), "e5"), sq("c8 g2 c2 h7 b7 h3 b3"));
    // A pawn on e6 is the first square of both upward leaps of three: g8 and c8.
    let v = variant(9, 10, "k8/9/9/9/4P4/4E4/9/9/9/K8 w - - 0 1", body).unwrap();
    assert_eq!(targets(&Game::new(v), "e5"), sq("g2 c2 h7 b7 h3 b3"));
}

#[test]
fn a_confined_slider_ends_its_moves_and_its_attacks_in_its_region() {
    let body = "[regions]\nbox = { squares = [\"c3\", \"d3\", \"e3\", \"c4\", \"d4\", \"e4\", \"c5\", \"d5\", \"e5\"] }\n\
                [pieces.rook]\nletter = \"R\"\nconfined = \"box\"\nmoves = [{ slide = \"orthogonal\" }]\n";
    // Rook d4 in the box c3–e5: one step each way. It does not attack the king on d8.
    let v = variant(8, 8, "3k4/8/8/8/3R4/8/8/K7 b - - 0 1", body).unwrap();
    let g = Game::new(v.clone());
    assert!(!g.in_check());
    let g = Game::from_fen(v, "3k4/8/8/8/3R4/8/8/K7 w - - 0 1").unwrap();
    assert_eq!(targets(&g, "d4"), sq("c4 e4 d3 d5"));
}

#[test]
fn royals_may_face_each_other_unless_the_rule_forbids_it() {
    // Kings on e1 and e8 with a knight between: with the rule, the knight is pinned.
    let body = "[pieces.knight]\nletter = \"N\"\nmoves = [{ leap = \"knight\" }]\n";
    let fen = "4k3/8/8/8/4N3/8/8/4K3 w - - 0 1";
    let free = Game::new(variant(8, 8, fen, body).unwrap());
    assert_eq!(targets(&free, "e4").len(), 8);
    let ruled = Game::new(variant(8, 8, fen, &format!("[rules]\nroyals_facing = \"illegal\"\n{body}")).unwrap());
    assert!(targets(&ruled, "e4").is_empty());
    // The king may leave the file, and e2 is still behind the knight.
    assert_eq!(targets(&ruled, "e1"), sq("d1 d2 e2 f1 f2"));
}

#[test]
fn the_new_keys_refuse_what_they_cannot_mean() {
    let fen = "k7/8/8/8/8/8/8/K7 w - - 0 1";
    let err = |body: &str| variant(8, 8, fen, body).expect_err(body);
    assert!(
        err("[pieces.r]\nletter = \"R\"\nmoves = [{ slide = \"orthogonal\", blockable = true }]\n")
            .contains("`blockable` applies to a `leap`")
    );
    assert!(
        err("[pieces.r]\nletter = \"R\"\nmoves = [{ leap = \"all\", cannot_hop = [\"king\"] }]\n")
            .contains("`cannot_hop` names the kinds a `hop` may not jump over")
    );
    assert!(
        err("[pieces.r]\nletter = \"R\"\nmoves = [{ hop = \"all\", cannot_hop = [\"kong\"] }]\n")
            .contains("unknown piece kind `kong`")
    );
    assert!(
        err("[pieces.r]\nletter = \"R\"\nconfined = \"nowhere\"\nmoves = [{ leap = \"all\" }]\n")
            .contains("unknown region `nowhere`")
    );
    assert!(
        err("[rules]\nroyals_facing = \"sometimes\"\n")
            .contains("royals_facing is \"illegal\", \"break\" or \"allowed\"")
    );
    assert!(
        err("[pieces.r]\nletter = \"R\"\nmoves = [{ hop = \"all\", leap = \"all\" }]\n")
            .contains("exactly one of `leap`, `slide`, `farthest`, `hop` or `anywhere`")
    );
}
