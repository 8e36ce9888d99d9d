//! How a game ends: who won (or a draw), and why.

use serde_json::{Value, json};

use crate::piece::Side;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    Win(Side),
    Draw,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// No legal move while in check.
    Checkmate,
    /// No legal move while not in check.
    Stalemate,
    /// `draws.no_progress_plies` passed without progress (the 50-move rule).
    NoProgress,
    /// The same position occurred `draws.repetition` times.
    Repetition,
    /// Neither side can win with the material left.
    InsufficientMaterial,
    /// A side lost its last royal piece.
    RoyalLost,
    /// The full-move limit was reached.
    TurnLimit,
    /// A royal piece arrived on the same square too often with nothing else happening.
    RoyalRepeat,
    /// The game clock ran out.
    TimeLimit,
    /// A reason given by the variant's rules (a hook), in its own words.
    Rule(String),
}

impl Reason {
    pub fn name(&self) -> &str {
        match self {
            Reason::Rule(r) => r,
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::NoProgress => "no_progress",
            Reason::Repetition => "repetition",
            Reason::InsufficientMaterial => "insufficient_material",
            Reason::RoyalLost => "royal_lost",
            Reason::TurnLimit => "turn_limit",
            Reason::RoyalRepeat => "royal_repeat",
            Reason::TimeLimit => "time_limit",
        }
    }

    /// The reason named `text`; any other text is a rule's own reason.
    pub fn parse(text: &str) -> Reason {
        [
            Reason::Checkmate,
            Reason::Stalemate,
            Reason::NoProgress,
            Reason::Repetition,
            Reason::InsufficientMaterial,
            Reason::RoyalLost,
            Reason::TurnLimit,
            Reason::RoyalRepeat,
            Reason::TimeLimit,
        ]
        .into_iter()
        .find(|r| r.name() == text)
        .unwrap_or_else(|| Reason::Rule(text.to_string()))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub result: GameResult,
    pub reason: Reason,
}

impl Outcome {
    pub fn winner(&self) -> Option<Side> {
        match self.result {
            GameResult::Win(s) => Some(s),
            GameResult::Draw => None,
        }
    }

    /// `{"result": "win"|"draw", "winner": "white"|"black"|null, "reason": "checkmate"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "result": if self.winner().is_some() { "win" } else { "draw" },
            "winner": self.winner().map(Side::name),
            "reason": self.reason.name(),
        })
    }

    pub fn from_json(v: &Value) -> Option<Outcome> {
        let reason = Reason::parse(v.get("reason")?.as_str()?);
        let result = match v.get("result")?.as_str()? {
            "draw" => GameResult::Draw,
            "win" => GameResult::Win(Side::parse(v.get("winner")?.as_str()?)?),
            _ => return None,
        };
        Some(Outcome { result, reason })
    }

    pub fn describe(&self) -> String {
        let why = self.reason.name().replace('_', " ");
        match self.result {
            GameResult::Win(s) => format!("{s} wins by {why}"),
            GameResult::Draw => format!("draw by {why}"),
        }
    }
}
