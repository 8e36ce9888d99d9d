//! What a realm keeps, table by table, and the schema migrations that make the tables
//! (a `schema_version` table records how far a database has come; a newer one than
//! this build knows is refused, never guessed at). Every function here runs inside a
//! transaction the caller opened, so the caller decides what is atomic.
//!
//! The world is kept as the resolver's STATE JSON (DESIGN.md §8) in one row: a round
//! reads it whole and writes it whole, in the same transaction as the round's result.

use crate::db::{Tx, Value};
use crate::error::Error;

/// The migrations, in order; `MIGRATIONS[i]` takes a database from version i to i+1.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE realm_meta (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL,
    variant TEXT NOT NULL,
    round_hours BIGINT NOT NULL,
    seed BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    deadline BIGINT NOT NULL
);
CREATE TABLE world (id BIGINT PRIMARY KEY, round BIGINT NOT NULL, state TEXT NOT NULL);
CREATE TABLE players (
    id TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL,
    joined_at BIGINT NOT NULL,
    last_post BIGINT
);
CREATE TABLE orders (
    round BIGINT NOT NULL,
    player TEXT NOT NULL REFERENCES players (id),
    orders TEXT NOT NULL,
    submitted_at BIGINT NOT NULL,
    PRIMARY KEY (round, player)
);
CREATE TABLE results (round BIGINT PRIMARY KEY, resolved_at BIGINT NOT NULL, output TEXT NOT NULL);
CREATE TABLE resolver_lock (id BIGINT PRIMARY KEY, holder TEXT, since BIGINT);
INSERT INTO resolver_lock (id, holder, since) VALUES (1, NULL, NULL);
CREATE TABLE chat (
    channel TEXT NOT NULL,
    seq BIGINT NOT NULL,
    author TEXT NOT NULL REFERENCES players (id),
    at BIGINT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (channel, seq)
);
",
    "
ALTER TABLE realm_meta ADD COLUMN sector_boards BIGINT NOT NULL DEFAULT 10;
",
    "
CREATE TABLE cities (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    x0 BIGINT NOT NULL,
    y0 BIGINT NOT NULL,
    x1 BIGINT NOT NULL,
    y1 BIGINT NOT NULL
);
CREATE TABLE roads (
    a BIGINT NOT NULL REFERENCES cities (id),
    b BIGINT NOT NULL REFERENCES cities (id),
    PRIMARY KEY (a, b)
);
",
    // Mayors (CA-21..23) and the five-queen transfer (CA-19, CA-20).
    "
ALTER TABLE cities ADD COLUMN motd TEXT;
ALTER TABLE cities ADD COLUMN motd_at BIGINT;
ALTER TABLE cities ADD COLUMN renamed_by TEXT;
ALTER TABLE cities ADD COLUMN renamed_at BIGINT;
CREATE TABLE mayors (
    city BIGINT PRIMARY KEY REFERENCES cities (id),
    player TEXT NOT NULL,
    since BIGINT NOT NULL
);
CREATE TABLE mayor_vault (
    city BIGINT NOT NULL REFERENCES cities (id),
    kind TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (city, kind)
);
CREATE TABLE donations (
    round BIGINT NOT NULL,
    city BIGINT NOT NULL REFERENCES cities (id),
    receiver TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (round, city, receiver)
);
CREATE TABLE transfers (
    id BIGINT PRIMARY KEY,
    round BIGINT NOT NULL,
    player TEXT NOT NULL REFERENCES players (id),
    home BIGINT NOT NULL REFERENCES cities (id),
    dest BIGINT NOT NULL REFERENCES cities (id),
    at BIGINT NOT NULL,
    outcome TEXT
);
",
    // Workers (issue 13 point 4): a round being resolved in parts by several processes.
    "
ALTER TABLE realm_meta ADD COLUMN resolving BIGINT;
CREATE TABLE round_plans (round BIGINT PRIMARY KEY, at BIGINT NOT NULL, plan TEXT NOT NULL);
CREATE TABLE round_parts (
    round BIGINT NOT NULL,
    part BIGINT NOT NULL,
    input TEXT NOT NULL,
    output TEXT,
    worker TEXT,
    PRIMARY KEY (round, part)
);
",
    // Joins in one region, cities first (issue 13): may an empire lie on the open ground?
    "
