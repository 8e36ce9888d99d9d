//! Mayors (CA-21…CA-23). A city's mayor is the player who holds the most boards in it,
//! then the most pieces on those boards, then (A-CA14) the incumbent on a full tie,
//! else the earliest joiner; [`elect`] decides it and [`update_mayors`] stores it after
//! every join and every resolution, in that transaction. Only the mayor may use the
//! crown: rename the city (the same mayor waits [`RENAME_WAIT`] after their own rename),
//! set the message of the day (once per [`MOTD_WAIT`] per city), and give pieces from
//! the city's mayor vault — at most [`DONATE_MAX`] to any one player per round, the mayor
//! included, into the receiver's vault within its cap. The mayor vault belongs to the
//! city and is shown only to its mayor.

use std::collections::BTreeMap;

use serde::Serialize;
use varia::world::json::StateJson;
use varia::world::state::world_of;

use crate::chat::{Geometry, Scope, Standing, standings};
use crate::config::is_city_name;
use crate::db::{Lock, Mode, Tx, Value};
use crate::error::Error;
use crate::service::{Service, parse_state};
use crate::store::{self, City};

/// The same mayor waits this long between renames (CA-22: 7 days).
pub const RENAME_WAIT: i64 = 7 * 86_400;
/// A city's message of the day changes at most this often (CA-22: once per 24 h).
pub const MOTD_WAIT: i64 = 86_400;
/// At most this many pieces from one mayor vault to one player per round (CA-23).
pub const DONATE_MAX: i64 = 2;
/// The longest message of the day, in characters.
pub const MAX_MOTD: usize = 200;

/// Who holds the office given a city's ranked holders (boards, then pieces on them, then
/// join order: [`standings`] with [`Scope::City`]) and the incumbent: the top holder,
/// unless the incumbent ties them on boards and pieces (A-CA14). Nobody without a board.
pub fn elect(ranked: &[Standing], incumbent: Option<&str>) -> Option<String> {
    let top = ranked.iter().find(|s| s.boards > 0)?;
    if let Some(inc) = incumbent
        && ranked.iter().any(|s| s.player == inc && s.boards == top.boards && s.pieces == top.pieces)
    {
        return Some(inc.to_string());
    }
    Some(top.player.clone())
}

/// Elects every city's mayor on `state` and stores the changes (a new mayor's term
/// starts at `now`).
pub fn update_mayors(tx: &mut dyn Tx, state: &StateJson, geo: Geometry, now: i64) -> Result<(), Error> {
    let cities = store::cities(tx)?;
    for c in &cities {
        let new = elect(&standings(state, geo, &cities, Scope::City(c)), c.mayor.as_deref());
        if new == c.mayor {
            continue;
        }
        match new {
            Some(p) => tx.exec(
                "INSERT INTO mayors (city, player, since) VALUES (?1, ?2, ?3)
                 ON CONFLICT (city) DO UPDATE SET player = excluded.player, since = excluded.since",
                &[c.id.into(), p.into(), now.into()],
            )?,
            None => tx.exec("DELETE FROM mayors WHERE city = ?1", &[c.id.into()])?,
        };
    }
    Ok(())
}

/// A city's mayor vault: kind letter → count.
pub fn mayor_vault(tx: &mut dyn Tx, city: i64) -> Result<BTreeMap<String, i64>, Error> {
    let rows = tx.query("SELECT kind, count FROM mayor_vault WHERE city = ?1 ORDER BY kind", &[city.into()])?;
    rows.iter().map(|r| Ok((r[0].text()?.to_string(), r[1].int()?))).collect()
}

/// Adds `n` (negative: takes) pieces of `kind` to a city's mayor vault.
pub fn add_to_mayor_vault(tx: &mut dyn Tx, city: i64, kind: &str, n: i64) -> Result<(), Error> {
    let have = mayor_vault(tx, city)?.get(kind).copied().unwrap_or(0);
    let new = have
        .checked_add(n)
        .filter(|v| *v >= 0)
        .ok_or(Error::Corrupt { what: format!("the mayor vault of city {city} would hold {have} + {n} {kind}") })?;
    tx.exec(
        "INSERT INTO mayor_vault (city, kind, count) VALUES (?1, ?2, ?3)
         ON CONFLICT (city, kind) DO UPDATE SET count = excluded.count",
        &[city.into(), kind.into(), new.into()],
    )?;
    Ok(())
}

fn donated(tx: &mut dyn Tx, round: u64, city: i64) -> Result<BTreeMap<String, i64>, Error> {
    let rows = tx.query(
        "SELECT receiver, count FROM donations WHERE round = ?1 AND city = ?2 ORDER BY receiver",
        &[(round as i64).into(), city.into()],
    )?;
    rows.iter().map(|r| Ok((r[0].text()?.to_string(), r[1].int()?))).collect()
}

