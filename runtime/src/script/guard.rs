//! The guard on the library functions whose work grows with their input (they run in C,
//! out of reach of the instruction count): `string.find`, `gsub`, `rep`, `format`…,
//! `table.concat`, `sort`…, `utf8.*` and `tonumber`.
//!
//! The prelude puts in the place of each a C closure ([`guarded`]) that holds the state's
//! [`Watch`], the original function and the function's number ([`Lib`]). A call reads its
//! arguments where they lie on the Lua stack (no value is converted, nothing allocated),
//! checks the deadline, counts the call's work against the instruction budget, and for
//! the pattern functions the pattern's worst case on its subject; a refusal is an error
//! at the rules' line, as before. It then runs the original in its own frame: the
//! library's errors read as plain Lua's (`bad argument #1 to 'find'`, at the rules' line),
//! and no frame of the sandbox stands between the rules and the library.
//!
//! `__varia_tripped` (`pcall` and `xpcall` in the prelude ask it after a call) answers
//! whether a limit stopped the call, so that a hook cannot catch its own stop.
//!
//! The C functions own nothing on their frames when Lua may raise an error: a refusal's
//! message is made in a buffer on the stack and raised after everything else is dropped.

use std::ffi::{c_int, c_void};
use std::sync::atomic::Ordering;

use mlua::{Function, Lua, ffi};

use super::{PATTERN_STEPS, SORT_ELEMENTS, Watch, pattern_steps, raw_rules_place};

/// The longest refusal message, in bytes (a place and a sentence or two).
const MESSAGE: usize = 2048;

/// The guarded library functions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lib {
    Find,
    Match,
    Gmatch,
    Gsub,
    Rep,
    Sub,
    Upper,
    Lower,
    Reverse,
    Format,
    Byte,
    Pack,
    Unpack,
    Concat,
    Sort,
    Insert,
    Remove,
    Move,
    TableUnpack,
    Utf8Len,
    Codepoint,
    Offset,
    Tonumber,
}

impl Lib {
    const ALL: [Lib; 23] = [
        Lib::Find,
        Lib::Match,
        Lib::Gmatch,
        Lib::Gsub,
        Lib::Rep,
        Lib::Sub,
        Lib::Upper,
        Lib::Lower,
        Lib::Reverse,
        Lib::Format,
        Lib::Byte,
        Lib::Pack,
        Lib::Unpack,
        Lib::Concat,
        Lib::Sort,
        Lib::Insert,
        Lib::Remove,
        Lib::Move,
        Lib::TableUnpack,
        Lib::Utf8Len,
        Lib::Codepoint,
        Lib::Offset,
        Lib::Tonumber,
    ];

    /// The name the prelude gives it (and refusals show).
    fn name(self) -> &'static str {
        match self {
            Lib::Find => "string.find",
            Lib::Match => "string.match",
            Lib::Gmatch => "string.gmatch",
            Lib::Gsub => "string.gsub",
            Lib::Rep => "string.rep",
            Lib::Sub => "string.sub",
            Lib::Upper => "string.upper",
            Lib::Lower => "string.lower",
            Lib::Reverse => "string.reverse",
            Lib::Format => "string.format",
            Lib::Byte => "string.byte",
            Lib::Pack => "string.pack",
            Lib::Unpack => "string.unpack",
            Lib::Concat => "table.concat",
            Lib::Sort => "table.sort",
            Lib::Insert => "table.insert",
            Lib::Remove => "table.remove",
            Lib::Move => "table.move",
            Lib::TableUnpack => "table.unpack",
            Lib::Utf8Len => "utf8.len",
            Lib::Codepoint => "utf8.codepoint",
            Lib::Offset => "utf8.offset",
            Lib::Tonumber => "tonumber",
        }
    }

    fn index(self) -> usize {
        Lib::ALL.iter().position(|&l| l == self).unwrap_or(0)
    }
}

