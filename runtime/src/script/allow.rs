//! The `allow` hook: a predicate on one action, the fast way for a rule to forbid moves.
//!
//! `filter_actions` receives every legal action as text and returns a new list, which
//! the core parses back: at every node of a perft or a search. `allow(game, action)` is
//! called once per action instead, and only for the actions its declaration
//! `allow_when` takes interest in (by the moving kind, promotion, capture, drop, the
//! target square); the others never enter Lua. The action is one table, made once and
//! refilled for each call from names made once (no text to format or parse; see
//! [`Marshal`]); one listing's calls share one lock, one deadline and one call into Lua,
//! which walks the listing's actions and calls `allow` for each.

use std::ffi::c_int;

use mlua::{Function, MultiValue, Value, ffi};

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

/// How the action reaches `allow`: the action is one table, made once and refilled for
/// each call from name lists made once (no text to format or parse).
///
/// One action (`allow_reason`) goes through a small Lua function of the host's, called
/// with whole numbers (square, kind and type indices). A listing's actions go to Lua in
/// one protected call instead ([`LuaHooks::allow_actions`]): C code fills the table and
/// calls `allow` for each action through Lua's C API. A call from Rust per action (mlua's
/// lock, error handler, stack checks and argument conversions around a protected call)
/// cost several times the call itself, and filling the table in Lua ran a dozen VM
/// instructions per action, each paying the count hook's per-instruction check.
pub(super) struct Marshal {
    /// One action: `(game, from, to, piece, promotion, capture, type)`.
    call: Function,
    /// The action table, refilled for each action of a listing.
    table: mlua::Table,
    squares: mlua::Table,
    kinds: mlua::Table,
    types: mlua::Table,
    allow: Function,
}

/// The host's side of one call: `S`, `K`, `T` list the square, kind and type names
/// (kind 0: none, so nil); a tail call, so errors and tracebacks show `allow` alone.
const MARSHAL: &str = r#"
local S, K, T, allow = ...
local t = {}
return function(game, from, to, piece, promotion, capture, kind)
  t.from, t.to, t.piece, t.promotion, t.capture, t.type = S[from], S[to], K[piece], K[promotion], K[capture], T[kind]
  return allow(game, t)
end
"#;

/// The stack of a listing's protected call: the arguments `exec_raw` pushes, then the
/// action table's keys (`from`, `to`, `piece`, `promotion`, `capture`, `type`), pushed
/// once per listing.
const GAME: c_int = 1;
const ALLOW: c_int = 2;
const TABLE: c_int = 3;
const SQUARES: c_int = 4;
const KINDS: c_int = 5;
const TYPES: c_int = 6;
const ACTION_KEYS: c_int = 7;
const KEY_NAMES: [&std::ffi::CStr; 6] = [c"from", c"to", c"piece", c"promotion", c"capture", c"type"];

fn type_index(kind: ActionKind) -> u8 {
    match kind {
        ActionKind::Normal => 1,
        ActionKind::Skip => 2,
        ActionKind::EnPassant => 3,
        ActionKind::Castle(_) => 4,
        ActionKind::Shot => 5,
        ActionKind::Drop => 6,
        ActionKind::Pass => 7,
    }
}

impl Marshal {
    pub(super) fn new(lua: &mlua::Lua, v: &Variant, allow: &Function) -> mlua::Result<Marshal> {
        let names = Names::new(lua, v)?;
        let squares = lua.create_sequence_from(names.squares)?;
        let kinds = lua.create_sequence_from(names.kinds)?;
        let types = lua.create_sequence_from(["move", "skip", "en_passant", "castle", "shot", "drop", "pass"])?;
        // Named like the prelude, whose frames messages skip for the rules' own line.
        let call = lua.load(MARSHAL).set_name("=prelude").call::<Function>((&squares, &kinds, &types, allow))?;
        let table = lua.create_table()?;
        Ok(Marshal { call, table, squares, kinds, types, allow: allow.clone() })
    }

    /// The arguments after `game` for `a`: square indices from 1, kinds from 1 (0: none).
    fn args(g: &HookGame<'_>, a: &Action) -> (u16, u16, u8, u8, u8, u8) {
        let drop = a.is_drop();
        let kind = |k: Option<crate::piece::KindId>| k.map_or(0, |k| k.0 + 1);
        let mover = if drop { a.promotion } else { g.piece(a.from).map(|p| p.kind) };
        (
            a.from.index() as u16 + 1,
            a.to.index() as u16 + 1,
            kind(mover),
            kind(a.promotes_to()),
            kind(g.captured(a).map(|p| p.kind)),
            type_index(a.kind),
        )
    }
}

/// The buffers of a listing's call of `allow` (kept with the state's lock).
#[derive(Default)]
pub(super) struct Scratch {
    /// The actions asked about, as the indices of [`Marshal::args`].
    args: Vec<(u16, u16, u8, u8, u8, u8)>,
    /// Where each is in the listing.
    at: Vec<u32>,
    /// Per action of the listing, whether `allow` refused it.
    refused: Vec<bool>,
}

/// What one call of `allow` answered.
enum Answer {
    Allow,
    Refuse(Option<String>),
}

