//! The Lua host: a variant's `rules.lua`, run in a sandbox, as the pipeline's hooks.
//!
//! - **One Lua 5.4 state per loaded variant**, with only the `table`, `string`, `math`
//!   and `utf8` libraries. `io`, `os`, `package`/`require`, `debug` and coroutines are
//!   not loaded; `dofile`, `loadfile`, `load`, `collectgarbage`, `string.dump`,
//!   `math.random` and `math.randomseed` are removed (`game:random()` is the seeded
//!   replacement). `print` writes a note into the action's events.
//! - **Limits**: a memory limit for the state, an instruction budget per hook call
//!   (library work in C counted too) and a CPU-time backstop (`[scripting]` in
//!   variant.toml), all holding while the scripts load as well. A runaway hook is
//!   stopped with an error naming the script and the line it was on (see `Watch`).
//! - **Errors name places**: chunks are named `@<path>`, so errors read
//!   `scripts/<v>/rules.lua:7: ...`, with a traceback.
//! - **Globals are frozen** after loading: a hook cannot create or change globals (state belongs
//!   in the game, `game:set`, so that rollback and undo cover it), and reading an
//!   undefined global is an error (it catches typos).
//! - **Determinism**: hooks get ordered lists, never tables to iterate with `pairs`.
//!
//! The `game` object (first argument of every hook) is documented in `scripts/README.md`.

mod allow;
mod api;
mod events;
mod fast;
mod guard;

use std::cell::Cell;
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use mlua::chunk::ChunkMode;
use mlua::{Function, Lua, LuaOptions, MultiValue, StdLib, Value, ffi};

use crate::error::{LoadError, Problem};
use crate::geometry::Square;
use crate::hooks::{Hook, HookGame, Hooks, Removed, ScriptError};
use crate::outcome::Outcome;
use crate::variant::{Script, Variant};

/// Instructions between two checks of the budget.
const CHECK_EVERY: u32 = 100;

/// The hooks of a variant's `rules.lua`.
pub struct LuaHooks {
    lua: Lua,
    game: mlua::AnyUserData,
    funcs: [Option<Function>; Hook::ALL.len()],
    /// The hook call in progress (see [`Current`]).
    current: Current,
    /// Held for the whole of each hook call: games on several threads may share one
    /// variant, and so one Lua state, whose `game` object, clock and memory budget serve
    /// one call at a time. (Lua's own lock is taken only inside the call, too late: a
    /// second thread would point `game` at its view while the first call runs.) It holds
    /// the buffers of `allow`'s listings.
    serial: std::sync::Mutex<allow::Scratch>,
    /// Square names as Lua strings, made once.
    squares: Vec<mlua::LuaString>,
    watch: Watch,
    budget: Budget,
    memory_mb: u32,
    /// The variant's own script, named in errors that have no better place.
    label: String,
    /// Which actions `allow` is called for (`allow_when`; none: every action).
    interest: Option<allow::Interest>,
    /// The action table `allow` receives (when it is defined).
    marshal: Option<allow::Marshal>,
}

/// `[scripting] memory_limit_mb` holds the Lua state and the game's variables together.
/// The state may use what the variables of the game in hand leave: set when a hook call
/// starts and after each `game:set` (Lua's allocator refuses past it, after a full
/// collection, so only live memory counts); and `game:set` refuses a value that would
/// take the variables past what the state uses (after a collection, too).
#[derive(Clone)]
pub(crate) struct Budget {
    /// What the state uses before the scripts load (the libraries, the prelude).
    base: usize,
    /// The limit, in bytes.
    limit: usize,
    /// The variables' bytes the state's limit was last set for: most calls find it
    /// unchanged and skip setting it (which takes the state's lock).
    applied: Arc<AtomicUsize>,
}

impl Budget {
    /// What the rules use of the state now (garbage included).
    pub(crate) fn in_use(&self, lua: &Lua) -> usize {
        lua.used_memory().saturating_sub(self.base)
    }

    /// Sets the state's limit to what `vars` bytes of variables leave.
    pub(crate) fn apply(&self, lua: &Lua, vars: usize) {
        if self.applied.swap(vars, Ordering::Relaxed) == vars {
            return;
        }
        // 0 would mean no limit (mlua's convention).
        let _ = lua.set_memory_limit(self.base.max(1).saturating_add(self.limit.saturating_sub(vars)));
    }
}

/// The hook call in progress: the view of the game that the `game` object acts on, set
/// for the length of one call and cleared right after (see `LuaHooks::call`); null
/// between calls. Shared by the host, the `game` object and `print`.
#[derive(Clone, Default)]
pub(crate) struct Current(Arc<AtomicPtr<HookGame<'static>>>);

impl Current {
    /// The view of the hook call in progress, if one is running.
    ///
    /// SAFETY: callers use the reference only inside the Lua callback that is running as
    /// part of that hook call (the Lua state is locked for the whole call, so no other
    /// thread gets here), and never keep it.
    #[allow(clippy::mut_from_ref)] // the pointer, not `self`, owns the view; see SAFETY
    pub(crate) unsafe fn get(&self) -> Option<&mut HookGame<'static>> {
        let p = self.0.load(Ordering::Acquire);
        unsafe { p.as_mut() }
    }
}

