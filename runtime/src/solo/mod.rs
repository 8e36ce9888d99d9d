//! The solo turn model: one player against a board that wears down.
//!
//! Every square holds a fixed stack of pieces, one per layer (`[wear] strikes` of
//! them). A strike raises a square's hits and reveals the next piece of its stack; the
//! strike that empties the stack clears the square, which can no longer be struck. The
//! piece shown *before* a strike decides where the next one may land (its targets),
//! through the variant's ordinary movement atoms read over the board:
//! - `leap`: the squares at those vectors, whatever lies between (`distance` scales them);
//! - `farthest`: the last on-board square along each direction; the direction is lost
//!   while that square is cleared;
//! - `slide`: the squares along each direction up to the first cleared one;
//! - `anywhere`: every unfinished square, the one just struck included.
//!
//! The first strike may land on any unfinished square. The board is *forged* when every
//! square is cleared and *cooled* when no target is left. Scores come from the scoring
//! engine (`crate::scoring`).
//!
//! - [`Forge`]: a solo variant compiled for play (its targets precomputed);
//! - [`SoloBoard`]: a dealt board (the stacks), read from and written as text;
//! - [`SoloGame`]: a board in play, with its score, clock reading, undo and snapshot;
//! - [`Stopwatch`]: the time played from wall-clock readings, pauses excluded;
//! - [`duel`]: two players on one board, the result and Elo ratings.

mod board;
mod clock;
pub mod duel;
mod game;
mod snapshot;

use std::sync::Arc;

use thiserror::Error;

use crate::geometry::Square;
use crate::piece::KindId;
use crate::variant::{Shape, SoloRules, TurnModel, Variant};

pub use board::{BoardTextError, SoloBoard};
pub use clock::{ClockError, Stopwatch};
pub use game::{SoloEvent, SoloGame, Status, TimeRule};
pub use snapshot::SoloSnapshotError;

/// Why a solo action was refused, or a solo game could not be set up. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SoloError {
    #[error("`{variant}` is not a solo variant (its turns.model is \"{model}\")")]
    NotSolo { variant: String, model: &'static str },
    #[error("unknown level `{name}`; levels: {}", known.join(", "))]
    UnknownLevel { name: String, known: Vec<String> },
    #[error("{0}")]
    Board(#[from] BoardTextError),
    #[error("`{text}` is not a square of the {files}×{ranks} board")]
    BadSquare { text: String, files: u8, ranks: u8 },
    #[error("{square} cannot be struck: {why}")]
    Illegal { square: String, why: String },
    #[error("the board is over ({0})")]
    Over(&'static str),
    /// Replaying strikes failed at this one (1-based).
    #[error("strike {index} (`{text}`): {why}")]
    Replay { index: usize, text: String, why: String },
    #[error("the score would overflow")]
    Overflow,
}

/// Where a piece reaches from one square (before cleared squares are taken out).
#[derive(Debug, Clone, Default)]
pub(crate) struct Reach {
    /// Each a target while unfinished (leaps, and the farthest square of each direction).
    pub fixed: Vec<Square>,
    /// Each followed until the first cleared square (slides).
    pub rays: Vec<Vec<Square>>,
    /// Every unfinished square.
    pub anywhere: bool,
}

/// A solo variant compiled for play.
#[derive(Debug)]
pub struct Forge {
    pub variant: Arc<Variant>,
    /// Per kind, per square.
    reach: Vec<Vec<Reach>>,
}

impl Forge {
    pub fn new(variant: Arc<Variant>) -> Result<Arc<Forge>, SoloError> {
        if variant.turns != TurnModel::Solo || variant.solo.is_none() {
            return Err(SoloError::NotSolo { variant: variant.name.clone(), model: variant.turns.name() });
        }
        let g = variant.geometry;
        let reach = variant
            .kinds
            .iter()
            .map(|k| {
                g.squares()
                    .map(|sq| {
                        let mut r = Reach::default();
                        for a in &k.atoms {
                            match a.shape {
                                Shape::Anywhere => r.anywhere = true,
                                // Refused on solo boards when the variant loads.
                                Shape::Hop => {}
                                Shape::Leap => r.fixed.extend(a.vectors.iter().filter_map(|&d| g.offset(sq, d))),
                                Shape::Farthest => r.fixed.extend(
                                    a.vectors
                                        .iter()
                                        .filter_map(|&d| crate::movegen::tables::walk(g, sq, d, 0).last().copied()),
                                ),
                                Shape::Slide => r.rays.extend(
                                    a.vectors
                                        .iter()
                                        .map(|&d| crate::movegen::tables::walk(g, sq, d, a.range))
                                        .filter(|ray| !ray.is_empty()),
                                ),
                            }
                        }
                        r.fixed.sort();
                        r.fixed.dedup();
                        r
                    })
                    .collect()
            })
            .collect();
        Ok(Arc::new(Forge { variant, reach }))
    }

    pub fn rules(&self) -> &SoloRules {
        self.variant.solo.as_ref().expect("a forge is built only for solo variants")
    }

    /// The squares `kind` reaches from `from`, given which squares are cleared, in
    /// square order.
    pub fn targets(&self, kind: KindId, from: Square, cleared: &dyn Fn(Square) -> bool) -> Vec<Square> {
        let r = &self.reach[kind.index()][from.index()];
        if r.anywhere {
            return self.variant.geometry.squares().filter(|&s| !cleared(s)).collect();
        }
        let mut out: Vec<Square> = r.fixed.iter().copied().filter(|&s| !cleared(s)).collect();
        for ray in &r.rays {
            out.extend(ray.iter().copied().take_while(|&s| !cleared(s)));
        }
        out.sort();
        out.dedup();
        out
    }

    /// Where `kind` reaches from `from` before cleared squares are taken out (the
    /// solver compiles its own square sets from it).
    pub(crate) fn reach(&self, kind: KindId, from: Square) -> &Reach {
        &self.reach[kind.index()][from.index()]
    }

    /// The level named `name` (any case), by index.
    pub fn level(&self, name: &str) -> Result<usize, SoloError> {
        let rules = self.rules();
        rules.levels.iter().position(|l| l.name.eq_ignore_ascii_case(name)).ok_or_else(|| SoloError::UnknownLevel {
            name: name.to_string(),
            known: rules.levels.iter().map(|l| l.name.clone()).collect(),
        })
    }

    /// A square by name, on this board.
    pub fn square(&self, text: &str) -> Result<Square, SoloError> {
        let g = self.variant.geometry;
        g.parse(text.trim()).map_err(|_| SoloError::BadSquare {
            text: text.to_string(),
            files: g.files,
            ranks: g.ranks,
        })
    }
}
