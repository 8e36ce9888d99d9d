//! `game:events()`: the events of the action so far as Lua tables, built straight from
//! the events (no JSON on the way, the names made once per Lua state).
//!
//! Every table is the one `Event::to_json` would give through `json_to_lua`, key for
//! key, filled in the same order (JSON objects keep their keys sorted) into a table of
//! the same size, so that even `pairs` walks it in the same order (the tests below
//! compare both ways for every kind of event). The rare events that carry free text or
//! an outcome still go through JSON.
//!
//! The whole list is filled in one protected call through Lua's C API, its strings read
//! from one table of them made once per state: a protected call per field (what
//! `Table::raw_set` makes) cost more than the rest of a hooked playout's hook.

use std::ffi::c_int;

use mlua::{Lua, MultiValue, Table, Value, ffi};

use super::api::{Names, json_to_lua};
use crate::event::Event;
use crate::variant::{Cause, Variant};

/// The keys, in the order of [`STRINGS`]'s first entries.
const KEYS: [&str; 13] =
    ["event", "side", "kind", "from", "to", "square", "amount", "hp", "cause", "by", "note", "king", "rook"];
const EVENT: i64 = 1;
const SIDE: i64 = 2;
const KIND: i64 = 3;
const FROM: i64 = 4;
const TO: i64 = 5;
const SQUARE: i64 = 6;
const AMOUNT: i64 = 7;
const HP: i64 = 8;
const CAUSE: i64 = 9;
const BY: i64 = 10;
const NOTE: i64 = 11;
const KING: i64 = 12;
const ROOK: i64 = 13;

const EVENT_NAMES: [&str; 17] = [
    "moved", "captured", "damaged", "killed", "landed", "bounced", "shot", "frozen", "returned", "dropped", "banked",
    "promoted", "castled", "removed", "placed", "exploded", "passed",
];

const CAUSES: [Cause; 5] = [Cause::Primary, Cause::Aoe, Cause::Counter, Cause::EnPassant, Cause::Rule];

/// Where each group of strings starts in the sequence (1-based, as Lua indexes it).
#[derive(Clone, Copy)]
pub(super) struct Offsets {
    names: i64,
    causes: i64,
    squares: i64,
    kinds: i64,
    sides: i64,
}

/// Every string an event table holds, as one Lua sequence: the keys, the event names,
/// the causes, then the variant's squares, kinds and sides (made once per state, kept
/// in its app data: a state serves one variant).
pub(super) struct Strings {
    pub(super) table: Table,
    pub(super) at: Offsets,
}

impl Strings {
    pub(super) fn new(lua: &Lua, n: &Names) -> mlua::Result<Strings> {
        let mut all: Vec<mlua::LuaString> = Vec::new();
        for k in KEYS {
            all.push(lua.create_string(k)?);
        }
        let names = all.len() as i64 + 1;
        for name in EVENT_NAMES {
            all.push(lua.create_string(name)?);
        }
        let causes = all.len() as i64 + 1;
        for c in CAUSES {
            all.push(lua.create_string(c.name())?);
        }
        let squares = all.len() as i64 + 1;
        all.extend(n.squares.iter().cloned());
        let kinds = all.len() as i64 + 1;
        all.extend(n.kinds.iter().cloned());
        let sides = all.len() as i64 + 1;
        all.extend(n.sides.iter().cloned());
        Ok(Strings { table: lua.create_sequence_from(all)?, at: Offsets { names, causes, squares, kinds, sides } })
    }
}

fn name_index(n: &str) -> i64 {
    EVENT_NAMES.iter().position(|&x| x == n).expect("a listed event name") as i64
}

fn cause_index(c: Cause) -> i64 {
    CAUSES.iter().position(|&x| x == c).expect("every cause is listed") as i64
}

/// Whether an event's table is made through JSON (free text or an outcome in it).
pub(super) fn through_json(e: &Event) -> bool {
    matches!(e, Event::Scored { .. } | Event::TableScored { .. } | Event::Note { .. } | Event::Ended { .. })
}

