//! The realm's chat logs. Now: the world log (CA-26): every player reads it; only the
//! top 20 real players of the realm (most boards, then most pieces on the map, then
//! earliest join: A-CA14) may write; its Top-20 card lists board holders, bots
//! included. Each log keeps its newest [`KEEP_LINES`] lines, and a player posts at
//! most once per [`PAUSE_SECONDS`] (across logs), enforced here with the service's
//! clock.

use serde::Serialize;
use varia::world::json::StateJson;

use crate::db::{Lock, Mode};
use crate::error::Error;
use crate::service::Service;
use crate::store::{self, ChatLine};

pub const KEEP_LINES: i64 = 100;
pub const PAUSE_SECONDS: i64 = 5;
pub const TOP: usize = 20;
/// The longest line, in characters.
pub const MAX_TEXT: usize = 500;

/// A log's name as the API writes it.
pub const WORLD: &str = "world";

/// One row of a Top-20 card.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Standing {
    pub player: String,
    pub boards: u64,
    pub pieces: u64,
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

/// Every board holder and piece holder of the world, ranked: boards, then pieces,
/// then join order (A-CA14). Eliminated players are left out.
pub fn standings(state: &StateJson) -> Vec<Standing> {
    let order: std::collections::HashMap<&str, usize> =
        state.players.iter().enumerate().map(|(i, p)| (p.as_str(), i)).collect();
    let mut rows: Vec<(usize, Standing)> = state
        .players
        .iter()
        .filter(|p| !state.eliminated.contains(p))
        .map(|p| {
            let boards = state.boards.iter().filter(|b| b.owner.as_deref() == Some(p)).count() as u64;
            let pieces = state.pieces.iter().filter(|pc| pc.owner == *p).count() as u64;
            (order[p.as_str()], Standing { player: p.clone(), boards, pieces, bot: state.bots.contains(p) })
        })
        .filter(|(_, s)| s.boards > 0 || s.pieces > 0)
        .collect();
    rows.sort_by(|(ia, a), (ib, b)| b.boards.cmp(&a.boards).then(b.pieces.cmp(&a.pieces)).then(ia.cmp(ib)));
    rows.into_iter().map(|(_, s)| s).collect()
}

/// Whether `player` is among the top 20 real (not bot-run) players.
fn may_write_world(state: &StateJson, player: &str) -> bool {
    standings(state).iter().filter(|s| !s.bot).take(TOP).any(|s| s.player == player)
}

fn channel(name: &str) -> Result<&'static str, Error> {
    match name {
        WORLD => Ok(WORLD),
        other => Err(Error::BadRequest {
            message: format!("`{}` is not a chat log here; logs: world", other.chars().take(40).collect::<String>()),
        }),
    }
}

impl Service {
    /// A log with its Top-20 card, as the token's player may read it.
    pub fn chat_read(&mut self, token: &str, name: &str) -> Result<Log, Error> {
        let ch = channel(name)?;
        self.with_player(token, Mode::Read, |tx, player, state, _| {
            Ok(Log {
                channel: ch.to_string(),
                lines: store::chat(tx, ch)?,
                top: standings(state).into_iter().take(TOP).collect(),
                may_write: may_write_world(state, player),
            })
        })
    }

    /// Posts a line; its sequence number.
    pub fn chat_post(&mut self, token: &str, name: &str, text: &str) -> Result<i64, Error> {
        let ch = channel(name)?;
        let text = text.trim();
        if text.is_empty() || text.chars().count() > MAX_TEXT {
            return Err(Error::BadRequest { message: format!("a chat line has 1 to {MAX_TEXT} characters") });
        }
        if text.chars().any(char::is_control) {
            return Err(Error::BadRequest {
                message: "a chat line is one line of text (no control characters)".into(),
            });
        }
        self.with_player(token, Mode::Write, |tx, player, state, now| {
            // Posts to one log are numbered in turn (PostgreSQL: one writer at a time).
            tx.lock_meta(Lock::Update)?;
            if !may_write_world(state, player) {
                return Err(Error::Forbidden {
                    message: format!("only the top {TOP} players of the realm (by boards, then pieces) write here"),
                });
            }
            if let Some(last) = store::last_post(tx, player)? {
                let wait = last.saturating_add(PAUSE_SECONDS).saturating_sub(now);
                if wait > 0 {
                    return Err(Error::TooSoon { pause: PAUSE_SECONDS, wait });
                }
            }
            store::set_last_post(tx, player, now)?;
            store::post_chat(tx, ch, player, now, text, KEEP_LINES)
        })
    }
}