impl LuaHooks {
    /// One call, the budget renewed; the view is what `game` acts on meanwhile.
    fn allow_call(&self, g: &mut HookGame<'_>, a: &Action, reason: bool) -> Result<Answer, ScriptError> {
        let marshal = self.marshal.as_ref().expect("made when allow is defined");
        let (from, to, piece, promotion, capture, kind) = Marshal::args(g, a);
        let args = (&self.game, from, to, piece, promotion, capture, kind);
        self.watch.renew();
        let ptr = (g as *mut HookGame<'_>).cast::<HookGame<'static>>();
        self.current.0.store(ptr, std::sync::atomic::Ordering::Release);
        let r = if reason {
            marshal.call.call::<MultiValue>(args).map(|mut m| {
                let first = m.pop_front().unwrap_or(Value::Nil);
                (first, m.pop_front())
            })
        } else {
            marshal.call.call::<Value>(args).map(|v| (v, None))
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
        if actions.is_empty() {
            return Ok(());
        }
        let interest = self.interest.as_ref();
        let marshal = self.marshal.as_ref().expect("made when allow is defined");
        let mut guard = self.serial.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let scratch = &mut *guard;
        // The actions asked about, as indices, and where each is in `actions`.
        scratch.args.clear();
        scratch.at.clear();
        for (i, a) in actions.iter().enumerate() {
            if interest.is_none_or(|w| w.wants(g, a)) {
                scratch.args.push(Marshal::args(g, a));
                scratch.at.push(i as u32);
            }
        }
        if scratch.args.is_empty() {
            return Ok(());
        }
        scratch.refused.clear();
        scratch.refused.resize(actions.len(), false);
        self.budget.apply(&self.lua, g.var_bytes());
        self.watch.start();
        let (list, at, refused) = (&scratch.args, &scratch.at, &mut scratch.refused);
        let mut bad: Option<usize> = None;
        let mut any = false;
        let watch = &self.watch;
        let ptr = (g as *mut HookGame<'_>).cast::<HookGame<'static>>();
        self.current.0.store(ptr, std::sync::atomic::Ordering::Release);
        let m = marshal;
        let args = (&self.game, &m.allow, &m.table, &m.squares, &m.kinds, &m.types);
        // SAFETY: C API calls on the stack `exec_raw` gives (its arguments at 1..6, room
        // checked for the keys and a call's slots). An error of `allow` goes to
        // `exec_raw`'s protected call, over frames that own nothing to drop (references
        // and integers; `refused` was sized before).
        let r = unsafe {
            self.lua.exec_raw::<Value>(args, |l| {
                ffi::luaL_checkstack(l, 16, std::ptr::null());
                for name in KEY_NAMES {
                    ffi::lua_pushstring(l, name.as_ptr());
                }
                let top = ffi::lua_gettop(l);
                // Raw sets of the table (it has no metatable), the keys on the stack.
                for (k, &(from, to, piece, promotion, capture, kind)) in list.iter().enumerate() {
                    let field = |key: c_int, value: c_int, list: c_int| {
                        ffi::lua_pushvalue(l, ACTION_KEYS + key);
                        if value == 0 {
                            ffi::lua_pushnil(l);
                        } else {
                            ffi::lua_rawgeti(l, list, value as i64);
                        }
                        ffi::lua_rawset(l, TABLE);
                    };
                    field(0, from as c_int, SQUARES);
                    field(1, to as c_int, SQUARES);
                    field(2, piece as c_int, KINDS);
                    field(3, promotion as c_int, KINDS);
                    field(4, capture as c_int, KINDS);
                    field(5, kind as c_int, TYPES);
                    watch.renew();
                    ffi::lua_pushvalue(l, ALLOW);
                    ffi::lua_pushvalue(l, GAME);
                    ffi::lua_pushvalue(l, TABLE);
                    // Unprotected: an error goes to `exec_raw`'s protected call, whose
                    // message handler (mlua's) adds the traceback at the error.
                    ffi::lua_call(l, 2, 1);
                    match ffi::lua_type(l, -1) {
                        ffi::LUA_TNIL => {}
                        ffi::LUA_TBOOLEAN if ffi::lua_toboolean(l, -1) != 0 => {}
                        ffi::LUA_TBOOLEAN => {
                            refused[at[k] as usize] = true;
                            any = true;
                        }
                        _ => {
                            // The wrong answer is the result.
                            bad = Some(k);
                            ffi::lua_replace(l, 1);
                            ffi::lua_settop(l, 1);
                            return;
                        }
                    }
                    ffi::lua_settop(l, top);
                }
                ffi::lua_settop(l, 0);
                ffi::lua_pushnil(l);
            })
        };
        self.current.0.store(std::ptr::null_mut(), std::sync::atomic::Ordering::Release);
        let value = r.map_err(|e| self.failure(Hook::Allow, &e, g.var_bytes()))?;
        if bad.is_some() {
            return Err(self.wrong_type(Hook::Allow, "nothing, true, or false and a reason", &value));
        }
        if any {
            let mut i = 0;
            actions.retain(|_| {
                i += 1;
                !refused[i - 1]
            });
        }
        Ok(())
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
