//! JSON snapshots of a whole game: written by `--json`, read by `--from`.
//!
//! ```json
//! { "variant": "standard", "ply": 1, "to_move": "black",
//!   "fen": "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
//!   "pieces": [{"square": "a1", "kind": "rook", "side": "white"}, ...],
//!   "castling": ["K", "Q", "k", "q"], "en_passant": [], "en_passant_victim": null,
//!   "halfmove_clock": 0, "fullmove": 1, "in_check": false, "outcome": null,
//!   "events": [...],
//!   "history": {"start": "<FEN>", "moves": ["e2-e4"]} }
//! ```
//!
//! A variant with `[scoring]` adds `"score": {"white": {...}, "black": {...}}`, each
//! side's breakdown in tenths (`strike_points`, one key per run and sequence, `layer`,
//! `total`, `chain`, `<run>_run`).
//!
//! Reading: with `history`, the game is replayed from `start` (so undo and repetition
//! work as before), and the position fields, if present, must agree with the replay.
//! Without it, the position comes from `pieces` and the other fields, or from `fen`.

use std::sync::Arc;

use serde_json::{Value, json};
use thiserror::Error;

use crate::game::Game;
use crate::geometry::Square;
use crate::notation::fen::{self, Setup};
use crate::outcome::Outcome;
use crate::piece::{Piece, Side};
use crate::variant::Variant;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SnapshotError {
    #[error("not valid JSON at line {line}, column {col}: {message}")]
    Json { line: usize, col: usize, message: String },
    #[error("this snapshot is of variant `{found}`, not `{expected}`")]
    Variant { expected: String, found: String },
    #[error("field `{field}`: {why}")]
    Field { field: String, why: String },
    #[error("history move {index} (`{text}`): {why}")]
    History { index: usize, text: String, why: String },
    #[error("field `{field}` disagrees with the replayed history: it says {found}, the replay gives {replayed}")]
    Mismatch { field: String, found: String, replayed: String },
}

fn field(field: &str, why: impl Into<String>) -> SnapshotError {
    SnapshotError::Field { field: field.into(), why: why.into() }
}

impl Game {
    /// The whole state as JSON.
    pub fn snapshot(&self) -> Value {
        let v = self.variant();
        let setup = self.setup();
        let mut obj = position_json(v, &setup);
        let o = obj.as_object_mut().unwrap();
        o.insert("variant".into(), json!(v.name));
        o.insert("ply".into(), json!(self.ply()));
        o.insert("fen".into(), json!(self.fen()));
        o.insert("in_check".into(), json!(self.in_check()));
        o.insert("outcome".into(), self.outcome().map_or(Value::Null, |x| x.to_json()));
        o.insert("events".into(), Value::Array(self.last_events().iter().map(|e| e.to_json(v)).collect()));
        let moves = self.history_text();
        o.insert("history".into(), json!({"start": self.start_fen(), "moves": moves}));
        if let Some(score) = self.table_scores_json() {
            o.insert("score".into(), score);
        }
        if v.combat.is_some()
            && let Some(Value::Array(pieces)) = o.get_mut("pieces")
        {
            for p in pieces.iter_mut() {
                let sq = p.get("square").and_then(Value::as_str).and_then(|s| v.geometry.parse(s).ok());
                if let (Some(sq), Some(obj)) = (sq, p.as_object_mut())
                    && let Some(st) = self.piece_state(sq)
                {
                    obj.insert("hp".into(), json!(st.hp));
                    obj.insert("max_hp".into(), json!(st.max_hp));
                    let sources: Vec<Value> = st
                        .sources
                        .iter()
                        .map(|&(s, spent)| json!({"source": v.square_name(s), "spent": spent}))
                        .collect();
                    obj.insert(
                        "buffs".into(),
                        json!({"stacks": st.stacks, "multiplier": st.multiplier, "sources": sources}),
                    );
                    obj.insert("guarded".into(), json!(st.guarded));
                    obj.insert("outside_plies".into(), json!(st.outside_plies));
                }
            }
        }
        obj
    }

