//! The solo turn model on Chessic: targets from movement atoms, wear, scoring, levels,
//! dealing, the clock, undo and snapshots. Expected values are worked out by hand from
//! the rules (CH-01…CH-19, A-CH1…) in the comments.

use std::sync::Arc;

use varia::Variant;
use varia::geometry::Square;
use varia::scoring::Tenths;
use varia::solo::{Forge, SoloBoard, SoloError, SoloEvent, SoloGame, Status};

fn forge() -> Arc<Forge> {
    Forge::new(Variant::load("chessic").unwrap()).unwrap()
}

fn forge_with(sets: &[&str]) -> Arc<Forge> {
    let o: Vec<_> = sets.iter().map(|s| s.parse().unwrap()).collect();
    Forge::new(Variant::load_with("chessic", &o).unwrap()).unwrap()
}

fn sq(f: &Forge, name: &str) -> Square {
    f.square(name).unwrap()
}

fn names(f: &Forge, squares: &[Square]) -> Vec<String> {
    squares.iter().map(|&s| f.variant.square_name(s)).collect()
}

/// A board whose every square is `stack`, with some squares replaced.
fn board(f: &Forge, stack: &str, except: &[(&str, &str)]) -> SoloBoard {
    let g = f.variant.geometry;
    let text: Vec<String> = g
        .squares()
        .map(|s| {
            let n = f.variant.square_name(s);
            except.iter().find(|(e, _)| *e == n).map_or(stack.to_string(), |(_, st)| st.to_string())
        })
        .collect();
    SoloBoard::parse(&f.variant, &text.join(" ")).unwrap()
}

fn game(f: &Arc<Forge>, level: &str, b: SoloBoard) -> SoloGame {
    SoloGame::new(f.clone(), f.level(level).unwrap(), b)
}

fn strike(g: &mut SoloGame, name: &str) {
    let s = g.forge().square(name).unwrap();
    g.strike(s).unwrap_or_else(|e| panic!("strike {name}: {e}"));
}

fn targets_of(f: &Forge, kind: &str, from: &str, cleared: &[&str]) -> Vec<String> {
    let k = f.variant.kind_named(kind).unwrap();
    let cl: Vec<Square> = cleared.iter().map(|c| sq(f, c)).collect();
    names(f, &f.targets(k, sq(f, from), &|s| cl.contains(&s)))
}

#[test]
fn targets_come_from_the_movement_atoms() {
    let f = forge();
    // CH-05: exactly n away in the 8 directions, whatever lies between.
    assert_eq!(targets_of(&f, "one", "c3", &[]), ["b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"]);
    assert_eq!(targets_of(&f, "three", "c3", &[]), ["f3", "c6", "f6"]);
    // A-CH13: a Number 4 in the centre has no target at all on a 6×6 board.
    for centre in ["c3", "c4", "d3", "d4"] {
        assert!(targets_of(&f, "four", centre, &[]).is_empty(), "{centre}");
    }
    assert_eq!(targets_of(&f, "four", "a1", &[]), ["e1", "a5", "e5"]);
    // CH-06: only the farthest on-board square of each direction.
    assert_eq!(targets_of(&f, "bishop", "c3", &[]), ["a1", "e1", "a5", "f6"]);
    assert_eq!(targets_of(&f, "rook", "c3", &[]), ["c1", "a3", "f3", "c6"]);
    assert_eq!(targets_of(&f, "queen", "c3", &[]), ["a1", "c1", "e1", "a3", "f3", "a5", "c6", "f6"]);
    // ...a direction is lost while its farthest square is cleared (not the next one in).
    assert_eq!(targets_of(&f, "bishop", "c3", &["f6"]), ["a1", "e1", "a5"]);
    assert_eq!(targets_of(&f, "rook", "c3", &["f3", "e3"]), ["c1", "a3", "c6"]);
    // A-CH15: a slider on the edge has nothing in the directions that leave the board.
    assert_eq!(targets_of(&f, "rook", "a1", &[]), ["f1", "a6"]);
    assert_eq!(targets_of(&f, "bishop", "a1", &[]), ["f6"]);
    // CH-07.
    assert_eq!(targets_of(&f, "knight", "a1", &[]), ["c2", "b3"]);
    assert_eq!(targets_of(&f, "knight", "a1", &["b3"]), ["c2"]);
    // CH-08, A-CH3: any unfinished square, the one just struck included.
    let all = targets_of(&f, "wildcard", "c3", &["a1"]);
    assert_eq!(all.len(), 35);
    assert!(all.contains(&"c3".to_string()) && !all.contains(&"a1".to_string()));
}

