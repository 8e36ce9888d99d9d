//! Players' secret tokens: `player:` and 64 hex digits of OS randomness, shown once
//! at join. Only the SHA-256 of the whole token is stored; a presented token is hashed
//! and compared in constant time with the stored hash of the player it names.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::Error;

/// A fresh token for `player`.
pub fn new_token(player: &str) -> Result<String, Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::Io { what: "the OS random source".into(), source: std::io::Error::other(e.to_string()) })?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{player}:{hex}"))
}

pub fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// The player a token names (it is checked against the stored hash separately).
pub fn player_of(token: &str) -> Option<&str> {
    let (p, secret) = token.split_once(':')?;
    (secret.len() == 64 && secret.bytes().all(|b| b.is_ascii_hexdigit())).then_some(p)
}

/// Whether `token` hashes to `stored`, in time independent of where they differ.
pub fn matches(token: &str, stored: &[u8]) -> bool {
    let h = hash(token);
    h.len() == stored.len() && bool::from(h.ct_eq(stored))
}
