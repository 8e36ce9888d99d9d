//! # varia — a rules runtime for chess variants
//!
//! A variant is a folder of data (`variant.toml`) and, optionally, scripts. This crate
//! loads it ([`Variant::load`]), and plays it ([`Game`]): legal actions, applying them
//! with events, outcomes, undo, FEN and JSON snapshots, perft.
//!
//! ```
//! use varia::{Game, Variant};
//! let standard = Variant::load("standard").unwrap();
//! let mut game = Game::new(standard);
//! game.play("e2-e4").unwrap();
//! assert_eq!(game.legal_actions().len(), 20);
//! ```

pub mod action;
pub mod bits;
pub mod error;
pub mod event;
pub mod fixture;
pub mod game;
pub mod geometry;
pub mod hooks;
pub(crate) mod mechanics;
pub(crate) mod movegen;
pub mod notation;
pub mod outcome;
pub mod piece;
pub(crate) mod position;
pub mod rng;
pub mod scoring;
pub mod script;
pub mod search;
pub mod snapshot;
pub mod solo;
pub(crate) mod suggest;
pub mod variant;
pub mod world;

pub use action::{Action, ActionKind, Gate};
pub use error::{LoadError, Problem};
pub use event::Event;
pub use game::{Game, Playout, RuleError};
pub use geometry::{Geometry, Square};
pub use hooks::{Hook, HookGame, Hooks, ScriptError};
pub use mechanics::reserve;
pub use notation::fen::{FenError, Setup};
pub use outcome::{GameResult, Outcome, Reason};
pub use piece::{KindId, Piece, Side};
pub use snapshot::SnapshotError;
pub use variant::Variant;