/// Splits `path:line: message` (Lua's format) into a located problem.
fn lua_problem(label: &str, message: &str) -> Problem {
    let rest = message.strip_prefix(label).and_then(|r| r.strip_prefix(':'));
    if let Some(rest) = rest
        && let Some((line, msg)) = rest.split_once(':')
        && let Ok(line) = line.trim().parse::<usize>()
    {
        return Problem { file: label.to_string(), line, col: 0, message: msg.trim().to_string() };
    }
    Problem { file: label.to_string(), line: 0, col: 0, message: message.to_string() }
}

/// The innermost message of an mlua error (callback errors wrap their cause).
fn root_message(e: &mlua::Error) -> String {
    let mut e = e;
    loop {
        match e {
            mlua::Error::CallbackError { cause, .. } => e = cause,
            mlua::Error::RuntimeError(m) => return m.clone(),
            mlua::Error::SyntaxError { message, .. } => return message.clone(),
            mlua::Error::MemoryError(m) => return m.clone(),
            mlua::Error::WithContext { cause, .. } => e = cause,
            other => return other.to_string(),
        }
    }
}

/// `short_src:line:` of the Lua function `level` frames up, for errors raised in Rust.
pub(crate) fn where_(lua: &Lua, level: usize) -> String {
    lua.inspect_stack(level, |d| {
        let src = d.source().short_src.map(|s| s.into_owned()).unwrap_or_default();
        match d.current_line() {
            Some(l) => format!("{src}:{l}: "),
            None => String::new(),
        }
    })
    .unwrap_or_default()
}

/// `short_src:line: ` of the first Lua function from `level` frames up that is not in the
/// prelude's wrappers: the line of the rules that made the call (empty if none).
fn rules_place(lua: &Lua, level: usize) -> String {
    (level..level + 50)
        .find_map(|level| {
            lua.inspect_stack(level, |d| {
                let src = d.source().short_src.map(|s| s.into_owned()).unwrap_or_default();
                let line = d.current_line()?;
                (src != "prelude").then(|| format!("{src}:{line}: "))
            })
            .flatten()
        })
        .unwrap_or_default()
}

