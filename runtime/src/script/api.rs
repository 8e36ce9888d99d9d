//! The `game` object that hooks receive: reads, and commands the core applies.
//! Squares are names (`"e4"`), sides `"white"`/`"black"`, kinds the variant's names.
//! Every list is ordered (by square), so no result depends on table order.

use mlua::{Lua, Table, UserData, UserDataMethods, Value};

use super::{Budget, Current, Watch, rules_place};
use crate::geometry::Square;
use crate::hooks::{HookGame, Var};
use crate::outcome::{GameResult, Outcome, Reason};
use crate::piece::{Piece, Side};

/// The userdata behind `game`: each method acts on the hook call in progress.
pub(crate) struct GameObject {
    pub(crate) current: Current,
    pub(crate) names: Names,
    pub(crate) budget: Budget,
    pub(crate) watch: Watch,
}

/// Square, kind and side names as Lua strings, made once per variant.
pub(crate) struct Names {
    pub squares: Vec<mlua::LuaString>,
    pub kinds: Vec<mlua::LuaString>,
    pub sides: [mlua::LuaString; 2],
}

impl Names {
    pub fn new(lua: &Lua, v: &crate::variant::Variant) -> mlua::Result<Names> {
        Ok(Names {
            squares: v
                .geometry
                .squares()
                .map(|sq| lua.create_string(v.square_name(sq)))
                .collect::<mlua::Result<_>>()?,
            kinds: v.kinds.iter().map(|k| lua.create_string(&k.name)).collect::<mlua::Result<_>>()?,
            sides: [lua.create_string("white")?, lua.create_string("black")?],
        })
    }

    /// `{square, kind, side}` for a piece.
    pub fn piece(&self, lua: &Lua, sq: Square, p: Piece) -> mlua::Result<Table> {
        let t = lua.create_table_with_capacity(0, 4)?;
        t.raw_set("square", &self.squares[sq.index()])?;
        t.raw_set("kind", &self.kinds[p.kind.index()])?;
        t.raw_set("side", &self.sides[p.side.index()])?;
        Ok(t)
    }
}

/// A Lua error at the calling script line (the rules' line also when the method was
/// called through `pcall`, whose frames have none).
fn fail(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(format!("{}{message}", rules_place(lua, 1)))
}