/// The events as a Lua sequence of tables.
pub(crate) fn table(lua: &Lua, names: &Names, v: &Variant, events: &[Event]) -> mlua::Result<Table> {
    if lua.app_data_ref::<Strings>().is_none() {
        let strings = Strings::new(lua, names)?;
        lua.set_app_data(strings);
    }
    let (strings, at) = {
        let s = lua.app_data_ref::<Strings>().expect("set just above");
        (s.table.clone(), s.at)
    };
    // The arguments of the protected call: the strings, then the tables of the events
    // that go through JSON, in their order.
    let mut args = MultiValue::new();
    args.push_back(Value::Table(strings));
    for e in events.iter().filter(|e| through_json(e)) {
        args.push_back(json_to_lua(lua, &e.to_json(v))?);
    }
    // SAFETY: `fill` uses only the C API on the stack that `exec_raw` gives it (the
    // arguments at 1.., room checked first) and leaves the one result there. A Lua error
    // in it (out of memory) unwinds to `exec_raw`'s protected call, over frames that own
    // nothing to drop (references, integers and copies only).
    unsafe { lua.exec_raw::<Table>(args, |l| fill(l, at, events)) }
}

/// Pushes string `i` of the strings table (at stack index 1).
unsafe fn string(l: *mut ffi::lua_State, i: i64) {
    unsafe { ffi::lua_rawgeti(l, 1, i) };
}

/// Sets `key` (a string's index) of the table on top to string `value`.
unsafe fn set_string(l: *mut ffi::lua_State, key: i64, value: i64) {
    unsafe {
        string(l, key);
        string(l, value);
        ffi::lua_rawset(l, -3);
    }
}

/// Sets `key` of the table on top to an integer.
unsafe fn set_int(l: *mut ffi::lua_State, key: i64, value: i64) {
    unsafe {
        string(l, key);
        ffi::lua_pushinteger(l, value);
        ffi::lua_rawset(l, -3);
    }
}

/// Builds the sequence of event tables and leaves it alone on the stack.
pub(super) unsafe fn fill(l: *mut ffi::lua_State, at: Offsets, events: &[Event]) {
    unsafe {
        ffi::luaL_checkstack(l, 8, std::ptr::null());
        let result = ffi::lua_gettop(l) + 1;
        ffi::lua_createtable(l, c_int::try_from(events.len()).unwrap_or(c_int::MAX), 0);
        let mut json = 2;
        for (i, e) in events.iter().enumerate() {
            if through_json(e) {
                ffi::lua_pushvalue(l, json);
                json += 1;
            } else {
                one(l, at, e);
            }
            ffi::lua_rawseti(l, result, i as i64 + 1);
        }
        ffi::lua_replace(l, 1);
        ffi::lua_settop(l, 1);
    }
}