ALTER TABLE realm_meta ADD COLUMN join_ground BIGINT NOT NULL DEFAULT 1;
",
    // Coming back under one's name (CA-17, CA-18): does the new empire keep the old vault?
    "
ALTER TABLE realm_meta ADD COLUMN rejoin_keeps_vault BIGINT NOT NULL DEFAULT 0;
",
    // Takeovers (CA-18): a join that takes a claimable board records it for the old
    // owner. The old owner is a name, not a key of `players`: an operator's world may
    // hold players who never joined through the service.
    "
CREATE TABLE takeovers (
    round BIGINT NOT NULL,
    board_x BIGINT NOT NULL,
    board_y BIGINT NOT NULL,
    old_owner TEXT NOT NULL,
    new_owner TEXT NOT NULL REFERENCES players (id),
    at BIGINT NOT NULL,
    pieces BIGINT NOT NULL,
    PRIMARY KEY (round, board_x, board_y)
);
CREATE INDEX takeovers_old_owner ON takeovers (old_owner);
",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The version of a database's schema (0: empty).
pub fn schema_version(tx: &mut dyn Tx) -> Result<i64, Error> {
    tx.exec("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)", &[])?;
    let rows = tx.query("SELECT version FROM schema_version", &[])?;
    match rows.first() {
        None => Ok(0),
        Some(r) => r[0].int(),
    }
}

/// Brings the schema up to [`SCHEMA_VERSION`], each step in the caller's transaction.
pub fn migrate(tx: &mut dyn Tx) -> Result<(), Error> {
    let found = schema_version(tx)?;
    if found > SCHEMA_VERSION {
        return Err(Error::SchemaTooNew { found, known: SCHEMA_VERSION });
    }
    for sql in &MIGRATIONS[found as usize..] {
        for stmt in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            tx.exec(stmt, &[])?;
        }
    }
    if found == 0 {
        tx.exec("INSERT INTO schema_version (version) VALUES (?1)", &[SCHEMA_VERSION.into()])?;
    } else if found < SCHEMA_VERSION {
        tx.exec("UPDATE schema_version SET version = ?1", &[SCHEMA_VERSION.into()])?;
    }
    Ok(())
}

/// Refuses a database this build cannot read (older schemas are migrated on write).
pub fn check_schema(tx: &mut dyn Tx) -> Result<(), Error> {
    let rows = tx.query("SELECT version FROM schema_version", &[]);
    let found = match rows {
        Ok(r) => r.first().map(|r| r[0].int()).transpose()?.unwrap_or(0),
        Err(_) => 0,
    };
    if found > SCHEMA_VERSION {
        return Err(Error::SchemaTooNew { found, known: SCHEMA_VERSION });
    }
    Ok(())
}

/// The realm's settings and clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    pub name: String,
    pub variant: String,
    pub round_hours: i64,
    pub seed: u64,
    pub created_at: i64,
    /// The deadline of the open round.
    pub deadline: i64,
    /// Boards per side of a sector (A-CA1; 10 in a realm made before version 2).
    pub sector_boards: i64,
    /// The round being resolved in parts by workers (see `worker`), if one is: its
    /// orders are closed and the world may not change until it is merged.
    pub resolving: Option<u64>,
    /// Whether a new empire may lie on the ground outside the cities (realm config
    /// `join_ground`; true in a realm made before version 6).
    pub join_ground: bool,
    /// Whether a player coming back (`Service::rejoin`) keeps their old vault (realm
    /// config `rejoin_keeps_vault`; false in a realm made before version 7).
    pub rejoin_keeps_vault: bool,
}

impl Meta {
    /// Refuses a change to the world while workers resolve a round.
    pub fn check_not_resolving(&self) -> Result<(), Error> {
        match self.resolving {
            Some(round) => Err(Error::Resolving { round }),
            None => Ok(()),
        }
    }
}

