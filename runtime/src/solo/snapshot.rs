//! JSON snapshots of a solo board (DESIGN.md §8).
//!
//! ```json
//! { "variant": "chessic", "ply": 2, "to_move": null, "level": "journeyman", "seed": 7,
//!   "status": "playing", "elapsed_ms": 12000,
//!   "board": [{"square": "a1", "hits": 0, "layers": "21B", "piece": "two"}, ...],
//!   "targets": ["c3", "d4"],
//!   "score": {"strike_points": 21, "royal": 0, "perfect": 0, "layer": 0, "time": 490,
//!             "total": 511, "chain": {"kind": "two", "length": 2}, "royal_run": 0},
//!   "pieces": [{"square": "a1", "kind": "two"}, ...], "outcome": null, "events": [...],
//!   "history": {"board": "21B 332 …", "level": "journeyman", "strikes": ["c3", "d4"]} }
//! ```
//! Scores are integer tenths. Reading (`SoloGame::restore`) replays `history` at
//! `elapsed_ms` and refuses a snapshot whose other fields disagree with the replay.

use std::sync::Arc;

use serde_json::{Value, json};
use thiserror::Error;

use super::{Forge, SoloBoard, SoloEvent, SoloGame};
use crate::variant::Variant;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SoloSnapshotError {
    #[error("not valid JSON at line {line}, column {col}: {message}")]
    Json { line: usize, col: usize, message: String },
    #[error("field `{field}`: {why}")]
    Field { field: String, why: String },
    #[error("field `{field}` disagrees with the replayed history: it says {found}, the replay gives {replayed}")]
    Mismatch { field: String, found: String, replayed: String },
}

fn field(field: &str, why: impl Into<String>) -> SoloSnapshotError {
    SoloSnapshotError::Field { field: field.into(), why: why.into() }
}

impl SoloEvent {
    pub fn to_json(&self, v: &Variant) -> Value {
        let sq = |s: crate::geometry::Square| v.square_name(s);
        let kind = |k: crate::piece::KindId| v.kind(k).name.clone();
        match self {
            SoloEvent::Struck { square, kind: k, hits } => {
                json!({"type": "struck", "square": sq(*square), "kind": kind(*k), "hits": hits})
            }
            SoloEvent::Revealed { square, kind: k } => {
                json!({"type": "revealed", "square": sq(*square), "kind": kind(*k)})
            }
            SoloEvent::Cleared { square } => json!({"type": "cleared", "square": sq(*square)}),
            SoloEvent::LayerCompleted { layer } => json!({"type": "layer_completed", "layer": layer}),
            SoloEvent::Placed { square, kind: k } => json!({"type": "placed", "square": sq(*square), "kind": kind(*k)}),
            SoloEvent::Scored { points, reason } => json!({"type": "scored", "points": points.0, "reason": reason}),
            SoloEvent::Ended { status } => json!({"type": "ended", "status": status.name()}),
        }
    }

    /// The event in words, for traces and logs.
    pub fn describe(&self, v: &Variant) -> String {
        let sq = |s: crate::geometry::Square| v.square_name(s);
        let kind = |k: crate::piece::KindId| v.kind(k).name.clone();
        match self {
            SoloEvent::Struck { square, kind: k, hits } => {
                format!("struck the {} on {} ({hits} hit{})", kind(*k), sq(*square), if *hits == 1 { "" } else { "s" })
            }
            SoloEvent::Revealed { square, kind: k } => format!("{} now shows a {}", sq(*square), kind(*k)),
            SoloEvent::Cleared { square } => format!("{} is cleared", sq(*square)),
            SoloEvent::LayerCompleted { layer } => format!("layer {layer} completed"),
            SoloEvent::Placed { square, kind: k } => format!("a {} is left on {}", kind(*k), sq(*square)),
            SoloEvent::Scored { points, reason } => format!("+{points} ({reason})"),
            SoloEvent::Ended { status } => format!("the board ends: {}", status.name().replace('_', " ")),
        }
    }
}

impl SoloGame {
    /// The score breakdown in tenths (see the module docs).
    pub fn score_json(&self) -> Value {
        let v = &self.forge().variant;
        let rules = v.scoring.clone().unwrap_or_default();
        let mut s = self.score().to_json(&rules, &|k| v.kind(k).name.clone(), Some(self.time_points()));
        if rules.time.is_none()
            && let Some(o) = s.as_object_mut()
        {
            // A duel's countdown is worth points even without a time score.
            o.insert("time".into(), json!(self.time_points().0));
            o.insert("total".into(), json!(self.total().0));
        }
        s
    }

