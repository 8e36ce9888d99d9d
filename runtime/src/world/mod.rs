//! Worlds of boards played with simultaneous orders (`[turns] model = "simultaneous"`
//! with a `[world]` table): an unbounded grid of boards of the variant's size, stored
//! sparsely, with many players who own boards, hold reserves, and give secret orders
//! that are validated against the round's start position and then resolved together in
//! phases and micro-steps.
//!
//! This engine stands on the rules data (the variant and its atoms) and never on the
//! two-sided [`crate::Game`] or the search (DESIGN.md §7). The round resolver is a pure
//! function of (variant, state, orders, seed): [`resolve`].

pub mod cells;
pub mod geometry;
pub mod json;
pub mod moves;
pub mod orders;
pub mod state;

pub use geometry::{BoardId, Pos};
pub use state::{Realm, RealmError};
pub mod bot;
pub mod events;
pub mod generate;
mod groups;
pub mod parts;
pub mod resolve;
pub mod round;
pub mod sight;

pub use round::{resolve, resolve_json};
