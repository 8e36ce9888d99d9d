//! A realm between rounds: its players in join order, the pieces on the world, each
//! player's reserve, who owns which board, royal pieces waiting to be placed, who is
//! eliminated, idle or locked out. Read from and written to the STATE JSON of
//! DESIGN.md §8, checked on the way in so the resolver never sees an impossible state.

use std::collections::{BTreeMap, HashMap};

use thiserror::Error;

use super::cells::{Cell, Cells, NOBODY};
use super::geometry::{BoardId, Pos};
use super::json::{BoardJson, PendingJson, PieceJson, StateJson};
use crate::mechanics::reserve::Reserve;
use crate::piece::KindId;
use crate::variant::{Variant, WorldRules};

/// Coordinates are kept within this, so arithmetic on them never overflows.
pub const MAX_COORD: i32 = 1 << 28;

/// Why a state or an orders file cannot be used; `at` names the place in it.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RealmError {
    #[error("{file}: line {line}, column {col}: {message}")]
    Json { file: String, line: usize, col: usize, message: String },
    #[error("state: {at}: {message}")]
    State { at: String, message: String },
    #[error("variant `{variant}` is not a world of boards (it has no [world] table)")]
    NotAWorld { variant: String },
}

fn bad(at: impl Into<String>, message: impl Into<String>) -> RealmError {
    RealmError::State { at: at.into(), message: message.into() }
}

/// The state of a realm.
#[derive(Clone, Debug)]
pub struct Realm {
    pub round: u64,
    pub players: Vec<String>,
    ids: HashMap<String, u32>,
    pub cells: Cells,
    pub vaults: Vec<Reserve>,
    /// Boards whose owner still has to place a royal piece, sorted.
    pub pending: Vec<(BoardId, u32)>,
    pub eliminated: Vec<bool>,
    pub idle: Vec<u32>,
    pub lockouts: BTreeMap<String, i64>,
    pub time: Option<i64>,
}

impl Realm {
    /// An empty realm for a world of this tile.
    pub fn new(tile: (i32, i32)) -> Realm {
        Realm {
            round: 0,
            players: Vec::new(),
            ids: HashMap::new(),
            cells: Cells::new(tile),
            vaults: Vec::new(),
            pending: Vec::new(),
            eliminated: Vec::new(),
            idle: Vec::new(),
            lockouts: BTreeMap::new(),
            time: None,
        }
    }

    pub fn player(&self, id: &str) -> Option<u32> {
        self.ids.get(id).copied()
    }

    /// Adds a player at the end of the join order; its index.
    pub fn add_player(&mut self, id: &str) -> u32 {
        if let Some(i) = self.player(id) {
            return i;
        }
        let i = self.players.len() as u32;
        self.players.push(id.to_string());
        self.ids.insert(id.to_string(), i);
        self.vaults.push(Reserve::default());
        self.eliminated.push(false);
        self.idle.push(0);
        i
    }

    pub fn name(&self, p: u32) -> &str {
        self.players.get(p as usize).map_or("nobody", String::as_str)
    }

