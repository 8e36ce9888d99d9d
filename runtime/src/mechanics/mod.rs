//! Game mechanics beyond moving and capturing, each general and switched on from TOML.
//! (Promotion from a graveyard, freezing and waiting live in the position itself.)

pub(crate) mod combat;
pub(crate) mod commands;
pub mod reserve;
