//! The `allow` hook: a predicate on one action, the fast way for a rule to forbid moves.
//!
//! `filter_actions` receives every legal action as text and returns a new list, which
//! the core parses back: at every node of a perft or a search. `allow(game, action)` is
//! called once per action instead, and only for the actions its declaration
//! `allow_when` takes interest in (by the moving kind, promotion, capture, drop, the
//! target square); the others never enter Lua. The action is a view of one table, made
//! once, whose fields are set from names made once and only where they changed since the
//! last action (no text to format or parse; see [`Marshal`]); one listing's calls share
//! one lock, one deadline and one call into Lua, which walks the listing's actions and
//! calls `allow` for each.

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

/// How the action reaches `allow`: the action is a view, made once and refilled for each
/// call from name lists made once (no text to format or parse).
///
/// A listing's actions go to Lua in one protected call ([`LuaHooks::allow_actions`]): C
/// code fills the table and calls `allow` for each action through Lua's C API (a call
/// from Rust per action, with mlua's lock, error handler and conversions, cost several
/// times the call itself). One action (`allow_reason`) goes through a small Lua function
/// of the host's, called with whole numbers (square, kind and type indices).
///
/// The script receives a *view* of the action: an empty table whose metatable reads
/// through to the host's table of the fields (`__index`), which no script can reach (the
/// metatable is protected, and the rules have no `debug` library). So the host sets only
/// the fields that differ from the previous action's (most often `to` alone: the actions
/// of one piece come together), and no write of a script can leave a stale field behind.
/// A script that writes into its view makes it a plain table for the rest of the call
/// (the fields copied in, then the write: Lua's own semantics, `nil` included); before
/// the next call the host sees that the view is no longer empty and hands out a fresh one.
pub(super) struct Marshal {
    /// One action: `(game, from, to, piece, promotion, capture, type)`.
    call: Function,
    /// The listing's current view, at index 1 (a fresh one replaces a written one).
    holder: mlua::Table,
    /// The fields the listing's views read through to.
    back: mlua::Table,
    /// Makes a fresh view of `back`.
    new_view: Function,
    squares: mlua::Table,
    kinds: mlua::Table,
    types: mlua::Table,
    allow: Function,
}

/// The host's side of one call: `S`, `K`, `T` list the square, kind and type names
/// (kind 0: none, so nil); `back` is this path's own field table and `view` makes a view
/// of it. A tail call, so errors and tracebacks show `allow` alone.
const MARSHAL: &str = r#"
local S, K, T, allow, back, view = ...
return function(game, from, to, piece, promotion, capture, kind)
  back.from, back.to, back.piece, back.promotion, back.capture, back.type =
    S[from], S[to], K[piece], K[promotion], K[capture], T[kind]
  return allow(game, view())
end
"#;

/// The stack of a listing's protected call: the arguments `exec_raw` pushes, then the
/// action table's keys (`from`, `to`, `piece`, `promotion`, `capture`, `type`), pushed
/// once per listing, then the current view.
const GAME: c_int = 1;
const ALLOW: c_int = 2;
const HOLDER: c_int = 3;
const BACK: c_int = 4;
const SQUARES: c_int = 5;
const KINDS: c_int = 6;
const TYPES: c_int = 7;
const NEW_VIEW: c_int = 8;
const ACTION_KEYS: c_int = 9;
const VIEW: c_int = ACTION_KEYS + KEY_NAMES.len() as c_int;
const KEY_NAMES: [&std::ffi::CStr; 6] = [c"from", c"to", c"piece", c"promotion", c"capture", c"type"];
/// Which name list each field's index reads (in the order of [`KEY_NAMES`]).
const FIELD_LISTS: [c_int; 6] = [SQUARES, SQUARES, KINDS, KINDS, KINDS, TYPES];
/// A field's value not known to be in the table.
const UNKNOWN: i32 = -1;

/// The upvalues of the view's metamethods: the field table, the plain metatable.
const UP_BACK: c_int = 1;
const UP_PLAIN: c_int = 2;

/// Makes the view `idx` (a table) a plain table: the fields it lacks copied in from the
/// table it reads through to, and the metatable without `__index`, `__newindex` and
/// `__pairs`. Nothing is raised but a memory error.
///
/// SAFETY: inside a C function with the upvalues [`UP_BACK`], [`UP_PLAIN`]; `idx` is absolute.
unsafe fn materialize(l: *mut ffi::lua_State, idx: c_int) {
    unsafe {
        for key in KEY_NAMES {
            ffi::lua_pushstring(l, key.as_ptr());
            ffi::lua_pushvalue(l, -1);
            if ffi::lua_rawget(l, idx) == ffi::LUA_TNIL {
                ffi::lua_pop(l, 1);
                ffi::lua_pushvalue(l, -1);
                if ffi::lua_rawget(l, ffi::lua_upvalueindex(UP_BACK)) != ffi::LUA_TNIL {
                    ffi::lua_rawset(l, idx);
                    continue;
                }
            }
            ffi::lua_pop(l, 2);
        }
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(UP_PLAIN));
        ffi::lua_setmetatable(l, idx);
    }
}

