//! What a round's resolution did, as events: each with its phase and micro-step, in the
//! order it happened (which is also the order pieces entered vaults). Written as JSON
//! for the realm contract and as lines for fixture traces.

use std::collections::BTreeMap;

use serde_json::json;

use super::geometry::{BoardId, Pos};
use super::json::EventJson;
use crate::piece::KindId;
use crate::variant::{Phase, Variant};

/// Why a piece left the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// An enemy landed on it.
    Captured,
    /// It passed through an enemy sitter, which stopped it.
    Intercepted,
    /// It arrived with a stronger enemy piece.
    LostFight,
    /// It arrived with an enemy piece as strong: both are destroyed.
    Tie,
    /// Its board was conquered.
    Conquest,
    /// Its owner abandoned their empire.
    Abandoned,
}

impl Cause {
    pub fn name(self) -> &'static str {
        match self {
            Cause::Captured => "captured",
            Cause::Intercepted => "intercepted",
            Cause::LostFight => "lost_fight",
            Cause::Tie => "tie",
            Cause::Conquest => "conquest",
            Cause::Abandoned => "abandoned",
        }
    }
}

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum What {
    Placed {
        player: u32,
        kind: KindId,
        at: Pos,
    },
    Dropped {
        player: u32,
        kind: KindId,
        at: Pos,
    },
    Moved {
        player: u32,
        kind: KindId,
        from: Pos,
        to: Pos,
    },
    /// It stopped on `at` (short of its target) before a friendly piece.
    Stopped {
        player: u32,
        kind: KindId,
        from: Pos,
        at: Pos,
        target: Pos,
    },
    /// A drop or placement found a friendly piece on its square and did not happen.
    Cancelled {
        player: u32,
        kind: KindId,
        at: Pos,
    },
    /// A piece left the map: into `vault`'s reserve, or destroyed (`vault` None, or
    /// `overflow` when the reserve was full).
    Removed {
        player: u32,
        kind: KindId,
        at: Pos,
        cause: Cause,
        vault: Option<u32>,
        overflow: bool,
    },
    Conquered {
        board: BoardId,
        from: u32,
        to: u32,
    },
    /// A royal piece must be placed on this board before the next round.
    KingPending {
        board: BoardId,
        player: u32,
    },
    Eliminated {
        player: u32,
    },
    Abandoned {
        player: u32,
    },
}

/// An event with its place in the resolution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldEvent {
    /// None: before the phases (abandons) or after them (the end of the round).
    pub phase: Option<Phase>,
    pub microstep: u32,
    pub what: What,
}

fn at(p: Pos) -> serde_json::Value {
    json!([p.x, p.y])
}

