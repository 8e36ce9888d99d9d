//! Fast paths for the `game` methods hooks call most: `game:to_move()`, `game:ply()`,
//! `game:events()`, `game:get(name)`, `game:set(name, value)` and
//! `game:attacked(square, side)`.
//!
//! Each is a plain C function (`lua_CFunction`) put in the place of the mlua method in
//! the `game` object's method table, so that a call skips mlua's callback machinery (its
//! lock, the userdata's type check and borrow, the conversion of each argument, a
//! `String` per name). It reads the view of the hook call in progress through the same
//! pointer the mlua methods use ([`Current`]: set for the length of one hook call and
//! cleared after it), and it takes only the plain case: the `game` object itself as
//! `self`, a hook running, arguments of the usual types and number. Every other case —
//! a call outside a hook, a wrong `self`, other argument types, a refusal — goes to the
//! mlua method, called with the same arguments, so that the checks and the errors (with
//! the script's path and line) are the method's own, in one place.
//!
//! The C functions own nothing on their frames when Lua may raise an error (a memory
//! error in `lua_pushlstring`, `lua_createtable`, an error of the mlua method they
//! call): Lua's errors jump over them.

use std::ffi::{c_int, c_void};

use mlua::{AnyUserData, Lua, ffi};

use super::api::Names;
use super::events::{self, Offsets, Strings};
use super::{Budget, Current};
use crate::hooks::{HookGame, Var};
use crate::piece::Side;

/// What the fast paths read: one per Lua state, kept in its app data at an address that
/// does not move (each C function holds it as its first upvalue).
pub(super) struct Fast {
    current: Current,
    /// The address of the `game` object's userdata block (`self` must be it).
    game: usize,
    budget: Budget,
    lua: mlua::WeakLua,
    at: Offsets,
}

/// The state's copy of its [`Fast`] (app data).
struct Installed(#[allow(dead_code)] Box<Fast>);

/// The upvalues of each C function: the [`Fast`], the mlua method, then its own.
const CTX: c_int = 1;
const METHOD: c_int = 2;
const OWN: c_int = 3;

/// The [`Fast`] of the running C function.
///
/// SAFETY: called only from the C functions made by [`install`], whose first upvalue is
/// the address of the state's [`Fast`], which lives as long as the state.
unsafe fn ctx<'a>(l: *mut ffi::lua_State) -> &'a Fast {
    unsafe { &*ffi::lua_touserdata(l, ffi::lua_upvalueindex(CTX)).cast::<Fast>() }
}

/// The view of the hook call in progress, when argument 1 is the `game` object and a
/// hook is running (else the mlua method is to answer).
///
/// SAFETY: see [`Current::get`]: used only within the running C function.
#[allow(clippy::mut_from_ref)] // the pointer, not `f`, owns the view; see `Current::get`
unsafe fn view(l: *mut ffi::lua_State, f: &Fast) -> Option<&mut HookGame<'static>> {
    let this = unsafe { ffi::lua_touserdata(l, 1) } as usize;
    if this != f.game {
        return None;
    }
    unsafe { f.current.get() }
}

/// Calls the mlua method with the arguments as given and returns what it returns.
///
/// SAFETY: inside one of the C functions of [`install`] (a C function has room for one
/// more value on its stack: `LUA_MINSTACK`).
unsafe fn method(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        let n = ffi::lua_gettop(l);
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(METHOD));
        ffi::lua_insert(l, 1);
        ffi::lua_call(l, n, ffi::LUA_MULTRET);
        ffi::lua_gettop(l)
    }
}

/// A string argument as UTF-8 text (what mlua's `String` accepts), if it is one.
///
/// SAFETY: `i` is a valid index of the running function's stack.
unsafe fn text<'a>(l: *mut ffi::lua_State, i: c_int) -> Option<&'a str> {
    unsafe {
        if ffi::lua_type(l, i) != ffi::LUA_TSTRING {
            return None;
        }
        let mut len = 0usize;
        let p = ffi::lua_tolstring(l, i, &mut len);
        // The string stays on the stack (and so alive) for the whole call.
        std::str::from_utf8(std::slice::from_raw_parts(p.cast::<u8>(), len)).ok()
    }
}

/// `game:to_move()`: `"white"` or `"black"` (upvalues `OWN`, `OWN + 1`).
unsafe extern "C-unwind" fn to_move(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        let f = ctx(l);
        match view(l, f) {
            Some(g) if ffi::lua_gettop(l) == 1 => {
                ffi::lua_pushvalue(l, ffi::lua_upvalueindex(OWN + g.to_move().index() as c_int));
                1
            }
            _ => method(l),
        }
    }
}