impl LuaHooks {
    /// Builds the sandbox and runs the variant's scripts (parents first). Every problem
    /// found is reported.
    pub fn load(v: &Variant) -> Result<LuaHooks, LoadError> {
        let label = v.scripts.last().map(|s| s.label.clone()).unwrap_or_default();
        let fail = |p: Problem| LoadError::Invalid { problems: vec![p] };
        let internal = |e: mlua::Error| fail(Problem { file: label.clone(), line: 0, col: 0, message: e.to_string() });

        let libs = StdLib::TABLE | StdLib::STRING | StdLib::MATH | StdLib::UTF8;
        let lua = Lua::new_with(libs, LuaOptions::default()).map_err(internal)?;
        // Hooks make short-lived tables (`game:events()`, the action tables of `allow`)
        // and keep little: a generational collector frees them young, cheaply.
        lua.gc_set_mode(mlua::state::GcMode::Generational(mlua::state::GcGenParams::default()));
        let g = lua.globals();
        // The limits hold from the start: loading the scripts is bounded like a hook call.
        let watch = Watch::new(&v.scripting);
        watch.start();
        let watched = watch.install(&lua).map_err(internal)?;
        let (wrap, tripped) = guard::functions(&lua, watched).map_err(internal)?;
        g.set("__varia_wrap", wrap).map_err(internal)?;
        g.set("__varia_tripped", tripped).map_err(internal)?;
        lua.load(PRELUDE).set_name("=prelude").exec().map_err(internal)?;
        let budget = Budget {
            base: lua.used_memory(),
            limit: crate::hooks::limit_bytes(v.scripting.memory_limit_mb),
            applied: Arc::new(AtomicUsize::new(usize::MAX)),
        };
        budget.apply(&lua, 0);
        watch.start();
        let current = Current::default();
        let cur = current.clone();
        let print = lua
            .create_function(move |lua, args: MultiValue| {
                // An error in a `__tostring` (a stopped call, too) is the hook's error.
                let text = args.iter().map(|v| v.to_string()).collect::<mlua::Result<Vec<String>>>()?;
                let line = text.join("\t");
                // SAFETY: see `Current::get`.
                let noted = unsafe { cur.get() }.is_some_and(|g| g.note(&line).is_ok());
                if !noted {
                    eprintln!("{}{line}", where_(lua, 1));
                }
                Ok(())
            })
            .map_err(internal)?;
        g.set("print", print).map_err(internal)?;
        let builtins: Vec<String> = g.pairs::<String, Value>().filter_map(|kv| kv.ok().map(|(k, _)| k)).collect();
        let mut problems = Vec::new();
        for (i, script) in v.scripts.iter().enumerate() {
            if i > 0 {
                // A child variant's hooks replace its parent's; the parent's stay callable.
                let parent = lua.create_table().map_err(internal)?;
                for h in Hook::ALL {
                    if let Ok(f) = g.get::<Function>(h.name()) {
                        parent.set(h.name(), f).map_err(internal)?;
                    }
                }
                g.set("parent", parent).map_err(internal)?;
            }
            if let Err(e) =
                lua.load(&script.text).set_name(format!("@{}", script.label)).set_mode(ChunkMode::Text).exec()
            {
                let text = root_message(&e);
                let (message, traceback) = text.split_once("\nstack traceback:").unwrap_or((&text, ""));
                let mut p = lua_problem(&script.label, &located(&script.label, message, traceback));
                if p.message.contains("not enough memory") {
                    p.message = format!(
                        "the rules ran out of memory while loading ([scripting] memory_limit_mb = {})",
                        v.scripting.memory_limit_mb
                    );
                }
                problems.push(p);
            }
        }
        if problems.is_empty() {
            problems.extend(misspelt_hooks(&lua, &builtins, &v.scripts));
        }
        if !problems.is_empty() {
            return Err(LoadError::Invalid { problems });
        }

        let mut funcs: [Option<Function>; Hook::ALL.len()] = Default::default();
        for (i, h) in Hook::ALL.iter().enumerate() {
            funcs[i] = match g.get::<Value>(h.name()).map_err(internal)? {
                Value::Function(f) => Some(f),
                Value::Nil => None,
                other => {
                    return Err(fail(Problem {
                        file: label.clone(),
                        line: 0,
                        col: 0,
                        message: format!("`{}` must be a function, not a {}", h.name(), other.type_name()),
                    }));
                }
            };
        }
        let interest = allow::Interest::read(g.get::<Value>("allow_when").map_err(internal)?, v, &label)
            .map_err(|p| LoadError::Invalid { problems: vec![p] })?;
        if interest.is_some() && funcs[Hook::ALL.iter().position(|&h| h == Hook::Allow).unwrap()].is_none() {
            return Err(fail(Problem {
                file: label.clone(),
                line: 0,
                col: 0,
                message: "`allow_when` says which actions `allow` is called for, but there is no function `allow`"
                    .into(),
            }));
        }
        let marshal = match &funcs[Hook::ALL.iter().position(|&h| h == Hook::Allow).unwrap()] {
            Some(f) => Some(allow::Marshal::new(&lua, v, f).map_err(internal)?),
            None => None,
        };
        lua.load(FREEZE).set_name("=freeze").exec().map_err(internal)?;

        let squares = api::Names::new(&lua, v).map_err(internal)?.squares;
        let names = api::Names::new(&lua, v).map_err(internal)?;
        let game = lua
            .create_userdata(api::GameObject {
                current: current.clone(),
                names,
                budget: budget.clone(),
                watch: watch.clone(),
            })
            .map_err(internal)?;
        let names = api::Names::new(&lua, v).map_err(internal)?;
        let installed = fast::install(&lua, &game, current.clone(), budget.clone(), &names).map_err(internal)?;
        debug_assert!(installed, "mlua keeps the game object's methods in a table (fast.rs)");
        Ok(LuaHooks {
            lua,
            game,
            funcs,
            current,
            serial: std::sync::Mutex::new(allow::Scratch::default()),
            squares,
            watch,
            budget,
            memory_mb: v.scripting.memory_limit_mb,
            label,
            interest,
            marshal,
        })
    }

    fn func(&self, hook: Hook) -> &Function {
        self.funcs[Hook::ALL.iter().position(|&h| h == hook).unwrap()].as_ref().expect("called only when defined")
    }

    /// Calls a hook: `call` receives the function and the `game` object and makes the
    /// call with the hook's arguments. The view `g` is what `game` acts on meanwhile.
    fn call<R>(
        &self,
        hook: Hook,
        g: &mut HookGame<'_>,
        call: impl FnOnce(&Function, &mlua::AnyUserData) -> mlua::Result<R>,
    ) -> Result<R, ScriptError> {
        // Hooks never call hooks (their commands are applied by the core after the call),
        // so the lock is never taken twice on one thread. A poisoned lock guards nothing.
        let _serial = self.serial.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        self.budget.apply(&self.lua, g.var_bytes());
        let ptr = (g as *mut HookGame<'_>).cast::<HookGame<'static>>();
        self.current.0.store(ptr, Ordering::Release);
        self.watch.start();
        let result = call(self.func(hook), &self.game);
        self.current.0.store(std::ptr::null_mut(), Ordering::Release);
        result.map_err(|e| self.failure(hook, &e, g.var_bytes()))
    }

    /// A failed call's message and traceback, as a script error (`vars`: the bytes the
    /// game's variables held then).
    fn failure(&self, hook: Hook, e: &mlua::Error, vars: usize) -> ScriptError {
        let text = root_message(e);
        let (message, mut traceback) = match text.split_once("\nstack traceback:") {
            Some((m, t)) => (m.to_string(), format!("stack traceback:{t}")),
            None => (text.clone(), String::new()),
        };
        if let mlua::Error::CallbackError { traceback: t, .. } = e
            && traceback.is_empty()
        {
            traceback = t.clone();
        }
        let message = if message.contains("not enough memory") {
            // Lua raises a memory error without a place, so the message names the budget.
            let held = if vars > 0 {
                format!(", of which the game's variables (game:set) hold {}", crate::hooks::megabytes(vars))
            } else {
                String::new()
            };
            format!(
                "{}: the rules ran out of memory ([scripting] memory_limit_mb = {}{held})",
                self.label, self.memory_mb
            )
        } else if message.starts_with(|c: char| c.is_alphanumeric() || c == '.' || c == '/')
            && message.contains(".lua:")
        {
            message
        } else {
            located(&self.label, &message, &traceback)
        };
        ScriptError { hook: hook.name().to_string(), message, traceback }
    }

    fn wrong_type(&self, hook: Hook, expected: &str, got: &Value) -> ScriptError {
        let line = self.func(hook).info().line_defined.unwrap_or(0);
        ScriptError::new(
            hook.name(),
            format!("{}:{line}: `{}` must return {expected}, not a {}", self.label, hook.name(), got.type_name()),
        )
    }
}

impl Hooks for LuaHooks {
    fn defines(&self, hook: Hook) -> bool {
        self.funcs[Hook::ALL.iter().position(|&h| h == hook).unwrap()].is_some()
    }