/// The upvalues of a guarded function: the [`Watch`], the original, then the function's
/// number ([`Lib::index`]) plus [`DIRECT`] when the original is a C function without
/// upvalues (it is then run in the guard's own frame).
const WATCH: c_int = 1;
const ORIGINAL: c_int = 2;
const ID: c_int = 3;
const DIRECT: i64 = 1 << 8;

/// The arguments of the running C function, read in place on the Lua stack. Index `i`
/// counts from 0 (the first argument).
struct Args {
    l: *mut ffi::lua_State,
    n: usize,
}

impl Args {
    fn idx(i: usize) -> c_int {
        i as c_int + 1
    }

    fn kind(&self, i: usize) -> c_int {
        if i >= self.n {
            return ffi::LUA_TNONE;
        }
        // SAFETY: `i` is below the top of the running function's stack.
        unsafe { ffi::lua_type(self.l, Args::idx(i)) }
    }

    /// A string argument's bytes (numbers are not converted: that would change the argument).
    fn bytes(&self, i: usize) -> Option<&[u8]> {
        if self.kind(i) != ffi::LUA_TSTRING {
            return None;
        }
        let mut len = 0usize;
        // SAFETY: a string on the stack; it stays there (alive) for the whole call.
        unsafe {
            let p = ffi::lua_tolstring(self.l, Args::idx(i), &mut len);
            Some(std::slice::from_raw_parts(p.cast::<u8>(), len))
        }
    }

    /// The length of a string argument; a number counts as 24 (its longest text).
    fn len(&self, i: usize) -> Option<usize> {
        match self.kind(i) {
            ffi::LUA_TSTRING => self.bytes(i).map(<[u8]>::len),
            ffi::LUA_TNUMBER => Some(24),
            _ => None,
        }
    }

    /// A number as Lua reads it (strings such as "0x10" or "9e18" included), clamped to
    /// the integers.
    fn int(&self, i: usize) -> Option<i64> {
        if i >= self.n {
            return None;
        }
        let mut ok = 0;
        // SAFETY: a stack index of the running function; the conversion changes nothing there.
        let x = unsafe { ffi::lua_tonumberx(self.l, Args::idx(i), &mut ok) };
        match x {
            _ if ok == 0 => None,
            x if x.is_finite() => Some(x.clamp(i64::MIN as f64, i64::MAX as f64) as i64),
            x if x.is_nan() => None,
            x => Some(if x > 0.0 { i64::MAX } else { i64::MIN }),
        }
    }

    /// Whether the argument is given and neither nil nor false.
    fn truthy(&self, i: usize) -> bool {
        // SAFETY: a stack index of the running function.
        i < self.n && unsafe { ffi::lua_toboolean(self.l, Args::idx(i)) } != 0
    }

    /// A table's length as the library sees it (`__len` included, in a protected call: an
    /// error there counts 0); 0 for anything else.
    fn elements(&self, i: usize) -> u64 {
        if self.kind(i) != ffi::LUA_TTABLE {
            return 0;
        }
        let l = self.l;
        // SAFETY: a table on the stack; a metatable, when there is one, is popped again;
        // the length is taken in a protected call, which leaves one value (the length or
        // the error) that is popped. A C function has room for them (`LUA_MINSTACK`).
        unsafe {
            if ffi::lua_getmetatable(l, Args::idx(i)) == 0 {
                return ffi::lua_rawlen(l, Args::idx(i)) as u64;
            }
            ffi::lua_pop(l, 1);
            ffi::lua_pushcfunction(l, length);
            ffi::lua_pushvalue(l, Args::idx(i));
            let n = if ffi::lua_pcall(l, 1, 1, 0) == ffi::LUA_OK {
                ffi::lua_tointegerx(l, -1, std::ptr::null_mut()).max(0) as u64
            } else {
                0
            };
            ffi::lua_pop(l, 1);
            n
        }
    }

