//! Orders and their validation, each judged when given against the round's start
//! position: movement from the kinds' atoms (own pieces block, others do not), guards,
//! one action per board, shared destinations, drops from the reserve, royal pieces to
//! place; then the rescue rule for royal pieces in danger (the server's forced flee)
//! and the automatic placement of royal pieces nobody placed.

use thiserror::Error;

use super::cells::{Cell, Cells};
use super::geometry::{BoardId, Pos};
use super::json::OrderJson;
use super::moves::{Block, Movement, NoReach, Reach};
use super::sight::Sight;
use super::state::{Realm, kind_letter};
use crate::piece::KindId;
use crate::variant::DropZone;

/// One order, read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Move { from: Pos, to: Pos },
    Drop { kind: KindId, to: Pos },
    Pass { board: BoardId },
    PlaceKing { board: BoardId, to: Pos },
    Abandon,
}

impl Order {
    /// Reads an order as written in ORDERS; the error is the reason it is refused.
    pub fn read(v: &crate::variant::Variant, value: &serde_json::Value) -> Result<Order, Rejection> {
        let o: OrderJson =
            serde_json::from_value(value.clone()).map_err(|e| Rejection::Malformed { message: e.to_string() })?;
        let pos = |[x, y]: [i32; 2]| -> Result<Pos, Rejection> {
            if x.abs() > super::state::MAX_COORD || y.abs() > super::state::MAX_COORD {
                return Err(Rejection::Malformed { message: format!("[{x}, {y}] is outside the world") });
            }
            Ok(Pos::new(x, y))
        };
        let board = |[bx, by]: [i32; 2]| -> Result<BoardId, Rejection> {
            if bx.abs() > super::state::MAX_COORD / 16 || by.abs() > super::state::MAX_COORD / 16 {
                return Err(Rejection::Malformed { message: format!("board [{bx}, {by}] is outside the world") });
            }
            Ok(BoardId { bx, by })
        };
        Ok(match o {
            OrderJson::Move { from, to } => Order::Move { from: pos(from)?, to: pos(to)? },
            OrderJson::Drop { kind, to } => Order::Drop {
                kind: kind_letter(v, &kind)
                    .ok_or(Rejection::Malformed { message: format!("`{kind}` is not a kind") })?,
                to: pos(to)?,
            },
            OrderJson::Pass { board: b } => Order::Pass { board: board(b)? },
            OrderJson::PlaceKing { board: b, to } => Order::PlaceKing { board: board(b)?, to: pos(to)? },
            OrderJson::Abandon {} => Order::Abandon,
        })
    }
}

/// Why an order is refused; the text is what the player is told.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Rejection {
    #[error("not an order: {message}")]
    Malformed { message: String },
    #[error("`{player}` is not a player of this realm")]
    UnknownPlayer { player: String },
    #[error("you are eliminated")]
    Eliminated,
    #[error("there is no piece on {at}")]
    NoPiece { at: Pos },
    #[error("the piece on {at} is not yours (it is {owner}'s)")]
    NotYours { at: Pos, owner: String },
    #[error("board {board} already has its order this round")]
    BoardUsed { board: BoardId },
    #[error("you have no piece on board {board}, so no order there")]
    NoPresence { board: BoardId },
    #[error("{0}")]
    Reach(NoReach),
    #[error("the {kind} on {at} is guarded by {owner}'s {guard_kind} on {guard}")]
    Guarded { kind: String, at: Pos, owner: String, guard_kind: String, guard: Pos },
    #[error("another of your orders already goes to {to}")]
    SameDestination { to: Pos },
    #[error("{to} is not empty")]
    NotEmpty { to: Pos },
    #[error("your vault holds no {kind} to drop")]
    NoReserve { kind: String },
    #[error("{to} is outside the drop zone (a board where you have a piece)")]
    DropZone { to: Pos },
    #[error("{to} is not on board {board}")]
    OffBoard { to: Pos, board: BoardId },
    #[error("you have no royal piece to place on board {board}")]
    NoPending { board: BoardId },
    #[error("the royal piece of board {board} is already placed by an earlier order")]
    AlreadyPlaced { board: BoardId },
    #[error("replaced by the forced flee of your {kind} on {king} (it was in danger and no order rescued it)")]
    ReplacedByFlee { kind: String, king: Pos },
    #[error("you abandoned your empire this round")]
    Abandoned,
    #[error("the state has no `time`, which the lockout after abandoning needs")]
    NoTime,
}

