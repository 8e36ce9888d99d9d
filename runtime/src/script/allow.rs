//! The `allow` hook: a predicate on one action, the fast way for a rule to forbid moves.
//!
//! `filter_actions` receives every legal action as text and returns a new list, which
//! the core parses back: at every node of a perft or a search. `allow(game, action)` is
//! called once per action instead, and only for the actions its declaration
//! `allow_when` takes interest in (by the moving kind, promotion, capture, drop, the
//! target square); the others never enter Lua. The action is one table, made once and
//! refilled for each call from names made once (no text to format or parse), and one
//! listing's calls share one lock, one deadline and one view of the game.

use mlua::{Function, LuaString, MultiValue, Table, Value};

use super::LuaHooks;
use super::api::Names;
use crate::action::{Action, ActionKind};
use crate::error::Problem;
use crate::hooks::{Hook, HookGame, ScriptError};
use crate::variant::Variant;

/// Which actions `allow` is called for (`allow_when` in rules.lua): those that match
/// every key given. No declaration: every action.
#[derive(Debug, Default)]
pub(super) struct Interest {
    /// The moving kind (a drop's kind), as a bit per kind.
    kinds: Option<u32>,
    promotion: Option<bool>,
    capture: Option<bool>,
    drop: Option<bool>,
    /// The target square, per side (regions may differ by side).
    to: Option<[Vec<bool>; 2]>,
}

/// The keys `allow_when` may have.
const KEYS: [&str; 5] = ["kinds", "promotion", "capture", "drop", "to"];

impl Interest {
    /// Reads `allow_when` (a table, or nil for every action). `label` names the script.
    pub(super) fn read(value: Value, v: &Variant, label: &str) -> Result<Option<Interest>, Problem> {
        let bad = |message: String| Problem { file: label.to_string(), line: 0, col: 0, message };
        let t = match value {
            Value::Nil => return Ok(None),
            Value::Table(t) => t,
            other => return Err(bad(format!("`allow_when` must be a table, not a {}", other.type_name()))),
        };
        for kv in t.pairs::<Value, Value>() {
            let (k, _) = kv.map_err(|e| bad(e.to_string()))?;
            match k {
                Value::String(s) if KEYS.contains(&&*s.to_string_lossy()) => {}
                other => {
                    let name = other.to_string().unwrap_or_else(|_| other.type_name().to_string());
                    return Err(bad(format!("`allow_when` has no key `{name}` (it has {})", KEYS.join(", "))));
                }
            }
        }
        let flag = |key: &str| -> Result<Option<bool>, Problem> {
            match t.raw_get::<Value>(key).map_err(|e| bad(e.to_string()))? {
                Value::Nil => Ok(None),
                Value::Boolean(b) => Ok(Some(b)),
                other => Err(bad(format!("`allow_when.{key}` must be true or false, not a {}", other.type_name()))),
            }
        };
        let names = |key: &str| -> Result<Option<Vec<String>>, Problem> {
            match t.raw_get::<Value>(key).map_err(|e| bad(e.to_string()))? {
                Value::Nil => Ok(None),
                Value::String(s) => Ok(Some(vec![s.to_string_lossy()])),
                Value::Table(list) => {
                    let mut out = Vec::new();
                    for x in list.sequence_values::<Value>() {
                        match x.map_err(|e| bad(e.to_string()))? {
                            Value::String(s) => out.push(s.to_string_lossy()),
                            other => {
                                return Err(bad(format!(
                                    "`allow_when.{key}` lists names, not a {}",
                                    other.type_name()
                                )));
                            }
                        }
                    }
                    Ok(Some(out))
                }
                other => Err(bad(format!("`allow_when.{key}` must be a name or a list, not a {}", other.type_name()))),
            }
        };
        let mut interest = Interest {
            promotion: flag("promotion")?,
            capture: flag("capture")?,
            drop: flag("drop")?,
            ..Interest::default()
        };
        if let Some(list) = names("kinds")? {
            let mut mask = 0u32;
            for k in list {
                let id = v.kind_named(&k).ok_or_else(|| {
                    let all: Vec<&str> = v.kinds.iter().map(|k| k.name.as_str()).collect();
                    bad(format!("`allow_when.kinds`: `{k}` is not a piece kind of this variant ({})", all.join(", ")))
                })?;
                mask |= 1 << id.index();
            }
            interest.kinds = Some(mask);
        }
        if let Some(list) = names("to")? {
            // Each name is a region (its squares for each side) or a square.
            let mut to = [vec![false; v.geometry.len()], vec![false; v.geometry.len()]];
            for name in list {
                if let Some(r) = v.regions.iter().find(|r| r.name == name) {
                    for (set, squares) in to.iter_mut().zip(&r.squares) {
                        for sq in squares {
                            set[sq.index()] = true;
                        }
                    }
                } else if let Ok(sq) = v.geometry.parse(&name) {
                    to[0][sq.index()] = true;
                    to[1][sq.index()] = true;
                } else {
                    return Err(bad(format!(
                        "`allow_when.to`: `{name}` is neither a region of variant.toml nor a square of the board"
                    )));
                }
            }
            interest.to = Some(to);
        }
        Ok(Some(interest))
    }

