//! Square sets ("bitboards") of three widths.
//!
//! Every rectangular board up to 16×16 is played on one of these: `u64` for boards of
//! at most 64 squares (standard chess), `u128` for up to 128 (10×10), [`Wide`] for up to
//! 256 (16×16). Move generation is generic over [`Bits`] and monomorphised per width,
//! so an 8×8 game never pays for the widest board.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A set of square indices `0..CAPACITY`.
pub trait Bits:
    Copy
    + Eq
    + Hash
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
{
    /// The number of squares this width can hold.
    const CAPACITY: usize;
    /// One byte per square: the mailbox of a position of this width.
    type Squares: Copy + AsRef<[u8]> + AsMut<[u8]> + Debug + Send + Sync + Eq + Hash;

    const EMPTY: Self;
    fn bit(sq: usize) -> Self;
    fn is_empty(self) -> bool;
    fn has(self, sq: usize) -> bool;
    /// The lowest square. Precondition: the set is not empty.
    fn lsb(self) -> usize;
    /// The highest square. Precondition: the set is not empty.
    fn msb(self) -> usize;
    fn count(self) -> u32;
    fn empty_squares() -> Self::Squares;

    #[inline(always)]
    fn any(self) -> bool {
        !self.is_empty()
    }
    fn more_than_one(self) -> bool;
    #[inline(always)]
    fn pop_lsb(&mut self) -> usize {
        let sq = self.lsb();
        *self = self.without_lsb();
        sq
    }
    fn without_lsb(self) -> Self;
    #[inline(always)]
    fn iter(self) -> BitIter<Self> {
        BitIter(self)
    }
    #[inline(always)]
    fn with(self, sq: usize) -> Self {
        self | Self::bit(sq)
    }
    #[inline(always)]
    fn without(self, sq: usize) -> Self {
        self & !Self::bit(sq)
    }
}

/// Iterates the squares of a set, lowest first.
#[derive(Clone, Copy)]
pub struct BitIter<B>(B);

impl<B: Bits> Iterator for BitIter<B> {
    type Item = usize;
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0.is_empty() { None } else { Some(self.0.pop_lsb()) }
    }
}

macro_rules! native_bits {
    ($t:ty, $n:expr) => {
        impl Bits for $t {
            const CAPACITY: usize = $n;
            type Squares = [u8; $n];
            const EMPTY: Self = 0;
            #[inline(always)]
            fn bit(sq: usize) -> Self {
                1 << sq
            }
            #[inline(always)]
            fn is_empty(self) -> bool {
                self == 0
            }
            #[inline(always)]
            fn has(self, sq: usize) -> bool {
                (self >> sq) & 1 != 0
            }
            #[inline(always)]
            fn lsb(self) -> usize {
                self.trailing_zeros() as usize
            }
            #[inline(always)]
            fn msb(self) -> usize {
                ($n - 1) - self.leading_zeros() as usize
            }
            #[inline(always)]
            fn count(self) -> u32 {
                self.count_ones()
            }
            #[inline(always)]
            fn empty_squares() -> [u8; $n] {
                [0; $n]
            }
            #[inline(always)]
            fn more_than_one(self) -> bool {
                self & self.wrapping_sub(1) != 0
            }
            #[inline(always)]
            fn without_lsb(self) -> Self {
                self & self.wrapping_sub(1)
            }
        }
    };
}

native_bits!(u64, 64);
native_bits!(u128, 128);

/// A 256-square set, for boards larger than 128 squares (up to 16×16).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Wide(pub [u64; 4]);

impl Debug for Wide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

macro_rules! wide_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Wide {
            type Output = Wide;
            #[inline(always)]
            fn $f(self, o: Wide) -> Wide {
                Wide([self.0[0] $op o.0[0], self.0[1] $op o.0[1], self.0[2] $op o.0[2], self.0[3] $op o.0[3]])
            }
        }
        impl $atr for Wide {
            #[inline(always)]
            fn $af(&mut self, o: Wide) {
                *self = *self $op o;
            }
        }
    };
}
wide_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
wide_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
wide_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Wide {
    type Output = Wide;
    #[inline(always)]
    fn not(self) -> Wide {
        Wide([!self.0[0], !self.0[1], !self.0[2], !self.0[3]])
    }
}

impl Bits for Wide {
    const CAPACITY: usize = 256;
    type Squares = [u8; 256];
    const EMPTY: Self = Wide([0; 4]);
    #[inline(always)]
    fn bit(sq: usize) -> Self {
        let mut w = [0u64; 4];
        w[sq >> 6] = 1 << (sq & 63);
        Wide(w)
    }
    #[inline(always)]
    fn is_empty(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) == 0
    }
    #[inline(always)]
    fn has(self, sq: usize) -> bool {
        (self.0[sq >> 6] >> (sq & 63)) & 1 != 0
    }
    #[inline(always)]
    fn lsb(self) -> usize {
        for i in 0..4 {
            if self.0[i] != 0 {
                return i * 64 + self.0[i].trailing_zeros() as usize;
            }
        }
        256
    }
    #[inline(always)]
    fn msb(self) -> usize {
        for i in (0..4).rev() {
            if self.0[i] != 0 {
                return i * 64 + 63 - self.0[i].leading_zeros() as usize;
            }
        }
        256
    }
    #[inline(always)]
    fn count(self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    #[inline(always)]
    fn empty_squares() -> [u8; 256] {
        [0; 256]
    }
    #[inline(always)]
    fn more_than_one(self) -> bool {
        self.count() > 1
    }
    #[inline(always)]
    fn without_lsb(self) -> Self {
        let mut w = self.0;
        for x in w.iter_mut() {
            if *x != 0 {
                *x &= *x - 1;
                break;
            }
        }
        Wide(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise<B: Bits>() {
        let top = B::CAPACITY - 1;
        let s = B::bit(3) | B::bit(top) | B::bit(B::CAPACITY / 2);
        assert_eq!(s.count(), 3);
        assert_eq!(s.lsb(), 3);
        assert_eq!(s.msb(), top);
        assert!(s.has(top) && !s.has(4));
        assert!(s.more_than_one());
        assert!(!B::bit(top).more_than_one());
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![3, B::CAPACITY / 2, top]);
        assert_eq!(s.without(top).msb(), B::CAPACITY / 2);
        assert!((s & !s).is_empty());
        assert_eq!((!B::EMPTY).count() as usize, B::CAPACITY);
    }

    #[test]
    fn every_width_behaves_as_a_set() {
        exercise::<u64>();
        exercise::<u128>();
        exercise::<Wide>();
    }
}