#[test]
fn squares_wear_down_and_reveal_their_fixed_stack() {
    let f = forge();
    let mut g = game(&f, "artisan", board(&f, "111", &[("a1", "1B4")]));
    // CH-03: the first strike may land anywhere unfinished.
    assert_eq!(g.targets().len(), 36);
    strike(&mut g, "a1");
    // CH-01, CH-02: a1 now has 1 hit and shows its layer-1 piece, the bishop.
    assert_eq!(g.hits(sq(&f, "a1")), 1);
    assert_eq!(g.shown(sq(&f, "a1")), f.variant.kind_named("bishop"));
    // A-CH1: the targets come from the piece struck (the one), not the bishop revealed.
    assert_eq!(names(&f, &g.targets()), ["b1", "a2", "b2"]);
    strike(&mut g, "b1");
    strike(&mut g, "a1"); // the bishop: the next strike must land on f6
    assert_eq!(names(&f, &g.targets()), ["f6"]);
    assert_eq!(g.shown(sq(&f, "a1")), f.variant.kind_named("four"));
    let err = g.strike(sq(&f, "b2")).unwrap_err();
    assert_eq!(err.to_string(), "b2 cannot be struck: the bishop struck on a1 reaches only f6");
    strike(&mut g, "f6");
    strike(&mut g, "e5");
    strike(&mut g, "d4");
    strike(&mut g, "c3");
    strike(&mut g, "b2");
    strike(&mut g, "a1"); // the third strike clears it (it showed the four)
    assert_eq!(g.hits(sq(&f, "a1")), 3);
    assert_eq!(g.shown(sq(&f, "a1")), None);
    assert!(g.last_events().contains(&SoloEvent::Cleared { square: sq(&f, "a1") }));
    // The four struck on a1 reaches e1, a5 and e5; a cleared square can never be struck.
    assert_eq!(names(&f, &g.targets()), ["e1", "a5", "e5"]);
    let err = g.strike(sq(&f, "a1")).unwrap_err();
    assert_eq!(err, SoloError::Illegal { square: "a1".into(), why: "it is cleared".into() });
}

/// A Hamiltonian cycle of the 6×6 king graph: up the a-file, along the 6th rank, then
/// snaking down through files b–f back to b1, which touches a1.
fn king_cycle() -> Vec<&'static str> {
    let mut c: Vec<&str> = vec!["a1", "a2", "a3", "a4", "a5", "a6", "b6", "c6", "d6", "e6", "f6"];
    c.extend(["f5", "e5", "d5", "c5", "b5", "b4", "c4", "d4", "e4", "f4", "f3", "e3", "d3", "c3", "b3"]);
    c.extend(["b2", "c2", "d2", "e2", "f2", "f1", "e1", "d1", "c1", "b1"]);
    c
}

#[test]
fn a_forged_board_pays_chains_layers_and_time() {
    let f = forge();
    let mut g = game(&f, "apprentice", board(&f, "111", &[]));
    let cycle = king_cycle();
    assert_eq!(cycle.len(), 36);
    g.set_elapsed(12_900); // 12 whole seconds: 50.0 - 1.2 = 48.8 (A-CH9, A-CH15)
    for lap in 0..3 {
        for (i, s) in cycle.iter().enumerate() {
            strike(&mut g, s);
            let n = lap * 36 + i + 1;
            let layer_now = g.last_events().iter().any(|e| matches!(e, SoloEvent::LayerCompleted { .. }));
            // A-CH5: a layer completes exactly when the last square of a lap is struck.
            assert_eq!(layer_now, i == 35, "strike {n}");
        }
    }
    assert_eq!(g.status(), Status::Forged);
    assert!(g.targets().is_empty());
    // CH-13: 108 strikes on ones: 1.0+1.1+1.2+1.3+1.4 then 103 × 1.5 = 6.0 + 154.5.
    assert_eq!(g.score().strikes, Tenths(1605));
    // CH-14, A-CH15: three layers, 20.0 each.
    assert_eq!(g.score().layers, Tenths(600));
    assert_eq!(g.time_points(), Tenths(488));
    // CH-11: 160.5 + 60.0 + 48.8.
    assert_eq!(g.total(), Tenths(2693));
    // The time is fixed when the board ends.
    g.set_elapsed(100_000);
    assert_eq!(g.time_points(), Tenths(488));
    let s = g.snapshot();
    assert_eq!(s["status"], "forged");
    assert_eq!(s["score"]["strike_points"], 1605);
    assert_eq!(s["score"]["layer"], 600);
    assert_eq!(s["score"]["royal"], 0);
    assert_eq!(s["score"]["perfect"], 0);
    assert_eq!(s["score"]["time"], 488);
    assert_eq!(s["score"]["total"], 2693);
    assert_eq!(s["score"]["chain"]["kind"], "one");
    assert_eq!(s["score"]["chain"]["length"], 108);
}

