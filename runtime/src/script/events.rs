//! `game:events()`: the events of the action so far as Lua tables, built straight from
//! the events (no JSON on the way, the names made once per Lua state).
//!
//! Every table is the one `Event::to_json` would give through `json_to_lua`, key for
//! key, filled in the same order (JSON objects keep their keys sorted) into a table of
//! the same size, so that even `pairs` walks it in the same order (the tests below
//! compare both ways for every kind of event). The rare events that carry free text or
//! an outcome still go through JSON.

use mlua::{Lua, LuaString, Table, Value};

use super::api::{Names, json_to_lua};
use crate::event::Event;
use crate::variant::{Cause, Variant};

/// The keys and event names as Lua strings, made once per state (kept in its app data).
struct Keys {
    event: LuaString,
    side: LuaString,
    kind: LuaString,
    from: LuaString,
    to: LuaString,
    square: LuaString,
    amount: LuaString,
    hp: LuaString,
    cause: LuaString,
    by: LuaString,
    note: LuaString,
    king: LuaString,
    rook: LuaString,
    /// Event names, by [`name_index`].
    names: Vec<LuaString>,
    /// Cause names, by [`cause_index`].
    causes: Vec<LuaString>,
}

const EVENT_NAMES: [&str; 15] = [
    "moved", "captured", "damaged", "killed", "landed", "bounced", "shot", "frozen", "returned", "dropped", "banked",
    "promoted", "castled", "removed", "placed",
];

const CAUSES: [Cause; 5] = [Cause::Primary, Cause::Aoe, Cause::Counter, Cause::EnPassant, Cause::Rule];

fn cause_index(c: Cause) -> usize {
    CAUSES.iter().position(|&x| x == c).expect("every cause is listed")
}

impl Keys {
    fn new(lua: &Lua) -> mlua::Result<Keys> {
        let s = |t: &str| lua.create_string(t);
        Ok(Keys {
            event: s("event")?,
            side: s("side")?,
            kind: s("kind")?,
            from: s("from")?,
            to: s("to")?,
            square: s("square")?,
            amount: s("amount")?,
            hp: s("hp")?,
            cause: s("cause")?,
            by: s("by")?,
            note: s("note")?,
            king: s("king")?,
            rook: s("rook")?,
            names: EVENT_NAMES.iter().map(|n| s(n)).collect::<mlua::Result<_>>()?,
            causes: CAUSES.iter().map(|c| s(c.name())).collect::<mlua::Result<_>>()?,
        })
    }

    fn name(&self, n: &str) -> &LuaString {
        &self.names[EVENT_NAMES.iter().position(|&x| x == n).expect("a listed event name")]
    }
}

/// The events as a Lua sequence of tables.
pub(crate) fn table(lua: &Lua, names: &Names, v: &Variant, events: &[Event]) -> mlua::Result<Table> {
    if lua.app_data_ref::<Keys>().is_none() {
        let keys = Keys::new(lua)?;
        lua.set_app_data(keys);
    }
    let keys = lua.app_data_ref::<Keys>().expect("set just above");
    let t = lua.create_table_with_capacity(events.len(), 0)?;
    for (i, e) in events.iter().enumerate() {
        t.raw_set(i + 1, one(lua, &keys, names, v, e)?)?;
    }
    Ok(t)
}

