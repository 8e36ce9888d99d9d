//! The games in play, in server memory: keyed by ids the server issues (`g1`, `g2`, …
//! for two-sided games, `s1`, `s2`, … for solo boards; never reused), at most
//! [`MAX_GAMES`] of each kind; a new game past that evicts the one used least recently.
//! When a variant's rules reload, a game moves to the new rules on its next use
//! (replayed from its start, [`OnRules`]); a game the new rules cannot replay goes on
//! under the rules it started with, and says why.

use std::collections::HashMap;
use std::sync::Arc;

use varia::{Game, Variant};

use crate::error::Error;

/// The most games kept at once.
pub const MAX_GAMES: usize = 256;

/// A game that can be replayed onto new rules of its variant.
pub trait OnRules: Sized {
    /// The rules it is played under.
    fn rules(&self) -> &Arc<Variant>;
    /// The same game replayed under `rules`, or why it cannot be.
    fn on_rules(&self, rules: Arc<Variant>) -> Result<Self, String>;
}

impl OnRules for Game {
    fn rules(&self) -> &Arc<Variant> {
        self.variant()
    }
    fn on_rules(&self, rules: Arc<Variant>) -> Result<Game, String> {
        self.with_variant(rules).map_err(|e| e.to_string())
    }
}

pub struct Slot<T = Game> {
    pub variant: String,
    pub game: T,
    /// Why the game is not on the variant's current rules, if it is not.
    pub note: Option<String>,
    /// When it was last used, in store ticks (for eviction).
    used: u64,
}

pub struct Store<T = Game> {
    games: HashMap<String, Slot<T>>,
    /// The ids' first letter.
    prefix: char,
    next_id: u64,
    tick: u64,
    max: usize,
}

impl Default for Store<Game> {
    fn default() -> Self {
        Store::with_capacity(MAX_GAMES)
    }
}

impl Store<Game> {
    /// A store of two-sided games (ids `g1`, `g2`, …) holding at most `max` (at least one).
    pub fn with_capacity(max: usize) -> Store<Game> {
        Store::new('g', max)
    }
}

impl<T: OnRules> Store<T> {
    /// A store whose ids start with `prefix`, holding at most `max` games (at least one).
    pub fn new(prefix: char, max: usize) -> Store<T> {
        Store { games: HashMap::new(), prefix, next_id: 1, tick: 0, max: max.max(1) }
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
    pub fn insert(&mut self, variant: &str, game: T) -> Result<String, Error> {
        let n = self.next_id;
        self.next_id = n.checked_add(1).ok_or(Error::IdsExhausted)?;
        while self.games.len() >= self.max {
            let oldest = self.games.iter().min_by_key(|(_, s)| s.used).map(|(id, _)| id.clone());
            match oldest {
                Some(id) => self.games.remove(&id),
                None => break,
            };
        }
        let id = format!("{}{n}", self.prefix);
        let used = self.touch();
        self.games.insert(id.clone(), Slot { variant: variant.to_string(), game, note: None, used });
        Ok(id)
    }

    /// The game of `id`, moved onto `current` (the variant's rules now in force) if it is
    /// not on them yet.
    pub fn get(&mut self, id: &str, current: impl FnOnce(&str) -> Option<Arc<Variant>>) -> Result<&mut Slot<T>, Error> {
        let used = self.touch();
        let max = self.max;
        let slot = self.games.get_mut(id).ok_or_else(|| Error::UnknownGame { id: id.to_string(), max })?;
        slot.used = used;
        if let Some(v) = current(&slot.variant)
            && !Arc::ptr_eq(&v, slot.game.rules())
        {
            match slot.game.on_rules(v) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Game {
        Game::new(Variant::load("standard").unwrap())
    }

    #[test]
    fn ids_are_issued_in_turn_and_the_least_recently_used_game_is_evicted() {
        let mut s = Store::with_capacity(2);
        assert_eq!(s.insert("standard", game()).unwrap(), "g1");
        assert_eq!(s.insert("standard", game()).unwrap(), "g2");
        // g1 used after g2: g2 is now the least recently used.
        s.get("g1", |_| None).unwrap();
        assert_eq!(s.insert("standard", game()).unwrap(), "g3");
        assert_eq!(s.len(), 2);
        assert!(matches!(s.get("g2", |_| None), Err(Error::UnknownGame { .. })));
        assert!(s.get("g1", |_| None).is_ok());
        assert!(s.get("g3", |_| None).is_ok());
        // An evicted id is never issued again.
        assert_eq!(s.insert("standard", game()).unwrap(), "g4");
        assert!(matches!(s.get("g1", |_| None), Err(Error::UnknownGame { .. })), "g1 was the oldest by then");
    }

    #[test]
    fn a_game_moves_onto_new_rules_or_says_why_it_cannot() {
        let mut s = Store::default();
        let id = s.insert("standard", game()).unwrap();
        s.get(&id, |_| None).unwrap().game.play("e2-e4").unwrap();
        // Rules where a pawn has no double step: e2-e4 cannot be replayed.
        let text = "extends = \"standard\"\n[pieces.pawn]\nmoves = [{ leap = \"forward\", mode = \"move\" }, { leap = \"forward-diagonal\", mode = \"capture\" }]\n";
        let narrow = Variant::from_toml(text, "narrow.toml").unwrap();
        let slot = s.get(&id, |_| Some(narrow.clone())).unwrap();
        let note = slot.note.clone().expect("a note");
        assert!(note.contains("move 1 (`e2-e4`)"), "{note}");
        assert_eq!(slot.game.ply(), 1, "the game goes on under its old rules");
        // Rules it can replay under: it moves, and the note goes.
        let same = Variant::from_toml("extends = \"standard\"\n", "same.toml").unwrap();
        let slot = s.get(&id, |_| Some(same.clone())).unwrap();
        assert!(slot.note.is_none());
        assert!(Arc::ptr_eq(slot.game.variant(), &same));
        assert_eq!(slot.game.history_text(), ["e2-e4"]);
    }
}
