//! Generated worlds, for benchmarks and tests at scale: `boards` boards in a square
//! block around the origin (negative coordinates included), dealt to `players` players
//! in runs of consecutive boards, each board holding a starting set of pieces on
//! squares shuffled by the seed, and each vault a few pieces. Seeded, so the same
//! arguments give the same world.

use super::cells::Cell;
use super::geometry::BoardId;
use super::state::Realm;
use crate::piece::KindId;
use crate::rng::Rng;
use crate::variant::WorldRules;

/// A world of `boards` boards shared by `players` players (at least one each).
pub fn generate(rules: &WorldRules, boards: usize, players: usize, seed: u64) -> Realm {
    let tile = rules.tile;
    let mut realm = Realm::new(tile);
    let players = players.clamp(1, boards.max(1));
    realm.players.reserve(players);
    for p in 0..players {
        realm.add_player(&format!("p{p}"));
    }
    realm.cells.reserve(boards);
    let side = (boards as f64).sqrt().ceil().max(1.0) as i64;
    let mut rng = Rng::new(seed);
    let area = (tile.0 * tile.1) as u64;
    let per = boards.div_ceil(players);
    let mut squares: Vec<u64> = (0..area).collect();
    let held: Vec<KindId> = (0..32u8).map(KindId).filter(|&k| rules.reserve.holds(k)).collect();
    for i in 0..boards {
        let (bx, by) = ((i as i64 % side) - side / 2, (i as i64 / side) - side / 2);
        let b = BoardId { bx: bx as i32, by: by as i32 };
        let owner = (i / per).min(players - 1) as u32;
        realm.cells.set_owner(b, owner);
        let t = realm.cells.board_index(b);
        let cells = realm.cells.board_cells_mut(t);
        // A partial shuffle: the first pieces.len() squares are random and distinct.
        for (j, &(kind, _)) in rules.start.iter().enumerate() {
            let k = j + rng.below(area - j as u64) as usize;
            squares.swap(j, k);
            cells[squares[j] as usize] = Cell::piece(owner, kind);
        }
    }
    if !held.is_empty() {
        for p in 0..players {
            for _ in 0..rng.below(3) {
                let k = held[rng.below(held.len() as u64) as usize];
                let _ = realm.vaults[p].bank(&rules.reserve, k);
            }
        }
    }
    realm
}