    /// Whether `allow` is to be called for `a` (in the position `g`).
    fn wants(&self, g: &HookGame<'_>, a: &Action) -> bool {
        let drop = a.is_drop();
        if self.drop.is_some_and(|d| d != drop) || self.promotion.is_some_and(|p| p != (!drop && a.promotion.is_some()))
        {
            return false;
        }
        if let Some(to) = &self.to
            && !to[g.to_move().index()][a.to.index()]
        {
            return false;
        }
        if let Some(mask) = self.kinds {
            let kind = if drop { a.promotion } else { g.piece(a.from).map(|p| p.kind) };
            if kind.is_none_or(|k| mask & (1 << k.index()) == 0) {
                return false;
            }
        }
        self.capture.is_none_or(|c| c == g.captured(a).is_some())
    }
}

/// The action table that `allow` receives, made once and refilled for each call.
pub(super) struct Marshal {
    table: Table,
    names: Names,
    /// The keys, as Lua strings: from, to, piece, promotion, capture, type.
    keys: [LuaString; 6],
    /// The values of `type`, by [`type_index`].
    types: [LuaString; 6],
}

fn type_index(kind: ActionKind) -> usize {
    match kind {
        ActionKind::Normal => 0,
        ActionKind::Skip => 1,
        ActionKind::EnPassant => 2,
        ActionKind::Castle(_) => 3,
        ActionKind::Shot => 4,
        ActionKind::Drop => 5,
    }
}

impl Marshal {
    pub(super) fn new(lua: &mlua::Lua, v: &Variant) -> mlua::Result<Marshal> {
        let s = |t: &str| lua.create_string(t);
        Ok(Marshal {
            table: lua.create_table_with_capacity(0, 6)?,
            names: Names::new(lua, v)?,
            keys: [s("from")?, s("to")?, s("piece")?, s("promotion")?, s("capture")?, s("type")?],
            types: [s("move")?, s("skip")?, s("en_passant")?, s("castle")?, s("shot")?, s("drop")?],
        })
    }

    /// Fills the table with `a` (every key, so nothing of the last action stays).
    fn fill(&self, g: &HookGame<'_>, a: &Action) -> mlua::Result<&Table> {
        let n = &self.names;
        let t = &self.table;
        let drop = a.is_drop();
        let mover = if drop { a.promotion } else { g.piece(a.from).map(|p| p.kind) };
        let kind =
            |k: Option<crate::piece::KindId>| k.map_or(Value::Nil, |k| Value::String(n.kinds[k.index()].clone()));
        t.raw_set(&self.keys[0], &n.squares[a.from.index()])?;
        t.raw_set(&self.keys[1], &n.squares[a.to.index()])?;
        t.raw_set(&self.keys[2], kind(mover))?;
        t.raw_set(&self.keys[3], kind(if drop { None } else { a.promotion }))?;
        t.raw_set(&self.keys[4], kind(g.captured(a).map(|p| p.kind)))?;
        t.raw_set(&self.keys[5], &self.types[type_index(a.kind)])?;
        Ok(t)
    }
}