    fn place(&self, hook: Hook) -> Option<String> {
        let f = self.funcs[Hook::ALL.iter().position(|&h| h == hook)?].as_ref()?;
        let info = f.info();
        let file = info.source.as_deref().and_then(|s| s.strip_prefix('@')).unwrap_or(&self.label).to_string();
        Some(match info.line_defined {
            Some(line) => format!("{file}:{line}"),
            None => file,
        })
    }

    fn before_action(&self, g: &mut HookGame<'_>, action: &str) -> Result<Option<String>, ScriptError> {
        let mut r: MultiValue = self.call(Hook::BeforeAction, g, |f, game| f.call((game, action)))?;
        match r.pop_front().unwrap_or(Value::Nil) {
            Value::Nil | Value::Boolean(true) => Ok(None),
            Value::Boolean(false) => Ok(Some(match r.pop_front() {
                Some(Value::String(s)) => s.to_string_lossy(),
                _ => "a rule refuses it (before_action)".to_string(),
            })),
            other => Err(self.wrong_type(Hook::BeforeAction, "nothing, true, or false and a reason", &other)),
        }
    }

    fn after_action(&self, g: &mut HookGame<'_>, action: &str) -> Result<(), ScriptError> {
        self.call(Hook::AfterAction, g, |f, game| f.call::<()>((game, action)))
    }

    fn on_removed(&self, g: &mut HookGame<'_>, removed: &Removed) -> Result<(), ScriptError> {
        let v = g.variant();
        let (kind, side) = (v.kind(removed.piece.kind).name.clone(), removed.piece.side.name());
        let sq = &self.squares[removed.square.index()];
        self.call(Hook::OnRemoved, g, |f, game| {
            let t = api::piece_table(&self.lua, sq, &kind, side)?;
            t.set("cause", removed.cause)?;
            f.call::<()>((game, t))
        })
    }

    fn on_damage(&self, g: &mut HookGame<'_>, square: Square, amount: i64, cause: &str) -> Result<i64, ScriptError> {
        let sq = &self.squares[square.index()];
        let r: Value = self.call(Hook::OnDamage, g, |f, game| f.call((game, sq, amount, cause)))?;
        match r {
            Value::Nil => Ok(amount),
            Value::Integer(n) => Ok(n.max(0)),
            Value::Number(n) if n.fract() == 0.0 => Ok((n as i64).max(0)),
            other => Err(self.wrong_type(Hook::OnDamage, "a whole number or nil", &other)),
        }
    }

    fn score(&self, g: &mut HookGame<'_>, action: &str) -> Result<i64, ScriptError> {
        let r: Value = self.call(Hook::Score, g, |f, game| f.call((game, action)))?;
        match r {
            Value::Nil => Ok(0),
            Value::Integer(n) => Ok(n),
            Value::Number(n) if n.fract() == 0.0 => Ok(n as i64),
            other => Err(self.wrong_type(Hook::Score, "a whole number or nil", &other)),
        }
    }

    fn on_turn_end(&self, g: &mut HookGame<'_>) -> Result<(), ScriptError> {
        self.call(Hook::OnTurnEnd, g, |f, game| f.call::<()>(game))
    }

    fn check_outcome(&self, g: &mut HookGame<'_>) -> Result<Option<Outcome>, ScriptError> {
        let mut r: MultiValue = self.call(Hook::CheckOutcome, g, |f, game| f.call(game))?;
        let first = r.pop_front().unwrap_or(Value::Nil);
        let reason = match r.pop_front() {
            Some(Value::String(s)) => Some(s.to_string_lossy()),
            _ => None,
        };
        match &first {
            Value::Nil => Ok(None),
            Value::String(s) => api::outcome(&s.to_string_lossy(), reason.as_deref())
                .map(Some)
                .map_err(|m| ScriptError::new("check_outcome", format!("{}: check_outcome: {m}", self.label))),
            _ => Err(self.wrong_type(Hook::CheckOutcome, "nil, or \"white\"/\"black\"/\"draw\" and a reason", &first)),
        }
    }