/// An accepted move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveOrder {
    pub from: Pos,
    pub to: Pos,
    pub piece: Cell,
    pub reach: Reach,
    /// Given by the server (a forced flee), not the player.
    pub forced: bool,
}

/// Everything decided about one player's orders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerPlan {
    /// Per order given, in order: accepted, or why not.
    pub results: Vec<Result<(), Rejection>>,
    pub moves: Vec<MoveOrder>,
    pub drops: Vec<(Pos, KindId)>,
    /// Royal pieces placed: board, square, whether automatically.
    pub placements: Vec<(BoardId, Pos, bool)>,
    /// Forced flees: board, from, to (also in `moves`).
    pub flees: Vec<(BoardId, Pos, Pos)>,
    pub abandon: bool,
    /// Index in `results` of the order that used each board's action (for the flee).
    pub(crate) board_orders: Vec<(BoardId, usize, Slot)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Move(usize),
    Drop(usize),
    Pass,
}

/// The start position with one player's accepted orders laid on it (a static look at
/// the position after them, for rescues and safe squares).
pub struct Overlay<'a> {
    base: &'a dyn Fn(Pos) -> Cell,
    changes: Vec<(Pos, Cell)>,
    /// One bit per square hash of the squares changed: most reads (the scans of
    /// attacks) miss every change, and this answers them without the list.
    mask: u64,
}