pub fn insert_meta(tx: &mut dyn Tx, m: &Meta) -> Result<(), Error> {
    tx.exec(
        "INSERT INTO realm_meta (id, name, variant, round_hours, seed, created_at, deadline, sector_boards, join_ground, rejoin_keeps_vault) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        &[
            m.name.as_str().into(),
            m.variant.as_str().into(),
            m.round_hours.into(),
            (m.seed as i64).into(),
            m.created_at.into(),
            m.deadline.into(),
            m.sector_boards.into(),
            i64::from(m.join_ground).into(),
            i64::from(m.rejoin_keeps_vault).into(),
        ],
    )?;
    Ok(())
}

pub fn meta(tx: &mut dyn Tx) -> Result<Meta, Error> {
    let rows = tx.query(
        "SELECT name, variant, round_hours, seed, created_at, deadline, sector_boards, resolving, join_ground, rejoin_keeps_vault FROM realm_meta WHERE id = 1",
        &[],
    )?;
    let r = rows.first().ok_or(Error::Corrupt { what: "the realm has no settings row".into() })?;
    Ok(Meta {
        name: r[0].text()?.to_string(),
        variant: r[1].text()?.to_string(),
        round_hours: r[2].int()?,
        seed: r[3].int()? as u64,
        created_at: r[4].int()?,
        deadline: r[5].int()?,
        sector_boards: r[6].int()?,
        resolving: match &r[7] {
            Value::Null => None,
            v => Some(v.int()? as u64),
        },
        join_ground: r[8].int()? != 0,
        rejoin_keeps_vault: r[9].int()? != 0,
    })
}

/// Marks the round being resolved in parts (None: none).
pub fn set_resolving(tx: &mut dyn Tx, round: Option<u64>) -> Result<(), Error> {
    let v = round.map_or(Value::Null, |r| Value::Int(r as i64));
    tx.exec("UPDATE realm_meta SET resolving = ?1 WHERE id = 1", &[v])?;
    Ok(())
}

/// Stores a round's plan (see `worker`).
pub fn put_plan(tx: &mut dyn Tx, round: u64, at: i64, plan: &str) -> Result<(), Error> {
    tx.exec(
        "INSERT INTO round_plans (round, at, plan) VALUES (?1, ?2, ?3)",
        &[(round as i64).into(), at.into(), plan.into()],
    )?;
    Ok(())
}

pub fn plan(tx: &mut dyn Tx, round: u64) -> Result<Option<String>, Error> {
    let rows = tx.query("SELECT plan FROM round_plans WHERE round = ?1", &[(round as i64).into()])?;
    rows.first().map(|r| r[0].text().map(str::to_string)).transpose()
}

/// Stores one part of a planned round, not yet resolved.
pub fn put_part(tx: &mut dyn Tx, round: u64, part: u32, input: &str) -> Result<(), Error> {
    tx.exec(
        "INSERT INTO round_parts (round, part, input) VALUES (?1, ?2, ?3)",
        &[(round as i64).into(), i64::from(part).into(), input.into()],
    )?;
    Ok(())
}

/// Takes the lowest part of `round` that nobody has resolved and no other transaction
/// holds (PostgreSQL: `FOR UPDATE SKIP LOCKED`, so workers never wait on each other;
/// the row lock dies with its connection, so a killed worker's part is taken again).
/// SQLite's write transaction already excludes every other writer.
pub fn claim_part(tx: &mut dyn Tx, round: u64) -> Result<Option<(u32, String)>, Error> {
    let lock = match tx.dialect() {
        crate::db::Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
        crate::db::Dialect::Sqlite => "",
    };
    let sql =
        format!("SELECT part, input FROM round_parts WHERE round = ?1 AND output IS NULL ORDER BY part LIMIT 1{lock}");
    let rows = tx.query(&sql, &[(round as i64).into()])?;
    let Some(r) = rows.first() else { return Ok(None) };
    let part = u32::try_from(r[0].int()?).map_err(|_| Error::Corrupt { what: "a part's label".into() })?;
    Ok(Some((part, r[1].text()?.to_string())))
}