    /// Bytes of the string elements of a table argument (at most `n` looked at): the
    /// total and the longest.
    fn table_bytes(&self, i: usize, n: u64) -> (u64, u64) {
        if self.kind(i) != ffi::LUA_TTABLE {
            return (0, 0);
        }
        let (mut total, mut longest) = (0u64, 0u64);
        for k in 1..=n.min(SORT_ELEMENTS as u64) {
            // SAFETY: a raw read pushes one value, popped right after.
            unsafe {
                if ffi::lua_rawgeti(self.l, Args::idx(i), k as i64) == ffi::LUA_TSTRING {
                    let mut len = 0usize;
                    ffi::lua_tolstring(self.l, -1, &mut len);
                    total += len as u64;
                    longest = longest.max(len as u64);
                }
                ffi::lua_pop(self.l, 1);
            }
        }
        (total, longest)
    }
}

/// `#t` with `__len` (the value at 1), for [`Args::elements`]'s protected call.
unsafe extern "C-unwind" fn length(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        let n = ffi::luaL_len(l, 1);
        ffi::lua_pushinteger(l, n);
    }
    1
}

/// Why `lib` must not run with these arguments, if it must not (without the place).
fn why_not(w: &Watch, lib: Lib, args: &Args) -> Option<String> {
    if w.overdue() {
        return Some(w.trip(w.time_message()));
    }
    let elements = |i: usize| args.elements(i);
    let span = |from: Option<i64>, to: Option<i64>| to.unwrap_or(0).saturating_sub(from.unwrap_or(1)).max(0) as u64;
    // The sizes written in a string.pack format (c12000000, i16, s4…).
    let format_bytes = |i: usize| -> u64 {
        let Some(f) = args.bytes(i) else { return 0 };
        let mut total = 0u64;
        let mut num = 0u64;
        for &b in f {
            if b.is_ascii_digit() {
                num = num.saturating_mul(10).saturating_add((b - b'0') as u64);
            } else {
                total = total.saturating_add(num.max(8));
                num = 0;
            }
        }
        total.saturating_add(num)
    };
    // The C work this call will do, counted against the instruction budget (one
    // instruction per 8 bytes or per element): deterministic, like the count itself.
    let bytes = |n: u64| n / 8;
    let len = |i: usize| args.len(i);
    let strings = || (0..args.n).map(|i| len(i).unwrap_or(0) as u64).sum::<u64>();
    let work: u64 = match lib {
        Lib::Rep => {
            let (each, times) = (len(0).unwrap_or(0) + len(2).unwrap_or(0), args.int(1).unwrap_or(0).max(0) as u64);
            bytes((each as u64).max(1).saturating_mul(times))
        }
        Lib::Gsub => {
            // Each match may copy the replacement string.
            let n = len(0).unwrap_or(0) as u64 + 1;
            let matches = args.int(3).map_or(n, |m| n.min(m.max(0) as u64));
            bytes(n).saturating_add(bytes(matches.saturating_mul(len(2).unwrap_or(0) as u64)))
        }
        Lib::Find
        | Lib::Match
        | Lib::Gmatch
        | Lib::Sub
        | Lib::Upper
        | Lib::Lower
        | Lib::Reverse
        | Lib::Byte
        | Lib::Format
        | Lib::Unpack
        | Lib::Utf8Len
        | Lib::Codepoint
        | Lib::Offset
        | Lib::Tonumber => bytes(strings()),
        Lib::Pack => bytes(format_bytes(0).saturating_add(strings())),
        Lib::Sort => {
            let n = elements(0);
            let (_, longest) = args.table_bytes(0, n);
            // Comparisons of strings read them.
            (n * (64 - n.leading_zeros() as u64)).saturating_mul(1 + longest / 8)
        }
        Lib::Concat => {
            let n = elements(0).max(span(args.int(2), args.int(3)));
            let (total, _) = args.table_bytes(0, n);
            n.saturating_add(bytes(total)).saturating_add(bytes(n.saturating_mul(len(1).unwrap_or(0) as u64)))
        }
        Lib::Insert | Lib::Remove => elements(0),
        Lib::TableUnpack => elements(0).max(span(args.int(1), args.int(2))),
        Lib::Move => span(args.int(1), args.int(2)),
    };
    let left = w.budget.load(Ordering::Relaxed);
    if work >= left {
        return Some(w.trip(format!(
            "stopped: this call's work (about {work} instructions' worth, one per 8 bytes or element) is more than \
             the hook has left of [scripting] instruction_limit = {}",
            w.limit
        )));
    }
    w.budget.store(left - work, Ordering::Relaxed);
    match lib {
        Lib::Find | Lib::Match | Lib::Gmatch | Lib::Gsub => {
            let (Some(n), Some(p)) = (len(0), args.bytes(1)) else { return None };
            if p.len() > 200 {
                return Some("pattern longer than 200 characters (sandbox limit)".into());
            }
            let plain = lib == Lib::Find && args.truthy(3);
            let steps = if plain { ((n + 1) * p.len().max(1)) as f64 } else { pattern_steps(p, n, lib != Lib::Gmatch) };
            (steps > PATTERN_STEPS).then(|| {
                format!(
                    "this pattern may take up to {steps:.1e} steps on a subject of {n} characters (sandbox limit \
                     {PATTERN_STEPS:.0e}): use fewer repeated items (* + - ?), a shorter subject, or \
                     string.find(s, text, 1, true) for plain text"
                )
            })
        }
        Lib::Sort if elements(0) > SORT_ELEMENTS as u64 => {
            Some(format!("more than {SORT_ELEMENTS} elements (sandbox limit)"))
        }
        _ => None,
    }
}

