//! The five-queen transfer (CA-19, CA-20, A-CA16). A player sends a queen from their
//! home city along a road to a linked city where a player is present, paying
//! [`TRANSFER_COST`] queens from their vault at once. After the next resolution, in its
//! transaction, [`arrive`] puts one queen on an empty square of a random active border
//! board of the destination on the side facing home, and the other four into the home
//! city's mayor vault; with no such square, all five go back to the sender's vault.
//!
//! Words the rules leave open, as decided here:
//! - **home city**: the city where the player holds the most boards (then the most pieces
//!   on those boards, then the lowest city id), judged when the transfer is ordered;
//! - **present player**: a player (not eliminated) with a piece standing in the city;
//! - **active border board**: a board on the edge of the city's rectangle with an owner
//!   who is not eliminated (no new boards are opened, CA-20);
//! - **side facing home** (A-CA16): of the destination's four sides, the one whose
//!   midpoint is nearest the home city's centre; sides at the same distance all count.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use varia::world::json::{PieceJson, StateJson};
use varia::world::state::world_of;

use crate::chat::{Geometry, Scope, standings};
use crate::db::{Lock, Mode, Tx};
use crate::error::Error;
use crate::mayor::add_to_mayor_vault;
use crate::service::{Service, parse_state, round_seed};
use crate::store::{self, City};

/// The kind that travels, and what a transfer costs in it (CA-20).
pub const TRANSFER_KIND: &str = "Q";
pub const TRANSFER_COST: u32 = 5;

/// A transfer as its sender sees it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Transfer {
    pub id: i64,
    /// The round after whose resolution the queen arrives.
    pub round: u64,
    pub player: String,
    pub from: String,
    pub to: String,
    /// Null until the round is resolved.
    pub outcome: Option<Outcome>,
}

/// What became of a transfer at the resolution.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Outcome {
    /// The queen stands on `square` of `board`; `to_mayor` queens went to the home
    /// city's mayor vault.
    Arrived { board: [i32; 2], square: [i32; 2], to_mayor: u32 },
    /// No active border board on the side facing home had an empty square (or the
    /// sender was eliminated): the queens went back to the sender's vault, those beyond
    /// its cap destroyed (A-CA12).
    Refunded { refunded: u32, destroyed: u32, reason: String },
}

/// The city a player sends from: most boards there, then pieces on them, then lowest id.
pub fn home_city<'a>(state: &StateJson, geo: Geometry, cities: &'a [City], player: &str) -> Option<&'a City> {
    let mut best: Option<(&City, u64, u64)> = None;
    for c in cities {
        let Some(s) = standings(state, geo, cities, Scope::City(c)).into_iter().find(|s| s.player == player) else {
            continue;
        };
        if s.boards == 0 {
            continue;
        }
        if best.is_none_or(|(_, b, p)| (s.boards, s.pieces) > (b, p)) {
            best = Some((c, s.boards, s.pieces));
        }
    }
    best.map(|(c, _, _)| c)
}

/// Whether a board lies on a side of `dest` nearest `home`'s centre (sides at the same
/// distance all count).
pub fn facing(dest: &City, home: &City) -> impl Fn([i32; 2]) -> bool + use<> {
    let [[x0, y0], [x1, y1]] = dest.boards.map(|b| b.map(i64::from));
    let [[hx0, hy0], [hx1, hy1]] = home.boards.map(|b| b.map(i64::from));
    // Doubled coordinates keep the midpoints whole.
    let (cx, cy) = (hx0 + hx1, hy0 + hy1);
    let sides = [(x0 + x1, 2 * y0), (2 * x0, y0 + y1), (2 * x1, y0 + y1), (x0 + x1, 2 * y1)];
    let d = sides.map(|(x, y)| (x - cx).pow(2) + (y - cy).pow(2));
    let best = d.iter().copied().min().unwrap_or(0);
    let near = d.map(|v| v == best);
    move |[bx, by]: [i32; 2]| {
        let (bx, by) = (i64::from(bx), i64::from(by));
        let inside = (x0..=x1).contains(&bx) && (y0..=y1).contains(&by);
        let on = [by == y0, bx == x0, bx == x1, by == y1];
        inside && (0..4).any(|i| on[i] && near[i])
    }
}

