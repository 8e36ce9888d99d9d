//! # varia-playground — every variant in the browser
//!
//! `varia serve` runs [`server::serve`]: a local web server (127.0.0.1 unless told
//! otherwise) with a page that plays the served variants by clicking, over a JSON API
//! on the runtime ([`view`] reads a game; no rules live here). The variants are fixed
//! at start ([`Catalog`]) and reloaded when their files change; games live in memory
//! ([`games::Store`]). See README.md for the routes and the security rules.

pub mod assets;
pub mod catalog;
pub mod error;
pub mod games;
pub mod realm;
pub mod server;
pub mod solo;
pub mod view;

pub use catalog::{Catalog, Source};
pub use error::Error;
pub use realm::RealmSite;
pub use server::{serve, serve_with_clock, serve_with_realm};
pub use solo::{ManualClock, SystemClock, TimeSource};
