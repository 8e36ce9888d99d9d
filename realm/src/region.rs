//! Cities as regions that ordinary pieces never leave (CA-19: cities are separated by
//! empty ground, and only queens cross, by transfer): a move's path must stay in the
//! region of the board it starts on — its city, or the ground outside every city. The
//! rules' resolver knows no cities, so the realm refuses such orders at submission and
//! strikes them from the bot's orders at the deadline (see [`bot_orders`]); a city is
//! then a set of boards whose round depends on no other city's.

use std::collections::BTreeMap;

use varia::Variant;
use varia::world::json::StateJson;
use varia::world::moves::Movement;
use varia::world::orders::Order;
use varia::world::state::Realm;
use varia::world::{BoardId, Pos, bot, round};

use crate::store::City;

/// The cities of a realm as regions of boards.
#[derive(Clone, Debug, Default)]
pub struct Regions {
    cities: Vec<(String, [[i32; 2]; 2])>,
}

impl Regions {
    pub fn new(cities: &[City]) -> Regions {
        Regions { cities: cities.iter().map(|c| (c.name.clone(), c.boards)).collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.cities.is_empty()
    }

    /// The index of the city a board lies in (None: the ground outside every city).
    pub fn of(&self, b: BoardId) -> Option<usize> {
        (0..self.cities.len()).position(|i| self.contains(i, b))
    }

    /// How many cities there are.
    pub fn len(&self) -> usize {
        self.cities.len()
    }

    /// The name of the i-th city (config order).
    pub fn city_name(&self, i: usize) -> &str {
        &self.cities[i].0
    }

    /// Visits the boards of a region — the i-th city, or (None) the ground outside every
    /// city — that lie within `rings` rings of board [0, 0], ring by ring outward (ring r:
    /// the boards with max(|bx|, |by|) = r), each ring in (y, x) order, until `f` returns
    /// true; returns whether it did. A city is walked over its own rectangle only (the
    /// rings it meets), so a far or large city costs its boards, not the rings before it.
    pub fn walk(&self, region: Option<usize>, rings: i32, mut f: impl FnMut(BoardId) -> bool) -> bool {
        let rings = i64::from(rings.max(0));
        match region {
            Some(i) => {
                let rect = self.rect(i);
                let (lo, hi) = ring_span(rect);
                for r in lo..=hi.min(rings) {
                    if ring_in(r, rect, &mut f) {
                        return true;
                    }
                }
                false
            }
            None => {
                let spans: Vec<(i64, i64)> = (0..self.cities.len()).map(|i| ring_span(self.rect(i))).collect();
                let mut near = Vec::new();
                for r in 0..=rings {
                    // Only the cities this ring meets can hold its boards.
                    near.clear();
                    near.extend((0..self.cities.len()).filter(|&i| spans[i].0 <= r && r <= spans[i].1));
                    let whole = [[-r, -r], [r, r]];
                    let hit = ring_in(r, whole, &mut |b: BoardId| !near.iter().any(|&i| self.contains(i, b)) && f(b));
                    if hit {
                        return true;
                    }
                }
                false
            }
        }
    }

    fn rect(&self, i: usize) -> [[i64; 2]; 2] {
        let [[x0, y0], [x1, y1]] = self.cities[i].1;
        [[i64::from(x0), i64::from(y0)], [i64::from(x1), i64::from(y1)]]
    }

    /// Whether a board lies in the i-th city.
    fn contains(&self, i: usize, b: BoardId) -> bool {
        let [[x0, y0], [x1, y1]] = self.cities[i].1;
        (x0..=x1).contains(&b.bx) && (y0..=y1).contains(&b.by)
    }

    fn name(&self, r: Option<usize>) -> String {
        match r {
            Some(i) => format!("the city {}", self.cities[i].0),
            None => "the ground outside the cities".to_string(),
        }
    }

    /// Why a move from `from` to `to` leaves its region, if it does: the first board on
    /// its path in another region. A straight or diagonal move touches every board on
    /// its line; any other move (a leap) its first and last board only, as the
    /// resolver moves it.
    pub fn crossing(&self, tile: (i32, i32), from: Pos, to: Pos) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let home = self.of(from.board(tile));
        let (dx, dy) = (to.x - from.x, to.y - from.y);
        let line = dx == 0 || dy == 0 || dx.abs() == dy.abs();
        let steps = if line { dx.abs().max(dy.abs()) } else { 1 };
        for i in 1..=steps {
            let p = if line { Pos::new(from.x + dx.signum() * i, from.y + dy.signum() * i) } else { to };
            let b = p.board(tile);
            let r = self.of(b);
            if r != home {
                return Some(format!(
                    "the path from [{}, {}] to [{}, {}] leaves {} for {} at board [{}, {}] (CA-19: only \
                     queens cross between cities, by transfer)",
                    from.x,
                    from.y,
                    to.x,
                    to.y,
                    self.name(home),
                    self.name(r),
                    b.bx,
                    b.by
                ));
            }
        }
        None
    }

    /// Why an order (as JSON) leaves its region, if it is a move that does.
    pub fn order_crossing(&self, tile: (i32, i32), order: &serde_json::Value) -> Option<String> {
        let pos = |k: &str| -> Option<Pos> {
            let a = order.get(k)?.as_array()?;
            let c = |i: usize| a.get(i)?.as_i64().and_then(|v| i32::try_from(v).ok());
            (a.len() == 2).then_some(())?;
            Some(Pos::new(c(0)?, c(1)?))
        };
        if order.get("type")?.as_str()? != "move" {
            return None;
        }
        self.crossing(tile, pos("from")?, pos("to")?)
    }
}

