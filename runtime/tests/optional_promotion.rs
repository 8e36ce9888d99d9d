//! Optional promotion (issue 14): `promotion.optional`, `forced` and `leaving`, on grand
//! chess and on small hand-made variants, with the expected moves worked out by hand.

use varia::{Game, Variant};

/// The actions from `from`, as the game writes them, sorted.
fn from(g: &Game, from: &str) -> Vec<String> {
    let f = g.variant().geometry.parse(from).unwrap();
    let mut out: Vec<String> = g.legal_actions().iter().filter(|a| a.from == f).map(|a| g.format(a)).collect();
    out.sort();
    out
}

fn list(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s.split_whitespace().map(String::from).collect();
    v.sort();
    v
}

fn grand(fen: &str) -> Game {
    Game::from_fen(Variant::load("grand").unwrap(), fen).unwrap()
}

// White's full set on the first rank (a1 king … j1 knight): nothing of white's is lost.
// The black king on j10 is attacked by none of it.

#[test]
fn grand_pawn_may_stay_on_ranks_8_and_9_and_promotes_only_to_what_was_lost() {
    // The pawn on e8 with nothing lost: e8-e9 stays a pawn, there is nothing to become.
    let mut g = grand("9k/10/4P5/10/10/6r3/10/10/10/KQCARRBBNN w - - 0 1");
    assert_eq!(from(&g, "e8"), list("e8-e9"));
    // Black to move instead: the rook takes the bishop on g1 (g4, g3, g2 are empty).
    g = grand("9k/10/4P5/10/10/6r3/10/10/10/KQCARRBBNN b - - 0 1");
    g.play("g5-g1").unwrap();
    // White has one bishop of its two: e8-e9 may stay or become a bishop, nothing else.
    assert_eq!(from(&g, "e8"), list("e8-e9 e8-e9=B"));
    // Written without `=X`, the move stays a pawn; with it, it promotes.
    let stay = g.parse_action("e8-e9").unwrap();
    assert_eq!(stay.promotion, None);
    let promote = g.parse_action("e8-e9=B").unwrap();
    assert_eq!(promote.promotion, g.variant().kind_named("bishop"));
    // SAN too: `e9` stays, `e9=B` promotes.
    assert_eq!(g.san(&stay), "e9");
    assert_eq!(g.san(&promote), "e9=B");
    g.play("e9").unwrap();
    assert_eq!(g.fen(), "9k/4P5/10/10/10/10/10/10/10/KQCARRrBNN b - - 0 2");
}

#[test]
fn grand_pawn_may_not_reach_the_last_rank_with_nothing_lost() {
    // e9 with nothing lost: e10 would need a promotion, and d10/f10 hold nothing to take.
    let g = grand("9k/4P5/10/10/10/10/10/10/10/KQCARRBBNN w - - 0 1");
    assert_eq!(from(&g, "e9"), Vec::<String>::new());
    // The last rank forces the promotion: with a knight lost (i1 empty) and a rook on d10
    // to take, each move there becomes a knight, and only that.
    let g = grand("3r5k/4P5/10/10/10/10/10/10/10/KQCARRBBN1 w - - 0 1");
    assert_eq!(from(&g, "e9"), list("e9-d10=N e9-e10=N"));
    // Lost queen and knight (b1 and i1 empty): two choices each, in the order of `to`.
    let g = grand("9k/4P5/10/10/10/10/10/10/10/K1CARRBBN1 w - - 0 1");
    assert_eq!(from(&g, "e9"), list("e9-e10=Q e9-e10=N"));
    let e = g.parse_action("e9-e10").unwrap_err().to_string();
    assert!(e.contains("it promotes: add one of =Q, =N"), "{e}");
}