/// Records a part's result; refuses one already recorded (nothing is resolved twice).
pub fn finish_part(tx: &mut dyn Tx, round: u64, part: u32, output: &str, worker: &str) -> Result<(), Error> {
    let n = tx.exec(
        "UPDATE round_parts SET output = ?1, worker = ?2 WHERE round = ?3 AND part = ?4 AND output IS NULL",
        &[output.into(), worker.into(), (round as i64).into(), i64::from(part).into()],
    )?;
    if n != 1 {
        return Err(Error::Corrupt { what: format!("part {part} of round {round} was resolved twice") });
    }
    Ok(())
}

/// How many parts of `round` there are, and how many are still unresolved.
pub fn parts_left(tx: &mut dyn Tx, round: u64) -> Result<(u64, u64), Error> {
    let rows = tx.query(
        "SELECT COUNT(*), COUNT(*) - COUNT(output) FROM round_parts WHERE round = ?1",
        &[(round as i64).into()],
    )?;
    let r = rows.first().ok_or(Error::Corrupt { what: "no count".into() })?;
    Ok((r[0].int()? as u64, r[1].int()? as u64))
}

/// Every resolved part of `round`: (label, result, worker), by label.
pub fn part_outputs(tx: &mut dyn Tx, round: u64) -> Result<Vec<(u32, String, String)>, Error> {
    let rows = tx.query(
        "SELECT part, output, worker FROM round_parts WHERE round = ?1 AND output IS NOT NULL ORDER BY part",
        &[(round as i64).into()],
    )?;
    rows.iter()
        .map(|r| {
            let part = u32::try_from(r[0].int()?).map_err(|_| Error::Corrupt { what: "a part's label".into() })?;
            Ok((part, r[1].text()?.to_string(), r[2].text()?.to_string()))
        })
        .collect()
}

/// Drops a merged round's plan and parts.
pub fn clear_plan(tx: &mut dyn Tx, round: u64) -> Result<(), Error> {
    tx.exec("DELETE FROM round_parts WHERE round = ?1", &[(round as i64).into()])?;
    tx.exec("DELETE FROM round_plans WHERE round = ?1", &[(round as i64).into()])?;
    Ok(())
}

pub fn set_deadline(tx: &mut dyn Tx, deadline: i64) -> Result<(), Error> {
    tx.exec("UPDATE realm_meta SET deadline = ?1 WHERE id = 1", &[deadline.into()])?;
    Ok(())
}

/// A city as stored: its id (the chat log's key, so a renamed city keeps its log), name
/// and rectangle of boards.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct City {
    pub id: i64,
    pub name: String,
    /// The lower-left and upper-right boards, both included.
    pub boards: [[i32; 2]; 2],
    /// The cities a road leads to, by name.
    pub roads: Vec<String>,
    /// The mayor (CA-21; null: nobody holds a board there).
    pub mayor: Option<String>,
    /// The mayor's message of the day (CA-22) and when it was set; public.
    pub motd: Option<String>,
    pub motd_at: Option<i64>,
    /// Who last renamed the city and when (the same mayor waits 7 days, CA-22).
    #[serde(skip)]
    pub renamed: Option<(String, i64)>,
}

impl City {
    pub fn contains(&self, [bx, by]: [i32; 2]) -> bool {
        let [[x0, y0], [x1, y1]] = self.boards;
        (x0..=x1).contains(&bx) && (y0..=y1).contains(&by)
    }
}

/// Stores the config's cities (ids in config order, from 1) and roads.
pub fn insert_cities(
    tx: &mut dyn Tx,
    cities: &[crate::config::CityConfig],
    roads: &[crate::config::RoadConfig],
) -> Result<(), Error> {
    for (i, c) in cities.iter().enumerate() {
        let [[x0, y0], [x1, y1]] = c.boards;
        let xy = |v: i32| Value::from(i64::from(v));
        tx.exec(
            "INSERT INTO cities (id, name, x0, y0, x1, y1) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            &[(i as i64 + 1).into(), c.name.as_str().into(), xy(x0), xy(y0), xy(x1), xy(y1)],
        )?;
    }
    let id = |name: &str| cities.iter().position(|c| c.name == name).map(|i| i as i64 + 1);
    for r in roads {
        if let (Some(a), Some(b)) = (id(&r.between[0]), id(&r.between[1])) {
            tx.exec("INSERT INTO roads (a, b) VALUES (?1, ?2)", &[a.min(b).into(), a.max(b).into()])?;
        }
    }
    Ok(())
}

