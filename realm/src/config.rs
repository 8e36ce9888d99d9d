//! A realm's config file (TOML), read by `varia realm new`: which variant, how long a
//! round is (CA-02: the three realms run on 6, 10 and 24 hours), the seed of its
//! randomness, and the size of a sector (A-CA1). Unknown keys and bad values are refused with the file's name.

use serde::Deserialize;

use crate::error::Error;

/// The round lengths a realm may have (CA-02, A-CA17 `round_hours`).
pub const ROUND_HOURS: [i64; 3] = [6, 10, 24];

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RealmConfig {
    /// For people: the realm's name.
    pub name: String,
    /// The variant, by name or folder (a world of boards).
    #[serde(default = "caissan")]
    pub variant: String,
    /// Hours per round: 6, 10 or 24. Deadlines fall at UTC multiples of it (A-CA17).
    pub round_hours: i64,
    /// Seeds the bots and every random choice of the realm, round by round.
    #[serde(default)]
    pub seed: u64,
    /// A sector is a square of this many boards a side (A-CA1), anchored at board
    /// [0, 0]: board [bx, by] is in sector [⌊bx/n⌋, ⌊by/n⌋]. Sector chat (CA-24).
    #[serde(default = "sector_boards")]
    pub sector_boards: i64,
}

/// The largest sector side a realm may have.
pub const MAX_SECTOR_BOARDS: i64 = 10_000;

fn sector_boards() -> i64 {
    10
}

fn caissan() -> String {
    "caissan".into()
}

impl RealmConfig {
    pub fn parse(text: &str, path: &str) -> Result<RealmConfig, Error> {
        let c: RealmConfig =
            toml::from_str(text).map_err(|e| Error::Config { path: path.to_string(), message: e.to_string() })?;
        if !ROUND_HOURS.contains(&c.round_hours) {
            return Err(Error::Config {
                path: path.to_string(),
                message: format!("round_hours = {}: a realm's rounds last 6, 10 or 24 hours", c.round_hours),
            });
        }
        if !(1..=MAX_SECTOR_BOARDS).contains(&c.sector_boards) {
            return Err(Error::Config {
                path: path.to_string(),
                message: format!(
                    "sector_boards = {}: a sector is 1 to {MAX_SECTOR_BOARDS} boards a side",
                    c.sector_boards
                ),
            });
        }
        if c.name.trim().is_empty() || c.name.len() > 64 {
            return Err(Error::Config { path: path.to_string(), message: "name: 1 to 64 characters".into() });
        }
        Ok(c)
    }
}

/// The first deadline strictly after `t` for rounds of `hours` (UTC multiples).
pub fn next_deadline(t: i64, hours: i64) -> i64 {
    let period = hours * 3600;
    t.div_euclid(period).saturating_add(1).saturating_mul(period)
}
