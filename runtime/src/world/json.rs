//! The JSON contract of a realm (DESIGN.md §8): STATE, ORDERS and the resolver's output,
//! as serde types. Maps are `BTreeMap`s and lists are sorted before writing, so the same
//! input always gives byte-identical output.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A realm's state between rounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct StateJson {
    /// Rounds resolved so far.
    #[serde(default)]
    pub round: u64,
    /// Player ids in join order (the order ties are broken in).
    pub players: Vec<String>,
    #[serde(default)]
    pub pieces: Vec<PieceJson>,
    /// Each player's reserve: kind letter → count.
    #[serde(default)]
    pub vaults: BTreeMap<String, BTreeMap<String, u32>>,
    /// Boards and their owners (null: nobody).
    #[serde(default)]
    pub boards: Vec<BoardJson>,
    /// Royal pieces still to be placed on conquered boards.
    #[serde(default)]
    pub pending_kings: Vec<PendingJson>,
    #[serde(default)]
    pub eliminated: Vec<String>,
    /// Rounds in a row each player gave no order (absent: 0).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub idle: BTreeMap<String, u32>,
    /// Players who abandoned their empire: the time (seconds) before which they may not
    /// join again.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub lockouts: BTreeMap<String, i64>,
    /// The time of this round's deadline, in seconds (an input; needed for lockouts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<i64>,
    /// Players a bot gives orders for (derived on output; ignored on input).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<String>,
    /// Boards a new player may take over (derived on output; ignored on input).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claimable: Vec<[i32; 2]>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceJson {
    pub x: i32,
    pub y: i32,
    pub owner: String,
    /// The kind's letter (`K`, `Q`…).
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardJson {
    pub board: [i32; 2],
    pub owner: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingJson {
    pub board: [i32; 2],
    pub player: String,
}

/// One order as written: `{"type": "move", "from": [x, y], "to": [x, y]}`, `drop`
/// (`kind`, `to`), `pass` (`board`), `place_king` (`board`, `to`) or `abandon`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum OrderJson {
    Move { from: [i32; 2], to: [i32; 2] },
    Drop { kind: String, to: [i32; 2] },
    Pass { board: [i32; 2] },
    PlaceKing { board: [i32; 2], to: [i32; 2] },
    Abandon {},
}

/// The resolver's output.
#[derive(Debug, Clone, Serialize)]
pub struct OutputJson {
    pub state: StateJson,
    pub validation: BTreeMap<String, VerdictsJson>,
    pub events: Vec<EventJson>,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct VerdictsJson {
    pub results: Vec<ResultJson>,
    pub forced_flees: Vec<FleeJson>,
    pub placements: Vec<PlacementJson>,
    /// The orders were the bot's (the player is idle).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bot: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResultJson {
    pub accepted: bool,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FleeJson {
    pub board: [i32; 2],
    pub from: [i32; 2],
    pub to: [i32; 2],
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlacementJson {
    pub board: [i32; 2],
    pub to: [i32; 2],
    /// Placed by the rules (no order placed it).
    pub automatic: bool,
}

/// One event: its phase and micro-step, its type, and the type's fields.
#[derive(Debug, Clone, Serialize)]
pub struct EventJson {
    pub phase: String,
    pub microstep: u32,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(flatten)]
    pub fields: BTreeMap<String, serde_json::Value>,
}
