//! A dealt solo board: the fixed stack of every square, as data and as text.
//!
//! Text: one stack per square in the order a1, b1, … (rank by rank), separated by
//! spaces; each stack is the letters of its pieces at 0, 1, 2… hits (`"212 332 …"`).
//!
//! Dealing (`SoloBoard::draw`): one weighted draw per cell from the level's pool, layer
//! by layer (layer 0 of every square a1, b1, …, then layer 1, …), each draw
//! `Rng::below(total weight)` walked through the weights in the order the level lists
//! them. The generator is the runtime's SplitMix64 (`crate::rng`), so a seed deals the
//! same board on every machine, forever. Never change this order silently: saved games
//! and fixtures name boards by seed.

use thiserror::Error;

use crate::geometry::Square;
use crate::piece::KindId;
use crate::rng::Rng;
use crate::variant::{Level, Variant};

/// A board given as text that does not fit the variant.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardTextError {
    #[error("a board has {expected} stacks (one per square, a1, b1, … in order), not {found}")]
    Count { expected: usize, found: usize },
    #[error("stack {index} ({square}, `{text}`): a stack has {layers} pieces, one per layer")]
    Length { index: usize, square: String, text: String, layers: usize },
    #[error("stack {index} ({square}): `{letter}` is not a piece of this variant (pieces: {known})")]
    Letter { index: usize, square: String, letter: String, known: String },
}

/// The pieces of every square, one per layer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SoloBoard {
    layers: u8,
    /// `cells[square * layers + layer]`.
    cells: Vec<KindId>,
}

impl SoloBoard {
    /// A board from its cells (`cells[square * layers + layer]`).
    pub fn from_cells(layers: u8, cells: Vec<KindId>) -> SoloBoard {
        SoloBoard { layers, cells }
    }

    pub fn layers(&self) -> u8 {
        self.layers
    }

    pub fn squares(&self) -> usize {
        self.cells.len() / self.layers.max(1) as usize
    }

    /// The piece of `sq` at `layer` hits.
    pub fn cell(&self, sq: Square, layer: u8) -> KindId {
        self.cells[sq.index() * self.layers as usize + layer as usize]
    }

    /// The stack of `sq`, from 0 hits up.
    pub fn stack(&self, sq: Square) -> &[KindId] {
        let l = self.layers as usize;
        &self.cells[sq.index() * l..(sq.index() + 1) * l]
    }

    /// Reads a board written as text for this variant (letters in either case).
    pub fn parse(v: &Variant, text: &str) -> Result<SoloBoard, BoardTextError> {
        let layers = v.solo.as_ref().map_or(1, |s| s.strikes);
        let g = v.geometry;
        let stacks: Vec<&str> = text.split_whitespace().collect();
        if stacks.len() != g.len() {
            return Err(BoardTextError::Count { expected: g.len(), found: stacks.len() });
        }
        let mut cells = Vec::with_capacity(g.len() * layers as usize);
        for (i, stack) in stacks.iter().enumerate() {
            let square = g.name(Square(i as u8)).to_string();
            let letters: Vec<char> = stack.chars().collect();
            if letters.len() != layers as usize {
                return Err(BoardTextError::Length {
                    index: i + 1,
                    square,
                    text: stack.to_string(),
                    layers: layers as usize,
                });
            }
            for c in letters {
                match v.kind_by_letter(c) {
                    Some(k) => cells.push(k),
                    None => {
                        return Err(BoardTextError::Letter {
                            index: i + 1,
                            square,
                            letter: c.to_string(),
                            known: v.kinds.iter().map(|k| k.letter.to_string()).collect::<Vec<_>>().join(" "),
                        });
                    }
                }
            }
        }
        Ok(SoloBoard { layers, cells })
    }

    /// The board as text (what [`SoloBoard::parse`] reads).
    pub fn text(&self, v: &Variant) -> String {
        (0..self.squares())
            .map(|sq| self.stack(Square(sq as u8)).iter().map(|&k| v.kind(k).letter).collect::<String>())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Deals a board of `level` from `rng` (see the module docs for the exact order).
    pub fn draw(v: &Variant, level: &Level, rng: &mut Rng) -> SoloBoard {
        let layers = v.solo.as_ref().map_or(1, |s| s.strikes);
        let n = v.geometry.len();
        let total: u64 = level.weights.iter().map(|&(_, w)| w as u64).sum();
        let mut cells = vec![KindId(0); n * layers as usize];
        for layer in 0..layers as usize {
            for sq in 0..n {
                let mut r = rng.below(total.max(1));
                let mut kind = level.weights.last().map_or(KindId(0), |&(k, _)| k);
                for &(k, w) in &level.weights {
                    if r < w as u64 {
                        kind = k;
                        break;
                    }
                    r -= w as u64;
                }
                cells[sq * layers as usize + layer] = kind;
            }
        }
        SoloBoard { layers, cells }
    }
}
