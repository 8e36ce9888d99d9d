//! The transposition table: results of searched positions, keyed by the position hash,
//! a fixed number of entries, replaced by depth within a search and always over entries
//! of an earlier search (a table kept between moves would otherwise fill with deep,
//! stale results that nothing can replace).
//!
//! An entry is two words: the full key, and the data packed into 64 bits (score, depth,
//! bound, best action). Zeroed memory is an empty table, so a large table costs nothing
//! until it is used.

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

/// The best action of an entry, as from-square, to-square, promotion (kind + 1, or 0)
/// and gating (kind + 1, and 32 when at a castling rook's square; or 0): enough to find it
/// again among the legal actions, whatever its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Best {
    from: u8,
    to: u8,
    promotion: u8,
    gate: u8,
}

impl Best {
    pub fn of(a: Action) -> Best {
        Best {
            from: a.from.0,
            to: a.to.0,
            promotion: a.promotion.map_or(0, |k| k.0 + 1),
            gate: a.gate.map_or(0, |g| (g.kind().0 + 1) | if g.rook() { 32 } else { 0 }),
        }
    }

    #[inline]
    pub fn is(self, a: Action) -> bool {
        self == Best::of(a)
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub best: Option<Best>,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

const FILLED: u64 = 1 << 63;
const HAS_BEST: u64 = 1 << 62;
/// Bits 26 to 31: the search (modulo 64) that stored the entry.
const AGE_SHIFT: u32 = 26;
const AGE_MASK: u64 = 63;

impl Entry {
    fn pack(&self) -> u64 {
        let bound = match self.bound {
            Bound::Exact => 0,
            Bound::Lower => 1,
            Bound::Upper => 2,
        };
        let mut d = FILLED
            | (self.score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64)
            | ((self.depth.clamp(-128, 127) as i8 as u8 as u64) << 16)
            | (bound << 24);
        if let Some(b) = self.best {
            // The gate's 6 bits (kinds are at most 16) sit between the promotion and the flags.
            d |= HAS_BEST
                | (b.from as u64) << 32
                | (b.to as u64) << 40
                | (b.promotion as u64) << 48
                | ((b.gate & 63) as u64) << 56;
        }
        d
    }

    fn unpack(d: u64) -> Entry {
        Entry {
            best: (d & HAS_BEST != 0).then_some(Best {
                from: (d >> 32) as u8,
                to: (d >> 40) as u8,
                promotion: (d >> 48) as u8,
                gate: ((d >> 56) & 63) as u8,
            }),
            score: d as u16 as i16 as i32,
            depth: (d >> 16) as u8 as i8 as i32,
            bound: match (d >> 24) & 3 {
                0 => Bound::Exact,
                1 => Bound::Lower,
                _ => Bound::Upper,
            },
        }
    }
}

/// The power of two of entries that fits in `megabytes` (at least 2^10, at most 2^32).
pub(crate) fn bits_for(megabytes: usize) -> u32 {
    let entries = (megabytes.max(1) as u64) << 16;
    (63 - entries.leading_zeros()).clamp(10, 32)
}

pub(crate) struct Table {
    /// `[key, data]` per slot.
    slots: Vec<[u64; 2]>,
    mask: usize,
    /// The current search, modulo 64.
    age: u64,
}

impl Table {
    /// A table of `2^bits` entries.
    pub fn new(bits: u32) -> Table {
        Table { slots: vec![[0; 2]; 1 << bits], mask: (1 << bits) - 1, age: 0 }
    }

    /// Starts a new search: what earlier ones stored may be replaced by anything.
    pub fn new_search(&mut self) {
        self.age = (self.age + 1) & AGE_MASK;
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = [0; 2]);
    }

    pub fn bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<[u64; 2]>()
    }

    /// Entries in use, per thousand, from a sample of the first thousand slots (UCI's
    /// `hashfull`).
    pub fn permille(&self) -> u32 {
        let n = self.slots.len().min(1000);
        let used = self.slots[..n].iter().filter(|s| s[1] & FILLED != 0).count();
        (used * 1000 / n.max(1)) as u32
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let [k, d] = self.slots[key as usize & self.mask];
        (k == key && d & FILLED != 0).then(|| Entry::unpack(d))
    }

    /// Stores a result; a deeper result for another position from this search keeps its
    /// slot, and a result without a best action keeps the one stored for the same position.
    #[inline]
    pub fn store(&mut self, key: u64, mut e: Entry) {
        let slot = &mut self.slots[key as usize & self.mask];
        if slot[1] & FILLED != 0 {
            let old = Entry::unpack(slot[1]);
            let current = (slot[1] >> AGE_SHIFT) & AGE_MASK == self.age;
            if slot[0] != key && current && old.depth > e.depth {
                return;
            }
            if slot[0] == key && e.best.is_none() {
                e.best = old.best;
            }
        }
        *slot = [key, e.pack() | self.age << AGE_SHIFT];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::ActionKind;
    use crate::geometry::Square;
    use crate::piece::KindId;

    #[test]
    fn entries_round_trip() {
        let a = Action::new(Square(12), Square(28), ActionKind::Normal).promoting(KindId(3));
        let e = Entry { best: Some(Best::of(a)), score: -29_990, depth: 7, bound: Bound::Upper };
        let back = Entry::unpack(e.pack());
        assert_eq!((back.best, back.score, back.depth, back.bound), (e.best, e.score, e.depth, e.bound));
        assert!(back.best.unwrap().is(a));
        let mut t = Table::new(4);
        assert!(t.probe(99).is_none());
        t.store(99, Entry { best: None, score: 5, depth: -1, bound: Bound::Lower });
        let got = t.probe(99).unwrap();
        assert_eq!((got.best, got.score, got.depth, got.bound), (None, 5, -1, Bound::Lower));
        // A shallower result for another position in the same slot does not replace it.
        t.store(99 + 16, Entry { best: None, score: 1, depth: -2, bound: Bound::Exact });
        assert!(t.probe(99).is_some() && t.probe(99 + 16).is_none());
        // From the next search on, it may be replaced.
        t.new_search();
        t.store(99 + 16, Entry { best: None, score: 1, depth: -2, bound: Bound::Exact });
        assert!(t.probe(99).is_none() && t.probe(99 + 16).is_some_and(|e| e.score == 1 && e.depth == -2));
        t.clear();
        assert!(t.probe(99 + 16).is_none());
    }

    #[test]
    fn sizes_follow_the_megabytes() {
        // 16 bytes an entry: 1 MB is 65,536 entries, 16 MB 2^20, 3 MB rounds down to 2 MB.
        assert_eq!(bits_for(1), 16);
        assert_eq!(bits_for(16), 20);
        assert_eq!(bits_for(3), 17);
        assert_eq!(bits_for(0), 16);
        assert_eq!(Table::new(bits_for(2)).bytes(), 2 << 20);
    }
}