    fn filter_actions(&self, g: &mut HookGame<'_>, actions: Vec<String>) -> Result<Vec<String>, ScriptError> {
        let r: Value = self.call(Hook::FilterActions, g, |f, game| {
            let list = self.lua.create_sequence_from(actions)?;
            f.call((game, list))
        })?;
        match r {
            Value::Table(t) => {
                let mut out = Vec::new();
                for v in t.sequence_values::<Value>() {
                    match v {
                        Ok(Value::String(s)) => out.push(s.to_string_lossy()),
                        Ok(other) => {
                            return Err(self.wrong_type(Hook::FilterActions, "a list of action strings", &other));
                        }
                        Err(e) => return Err(ScriptError::new("filter_actions", e.to_string())),
                    }
                }
                Ok(out)
            }
            other => Err(self.wrong_type(Hook::FilterActions, "a list of action strings", &other)),
        }
    }

    fn allow(&self, g: &mut HookGame<'_>, actions: &mut Vec<crate::action::Action>) -> Result<(), ScriptError> {
        self.allow_actions(g, actions)
    }

    fn allow_reason(&self, g: &mut HookGame<'_>, a: &crate::action::Action) -> Result<Option<String>, ScriptError> {
        LuaHooks::allow_reason(self, g, a)
    }
}

/// An error message with its place: as Lua wrote it when it has one, else the line the
/// traceback shows. Lua adds no place to an error value that is not a string
/// (`error({})`, `error(nil)`), nor to `error(text, 0)`.
fn located(label: &str, message: &str, traceback: &str) -> String {
    if message.starts_with(|c: char| c.is_alphanumeric() || c == '.' || c == '/') && message.contains(".lua:") {
        return message.to_string();
    }
    let at = raising_line(traceback).unwrap_or_else(|| format!("{label}:"));
    format!("{at} {}", raised_value(message))
}

/// `path:line:` of the first frame of a traceback that is in the rules (not in C, nor in
/// the sandbox's own wrappers).
fn raising_line(traceback: &str) -> Option<String> {
    traceback.lines().map(str::trim).find_map(|l| {
        let (src, rest) = l.split_once(':')?;
        let (line, _) = rest.split_once(':')?;
        let ours = src.starts_with('[') || src == "prelude" || src == "freeze";
        (!ours && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())).then(|| format!("{src}:{line}:"))
    })
}

/// An error value as a message: a value that is no text (Lua shows a table as its heap
/// address) is named by its type.
fn raised_value(message: &str) -> String {
    let address = message.split_once(": 0x").filter(|(t, a)| {
        ["table", "function", "userdata", "thread"].contains(t) && a.bytes().all(|b| b.is_ascii_hexdigit())
    });
    match (address, message) {
        (Some((t, _)), _) => format!("error raised with a {t} value instead of a message"),
        (None, "nil" | "true" | "false") => format!("error raised with {message} instead of a message"),
        _ => message.to_string(),
    }
}

/// Every global function the scripts defined that looks like a misspelt hook.
fn misspelt_hooks(lua: &Lua, builtins: &[String], scripts: &[Script]) -> Vec<Problem> {
    let mut names: Vec<(String, Function)> = lua
        .globals()
        .pairs::<String, Value>()
        .filter_map(|kv| match kv.ok()? {
            (k, Value::Function(f)) if !builtins.contains(&k) && k != "parent" => Some((k, f)),
            _ => None,
        })
        .collect();
    names.sort_by(|a, b| a.0.cmp(&b.0));
    let hooks: Vec<&str> = Hook::ALL.iter().map(|h| h.name()).collect();
    let mut out = Vec::new();
    for (name, f) in names {
        if hooks.contains(&name.as_str()) {
            continue;
        }
        let near = hooks.iter().min_by_key(|h| crate::suggest::edit_distance(&name, h)).unwrap();
        if name.starts_with("on_") || crate::suggest::edit_distance(&name, near) <= 2 {
            let info = f.info();
            let file = info.source.as_deref().and_then(|s| s.strip_prefix('@')).map(str::to_string);
            let file = file.unwrap_or_else(|| scripts.last().map(|s| s.label.clone()).unwrap_or_default());
            out.push(Problem {
                file,
                line: info.line_defined.unwrap_or(0),
                col: 0,
                message: format!(
                    "`{name}` is not a hook (did you mean `{near}`?); the hooks are {} (other helper functions must not start with `on_`)",
                    hooks.join(", ")
                ),
            });
        }
    }
    out
}

/// What stops a runaway hook: an instruction budget and a deadline, both renewed when a
/// hook call starts (and before the scripts load). The count hook checks both every
/// [`CHECK_EVERY`] instructions. The library functions whose work grows with their input
/// (they run in C, between two checks) count that work against the budget before they
/// start (deterministic, like the count) and check the deadline; the pattern functions
/// refuse a pattern whose worst case on its subject is too long for one call. The
/// deadline (`time_limit_ms` of the thread's CPU time, 0 for none) is the backstop for what nothing
/// counts, such as `..` on long strings.
///
/// Reading the thread's CPU clock is a system call (about 3 µs on a busy virtual machine:
/// it made a hooked playout ply several times dearer than its Lua), so the checks read
/// the wall clock instead (no system call), which a thread's CPU time cannot outrun, and
/// read the CPU clock only once the wall clock says the deadline may have passed. A call
/// starts from a reading of the CPU clock at most [`CPU_MARK_AGE`] old, plus the wall
/// time since: the deadline is never early, and at most that much late.
#[derive(Clone)]
struct Watch {
    budget: Arc<AtomicU64>,
    /// In the thread's CPU time (see [`cpu_now`]).
    deadline: Arc<AtomicU64>,
    /// Nanoseconds of wall time after `epoch` before which the deadline cannot have passed.
    wall_deadline: Arc<AtomicU64>,
    epoch: Instant,
    limit: u64,
    time_ms: u64,
    /// A limit was reached in this call: `pcall` and `xpcall` pass the error on (a hook
    /// cannot catch its own stop and go on; Lua has no other way to catch an error).
    tripped: Arc<std::sync::atomic::AtomicBool>,
}

