//! The bots of a world of boards and the round's sight they stand on: the sight's masks
//! answer as the scans do, and the bots give the same orders with or without it.

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

#[test]
fn the_sight_answers_as_the_scans_do_on_every_square() {
    let v = caissan();
    let rules = v.world.as_deref().unwrap();
    let m = Movement::new(&v, rules);
    for (boards, seed, rounds) in [(900, 3, 0), (1_200, 5, 3)] {
        let realm = played(&v, boards, seed, rounds);
        let cells = &realm.cells;
        let sight = Sight::new(&m, cells, false);
        let threaded = Sight::new(&m, cells, true);
        let occ = |p: Pos| cells.get(p);
        let players = realm.players.len() as u32;
        let (mut asked, mut told, mut attacked, mut guarded) = (0usize, 0usize, 0usize, 0usize);
        // Every square of every board, and a ring of boards around the block that do not
        // exist (the masks do not tell there).
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
            for sq in b.squares(rules.tile) {
                let here = cells.get(sq);
                let owner = cells.owner(b);
                // Victims: the board's owner, the piece standing there, two others.
                let mut victims = vec![here.owner(), owner, (owner.wrapping_add(1)) % players, 0];
                victims.retain(|&o| o < players);
                for o in victims {
                    let kind = if here.is_empty() { KindId(1) } else { here.kind() };
                    let victim = Cell::piece(o, kind);
                    let truth = m.attacked(&occ, sq, victim);
                    attacked += truth as usize;
                    let a = sight.attacked_at(&w, sq, o);
                    assert_eq!(a, threaded.attacked_at(&w, sq, o), "threads change {sq}");
                    if cells.find(b).is_some() {
                        asked += 1;
                        told += a.is_some() as usize;
                        // For the board's owner the masks always tell.
                        assert!(o != owner || a.is_some(), "no answer for the owner of {b} on {sq}");
                    }
                    if let Some(a) = a {
                        assert_eq!(a, truth, "attacked {sq} for player {o} (board owner {owner}, round {rounds})");
                    }
                }
                if !here.is_empty() {
                    let truth = m.guarded(&occ, sq, here);
                    guarded += truth as usize;
                    assert_eq!(sight.guarded_at(&w, sq), Some(truth), "guarded {sq} (round {rounds})");
                }
            }
        }
        // On the boards that exist the masks answer most questions (all but those of a
        // victim other than the owner where others attack too); both answers are common.
        assert!(told * 10 > asked * 8, "{told} of {asked} answered by the masks");
        assert!(attacked > 1_000 && guarded > 500, "{attacked} attacked, {guarded} guarded: too few to compare");
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
