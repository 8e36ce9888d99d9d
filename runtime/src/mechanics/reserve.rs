//! Reserves: pieces a player holds off the board, by kind, and may drop later (a vault,
//! a crazyhouse hand). One mechanism for every turn model: the rule (`[reserve]`: what
//! it holds, its cap, where drops go, whether taken pieces change side into it) is
//! [`crate::variant::ReserveRule`]; this is the store and its arithmetic.

use crate::piece::{KindId, MAX_KINDS};
use crate::variant::ReserveRule;

/// One player's reserve: a count per kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Reserve {
    counts: [u32; MAX_KINDS],
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

impl Reserve {
    pub fn count(&self, kind: KindId) -> u32 {
        self.counts[kind.index()]
    }

    /// Every piece held.
    pub fn total(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Sends a piece of `kind` to the reserve, under the rule's cap.
    pub fn bank(&mut self, rule: &ReserveRule, kind: KindId) -> Banked {
        if !rule.holds(kind) {
            return Banked::NotHeld;
        }
        if rule.cap > 0 && self.total() >= rule.cap {
            return Banked::Overflow;
        }
        self.counts[kind.index()] += 1;
        Banked::Stored
    }

    /// Takes one piece of `kind` out (to drop it); false if none is held.
    pub fn take(&mut self, kind: KindId) -> bool {
        let c = &mut self.counts[kind.index()];
        if *c == 0 {
            return false;
        }
        *c -= 1;
        true
    }

    /// Sets a count as given (loading a saved state); the caller checks the cap.
    pub fn set(&mut self, kind: KindId, n: u32) {
        self.counts[kind.index()] = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::DropZone;

    fn rule(cap: u32) -> ReserveRule {
        // Holds kinds 1 and 2; kind 0 (a royal piece) goes nowhere.
        ReserveRule { cap, holds: 0b110, drop: DropZone::Anywhere, captured_to_taker: true }
    }

    #[test]
    fn the_cap_destroys_what_does_not_fit() {
        let r = rule(3);
        let mut v = Reserve::default();
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
        let mut v = Reserve::default();
        assert_eq!(v.bank(&r, KindId(0)), Banked::NotHeld);
        assert_eq!(v.total(), 0);
        assert!(!v.take(KindId(1)));
        for _ in 0..1000 {
            assert_eq!(v.bank(&r, KindId(1)), Banked::Stored);
        }
        assert_eq!(v.count(KindId(1)), 1000);
    }
}