/// Raises `message` at the calling script's line (as Lua's own errors are).
///
/// SAFETY: inside a C function called from Lua; nothing on the caller's frame to drop.
unsafe fn raise(l: *mut ffi::lua_State, message: &std::ffi::CStr) -> ! {
    unsafe {
        ffi::luaL_where(l, 1);
        ffi::lua_pushstring(l, message.as_ptr());
        ffi::lua_concat(l, 2);
        ffi::lua_error(l)
    }
}

/// The view's `__newindex` (`view[k] = v` for a `k` the view lacks): the view becomes a
/// plain table, then takes the write.
unsafe extern "C-unwind" fn view_newindex(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        ffi::lua_settop(l, 3);
        if ffi::lua_type(l, 1) != ffi::LUA_TTABLE {
            raise(l, c"bad argument #1 to '__newindex' (table expected)");
        }
        match ffi::lua_type(l, 2) {
            ffi::LUA_TNIL => raise(l, c"index is nil"),
            ffi::LUA_TNUMBER if ffi::lua_isinteger(l, 2) == 0 && ffi::lua_tonumber(l, 2).is_nan() => {
                raise(l, c"index is NaN")
            }
            _ => {}
        }
        materialize(l, 1);
        ffi::lua_rawset(l, 1);
        0
    }
}

/// Lua's `next`, for a materialized view's `pairs`.
unsafe extern "C-unwind" fn view_next(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        ffi::lua_settop(l, 2);
        if ffi::lua_type(l, 1) != ffi::LUA_TTABLE {
            raise(l, c"bad argument #1 to 'next' (table expected)");
        }
        if ffi::lua_next(l, 1) != 0 {
            2
        } else {
            ffi::lua_pushnil(l);
            1
        }
    }
}

/// The view's `__pairs`: the view becomes a plain table, then is walked like one.
unsafe extern "C-unwind" fn view_pairs(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        ffi::lua_settop(l, 1);
        if ffi::lua_type(l, 1) != ffi::LUA_TTABLE {
            raise(l, c"bad argument #1 to '__pairs' (table expected)");
        }
        materialize(l, 1);
        ffi::lua_pushcfunction(l, view_next);
        ffi::lua_pushvalue(l, 1);
        ffi::lua_pushnil(l);
        3
    }
}

/// A fresh view (upvalue 1: the views' metatable).
unsafe extern "C-unwind" fn view_new(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        ffi::lua_createtable(l, 0, 0);
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(1));
        ffi::lua_setmetatable(l, -2);
        1
    }
}

/// The function that makes views of `back` (see [`Marshal`]).
fn view_maker(lua: &mlua::Lua, back: &mlua::Table) -> mlua::Result<Function> {
    // SAFETY: C API calls on the stack `exec_raw` gives (`back` at 1), room checked
    // first; writes into new tables without metatables, so only a memory error may be
    // raised, over frames that own nothing. Leaves the function alone on the stack.
    unsafe {
        lua.exec_raw::<Function>(back, |l| {
            ffi::luaL_checkstack(l, 8, std::ptr::null());
            let set = |t: c_int, name: &std::ffi::CStr| ffi::lua_setfield(l, t, name.as_ptr());
            // 2: the metatable of a materialized view.
            ffi::lua_createtable(l, 0, 1);
            ffi::lua_pushstring(l, c"protected".as_ptr());
            set(2, c"__metatable");
            // 3: the views' metatable.
            ffi::lua_createtable(l, 0, 4);
            ffi::lua_pushstring(l, c"protected".as_ptr());
            set(3, c"__metatable");
            ffi::lua_pushvalue(l, 1);
            set(3, c"__index");
            for (name, f) in [(c"__newindex", view_newindex as ffi::lua_CFunction), (c"__pairs", view_pairs)] {
                ffi::lua_pushvalue(l, 1);
                ffi::lua_pushvalue(l, 2);
                ffi::lua_pushcclosure(l, f, 2);
                set(3, name);
            }
            ffi::lua_pushcclosure(l, view_new, 1);
            ffi::lua_replace(l, 1);
            ffi::lua_settop(l, 1);
        })
    }
}

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
        let one = lua.create_table()?;
        let one_view = view_maker(lua, &one)?;
        // Named like the prelude, whose frames messages skip for the rules' own line.
        let call = lua
            .load(MARSHAL)
            .set_name("=prelude")
            .call::<Function>((&squares, &kinds, &types, allow, &one, &one_view))?;
        let back = lua.create_table()?;
        let new_view = view_maker(lua, &back)?;
        let holder = lua.create_table()?;
        holder.raw_set(1, new_view.call::<mlua::Table>(())?)?;
        Ok(Marshal { call, holder, back, new_view, squares, kinds, types, allow: allow.clone() })
    }

    /// The arguments after `game` for `a`: square indices from 1, kinds from 1 (0: none).
    fn args(g: &HookGame<'_>, a: &Action) -> [u16; 6] {
        let drop = a.is_drop();
        let kind = |k: Option<crate::piece::KindId>| k.map_or(0, |k| k.0 as u16 + 1);
        let mover = if drop { a.promotion } else { g.piece(a.from).map(|p| p.kind) };
        [
            a.from.index() as u16 + 1,
            a.to.index() as u16 + 1,
            kind(mover),
            kind(a.promotes_to()),
            kind(g.captured(a).map(|p| p.kind)),
            u16::from(type_index(a.kind)),
        ]
    }
}