#[test]
fn master_leaves_a_wildcard_where_layers_one_and_two_complete() {
    let f = forge();
    let mut g = game(&f, "master", board(&f, "111", &[]));
    let cycle = king_cycle();
    let b1 = sq(&f, "b1");
    let wild = f.variant.kind_named("wildcard");
    for (n, s) in cycle.iter().cycle().take(108).enumerate() {
        strike(&mut g, s);
        let n = n + 1;
        if n == 36 || n == 72 {
            // CH-12, A-CH4: b1 completed the layer; it shows a wildcard instead of its 1.
            assert_eq!(g.shown(b1), wild, "strike {n}");
            assert!(g.last_events().contains(&SoloEvent::Placed { square: b1, kind: wild.unwrap() }));
        }
        if n == 36 {
            // A-CH14: the strike still takes its targets from the one it struck.
            assert_eq!(names(&f, &g.targets()), ["a1", "c1", "a2", "b2", "c2"]);
        }
        if n == 72 {
            // b1 was struck as a wildcard: every unfinished square is a target.
            assert_eq!(g.targets().len(), 36);
        }
    }
    assert_eq!(g.status(), Status::Forged);
    // Strikes 1–71 on ones: 6.0 + 66 × 1.5 = 105.0; strike 72 on the wildcard: 1.0 (a
    // new kind, A-CH8); 73–107 on ones again: 6.0 + 30 × 1.5 = 51.0; 108 on the second
    // wildcard: 1.0. Total 158.0, plus 60.0 of layers and 50.0 of time at 0 s.
    assert_eq!(g.score().strikes, Tenths(1580));
    assert_eq!(g.total(), Tenths(2680));
}

#[test]
fn runs_and_sequences_pay_and_break() {
    let f = forge();
    // A-CH6: rooks on the corners (each reaches the two others along its edges).
    let corners = [("a1", "RRR"), ("f1", "RRR"), ("f6", "RRR"), ("a6", "RRR")];
    let mut g = game(&f, "journeyman", board(&f, "111", &corners));
    for s in ["a1", "f1", "f6", "a6"] {
        strike(&mut g, s);
    }
    // CH-15: four chess pieces in a row pay 5.0; the chain of rooks paid 1.0+1.1+1.2+1.3.
    assert_eq!(g.score().bonuses[0], Tenths(50));
    assert_eq!(g.score().strikes, Tenths(46));
    assert!(g.last_events().contains(&SoloEvent::Scored { points: Tenths(50), reason: "royal".into() }));
    for s in ["a1", "f1", "f6", "a6"] {
        strike(&mut g, s);
    }
    // A-CH15: again at 8 in a row.
    assert_eq!(g.score().bonuses[0], Tenths(100));
    assert_eq!(g.score_json()["royal_run"], 8);

    // A number breaks the run: R R R, then the 1 on b1, then R R R R pays only at the end.
    let mut g = game(&f, "journeyman", board(&f, "111", &[("a1", "RRR"), ("f1", "R1R"), ("f6", "RRR"), ("a6", "RRR")]));
    for s in ["a1", "f1", "a1", "f1"] {
        strike(&mut g, s);
    }
    // a1 R, f1 R, a1 R, then f1 shows its 1: the run of 3 is broken.
    assert_eq!(g.score().bonuses[0], Tenths(0));
    assert_eq!(g.score_json()["royal_run"], 0);

    // CH-16, A-CH7: 1, 2, 3, 4 on consecutive strikes: a1 (1) → b1 (2, one away) → d1 (3,
    // two away) → a1 again (its layer 1 is a 4, three away from d1).
    let mut g = game(&f, "artisan", board(&f, "111", &[("a1", "14R"), ("b1", "211"), ("d1", "311")]));
    for s in ["a1", "b1", "d1", "a1"] {
        strike(&mut g, s);
    }
    assert_eq!(g.score().bonuses[1], Tenths(50));
    // CH-13: each strike changed kind, so each paid 1.0.
    assert_eq!(g.score().strikes, Tenths(40));
    assert_eq!(g.score_json()["perfect"], 50);
    assert_eq!(g.score_json()["chain"]["length"], 1);
    // From the four on a1: e1, a5 and e5.
    assert_eq!(names(&f, &g.targets()), ["e1", "a5", "e5"]);
}

