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
    let mut out = Vec::with_capacity(mine.len());
    let mut dests: Vec<Pos> = Vec::with_capacity(mine.len());
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
    // Each board's pieces in `mine`, and the royal pieces in danger at the start.
    let mut boards: Vec<(BoardId, std::ops::Range<usize>)> = Vec::with_capacity(mine.len());
    let mut endangered: Vec<(Pos, Cell)> = Vec::new();
    while i < mine.len() {
        let b: BoardId = mine[i].board(tile);
        let mut j = i;
        while j < mine.len() && mine[j].board(tile) == b {
            j += 1;
        }
        let here = &mine[i..j];
        boards.push((b, i..j));
        i = j;
        let look = Look { m, sight, w: cells.window(b) };
        for &p in here {
            let c = look.occ(p);
            if m.is_royal(c.kind()) && look.attacked(p, c) {
                endangered.push((p, c));
            }
        }
        if let Some(o) = board_order(&look, player, here, &mut dests, &mut rng, &mut scratch, &value, &mut vault) {
            if let Order::Move { to, .. } | Order::Drop { to, .. } = o {
                dests.push(to);
            }
            out.push(o);
        } else {
            out.push(Order::Pass { board: b });
        }
    }
    if !endangered.is_empty() {
        endangered.sort_by_key(|&(p, _)| p);
        secure(m, sight, realm, player, &endangered, &boards, &mine, &mut out, &mut scratch.targets, &value);
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
    // A royal piece in danger: the best rescue on its board (judged on the start
    // position; the player's other orders are laid over it at the end, in `secure`).
    for &k in here {
        let kc = occ(k);
        if !m.is_royal(kc.kind()) || !look.attacked(k, kc) {
            continue;
        }
        let start = |p: Pos| look.occ(p);
        let found = rescue(look, here, &start, k, dests, targets, value, |from, to, c| {
            if from == k {
                look.safe_after(Some(k), to, c)
            } else {
                let mut o = Overlay::new(&start);
                o.set(from, Cell::EMPTY);
                o.set(to, c);
                !m.attacked(&|q| o.get(q), k, kc)
            }
        });
        if let Some((from, to)) = found {
            return Some(Order::Move { from, to });
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
    // The first of the most valuable (a stable sort by value would put it first).
    let best = (0..m.v.kinds.len())
        .map(|k| KindId(k as u8))
        .filter(|&k| vault.count(k) > 0 && m.rules.reserve.holds(k))
        .min_by_key(|&k| -value(k));
    if let Some(k) = best {
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

/// The best rescue of the royal piece on `k`, in danger, by its board's one action. A
/// flee first (the one taking the most, else the lowest (y, x)): a royal piece moves in
/// the first micro-step, before any slider arrives, so it escapes whatever the attacker
/// does; else taking the attacker (with the least valuable piece that can); else stepping into the
/// attacker's line. Taking or blocking counts as a rescue, but the attacker may move
/// first: the bot only falls back on them. `now` is the position the danger is judged
/// on (the start, or the start with the player's other orders laid over it); the orders
/// themselves are judged on the start position (`look`), as the server judges them, and
/// take only clear ways (a bot does not bet on enemies moving away). `dests`: squares
/// the player's other orders go to; `safe(from, to, piece)`: whether the royal piece is
/// safe after that move. Every flee the server could force is among those tried, so with
/// None it forces none.
#[allow(clippy::too_many_arguments)]
fn rescue(
    look: &Look,
    here: &[Pos],
    now: &dyn Fn(Pos) -> Cell,
    k: Pos,
    dests: &[Pos],
    targets: &mut Vec<(Pos, super::moves::Reach)>,
    value: &impl Fn(KindId) -> i64,
    safe: impl Fn(Pos, Pos, Cell) -> bool,
) -> Option<(Pos, Pos)> {
    let m = look.m;
    let occ = |p: Pos| look.occ(p);
    let kc = occ(k);
    let gain = |c: Cell| match c {
        c if c.is_empty() => 0,
        c if m.is_royal(c.kind()) => 1_000_000,
        c => value(c.kind()),
    };
    // The best so far: its gain and the move.
    let mut best: Option<(i64, (Pos, Pos))> = None;
    m.targets(&occ, k, kc, targets);
    targets.sort_by_key(|&(p, _)| p);
    for &(t, _) in targets.iter() {
        let tc = occ(t);
        if dests.contains(&t) || (!tc.is_empty() && !m.is_royal(tc.kind()) && look.guarded(t, tc)) {
            continue;
        }
        if best.is_none_or(|(g, _)| gain(tc) > g) && safe(k, t, kc) {
            best = Some((gain(tc), (k, t)));
        }
    }
    if let Some((_, mv)) = best {
        return Some(mv);
    }
    let att = m.attacker(&|p| now(p), k, kc)?;
    let a = occ(att);
    if !a.is_empty()
        && a.owner() != kc.owner()
        && !dests.contains(&att)
        && (m.is_royal(a.kind()) || !look.guarded(att, a))
    {
        // The least valuable taker first (it risks least), then the lowest (y, x).
        let mut takers: Vec<Pos> = here.iter().copied().filter(|&p| p != k).collect();
        takers.sort_by_key(|&p| (value(occ(p).kind()), p));
        for p in takers {
            let c = occ(p);
            if m.reaches(&occ, p, c, att, Some(a), super::moves::Block::All).is_some() && safe(p, att, c) {
                return Some((p, att));
            }
        }
    }
    // A block: a square strictly between a sliding attacker and the royal piece.
    let (dx, dy) = (k.x - att.x, k.y - att.y);
    let n = dx.abs().max(dy.abs());
    if n < 2 || (dx != 0 && dy != 0 && dx.abs() != dy.abs()) {
        return None;
    }
    let (sx, sy) = (dx.signum(), dy.signum());
    for &p in here {
        let c = occ(p);
        if p == k || m.is_royal(c.kind()) {
            continue;
        }
        for i in 1..n {
            let t = Pos::new(att.x + sx * i, att.y + sy * i);
            let tc = occ(t);
            if dests.contains(&t) || (!tc.is_empty() && (tc.owner() == kc.owner() || look.guarded(t, tc))) {
                continue;
            }
            let target = if tc.is_empty() { None } else { Some(tc) };
            if m.reaches(&occ, p, c, t, target, super::moves::Block::All).is_some() && safe(p, t, c) {
                return Some((p, t));
            }
        }
    }
    None
}

/// The board an order uses the action of (a royal piece's placement uses none).
fn action_board(o: &Order, tile: (i32, i32)) -> Option<BoardId> {
    match *o {
        Order::Move { from, .. } => Some(from.board(tile)),
        Order::Drop { to, .. } => Some(to.board(tile)),
        Order::Pass { board } => Some(board),
        Order::PlaceKing { .. } | Order::Abandon => None,
    }
}

/// The start position with the player's orders laid on it, leaving out the one at
/// `skip` (as the server lays accepted orders: moves leave, then arrive, then drops and
/// placed royal pieces).
fn laid<'a>(
    base: &'a dyn Fn(Pos) -> Cell,
    orders: &[Order],
    skip: Option<usize>,
    player: u32,
    royal: Option<KindId>,
) -> Overlay<'a> {
    let mut o = Overlay::with_capacity(base, 2 * orders.len());
    let kept = || orders.iter().enumerate().filter(move |&(i, _)| Some(i) != skip).map(|(_, o)| *o);
    for ord in kept() {
        if let Order::Move { from, .. } = ord {
            o.set(from, Cell::EMPTY);
        }
    }
    for ord in kept() {
        if let Order::Move { from, to } = ord {
            o.set(to, base(from));
        }
    }
    for ord in kept() {
        if let Order::Drop { kind, to } = ord {
            o.set(to, Cell::piece(player, kind));
        }
    }
    if let Some(k) = royal {
        for ord in kept() {
            if let Order::PlaceKing { to, .. } = ord {
                o.set(to, Cell::piece(player, k));
            }
        }
    }
    o
}

/// CA-13 with all of the player's orders together: each royal piece in danger at the
/// start (in (y, x) order, as the server checks them) must be safe after them, unless no
/// rescue exists. One still attacked gets the best rescue under the other orders in place
/// of its board's order; a change can endanger another, so this repeats (a bounded number
/// of times) until nothing changes.
#[allow(clippy::too_many_arguments)]
fn secure(
    m: &Movement,
    sight: &Sight,
    realm: &Realm,
    player: u32,
    endangered: &[(Pos, Cell)],
    boards: &[(BoardId, std::ops::Range<usize>)],
    mine: &[Pos],
    out: &mut [Order],
    targets: &mut Vec<(Pos, super::moves::Reach)>,
    value: &impl Fn(KindId) -> i64,
) {
    let tile = m.tile();
    let cells = &realm.cells;
    let royal = endangered.first().map(|(_, c)| c.kind());
    for _ in 0..=endangered.len() {
        let mut changed = false;
        for &(k, kc) in endangered {
            let b = k.board(tile);
            let look = Look { m, sight, w: cells.window(b) };
            let base = |p: Pos| look.occ(p);
            let Some(i) = out.iter().position(|o| action_board(o, tile) == Some(b)) else { continue };
            let at = match out[i] {
                Order::Move { from, to } if from == k => to,
                _ => k,
            };
            let all = laid(&base, out, None, player, royal);
            if !m.attacked(&|p| all.get(p), at, kc) {
                continue;
            }
            let others = laid(&base, out, Some(i), player, royal);
            let now = |p: Pos| others.get(p);
            let dests: Vec<Pos> = out
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .filter_map(|(_, o)| match *o {
                    Order::Move { to, .. } | Order::Drop { to, .. } | Order::PlaceKing { to, .. } => Some(to),
                    _ => None,
                })
                .collect();
            let Some((_, range)) = boards.iter().find(|(bb, _)| *bb == b) else { continue };
            let found = rescue(&look, &mine[range.clone()], &now, k, &dests, targets, value, |from, to, c| {
                let mut after = others.fork();
                after.set(from, Cell::EMPTY);
                after.set(to, c);
                !m.attacked(&|p| after.get(p), if from == k { to } else { k }, kc)
            });
            if let Some((from, to)) = found {
                out[i] = Order::Move { from, to };
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}