/// The crown menu as the mayor sees it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Crown {
    pub city: String,
    pub mayor: String,
    /// When this mayor's term began.
    pub since: i64,
    /// The open round (donations are counted per round).
    pub round: u64,
    /// The mayor vault: kind letter → count (the mayor's eyes only).
    pub vault: BTreeMap<String, i64>,
    /// The earliest time the mayor may rename the city / set the message of the day
    /// (at or before `now`: at once).
    pub rename_from: i64,
    pub motd_from: i64,
    /// Pieces given to each player this round.
    pub donated: BTreeMap<String, i64>,
}

/// A donation made.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Donation {
    pub city: String,
    pub to: String,
    pub kind: String,
    pub count: i64,
    pub round: u64,
    /// All given to that player from this city this round, this donation included.
    pub given_this_round: i64,
}

fn find_city<'a>(cities: &'a [City], name: &str) -> Result<&'a City, Error> {
    cities.iter().find(|c| c.name == name).ok_or_else(|| Error::NotFound {
        message: format!("no city is called `{}`", name.chars().take(40).collect::<String>()),
    })
}

/// The city, if `player` is its mayor; else 403 with the reason.
fn as_mayor<'a>(cities: &'a [City], name: &str, player: &str) -> Result<&'a City, Error> {
    let c = find_city(cities, name)?;
    if c.mayor.as_deref() != Some(player) {
        let who = match &c.mayor {
            Some(m) => format!("the mayor is {m}"),
            None => "it has no mayor".to_string(),
        };
        return Err(Error::Forbidden {
            message: format!(
                "only the mayor of {} may use the crown menu and the mayor vault ({who}: most boards there, then pieces on them)",
                c.name
            ),
        });
    }
    Ok(c)
}

fn since(tx: &mut dyn Tx, city: i64) -> Result<i64, Error> {
    let rows = tx.query("SELECT since FROM mayors WHERE city = ?1", &[city.into()])?;
    rows.first().map(|r| r[0].int()).transpose()?.ok_or(Error::Corrupt { what: format!("city {city}: no mayor row") })
}

fn rename_from(c: &City, player: &str) -> i64 {
    match &c.renamed {
        Some((who, at)) if who == player => at.saturating_add(RENAME_WAIT),
        _ => i64::MIN,
    }
}

fn motd_from(c: &City) -> i64 {
    c.motd_at.map_or(i64::MIN, |at| at.saturating_add(MOTD_WAIT))
}

fn one_line(text: &str, max: usize, what: &str) -> Result<String, Error> {
    let t = text.trim();
    if t.is_empty() || t.chars().count() > max || t.chars().any(char::is_control) {
        return Err(Error::BadRequest { message: format!("{what}: one line of 1 to {max} characters") });
    }
    Ok(t.to_string())
}

impl Service {
    /// The crown menu of `city` for its mayor (anyone else: 403).
    pub fn crown(&mut self, token: &str, city: &str) -> Result<Crown, Error> {
        self.with_player(token, Mode::Read, |tx, player, _, _| {
            let cities = store::cities(tx)?;
            let c = as_mayor(&cities, city, player)?;
            let (round, _) = store::world(tx)?;
            Ok(Crown {
                city: c.name.clone(),
                mayor: player.to_string(),
                since: since(tx, c.id)?,
                round,
                vault: mayor_vault(tx, c.id)?,
                rename_from: rename_from(c, player),
                motd_from: motd_from(c),
                donated: donated(tx, round, c.id)?,
            })
        })
    }

    /// The mayor renames the city (CA-22). The chat log and roads follow (they are kept
    /// by the city's id).
    pub fn rename_city(&mut self, token: &str, city: &str, new_name: &str) -> Result<City, Error> {
        let new_name = new_name.trim();
        if !is_city_name(new_name) {
            return Err(Error::BadRequest {
                message: "a city's name is 1 to 40 letters, digits, spaces, - _ or '".to_string(),
            });
        }
        self.with_player(token, Mode::Write, |tx, player, _, now| {
            tx.lock_meta(Lock::Update)?;
            let cities = store::cities(tx)?;
            let c = as_mayor(&cities, city, player)?;
            if let Some(other) = cities.iter().find(|o| o.name == new_name) {
                return Err(Error::Refused {
                    message: if other.id == c.id {
                        format!("the city is already called {new_name}")
                    } else {
                        format!("another city is called {new_name}")
                    },
                });
            }
            let from = rename_from(c, player);
            if now < from {
                return Err(Error::Cooldown {
                    what: format!("{player} renamed {} less than 7 days ago", c.name),
                    wait: from - now,
                    until: from,
                });
            }
            tx.exec(
                "UPDATE cities SET name = ?1, renamed_by = ?2, renamed_at = ?3 WHERE id = ?4",
                &[new_name.into(), player.into(), now.into(), c.id.into()],
            )?;
            let out = store::cities(tx)?.into_iter().find(|o| o.id == c.id);
            out.ok_or(Error::Corrupt { what: "the renamed city vanished".into() })
        })
    }