    /// Reads a snapshot written by [`Game::snapshot`] (or by hand, see the module docs).
    pub fn from_snapshot(variant: Arc<Variant>, text: &str) -> Result<Game, SnapshotError> {
        let value: Value = serde_json::from_str(text).map_err(|e| SnapshotError::Json {
            line: e.line(),
            col: e.column(),
            message: e.to_string().split(" at line").next().unwrap_or_default().to_string(),
        })?;
        Game::restore(variant, &value)
    }

    /// Rebuilds a game from snapshot JSON.
    pub fn restore(variant: Arc<Variant>, value: &Value) -> Result<Game, SnapshotError> {
        let obj = value.as_object().ok_or_else(|| field("(top)", "a snapshot is a JSON object"))?;
        if let Some(name) = obj.get("variant") {
            let name = name.as_str().ok_or_else(|| field("variant", "expected a string"))?;
            if name != variant.name {
                return Err(SnapshotError::Variant { expected: variant.name.clone(), found: name.into() });
            }
        }
        let described = if obj.contains_key("pieces") {
            let s = setup_from_json(&variant, obj)?;
            if let Some(f) = obj.get("fen").and_then(Value::as_str) {
                let from_fen = fen::parse(&variant, f).map_err(|e| field("fen", e.to_string()))?;
                compare(&variant, &s, &from_fen)
                    .map_err(|_| field("fen", "disagrees with `pieces` and the other position fields"))?;
            }
            Some(s)
        } else if let Some(f) = obj.get("fen") {
            let f = f.as_str().ok_or_else(|| field("fen", "expected a string"))?;
            Some(fen::parse(&variant, f).map_err(|e| field("fen", e.to_string()))?)
        } else {
            None
        };
        let game = match obj.get("history") {
            Some(h) => {
                let start = h
                    .get("start")
                    .and_then(Value::as_str)
                    .ok_or_else(|| field("history.start", "expected a FEN string"))?;
                let mut g =
                    Game::from_fen(variant.clone(), start).map_err(|e| field("history.start", e.to_string()))?;
                let moves = h
                    .get("moves")
                    .and_then(Value::as_array)
                    .ok_or_else(|| field("history.moves", "expected a list of moves"))?;
                for (i, m) in moves.iter().enumerate() {
                    let text =
                        m.as_str().ok_or_else(|| field("history.moves", format!("entry {} is not a string", i + 1)))?;
                    g.play(text).map_err(|e| SnapshotError::History {
                        index: i + 1,
                        text: text.into(),
                        why: e.to_string(),
                    })?;
                }
                if let Some(d) = &described {
                    compare(&variant, d, &g.setup())?;
                }
                g
            }
            None => {
                let setup =
                    described.ok_or_else(|| field("pieces", "a snapshot needs `history`, `pieces` or `fen`"))?;
                Game::from_setup(variant.clone(), setup)
            }
        };
        // The tables' scores follow from the history: a snapshot that says otherwise is refused.
        if let (Some(claimed), Some(replayed)) = (obj.get("score"), game.table_scores_json())
            && claimed != &replayed
        {
            return Err(SnapshotError::Mismatch {
                field: "score".into(),
                found: claimed.to_string(),
                replayed: replayed.to_string(),
            });
        }
        if let Some(o) = obj.get("outcome").filter(|o| !o.is_null()) {
            let claimed = Outcome::from_json(o).ok_or_else(|| field("outcome", "expected {result, winner, reason}"))?;
            if game.outcome().as_ref() != Some(&claimed) {
                return Err(SnapshotError::Mismatch {
                    field: "outcome".into(),
                    found: claimed.describe(),
                    replayed: game.outcome().map_or("no outcome".into(), |o| o.describe()),
                });
            }
        }
        Ok(game)
    }
}