impl<'a> Overlay<'a> {
    pub fn new(base: &'a dyn Fn(Pos) -> Cell) -> Overlay<'a> {
        Overlay { base, changes: Vec::new(), mask: 0 }
    }

    /// [`Overlay::new`] with room for `n` changes.
    pub fn with_capacity(base: &'a dyn Fn(Pos) -> Cell, n: usize) -> Overlay<'a> {
        Overlay { base, changes: Vec::with_capacity(n), mask: 0 }
    }

    /// The same changes, to lay more on.
    pub fn fork(&self) -> Overlay<'a> {
        Overlay { base: self.base, changes: self.changes.clone(), mask: self.mask }
    }

    #[inline]
    fn bit(p: Pos) -> u64 {
        1u64 << (((p.x as u32).wrapping_mul(0x9e37_79b9) ^ (p.y as u32).wrapping_mul(0x85eb_ca6b)) >> 26)
    }

    /// `p` holds `c` (a later change of the same square wins).
    pub fn set(&mut self, p: Pos, c: Cell) {
        self.mask |= Self::bit(p);
        self.changes.push((p, c));
    }

    #[inline]
    pub fn get(&self, p: Pos) -> Cell {
        if self.mask & Self::bit(p) == 0 {
            return (self.base)(p);
        }
        match self.changes.iter().rev().find(|(q, _)| *q == p) {
            Some(&(_, c)) => c,
            None => (self.base)(p),
        }
    }
}

fn has_piece_on(cells: &Cells, b: BoardId, player: u32) -> bool {
    cells.find(b).is_some_and(|t| cells.board_cells(t).iter().any(|c| !c.is_empty() && c.owner() == player))
}

/// Validates one player's orders against the start position. `kings` are the player's
/// royal pieces on the map, in (y, x) order.
pub fn validate(
    m: &Movement,
    realm: &Realm,
    player: u32,
    orders: &[Result<Order, Rejection>],
    kings: &[Pos],
) -> PlayerPlan {
    validate_seen(m, realm, &Sight::none(), player, orders, kings)
}

/// [`validate`] with the round's [`Sight`] of `realm` (the same plan, found faster).
pub fn validate_seen(
    m: &Movement,
    realm: &Realm,
    sight: &Sight,
    player: u32,
    orders: &[Result<Order, Rejection>],
    kings: &[Pos],
) -> PlayerPlan {
    let cells = &realm.cells;
    let tile = m.tile();
    let n = orders.len();
    let mut plan = PlayerPlan {
        results: Vec::with_capacity(n),
        moves: Vec::with_capacity(n),
        board_orders: Vec::with_capacity(n),
        ..Default::default()
    };
    let mut dest: Vec<Pos> = Vec::with_capacity(n);
    let mut used: Vec<(BoardId, u32)> = Vec::with_capacity(n);
    let mut dropped: Vec<(KindId, u32)> = Vec::new();
    let abandon = orders.iter().any(|o| matches!(o, Ok(Order::Abandon)));
    let name = |k: KindId| m.kind_name(k).to_string();
    for (i, o) in orders.iter().enumerate() {
        let r = (|| -> Result<(), Rejection> {
            let o = o.clone()?;
            if abandon {
                if o == Order::Abandon {
                    plan.abandon = true;
                    return Ok(());
                }
                return Err(Rejection::Abandoned);
            }
            let take_action = |b: BoardId, used: &mut Vec<(BoardId, u32)>| -> Result<(), Rejection> {
                if !has_piece_on(cells, b, player) {
                    return Err(Rejection::NoPresence { board: b });
                }
                match used.iter_mut().find(|(u, _)| *u == b) {
                    Some((_, n)) if *n >= m.rules.actions_per_board => Err(Rejection::BoardUsed { board: b }),
                    Some((_, n)) => {
                        *n += 1;
                        Ok(())
                    }
                    None => {
                        used.push((b, 1));
                        Ok(())
                    }
                }
            };
            match o {
                Order::Move { from, to } => {
                    let w = cells.window_within(to.board(tile), 1);
                    let occ = |p: Pos| w.get(p);
                    // Read through the window (the same cells, fewer lookups).
                    let c = w.get(from);
                    if c.is_empty() {
                        return Err(Rejection::NoPiece { at: from });
                    }
                    if c.owner() != player {
                        return Err(Rejection::NotYours { at: from, owner: realm.name(c.owner()).to_string() });
                    }
                    let t = w.get(to);
                    let target = if t.is_empty() { None } else { Some(t) };
                    let reach = m.reach(&occ, from, c, to, target, Block::Owner(player)).map_err(Rejection::Reach)?;
                    if let Some(t) = target
                        && !m.is_royal(t.kind())
                        && sight.guarded_at(&w, to) != Some(false)
                        && let Some(g) = m.guard(&occ, to, t)
                    {
                        return Err(Rejection::Guarded {
                            kind: name(t.kind()),
                            at: to,
                            owner: realm.name(t.owner()).to_string(),
                            guard_kind: name(cells.get(g).kind()),
                            guard: g,
                        });
                    }
                    if dest.contains(&to) {
                        return Err(Rejection::SameDestination { to });
                    }
                    take_action(from.board(tile), &mut used)?;
                    dest.push(to);
                    plan.board_orders.push((from.board(tile), i, Slot::Move(plan.moves.len())));
                    plan.moves.push(MoveOrder { from, to, piece: c, reach, forced: false });
                }
                Order::Drop { kind, to } => {
                    let held = realm.vaults[player as usize].count(kind);
                    let n = dropped.iter().find(|(k, _)| *k == kind).map_or(0, |&(_, n)| n);
                    if !m.rules.reserve.holds(kind) || held <= n {
                        return Err(Rejection::NoReserve { kind: name(kind) });
                    }
                    if !cells.get(to).is_empty() {
                        return Err(Rejection::NotEmpty { to });
                    }
                    let zone_ok = match &m.rules.reserve.drop {
                        DropZone::Presence => has_piece_on(cells, to.board(tile), player),
                        DropZone::Anywhere => true,
                        DropZone::Never => false,
                        DropZone::Region(r) => {
                            let (lx, ly) = to.local(tile);
                            m.v.regions[*r].squares[0].contains(&crate::geometry::Square((ly * tile.0 + lx) as u8))
                        }
                    };
                    if !zone_ok {
                        return Err(Rejection::DropZone { to });
                    }
                    if dest.contains(&to) {
                        return Err(Rejection::SameDestination { to });
                    }
                    take_action(to.board(tile), &mut used)?;
                    match dropped.iter_mut().find(|(k, _)| *k == kind) {
                        Some((_, n)) => *n += 1,
                        None => dropped.push((kind, 1)),
                    }
                    dest.push(to);
                    plan.board_orders.push((to.board(tile), i, Slot::Drop(plan.drops.len())));
                    plan.drops.push((to, kind));
                }
                Order::Pass { board } => {
                    take_action(board, &mut used)?;
                    plan.board_orders.push((board, i, Slot::Pass));
                }
                Order::PlaceKing { board, to } => {
                    if !realm.pending.iter().any(|&(b, p)| b == board && p == player) {
                        return Err(Rejection::NoPending { board });
                    }
                    if plan.placements.iter().any(|&(b, _, _)| b == board) {
                        return Err(Rejection::AlreadyPlaced { board });
                    }
                    if to.board(tile) != board {
                        return Err(Rejection::OffBoard { to, board });
                    }
                    if !cells.get(to).is_empty() {
                        return Err(Rejection::NotEmpty { to });
                    }
                    if dest.contains(&to) {
                        return Err(Rejection::SameDestination { to });
                    }
                    dest.push(to);
                    plan.placements.push((board, to, false));
                }
                Order::Abandon => unreachable!("handled above"),
            }
            Ok(())
        })();
        plan.results.push(r);
    }
    if plan.abandon {
        return plan;
    }
    if m.rules.rescue_required {
        rescue(m, realm, sight, player, kings, &mut plan);
    }
    if m.rules.auto_place {
        place(m, realm, player, &mut plan);
    }
    plan
}

/// The overlay of the player's accepted orders, leaving out the move with this index.
fn overlay<'a>(
    base: &'a dyn Fn(Pos) -> Cell,
    plan: &PlayerPlan,
    player: u32,
    skip_move: Option<usize>,
    royal: Option<KindId>,
) -> Overlay<'a> {
    let mut o = Overlay::with_capacity(base, 2 * plan.moves.len() + plan.drops.len() + plan.placements.len() + 2);
    for (i, mv) in plan.moves.iter().enumerate() {
        if Some(i) != skip_move {
            o.set(mv.from, Cell::EMPTY);
        }
    }
    for (i, mv) in plan.moves.iter().enumerate() {
        if Some(i) != skip_move {
            o.set(mv.to, mv.piece);
        }
    }
    for &(to, k) in &plan.drops {
        o.set(to, Cell::piece(player, k));
    }
    if let Some(k) = royal {
        for &(_, to, _) in &plan.placements {
            o.set(to, Cell::piece(player, k));
        }
    }
    o
}