/// A 5×5 variant: a man steps forward and promotes to a gold on ranks 4–5 (optional,
/// forced on rank 5); a scout steps diagonally and may promote on any move into, within
/// or out of the zone (`leaving`).
fn small(fen: &str) -> Game {
    let text = format!(
        "[board]\nfiles = 5\nranks = 5\n[setup]\nfen = \"{fen}\"\n\
         [regions]\nzone = {{ ranks = [4, 5], relative = true }}\nlast = {{ ranks = [-1], relative = true }}\n\
         [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{{ leap = \"all\" }}]\n\
         [pieces.man]\nletter = \"M\"\nmoves = [{{ leap = \"forward\" }}]\n\
         promotion = {{ zone = \"zone\", to = [\"gold\"], optional = true, forced = \"last\" }}\n\
         [pieces.scout]\nletter = \"S\"\nmoves = [{{ leap = \"diagonal\" }}]\n\
         promotion = {{ zone = \"zone\", to = [\"gold\"], optional = true, leaving = true }}\n\
         [pieces.gold]\nletter = \"G\"\nmoves = [{{ leap = \"orthogonal\" }}, {{ leap = \"forward-diagonal\" }}]\n"
    );
    Game::from_fen(Variant::from_toml(&text, "small.toml").unwrap_or_else(|e| panic!("{e}")), fen).unwrap()
}

#[test]
fn forced_region_of_an_optional_promotion() {
    // The man on c4 steps onto rank 5 (forced): it must become a gold. The scout on c2
    // neither starts nor ends in the zone: four plain moves.
    let g = small("4k/2M2/5/2S2/K4 w - - 0 1");
    assert_eq!(from(&g, "c4"), list("c4-c5=G"));
    assert_eq!(from(&g, "c2"), list("c2-b1 c2-b3 c2-d1 c2-d3"));
}

#[test]
fn leaving_the_zone_may_promote_and_entering_it_may_stay() {
    // The man a3-a4 enters the zone (rank 4, not forced): both. The scout on c4 starts in
    // the zone: into b5/d5 and out to b3/d3, each with or without promotion.
    let mut g = small("4k/2S2/M4/5/K4 w - - 0 1");
    assert_eq!(from(&g, "a3"), list("a3-a4 a3-a4=G"));
    assert_eq!(from(&g, "c4"), list("c4-b3 c4-b3=G c4-b5 c4-b5=G c4-d3 c4-d3=G c4-d5 c4-d5=G"));
    g.play("c4-d3=G").unwrap();
    assert_eq!(g.fen(), "4k/5/M2G1/5/K4 b - - 1 1");
}

fn load_error(promotion: &str) -> String {
    let text = format!(
        "[board]\nfiles = 5\nranks = 5\n[setup]\nfen = \"4k/5/5/5/K4 w - - 0 1\"\n\
         [regions]\nzone = {{ ranks = [4, 5], relative = true }}\nlast = {{ ranks = [-1], relative = true }}\n\
         low = {{ ranks = [1] }}\n\
         [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{{ leap = \"all\" }}]\n\
         [pieces.man]\nletter = \"M\"\nmoves = [{{ leap = \"forward\" }}]\npromotion = {promotion}\n\
         [pieces.gold]\nletter = \"G\"\nmoves = [{{ leap = \"all\" }}]\n"
    );
    match Variant::from_toml(&text, "bad.toml") {
        Ok(_) => panic!("accepted: {promotion}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn malformed_optional_promotions_are_refused_with_a_reason() {
    let e = load_error("{ zone = \"zone\", to = [\"gold\"], forced = \"last\" }");
    assert!(e.contains("`forced` is for an optional promotion: set `optional = true` too"), "{e}");
    let e = load_error("{ zone = \"zone\", to = [\"gold\"], optional = true, forced = \"low\" }");
    assert!(e.contains("the forced region `low` has squares outside the zone `zone`"), "{e}");
    let e = load_error("{ zone = \"zone\", to = [\"gold\"], optional = true, forced = \"nowhere\" }");
    assert!(e.contains("unknown region `nowhere`"), "{e}");
    let e = load_error("{ zone = \"zone\", source = \"graveyard\", optional = true, when_empty = \"freeze\" }");
    assert!(e.contains("an optional promotion cannot freeze"), "{e}");
}
