//! The Caissan realm service (issue 13): a world of boards kept in a database —
//! SQLite by default, PostgreSQL for a realm that outgrows one machine, both behind
//! [`db::Store`] — with players who hold secret tokens, orders accepted until the
//! deadline, rounds resolved by an injected [`clock::Clock`] in one transaction each,
//! and the HTTP/JSON API of `varia realm serve` ([`server`]).
//!
//! The rules are the runtime's pure resolver (`varia::world`); this crate adds time,
//! persistence and people, and keeps the database and the web server out of the
//! `varia` crate that games embed.

pub mod chat;
pub mod clock;
pub mod config;
pub mod db;
pub mod error;
pub mod mayor;
pub mod region;
pub mod server;
pub mod service;
pub mod simulate;
pub mod store;
pub mod token;
pub mod transfer;
pub mod worker;

pub use clock::{Clock, ManualClock, SystemClock};
pub use config::RealmConfig;
pub use db::{PgStore, SqliteStore, Store, open_store};
pub use error::Error;
pub use service::Service;
