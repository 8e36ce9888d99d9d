//! The games in play, in server memory: keyed by ids the server issues (`g1`, `g2`, …,
//! never reused), at most [`MAX_GAMES`] of them; a new game past that evicts the one
//! used least recently. When a variant's rules reload, a game moves to the new rules on
//! its next use (replayed from its start); a game the new rules cannot replay goes on
//! under the rules it started with, and says why.

use std::collections::HashMap;
use std::sync::Arc;

use varia::{Game, Variant};

use crate::error::Error;

/// The most games kept at once.
pub const MAX_GAMES: usize = 256;

pub struct Slot {
    pub variant: String,
    pub game: Game,
    /// Why the game is not on the variant's current rules, if it is not.
    pub note: Option<String>,
    /// When it was last used, in store ticks (for eviction).
    used: u64,
}

pub struct Store {
    games: HashMap<String, Slot>,
    next_id: u64,
    tick: u64,
    max: usize,
}

impl Default for Store {
    fn default() -> Self {
        Store::with_capacity(MAX_GAMES)
    }
}

impl Store {
    /// A store holding at most `max` games (at least one).
    pub fn with_capacity(max: usize) -> Store {
        Store { games: HashMap::new(), next_id: 1, tick: 0, max: max.max(1) }
    }

    pub fn len(&self) -> usize {
        self.games.len()
    }

    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    pub fn max(&self) -> usize {
        self.max
    }

    fn touch(&mut self) -> u64 {
        // A tick per request: u64 cannot run out in the life of a process, but saturate
        // anyway rather than wrap (eviction order would only blur).
        self.tick = self.tick.saturating_add(1);
        self.tick
    }

    /// Keeps a new game and returns its id; evicts the least recently used game when full.
    pub fn insert(&mut self, variant: &str, game: Game) -> Result<String, Error> {
        let n = self.next_id;
        self.next_id = n.checked_add(1).ok_or(Error::IdsExhausted)?;
        while self.games.len() >= self.max {
            let oldest = self.games.iter().min_by_key(|(_, s)| s.used).map(|(id, _)| id.clone());
            match oldest {
                Some(id) => self.games.remove(&id),
                None => break,
            };
        }
        let id = format!("g{n}");
        let used = self.touch();
        self.games.insert(id.clone(), Slot { variant: variant.to_string(), game, note: None, used });
        Ok(id)
    }

    /// The game of `id`, moved onto `current` (the variant's rules now in force) if it is
    /// not on them yet.
    pub fn get(&mut self, id: &str, current: impl FnOnce(&str) -> Option<Arc<Variant>>) -> Result<&mut Slot, Error> {
        let used = self.touch();
        let max = self.max;
        let slot = self.games.get_mut(id).ok_or_else(|| Error::UnknownGame { id: id.to_string(), max })?;
        slot.used = used;
        if let Some(v) = current(&slot.variant)
            && !Arc::ptr_eq(&v, slot.game.variant())
        {
            match slot.game.with_variant(v) {
                Ok(g) => {
                    slot.game = g;
                    slot.note = None;
                }
                Err(e) => {
                    slot.note = Some(format!(
                        "the rules of `{}` changed, but this game cannot be replayed under them ({e}); it goes on under the rules it started with",
                        slot.variant
                    ))
                }
            }
        }
        Ok(slot)
    }

    /// The variant of game `id`, without touching it.
    pub fn variant_of(&self, id: &str) -> Result<String, Error> {
        self.games
            .get(id)
            .map(|s| s.variant.clone())
            .ok_or_else(|| Error::UnknownGame { id: id.to_string(), max: self.max })
    }
}