/// The boards of `dest`'s sides facing `home`, in (y, x) order (its edge walked whole:
/// for people and tests; [`arrive`] tests only the boards that have owners).
pub fn facing_side(dest: &City, home: &City) -> Vec<[i32; 2]> {
    let f = facing(dest, home);
    let [[x0, y0], [x1, y1]] = dest.boards;
    let mut out = Vec::new();
    for by in y0..=y1 {
        let xs: Vec<i32> = if by == y0 || by == y1 { (x0..=x1).collect() } else { vec![x0, x1] };
        for bx in xs {
            if f([bx, by]) && !out.contains(&[bx, by]) {
                out.push([bx, by]);
            }
        }
    }
    out
}

fn draw(seed: u64, n: usize) -> usize {
    (seed % n as u64) as usize
}

/// Whether a player of `state` has a piece standing in `city`.
fn present(state: &StateJson, geo: Geometry, city: &City) -> bool {
    state.pieces.iter().any(|p| city.contains(geo.board_of_square(p.x, p.y)) && !state.eliminated.contains(&p.owner))
}

fn vault_total(state: &StateJson, player: &str) -> u64 {
    state.vaults.get(player).map_or(0, |v| v.values().map(|&n| u64::from(n)).sum())
}

/// Resolves the transfers of `round` on the state after its resolution: every arrival
/// and refund, in the order the transfers were made. `seed` is the realm's.
pub fn arrive(
    tx: &mut dyn Tx,
    state: &mut StateJson,
    round: u64,
    seed: u64,
    geo: Geometry,
    cap: u32,
) -> Result<Vec<Transfer>, Error> {
    let cities = store::cities(tx)?;
    let mut done = Vec::new();
    for mut t in transfers_where(tx, "t.round = ?1", &[(round as i64).into()])? {
        let (Some(home), Some(dest)) =
            (cities.iter().find(|c| c.name == t.from), cities.iter().find(|c| c.name == t.to))
        else {
            return Err(Error::Corrupt { what: format!("transfer {}: unknown city", t.id) });
        };
        let occupied: std::collections::HashSet<(i32, i32)> = state.pieces.iter().map(|p| (p.x, p.y)).collect();
        let owners: BTreeMap<[i32; 2], &str> =
            state.boards.iter().filter_map(|b| Some((b.board, b.owner.as_deref()?))).collect();
        let (tw, th) = geo.tile;
        let empty_of = |[bx, by]: [i32; 2]| -> Vec<[i32; 2]> {
            let mut v = Vec::new();
            for y in by * th..(by + 1) * th {
                for x in bx * tw..(bx + 1) * tw {
                    if !occupied.contains(&(x, y)) {
                        v.push([x, y]);
                    }
                }
            }
            v
        };
        let faces = facing(dest, home);
        // `owners` is keyed by board, so in (x, y) order; draws are made in (y, x) order.
        let mut candidates: Vec<[i32; 2]> = owners
            .iter()
            .filter(|&(&b, o)| faces(b) && !state.eliminated.iter().any(|e| e == o))
            .map(|(&b, _)| b)
            .filter(|&b| !empty_of(b).is_empty())
            .collect();
        candidates.sort_by_key(|&[x, y]| (y, x));
        let gone = state.eliminated.contains(&t.player);
        let outcome = if candidates.is_empty() || gone {
            let room = if cap == 0 { u64::MAX } else { u64::from(cap).saturating_sub(vault_total(state, &t.player)) };
            let refunded = u64::from(TRANSFER_COST).min(room) as u32;
            if refunded > 0 {
                let slot = state.vaults.entry(t.player.clone()).or_default().entry(TRANSFER_KIND.into()).or_default();
                *slot = slot.saturating_add(refunded);
            }
            let reason = if gone {
                format!("{} was eliminated", t.player)
            } else {
                format!("no active border board of {} facing {} has an empty square", dest.name, home.name)
            };
            Outcome::Refunded { refunded, destroyed: TRANSFER_COST - refunded, reason }
        } else {
            // One draw per choice, each from the round's seed and the transfer's id.
            let s = round_seed(round_seed(seed, round), t.id as u64);
            let board = candidates[draw(s, candidates.len())];
            let squares = empty_of(board);
            let square = squares[draw(round_seed(s, 1), squares.len())];
            state.pieces.push(PieceJson {
                x: square[0],
                y: square[1],
                owner: t.player.clone(),
                kind: TRANSFER_KIND.into(),
            });
            state.pieces.sort_by_key(|p| (p.y, p.x));
            add_to_mayor_vault(tx, home.id, TRANSFER_KIND, i64::from(TRANSFER_COST - 1))?;
            Outcome::Arrived { board, square, to_mayor: TRANSFER_COST - 1 }
        };
        tx.exec(
            "UPDATE transfers SET outcome = ?1 WHERE id = ?2",
            &[serde_json::to_string(&outcome)?.into(), t.id.into()],
        )?;
        t.outcome = Some(outcome);
        done.push(t);
    }
    Ok(done)
}

