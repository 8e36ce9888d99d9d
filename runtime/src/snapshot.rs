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
//! A variant whose rules award points (a `score` hook, or `game:award` having scored)
//! adds `"points": {"white": n, "black": n}`.
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
    /// A field says what the game rebuilt from the snapshot does not hold.
    #[error("field `{field}` disagrees with {against}: it says {found}, but it is {actual}")]
    Mismatch { field: String, found: String, actual: String, against: &'static str },
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
        if let Some(points) = self.points_json() {
            o.insert("points".into(), points);
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

    /// Rebuilds a game from snapshot JSON. Every field present must agree with the game
    /// it rebuilds (replayed from `history`, or built from the position fields); unknown
    /// fields are refused. Without `history`, `ply` and `events` are taken as written
    /// (they describe a past the snapshot does not hold).
    pub fn restore(variant: Arc<Variant>, value: &Value) -> Result<Game, SnapshotError> {
        let obj = value.as_object().ok_or_else(|| field("(top)", "a snapshot is a JSON object"))?;
        if let Some(name) = obj.get("variant") {
            let name = name.as_str().ok_or_else(|| field("variant", "expected a string"))?;
            if name != variant.name {
                return Err(SnapshotError::Variant { expected: variant.name.clone(), found: name.into() });
            }
        }
        let fen_field = match obj.get("fen") {
            None => None,
            Some(f) => {
                let f = f.as_str().ok_or_else(|| field("fen", "expected a string"))?;
                Some(fen::parse(&variant, f).map_err(|e| field("fen", e.to_string()))?)
            }
        };
        let described = if obj.contains_key("pieces") {
            let s = setup_from_json(&variant, obj)?;
            if let Some(from_fen) = &fen_field {
                compare(&variant, &s, from_fen, "")
                    .map_err(|_| field("fen", "disagrees with `pieces` and the other position fields"))?;
            }
            Some(s)
        } else {
            fen_field.clone()
        };
        let (game, against) = match obj.get("history") {
            Some(h) => (replay(&variant, h)?, "the replayed history"),
            None => {
                let setup =
                    described.ok_or_else(|| field("pieces", "a snapshot needs `history`, `pieces` or `fen`"))?;
                let g = Game::from_checked_setup(variant.clone(), setup, 0)
                    .map_err(|e| field("(position)", e.to_string()))?;
                (g, "the position it describes")
            }
        };
        agree(&variant, obj, &game, against)?;
        Ok(game)
    }
}

impl Game {
    /// `{"white": n, "black": n}` when the variant scores points ([`Game::points`]).
    fn points_json(&self) -> Option<Value> {
        self.points().map(Game::points_value)
    }

    fn points_value(scores: [i64; 2]) -> Value {
        json!({"white": scores[0], "black": scores[1]})
    }
}

/// The fields that describe the position (read by [`setup_from_json`]).
const POSITION: [&str; 14] = [
    "pieces",
    "to_move",
    "castling",
    "en_passant",
    "en_passant_victim",
    "halfmove_clock",
    "fullmove",
    "graveyard",
    "frozen",
    "waiting",
    "hands",
    "promoted",
    "checks",
    "gates",
];

/// The game of a `history` object: its start, then its moves.
fn replay(variant: &Arc<Variant>, h: &Value) -> Result<Game, SnapshotError> {
    let o = h.as_object().ok_or_else(|| field("history", "expected {\"start\": FEN, \"moves\": [...]}"))?;
    if let Some(k) = o.keys().find(|k| !["start", "moves"].contains(&k.as_str())) {
        return Err(field(&format!("history.{k}"), "not a history field (known: start, moves)"));
    }
    let start =
        o.get("start").and_then(Value::as_str).ok_or_else(|| field("history.start", "expected a FEN string"))?;
    let mut g = Game::from_fen(variant.clone(), start).map_err(|e| field("history.start", e.to_string()))?;
    let moves =
        o.get("moves").and_then(Value::as_array).ok_or_else(|| field("history.moves", "expected a list of moves"))?;
    for (i, m) in moves.iter().enumerate() {
        let text = m.as_str().ok_or_else(|| field("history.moves", format!("entry {} is not a string", i + 1)))?;
        g.play(text).map_err(|e| SnapshotError::History { index: i + 1, text: text.into(), why: e.to_string() })?;
    }
    Ok(g)
}

/// Every field of `obj` against `game` (which `against` names in messages).
fn agree(
    v: &Variant,
    obj: &serde_json::Map<String, Value>,
    game: &Game,
    against: &'static str,
) -> Result<(), SnapshotError> {
    let live = game.setup();
    if POSITION.iter().any(|f| obj.contains_key(*f)) {
        // Compared as written: a field that disagrees is named, not a check it then fails.
        let described = read_setup(v, obj, Some(&live))?;
        compare(v, &normalised(described), &live, against)?;
    }
    if let Some(f) = obj.get("fen").and_then(Value::as_str) {
        let from_fen = fen::parse(v, f).map_err(|e| field("fen", e.to_string()))?;
        compare(v, &from_fen, &live, against).map_err(|e| match e {
            SnapshotError::Mismatch { .. } => {
                SnapshotError::Mismatch { field: "fen".into(), found: f.to_string(), actual: game.fen(), against }
            }
            other => other,
        })?;
    }
    let mine = game.snapshot();
    let replayed = against == "the replayed history";
    for (k, x) in obj {
        let mismatch = |y: &Value| SnapshotError::Mismatch {
            field: k.clone(),
            found: x.to_string(),
            actual: y.to_string(),
            against,
        };
        match k.as_str() {
            "variant" | "history" | "fen" => {}
            "pieces" => agree_pieces(x, &mine["pieces"], against)?,
            "outcome" => {
                let claimed = if x.is_null() {
                    None
                } else {
                    Some(Outcome::from_json(x).ok_or_else(|| field("outcome", "expected {result, winner, reason}"))?)
                };
                if game.outcome() != claimed {
                    // Repetition, a rule's verdict, a clock: the past decides, and it is not here.
                    let hint = if replayed { "" } else { " (an outcome that the moves played decide needs `history`)" };
                    return Err(SnapshotError::Mismatch {
                        field: "outcome".into(),
                        found: claimed.map_or("no outcome".into(), |o| o.describe()) + hint,
                        actual: game.outcome().map_or("no outcome".into(), |o| o.describe()),
                        against,
                    });
                }
            }
            "ply" | "events" if !replayed => {}
            "points" => {
                // Points come from the moves played, so only a history can rebuild them.
                let actual = Game::points_value(game.scores());
                if *x != actual {
                    let hint = if replayed { "" } else { " (points that the moves scored need `history`)" };
                    return Err(SnapshotError::Mismatch {
                        field: k.clone(),
                        found: format!("{x}{hint}"),
                        actual: actual.to_string(),
                        against,
                    });
                }
            }
            _ if POSITION.contains(&k.as_str()) => {}
            _ => match mine.get(k) {
                Some(y) if y == x => {}
                Some(y) => return Err(mismatch(y)),
                None => {
                    let known: Vec<&str> =
                        mine.as_object().map_or(Vec::new(), |m| m.keys().map(|k| k.as_str()).collect());
                    return Err(field(k, format!("not a snapshot field (known: {})", known.join(", "))));
                }
            },
        }
    }
    Ok(())
}

/// The pieces' own fields (hit points, auras…) against the game's, square by square; the
/// position itself was compared already.
fn agree_pieces(given: &Value, mine: &Value, against: &'static str) -> Result<(), SnapshotError> {
    let (Some(given), Some(mine)) = (given.as_array(), mine.as_array()) else { return Ok(()) };
    for (i, p) in given.iter().enumerate() {
        let Some(p) = p.as_object() else { continue };
        // Square names may be written in capitals.
        let at = p.get("square").and_then(Value::as_str).map(str::to_ascii_lowercase);
        let same = |m: &&Value| m.get("square").and_then(Value::as_str) == at.as_deref();
        let Some(m) = mine.iter().find(same).and_then(Value::as_object) else { continue };
        for (k, x) in p {
            match m.get(k) {
                _ if k == "square" => {}
                Some(y) if y == x => {}
                Some(y) => {
                    return Err(SnapshotError::Mismatch {
                        field: format!("pieces[{i}].{k}"),
                        found: x.to_string(),
                        actual: y.to_string(),
                        against,
                    });
                }
                None => {
                    let known: Vec<&str> = m.keys().map(|k| k.as_str()).collect();
                    return Err(field(
                        &format!("pieces[{i}].{k}"),
                        format!("not a piece field in this variant (known: {})", known.join(", ")),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn position_json(v: &Variant, s: &Setup) -> Value {
    let mut out = board_json(v, s);
    // Only a variant with hands has these keys, so every other snapshot stays as it was.
    if v.hand().is_some() {
        out["hands"] = kinds_json(v, &s.hands);
        out["promoted"] = json!(s.promoted.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>());
    }
    // Open gates, only with gating.
    if v.gating().is_some() {
        out["gates"] = json!(s.gates.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>());
    }
    // Checks given, only where an end rule counts them.
    if v.check_count().is_some() {
        out["checks"] = json!({"white": s.checks[0], "black": s.checks[1]});
    }
    out
}

fn board_json(v: &Variant, s: &Setup) -> Value {
    let pieces: Vec<Value> = s
        .pieces
        .iter()
        .map(|&(sq, p)| json!({"square": v.square_name(sq), "kind": v.kind(p.kind).name, "side": p.side.name()}))
        .collect();
    let castling: Vec<String> = (0..v.castling.len())
        .filter(|i| s.castling & (1 << i) != 0)
        .map(|i| fen::castling_letter(v, &s.pieces, i).to_string())
        .collect();
    json!({
        "to_move": s.to_move.name(),
        "pieces": pieces,
        "castling": castling,
        "en_passant": s.en_passant.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>(),
        "en_passant_victim": s.ep_victim.map(|q| v.square_name(q)),
        "halfmove_clock": s.halfmove,
        "fullmove": s.fullmove,
        "graveyard": kinds_json(v, &s.graveyard),
        "frozen": s.frozen.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>(),
        "waiting": s.waiting.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>(),
    })
}

/// `{"white": [...], "black": [...]}`: kinds by name (captured, or in hand), in the
/// variant's order.
fn kinds_json(v: &Variant, counts: &[[u8; crate::piece::MAX_KINDS]; 2]) -> Value {
    let list = |side: Side| -> Vec<String> {
        counts[side.index()]
            .iter()
            .enumerate()
            .take(v.kinds.len())
            .flat_map(|(k, &n)| std::iter::repeat_n(v.kinds[k].name.clone(), n as usize))
            .collect()
    };
    json!({"white": list(Side::White), "black": list(Side::Black)})
}

/// The position the snapshot's fields describe, checked like a FEN.
fn setup_from_json(v: &Variant, obj: &serde_json::Map<String, Value>) -> Result<Setup, SnapshotError> {
    checked(v, read_setup(v, obj, None)?)
}

/// The position the snapshot's fields say, as written (not yet checked). A field left out
/// is taken from `base` (the game being checked against), or else has its default; a
/// piece's hit points and marks likewise, when `base` has the same piece on that square.
fn read_setup(v: &Variant, obj: &serde_json::Map<String, Value>, base: Option<&Setup>) -> Result<Setup, SnapshotError> {
    let g = v.geometry;
    let sq = |f: &str, x: &Value| -> Result<Square, SnapshotError> {
        let t = x.as_str().ok_or_else(|| field(f, "expected a square name"))?;
        g.parse(t).map_err(|e| field(f, e.to_string()))
    };
    let base_piece = |at: Square, p: Piece| base.is_some_and(|b| b.pieces.contains(&(at, p)));
    let mut pieces = Vec::new();
    let (mut hp_list, mut spent, mut guard) = (Vec::new(), Vec::new(), Vec::new());
    let mut guarded = Vec::new();
    match obj.get("pieces") {
        None => {
            if let Some(b) = base {
                pieces = b.pieces.clone();
                (hp_list, spent, guard) = (b.hp.clone(), b.spent.clone(), b.guard.clone());
            }
        }
        Some(list) => {
            let list = list.as_array().ok_or_else(|| field("pieces", "expected a list"))?;
            for (i, p) in list.iter().enumerate() {
                let f = format!("pieces[{i}]");
                let square = sq(&format!("{f}.square"), p.get("square").unwrap_or(&Value::Null))?;
                let kind_name = p
                    .get("kind")
                    .and_then(Value::as_str)
                    .ok_or_else(|| field(&format!("{f}.kind"), "expected a kind name"))?;
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
                let piece = Piece::new(kind, side);
                pieces.push((square, piece));
                let inherited = base_piece(square, piece).then_some(base).flatten();
                // Combat state, where given (else as the base has it): hit points, spent
                // stacks, the divide aura held out of range.
                match p.get("hp").filter(|x| !x.is_null()) {
                    Some(hp) => {
                        let n = hp
                            .as_u64()
                            .filter(|&n| n <= 255)
                            .ok_or_else(|| field(&format!("{f}.hp"), "expected a whole number from 0 to 255"))?;
                        if n as u8 != v.kind(kind).stats.hp {
                            hp_list.push((square, n as u8));
                        }
                    }
                    None => hp_list.extend(inherited.iter().flat_map(|b| b.hp.iter().filter(|h| h.0 == square))),
                }
                match p.get("buffs") {
                    Some(b) => {
                        for s in b.get("sources").and_then(Value::as_array).into_iter().flatten() {
                            if s.get("spent").and_then(Value::as_bool) == Some(true) {
                                let at = format!("{f}.buffs.sources");
                                spent.push((square, sq(&at, s.get("source").unwrap_or(&Value::Null))?));
                            }
                        }
                    }
                    None => spent.extend(inherited.iter().flat_map(|b| b.spent.iter().filter(|x| x.0 == square))),
                }
                match p.get("guarded") {
                    Some(flag) => {
                        let flag =
                            flag.as_bool().ok_or_else(|| field(&format!("{f}.guarded"), "expected true or false"))?;
                        let plies = match p.get("outside_plies") {
                            None => 0,
                            Some(x) => x.as_u64().filter(|&n| n <= 255).ok_or_else(|| {
                                field(&format!("{f}.outside_plies"), "expected a whole number from 0 to 255")
                            })? as u8,
                        };
                        if flag {
                            guarded.push((square, plies));
                        }
                    }
                    None => guard.extend(inherited.iter().flat_map(|b| b.guard.iter().filter(|x| x.0 == square))),
                }
            }
            pieces.sort_by_key(|&(s, _)| s);
            // Pieces in range of a source hold the aura anyway: only the others are state.
            let in_range = |q: Square| crate::notation::consistency::in_guard_range(v, &pieces, q);
            guard.extend(guarded.into_iter().filter(|&(q, _)| !in_range(q)));
        }
    }
    let to_move = match obj.get("to_move") {
        None => base.map_or(Side::White, |b| b.to_move),
        Some(x) => {
            x.as_str().and_then(Side::parse).ok_or_else(|| field("to_move", "expected \"white\" or \"black\""))?
        }
    };
    let castling = match obj.get("castling") {
        None => base.map_or(0, |b| b.castling),
        Some(list) => {
            let mut bits = 0;
            for r in list.as_array().ok_or_else(|| field("castling", "expected a list of rights"))? {
                let r = r.as_str().ok_or_else(|| field("castling", "expected a list of rights (letters)"))?;
                let mut letters = r.chars();
                let i = match (letters.next(), letters.next()) {
                    (Some(c), None) => fen::castling_entry(v, &pieces, c).map_err(|e| field("castling", e))?,
                    _ => return Err(field("castling", format!("`{r}` is not a castling right of this variant"))),
                };
                bits |= 1 << i;
            }
            bits
        }
    };
    let squares = |f: &str, default: Option<Vec<Square>>| -> Result<Vec<Square>, SnapshotError> {
        match obj.get(f) {
            None => Ok(default.unwrap_or_default()),
            Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(list)) => list.iter().map(|x| sq(f, x)).collect(),
            Some(_) => Err(field(f, "expected a list of squares")),
        }
    };
    let en_passant = squares("en_passant", base.map(|b| b.en_passant.clone()))?;
    let ep_victim = match obj.get("en_passant_victim") {
        None => base.and_then(|b| b.ep_victim),
        Some(Value::Null) => None,
        Some(x) => Some(sq("en_passant_victim", x)?),
    };
    if !en_passant.is_empty() && ep_victim.is_none() {
        return Err(field("en_passant_victim", "en-passant squares need the square of the piece they capture"));
    }
    if en_passant.is_empty() && ep_victim.is_some() {
        return Err(field("en_passant_victim", "names a piece to take en passant, but `en_passant` lists no square"));
    }
    let num = |f: &str, default: u32| -> Result<u32, SnapshotError> {
        match obj.get(f) {
            None => Ok(default),
            Some(x) => x
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| field(f, format!("expected a whole number from 0 to {}", u32::MAX))),
        }
    };
    let kinds = |f: &str, what: &str, default: Option<[[u8; crate::piece::MAX_KINDS]; 2]>| {
        let mut counts = default.unwrap_or([[0u8; crate::piece::MAX_KINDS]; 2]);
        if let Some(gy) = obj.get(f) {
            counts = [[0u8; crate::piece::MAX_KINDS]; 2];
            if !gy.is_null() {
                for side in Side::BOTH {
                    let list = gy
                        .get(side.name())
                        .and_then(Value::as_array)
                        .ok_or_else(|| field(f, "expected {\"white\": [kinds], \"black\": [kinds]}"))?;
                    for k in list {
                        let name = k.as_str().unwrap_or("");
                        let id = v.kind_named(name).ok_or_else(|| field(f, format!("unknown kind `{name}`")))?;
                        let n = &mut counts[side.index()][id.index()];
                        *n = n.checked_add(1).ok_or_else(|| {
                            field(f, format!("more than {} {}s in {side}'s {what}", u8::MAX, v.kind(id).name))
                        })?;
                    }
                }
            }
        }
        Ok::<_, SnapshotError>(counts)
    };
    let graveyard = kinds("graveyard", "graveyard", base.map(|b| b.graveyard))?;
    let hands = kinds("hands", "hand", base.map(|b| b.hands))?;
    if v.hand().is_none() && hands.iter().flatten().any(|&n| n > 0) {
        return Err(field("hands", format!("{} has no hands (no [reserve])", v.name)));
    }
    let mut checks = base.map_or([0; 2], |b| b.checks);
    if let Some(c) = obj.get("checks") {
        let Some(count) = v.check_count() else {
            return Err(field("checks", format!("{} does not count checks", v.name)));
        };
        for side in Side::BOTH {
            checks[side.index()] =
                c.get(side.name()).and_then(Value::as_u64).filter(|&n| n <= count as u64).ok_or_else(|| {
                    field("checks", format!("expected {{\"white\": n, \"black\": n}}, the checks given, 0 to {count}"))
                })? as u8;
        }
    }
    let setup = Setup {
        pieces,
        to_move,
        castling,
        en_passant,
        ep_victim,
        halfmove: num("halfmove_clock", base.map_or(0, |b| b.halfmove))?,
        fullmove: num("fullmove", base.map_or(1, |b| b.fullmove))?.max(1),
        graveyard,
        frozen: squares("frozen", base.map(|b| b.frozen.clone()))?,
        waiting: squares("waiting", base.map(|b| b.waiting.clone()))?,
        hp: hp_list,
        spent,
        guard,
        hands,
        promoted: squares("promoted", base.map(|b| b.promoted.clone()))?,
        checks,
        gates: squares("gates", base.map(|b| b.gates.clone()))?,
    };
    Ok(setup)
}

/// A setup read from JSON, through the FEN's checks.
fn checked(v: &Variant, setup: Setup) -> Result<Setup, SnapshotError> {
    // The same checks as a FEN's (castling pieces present, en passant from a skip, frozen
    // and waiting pieces where the rules put them…), and the victim must be one that
    // could have skipped those squares.
    let mut checked = fen::parse(v, &fen::write(v, &setup)).map_err(|e| field("(position)", e.to_string()))?;
    if let Some(victim) = setup.ep_victim {
        let could = crate::notation::consistency::en_passant_victims(
            v,
            &setup.pieces,
            setup.to_move.opponent(),
            &checked.en_passant,
        );
        if !could.contains(&victim) {
            return Err(field(
                "en_passant_victim",
                format!(
                    "the piece on {} could not have skipped {} on the last move",
                    v.square_name(victim),
                    setup.en_passant.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>().join(" and ")
                ),
            ));
        }
        checked.ep_victim = Some(victim);
    }
    Ok(normalised(checked))
}

/// A setup in the order a game writes it: lists by square, frozen pieces white's first.
fn normalised(mut s: Setup) -> Setup {
    s.pieces.sort_by_key(|&(q, _)| q);
    s.en_passant.sort();
    let side_of = |q: Square| s.pieces.iter().find(|p| p.0 == q).map_or(0, |p| p.1.side.index());
    let mut frozen = s.frozen.clone();
    frozen.sort_by_key(|&q| side_of(q));
    s.frozen = frozen;
    s.waiting.sort();
    s.promoted.sort();
    s.gates.sort();
    s.hp.sort_by_key(|&(q, _)| q);
    s.spent.sort();
    s.guard.sort_by_key(|&(q, _)| q);
    s
}

/// The first field in which two positions differ, as a mismatch (`against` names the
/// second in the message).
fn compare(v: &Variant, described: &Setup, actual: &Setup, against: &'static str) -> Result<(), SnapshotError> {
    let a = position_json(v, described);
    let b = position_json(v, actual);
    for (k, x) in a.as_object().into_iter().flatten() {
        let y = &b[k];
        if x != y {
            return Err(SnapshotError::Mismatch {
                field: k.clone(),
                found: x.to_string(),
                actual: y.to_string(),
                against,
            });
        }
    }
    let names = |l: &[(Square, u8)]| l.iter().map(|&(q, n)| format!("{}:{n}", v.square_name(q))).collect::<Vec<_>>();
    let pairs = |l: &[(Square, Square)]| {
        l.iter().map(|&(p, q)| format!("{}:{}", v.square_name(p), v.square_name(q))).collect::<Vec<_>>()
    };
    let (d, r) = (normalised(described.clone()), normalised(actual.clone()));
    for (what, x, y) in [
        ("pieces (hp)", names(&d.hp), names(&r.hp)),
        ("pieces (buffs, spent)", pairs(&d.spent), pairs(&r.spent)),
        ("pieces (guarded out of range)", names(&d.guard), names(&r.guard)),
    ] {
        if x != y {
            return Err(SnapshotError::Mismatch {
                field: what.into(),
                found: format!("[{}]", x.join(", ")),
                actual: format!("[{}]", y.join(", ")),
                against,
            });
        }
    }
    Ok(())
}