/// Copies `text` into `buf`, cut at a character boundary if it is too long; the length.
fn copy(text: &str, buf: &mut [u8; MESSAGE]) -> usize {
    let mut len = text.len().min(MESSAGE);
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    buf[..len].copy_from_slice(&text.as_bytes()[..len]);
    len
}

/// Why the running guarded function must not run, if it must not, with the rules' place.
///
/// SAFETY: inside [`guarded`]; raises no Lua error.
unsafe fn refusal(l: *mut ffi::lua_State) -> Option<String> {
    // SAFETY: upvalue `WATCH` is the address of the state's `Watched` copy, which lives
    // as long as the state; `ID` an integer set by `wrap`.
    let (w, id) = unsafe {
        let w = &*ffi::lua_touserdata(l, ffi::lua_upvalueindex(WATCH)).cast::<Watch>();
        (w, ffi::lua_tointegerx(l, ffi::lua_upvalueindex(ID), std::ptr::null_mut()))
    };
    let lib = Lib::ALL[(id & (DIRECT - 1)) as usize % Lib::ALL.len()];
    let args = Args { l, n: unsafe { ffi::lua_gettop(l) }.max(0) as usize };
    let why = why_not(w, lib, &args)?;
    // Level 0 is this function; the place is the rules' line that called it.
    let at = unsafe { raw_rules_place(l, 1) };
    Some(format!("{at}{}: {why}", lib.name()))
}

/// Raises `message` as the running function's error. The message is copied out of the
/// heap first: `lua_error` does not return, and nothing that owns memory may be left on
/// a frame when it jumps.
///
/// SAFETY: inside a C function called by Lua.
#[cold]
unsafe fn raise(l: *mut ffi::lua_State, message: String) -> ! {
    let mut buf = [0u8; MESSAGE];
    let len = copy(&message, &mut buf);
    drop(message);
    unsafe {
        ffi::lua_pushlstring(l, buf.as_ptr().cast(), len);
        ffi::lua_error(l)
    }
}

/// A guarded library function (see the module's text).
unsafe extern "C-unwind" fn guarded(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: this is a closure made by `wrap`; the refusal moves into `raise`, which
    // drops it before the error is raised.
    unsafe {
        if let Some(why) = refusal(l) {
            raise(l, why);
        }
        let id = ffi::lua_tointegerx(l, ffi::lua_upvalueindex(ID), std::ptr::null_mut());
        if id & DIRECT != 0
            && let Some(f) = ffi::lua_tocfunction(l, ffi::lua_upvalueindex(ORIGINAL))
        {
            // The original is a C function without upvalues: it runs in this frame, on
            // these arguments, as if called by the rules.
            return f(l);
        }
        let n = ffi::lua_gettop(l);
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(ORIGINAL));
        ffi::lua_insert(l, 1);
        ffi::lua_call(l, n, ffi::LUA_MULTRET);
        ffi::lua_gettop(l)
    }
}