/// CA-13: royal pieces in danger at the start of the round must be rescued; if no
/// accepted order does it and a safe flee exists, the server orders the flee, which
/// replaces that board's order.
fn rescue(m: &Movement, realm: &Realm, sight: &Sight, player: u32, kings: &[Pos], plan: &mut PlayerPlan) {
    let cells = &realm.cells;
    let tile = m.tile();
    let royal = kings.first().map(|&k| cells.get(k).kind());
    for &king in kings {
        let w = cells.window_within(king.board(tile), 1);
        let start = |p: Pos| w.get(p);
        let kc = w.get(king);
        if !sight.attacked_at(&w, king, kc.owner()).unwrap_or_else(|| m.attacked(&start, king, kc)) {
            continue;
        }
        // Rescued if, after all accepted orders, the piece (where it then is) is safe.
        let now = plan.moves.iter().find(|mv| mv.from == king).map_or(king, |mv| mv.to);
        let o = overlay(&start, plan, player, None, royal);
        if !m.attacked(&|p| o.get(p), now, kc) || !m.rules.forced_flee {
            continue;
        }
        let b = king.board(tile);
        let replaced = plan.board_orders.iter().position(|&(ob, _, _)| ob == b);
        let skip = replaced.and_then(|i| match plan.board_orders[i].2 {
            Slot::Move(j) => Some(j),
            _ => None,
        });
        let skip_drop = replaced.and_then(|i| match plan.board_orders[i].2 {
            Slot::Drop(j) => Some(j),
            _ => None,
        });
        let mut o = overlay(&start, plan, player, skip, royal);
        if let Some(j) = skip_drop {
            let to = plan.drops[j].0;
            o.set(to, cells.get(to));
        }
        let dests: Vec<Pos> = plan
            .moves
            .iter()
            .enumerate()
            .filter(|&(i, _)| Some(i) != skip)
            .map(|(_, mv)| mv.to)
            .chain(plan.drops.iter().enumerate().filter(|&(i, _)| Some(i) != skip_drop).map(|(_, d)| d.0))
            .chain(plan.placements.iter().map(|p| p.1))
            .collect();
        let mut targets = Vec::new();
        m.targets(&start, king, kc, &mut targets);
        targets.sort_by_key(|&(p, _)| p);
        let flee = targets.into_iter().find(|&(to, _)| {
            if dests.contains(&to) {
                return false;
            }
            let t = cells.get(to);
            if !t.is_empty() && !m.is_royal(t.kind()) && m.guarded(&start, to, t) {
                return false;
            }
            let mut after = o.fork();
            after.set(king, Cell::EMPTY);
            after.set(to, kc);
            !m.attacked(&|p| after.get(p), to, kc)
        });
        let Some((to, reach)) = flee else { continue };
        if let Some(i) = replaced {
            let (_, idx, slot) = plan.board_orders.remove(i);
            plan.results[idx] = Err(Rejection::ReplacedByFlee { kind: m.kind_name(kc.kind()).to_string(), king });
            match slot {
                Slot::Move(j) => {
                    plan.moves.remove(j);
                    fix_slots(&mut plan.board_orders, |s| matches!(s, Slot::Move(k) if *k > j), true);
                }
                Slot::Drop(j) => {
                    plan.drops.remove(j);
                    fix_slots(&mut plan.board_orders, |s| matches!(s, Slot::Drop(k) if *k > j), false);
                }
                Slot::Pass => {}
            }
        }
        plan.board_orders.push((b, usize::MAX, Slot::Move(plan.moves.len())));
        plan.moves.push(MoveOrder { from: king, to, piece: kc, reach, forced: true });
        plan.flees.push((b, king, to));
    }
}