/// Every city, by id, with its roads.
pub fn cities(tx: &mut dyn Tx) -> Result<Vec<City>, Error> {
    let coord = |v: &Value| -> Result<i32, Error> {
        i32::try_from(v.int()?).map_err(|_| Error::Corrupt { what: "a city's board is outside the world".into() })
    };
    let mut out = Vec::new();
    let opt_int = |v: &Value| match v {
        Value::Null => Ok(None),
        v => v.int().map(Some),
    };
    let opt_text = |v: &Value| match v {
        Value::Null => Ok(None),
        v => v.text().map(|t| Some(t.to_string())),
    };
    for r in tx.query(
        "SELECT c.id, c.name, c.x0, c.y0, c.x1, c.y1, m.player, c.motd, c.motd_at, c.renamed_by, c.renamed_at
         FROM cities c LEFT JOIN mayors m ON m.city = c.id ORDER BY c.id",
        &[],
    )? {
        let renamed = match (opt_text(&r[9])?, opt_int(&r[10])?) {
            (Some(who), Some(at)) => Some((who, at)),
            _ => None,
        };
        out.push(City {
            id: r[0].int()?,
            name: r[1].text()?.to_string(),
            boards: [[coord(&r[2])?, coord(&r[3])?], [coord(&r[4])?, coord(&r[5])?]],
            roads: Vec::new(),
            mayor: opt_text(&r[6])?,
            motd: opt_text(&r[7])?,
            motd_at: opt_int(&r[8])?,
            renamed,
        });
    }
    let name = |out: &[City], id: i64| out.iter().find(|c| c.id == id).map(|c| c.name.clone());
    for r in tx.query("SELECT a, b FROM roads ORDER BY a, b", &[])? {
        let (a, b) = (r[0].int()?, r[1].int()?);
        let (Some(na), Some(nb)) = (name(&out, a), name(&out, b)) else {
            return Err(Error::Corrupt { what: format!("a road between unknown cities {a} and {b}") });
        };
        for c in out.iter_mut() {
            if c.id == a {
                c.roads.push(nb.clone());
            } else if c.id == b {
                c.roads.push(na.clone());
            }
        }
    }
    Ok(out)
}

/// The world's state as STATE JSON text, and its round.
pub fn world(tx: &mut dyn Tx) -> Result<(u64, String), Error> {
    let rows = tx.query("SELECT round, state FROM world WHERE id = 1", &[])?;
    let r = rows.first().ok_or(Error::Corrupt { what: "the realm has no world row".into() })?;
    Ok((r[0].int()? as u64, r[1].text()?.to_string()))
}

/// The world's round alone (the open round), without reading the state.
pub fn world_round(tx: &mut dyn Tx) -> Result<u64, Error> {
    let rows = tx.query("SELECT round FROM world WHERE id = 1", &[])?;
    let r = rows.first().ok_or(Error::Corrupt { what: "the realm has no world row".into() })?;
    Ok(r[0].int()? as u64)
}

pub fn put_world(tx: &mut dyn Tx, round: u64, state: &str) -> Result<(), Error> {
    let n = tx.exec("UPDATE world SET round = ?1, state = ?2 WHERE id = 1", &[(round as i64).into(), state.into()])?;
    if n == 0 {
        tx.exec("INSERT INTO world (id, round, state) VALUES (1, ?1, ?2)", &[(round as i64).into(), state.into()])?;
    }
    Ok(())
}

