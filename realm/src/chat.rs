//! The realm's chat logs. The world log (CA-26): every player reads it; only the top
//! 20 real players of the realm (most boards, then most pieces on the map, then
//! earliest join: A-CA14) may write; its Top-20 card lists board holders, bots
//! included, with their sector and board counts. A sector's log (CA-24, A-CA15:
//! `sector:SX,SY`, a square of `sector_boards` boards a side): read and written only
//! while the reader has a piece standing in the sector; its card ranks the holders of
//! its boards and pieces. A city's log (CA-25, `city:NAME`): everyone reads it; the top
//! 20 real players of the city by boards there, then pieces on them, write. Each log
//! keeps its newest [`KEEP_LINES`] lines, and a player posts at most once per
//! [`PAUSE_SECONDS`] (across logs), enforced here with the service's clock.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use varia::world::json::StateJson;
use varia::world::state::world_of;

use crate::db::{Lock, Mode};
use crate::error::Error;
use crate::service::Service;
use crate::store::{self, ChatLine, City};

pub const KEEP_LINES: i64 = 100;
pub const PAUSE_SECONDS: i64 = 5;
pub const TOP: usize = 20;
/// The longest line, in characters.
pub const MAX_TEXT: usize = 500;

/// The world log's name as the API writes it.
pub const WORLD: &str = "world";

/// A log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Channel {
    World,
    /// A sector, by its coordinates: boards [SX·n, SX·n + n) × [SY·n, SY·n + n).
    Sector(i64, i64),
    /// A city, by name (CA-25).
    City(String),
}

impl Channel {
    /// `world`, `sector:SX,SY` or `city:NAME`; anything else is a clear error.
    pub fn parse(name: &str) -> Result<Channel, Error> {
        if name == WORLD {
            return Ok(Channel::World);
        }
        if let Some(city) = name.strip_prefix("city:") {
            return Ok(Channel::City(city.to_string()));
        }
        let sector = name.strip_prefix("sector:").and_then(|xy| {
            let (x, y) = xy.split_once(',')?;
            Some((x.trim().parse::<i64>().ok()?, y.trim().parse::<i64>().ok()?))
        });
        match sector {
            Some((x, y)) if x.abs() <= MAX_SECTOR && y.abs() <= MAX_SECTOR => Ok(Channel::Sector(x, y)),
            _ => Err(Error::BadRequest {
                message: format!(
                    "`{}` is not a chat log here; logs: world, sector:SX,SY, city:NAME",
                    name.chars().take(40).collect::<String>()
                ),
            }),
        }
    }
}

/// What a card counts: the whole realm, one sector, or one city.
#[derive(Clone, Copy, Debug)]
pub enum Scope<'a> {
    World,
    Sector(i64, i64),
    City(&'a City),
}

/// Sector coordinates beyond any board of the world are refused.
const MAX_SECTOR: i64 = 1 << 31;

/// Where boards and pieces lie: the tile of a board and the side of a sector.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub tile: (i32, i32),
    pub sector_boards: i64,
}

impl Geometry {
    pub fn sector_of_board(self, [bx, by]: [i32; 2]) -> (i64, i64) {
        (i64::from(bx).div_euclid(self.sector_boards), i64::from(by).div_euclid(self.sector_boards))
    }

    pub fn board_of_square(self, x: i32, y: i32) -> [i32; 2] {
        [x.div_euclid(self.tile.0.max(1)), y.div_euclid(self.tile.1.max(1))]
    }

    pub fn sector_of_square(self, x: i32, y: i32) -> (i64, i64) {
        self.sector_of_board(self.board_of_square(x, y))
    }
}

/// One row of a Top-20 card; every count is within the card's scope.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Standing {
    pub player: String,
    /// Boards held.
    pub boards: u64,
    /// Pieces: on the map (world), standing in the sector (sector), standing on the
    /// player's own boards there (city: "pieces on those boards").
    pub pieces: u64,
    /// Sectors in which the player holds a board.
    pub sectors: u64,
    /// Cities in which the player holds a board.
    pub cities: u64,
    pub bot: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Log {
    pub channel: String,
    pub lines: Vec<ChatLine>,
    pub top: Vec<Standing>,
    /// Whether the reader may post here now (rights only; the pause is separate).
    pub may_write: bool,
}