    /// The whole state as JSON.
    pub fn snapshot(&self) -> Value {
        let v = &self.forge().variant;
        let g = v.geometry;
        let name = |k: Option<crate::piece::KindId>| k.map_or(Value::Null, |k| json!(v.kind(k).name));
        let board: Vec<Value> = g
            .squares()
            .map(|sq| {
                let layers: String = self.board().stack(sq).iter().map(|&k| v.kind(k).letter).collect();
                json!({"square": v.square_name(sq), "hits": self.hits(sq), "layers": layers, "piece": name(self.shown(sq))})
            })
            .collect();
        let pieces: Vec<Value> = g
            .squares()
            .filter_map(|sq| self.shown(sq).map(|k| json!({"square": v.square_name(sq), "kind": v.kind(k).name})))
            .collect();
        let outcome = match self.status() {
            super::Status::Playing => Value::Null,
            s => json!({"result": s.name(), "reason": match s {
                super::Status::Forged => "every square is cleared",
                super::Status::Cooled => "no target is left",
                _ => "the countdown ran out",
            }}),
        };
        let strikes: Vec<String> = self.strikes().into_iter().map(|s| v.square_name(s)).collect();
        json!({
            "variant": v.name,
            "ply": self.ply(),
            "to_move": null,
            "level": self.level_name(),
            "seed": self.seed(),
            "status": self.status().name(),
            "elapsed_ms": self.elapsed_ms(),
            "layers_completed": self.layers_completed(),
            "board": board,
            "targets": self.targets().into_iter().map(|s| v.square_name(s)).collect::<Vec<_>>(),
            "score": self.score_json(),
            "pieces": pieces,
            "outcome": outcome,
            "events": self.last_events().iter().map(|e| e.to_json(v)).collect::<Vec<_>>(),
            "history": {"board": self.board().text(v), "level": self.level_name(), "strikes": strikes},
        })
    }

    /// Reads a snapshot written by [`SoloGame::snapshot`].
    pub fn from_snapshot(forge: Arc<Forge>, text: &str) -> Result<SoloGame, SoloSnapshotError> {
        let value: Value = serde_json::from_str(text).map_err(|e| SoloSnapshotError::Json {
            line: e.line(),
            col: e.column(),
            message: e.to_string().split(" at line").next().unwrap_or_default().to_string(),
        })?;
        SoloGame::restore(forge, &value)
    }

    /// Rebuilds a game from snapshot JSON: the history replayed at `elapsed_ms`.
    pub fn restore(forge: Arc<Forge>, value: &Value) -> Result<SoloGame, SoloSnapshotError> {
        let v = forge.variant.clone();
        let obj = value.as_object().ok_or_else(|| field("(top)", "a snapshot is a JSON object"))?;
        if let Some(name) = obj.get("variant") {
            let name = name.as_str().ok_or_else(|| field("variant", "expected a string"))?;
            if name != v.name {
                return Err(field("variant", format!("this snapshot is of `{name}`, not `{}`", v.name)));
            }
        }
        let h = obj.get("history").ok_or_else(|| field("history", "a solo snapshot needs its history"))?;
        let board_text = h
            .get("board")
            .and_then(Value::as_str)
            .ok_or_else(|| field("history.board", "expected the board as text"))?;
        let board = SoloBoard::parse(&v, board_text).map_err(|e| field("history.board", e.to_string()))?;
        let level_name =
            h.get("level").and_then(Value::as_str).ok_or_else(|| field("history.level", "expected a level name"))?;
        let level = forge.level(level_name).map_err(|e| field("history.level", e.to_string()))?;
        let seed = match obj.get("seed") {
            None | Some(Value::Null) => None,
            Some(s) => Some(s.as_u64().ok_or_else(|| field("seed", "expected a whole number"))?),
        };
        let elapsed = match obj.get("elapsed_ms") {
            None => 0,
            Some(e) => e.as_u64().ok_or_else(|| field("elapsed_ms", "expected a whole number of milliseconds"))?,
        };
        let mut g = SoloGame::new(forge, level, board).with_seed(seed);
        g.set_elapsed(elapsed);
        let strikes =
            h.get("strikes").and_then(Value::as_array).ok_or_else(|| field("history.strikes", "expected a list"))?;
        for (i, s) in strikes.iter().enumerate() {
            let text =
                s.as_str().ok_or_else(|| field("history.strikes", format!("entry {} is not a string", i + 1)))?;
            let sq = g.forge().square(text).map_err(|e| field("history.strikes", format!("strike {}: {e}", i + 1)))?;
            g.strike(sq).map_err(|e| field("history.strikes", format!("strike {} (`{text}`): {e}", i + 1)))?;
        }
        let replayed = g.snapshot();
        for key in ["ply", "status", "level", "targets", "score", "board", "layers_completed"] {
            if let Some(found) = obj.get(key)
                && found != &replayed[key]
            {
                return Err(SoloSnapshotError::Mismatch {
                    field: key.into(),
                    found: found.to_string(),
                    replayed: replayed[key].to_string(),
                });
            }
        }
        Ok(g)
    }
}
