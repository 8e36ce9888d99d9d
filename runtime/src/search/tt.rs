//! The transposition table: results of searched positions, keyed by the position hash,
//! a fixed number of entries, replaced by depth.

use crate::action::Action;

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The true score.
    Exact,
    /// At least this (the search failed high).
    Lower,
    /// At most this (no move reached alpha).
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub key: u64,
    pub best: Option<Action>,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
}

pub(crate) struct Table {
    entries: Vec<Option<Entry>>,
    mask: usize,
}

impl Table {
    /// A table of `2^bits` entries.
    pub fn new(bits: u32) -> Table {
        Table { entries: vec![None; 1 << bits], mask: (1 << bits) - 1 }
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.entries[key as usize & self.mask].filter(|e| e.key == key)
    }

    /// Stores a result; a deeper result for another position keeps its slot.
    #[inline]
    pub fn store(&mut self, e: Entry) {
        let slot = &mut self.entries[e.key as usize & self.mask];
        match slot {
            Some(old) if old.key != e.key && old.depth > e.depth => {}
            Some(old) if old.key == e.key && e.best.is_none() => {
                let best = old.best;
                *old = Entry { best, ..e };
            }
            _ => *slot = Some(e),
        }
    }
}