    /// Reads a state, checking it against the variant's world.
    pub fn from_json(v: &Variant, s: &StateJson) -> Result<Realm, RealmError> {
        let rules = world_of(v)?;
        let tile = rules.tile;
        let mut r = Realm::new(tile);
        r.round = s.round;
        r.time = s.time;
        for (i, p) in s.players.iter().enumerate() {
            if p.is_empty() {
                return Err(bad(format!("players[{i}]"), "a player id may not be empty"));
            }
            if r.player(p).is_some() {
                return Err(bad(format!("players[{i}]"), format!("player `{p}` is listed twice")));
            }
            r.add_player(p);
        }
        let who =
            |r: &Realm, at: &str, id: &str| r.player(id).ok_or_else(|| bad(at, format!("`{id}` is not in `players`")));
        let coord = |at: &str, x: i32, y: i32| {
            if x.abs() > MAX_COORD || y.abs() > MAX_COORD {
                Err(bad(at, format!("[{x}, {y}] is outside the world (coordinates within ±{MAX_COORD})")))
            } else {
                Ok(Pos::new(x, y))
            }
        };
        let board = |at: &str, [bx, by]: [i32; 2]| {
            let lim = MAX_COORD / tile.0.max(tile.1);
            if bx.abs() > lim || by.abs() > lim {
                Err(bad(at, format!("board [{bx}, {by}] is outside the world (within ±{lim})")))
            } else {
                Ok(BoardId { bx, by })
            }
        };
        for (i, b) in s.boards.iter().enumerate() {
            let at = format!("boards[{i}]");
            let id = board(&at, b.board)?;
            if r.cells.find(id).is_some() {
                return Err(bad(at, format!("board {id} is listed twice")));
            }
            let owner = match &b.owner {
                Some(o) => who(&r, &at, o)?,
                None => NOBODY,
            };
            r.cells.set_owner(id, owner);
        }
        for (i, p) in s.pieces.iter().enumerate() {
            let at = format!("pieces[{i}]");
            let pos = coord(&at, p.x, p.y)?;
            let owner = who(&r, &at, &p.owner)?;
            let kind = kind_letter(v, &p.kind).ok_or_else(|| bad(&at, unknown_kind(v, &p.kind)))?;
            if !r.cells.get(pos).is_empty() {
                return Err(bad(at, format!("two pieces on {pos}")));
            }
            r.cells.set(pos, Cell::piece(owner, kind));
        }
        // Royal pieces: one per board, on a board of their owner's.
        let royal = |k: KindId| v.kinds[k.index()].royal;
        let mut kings: HashMap<BoardId, Pos> = HashMap::new();
        for (i, p) in s.pieces.iter().enumerate() {
            let pos = Pos::new(p.x, p.y);
            let c = r.cells.get(pos);
            if !royal(c.kind()) {
                continue;
            }
            let b = pos.board(tile);
            if let Some(other) = kings.insert(b, pos) {
                return Err(bad(format!("pieces[{i}]"), format!("board {b} has two royal pieces ({other} and {pos})")));
            }
            if r.cells.owner(b) != c.owner() {
                return Err(bad(
                    format!("pieces[{i}]"),
                    format!(
                        "the {} of `{}` on {pos} stands on board {b}, owned by {}",
                        v.kinds[c.kind().index()].name,
                        p.owner,
                        match r.cells.owner(b) {
                            NOBODY => "nobody",
                            o => r.name(o),
                        }
                    ),
                ));
            }
        }
        for (id, vault) in &s.vaults {
            let at = format!("vaults.{id}");
            let p = who(&r, &at, id)?;
            let mut res = Reserve::default();
            let mut total: u64 = 0;
            for (letter, &n) in vault {
                let k = kind_letter(v, letter).ok_or_else(|| bad(&at, unknown_kind(v, letter)))?;
                if !rules.reserve.holds(k) && n > 0 {
                    return Err(bad(&at, format!("a vault never holds a {}", v.kinds[k.index()].name)));
                }
                res.set(k, n);
                total += n as u64;
            }
            if rules.reserve.cap > 0 && total > rules.reserve.cap as u64 {
                return Err(bad(at, format!("{total} pieces; a vault holds at most {}", rules.reserve.cap)));
            }
            r.vaults[p as usize] = res;
        }
        for (i, pk) in s.pending_kings.iter().enumerate() {
            let at = format!("pending_kings[{i}]");
            let b = board(&at, pk.board)?;
            let p = who(&r, &at, &pk.player)?;
            if r.cells.owner(b) != p {
                return Err(bad(at, format!("board {b} is not owned by `{}`", pk.player)));
            }
            if kings.contains_key(&b) || r.pending.iter().any(|&(pb, _)| pb == b) {
                return Err(bad(at, format!("board {b} already has its royal piece (or one pending)")));
            }
            r.pending.push((b, p));
        }
        r.pending.sort();
        for (i, e) in s.eliminated.iter().enumerate() {
            let p = who(&r, &format!("eliminated[{i}]"), e)?;
            r.eliminated[p as usize] = true;
        }
        for (id, &n) in &s.idle {
            let p = who(&r, &format!("idle.{id}"), id)?;
            r.idle[p as usize] = n;
        }
        r.lockouts = s.lockouts.clone();
        Ok(r)
    }

    /// Writes the state; every list sorted, so equal realms give equal text.
    pub fn to_json(&self, v: &Variant) -> StateJson {
        let rules = v.world.as_deref();
        let letter = |k: KindId| v.kinds[k.index()].letter.to_string();
        let mut pieces: Vec<(Pos, Cell)> = self.cells.pieces().collect();
        pieces.sort_by_key(|&(p, _)| p);
        let pieces = pieces
            .into_iter()
            .map(|(p, c)| PieceJson { x: p.x, y: p.y, owner: self.name(c.owner()).to_string(), kind: letter(c.kind()) })
            .collect();
        let mut boards: Vec<(BoardId, u32)> = self
            .cells
            .boards()
            .iter()
            .enumerate()
            .map(|(t, &b)| (b, self.cells.owners[t]))
            .filter(|&(_, o)| o != NOBODY)
            .collect();
        boards.sort();
        let claimable_after = rules.map_or(0, |r| r.claimable_after);
        let bot_after = rules.map_or(0, |r| r.bot_after);
        let claimable: Vec<[i32; 2]> = boards
            .iter()
            .filter(|&&(_, o)| claimable_after > 0 && self.idle[o as usize] >= claimable_after)
            .map(|&(b, _)| [b.bx, b.by])
            .collect();
        let boards = boards
            .into_iter()
            .map(|(b, o)| BoardJson { board: [b.bx, b.by], owner: Some(self.name(o).to_string()) })
            .collect();
        let mut vaults = BTreeMap::new();
        for (i, p) in self.players.iter().enumerate() {
            let mut m = BTreeMap::new();
            for (k, kind) in v.kinds.iter().enumerate() {
                if rules.is_some_and(|r| r.reserve.holds(KindId(k as u8))) {
                    m.insert(kind.letter.to_string(), self.vaults[i].count(KindId(k as u8)));
                }
            }
            vaults.insert(p.clone(), m);
        }
        let live = |i: usize| !self.eliminated[i];
        StateJson {
            round: self.round,
            players: self.players.clone(),
            pieces,
            vaults,
            boards,
            pending_kings: self
                .pending
                .iter()
                .map(|&(b, p)| PendingJson { board: [b.bx, b.by], player: self.name(p).to_string() })
                .collect(),
            eliminated: (0..self.players.len()).filter(|&i| !live(i)).map(|i| self.players[i].clone()).collect(),
            idle: (0..self.players.len())
                .filter(|&i| self.idle[i] > 0)
                .map(|i| (self.players[i].clone(), self.idle[i]))
                .collect(),
            lockouts: self.lockouts.clone(),
            time: self.time,
            bots: (0..self.players.len())
                .filter(|&i| live(i) && bot_after > 0 && self.idle[i] >= bot_after)
                .map(|i| self.players[i].clone())
                .collect(),
            claimable,
        }
    }
}