fn position_json(v: &Variant, s: &Setup) -> Value {
    let pieces: Vec<Value> = s
        .pieces
        .iter()
        .map(|&(sq, p)| json!({"square": v.square_name(sq), "kind": v.kind(p.kind).name, "side": p.side.name()}))
        .collect();
    let castling: Vec<String> = v
        .castling
        .iter()
        .enumerate()
        .filter(|(i, _)| s.castling & (1 << i) != 0)
        .map(|(_, c)| c.right.to_string())
        .collect();
    json!({
        "to_move": s.to_move.name(),
        "pieces": pieces,
        "castling": castling,
        "en_passant": s.en_passant.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>(),
        "en_passant_victim": s.ep_victim.map(|q| v.square_name(q)),
        "halfmove_clock": s.halfmove,
        "fullmove": s.fullmove,
        "graveyard": graveyard_json(v, s),
        "frozen": s.frozen.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>(),
        "waiting": s.waiting.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>(),
    })
}

/// `{"white": [...], "black": [...]}`: captured kinds by name, in the variant's order.
fn graveyard_json(v: &Variant, s: &Setup) -> Value {
    let list = |side: Side| -> Vec<String> {
        s.graveyard[side.index()]
            .iter()
            .enumerate()
            .take(v.kinds.len())
            .flat_map(|(k, &n)| std::iter::repeat_n(v.kinds[k].name.clone(), n as usize))
            .collect()
    };
    json!({"white": list(Side::White), "black": list(Side::Black)})
}