/// `__varia_wrap(f, name)` (upvalue 1: the [`Watch`]): the guarded version of the library
/// function `f` named `name` (one of [`Lib`]'s names).
unsafe extern "C-unwind" fn wrap(l: *mut ffi::lua_State) -> c_int {
    unsafe {
        let mut len = 0usize;
        let name = if ffi::lua_type(l, 2) == ffi::LUA_TSTRING {
            let p = ffi::lua_tolstring(l, 2, &mut len);
            std::slice::from_raw_parts(p.cast::<u8>(), len)
        } else {
            &[]
        };
        let lib = Lib::ALL.iter().find(|lib| lib.name().as_bytes() == name).copied();
        let Some(lib) = lib.filter(|_| ffi::lua_type(l, 1) == ffi::LUA_TFUNCTION) else {
            ffi::lua_pushstring(l, c"__varia_wrap: a library function and its name expected".as_ptr());
            ffi::lua_error(l);
        };
        let mut id = lib.index() as i64;
        if ffi::lua_tocfunction(l, 1).is_some() {
            if ffi::lua_getupvalue(l, 1, 1).is_null() {
                id |= DIRECT;
            } else {
                ffi::lua_pop(l, 1);
            }
        }
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(WATCH));
        ffi::lua_pushvalue(l, 1);
        ffi::lua_pushinteger(l, id);
        ffi::lua_pushcclosure(l, guarded, 3);
        1
    }
}

/// `__varia_tripped()` (upvalue 1: the [`Watch`]): why the call must stop — the deadline
/// has passed, or a limit was reached in this call — with the rules' place, or nil.
unsafe extern "C-unwind" fn tripped(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: upvalue 1 is the address of the state's `Watched` copy.
    let w = unsafe { &*ffi::lua_touserdata(l, ffi::lua_upvalueindex(WATCH)).cast::<Watch>() };
    let why = if w.overdue() {
        Some(w.trip(w.time_message()))
    } else {
        w.tripped.load(Ordering::Relaxed).then(|| "stopped: a limit was reached in this call".to_string())
    };
    match why {
        // Level 0 is this function; the prelude's frames above it are passed over.
        Some(why) => {
            let message = format!("{}{why}", unsafe { raw_rules_place(l, 1) });
            drop(why);
            let mut buf = [0u8; MESSAGE];
            let len = copy(&message, &mut buf);
            drop(message);
            // SAFETY: only a memory error may be raised here, over frames that own nothing.
            unsafe { ffi::lua_pushlstring(l, buf.as_ptr().cast(), len) };
        }
        None => unsafe { ffi::lua_pushnil(l) },
    }
    1
}

/// The prelude's `__varia_wrap` and `__varia_tripped`, for the state whose [`Watch`]
/// copy is at `watch` (it lives as long as the state).
pub(super) fn functions(lua: &Lua, watch: *const Watch) -> mlua::Result<(Function, Function)> {
    let at = watch.cast_mut().cast::<c_void>();
    // SAFETY: pushes two C closures (only a memory error may be raised, in the
    // protected call `exec_raw` makes).
    unsafe {
        lua.exec_raw((), |l| {
            ffi::lua_settop(l, 0);
            ffi::lua_pushlightuserdata(l, at);
            ffi::lua_pushcclosure(l, wrap, 1);
            ffi::lua_pushlightuserdata(l, at);
            ffi::lua_pushcclosure(l, tripped, 1);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Lib;

    #[test]
    fn every_guarded_function_has_its_own_name_and_number() {
        for (i, lib) in Lib::ALL.iter().enumerate() {
            assert_eq!(lib.index(), i);
            assert_eq!(Lib::ALL.iter().filter(|l| l.name() == lib.name()).count(), 1, "{lib:?}");
        }
        assert!((Lib::ALL.len() as i64) < super::DIRECT);
    }
}