fn fix_slots(slots: &mut [(BoardId, usize, Slot)], after: impl Fn(&Slot) -> bool, moves: bool) {
    for s in slots.iter_mut() {
        if after(&s.2) {
            s.2 = match s.2 {
                Slot::Move(k) if moves => Slot::Move(k - 1),
                Slot::Drop(k) if !moves => Slot::Drop(k - 1),
                other => other,
            };
        }
    }
}

/// A-CA23: a royal piece nobody placed goes on the lowest (y, x) free square of its board
/// that is not attacked, else the lowest free one; squares the player's own orders go
/// to are not free. With none free it stays pending.
fn place(m: &Movement, realm: &Realm, player: u32, plan: &mut PlayerPlan) {
    let cells = &realm.cells;
    let Some(royal) = (0..m.v.kinds.len()).map(|k| KindId(k as u8)).find(|&k| m.is_royal(k)) else { return };
    let kc = Cell::piece(player, royal);
    for &(board, p) in &realm.pending {
        if p != player || plan.placements.iter().any(|&(b, _, _)| b == board) {
            continue;
        }
        let dests: Vec<Pos> = plan
            .moves
            .iter()
            .map(|mv| mv.to)
            .chain(plan.drops.iter().map(|d| d.0))
            .chain(plan.placements.iter().map(|p| p.1))
            .collect();
        let w = cells.window_within(board, 1);
        let start = |p: Pos| w.get(p);
        let o = overlay(&start, plan, player, None, Some(royal));
        let free: Vec<Pos> =
            board.squares(m.tile()).filter(|&s| cells.get(s).is_empty() && !dests.contains(&s)).collect();
        let safe = free.iter().copied().find(|&s| {
            let mut after = o.fork();
            after.set(s, kc);
            !m.attacked(&|q| after.get(q), s, kc)
        });
        if let Some(to) = safe.or(free.first().copied()) {
            plan.placements.push((board, to, true));
        }
    }
}