/// The CPU time of the calling thread, in nanoseconds.
#[cfg(unix)]
fn thread_cpu_nanos() -> Option<u64> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec; the call only writes into it.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    let secs = u64::try_from(t.tv_sec).ok()?;
    let nanos = u64::try_from(t.tv_nsec).ok()?;
    ok.then(|| secs.saturating_mul(1_000_000_000).saturating_add(nanos))
}

#[cfg(not(unix))]
fn thread_cpu_nanos() -> Option<u64> {
    None
}

/// How old a reading of the CPU clock a hook call may start from (see [`Watch`]).
const CPU_MARK_AGE: Duration = Duration::from_millis(1);

thread_local! {
    /// This thread's last reading of its CPU clock, and the instant it was taken.
    static CPU_MARK: Cell<Option<(Instant, u64)>> = const { Cell::new(None) };
}

/// The time this thread has run, in nanoseconds, read from the clock at `now`: CPU time
/// where the system gives it (a hook's limit must not depend on how busy the machine is:
/// a thread waiting for a core is not a runaway), else wall time since the first reading
/// in the process. A hook call starts and is checked on one thread, so readings compare.
fn cpu_now(now: Instant) -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let cpu = thread_cpu_nanos()
        .unwrap_or_else(|| now.saturating_duration_since(*EPOCH.get_or_init(|| now)).as_nanos() as u64);
    CPU_MARK.set(Some((now, cpu)));
    cpu
}

/// [`cpu_now`], or a bound at most [`CPU_MARK_AGE`] above it: the thread's last reading
/// plus the wall time since (CPU time cannot outrun the wall clock), while that reading
/// is recent enough.
fn cpu_at_most(now: Instant) -> u64 {
    match CPU_MARK.get() {
        Some((at, cpu)) if now.saturating_duration_since(at) <= CPU_MARK_AGE => {
            cpu.saturating_add(now.saturating_duration_since(at).as_nanos() as u64)
        }
        _ => cpu_now(now),
    }
}

/// The most steps a pattern function may need in the worst case (backtracking), about
/// 10–30 ms of C.
const PATTERN_STEPS: f64 = 1e7;

/// The most elements `table.sort` sorts (its comparisons run in C).
const SORT_ELEMENTS: usize = 100_000;

impl Watch {
    fn new(limits: &crate::variant::ScriptLimits) -> Watch {
        Watch {
            budget: Arc::new(AtomicU64::new(limits.instruction_limit.max(1))),
            deadline: Arc::new(AtomicU64::new(0)),
            wall_deadline: Arc::new(AtomicU64::new(0)),
            epoch: Instant::now(),
            limit: limits.instruction_limit.max(1),
            time_ms: limits.time_limit_ms as u64,
            tripped: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        }
    }

    /// Nanoseconds of wall time from `epoch` to `now`.
    fn wall(&self, now: Instant) -> u64 {
        now.saturating_duration_since(self.epoch).as_nanos() as u64
    }

    /// A new call: a full budget, and the deadline from now.
    fn start(&self) {
        self.budget.store(self.limit, Ordering::Relaxed);
        let now = Instant::now();
        let allowed = self.time_ms.saturating_mul(1_000_000);
        self.deadline.store(cpu_at_most(now).saturating_add(allowed), Ordering::Relaxed);
        self.wall_deadline.store(self.wall(now).saturating_add(allowed), Ordering::Relaxed);
        self.tripped.store(false, Ordering::Relaxed);
    }

    /// A new call within a session that [`Watch::start`] began (one listing's calls of
    /// `allow`): a full budget, the same deadline.
    fn renew(&self) {
        self.budget.store(self.limit, Ordering::Relaxed);
        self.tripped.store(false, Ordering::Relaxed);
    }

    /// Marks the call as stopped and returns `why`.
    fn trip(&self, why: String) -> String {
        self.tripped.store(true, Ordering::Relaxed);
        why
    }

    fn overdue(&self) -> bool {
        if self.time_ms == 0 {
            return false;
        }
        let now = Instant::now();
        let wall = self.wall(now);
        if wall <= self.wall_deadline.load(Ordering::Relaxed) {
            return false;
        }
        // The deadline may have passed: ask the CPU clock.
        let cpu = cpu_now(now);
        let deadline = self.deadline.load(Ordering::Relaxed);
        if cpu > deadline {
            return true;
        }
        // Not yet; nor can it pass before the wall clock has run what is left.
        self.wall_deadline.store(wall.saturating_add(deadline - cpu), Ordering::Relaxed);
        false
    }