/// The buffers of a listing's call of `allow` (kept with the state's lock).
#[derive(Default)]
pub(super) struct Scratch {
    /// The actions asked about, as the indices of [`Marshal::args`].
    args: Vec<[u16; 6]>,
    /// Where each is in the listing.
    at: Vec<u32>,
    /// Per action of the listing, whether `allow` refused it.
    refused: Vec<bool>,
    /// The field values the listings' table holds, when known (a listing that fails
    /// leaves them unknown: each is set again).
    known: Option<[i32; 6]>,
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
        let [from, to, piece, promotion, capture, kind] = Marshal::args(g, a);
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
        let mut known = scratch.known.take().unwrap_or([UNKNOWN; 6]);
        let known_after = &mut scratch.known;
        let mut bad: Option<usize> = None;
        let mut any = false;
        let watch = &self.watch;
        let ptr = (g as *mut HookGame<'_>).cast::<HookGame<'static>>();
        self.current.0.store(ptr, std::sync::atomic::Ordering::Release);
        let m = marshal;
        let args = (&self.game, &m.allow, &m.holder, &m.back, &m.squares, &m.kinds, &m.types, &m.new_view);
        // SAFETY: C API calls on the stack `exec_raw` gives (its arguments at 1..8, room
        // checked for the keys, the view and a call's slots). An error of `allow` goes to
        // `exec_raw`'s protected call, over frames that own nothing to drop (references
        // and integers; `refused` was sized before); `known` is handed back only after
        // the last call returned.
        let r = unsafe {
            self.lua.exec_raw::<Value>(args, |l| {
                ffi::luaL_checkstack(l, 16, std::ptr::null());
                for name in KEY_NAMES {
                    ffi::lua_pushstring(l, name.as_ptr());
                }
                ffi::lua_rawgeti(l, HOLDER, 1);
                let top = ffi::lua_gettop(l);
                debug_assert_eq!(top, VIEW);
                for (k, fields) in list.iter().enumerate() {
                    // Only the fields that differ from the table's (raw sets: no script
                    // reaches it, and it has no metatable).
                    for (i, &value) in fields.iter().enumerate() {
                        let value = i32::from(value);
                        if known[i] == value {
                            continue;
                        }
                        known[i] = UNKNOWN;
                        ffi::lua_pushvalue(l, ACTION_KEYS + i as c_int);
                        if value == 0 {
                            ffi::lua_pushnil(l);
                        } else {
                            ffi::lua_rawgeti(l, FIELD_LISTS[i], i64::from(value));
                        }
                        ffi::lua_rawset(l, BACK);
                        known[i] = value;
                    }
                    // A view the last call wrote into is replaced by a fresh one.
                    ffi::lua_pushnil(l);
                    if ffi::lua_next(l, VIEW) != 0 {
                        ffi::lua_settop(l, top);
                        ffi::lua_pushvalue(l, NEW_VIEW);
                        ffi::lua_call(l, 0, 1);
                        ffi::lua_pushvalue(l, -1);
                        ffi::lua_rawseti(l, HOLDER, 1);
                        ffi::lua_replace(l, VIEW);
                    }
                    watch.renew();
                    ffi::lua_pushvalue(l, ALLOW);
                    ffi::lua_pushvalue(l, GAME);
                    ffi::lua_pushvalue(l, VIEW);
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
                            *known_after = Some(known);
                            ffi::lua_replace(l, 1);
                            ffi::lua_settop(l, 1);
                            return;
                        }
                    }
                    ffi::lua_settop(l, top);
                }
                *known_after = Some(known);
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