/// One event's table: its keys in sorted order, as `json_to_lua` fills an object.
fn one(lua: &Lua, k: &Keys, n: &Names, v: &Variant, e: &Event) -> mlua::Result<Value> {
    let sq = |s: &crate::geometry::Square| &n.squares[s.index()];
    let kind = |id: &crate::piece::KindId| &n.kinds[id.index()];
    let side = |s: &crate::piece::Side| &n.sides[s.index()];
    let obj = |len: usize| lua.create_table_with_capacity(0, len);
    let t = match e {
        // event, from, kind, side, to
        Event::Moved { side: s, kind: kd, from, to } | Event::Shot { side: s, kind: kd, from, to } => {
            let t = obj(5)?;
            t.raw_set(&k.event, k.name(if matches!(e, Event::Moved { .. }) { "moved" } else { "shot" }))?;
            t.raw_set(&k.from, sq(from))?;
            t.raw_set(&k.kind, kind(kd))?;
            t.raw_set(&k.side, side(s))?;
            t.raw_set(&k.to, sq(to))?;
            t
        }
        // event, kind, side, square
        Event::Captured { side: s, kind: kd, square }
        | Event::Killed { side: s, kind: kd, square }
        | Event::Dropped { side: s, kind: kd, square }
        | Event::Banked { side: s, kind: kd, square }
        | Event::Removed { side: s, kind: kd, square }
        | Event::Placed { side: s, kind: kd, square } => {
            let name = match e {
                Event::Captured { .. } => "captured",
                Event::Killed { .. } => "killed",
                Event::Dropped { .. } => "dropped",
                Event::Banked { .. } => "banked",
                Event::Removed { .. } => "removed",
                _ => "placed",
            };
            let t = obj(4)?;
            t.raw_set(&k.event, k.name(name))?;
            t.raw_set(&k.kind, kind(kd))?;
            t.raw_set(&k.side, side(s))?;
            t.raw_set(&k.square, sq(square))?;
            t
        }
        // amount, by, cause, event, hp, kind, note, side, square
        Event::Damaged { side: s, kind: kd, square, amount, hp, cause, by, note } => {
            let t = obj(9)?;
            t.raw_set(&k.amount, *amount)?;
            t.raw_set(&k.by, by.as_ref().map(sq))?;
            t.raw_set(&k.cause, &k.causes[cause_index(*cause)])?;
            t.raw_set(&k.event, k.name("damaged"))?;
            t.raw_set(&k.hp, *hp)?;
            t.raw_set(&k.kind, kind(kd))?;
            t.raw_set(&k.note, lua.create_string(note)?)?;
            t.raw_set(&k.side, side(s))?;
            t.raw_set(&k.square, sq(square))?;
            t
        }
        // event, from, side, to
        Event::Landed { side: s, from, to } => {
            let t = obj(4)?;
            t.raw_set(&k.event, k.name("landed"))?;
            t.raw_set(&k.from, sq(from))?;
            t.raw_set(&k.side, side(s))?;
            t.raw_set(&k.to, sq(to))?;
            t
        }
        // event, side, square
        Event::Bounced { side: s, square } | Event::Frozen { side: s, square } => {
            let t = obj(3)?;
            t.raw_set(&k.event, k.name(if matches!(e, Event::Bounced { .. }) { "bounced" } else { "frozen" }))?;
            t.raw_set(&k.side, side(s))?;
            t.raw_set(&k.square, sq(square))?;
            t
        }
        // event, from, side, square, to
        Event::Returned { side: s, square, from, to } | Event::Promoted { side: s, square, from, to } => {
            let t = obj(5)?;
            t.raw_set(&k.event, k.name(if matches!(e, Event::Returned { .. }) { "returned" } else { "promoted" }))?;
            t.raw_set(&k.from, kind(from))?;
            t.raw_set(&k.side, side(s))?;
            t.raw_set(&k.square, sq(square))?;
            t.raw_set(&k.to, kind(to))?;
            t
        }
        // event, king, rook, side
        Event::Castled { side: s, king_from, king_to, rook_from, rook_to } => {
            let pair = |a, b| -> mlua::Result<Table> {
                let p = lua.create_table_with_capacity(2, 0)?;
                p.raw_set(1, sq(a))?;
                p.raw_set(2, sq(b))?;
                Ok(p)
            };
            let t = obj(4)?;
            t.raw_set(&k.event, k.name("castled"))?;
            t.raw_set(&k.king, pair(king_from, king_to)?)?;
            t.raw_set(&k.rook, pair(rook_from, rook_to)?)?;
            t.raw_set(&k.side, side(s))?;
            t
        }
        Event::Scored { .. } | Event::TableScored { .. } | Event::Note { .. } | Event::Ended { .. } => {
            return json_to_lua(lua, &e.to_json(v));
        }
    };
    Ok(Value::Table(t))
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
