//! The lean playout path (`Playout`) plays by the same rules as the full pipeline
//! (`Game::apply`): over seeded random games of every shipped two-sided variant, both
//! reach the same position, legal actions (as a set: the lean path leaves them in the
//! generator's order), scores and outcome at every ply.

use varia::rng::Rng;
use varia::variant::{TurnModel, known_variants};
use varia::{Game, Playout, Variant};

const GAMES: u64 = 12;
const MAX_PLIES: usize = 1500;

fn compare(v: &std::sync::Arc<Variant>, seed: u64) -> (usize, bool) {
    let mut rng = Rng::new(seed);
    let mut full = Game::with_seed(v.clone(), seed);
    let mut lean = Playout::new(Game::with_seed(v.clone(), seed)).unwrap();
    for ply in 0..MAX_PLIES {
        let legal = full.legal_actions();
        let mut listed = lean.legal().to_vec();
        listed.sort();
        assert_eq!(listed, legal, "{} seed {seed} ply {ply}: legal actions", v.name);
        assert_eq!(lean.outcome().cloned(), full.outcome(), "{} seed {seed} ply {ply}: outcome", v.name);
        if legal.is_empty() {
            assert!(full.outcome().is_some(), "{} seed {seed}: no action and no outcome", v.name);
            return (ply, true);
        }
        let i = rng.below(legal.len() as u64) as usize;
        full.apply(legal[i]).unwrap();
        lean.apply_action(legal[i]).unwrap();
        let g = lean.game();
        assert_eq!(g.hash(), full.hash(), "{} seed {seed} ply {ply}: hash", v.name);
        assert_eq!(g.fen(), full.fen(), "{} seed {seed} ply {ply}: position", v.name);
        assert_eq!(g.scores(), full.scores(), "{} seed {seed} ply {ply}: scores", v.name);
        assert_eq!(lean.ply(), full.ply());
    }
    (MAX_PLIES, full.outcome().is_some())
}

#[test]
fn the_lean_path_plays_by_the_same_rules_in_every_two_sided_variant() {
    let mut variants = 0;
    for found in known_variants() {
        let v = Variant::load_origin(&found.origin, &[]).unwrap();
        if v.turns != TurnModel::Alternate {
            continue;
        }
        variants += 1;
        let mut ended = 0;
        for seed in 1..=GAMES {
            let (_, over) = compare(&v, seed);
            ended += usize::from(over);
        }
        // Random games of these variants mostly end within the cap: the comparison
        // covered outcomes, not only the middle game.
        assert!(ended > 0, "{}: no game ended within {MAX_PLIES} plies", v.name);
        // The same, with the hooks left out (the lean path proper for a hooked variant).
        if v.hooks.is_some() {
            let bare = v.without_hooks();
            for seed in 1..=GAMES / 2 {
                compare(&bare, seed);
            }
        }
    }
    assert!(variants >= 4, "only {variants} two-sided variants found");
}

#[test]
fn a_playout_refuses_what_is_not_legal_and_changes_nothing() {
    let v = Variant::load("standard").unwrap();
    let mut p = Playout::new(Game::new(v)).unwrap();
    let n = p.legal().len();
    assert_eq!(n, 20);
    let fen = p.game().fen();
    assert!(p.apply(n).is_err());
    assert_eq!(p.game().fen(), fen);
    assert_eq!(p.ply(), 0);
    // e2-e4 is legal; applying it moves the pawn.
    let e4 = p.game().parse_action("e2-e4").unwrap();
    p.apply_action(e4).unwrap();
    assert_eq!(p.game().fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert!(p.apply_action(e4).is_err());
    assert_eq!(p.ply(), 1);
}

#[test]
fn fools_mate_ends_the_playout_with_the_same_outcome() {
    let v = Variant::load("standard").unwrap();
    let mut p = Playout::new(Game::new(v.clone())).unwrap();
    for m in ["f2-f3", "e7-e5", "g2-g4", "d8-h4"] {
        let a = p.game().parse_action(m).unwrap();
        p.apply_action(a).unwrap();
    }
    let o = p.outcome().cloned().expect("mate");
    assert_eq!(o.result, varia::GameResult::Win(varia::Side::Black));
    assert_eq!(o.reason, varia::Reason::Checkmate);
    assert!(p.legal().is_empty());
    assert!(matches!(p.apply(0), Err(varia::RuleError::GameOver(_))));
}