pub fn insert_player(tx: &mut dyn Tx, id: &str, token_hash: &[u8], at: i64) -> Result<(), Error> {
    tx.exec(
        "INSERT INTO players (id, token_hash, joined_at) VALUES (?1, ?2, ?3)",
        &[id.into(), token_hash.to_vec().into(), at.into()],
    )?;
    Ok(())
}

/// A player who starts a new empire under their name (`Service::rejoin`): `joined_at`
/// becomes the start of that empire. The token's hash stays.
pub fn set_joined_at(tx: &mut dyn Tx, id: &str, at: i64) -> Result<(), Error> {
    tx.exec("UPDATE players SET joined_at = ?1 WHERE id = ?2", &[at.into(), id.into()])?;
    Ok(())
}

/// The stored hash of a player's token.
pub fn token_hash(tx: &mut dyn Tx, id: &str) -> Result<Option<Vec<u8>>, Error> {
    let rows = tx.query("SELECT token_hash FROM players WHERE id = ?1", &[id.into()])?;
    rows.first().map(|r| r[0].blob().map(<[u8]>::to_vec)).transpose()
}

/// Stores (or replaces) a player's orders for a round, as a JSON list.
pub fn put_orders(tx: &mut dyn Tx, round: u64, player: &str, orders: &str, at: i64) -> Result<(), Error> {
    tx.exec(
        "INSERT INTO orders (round, player, orders, submitted_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (round, player) DO UPDATE SET orders = excluded.orders, submitted_at = excluded.submitted_at",
        &[(round as i64).into(), player.into(), orders.into(), at.into()],
    )?;
    Ok(())
}

/// One player's orders for a round, if any.
pub fn orders_of(tx: &mut dyn Tx, round: u64, player: &str) -> Result<Option<String>, Error> {
    let rows = tx
        .query("SELECT orders FROM orders WHERE round = ?1 AND player = ?2", &[(round as i64).into(), player.into()])?;
    rows.first().map(|r| r[0].text().map(str::to_string)).transpose()
}

/// Every player's orders for a round, by player name.
pub fn round_orders(tx: &mut dyn Tx, round: u64) -> Result<Vec<(String, String)>, Error> {
    let rows =
        tx.query("SELECT player, orders FROM orders WHERE round = ?1 ORDER BY player", &[(round as i64).into()])?;
    rows.iter().map(|r| Ok((r[0].text()?.to_string(), r[1].text()?.to_string()))).collect()
}

pub fn put_result(tx: &mut dyn Tx, round: u64, at: i64, output: &str) -> Result<(), Error> {
    tx.exec(
        "INSERT INTO results (round, resolved_at, output) VALUES (?1, ?2, ?3)",
        &[(round as i64).into(), at.into(), output.into()],
    )?;
    Ok(())
}

/// A resolved round's output JSON and when it was resolved.
pub fn result(tx: &mut dyn Tx, round: u64) -> Result<Option<(i64, String)>, Error> {
    let rows = tx.query("SELECT resolved_at, output FROM results WHERE round = ?1", &[(round as i64).into()])?;
    rows.first().map(|r| Ok((r[0].int()?, r[1].text()?.to_string()))).transpose()
}

/// Marks the resolver's lock row with who holds it (the row lock itself is the lock).
pub fn mark_resolver(tx: &mut dyn Tx, holder: &str, since: i64) -> Result<(), Error> {
    tx.exec("UPDATE resolver_lock SET holder = ?1, since = ?2 WHERE id = 1", &[holder.into(), since.into()])?;
    Ok(())
}

/// A board of a player taken over by a join (CA-18: its owner was idle for
/// `claimable_after` rounds), as its old owner sees it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TakenOver {
    pub board: [i32; 2],
    /// The player whose new empire took it.
    pub by: String,
    /// The open round at the join, and the join's time.
    pub round: u64,
    pub at: i64,
    /// The old owner's pieces that stood on it, removed with it (CA-18: overwritten).
    pub pieces: u32,
}

