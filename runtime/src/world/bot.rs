//! The bot that orders for idle players (and for every player of a generated world in
//! `varia bench realm`): seeded, legal, and sensible — it places royal pieces on safe
//! squares, rescues royal pieces in danger, takes unguarded enemies (the most valuable
//! first), moves its own hanging pieces away, drops from the vault onto safe squares,
//! and otherwise makes a move that does not hang the piece moved.

use super::cells::{Cell, Window};
use super::geometry::{BoardId, Pos};
use super::moves::Movement;
use super::orders::{Order, Overlay};
use super::sight::Sight;
use super::state::Realm;
use crate::piece::KindId;
use crate::rng::Rng;

/// How many quiet moves the bot tries per board before it passes (it tries them in a
/// random order, so this bounds the work, not the choice).
const QUIET_TRIES: usize = 8;

/// The bot's seed for one player and round: the same realm, round and seed give the
/// same orders, whatever else is resolved alongside.
fn seed_for(seed: u64, round: u64, player: u32) -> u64 {
    let mut r = Rng::new(
        seed ^ round.wrapping_mul(0xa076_1d64_78bd_642f) ^ (player as u64).wrapping_mul(0xe703_7ed1_a0b4_28db),
    );
    r.next_u64()
}

/// The questions the bot asks around one board, on the round's start position: answered
/// from the round's [`Sight`] where it tells, else by scans (the same answers).
struct Look<'a, 'v> {
    m: &'a Movement<'v>,
    sight: &'a Sight,
    w: Window<'a>,
}

impl Look<'_, '_> {
    #[inline]
    fn occ(&self, p: Pos) -> Cell {
        self.w.get(p)
    }

    /// Whether `c` on `p` is attacked.
    fn attacked(&self, p: Pos, c: Cell) -> bool {
        self.sight.attacked_at(&self.w, p, c.owner()).unwrap_or_else(|| self.m.attacked(&|q| self.w.get(q), p, c))
    }

    /// Whether the piece `c` standing on `p` is guarded by its owner.
    fn guarded(&self, p: Pos, c: Cell) -> bool {
        self.sight.guarded_at(&self.w, p).unwrap_or_else(|| self.m.guarded(&|q| self.w.get(q), p, c))
    }

    /// Whether `c`, moved from `from` (or dropped: None) to `to`, is not attacked there.
    fn safe_after(&self, from: Option<Pos>, to: Pos, c: Cell) -> bool {
        let w = &self.w;
        match self.sight.attacked_at(w, to, c.owner()) {
            Some(true) => false,
            Some(false) => match from {
                None => true,
                // The start position's attacks on `to` stand; leaving `from` may open a line.
                Some(f) => {
                    let occ = |q: Pos| {
                        if q == f {
                            Cell::EMPTY
                        } else if q == to {
                            c
                        } else {
                            w.get(q)
                        }
                    };
                    !self.m.attacked_via(&occ, to, f, c)
                }
            },
            None => {
                let base = |q: Pos| w.get(q);
                let mut o = Overlay::new(&base);
                if let Some(f) = from {
                    o.set(f, Cell::EMPTY);
                }
                o.set(to, c);
                !self.m.attacked(&|q| o.get(q), to, c)
            }
        }
    }
}

/// The bot's orders for `player`, whose pieces are `mine` (any order).
pub fn orders(m: &Movement, realm: &Realm, player: u32, mine: &[Pos], seed: u64) -> Vec<Order> {
    orders_seen(m, realm, &Sight::none(), player, mine, seed)
}

/// [`orders`] with the round's [`Sight`] of `realm` (the same orders, found faster).
pub fn orders_seen(m: &Movement, realm: &Realm, sight: &Sight, player: u32, mine: &[Pos], seed: u64) -> Vec<Order> {
    let mut rng = Rng::new(seed_for(seed, realm.round, player));
    let cells = &realm.cells;
    let tile = m.tile();
    let value = |k: KindId| m.v.kinds[k.index()].value.max(1) as i64;
    let mut out = Vec::new();
    let mut dests: Vec<Pos> = Vec::new();
    // Royal pieces to place.
    let royal = (0..m.v.kinds.len()).map(|k| KindId(k as u8)).find(|&k| m.is_royal(k));
    for &(board, p) in &realm.pending {
        let (true, Some(k)) = (p == player, royal) else { continue };
        let kc = Cell::piece(player, k);
        let look = Look { m, sight, w: cells.window(board) };
        let free: Vec<Pos> = board.squares(tile).filter(|&s| cells.get(s).is_empty()).collect();
        let safe: Vec<Pos> = free.iter().copied().filter(|&s| look.safe_after(None, s, kc)).collect();
        let pick = if safe.is_empty() { &free } else { &safe };
        if !pick.is_empty() {
            let to = pick[rng.below(pick.len() as u64) as usize];
            dests.push(to);
            out.push(Order::PlaceKing { board, to });
        }
    }
    let mut mine: Vec<Pos> = mine.to_vec();
    mine.sort_by_key(|p| (p.board(tile), *p));
    let mut i = 0;
    let mut scratch = Scratch::default();
    // What is left to drop, as the bot's own drops use it up.
    let mut vault = realm.vaults[player as usize].clone();
    while i < mine.len() {
        let b: BoardId = mine[i].board(tile);
        let mut j = i;
        while j < mine.len() && mine[j].board(tile) == b {
            j += 1;
        }
        let here = &mine[i..j];
        i = j;
        let look = Look { m, sight, w: cells.window(b) };
        if let Some(o) = board_order(&look, player, here, &mut dests, &mut rng, &mut scratch, &value, &mut vault) {
            if let Order::Move { to, .. } | Order::Drop { to, .. } = o {
                dests.push(to);
            }
            out.push(o);
        } else {
            out.push(Order::Pass { board: b });
        }
    }
    out
}