fn transfers_where(tx: &mut dyn Tx, cond: &str, params: &[crate::db::Value]) -> Result<Vec<Transfer>, Error> {
    let sql = format!(
        "SELECT t.id, t.round, t.player, h.name, d.name, t.outcome FROM transfers t
         JOIN cities h ON h.id = t.home JOIN cities d ON d.id = t.dest WHERE {cond} ORDER BY t.id"
    );
    let mut out = Vec::new();
    for r in tx.query(&sql, params)? {
        let outcome = match &r[5] {
            crate::db::Value::Null => None,
            v => Some(
                serde_json::from_str(v.text()?)
                    .map_err(|e| Error::Corrupt { what: format!("transfer outcome: {e}") })?,
            ),
        };
        out.push(Transfer {
            id: r[0].int()?,
            round: r[1].int()? as u64,
            player: r[2].text()?.to_string(),
            from: r[3].text()?.to_string(),
            to: r[4].text()?.to_string(),
            outcome,
        });
    }
    Ok(out)
}

impl Service {
    /// Sends a queen from the token's player's home city to `to` (CA-19, CA-20): five
    /// vault queens are paid now, the queen arrives after the open round's resolution.
    pub fn transfer(&mut self, token: &str, to: &str) -> Result<Transfer, Error> {
        let tile = world_of(self.variant())?.tile;
        self.with_player(token, Mode::Write, |tx, player, _, now| {
            tx.lock_meta(Lock::Update)?;
            let meta = store::meta(tx)?;
            let geo = Geometry { tile, sector_boards: meta.sector_boards };
            let (round, text) = store::world(tx)?;
            if now >= meta.deadline {
                return Err(Error::DeadlinePassed { round, deadline: meta.deadline });
            }
            meta.check_not_resolving()?;
            let mut state = parse_state(&text)?;
            let cities = store::cities(tx)?;
            let dest = cities.iter().find(|c| c.name == to).ok_or_else(|| Error::NotFound {
                message: format!("no city is called `{}`", to.chars().take(40).collect::<String>()),
            })?;
            let refuse = |message: String| Err(Error::Refused { message });
            let Some(home) = home_city(&state, geo, &cities, player) else {
                return refuse(format!("{player} holds no board in any city: a queen is sent from your home city"));
            };
            if home.id == dest.id {
                return refuse(format!("{} is your home city", home.name));
            }
            if !home.roads.contains(&dest.name) {
                return refuse(format!("no road leads from {} to {}", home.name, dest.name));
            }
            if !present(&state, geo, dest) {
                return refuse(format!("nobody is present in {}: no piece stands there", dest.name));
            }
            let have = state.vaults.get(player).and_then(|v| v.get(TRANSFER_KIND)).copied().unwrap_or(0);
            if have < TRANSFER_COST {
                return refuse(format!("a transfer costs {TRANSFER_COST} vault queens; {player}'s vault holds {have}"));
            }
            let vault = state.vaults.entry(player.to_string()).or_default();
            vault.insert(TRANSFER_KIND.into(), have - TRANSFER_COST);
            if have == TRANSFER_COST {
                vault.remove(TRANSFER_KIND);
            }
            let rows = tx.query("SELECT MAX(id) FROM transfers", &[])?;
            let id = match rows.first().map(|r| &r[0]) {
                Some(crate::db::Value::Int(i)) => {
                    i.checked_add(1).ok_or(Error::Corrupt { what: "transfer ids".into() })?
                }
                _ => 1,
            };
            tx.exec(
                "INSERT INTO transfers (id, round, player, home, dest, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                &[id.into(), (round as i64).into(), player.into(), home.id.into(), dest.id.into(), now.into()],
            )?;
            store::put_world(tx, round, &serde_json::to_string(&state)?)?;
            Ok(Transfer {
                id,
                round,
                player: player.to_string(),
                from: home.name.clone(),
                to: dest.name.clone(),
                outcome: None,
            })
        })
    }

    /// The token's player's transfers, oldest first, with their outcomes.
    pub fn transfers(&mut self, token: &str) -> Result<Vec<Transfer>, Error> {
        self.with_player(token, Mode::Read, |tx, player, _, _| transfers_where(tx, "t.player = ?1", &[player.into()]))
    }
}