    fn budget_message(&self) -> String {
        format!(
            "stopped after {} instructions (an endless loop?); raise [scripting] instruction_limit if the rule really needs more",
            self.limit
        )
    }

    fn time_message(&self) -> String {
        format!(
            "stopped after {} ms (a runaway loop?); raise [scripting] time_limit_ms if the rule really needs longer",
            self.time_ms
        )
    }

    /// Installs the count hook (see [`count_hook`]): the state keeps a copy of this
    /// watch in its app data, and its address in its extra space, where the hook finds it.
    /// The copy's address is returned (the guard's C functions hold it too).
    fn install(&self, lua: &Lua) -> mlua::Result<*const Watch> {
        let w = Box::new(self.clone());
        let copy = &*w as *const Watch;
        let at = copy.cast_mut().cast::<std::ffi::c_void>();
        lua.set_app_data(Watched(w));
        // SAFETY: writes a pointer into the state's extra space (LUA_EXTRASPACE is the size
        // of a pointer, and nothing else uses it) and sets the hook; neither can fail.
        unsafe {
            lua.exec_raw::<()>((), |l| {
                *ffi::lua_getextraspace(l).cast::<*mut std::ffi::c_void>() = at;
                ffi::lua_sethook(l, Some(count_hook), ffi::LUA_MASKCOUNT, CHECK_EVERY as std::ffi::c_int);
            })?;
        }
        Ok(copy)
    }
}