fn setup_from_json(v: &Variant, obj: &serde_json::Map<String, Value>) -> Result<Setup, SnapshotError> {
    let g = v.geometry;
    let sq = |f: &str, x: &Value| -> Result<Square, SnapshotError> {
        let t = x.as_str().ok_or_else(|| field(f, "expected a square name"))?;
        g.parse(t).map_err(|e| field(f, e.to_string()))
    };
    let mut pieces = Vec::new();
    let (mut hp_list, mut spent, mut guard) = (Vec::new(), Vec::new(), Vec::new());
    let list = obj["pieces"].as_array().ok_or_else(|| field("pieces", "expected a list"))?;
    for (i, p) in list.iter().enumerate() {
        let f = format!("pieces[{i}]");
        let square = sq(&format!("{f}.square"), p.get("square").unwrap_or(&Value::Null))?;
        let kind_name =
            p.get("kind").and_then(Value::as_str).ok_or_else(|| field(&format!("{f}.kind"), "expected a kind name"))?;
        let kind = v.kind_named(kind_name).ok_or_else(|| {
            let known: Vec<&str> = v.kinds.iter().map(|k| k.name.as_str()).collect();
            field(&format!("{f}.kind"), format!("unknown kind `{kind_name}` (known: {})", known.join(", ")))
        })?;
        let side = p
            .get("side")
            .and_then(Value::as_str)
            .and_then(Side::parse)
            .ok_or_else(|| field(&format!("{f}.side"), "expected \"white\" or \"black\""))?;
        if pieces.iter().any(|&(s, _)| s == square) {
            return Err(field(&f, format!("two pieces on {}", v.square_name(square))));
        }
        pieces.push((square, Piece::new(kind, side)));
        // Combat state, where given: hit points, spent stacks, the divide aura's flag.
        if let Some(hp) = p.get("hp").filter(|x| !x.is_null()) {
            let n = hp.as_u64().filter(|&n| n <= 255).ok_or_else(|| field(&format!("{f}.hp"), "expected 0 to 255"))?;
            if n as u8 != v.kind(kind).stats.hp {
                hp_list.push((square, n as u8));
            }
        }
        if let Some(list) = p.get("buffs").and_then(|b| b.get("sources")).and_then(Value::as_array) {
            for s in list {
                if s.get("spent").and_then(Value::as_bool) == Some(true) {
                    spent.push((square, sq(&format!("{f}.buffs.sources"), s.get("source").unwrap_or(&Value::Null))?));
                }
            }
        }
        if p.get("guarded").and_then(Value::as_bool) == Some(true) {
            let n = p.get("outside_plies").and_then(Value::as_u64).unwrap_or(0).min(255) as u8;
            guard.push((square, n));
        }
    }
    pieces.sort_by_key(|&(s, _)| s);
    let to_move = match obj.get("to_move") {
        None => Side::White,
        Some(x) => {
            x.as_str().and_then(Side::parse).ok_or_else(|| field("to_move", "expected \"white\" or \"black\""))?
        }
    };
    let mut castling = 0;
    if let Some(list) = obj.get("castling") {
        for r in list.as_array().ok_or_else(|| field("castling", "expected a list of rights"))? {
            let r = r.as_str().unwrap_or("");
            let i = v
                .castling
                .iter()
                .position(|c| c.right.to_string() == r)
                .ok_or_else(|| field("castling", format!("`{r}` is not a castling right of this variant")))?;
            castling |= 1 << i;
        }
    }
    let mut en_passant = Vec::new();
    if let Some(list) = obj.get("en_passant").and_then(Value::as_array) {
        for x in list {
            en_passant.push(sq("en_passant", x)?);
        }
    }
    let ep_victim = match obj.get("en_passant_victim") {
        None | Some(Value::Null) => None,
        Some(x) => Some(sq("en_passant_victim", x)?),
    };
    if !en_passant.is_empty() && ep_victim.is_none() {
        return Err(field("en_passant_victim", "en-passant squares need the square of the piece they capture"));
    }
    let num = |f: &str, default: u32| -> Result<u32, SnapshotError> {
        match obj.get(f) {
            None => Ok(default),
            Some(x) => x.as_u64().map(|n| n as u32).ok_or_else(|| field(f, "expected a whole number")),
        }
    };
    let squares = |f: &str| -> Result<Vec<Square>, SnapshotError> {
        match obj.get(f) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(list)) => list.iter().map(|x| sq(f, x)).collect(),
            Some(_) => Err(field(f, "expected a list of squares")),
        }
    };
    let mut graveyard = [[0u8; crate::piece::MAX_KINDS]; 2];
    if let Some(g) = obj.get("graveyard").filter(|g| !g.is_null()) {
        for side in Side::BOTH {
            let list = g
                .get(side.name())
                .and_then(Value::as_array)
                .ok_or_else(|| field("graveyard", "expected {\"white\": [kinds], \"black\": [kinds]}"))?;
            for k in list {
                let name = k.as_str().unwrap_or("");
                let id = v.kind_named(name).ok_or_else(|| field("graveyard", format!("unknown kind `{name}`")))?;
                graveyard[side.index()][id.index()] += 1;
            }
        }
    }
    let setup = Setup {
        pieces,
        to_move,
        castling,
        en_passant,
        ep_victim,
        halfmove: num("halfmove_clock", 0)?,
        fullmove: num("fullmove", 1)?.max(1),
        graveyard,
        frozen: squares("frozen")?,
        waiting: squares("waiting")?,
        hp: hp_list,
        spent,
        guard,
    };
    // The same checks as FEN: castling pieces present, en-passant squares sensible.
    fen::parse(v, &fen::write(v, &setup)).map_err(|e| field("(position)", e.to_string()))?;
    Ok(setup)
}

fn compare(v: &Variant, described: &Setup, replayed: &Setup) -> Result<(), SnapshotError> {
    let a = position_json(v, described);
    let b = position_json(v, replayed);
    for (k, x) in a.as_object().unwrap() {
        let y = &b[k];
        if x != y {
            return Err(SnapshotError::Mismatch { field: k.clone(), found: x.to_string(), replayed: y.to_string() });
        }
    }
    Ok(())
}
