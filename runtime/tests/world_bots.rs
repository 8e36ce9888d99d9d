//! The bots of a world of boards and the round's sight they stand on: the sight's masks
//! answer as the scans do, the bots give the same orders with or without it, they rescue
//! their kings (a hand-made position, and chained seeded rounds with no forced flee and
//! no refused bot order).

use varia::Variant;
use varia::piece::KindId;
use varia::world::cells::Cell;
use varia::world::generate::generate;
use varia::world::moves::Movement;
use varia::world::sight::Sight;
use varia::world::{BoardId, Pos, Realm, round};

fn caissan() -> std::sync::Arc<Variant> {
    Variant::load("caissan").expect("caissan loads")
}

/// A generated world after `rounds` rounds of its bots (conquered boards, pieces on
/// other players' boards, empty squares where pieces left).
fn played(v: &Variant, boards: usize, seed: u64, rounds: u64) -> Realm {
    let rules = v.world.as_deref().unwrap();
    let m = Movement::new(v, rules);
    let mut realm = generate(rules, boards, boards / 5, seed);
    for r in 0..rounds {
        let given = round::bot_orders(&m, &realm, seed + r, false);
        realm = round::resolve(v, &realm, given, seed + r, false).unwrap().realm;
    }
    realm
}

/// Asks the sight of `realm` (made on one thread and on several) whether each square of
/// every board, and of a ring of boards around them that do not exist, is attacked (for
/// the board's owner, the piece standing there and two others) and guarded, and checks
/// every answer it gives against the scans. Returns (questions on existing boards,
/// answered by the masks, attacked squares, guarded pieces).
fn sight_against_scans(m: &Movement, realm: &Realm, what: &str) -> (usize, usize, usize, usize) {
    let cells = &realm.cells;
    let tile = m.tile();
    let sight = Sight::new(m, cells, false);
    let threaded = Sight::new(m, cells, true);
    let occ = |p: Pos| cells.get(p);
    let players = realm.players.len() as u32;
    let (mut asked, mut told, mut attacked, mut guarded) = (0usize, 0usize, 0usize, 0usize);
    let mut boards: Vec<BoardId> = cells.boards().to_vec();
    let side = (boards.len() as f64).sqrt() as i32 / 2 + 2;
    boards.extend((-side..=side).flat_map(|i| {
        [
            BoardId { bx: i, by: -side },
            BoardId { bx: i, by: side },
            BoardId { bx: -side, by: i },
            BoardId { bx: side, by: i },
        ]
    }));
    for b in boards {
        let w = cells.window(b);
        for sq in b.squares(tile) {
            let here = cells.get(sq);
            let owner = cells.owner(b);
            let mut victims = vec![here.owner(), owner, (owner.wrapping_add(1)) % players, 0];
            victims.retain(|&o| o < players);
            for o in victims {
                let kind = if here.is_empty() { KindId(1) } else { here.kind() };
                let victim = Cell::piece(o, kind);
                let truth = m.attacked(&occ, sq, victim);
                attacked += truth as usize;
                let a = sight.attacked_at(&w, sq, o);
                assert_eq!(a, threaded.attacked_at(&w, sq, o), "{what}: threads change {sq}");
                if cells.find(b).is_some() {
                    asked += 1;
                    told += a.is_some() as usize;
                }
                if let Some(a) = a {
                    assert_eq!(a, truth, "{what}: attacked {sq} for player {o} (board owner {owner})");
                }
            }
            if !here.is_empty() {
                let truth = m.guarded(&occ, sq, here);
                guarded += truth as usize;
                assert_eq!(sight.guarded_at(&w, sq), Some(truth), "{what}: guarded {sq}");
                assert_eq!(threaded.guarded_at(&w, sq), Some(truth), "{what}: threads change the guard of {sq}");
            }
        }
    }
    (asked, told, attacked, guarded)
}

#[test]
fn the_sight_answers_as_the_scans_do_on_every_square() {
    let v = caissan();
    let rules = v.world.as_deref().unwrap();
    let m = Movement::new(&v, rules);
    for (boards, seed, rounds) in [(900, 3, 0), (1_200, 5, 3)] {
        let realm = played(&v, boards, seed, rounds);
        let (asked, told, attacked, guarded) = sight_against_scans(&m, &realm, &format!("round {rounds}"));
        // On the boards that exist the masks answer most questions (all but those of a
        // victim other than the owner where others attack too: for the board's owner
        // they always tell); both answers are common.
        assert!(told * 10 > asked * 8, "{told} of {asked} answered by the masks");
        assert!(attacked > 1_000 && guarded > 500, "{attacked} attacked, {guarded} guarded: too few to compare");
    }
}