/// The orders the rules' bot will give at this round's resolution for the players it
/// runs (idle ones), when some of them leave their region: those players' lists with
/// the leaving moves struck out, to be given to the resolver in the players' names
/// (and the players' idle counts, which [`hide_bots`] and [`restore_bots`] keep as the
/// bot's). Empty when no bot order leaves its region, so a realm whose bots stay home
/// resolves exactly as before.
pub fn bot_orders(
    v: &Variant,
    state: &StateJson,
    given: &BTreeMap<String, Vec<serde_json::Value>>,
    regions: &Regions,
    seed: u64,
) -> Result<BTreeMap<String, Vec<serde_json::Value>>, crate::Error> {
    let mut out = BTreeMap::new();
    if regions.is_empty() {
        return Ok(out);
    }
    let rules = varia::world::state::world_of(v)?;
    let realm = Realm::from_json(v, state)?;
    let m = Movement::new(v, rules);
    let pieces = round::pieces_by_player(&realm);
    for (p, id) in realm.players.iter().enumerate() {
        let gave = given.get(id).is_some_and(|l| !l.is_empty());
        let run = !gave && !realm.eliminated[p] && rules.bot_after > 0 && realm.idle[p] >= rules.bot_after;
        if !run {
            continue;
        }
        let orders = bot::orders(&m, &realm, p as u32, &pieces[p], seed);
        let leaves = |o: &Order| match o {
            Order::Move { from, to } => regions.crossing(rules.tile, *from, *to).is_some(),
            _ => false,
        };
        if !orders.iter().any(leaves) {
            continue;
        }
        let kept: Vec<serde_json::Value> = orders.iter().filter(|o| !leaves(o)).map(|o| order_json(v, o)).collect();
        out.insert(id.clone(), kept);
    }
    Ok(out)
}

/// An order as the contract writes it.
pub fn order_json(v: &Variant, o: &Order) -> serde_json::Value {
    use serde_json::json;
    let xy = |p: &Pos| json!([p.x, p.y]);
    match o {
        Order::Move { from, to } => json!({"type": "move", "from": xy(from), "to": xy(to)}),
        Order::Drop { kind, to } => {
            json!({"type": "drop", "kind": v.kinds[kind.index()].letter.to_string(), "to": xy(to)})
        }
        Order::Pass { board } => json!({"type": "pass", "board": [board.bx, board.by]}),
        Order::PlaceKing { board, to } => json!({"type": "place_king", "board": [board.bx, board.by], "to": xy(to)}),
        Order::Abandon => json!({"type": "abandon"}),
    }
}

/// Before the resolution: the players whose bot orders the realm gives (see
/// [`bot_orders`]) are shown to the resolver as not idle, so it takes the given list
/// instead of running its bot again; their idle counts come back.
pub fn hide_bots(state: &mut StateJson, bots: &BTreeMap<String, Vec<serde_json::Value>>) -> BTreeMap<String, u32> {
    bots.keys().map(|p| (p.clone(), state.idle.remove(p).unwrap_or(0))).collect()
}

/// After the resolution: those players stay idle (the bot's orders are not theirs) and
/// their verdicts say the orders were the bot's; the derived lists (bots, claimable
/// boards) are made again from the restored counts.
pub fn restore_bots(
    v: &Variant,
    out: &mut varia::world::json::OutputJson,
    idle: &BTreeMap<String, u32>,
) -> Result<(), crate::Error> {
    if idle.is_empty() {
        return Ok(());
    }
    for (p, &n) in idle {
        out.state.idle.insert(p.clone(), n.saturating_add(1));
        if let Some(verdicts) = out.validation.get_mut(p) {
            verdicts.bot = true;
        }
    }
    out.state = Realm::from_json(v, &out.state)?.to_json(v);
    Ok(())
}

/// The rings a rectangle of boards meets: from its nearest board to board [0, 0]
/// (Chebyshev distance) to its farthest.
fn ring_span([[x0, y0], [x1, y1]]: [[i64; 2]; 2]) -> (i64, i64) {
    let near = |a: i64, b: i64| if a <= 0 && 0 <= b { 0 } else { a.abs().min(b.abs()) };
    (near(x0, x1).max(near(y0, y1)), x0.abs().max(x1.abs()).max(y0.abs()).max(y1.abs()))
}

/// Visits the boards of ring `r` that lie in the rectangle, in (y, x) order, until `f`
/// returns true; returns whether it did.
fn ring_in(r: i64, [[x0, y0], [x1, y1]]: [[i64; 2]; 2], f: &mut impl FnMut(BoardId) -> bool) -> bool {
    let board = |bx: i64, by: i64| BoardId { bx: bx as i32, by: by as i32 };
    for by in y0.max(-r)..=y1.min(r) {
        if by.abs() == r {
            for bx in x0.max(-r)..=x1.min(r) {
                if f(board(bx, by)) {
                    return true;
                }
            }
        } else {
            for bx in [-r, r] {
                if (x0..=x1).contains(&bx) && f(board(bx, by)) {
                    return true;
                }
            }
        }
    }
    false
}