/// Every board holder and piece holder within `scope`, ranked: boards, then pieces,
/// then join order (A-CA14). Eliminated players are left out.
pub fn standings(state: &StateJson, geo: Geometry, cities: &[City], scope: Scope) -> Vec<Standing> {
    let order: HashMap<&str, usize> = state.players.iter().enumerate().map(|(i, p)| (p.as_str(), i)).collect();
    let mut rows: Vec<Standing> = state
        .players
        .iter()
        .map(|p| Standing {
            player: p.clone(),
            boards: 0,
            pieces: 0,
            sectors: 0,
            cities: 0,
            bot: state.bots.contains(p),
        })
        .collect();
    let in_scope = |b: [i32; 2]| match scope {
        Scope::World => true,
        Scope::Sector(x, y) => geo.sector_of_board(b) == (x, y),
        Scope::City(c) => c.contains(b),
    };
    let mut sectors: Vec<BTreeSet<(i64, i64)>> = vec![BTreeSet::new(); rows.len()];
    let mut in_cities: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); rows.len()];
    let mut owner_of: HashMap<[i32; 2], usize> = HashMap::new();
    for b in &state.boards {
        let Some(&i) = b.owner.as_deref().and_then(|o| order.get(o)) else { continue };
        owner_of.insert(b.board, i);
        if !in_scope(b.board) {
            continue;
        }
        rows[i].boards += 1;
        sectors[i].insert(geo.sector_of_board(b.board));
        if let Some(c) = cities.iter().find(|c| c.contains(b.board)) {
            in_cities[i].insert(c.id);
        }
    }
    for pc in &state.pieces {
        let Some(&i) = order.get(pc.owner.as_str()) else { continue };
        let board = geo.board_of_square(pc.x, pc.y);
        let counted = match scope {
            Scope::City(_) => in_scope(board) && owner_of.get(&board) == Some(&i),
            _ => in_scope(board),
        };
        rows[i].pieces += u64::from(counted);
    }
    for (i, row) in rows.iter_mut().enumerate() {
        row.sectors = sectors[i].len() as u64;
        row.cities = in_cities[i].len() as u64;
    }
    let mut ranked: Vec<(usize, Standing)> = rows
        .into_iter()
        .enumerate()
        .filter(|(_, s)| !state.eliminated.contains(&s.player) && (s.boards > 0 || s.pieces > 0))
        .collect();
    ranked.sort_by(|(ia, a), (ib, b)| b.boards.cmp(&a.boards).then(b.pieces.cmp(&a.pieces)).then(ia.cmp(ib)));
    ranked.into_iter().map(|(_, s)| s).collect()
}

/// Whether `player` may read and write in `scope`: the world's and a city's writers
/// are their top 20 real (not bot-run) players, and everyone reads them; a sector's
/// readers have a piece standing in it, and its writers too, if they are real.
fn rights(state: &StateJson, geo: Geometry, cities: &[City], scope: Scope, player: &str) -> (bool, bool) {
    match scope {
        Scope::World | Scope::City(_) => {
            let top = standings(state, geo, cities, scope);
            (true, top.iter().filter(|s| !s.bot).take(TOP).any(|s| s.player == player))
        }
        Scope::Sector(x, y) => {
            let here = state.pieces.iter().any(|p| p.owner == player && geo.sector_of_square(p.x, p.y) == (x, y));
            // Only a real player writes (as in the world's and the cities' logs).
            (here, here && !state.bots.iter().any(|b| b == player))
        }
    }
}