/// `game:ply()`.
unsafe extern "C-unwind" fn ply(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        let f = ctx(l);
        match view(l, f) {
            Some(g) if ffi::lua_gettop(l) == 1 => {
                ffi::lua_pushinteger(l, g.ply() as i64);
                1
            }
            _ => method(l),
        }
    }
}

/// `game:get(name)`.
unsafe extern "C-unwind" fn get(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        let f = ctx(l);
        let name = if ffi::lua_gettop(l) == 2 { text(l, 2) } else { None };
        match (view(l, f), name) {
            (Some(g), Some(name)) => {
                match g.var(name) {
                    None => ffi::lua_pushnil(l),
                    Some(Var::Int(i)) => ffi::lua_pushinteger(l, *i),
                    Some(Var::Bool(b)) => ffi::lua_pushboolean(l, c_int::from(*b)),
                    Some(Var::Text(t)) => {
                        ffi::lua_pushlstring(l, t.as_ptr().cast(), t.len());
                    }
                }
                1
            }
            _ => method(l),
        }
    }
}

/// `game:attacked(square, side)`.
unsafe extern "C-unwind" fn attacked(l: *mut ffi::lua_State) -> c_int {
    // Nothing that owns memory is left when the method may raise an error.
    match unsafe { attacked_plain(l) } {
        Some(yes) => {
            unsafe { ffi::lua_pushboolean(l, c_int::from(yes)) };
            1
        }
        None => unsafe { method(l) },
    }
}

/// The answer of `game:attacked` for a square's name and a side's name as strings; `None`
/// for anything else (the method answers, or raises its error).
///
/// SAFETY: inside [`attacked`]. Raises no Lua error.
unsafe fn attacked_plain(l: *mut ffi::lua_State) -> Option<bool> {
    unsafe {
        let f = ctx(l);
        if ffi::lua_gettop(l) != 3 {
            return None;
        }
        let (g, name, by) = (view(l, f)?, text(l, 2)?, text(l, 3)?);
        // The usual spellings (the method takes the others: `"w"`, `"White"`…).
        let by = match by {
            "white" => Side::White,
            "black" => Side::Black,
            _ => return None,
        };
        let sq = g.variant().geometry.parse(name).ok()?;
        Some(g.attacked(sq, by))
    }
}

/// `game:set(name, value)`.
unsafe extern "C-unwind" fn set(l: *mut ffi::lua_State) -> c_int {
    // Everything `set_plain` made is dropped before the method may raise an error.
    let done = unsafe { set_plain(l) };
    if done { 0 } else { unsafe { method(l) } }
}

/// `game:set` of a whole number, a boolean, a string or nil, when the variables have room
/// for it as they are: whether it was done (if not, nothing changed). The method does the
/// rest (a float, a refusal, the read-only hooks' error, a collection to make room).
///
/// SAFETY: inside [`set`]. Raises no Lua error.
unsafe fn set_plain(l: *mut ffi::lua_State) -> bool {
    unsafe {
        let f = ctx(l);
        if ffi::lua_gettop(l) != 3 {
            return false;
        }
        let (Some(g), Some(name)) = (view(l, f), text(l, 2)) else { return false };
        if g.is_read_only() {
            return false;
        }
        let var = match ffi::lua_type(l, 3) {
            ffi::LUA_TNIL => None,
            ffi::LUA_TBOOLEAN => Some(Var::Bool(ffi::lua_toboolean(l, 3) != 0)),
            ffi::LUA_TNUMBER if ffi::lua_isinteger(l, 3) != 0 => Some(Var::Int(ffi::lua_tointeger(l, 3))),
            ffi::LUA_TSTRING => {
                let mut len = 0usize;
                let p = ffi::lua_tolstring(l, 3, &mut len);
                let bytes = std::slice::from_raw_parts(p.cast::<u8>(), len);
                Some(Var::Text(String::from_utf8_lossy(bytes).as_ref().into()))
            }
            _ => return false,
        };
        let Some(lua) = f.lua.try_upgrade() else { return false };
        let beside = f.budget.in_use(&lua);
        if g.room_for_var(name, var.as_ref(), beside).is_err() || g.set_var_beside(name, var, beside).is_err() {
            return false;
        }
        // From now on the state may use what the variables leave.
        f.budget.apply(&lua, g.var_bytes());
        true
    }
}