/// Pushes one event's table: its keys in sorted order, as `json_to_lua` fills an object.
unsafe fn one(l: *mut ffi::lua_State, at: Offsets, e: &Event) {
    let sq = |s: &crate::geometry::Square| at.squares + s.index() as i64;
    let kind = |id: &crate::piece::KindId| at.kinds + id.index() as i64;
    let side = |s: &crate::piece::Side| at.sides + s.index() as i64;
    let name = |n: &str| at.names + name_index(n);
    let obj = |len: c_int| unsafe { ffi::lua_createtable(l, 0, len) };
    unsafe {
        match e {
            // event, from, kind, side, to
            Event::Moved { side: s, kind: kd, from, to } | Event::Shot { side: s, kind: kd, from, to } => {
                obj(5);
                set_string(l, EVENT, name(if matches!(e, Event::Moved { .. }) { "moved" } else { "shot" }));
                set_string(l, FROM, sq(from));
                set_string(l, KIND, kind(kd));
                set_string(l, SIDE, side(s));
                set_string(l, TO, sq(to));
            }
            // event, kind, side, square
            Event::Captured { side: s, kind: kd, square }
            | Event::Killed { side: s, kind: kd, square }
            | Event::Exploded { side: s, kind: kd, square }
            | Event::Dropped { side: s, kind: kd, square }
            | Event::Banked { side: s, kind: kd, square }
            | Event::Removed { side: s, kind: kd, square }
            | Event::Placed { side: s, kind: kd, square } => {
                let n = match e {
                    Event::Captured { .. } => "captured",
                    Event::Killed { .. } => "killed",
                    Event::Exploded { .. } => "exploded",
                    Event::Dropped { .. } => "dropped",
                    Event::Banked { .. } => "banked",
                    Event::Removed { .. } => "removed",
                    _ => "placed",
                };
                obj(4);
                set_string(l, EVENT, name(n));
                set_string(l, KIND, kind(kd));
                set_string(l, SIDE, side(s));
                set_string(l, SQUARE, sq(square));
            }
            // amount, by, cause, event, hp, kind, note, side, square
            Event::Damaged { side: s, kind: kd, square, amount, hp, cause, by, note } => {
                obj(9);
                set_int(l, AMOUNT, *amount);
                if let Some(b) = by {
                    set_string(l, BY, sq(b));
                }
                set_string(l, CAUSE, at.causes + cause_index(*cause));
                set_string(l, EVENT, name("damaged"));
                set_int(l, HP, *hp);
                set_string(l, KIND, kind(kd));
                string(l, NOTE);
                ffi::lua_pushlstring(l, note.as_ptr().cast(), note.len());
                ffi::lua_rawset(l, -3);
                set_string(l, SIDE, side(s));
                set_string(l, SQUARE, sq(square));
            }
            // event, from, side, to
            Event::Landed { side: s, from, to } => {
                obj(4);
                set_string(l, EVENT, name("landed"));
                set_string(l, FROM, sq(from));
                set_string(l, SIDE, side(s));
                set_string(l, TO, sq(to));
            }
            // event, side, square
            Event::Bounced { side: s, square }
            | Event::Frozen { side: s, square }
            | Event::Passed { side: s, square } => {
                obj(3);
                let n = match e {
                    Event::Bounced { .. } => "bounced",
                    Event::Frozen { .. } => "frozen",
                    _ => "passed",
                };
                set_string(l, EVENT, name(n));
                set_string(l, SIDE, side(s));
                set_string(l, SQUARE, sq(square));
            }
            // event, from, side, square, to
            Event::Returned { side: s, square, from, to } | Event::Promoted { side: s, square, from, to } => {
                obj(5);
                set_string(l, EVENT, name(if matches!(e, Event::Returned { .. }) { "returned" } else { "promoted" }));
                set_string(l, FROM, kind(from));
                set_string(l, SIDE, side(s));
                set_string(l, SQUARE, sq(square));
                set_string(l, TO, kind(to));
            }
            // event, king, rook, side
            Event::Castled { side: s, king_from, king_to, rook_from, rook_to } => {
                let pair = |key: i64, a, b| {
                    string(l, key);
                    ffi::lua_createtable(l, 2, 0);
                    string(l, sq(a));
                    ffi::lua_rawseti(l, -2, 1);
                    string(l, sq(b));
                    ffi::lua_rawseti(l, -2, 2);
                    ffi::lua_rawset(l, -3);
                };
                obj(4);
                set_string(l, EVENT, name("castled"));
                pair(KING, king_from, king_to);
                pair(ROOK, rook_from, rook_to);
                set_string(l, SIDE, side(s));
            }
            // Made through JSON (`through_json`): `fill` never asks for them here.
            Event::Scored { .. } | Event::TableScored { .. } | Event::Note { .. } | Event::Ended { .. } => {
                ffi::lua_pushnil(l);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Square;
    use crate::outcome::{GameResult, Outcome, Reason};
    use crate::piece::{KindId, Side};

    /// A table as text, in the order `pairs` walks it (nested tables too).
    const DUMP: &str = r#"
        local function dump(t)
          if type(t) ~= "table" then return type(t) .. ":" .. tostring(t) end
          local out = {}
          for k, v in pairs(t) do out[#out + 1] = tostring(k) .. "=" .. dump(v) end
          return "{" .. table.concat(out, ",") .. "}"
        end
        return dump
    "#;

    fn every_event(q: KindId, p: KindId) -> Vec<Event> {
        let (w, b) = (Side::White, Side::Black);
        let (e4, d5) = (Square(28), Square(35));
        vec![
            Event::Moved { side: w, kind: q, from: e4, to: d5 },
            Event::Captured { side: b, kind: p, square: d5 },
            Event::Damaged {
                side: b,
                kind: p,
                square: d5,
                amount: 3,
                hp: 1,
                cause: Cause::Aoe,
                by: Some(e4),
                note: "×2".into(),
            },
            Event::Damaged {
                side: w,
                kind: q,
                square: e4,
                amount: 0,
                hp: 4,
                cause: Cause::Rule,
                by: None,
                note: String::new(),
            },
            Event::Killed { side: b, kind: p, square: d5 },
            Event::Landed { side: w, from: e4, to: d5 },
            Event::Bounced { side: w, square: e4 },
            Event::Shot { side: w, kind: q, from: e4, to: d5 },
            Event::Frozen { side: b, square: d5 },
            Event::Returned { side: b, square: d5, from: p, to: q },
            Event::Dropped { side: w, kind: p, square: e4 },
            Event::Banked { side: w, kind: p, square: d5 },
            Event::Promoted { side: w, square: d5, from: p, to: q },
            Event::Castled {
                side: w,
                king_from: Square(4),
                king_to: Square(6),
                rook_from: Square(7),
                rook_to: Square(5),
            },
            Event::Removed { side: b, kind: q, square: e4 },
            Event::Placed { side: w, kind: p, square: d5 },
            Event::Exploded { side: b, kind: q, square: e4 },
            Event::Passed { side: w, square: e4 },
            Event::Scored { side: w, points: 7, reason: "score".into() },
            Event::TableScored { side: b, points: crate::scoring::Tenths(15), reason: "strike".into() },
            Event::Note { text: "hello".into() },
            Event::Ended { outcome: Outcome { result: GameResult::Win(b), reason: Reason::Checkmate } },
        ]
    }

    #[test]
    fn the_tables_equal_the_json_ones_even_in_pairs_order() {
        // A board of its own: the tables depend only on the kinds' names and the squares.
        let toml = "[board]\nfiles = 8\nranks = 8\n[setup]\nfen = \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"\n\
                    [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{ leap = \"all\" }]\n\
                    [pieces.queen]\nletter = \"Q\"\nmoves = [{ slide = \"all\" }]\n\
                    [pieces.pawn]\nletter = \"P\"\nmoves = [{ leap = \"forward\" }]\n";
        let v = crate::variant::Variant::from_toml(toml, "events.toml").unwrap();
        let lua = Lua::new();
        let names = Names::new(&lua, &v).unwrap();
        let dump: mlua::Function = lua.load(DUMP).eval().unwrap();
        let kind = |name: &str| v.kind_named(name).unwrap();
        let events = every_event(kind("queen"), kind("pawn"));
        let direct = table(&lua, &names, &v, &events).unwrap();
        let via_json = lua.create_table().unwrap();
        for (i, e) in events.iter().enumerate() {
            via_json.raw_set(i + 1, json_to_lua(&lua, &e.to_json(&v)).unwrap()).unwrap();
        }
        for (i, e) in events.iter().enumerate() {
            let a: String = dump.call(direct.raw_get::<Value>(i + 1).unwrap()).unwrap();
            let b: String = dump.call(via_json.raw_get::<Value>(i + 1).unwrap()).unwrap();
            assert_eq!(a, b, "event {}: {e:?}", i + 1);
        }
        // A hand-written check of one, so that both cannot be wrong together.
        let first: String = dump.call(direct.raw_get::<Value>(1).unwrap()).unwrap();
        for part in ["event=string:moved", "from=string:e4", "to=string:d5", "side=string:white", "kind=string:queen"] {
            assert!(first.contains(part), "{first} lacks {part}");
        }
        let damaged: Table = direct.raw_get(4).unwrap();
        assert_eq!(damaged.raw_get::<Value>("by").unwrap(), Value::Nil);
        assert_eq!(damaged.raw_get::<i64>("hp").unwrap(), 4);
        let castled: Table = direct.raw_get(14).unwrap();
        let king: Table = castled.raw_get("king").unwrap();
        assert_eq!(king.raw_get::<String>(1).unwrap(), "e1");
        assert_eq!(king.raw_get::<String>(2).unwrap(), "g1");
    }
}