/// Records, in the join's transaction, the boards a new empire of `new_owner` took from
/// their owners: (board, old owner, the old owner's pieces on it).
pub fn insert_takeovers(
    tx: &mut dyn Tx,
    round: u64,
    new_owner: &str,
    at: i64,
    taken: &[([i32; 2], String, u32)],
) -> Result<(), Error> {
    for ([bx, by], old, pieces) in taken {
        tx.exec(
            "INSERT INTO takeovers (round, board_x, board_y, old_owner, new_owner, at, pieces) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            &[
                (round as i64).into(),
                i64::from(*bx).into(),
                i64::from(*by).into(),
                old.as_str().into(),
                new_owner.into(),
                at.into(),
                i64::from(*pieces).into(),
            ],
        )?;
    }
    Ok(())
}

/// The boards taken over from `old_owner`, by round, then time, then board in (y, x) order.
pub fn taken_over(tx: &mut dyn Tx, old_owner: &str) -> Result<Vec<TakenOver>, Error> {
    let rows = tx.query(
        "SELECT board_x, board_y, new_owner, round, at, pieces FROM takeovers WHERE old_owner = ?1 \
         ORDER BY round, at, board_y, board_x",
        &[old_owner.into()],
    )?;
    let bad = |what: &str| Error::Corrupt { what: format!("a takeover's {what}") };
    rows.iter()
        .map(|r| {
            Ok(TakenOver {
                board: [
                    i32::try_from(r[0].int()?).map_err(|_| bad("board"))?,
                    i32::try_from(r[1].int()?).map_err(|_| bad("board"))?,
                ],
                by: r[2].text()?.to_string(),
                round: u64::try_from(r[3].int()?).map_err(|_| bad("round"))?,
                at: r[4].int()?,
                pieces: u32::try_from(r[5].int()?).map_err(|_| bad("piece count"))?,
            })
        })
        .collect()
}

/// One chat line.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ChatLine {
    pub seq: i64,
    pub author: String,
    pub at: i64,
    pub text: String,
}

/// Appends a line to a channel and drops all but its newest `keep`.
pub fn post_chat(tx: &mut dyn Tx, channel: &str, author: &str, at: i64, text: &str, keep: i64) -> Result<i64, Error> {
    let rows = tx.query("SELECT MAX(seq) FROM chat WHERE channel = ?1", &[channel.into()])?;
    let last = match rows.first().map(|r| &r[0]) {
        Some(Value::Int(i)) => *i,
        _ => 0,
    };
    let seq = last.checked_add(1).ok_or(Error::Corrupt { what: "chat sequence exhausted".into() })?;
    tx.exec(
        "INSERT INTO chat (channel, seq, author, at, text) VALUES (?1, ?2, ?3, ?4, ?5)",
        &[channel.into(), seq.into(), author.into(), at.into(), text.into()],
    )?;
    tx.exec("DELETE FROM chat WHERE channel = ?1 AND seq <= ?2", &[channel.into(), (seq - keep).into()])?;
    Ok(seq)
}

/// A channel's lines, oldest first.
pub fn chat(tx: &mut dyn Tx, channel: &str) -> Result<Vec<ChatLine>, Error> {
    let rows = tx.query("SELECT seq, author, at, text FROM chat WHERE channel = ?1 ORDER BY seq", &[channel.into()])?;
    rows.iter()
        .map(|r| {
            Ok(ChatLine {
                seq: r[0].int()?,
                author: r[1].text()?.to_string(),
                at: r[2].int()?,
                text: r[3].text()?.to_string(),
            })
        })
        .collect()
}

/// When a player last posted anywhere (the pause is per player, across channels; kept
/// with the player, so trimming a channel never forgets it).
pub fn last_post(tx: &mut dyn Tx, author: &str) -> Result<Option<i64>, Error> {
    let rows = tx.query("SELECT last_post FROM players WHERE id = ?1", &[author.into()])?;
    Ok(match rows.first().map(|r| &r[0]) {
        Some(Value::Int(i)) => Some(*i),
        _ => None,
    })
}

pub fn set_last_post(tx: &mut dyn Tx, author: &str, at: i64) -> Result<(), Error> {
    tx.exec("UPDATE players SET last_post = ?1 WHERE id = ?2", &[at.into(), author.into()])?;
    Ok(())
}
