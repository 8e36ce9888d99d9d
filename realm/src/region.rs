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
        self.cities
            .iter()
            .position(|(_, [[x0, y0], [x1, y1]])| (*x0..=*x1).contains(&b.bx) && (*y0..=*y1).contains(&b.by))
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