/// The state's own copy of its [`Watch`] (see [`Watch::install`]), at an address that
/// does not move while the state lives.
pub(crate) struct Watched(#[allow(dead_code)] Box<Watch>);

/// The longest message a stopped call raises, in bytes (a place and a sentence).
const STOP_MESSAGE: usize = 1024;

/// The count hook, every [`CHECK_EVERY`] instructions: takes them from the call's budget
/// and stops the call (an error at the rules' line) when the budget is spent or the
/// deadline has passed. A C hook of its own, not mlua's: mlua's hook looks its callback up
/// in the registry and wraps it for errors and panics at every call, which cost more than
/// the instructions it counted in a hook that calls `allow` for every action.
unsafe extern "C-unwind" fn count_hook(l: *mut ffi::lua_State, _ar: *mut ffi::lua_Debug) {
    // SAFETY: the extra space holds null or the address of the state's `Watched` copy
    // (set by `Watch::install`), which lives as long as the state.
    let w = unsafe { (*ffi::lua_getextraspace(l).cast::<*const Watch>()).as_ref() };
    let Some(w) = w else { return };
    let left = w.budget.load(Ordering::Relaxed);
    let why = if left <= CHECK_EVERY as u64 {
        w.trip(w.budget_message())
    } else if w.overdue() {
        w.trip(w.time_message())
    } else {
        w.budget.store(left - CHECK_EVERY as u64, Ordering::Relaxed);
        return;
    };
    // Level 0 is the function the count stopped in. The message is copied out of the
    // heap before the error is raised: `lua_error` does not return, and nothing that
    // owns memory may be left on this frame when it jumps.
    let mut buf = [0u8; STOP_MESSAGE];
    let len = {
        // SAFETY: reads the stack of the running state (see `raw_rules_place`).
        let message = format!("{}{why}", unsafe { raw_rules_place(l, 0) });
        let len = message.len().min(STOP_MESSAGE);
        buf[..len].copy_from_slice(&message.as_bytes()[..len]);
        len
    };
    drop(why);
    // SAFETY: pushes the message and raises it as the error of the running call, as a C
    // hook may (the count hook runs inside a call that mlua protects).
    unsafe {
        ffi::lua_pushlstring(l, buf.as_ptr().cast(), len);
        ffi::lua_error(l);
    }
}

/// [`rules_place`] through the C API (for the count hook, which has no `Lua` handle).
///
/// SAFETY: `l` is a running state (inside a hook or a function it called).
unsafe fn raw_rules_place(l: *mut ffi::lua_State, level: usize) -> String {
    for level in level..level + 50 {
        // SAFETY: `ar` is a zeroed debug record that `lua_getstack` and `lua_getinfo` fill.
        let (src, line) = unsafe {
            let mut ar = std::mem::zeroed::<ffi::lua_Debug>();
            if ffi::lua_getstack(l, level as std::ffi::c_int, &mut ar) == 0 {
                break;
            }
            if ffi::lua_getinfo(l, c"Sl".as_ptr(), &mut ar) == 0 {
                continue;
            }
            (std::ffi::CStr::from_ptr(ar.short_src.as_ptr()).to_string_lossy().into_owned(), ar.currentline)
        };
        if line >= 0 && src != "prelude" {
            return format!("{src}:{line}: ");
        }
    }
    String::new()
}

/// An upper bound on the matching steps of a Lua pattern on a subject of `n` bytes:
/// every start position (one if anchored), times `n + 1` for each repeated item (`*`,
/// `+`, `-`), each balance `%b` and back-reference, and 2 for each optional item (`?`),
/// times the width of the widest set (each step tests its parts).
fn pattern_steps(p: &[u8], n: usize, anchors: bool) -> f64 {
    let n1 = (n + 1) as f64;
    let mut i = 0;
    let mut steps = n1;
    if anchors && p.first() == Some(&b'^') {
        steps = 1.0;
        i = 1;
    }
    // Each step matches one character against one item; a set tests each of its parts.
    let mut widest = 1usize;
    while i < p.len() {
        match p[i] {
            b'[' => widest = widest.max(set_end(p, i) - i),
            b'%' if p.get(i + 1) == Some(&b'f') => widest = widest.max(set_end(p, i + 2) - i),
            _ => {}
        }
        match p[i] {
            b'(' | b')' => {
                i += 1;
                continue;
            }
            b'%' => match p.get(i + 1) {
                Some(b'b') => {
                    steps *= n1;
                    i += 4;
                    continue;
                }
                Some(b'f') => {
                    i = set_end(p, i + 2);
                    continue;
                }
                Some(c) if c.is_ascii_digit() => {
                    steps *= n1;
                    i += 2;
                    continue;
                }
                _ => i += 2,
            },
            b'[' => i = set_end(p, i),
            _ => i += 1,
        }
        match p.get(i) {
            Some(b'*' | b'+' | b'-') => {
                steps *= n1;
                i += 1;
            }
            Some(b'?') => {
                steps *= 2.0;
                i += 1;
            }
            _ => {}
        }
    }
    steps * widest as f64
}

/// The index just past a set `[...]` starting at `i` (as Lua reads it: `^` first, a `]`
/// first is literal, `%x` escapes); the end of the pattern if it is not closed.
fn set_end(p: &[u8], mut i: usize) -> usize {
    if p.get(i) != Some(&b'[') {
        return i;
    }
    i += 1;
    if p.get(i) == Some(&b'^') {
        i += 1;
    }
    let mut first = true;
    while i < p.len() {
        match p[i] {
            b']' if !first => return i + 1,
            b'%' => i += 2,
            _ => i += 1,
        }
        first = false;
    }
    p.len()
}

/// Run before the scripts: remove what a sandbox must not have, and wrap the library
/// functions whose work grows with their input (they run in C, out of reach of the
/// instruction count) in the host's guard (`__varia_wrap`, see `guard.rs`): past the
/// deadline, or with a pattern too costly for its subject, they raise an error at the
/// caller's line instead.
const PRELUDE: &str = r#"
dofile, loadfile, load, collectgarbage, require = nil, nil, nil, nil, nil
string.dump = nil
math.random, math.randomseed = nil, nil
getmetatable("").__metatable = "protected"
local wrap, tripped, error = __varia_wrap, __varia_tripped, error
__varia_wrap, __varia_tripped = nil, nil
-- pcall and xpcall pass on the error of a call stopped by a limit: a hook cannot catch
-- its own stop and go on.
local pcall_, pack, unpack, rawget, type = pcall, table.pack, table.unpack, rawget, type
local function after(r)
  local why = tripped()
  if why then error(r[1] and why or r[2], 0) end
  return unpack(r, 1, r.n)
end
pcall = function(...) return after(pack(pcall_(...))) end
-- The message handler runs after the error, as ordinary (limited) code.
xpcall = function(f, handler, ...)
  local r = pack(pcall_(f, ...))
  if not r[1] and not tripped() then return false, (handler(r[2])) end
  return after(r)
end
-- Finalizers run with the instruction count off (Lua's own rule): none in rules.
local setmetatable_ = setmetatable
setmetatable = function(t, mt)
  if type(t) ~= "table" then
    error("bad argument #1 to 'setmetatable' (table expected, got " .. type(t) .. ")", 2)
  end
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("finalizers (__gc) are not allowed in rules", 2)
  end
  local ok, r = pcall_(setmetatable_, t, mt)
  if not ok then error(r, 2) end
  return r
end
for lib, names in pairs({
  string = { "find", "match", "gmatch", "gsub", "rep", "sub", "upper", "lower", "reverse", "format", "byte",
             "pack", "unpack" },
  table = { "concat", "sort", "insert", "remove", "move", "unpack" },
  utf8 = { "len", "codepoint", "offset" },
  _G = { "tonumber" },
}) do
  local t = _G[lib]
  for _, name in ipairs(names) do
    t[name] = wrap(t[name], lib == "_G" and name or lib .. "." .. name)
  end
end
"#;

/// Run after the scripts: the globals become read-only (no new ones, no changing the
/// ones there: state belongs in the game, where rollback and undo see it), and reading
/// an undefined one is an error. They move to a hidden table that `_G` reads through.
const FREEZE: &str = r#"
local G, globals, rawset_, error, tostring, next, setmetatable = _G, {}, rawset, error, tostring, next, setmetatable
for k, v in next, G do globals[k] = v end
for k in next, globals do rawset_(G, k, nil) end
setmetatable(globals, {
  __index = function(_, k)
    error("unknown global `" .. tostring(k) .. "`", 2)
  end,
  __metatable = "protected",
})
local function refuse(k)
  error("hooks cannot set global variables (`" .. tostring(k) .. "`): keep state with game:set(name, value)", 3)
end
globals.rawset = function(t, k, v)
  if t == G then refuse(k) end
  return rawset_(t, k, v)
end
setmetatable(G, {
  __index = globals,
  __newindex = function(_, k) refuse(k) end,
  __metatable = "protected",
})
"#;