fn refusal(scope: Scope) -> Error {
    Error::Forbidden {
        message: match scope {
            Scope::World => format!("only the top {TOP} players of the realm (by boards, then pieces) write here"),
            Scope::City(c) => format!(
                "only the top {TOP} players of {} (by boards there, then pieces on those boards) write here",
                c.name
            ),
            Scope::Sector(..) => {
                "a sector's log is read and written only while you have a piece standing in the sector".into()
            }
        },
    }
}

/// The scope of a log and the name it is stored under (a city's by its id, so a
/// renamed city keeps its log).
fn scope_of<'a>(ch: &Channel, cities: &'a [City]) -> Result<(Scope<'a>, String), Error> {
    Ok(match ch {
        Channel::World => (Scope::World, WORLD.to_string()),
        Channel::Sector(x, y) => (Scope::Sector(*x, *y), format!("sector:{x},{y}")),
        Channel::City(name) => {
            let Some(c) = cities.iter().find(|c| &c.name == name) else {
                return Err(Error::NotFound {
                    message: format!("no city is called `{}`", name.chars().take(40).collect::<String>()),
                });
            };
            (Scope::City(c), format!("city#{}", c.id))
        }
    })
}

impl Service {
    /// A log with its Top-20 card, as the token's player may read it.
    pub fn chat_read(&mut self, token: &str, name: &str) -> Result<Log, Error> {
        let ch = Channel::parse(name)?;
        let tile = world_of(self.variant())?.tile;
        self.with_player(token, Mode::Read, |tx, player, state, _| {
            let geo = Geometry { tile, sector_boards: store::meta(tx)?.sector_boards };
            let cities = store::cities(tx)?;
            let (scope, key) = scope_of(&ch, &cities)?;
            let (read, write) = rights(state, geo, &cities, scope, player);
            if !read {
                return Err(refusal(scope));
            }
            Ok(Log {
                channel: name.to_string(),
                lines: store::chat(tx, &key)?,
                top: standings(state, geo, &cities, scope).into_iter().take(TOP).collect(),
                may_write: write,
            })
        })
    }

    /// Posts a line; its sequence number.
    pub fn chat_post(&mut self, token: &str, name: &str, text: &str) -> Result<i64, Error> {
        let ch = Channel::parse(name)?;
        let text = text.trim();
        if text.is_empty() || text.chars().count() > MAX_TEXT {
            return Err(Error::BadRequest { message: format!("a chat line has 1 to {MAX_TEXT} characters") });
        }
        if text.chars().any(char::is_control) {
            return Err(Error::BadRequest {
                message: "a chat line is one line of text (no control characters)".into(),
            });
        }
        let tile = world_of(self.variant())?.tile;
        self.with_player(token, Mode::Write, |tx, player, state, now| {
            // Posts to one log are numbered in turn (PostgreSQL: one writer at a time).
            tx.lock_meta(Lock::Update)?;
            let geo = Geometry { tile, sector_boards: store::meta(tx)?.sector_boards };
            let cities = store::cities(tx)?;
            let (scope, key) = scope_of(&ch, &cities)?;
            match rights(state, geo, &cities, scope, player) {
                (_, true) => {}
                (true, false) if matches!(scope, Scope::Sector(..)) => {
                    return Err(Error::Forbidden {
                        message: "the bot plays for you (CA-18: rounds without your orders): you read this sector's log and write in it again once a round is resolved with your orders".into(),
                    });
                }
                _ => return Err(refusal(scope)),
            }
            if let Some(last) = store::last_post(tx, player)? {
                let wait = last.saturating_add(PAUSE_SECONDS).saturating_sub(now);
                if wait > 0 {
                    return Err(Error::TooSoon { pause: PAUSE_SECONDS, wait });
                }
            }
            store::set_last_post(tx, player, now)?;
            store::post_chat(tx, &key, player, now, text, KEEP_LINES)
        })
    }

    /// The realm's cities with their roads (public).
    pub fn cities(&mut self, token: &str) -> Result<Vec<City>, Error> {
        self.with_player(token, Mode::Read, |tx, _, _, _| store::cities(tx))
    }
}