/// What one call of `allow` answered.
enum Answer {
    Allow,
    Refuse(Option<String>),
}

impl LuaHooks {
    fn allow_fn(&self) -> &Function {
        self.func(Hook::Allow)
    }

    /// One call, the budget renewed; the view is what `game` acts on meanwhile.
    fn allow_call(&self, g: &mut HookGame<'_>, a: &Action, reason: bool) -> Result<Answer, ScriptError> {
        let marshal = self.marshal.as_ref().expect("made when allow is defined");
        let table = marshal.fill(g, a).map_err(|e| self.failure(Hook::Allow, &e, g.var_bytes()))?;
        self.watch.renew();
        let ptr = (g as *mut HookGame<'_>).cast::<HookGame<'static>>();
        self.current.0.store(ptr, std::sync::atomic::Ordering::Release);
        let r = if reason {
            self.allow_fn().call::<MultiValue>((&self.game, table)).map(|mut m| {
                let first = m.pop_front().unwrap_or(Value::Nil);
                (first, m.pop_front())
            })
        } else {
            self.allow_fn().call::<Value>((&self.game, table)).map(|v| (v, None))
        };
        self.current.0.store(std::ptr::null_mut(), std::sync::atomic::Ordering::Release);
        let (first, second) = r.map_err(|e| self.failure(Hook::Allow, &e, g.var_bytes()))?;
        match first {
            Value::Nil | Value::Boolean(true) => Ok(Answer::Allow),
            Value::Boolean(false) => Ok(Answer::Refuse(match second {
                Some(Value::String(s)) => Some(s.to_string_lossy()),
                _ => None,
            })),
            other => Err(self.wrong_type(Hook::Allow, "nothing, true, or false and a reason", &other)),
        }
    }

    /// Runs `f` with the state held for this thread and the limits started (one
    /// deadline for the whole listing; each call renews the instruction budget).
    fn allow_session<R>(&self, vars: usize, f: impl FnOnce() -> R) -> R {
        let _serial = self.serial.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.budget.apply(&self.lua, vars);
        self.watch.start();
        f()
    }

    pub(super) fn allow_actions(&self, g: &mut HookGame<'_>, actions: &mut Vec<Action>) -> Result<(), ScriptError> {
        let interest = self.interest.as_ref();
        if actions.is_empty() || interest.is_some_and(|i| !actions.iter().any(|a| i.wants(g, a))) {
            return Ok(());
        }
        self.allow_session(g.var_bytes(), || {
            let mut failure = None;
            actions.retain(|a| {
                if failure.is_some() || interest.is_some_and(|i| !i.wants(g, a)) {
                    return true;
                }
                match self.allow_call(g, a, false) {
                    Ok(Answer::Allow) => true,
                    Ok(Answer::Refuse(_)) => false,
                    Err(e) => {
                        failure = Some(e);
                        true
                    }
                }
            });
            failure.map_or(Ok(()), Err)
        })
    }

    pub(super) fn allow_reason(&self, g: &mut HookGame<'_>, a: &Action) -> Result<Option<String>, ScriptError> {
        if self.interest.as_ref().is_some_and(|i| !i.wants(g, a)) {
            return Ok(None);
        }
        self.allow_session(g.var_bytes(), || match self.allow_call(g, a, true)? {
            Answer::Allow => Ok(None),
            Answer::Refuse(why) => Ok(Some(why.unwrap_or_else(|| "a rule refuses it (allow)".to_string()))),
        })
    }
}