/// Lists a board's order is worked out in, kept from board to board (allocating them
/// per board cost more than the questions asked).
#[derive(Default)]
struct Scratch {
    targets: Vec<(Pos, super::moves::Reach)>,
    all: Vec<(Pos, Pos)>,
    caps: Vec<(i64, u64, Pos, Pos)>,
    squares: Vec<Pos>,
    quiet: Vec<(Pos, Pos)>,
}

#[allow(clippy::too_many_arguments)]
fn board_order(
    look: &Look,
    player: u32,
    here: &[Pos],
    dests: &mut [Pos],
    rng: &mut Rng,
    scratch: &mut Scratch,
    value: &impl Fn(KindId) -> i64,
    vault: &mut crate::mechanics::reserve::Reserve,
) -> Option<Order> {
    let m = look.m;
    let tile = m.tile();
    let occ = |p: Pos| look.occ(p);
    let Scratch { targets, all, caps, squares, quiet } = scratch;
    let safe_after = |from: Option<Pos>, to: Pos, c: Cell| look.safe_after(from, to, c);
    let free_dest = |t: Pos, dests: &[Pos]| !dests.contains(&t);
    // A royal piece in danger: flee to safety, or take the attacker.
    for &k in here {
        let kc = occ(k);
        if !m.is_royal(kc.kind()) {
            continue;
        }
        if !look.attacked(k, kc) {
            continue;
        }
        let Some(att) = m.attacker(&occ, k, kc) else { continue };
        m.targets(&occ, k, kc, targets);
        targets.sort_by_key(|&(p, _)| p);
        for &(t, _) in targets.iter() {
            let tc = occ(t);
            let guarded = !tc.is_empty() && !m.is_royal(tc.kind()) && look.guarded(t, tc);
            if free_dest(t, dests) && !guarded && safe_after(Some(k), t, kc) {
                return Some(Order::Move { from: k, to: t });
            }
        }
        for &p in here {
            if p == k {
                continue;
            }
            let c = occ(p);
            let a = occ(att);
            if m.reaches(&occ, p, c, att, Some(a), super::moves::Block::Owner(player)).is_some()
                && (m.is_royal(a.kind()) || !look.guarded(att, a))
                && free_dest(att, dests)
            {
                return Some(Order::Move { from: p, to: att });
            }
        }
    }
    // Every piece's targets, found once; only those whose way is clear of every piece
    // (an order may pass enemies, but a bot does not bet on them moving away).
    all.clear();
    for &p in here {
        m.targets(&occ, p, occ(p), targets);
        all.extend(targets.iter().filter(|&&(_, r)| r.clear).map(|&(t, _)| (p, t)));
    }
    // The most valuable unguarded enemy in reach: candidates by value (ties in a seeded
    // order), each guard looked up only when it is the best left.
    caps.clear();
    for &(p, t) in all.iter() {
        let tc = occ(t);
        if tc.is_empty() || !free_dest(t, dests) {
            continue;
        }
        let gain = if m.is_royal(tc.kind()) { 1_000_000 } else { value(tc.kind()) };
        caps.push((gain, rng.next_u64(), p, t));
    }
    caps.sort_by_key(|c| std::cmp::Reverse((c.0, c.1)));
    for &(_, _, from, to) in caps.iter() {
        let tc = occ(to);
        if m.is_royal(tc.kind()) || !look.guarded(to, tc) {
            return Some(Order::Move { from, to });
        }
    }
    // An own piece hanging (attacked, unguarded): move it somewhere safe.
    for &p in here {
        let c = occ(p);
        if m.is_royal(c.kind()) || !look.attacked(p, c) || look.guarded(p, c) {
            continue;
        }
        squares.clear();
        squares.extend(all.iter().filter(|&&(f, _)| f == p).map(|&(_, t)| t));
        let n = squares.len();
        for s in 0..n.min(QUIET_TRIES) {
            let t = squares[(s + rng.below(n as u64) as usize) % n];
            if occ(t).is_empty() && free_dest(t, dests) && safe_after(Some(p), t, c) {
                return Some(Order::Move { from: p, to: t });
            }
        }
    }
    // A drop from the vault: the most valuable kind, onto a safe empty square.
    let board = here[0].board(tile);
    let mut kinds: Vec<KindId> = (0..m.v.kinds.len())
        .map(|k| KindId(k as u8))
        .filter(|&k| vault.count(k) > 0 && m.rules.reserve.holds(k))
        .collect();
    kinds.sort_by_key(|&k| -value(k));
    if let Some(&k) = kinds.first() {
        squares.clear();
        squares.extend(board.squares(tile).filter(|&s| occ(s).is_empty() && free_dest(s, dests)));
        let n = squares.len();
        for s in 0..n.min(QUIET_TRIES) {
            let t = squares[(s + rng.below(n as u64) as usize) % n];
            if safe_after(None, t, Cell::piece(player, k)) {
                vault.take(k);
                return Some(Order::Drop { kind: k, to: t });
            }
        }
    }
    // A quiet move that does not hang the piece moved.
    quiet.clear();
    quiet.extend(all.iter().copied().filter(|&(f, t)| !m.is_royal(occ(f).kind()) && occ(t).is_empty()));
    for _ in 0..QUIET_TRIES {
        if quiet.is_empty() {
            break;
        }
        let (p, t) = quiet[rng.below(quiet.len() as u64) as usize];
        if free_dest(t, dests) && safe_after(Some(p), t, occ(p)) {
            return Some(Order::Move { from: p, to: t });
        }
    }
    None
}