/// Caissan's rules with `edits` (pairs of text and its replacement) made to its TOML.
fn caissan_with(edits: &[(&str, &str)]) -> std::sync::Arc<Variant> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/caissan/variant.toml");
    let mut text = std::fs::read_to_string(path).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "caissan's TOML has no `{from}`");
        text = text.replacen(from, to, 1);
    }
    Variant::from_toml(&text, "caissan_edited.toml").expect("the edited caissan loads")
}

#[test]
fn the_sight_answers_as_the_scans_do_with_other_movements() {
    // The sight's tables on lines other than Caissan's: paths entering two other boards
    // or none, a slide of limited range, a slide by a knight's vector (lines that skip
    // squares), leaps landing two boards away, an atom used only from a region, and (not
    // exact: the attack masks then do not tell, the guards still do) atoms that never
    // capture some kind or are silenced by an adjacent enemy.
    let far = [
        ("max_other_boards = 1 ", "max_other_boards = 2 "),
        (r#"moves = [{ slide = "orthogonal" }]"#, r#"moves = [{ slide = "orthogonal", range = 3 }]"#),
        (r#"moves = [{ slide = "diagonal" }]"#, r#"moves = [{ slide = "diagonal" }, { slide = [[2, 1], [-1, -2]] }]"#),
        (
            r#"moves = [{ leap = "knight" }]"#,
            r#"moves = [{ leap = "knight" }, { leap = [[0, 7], [-11, 1]] }, { leap = "orthogonal", distance = 2, from = "middle" }]"#,
        ),
        ("[world]\n", "[regions]\nmiddle = { ranks = [2, 3, 4] }\n\n[world]\n"),
    ];
    let home = [("max_other_boards = 1 ", "max_other_boards = 0 ")];
    let picky = [
        (r#"moves = [{ leap = "knight" }]"#, r#"moves = [{ leap = "knight", cannot_capture = ["queen", "bishop"] }]"#),
        (
            r#"moves = [{ slide = "diagonal" }]"#,
            r#"moves = [{ slide = "diagonal", silenced_by_adjacent_enemy = true }]"#,
        ),
    ];
    for (what, edits, exact) in [("far", &far[..], true), ("home", &home[..], true), ("picky", &picky[..], false)] {
        let v = caissan_with(edits);
        let rules = v.world.as_deref().unwrap();
        let m = Movement::new(&v, rules);
        for (boards, seed, rounds) in [(400, 3, 0), (600, 5, 3)] {
            let realm = played(&v, boards, seed, rounds);
            let (asked, told, attacked, guarded) = sight_against_scans(&m, &realm, &format!("{what}, round {rounds}"));
            if exact {
                assert!(told * 10 > asked * 8, "{what}: {told} of {asked} answered by the masks");
            } else {
                assert_eq!(told, 0, "{what}: the attack masks answer for a variant whose attacks depend on the victim");
            }
            assert!(
                attacked > 300 && guarded > 150,
                "{what}: {attacked} attacked, {guarded} guarded: too few to compare"
            );
        }
    }
}

#[test]
fn the_bots_give_the_same_orders_with_and_without_the_sight() {
    let v = caissan();
    let rules = v.world.as_deref().unwrap();
    let m = Movement::new(&v, rules);
    for (boards, seed, rounds) in [(1_000, 2, 0), (1_000, 9, 2)] {
        let realm = played(&v, boards, seed, rounds);
        let sight = Sight::new(&m, &realm.cells, true);
        let pieces = round::pieces_by_player(&realm);
        for (p, mine) in pieces.iter().enumerate() {
            let slow = varia::world::bot::orders(&m, &realm, p as u32, mine, 77);
            let fast = varia::world::bot::orders_seen(&m, &realm, &sight, p as u32, mine, 77);
            assert_eq!(slow, fast, "player {p} after {rounds} rounds");
        }
    }
}

/// A state from the contract's JSON.
fn state(v: &Variant, json: &str) -> Realm {
    Realm::from_json(v, &serde_json::from_str(json).unwrap()).unwrap()
}

#[test]
fn a_bot_rescues_its_king_with_its_other_orders_laid_over_the_start() {
    // alice's king on [2, 2] (board [0, 0]) is attacked by bob's knight on [0, 1]
    // ((0, 1) + (2, 1)); she holds no other piece on that board, so its action is a king
    // move. On board [0, -1] her bishop on [1, -1] can take bob's queen on [3, -3]
    // ([2, -2] is empty; bob's rook on [1, -4] and knight do not guard it): the most
    // valuable unguarded piece in reach, and that board comes first ((y, x) order).
    // The bishop also shields [1, 1] from the rook (the file x = 1: [1, -3], [1, -2],
    // [1, -1] on board [0, -1], then [1, 0], [1, 1] on [0, 0]: one other board).
    // Judged on the start position alone, the king's first safe flee is [1, 1]; with the
    // bishop gone the rook sees it, and the server would force the flee to [2, 1], the
    // lowest safe square. The bot flees there itself: of the king's squares in (y, x)
    // order, [1, 1] is on the rook's file and [2, 1] is safe (the knight on [0, 1] reaches
    // [2, 0], [2, 2], [1, 3]; the rook only its file and rank; the queen is taken).
    let v = caissan();
    let rules = v.world.as_deref().unwrap();
    let m = Movement::new(&v, rules);
    let realm = state(
        &v,
        r#"{"players":["alice","bob"],
            "boards":[{"board":[0,0],"owner":"alice"},{"board":[0,-1],"owner":"alice"}],
            "pieces":[{"x":2,"y":2,"owner":"alice","kind":"K"},{"x":1,"y":-1,"owner":"alice","kind":"B"},
                      {"x":0,"y":1,"owner":"bob","kind":"N"},{"x":3,"y":-3,"owner":"bob","kind":"Q"},
                      {"x":1,"y":-4,"owner":"bob","kind":"R"}]}"#,
    );
    use varia::world::orders::Order;
    let mine = [Pos::new(2, 2), Pos::new(1, -1)];
    let want = vec![
        Order::Move { from: Pos::new(1, -1), to: Pos::new(3, -3) },
        Order::Move { from: Pos::new(2, 2), to: Pos::new(2, 1) },
    ];
    assert_eq!(varia::world::bot::orders(&m, &realm, 0, &mine, 1), want);
    let sight = Sight::new(&m, &realm.cells, false);
    assert_eq!(varia::world::bot::orders_seen(&m, &realm, &sight, 0, &mine, 1), want);
    // The server accepts both and forces nothing.
    let mut given: varia::world::resolve::GivenOrders = vec![None; 2];
    given[0] = Some(want.into_iter().map(Ok).collect());
    let r = round::resolve(&v, &realm, given, 1, false).unwrap();
    assert_eq!(r.plans[0].results, vec![Ok(()), Ok(())]);
    assert!(r.plans[0].flees.is_empty(), "forced flees: {:?}", r.plans[0].flees);
    assert_eq!(r.realm.cells.get(Pos::new(2, 1)).kind(), v.kind_by_letter('K').unwrap(), "the king stands on [2, 1]");
}

#[test]
fn chained_bot_rounds_need_no_forced_flee_and_refuse_no_bot_order() {
    let v = caissan();
    let rules = v.world.as_deref().unwrap();
    let m = Movement::new(&v, rules);
    let (mut endangered, mut moved) = (0usize, 0usize);
    for (boards, seed) in [(3_000, 1), (2_000, 4)] {
        let mut realm = generate(rules, boards, boards / 5, seed);
        for r in 0..4u64 {
            // Kings in danger at the start of the round (what the bots must answer).
            let kings = round::kings_by_player(&m, &realm);
            let occ = |p: Pos| realm.cells.get(p);
            endangered += kings.iter().flatten().filter(|&&k| m.attacked(&occ, k, realm.cells.get(k))).count();
            let given = round::bot_orders(&m, &realm, seed * 100 + r, true);
            let res = round::resolve(&v, &realm, given, seed * 100 + r, true).unwrap();
            for (p, plan) in res.plans.iter().enumerate() {
                assert!(plan.flees.is_empty(), "{boards} boards, round {r}: player {p}: forced flees {:?}", plan.flees);
                for (i, x) in plan.results.iter().enumerate() {
                    assert!(x.is_ok(), "{boards} boards, round {r}: player {p}'s order {} refused: {x:?}", i + 1);
                }
                moved += plan.moves.len();
            }
            realm = res.realm;
        }
    }
    assert!(endangered > 2_000 && moved > 10_000, "{endangered} kings in danger, {moved} moves: too few to tell");
}
