//! What the page sees of a game, as JSON, read from the runtime alone (no rules here):
//! the board square by square, side to move, check, outcome, last move, hit points
//! where the variant has them, scores where it scores, the legal pass (with `[rules]
//! pass`; not among the targets), the legal targets of a square, and events with their text from [`varia::Event::describe`] (the terminal's words).

use serde_json::{Value, json};
use varia::{Action, Event, Game, Hook, Square, Variant};

use crate::error::Error;

/// Events as the page shows them: each with its text and its data.
pub fn events_json(v: &Variant, events: &[Event]) -> Value {
    Value::Array(events.iter().map(|e| json!({ "text": e.describe(v), "data": e.to_json(v) })).collect())
}

fn piece_json(game: &Game, sq: Square) -> Value {
    let v = game.variant();
    let Some(p) = game.piece_at(sq) else { return Value::Null };
    let kind = v.kind(p.kind);
    let mut o =
        json!({ "kind": kind.name, "letter": v.letter(p).to_string(), "side": p.side.name(), "royal": kind.royal });
    if let Some(st) = game.piece_state(sq) {
        let obj = o.as_object_mut().expect("built as an object");
        if let (Some(hp), Some(max)) = (st.hp, st.max_hp) {
            obj.insert("hp".into(), json!(hp));
            obj.insert("max_hp".into(), json!(max));
            obj.insert("stacks".into(), json!(st.stacks));
            obj.insert("multiplier".into(), json!(st.multiplier));
            obj.insert("guarded".into(), json!(st.guarded));
        }
        if st.frozen {
            obj.insert("frozen".into(), json!(true));
        }
        if st.waiting {
            obj.insert("waiting".into(), json!(true));
        }
    }
    o
}

/// The legal actions, or the rules' error if a hook failed while listing them.
pub fn legal(game: &Game) -> Result<Vec<Action>, Error> {
    if game.outcome().is_some() {
        return Ok(Vec::new());
    }
    game.try_legal_actions().map_err(|e| Error::Rules { message: e.to_string() })
}

/// The whole state of a game.
pub fn state_json(id: &str, game: &Game, rules_version: u64, note: Option<&str>) -> Result<Value, Error> {
    let v = game.variant();
    let g = v.geometry;
    let actions = legal(game)?;
    // Ranks from the top (the last rank) down, files left to right: as the page draws them.
    let mut squares = Vec::with_capacity(g.len());
    for rank in (0..g.ranks).rev() {
        for file in 0..g.files {
            let sq = g.at(file.into(), rank.into()).expect("inside the board");
            squares.push(json!({
                "name": v.square_name(sq),
                "file": file,
                "rank": rank,
                "light": g.is_light(sq),
                "piece": piece_json(game, sq),
            }));
        }
    }
    // A pass (`[rules] pass`) is the Pass button's, not a move of the piece it is written
    // on: that piece is movable only for its real moves.
    let pass = actions.iter().find(|a| a.is_pass()).map(|a| game.action_text(a));
    let mut movable: Vec<String> = actions.iter().filter(|a| !a.is_pass()).map(|a| v.square_name(a.from)).collect();
    movable.dedup();
    movable.sort();
    movable.dedup();
    let to_move = game.to_move();
    // The royal pieces of the side to move, while one of them is attacked.
    let check_squares: Vec<String> = if game.in_check() && game.outcome().is_none() {
        game.pieces()
            .into_iter()
            .filter(|(_, p)| p.side == to_move && v.kind(p.kind).royal)
            .map(|(s, _)| v.square_name(s))
            .collect()
    } else {
        Vec::new()
    };
    let last_move = game.history().last().map(|a| {
        json!({
            "from": v.square_name(a.from),
            "to": v.square_name(a.to),
            "text": game.history_text().last().cloned().unwrap_or_default(),
        })
    });
    let mut o = json!({
        "id": id,
        "variant": v.name,
        "title": v.title,
        "files": g.files,
        "ranks": g.ranks,
        "squares": squares,
        "to_move": to_move.name(),
        "in_check": game.in_check(),
        "check_rule": v.rules.check,
        "check_squares": check_squares,
        "outcome": game.outcome().map(|o| {
            let mut j = o.to_json();
            j["text"] = json!(o.describe());
            j
        }),
        "last_move": last_move,
        "ply": game.ply(),
        "moves": game.history_text(),
        "san": game.history_san(),
        "fen": game.fen(),
        "movable": movable,
        "pass_rule": v.rules.pass,
        "pass": pass,
        "events": events_json(v, game.last_events()),
        "combat": v.combat.is_some(),
        "rules_version": rules_version,
        "rules_note": note,
    });
    let obj = o.as_object_mut().expect("built as an object");
    if v.hooks.as_ref().is_some_and(|h| h.defines(Hook::Score)) {
        let [w, b] = game.scores();
        obj.insert("scores".into(), json!({ "white": w, "black": b }));
    }
    if let Some(t) = game.table_scores_json() {
        obj.insert("score_tables".into(), t);
    }
    if v.kinds.iter().any(|k| k.promotion.as_ref().is_some_and(|p| p.from_graveyard)) {
        obj.insert("graveyards".into(), graveyards_json(game));
    }
    Ok(o)
}

/// Each side's graveyard (its pieces captured, which it promotes to where the variant
/// promotes from the graveyard): `{"white": [{kind, count}], "black": […]}`, in the
/// variant's order of kinds.
fn graveyards_json(game: &Game) -> Value {
    let v = game.variant();
    let setup = game.setup();
    let side = |s: varia::Side| -> Vec<Value> {
        v.kinds
            .iter()
            .enumerate()
            .filter_map(|(k, kind)| {
                let n = setup.graveyard[s.index()].get(k).copied().unwrap_or(0);
                (n > 0).then(|| json!({ "kind": kind.name, "count": n }))
            })
            .collect()
    };
    json!({ "white": side(varia::Side::White), "black": side(varia::Side::Black) })
}

/// The legal targets of the piece on `from`: each target square with the moves that
/// reach it (several for a promotion or a landing choice, each then with its `landing`
/// square), in move text.
pub fn targets_json(game: &Game, from: &str) -> Result<Value, Error> {
    let v = game.variant();
    let g = v.geometry;
    let sq = g.parse(from).map_err(|_| Error::BadSquare {
        text: from.chars().take(8).collect(),
        files: g.files.into(),
        ranks: g.ranks.into(),
    })?;
    let mut targets: Vec<(Square, Vec<Value>)> = Vec::new();
    for a in legal(game)?.into_iter().filter(|a| a.from == sq && !a.is_pass()) {
        let text = game.action_text(&a);
        let label = match (a.promotion, a.landing) {
            (Some(k), _) => v.kind(k).name.clone(),
            (None, Some(l)) => format!("land on {}", v.square_name(l)),
            (None, None) => text.clone(),
        };
        let mut choice = json!({ "move": text, "label": label, "capture": game.is_capture(&a) });
        if let Some(l) = a.landing {
            choice["landing"] = json!(v.square_name(l));
        }
        if a.kind == varia::ActionKind::Shot {
            // A ranged capture: the target is removed, the shooter stays.
            choice["shot"] = json!(true);
        }
        match targets.iter_mut().find(|(t, _)| *t == a.to) {
            Some((_, list)) => list.push(choice),
            None => targets.push((a.to, vec![choice])),
        }
    }
    let list: Vec<Value> =
        targets.into_iter().map(|(t, moves)| json!({ "to": v.square_name(t), "moves": moves })).collect();
    Ok(json!({ "from": v.square_name(sq), "targets": list }))
}