#[test]
fn a_cooled_board_keeps_its_score_and_time() {
    let f = forge();
    // A-CH13: the first strike on a Number 4 in the centre leaves no target.
    let mut g = game(&f, "artisan", board(&f, "111", &[("c3", "411")]));
    g.set_elapsed(600_000); // CH-17: 50.0 - 60.0 stops at 0.0
    strike(&mut g, "c3");
    assert_eq!(g.status(), Status::Cooled);
    assert!(g.last_events().contains(&SoloEvent::Ended { status: Status::Cooled }));
    assert_eq!(g.time_points(), Tenths(0));
    assert_eq!(g.total(), Tenths(10));
    assert_eq!(g.strike(sq(&f, "c4")).unwrap_err(), SoloError::Over("cooled"));
    // A-CH9: a cooled board gets its time score...
    let mut g = game(&f, "artisan", board(&f, "111", &[("c3", "411")]));
    g.set_elapsed(3_000);
    strike(&mut g, "c3");
    assert_eq!(g.total(), Tenths(10 + 497)); // 50.0 - 3 × 0.1
    // ...unless the designer says otherwise.
    let f2 = forge_with(&["scoring.time.on_unfinished=false"]);
    let mut g = game(&f2, "artisan", board(&f2, "111", &[("c3", "411")]));
    g.set_elapsed(3_000);
    strike(&mut g, "c3");
    assert_eq!(g.total(), Tenths(10));
}

#[test]
fn designers_change_the_numbers_without_recompiling() {
    // The chain table and the layer bonus from --set.
    let f = forge_with(&["scoring.chain=[2.0, 3.5]", "scoring.layer=1.5"]);
    let mut g = game(&f, "apprentice", board(&f, "111", &[]));
    for s in ["a1", "a2", "a3"] {
        strike(&mut g, s);
    }
    assert_eq!(g.score().strikes, Tenths(20 + 35 + 35));
    let bad = Variant::load_with("chessic", &["scoring.layer=1.25".parse().unwrap()]).unwrap_err();
    assert!(bad.to_string().contains("1.25: points have at most one decimal"), "{bad}");
}

#[test]
fn undo_restores_everything() {
    let f = forge();
    let mut g = game(&f, "master", board(&f, "111", &[]));
    let before = g.snapshot();
    for s in king_cycle() {
        strike(&mut g, s);
    }
    assert_eq!(g.undo(36), 36);
    assert_eq!(g.snapshot()["board"], before["board"]);
    assert_eq!(g.snapshot()["score"], before["score"]);
    assert_eq!(g.targets().len(), 36);
}

#[test]
fn snapshots_round_trip_and_refuse_what_disagrees() {
    let f = forge();
    let mut g = game(&f, "journeyman", board(&f, "111", &[("a1", "1B4")]));
    g.set_elapsed(5_000);
    for s in ["a1", "b1", "a1"] {
        strike(&mut g, s);
    }
    let snap = g.snapshot();
    let text = snap.to_string();
    let back = SoloGame::from_snapshot(f.clone(), &text).unwrap();
    assert_eq!(back.snapshot(), snap);
    let mut bad = snap.clone();
    bad["score"]["total"] = 9999.into();
    let e = SoloGame::restore(f.clone(), &bad).unwrap_err();
    assert!(e.to_string().starts_with("field `score` disagrees with the replayed history"), "{e}");
    let mut bad = snap.clone();
    bad["history"]["strikes"][1] = "e4".into();
    let e = SoloGame::restore(f.clone(), &bad).unwrap_err();
    assert!(e.to_string().contains("strike 2 (`e4`): e4 cannot be struck"), "{e}");
    let mut bad = snap;
    bad["history"]["board"] = "111 11".into();
    let e = SoloGame::restore(f, &bad).unwrap_err();
    assert!(e.to_string().contains("a board has 36 stacks"), "{e}");
}