impl WorldEvent {
    pub fn phase_name(&self) -> &'static str {
        self.phase.map_or("round", Phase::name)
    }

    pub fn to_json(&self, v: &Variant, names: &[String]) -> EventJson {
        let who = |p: u32| json!(names.get(p as usize).map_or("nobody", String::as_str));
        let kind = |k: KindId| json!(v.kinds[k.index()].letter.to_string());
        let mut f = BTreeMap::new();
        let ty = match &self.what {
            What::Placed { player, kind: k, at: a } | What::Dropped { player, kind: k, at: a } => {
                f.insert("player".into(), who(*player));
                f.insert("kind".into(), kind(*k));
                f.insert("at".into(), at(*a));
                if matches!(self.what, What::Placed { .. }) { "placed" } else { "dropped" }
            }
            What::Moved { player, kind: k, from, to } => {
                f.insert("player".into(), who(*player));
                f.insert("kind".into(), kind(*k));
                f.insert("from".into(), at(*from));
                f.insert("to".into(), at(*to));
                "moved"
            }
            What::Stopped { player, kind: k, from, at: a, target } => {
                f.insert("player".into(), who(*player));
                f.insert("kind".into(), kind(*k));
                f.insert("from".into(), at(*from));
                f.insert("at".into(), at(*a));
                f.insert("target".into(), at(*target));
                "stopped"
            }
            What::Cancelled { player, kind: k, at: a } => {
                f.insert("player".into(), who(*player));
                f.insert("kind".into(), kind(*k));
                f.insert("at".into(), at(*a));
                "cancelled"
            }
            What::Removed { player, kind: k, at: a, cause, vault, overflow } => {
                f.insert("player".into(), who(*player));
                f.insert("kind".into(), kind(*k));
                f.insert("at".into(), at(*a));
                f.insert("cause".into(), json!(cause.name()));
                f.insert("vault".into(), if *overflow { json!(null) } else { vault.map_or(json!(null), who) });
                f.insert("destroyed".into(), json!(vault.is_none() || *overflow));
                "removed"
            }
            What::Conquered { board, from, to } => {
                f.insert("board".into(), json!([board.bx, board.by]));
                f.insert("from".into(), who(*from));
                f.insert("to".into(), who(*to));
                "conquered"
            }
            What::KingPending { board, player } => {
                f.insert("board".into(), json!([board.bx, board.by]));
                f.insert("player".into(), who(*player));
                "king_pending"
            }
            What::Eliminated { player } => {
                f.insert("player".into(), who(*player));
                "eliminated"
            }
            What::Abandoned { player } => {
                f.insert("player".into(), who(*player));
                "abandoned"
            }
        };
        EventJson { phase: self.phase_name().to_string(), microstep: self.microstep, kind: ty.to_string(), fields: f }
    }

    /// One line for a trace: `slides 2: alice's rook [0,0]-[0,3]`.
    pub fn describe(&self, v: &Variant, names: &[String]) -> String {
        let who = |p: u32| names.get(p as usize).map_or("nobody", String::as_str).to_string();
        let kind = |k: KindId| v.kinds[k.index()].name.clone();
        let text = match &self.what {
            What::Placed { player, kind: k, at } => format!("{}'s {} placed on {at}", who(*player), kind(*k)),
            What::Dropped { player, kind: k, at } => format!("{}'s {} dropped on {at}", who(*player), kind(*k)),
            What::Moved { player, kind: k, from, to } => format!("{}'s {} {from}-{to}", who(*player), kind(*k)),
            What::Stopped { player, kind: k, from, at, target } => format!(
                "{}'s {} from {from} stopped on {at} before a friendly piece (target {target})",
                who(*player),
                kind(*k)
            ),
            What::Cancelled { player, kind: k, at } => {
                format!("{}'s {} not put on {at}: a friendly piece is there", who(*player), kind(*k))
            }
            What::Removed { player, kind: k, at, cause, vault, overflow } => {
                let to = match (vault, overflow) {
                    (Some(p), false) => format!("into {}'s vault", who(*p)),
                    (Some(p), true) => format!("destroyed ({}'s vault is full)", who(*p)),
                    (None, _) => "destroyed".to_string(),
                };
                format!("{}'s {} on {at} {} {to}", who(*player), kind(*k), cause_words(*cause))
            }
            What::Conquered { board, from, to } => {
                format!("board {board} conquered by {} from {}", who(*to), who(*from))
            }
            What::KingPending { board, player } => format!("{} must place a king on board {board}", who(*player)),
            What::Eliminated { player } => format!("{} is eliminated", who(*player)),
            What::Abandoned { player } => format!("{} abandoned their empire", who(*player)),
        };
        match self.phase {
            Some(p) if self.microstep > 0 => format!("{} {}: {text}", p.name(), self.microstep),
            Some(p) => format!("{}: {text}", p.name()),
            None => format!("round: {text}"),
        }
    }
}

fn cause_words(c: Cause) -> &'static str {
    match c {
        Cause::Captured => "captured,",
        Cause::Intercepted => "intercepted by a sitter,",
        Cause::LostFight => "lost the arrival fight,",
        Cause::Tie => "tied an equal piece,",
        Cause::Conquest => "taken with its board,",
        Cause::Abandoned => "left with its owner,",
    }
}
