//! Reserves: pieces a player holds off the board, by kind, and may drop later (a vault,
//! a crazyhouse hand). One mechanism for every turn model: the rule (`[reserve]`: what
//! it holds, its cap, where drops go, whether taken pieces change side into it) is
//! [`crate::variant::ReserveRule`]; this is the store and its arithmetic.
//!
//! The store is generic over its count's width: a world's vault counts in `u32` (its cap
//! may be large), a two-sided position's hand in `u8`, because positions are copied at
//! every node of a search and a hand never holds more than a board's pieces.

use crate::piece::{KindId, MAX_KINDS};
use crate::variant::ReserveRule;

/// The width of a reserve's counts. Counts never wrap: a full count refuses more.
pub trait Count: Copy + Default + Eq + std::hash::Hash + std::fmt::Debug {
    /// The largest count this width holds.
    const MAX: u32;
    fn get(self) -> u32;
    /// `n`, which the caller has kept within [`Count::MAX`].
    fn of(n: u32) -> Self;
}

impl Count for u32 {
    const MAX: u32 = u32::MAX;
    #[inline(always)]
    fn get(self) -> u32 {
        self
    }
    #[inline(always)]
    fn of(n: u32) -> Self {
        n
    }
}

impl Count for u8 {
    const MAX: u32 = u8::MAX as u32;
    #[inline(always)]
    fn get(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn of(n: u32) -> Self {
        n.min(u8::MAX as u32) as u8
    }
}

/// One player's reserve: a count per kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Reserve<C: Count = u32> {
    counts: [C; MAX_KINDS],
}

/// What became of a piece sent to a reserve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Banked {
    /// It is held now.
    Stored,
    /// The reserve was full: the piece is destroyed.
    Overflow,
    /// The reserve never holds this kind (a royal piece): the piece is gone.
    NotHeld,
}

impl<C: Count> Reserve<C> {
    #[inline(always)]
    pub fn count(&self, kind: KindId) -> u32 {
        self.counts[kind.index()].get()
    }

    /// Every piece held (saturating, so a full `u32` store cannot wrap it).
    pub fn total(&self) -> u32 {
        self.counts.iter().fold(0u32, |a, c| a.saturating_add(c.get()))
    }

    /// Whether nothing is held.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|c| c.get() == 0)
    }

    /// Sends a piece of `kind` to the reserve, under the rule's cap (and the count's
    /// width: a full count overflows like a full reserve).
    pub fn bank(&mut self, rule: &ReserveRule, kind: KindId) -> Banked {
        if !rule.holds(kind) {
            return Banked::NotHeld;
        }
        let held = self.counts[kind.index()].get();
        if (rule.cap > 0 && self.total() >= rule.cap) || held >= C::MAX {
            return Banked::Overflow;
        }
        self.counts[kind.index()] = C::of(held + 1);
        Banked::Stored
    }

    /// Takes one piece of `kind` out (to drop it); false if none is held.
    pub fn take(&mut self, kind: KindId) -> bool {
        let c = &mut self.counts[kind.index()];
        if c.get() == 0 {
            return false;
        }
        *c = C::of(c.get() - 1);
        true
    }

    /// Sets a count as given (loading a saved state); the caller checks the cap, and
    /// that `n` fits the count's width (a larger `n` is held as the width's maximum).
    pub fn set(&mut self, kind: KindId, n: u32) {
        self.counts[kind.index()] = C::of(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::DropZone;

    fn rule(cap: u32) -> ReserveRule {
        // Holds kinds 1 and 2; kind 0 (a royal piece) goes nowhere.
        ReserveRule {
            cap,
            holds: 0b110,
            drop: DropZone::Anywhere,
            captured_to_taker: true,
            drop_zones: Vec::new(),
            gating: None,
            one_per_file: Vec::new(),
            no_drop_mate: Vec::new(),
            drop_mate_loses: false,
        }
    }

    #[test]
    fn the_cap_destroys_what_does_not_fit() {
        let r = rule(3);
        let mut v: Reserve = Reserve::default();
        assert_eq!(v.bank(&r, KindId(1)), Banked::Stored);
        assert_eq!(v.bank(&r, KindId(2)), Banked::Stored);
        assert_eq!(v.bank(&r, KindId(2)), Banked::Stored);
        assert_eq!(v.bank(&r, KindId(1)), Banked::Overflow);
        assert_eq!((v.count(KindId(1)), v.count(KindId(2)), v.total()), (1, 2, 3));
        assert!(v.take(KindId(2)));
        assert_eq!(v.bank(&r, KindId(1)), Banked::Stored);
        assert_eq!(v.count(KindId(1)), 2);
    }

    #[test]
    fn kinds_it_does_not_hold_go_nowhere_and_empty_kinds_cannot_be_taken() {
        let r = rule(0);
        let mut v: Reserve = Reserve::default();
        assert_eq!(v.bank(&r, KindId(0)), Banked::NotHeld);
        assert_eq!(v.total(), 0);
        assert!(!v.take(KindId(1)));
        for _ in 0..1000 {
            assert_eq!(v.bank(&r, KindId(1)), Banked::Stored);
        }
        assert_eq!(v.count(KindId(1)), 1000);
    }

    #[test]
    fn a_narrow_hand_refuses_past_its_width_instead_of_wrapping() {
        let r = rule(0);
        let mut h: Reserve<u8> = Reserve::default();
        assert!(h.is_empty());
        for _ in 0..255 {
            assert_eq!(h.bank(&r, KindId(2)), Banked::Stored);
        }
        assert_eq!(h.bank(&r, KindId(2)), Banked::Overflow);
        assert_eq!((h.count(KindId(2)), h.total()), (255, 255));
        assert!(!h.is_empty());
        h.set(KindId(1), 1000);
        assert_eq!(h.count(KindId(1)), 255);
        assert!(h.take(KindId(1)));
        assert_eq!(h.count(KindId(1)), 254);
    }
}