#[test]
fn boards_as_text_are_checked() {
    let f = forge();
    let v = &f.variant;
    let e = SoloBoard::parse(v, "111 111").unwrap_err();
    assert_eq!(e.to_string(), "a board has 36 stacks (one per square, a1, b1, … in order), not 2");
    let mut stacks = vec!["111"; 36];
    stacks[7] = "1X1";
    let e = SoloBoard::parse(v, &stacks.join(" ")).unwrap_err();
    assert_eq!(e.to_string(), "stack 8 (b2): `X` is not a piece of this variant (pieces: 1 2 3 4 B R N Q W)");
    stacks[7] = "11";
    let e = SoloBoard::parse(v, &stacks.join(" ")).unwrap_err();
    assert!(e.to_string().starts_with("stack 8 (b2, `11`): a stack has 3 pieces"), "{e}");
    stacks[7] = "1é1";
    assert!(SoloBoard::parse(v, &stacks.join(" ")).is_err());
    // Letters in either case; the text round-trips.
    stacks[7] = "bRq";
    let b = SoloBoard::parse(v, &stacks.join(" ")).unwrap();
    assert_eq!(b.text(v).split(' ').nth(7), Some("BRQ"));
}

#[test]
fn dealing_is_seeded_and_follows_the_level_pool() {
    let f = forge();
    for level in ["apprentice", "journeyman", "artisan", "master"] {
        let l = f.level(level).unwrap();
        let a = SoloGame::dealt(f.clone(), l, 7);
        let b = SoloGame::dealt(f.clone(), l, 7);
        assert_eq!(a.board(), b.board());
        assert_ne!(a.board(), SoloGame::dealt(f.clone(), l, 8).board());
        // CH-09: only kinds of the level's pool.
        let pool: Vec<_> = f.rules().levels[l].weights.iter().map(|w| w.0).collect();
        for s in f.variant.geometry.squares() {
            assert!(a.board().stack(s).iter().all(|k| pool.contains(k)), "{level}");
        }
    }
    // The same seed gives the same board forever (A-CH12): this one is pinned.
    let g = SoloGame::dealt(f.clone(), f.level("apprentice").unwrap(), 7);
    assert_eq!(g.board().text(&f.variant).split(' ').take(6).collect::<Vec<_>>().join(" "), PINNED_A1_F1);
}

/// The stacks of a1…f1 dealt from seed 7 at Apprentice (SplitMix64, layer by layer).
const PINNED_A1_F1: &str = "323 122 211 113 213 111";

#[test]
fn the_weighted_draw_matches_an_independent_reference() {
    // A-CH12 by hand: SplitMix64 from the seed, one `below(total)` per cell, layer 0 of
    // every square first, the weights walked in the order the level lists them.
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    let f = forge();
    let l = f.level("journeyman").unwrap();
    let letters = ['1', '2', '3', 'B', 'R', 'N'];
    let weights = [22u64, 20, 16, 14, 14, 14];
    let mut state = 12345u64;
    let mut cells = vec![' '; 108];
    for layer in 0..3 {
        for sq in 0..36 {
            let zone = u64::MAX - (u64::MAX % 100);
            let mut x = splitmix(&mut state);
            while x >= zone {
                x = splitmix(&mut state);
            }
            let mut r = x % 100;
            let mut i = 0;
            while r >= weights[i] {
                r -= weights[i];
                i += 1;
            }
            cells[sq * 3 + layer] = letters[i];
        }
    }
    let expected: Vec<String> = cells.chunks(3).map(|c| c.iter().collect()).collect();
    let g = SoloGame::dealt(f.clone(), l, 12345);
    assert_eq!(g.board().text(&f.variant), expected.join(" "));
}