/// The world rules of a variant, or why it has none.
pub fn world_of(v: &Variant) -> Result<&WorldRules, RealmError> {
    v.world.as_deref().ok_or_else(|| RealmError::NotAWorld { variant: v.name.clone() })
}

/// The kind with this letter (upper case, as the state writes it).
pub fn kind_letter(v: &Variant, text: &str) -> Option<KindId> {
    let mut ch = text.chars();
    match (ch.next(), ch.next()) {
        (Some(c), None) if c.is_ascii_uppercase() => v.kind_by_letter(c),
        _ => None,
    }
}

fn unknown_kind(v: &Variant, text: &str) -> String {
    let letters: Vec<String> = v.kinds.iter().map(|k| k.letter.to_string()).collect();
    format!("`{text}` is not a kind; kinds are written {}", letters.join(" "))
}

/// Parses JSON text, naming `file` and the place of a syntax or type error.
pub fn parse_json<T: serde::de::DeserializeOwned>(text: &str, file: &str) -> Result<T, RealmError> {
    serde_json::from_str(text).map_err(|e| RealmError::Json {
        file: file.to_string(),
        line: e.line(),
        col: e.column(),
        message: e.to_string().split(" at line ").next().unwrap_or_default().to_string(),
    })
}

/// Why a player cannot join (or take boards).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum JoinError {
    #[error("`{player}` abandoned an empire and may join again only from time {until}")]
    LockedOut { player: String, until: i64 },
    #[error("`{player}` is already playing")]
    Playing { player: String },
    #[error("a new player starts with {want} boards, not {given}")]
    Count { given: usize, want: u32 },
    #[error("board {board} belongs to {owner}, who is not idle long enough for it to be taken")]
    Taken { board: BoardId, owner: String },
    #[error("board {board} has pieces on it and no owner to take it from")]
    Occupied { board: BoardId },
    #[error("board {board} is given twice")]
    Twice { board: BoardId },
}

impl Realm {
    /// A new player joins with the variant's starting boards (CA-03) on `boards`, each
    /// free or owned by a player idle for `claimable_after` rounds (CA-18: those boards
    /// are wiped and taken over). Refused during a lockout after abandoning.
    pub fn join(&mut self, v: &Variant, id: &str, boards: &[BoardId]) -> Result<u32, JoinError> {
        let Ok(rules) = world_of(v) else { return Err(JoinError::Count { given: boards.len(), want: 0 }) };
        let player = id.to_string();
        if let Some(&until) = self.lockouts.get(id)
            && self.time.is_none_or(|t| t < until)
        {
            return Err(JoinError::LockedOut { player, until });
        }
        if let Some(p) = self.player(id)
            && !self.eliminated[p as usize]
        {
            return Err(JoinError::Playing { player });
        }
        if boards.len() != rules.start_boards as usize {
            return Err(JoinError::Count { given: boards.len(), want: rules.start_boards });
        }
        for (i, &b) in boards.iter().enumerate() {
            if boards[..i].contains(&b) {
                return Err(JoinError::Twice { board: b });
            }
            let owner = self.cells.owner(b);
            if owner != NOBODY {
                let idle = self.idle[owner as usize];
                if rules.claimable_after == 0 || idle < rules.claimable_after {
                    return Err(JoinError::Taken { board: b, owner: self.name(owner).to_string() });
                }
            } else if b.squares(rules.tile).any(|s| !self.cells.get(s).is_empty()) {
                return Err(JoinError::Occupied { board: b });
            }
        }
        let p = self.add_player(id);
        self.eliminated[p as usize] = false;
        self.idle[p as usize] = 0;
        self.lockouts.remove(id);
        for &b in boards {
            self.pending.retain(|&(pb, _)| pb != b);
            let squares: Vec<Pos> = b.squares(rules.tile).collect();
            for s in squares {
                self.cells.set(s, Cell::EMPTY);
            }
            self.cells.set_owner(b, p);
            let Some(corner) = b.corner(rules.tile) else { continue };
            for &(k, (x, y)) in &rules.start {
                if let Some(s) = corner.offset(x, y) {
                    self.cells.set(s, Cell::piece(p, k));
                }
            }
        }
        Ok(p)
    }
}