/// `game:events()` (upvalue `OWN`: the strings of [`events`]), unless an event is made
/// through JSON (free text, an outcome: the method makes those).
unsafe extern "C-unwind" fn event_list(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        let f = ctx(l);
        match view(l, f) {
            Some(g) if ffi::lua_gettop(l) == 1 && !g.events().iter().any(events::through_json) => {
                ffi::lua_settop(l, 0);
                ffi::lua_pushvalue(l, ffi::lua_upvalueindex(OWN));
                events::fill(l, f.at, g.events());
                1
            }
            _ => method(l),
        }
    }
}

/// Puts the fast paths in the place of the mlua methods of `game` (whose method table
/// mlua makes its metatable's `__index`). Whether they were installed: if mlua laid the
/// metatable out otherwise, the mlua methods stay, and nothing else changes.
pub(super) fn install(
    lua: &Lua,
    game: &AnyUserData,
    current: Current,
    budget: Budget,
    names: &Names,
) -> mlua::Result<bool> {
    let strings = Strings::new(lua, names)?;
    let mut fast = Box::new(Fast { current, game: 0, budget, lua: lua.weak(), at: strings.at });
    let at = (&mut *fast as *mut Fast).cast::<c_void>();
    let mut address = 0usize;
    let mut done = 0;
    type Own = &'static [c_int];
    // Each method, its C function, and the arguments of the call below it takes as its own upvalues.
    const METHODS: [(&std::ffi::CStr, ffi::lua_CFunction, Own); 6] = [
        (c"to_move", to_move, &[3, 4]),
        (c"ply", ply, &[]),
        (c"get", get, &[]),
        (c"set", set, &[]),
        (c"events", event_list, &[2]),
        (c"attacked", attacked, &[]),
    ];
    // SAFETY: C API calls on the stack `exec_raw` gives (its arguments at 1..4: the game,
    // the strings, "white", "black"), room checked first; the table reads are raw and
    // the writes into a table without a metatable, so only a memory error may be raised,
    // over frames that own nothing.
    unsafe {
        lua.exec_raw::<()>((game, &strings.table, &names.sides[0], &names.sides[1]), |l| {
            ffi::luaL_checkstack(l, 10, std::ptr::null());
            address = ffi::lua_touserdata(l, 1) as usize;
            if ffi::lua_getmetatable(l, 1) == 0 {
                return;
            }
            if ffi::lua_getfield(l, -1, c"__index".as_ptr()) != ffi::LUA_TTABLE || ffi::lua_getmetatable(l, -1) != 0 {
                return;
            }
            let index = ffi::lua_gettop(l);
            for (name, func, own) in METHODS {
                ffi::lua_pushlightuserdata(l, at);
                if ffi::lua_getfield(l, index, name.as_ptr()) != ffi::LUA_TFUNCTION {
                    ffi::lua_settop(l, index);
                    continue;
                }
                for &i in own {
                    ffi::lua_pushvalue(l, i);
                }
                ffi::lua_pushcclosure(l, func, 2 + own.len() as c_int);
                ffi::lua_setfield(l, index, name.as_ptr());
                done += 1;
            }
            ffi::lua_settop(l, 0);
        })?;
    }
    fast.game = address;
    // `game:events()` by the method shares the strings.
    lua.set_app_data(strings);
    lua.set_app_data(Installed(fast));
    Ok(done == METHODS.len())
}

#[cfg(test)]
mod tests {
    use mlua::Value;

    use super::super::{LuaHooks, root_message};

    #[test]
    fn the_methods_called_outside_a_hook_are_lua_errors() {
        let dir = std::env::temp_dir().join(format!("varia-fast-outside-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n").unwrap();
        std::fs::write(dir.join("rules.lua"), "function on_turn_end(game) end\n").unwrap();
        let v = crate::variant::Variant::load(dir.to_str().unwrap()).unwrap();
        let h = LuaHooks::load(&v).unwrap();
        // Between hook calls no view is set: each method (fast or not) says so, as an error.
        for call in [
            "g:to_move()",
            "g:ply()",
            "g:events()",
            "g:get('x')",
            "g:set('x', 1)",
            "g:attacked('e4', 'white')",
            "g:in_check()",
        ] {
            let f = h.lua.load(format!("local g = ...\nreturn {call}")).set_name("=outside").into_function().unwrap();
            let e = f.call::<Value>(&h.game).unwrap_err();
            let m = root_message(&e);
            assert!(m.contains("the game object can only be used while a hook runs"), "{call}: {m}");
        }
    }
}