    /// The mayor sets the city's message of the day (CA-22), public in `GET /cities`.
    pub fn set_motd(&mut self, token: &str, city: &str, text: &str) -> Result<City, Error> {
        let text = one_line(text, MAX_MOTD, "a message of the day")?;
        self.with_player(token, Mode::Write, |tx, player, _, now| {
            tx.lock_meta(Lock::Update)?;
            let cities = store::cities(tx)?;
            let c = as_mayor(&cities, city, player)?;
            let from = motd_from(c);
            if now < from {
                return Err(Error::Cooldown {
                    what: format!("{}'s message of the day was set less than 24 hours ago", c.name),
                    wait: from - now,
                    until: from,
                });
            }
            tx.exec(
                "UPDATE cities SET motd = ?1, motd_at = ?2 WHERE id = ?3",
                &[text.as_str().into(), now.into(), c.id.into()],
            )?;
            let out = store::cities(tx)?.into_iter().find(|o| o.id == c.id);
            out.ok_or(Error::Corrupt { what: "the city vanished".into() })
        })
    }

    /// The mayor gives `count` pieces of `kind` from the mayor vault to `to`'s vault
    /// (CA-23), at once: at most [`DONATE_MAX`] to one player per round, within the
    /// receiver's vault cap. A refusal changes nothing.
    pub fn donate(&mut self, token: &str, city: &str, to: &str, kind: &str, count: i64) -> Result<Donation, Error> {
        if !(1..=DONATE_MAX).contains(&count) {
            return Err(Error::BadRequest { message: format!("a donation is 1 to {DONATE_MAX} pieces") });
        }
        let cap = world_of(self.variant())?.reserve.cap;
        self.with_player(token, Mode::Write, |tx, player, _, _| {
            tx.lock_meta(Lock::Update)?;
            store::meta(tx)?.check_not_resolving()?;
            let cities = store::cities(tx)?;
            let c = as_mayor(&cities, city, player)?;
            let (round, text) = store::world(tx)?;
            let mut state = parse_state(&text)?;
            if !state.players.iter().any(|p| p == to) {
                return Err(Error::NotFound {
                    message: format!("no player is called `{}`", to.chars().take(40).collect::<String>()),
                });
            }
            if state.eliminated.iter().any(|p| p == to) {
                return Err(Error::Refused { message: format!("{to} is eliminated") });
            }
            let have = mayor_vault(tx, c.id)?.get(kind).copied().unwrap_or(0);
            if have < count {
                return Err(Error::Refused {
                    message: format!(
                        "the mayor vault of {} holds {have} `{}`, not {count}",
                        c.name,
                        kind.chars().take(8).collect::<String>()
                    ),
                });
            }
            let before = donated(tx, round, c.id)?.get(to).copied().unwrap_or(0);
            let after = before + count;
            if after > DONATE_MAX {
                return Err(Error::Refused {
                    message: format!(
                        "{to} has had {before} pieces from the mayor vault of {} this round; at most {DONATE_MAX} per player per round",
                        c.name
                    ),
                });
            }
            let vault = state.vaults.entry(to.to_string()).or_default();
            let held: u64 = vault.values().map(|&n| u64::from(n)).sum();
            if cap > 0 && held + count as u64 > u64::from(cap) {
                return Err(Error::Refused { message: format!("{to}'s vault has no room for {count} more") });
            }
            let slot = vault.entry(kind.to_string()).or_default();
            *slot = slot.checked_add(count as u32).ok_or(Error::Refused { message: "the vault is full".into() })?;
            add_to_mayor_vault(tx, c.id, kind, -count)?;
            tx.exec(
                "INSERT INTO donations (round, city, receiver, count) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (round, city, receiver) DO UPDATE SET count = excluded.count",
                &[(round as i64).into(), c.id.into(), Value::from(to), after.into()],
            )?;
            store::put_world(tx, round, &serde_json::to_string(&state)?)?;
            Ok(Donation {
                city: c.name.clone(),
                to: to.to_string(),
                kind: kind.to_string(),
                count,
                round,
                given_this_round: after,
            })
        })
    }
}