fn with_game<R>(
    lua: &Lua,
    this: &GameObject,
    f: impl FnOnce(&mut HookGame<'_>) -> Result<R, String>,
) -> mlua::Result<R> {
    // SAFETY: see `Current::get`: the view is used only within this callback.
    let g =
        unsafe { this.current.get() }.ok_or_else(|| fail(lua, "the game object can only be used while a hook runs"))?;
    f(g).map_err(|m| fail(lua, m))
}

fn square(g: &HookGame<'_>, name: &str) -> Result<Square, String> {
    g.variant().geometry.parse(name).map_err(|e| e.to_string())
}

fn side(name: &str) -> Result<Side, String> {
    Side::parse(name).ok_or_else(|| format!("`{name}` is not a side (\"white\" or \"black\")"))
}

pub(crate) fn piece_table(lua: &Lua, square: impl mlua::IntoLua, kind: &str, side: &str) -> mlua::Result<Table> {
    let t = lua.create_table_with_capacity(0, 4)?;
    t.set("square", square)?;
    t.set("kind", kind)?;
    t.set("side", side)?;
    Ok(t)
}

/// An outcome from a hook's words: `"white"`, `"black"` (the winner) or `"draw"`.
pub(crate) fn outcome(result: &str, reason: Option<&str>) -> Result<Outcome, String> {
    let reason = Reason::Rule(reason.unwrap_or("rules").to_string());
    let result = match result {
        "draw" => GameResult::Draw,
        other => {
            GameResult::Win(side(other).map_err(|_| format!("`{other}` is not \"white\", \"black\" or \"draw\""))?)
        }
    };
    Ok(Outcome { result, reason })
}

/// JSON (an event) as a Lua value: objects become tables, arrays sequences.
pub(super) fn json_to_lua(lua: &Lua, v: &serde_json::Value) -> mlua::Result<Value> {
    Ok(match v {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Boolean(*b),
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => Value::Integer(i),
            None => Value::Number(n.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(s) => Value::String(lua.create_string(s)?),
        serde_json::Value::Array(a) => {
            let t = lua.create_table_with_capacity(a.len(), 0)?;
            for (i, x) in a.iter().enumerate() {
                t.raw_set(i + 1, json_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
        serde_json::Value::Object(o) => {
            let t = lua.create_table_with_capacity(0, o.len())?;
            for (k, x) in o {
                t.raw_set(k.as_str(), json_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
    })
}

fn toml_to_lua(lua: &Lua, v: &toml::Value) -> mlua::Result<Value> {
    Ok(match v {
        toml::Value::String(s) => Value::String(lua.create_string(s)?),
        toml::Value::Integer(i) => Value::Integer(*i),
        toml::Value::Float(f) => Value::Number(*f),
        toml::Value::Boolean(b) => Value::Boolean(*b),
        toml::Value::Datetime(d) => Value::String(lua.create_string(d.to_string())?),
        toml::Value::Array(a) => {
            let t = lua.create_table()?;
            for (i, x) in a.iter().enumerate() {
                t.raw_set(i + 1, toml_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
        toml::Value::Table(m) => {
            let t = lua.create_table()?;
            for (k, x) in m {
                t.raw_set(k.as_str(), toml_to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
    })
}

/// The core's answers to what a rule would otherwise find by listing actions: attacks,
/// royal squares, checkers. Lists are ordered by square.
fn add_queries<M: UserDataMethods<GameObject>>(m: &mut M) {
    m.add_method("attacked", |lua, this, (sq, by): (mlua::LuaString, mlua::LuaString)| {
        with_game(lua, this, |g| {
            let s = square(g, &sq.to_string_lossy())?;
            Ok(g.attacked(s, side(&by.to_string_lossy())?))
        })
    });
    let squares = |lua: &Lua, this: &GameObject, list: Vec<Square>| -> mlua::Result<Table> {
        let t = lua.create_table_with_capacity(list.len(), 0)?;
        for (i, s) in list.into_iter().enumerate() {
            t.raw_set(i + 1, &this.names.squares[s.index()])?;
        }
        Ok(t)
    };
    m.add_method("royal_square", |lua, this, s: mlua::LuaString| {
        let first = with_game(lua, this, |g| Ok(g.royal_squares(side(&s.to_string_lossy())?).first().copied()))?;
        Ok(first.map(|sq| this.names.squares[sq.index()].clone()))
    });
    m.add_method("royal_squares", move |lua, this, s: mlua::LuaString| {
        let list = with_game(lua, this, |g| Ok(g.royal_squares(side(&s.to_string_lossy())?)))?;
        squares(lua, this, list)
    });
    m.add_method("checkers", move |lua, this, ()| {
        let list = with_game(lua, this, |g| Ok(g.checkers()))?;
        squares(lua, this, list)
    });
}

impl UserData for GameObject {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("to_move", |lua, this, ()| with_game(lua, this, |g| Ok(g.to_move().name())));
        m.add_method("ply", |lua, this, ()| with_game(lua, this, |g| Ok(g.ply() as i64)));
        m.add_method("in_check", |lua, this, ()| with_game(lua, this, |g| Ok(g.in_check())));
        m.add_method("score", |lua, this, s: String| with_game(lua, this, |g| Ok(g.score(side(&s)?))));
        m.add_method("piece", |lua, this, sq: mlua::LuaString| {
            let found = with_game(lua, this, |g| {
                let s = square(g, &sq.to_string_lossy())?;
                Ok(g.piece(s).map(|p| (s, p)))
            })?;
            match found {
                None => Ok(Value::Nil),
                Some((s, p)) => Ok(Value::Table(this.names.piece(lua, s, p)?)),
            }
        });
        m.add_method("pieces", |lua, this, which: Option<String>| {
            let list = with_game(lua, this, |g| {
                let only = which.as_deref().map(side).transpose()?;
                Ok(g.pieces().into_iter().filter(|(_, p)| only.is_none_or(|s| p.side == s)).collect::<Vec<_>>())
            })?;
            let t = lua.create_table_with_capacity(list.len(), 0)?;
            for (i, (s, p)) in list.into_iter().enumerate() {
                t.raw_set(i + 1, this.names.piece(lua, s, p)?)?;
            }
            Ok(t)
        });
        m.add_method("offset", |lua, this, (sq, dx, dy): (String, i64, i64)| {
            with_game(lua, this, |g| {
                let s = square(g, &sq)?;
                let geo = g.variant().geometry;
                Ok(geo
                    .offset(s, (dx.clamp(-16, 16) as i8, dy.clamp(-16, 16) as i8))
                    .map(|x| g.variant().square_name(x)))
            })
        });
        m.add_method("get", |lua, this, name: String| {
            let v = with_game(lua, this, |g| Ok(g.var(&name).cloned()))?;
            Ok(match v {
                None => Value::Nil,
                Some(Var::Int(i)) => Value::Integer(i),
                Some(Var::Bool(b)) => Value::Boolean(b),
                Some(Var::Text(t)) => Value::String(lua.create_string(&*t)?),
            })
        });
        m.add_method("set", |lua, this, (name, value): (String, Value)| {
            let var = match value {
                Value::Nil => None,
                Value::Integer(i) => Some(Var::Int(i)),
                Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => Some(Var::Int(n as i64)),
                Value::Boolean(b) => Some(Var::Bool(b)),
                // One copy of the bytes (valid UTF-8 is borrowed on the way).
                Value::String(s) => Some(Var::Text(String::from_utf8_lossy(&s.as_bytes()).as_ref().into())),
                other => {
                    return Err(fail(
                        lua,
                        format!("game:set keeps whole numbers, booleans and strings, not a {}", other.type_name()),
                    ));
                }
            };
            with_game(lua, this, |g| {
                let beside = |lua: &Lua| this.budget.in_use(lua);
                // (In the read-only hooks the refusal is the usual one, below.)
                if !g.is_read_only() && g.room_for_var(&name, var.as_ref(), beside(lua)).is_err() {
                    // Garbage does not count: collect it and ask again, once.
                    let _ = lua.gc_collect();
                    if let Err(why) = g.room_for_var(&name, var.as_ref(), beside(lua)) {
                        // A limit: `pcall` passes it on, so a hook cannot go on collecting.
                        return Err(this.watch.trip(why));
                    }
                }
                g.set_var_beside(&name, var, beside(lua))?;
                // From now on the state may use what the variables leave.
                this.budget.apply(lua, g.var_bytes());
                Ok(())
            })
        });
        m.add_method("random", |lua, this, n: Option<i64>| {
            with_game(lua, this, |g| match n {
                None => g.random().map(Value::Number),
                Some(n) if n >= 1 => g.random_int(n as u64).map(|x| Value::Integer(x as i64)),
                Some(n) => Err(format!("game:random({n}): n must be at least 1")),
            })
        });
        m.add_method("param", |lua, this, path: String| {
            let v = with_game(lua, this, |g| Ok(g.variant().param(&path).cloned()))?;
            match v {
                Some(v) => toml_to_lua(lua, &v),
                None => Err(fail(lua, format!("no parameter `{path}` in variant.toml ([params] or any dotted key)"))),
            }
        });
        add_queries(m);
        m.add_method("actions", |lua, this, ()| {
            let list = with_game(lua, this, |g| Ok(g.core_actions()))?;
            lua.create_sequence_from(list)
        });

        m.add_method("remove", |lua, this, sq: String| {
            let (s, p) = with_game(lua, this, |g| {
                let s = square(g, &sq)?;
                Ok((s, g.remove(s)?))
            })?;
            this.names.piece(lua, s, p)
        });
        m.add_method("place", |lua, this, (sq, kind, s): (String, String, String)| {
            with_game(lua, this, |g| {
                let at = square(g, &sq)?;
                let k = g
                    .variant()
                    .kind_named(&kind)
                    .ok_or_else(|| format!("`{kind}` is not a piece kind of this variant"))?;
                g.place(at, Piece::new(k, side(&s)?))
            })
        });
        m.add_method("move", |lua, this, (from, to): (String, String)| {
            with_game(lua, this, |g| {
                let (f, t) = (square(g, &from)?, square(g, &to)?);
                g.move_piece(f, t)
            })
        });
        m.add_method("award", |lua, this, (s, points, reason): (String, i64, Option<String>)| {
            with_game(lua, this, |g| g.award(side(&s)?, points, reason.as_deref().unwrap_or("rules")))
        });
        m.add_method("note", |lua, this, text: String| with_game(lua, this, |g| g.note(&text)));
        m.add_method("damage", |lua, this, (sq, amount): (String, i64)| {
            with_game(lua, this, |g| {
                let s = square(g, &sq)?;
                g.damage(s, amount.max(0))
            })
        });
        m.add_method("events", |lua, this, ()| {
            with_game(lua, this, |g| Ok(super::events::table(lua, &this.names, g.variant(), g.events())))?
        });
        m.add_method("hp", |lua, this, sq: String| {
            with_game(lua, this, |g| {
                let s = square(g, &sq)?;
                Ok(g.piece_state(s).and_then(|st| st.hp).map(|h| h as i64))
            })
        });
        m.add_method("end_game", |lua, this, (result, reason): (String, Option<String>)| {
            with_game(lua, this, |g| g.end_game(outcome(&result, reason.as_deref())?))
        });
        m.add_meta_method("__tostring", |_, _, ()| Ok("game"));
    }
}
