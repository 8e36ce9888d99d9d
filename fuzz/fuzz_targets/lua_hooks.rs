//! Hook bodies drawn from a small grammar over the hook API (`game:set/get`, `award`,
//! `place/move/remove/damage`, `note`, `end_game`, the reads, loops, `error`, `pcall`,
//! string operations, and what `filter_actions` returns), written into a `rules.lua` for
//! a variant that extends standard chess or Chessception under small limits, and played
//! for a few plies. A failing or runaway hook is a script error naming `rules.lua` and a
//! line, and the game is exactly as before it (rolled back); never a panic or an abort.
#![no_main]
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::LazyLock;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use varia::{Game, RuleError, Variant};
use varia_fuzz::state;

#[derive(Arbitrary, Debug, Clone, Copy)]
enum HookName {
    BeforeAction,
    AfterAction,
    OnRemoved,
    OnDamage,
    Score,
    OnTurnEnd,
    CheckOutcome,
    FilterActions,
}

impl HookName {
    fn signature(self) -> &'static str {
        match self {
            HookName::BeforeAction => "before_action(game, action)",
            HookName::AfterAction => "after_action(game, action)",
            HookName::OnRemoved => "on_removed(game, action)",
            HookName::OnDamage => "on_damage(game, action, amount, cause)",
            HookName::Score => "score(game, action)",
            HookName::OnTurnEnd => "on_turn_end(game, action)",
            HookName::CheckOutcome => "check_outcome(game, action)",
            HookName::FilterActions => "filter_actions(game, action)",
        }
    }
}

/// A local variable of the hook: `v0` … `v3` (declared at its top).
#[derive(Arbitrary, Debug)]
struct Var(u8);

impl Var {
    fn name(&self) -> String {
        format!("v{}", self.0 % 4)
    }
}

#[derive(Arbitrary, Debug)]
struct Sq(u8, u8);

impl Sq {
    fn lua(&self) -> String {
        // Mostly on the board; a few off it (files to l, ranks to 12).
        format!("\"{}{}\"", (b'a' + self.0 % 12) as char, 1 + self.1 % 12)
    }
}

const KINDS: &[&str] = &["pawn", "knight", "bishop", "rook", "queen", "king", "dragon"];
const SIDES: &[&str] = &["white", "black", "draw", "nobody"];
const NAMES: &[&str] = &["a", "b", "count", "log", "x"];
const STRINGS: &[&str] = &["", "e2-e4", "e7-e5", "x", "é", "%d+", "(a*)*b", "zz", "e2-e4@e4", "g1-f3"];

#[derive(Arbitrary, Debug)]
enum Expr {
    Nil,
    Int(i64),
    MaxInt,
    MinInt,
    Float(f64),
    Bool(bool),
    Str(u8),
    Text(String),
    Var(Var),
    /// The hook's second argument (the action text, the removed piece, …).
    Arg,
    Get(u8),
    Ply,
    ToMove,
    InCheck,
    PieceKind(Sq),
    Hp(Sq),
    Offset(Sq, i8, i8),
    Score(u8),
    Param(String),
    Actions,
    ActionCount,
    Random(Option<Box<Expr>>),
    EventCount,
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    IDiv(Box<Expr>, Box<Expr>),
    Concat(Box<Expr>, Box<Expr>),
    Rep(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>, Box<Expr>),
    Upper(Box<Expr>),
    Len(Box<Expr>),
    Match(Box<Expr>, u8),
    Gsub(Box<Expr>, u8, Box<Expr>),
    Format(Box<Expr>),
    ToStr(Box<Expr>),
    ToNum(Box<Expr>),
    Eq(Box<Expr>, Box<Expr>),
    Lt(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Table(Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Pcall(Box<Expr>),
    Char(u32),
}

#[derive(Arbitrary, Debug)]
enum Stmt {
    Assign(Var, Expr),
    Set(u8, Expr),
    Award(u8, Expr),
    Place(Sq, u8, u8),
    Move(Sq, Sq),
    Remove(Sq),
    Damage(Sq, Expr),
    Note(Expr),
    Print(Expr),
    EndGame(u8),
    Error(Expr),
    ErrorLevel0(Expr),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    For(u8, Vec<Stmt>),
    /// `while cond do … end` (a runaway when the condition holds).
    While(Expr, Vec<Stmt>),
    Forever,
    Pcall(Vec<Stmt>),
    Return(Ret),
    /// Assigns to a global (refused: the globals are frozen).
    Global(Expr),
    SetTableField(Var, Expr, Expr),
    Sort(Var),
}

#[derive(Arbitrary, Debug)]
enum Ret {
    Nothing,
    Value(Expr),
    /// `false, reason` (before_action's refusal).
    Refuse(Expr),
    /// The core's actions, or some of them, or with extra entries.
    Actions,
    Filtered(u8),
    Extra(Vec<Expr>),
    Pair(Expr, Expr),
}

struct Out {
    text: String,
    depth: usize,
}

impl Expr {
    fn lua(&self, d: usize) -> String {
        if d > 6 {
            return "nil".into();
        }
        let e = |x: &Expr| x.lua(d + 1);
        match self {
            Expr::Nil => "nil".into(),
            Expr::Int(i) => format!("({i})"),
            Expr::MaxInt => "math.maxinteger".into(),
            Expr::MinInt => "math.mininteger".into(),
            Expr::Float(f) if f.is_finite() => format!("({f:?})"),
            Expr::Float(_) => "(1/0)".into(),
            Expr::Bool(b) => b.to_string(),
            Expr::Str(i) => format!("{:?}", STRINGS[*i as usize % STRINGS.len()]),
            Expr::Text(s) => lua_string(s),
            Expr::Var(v) => v.name(),
            Expr::Arg => "action".into(),
            Expr::Get(i) => format!("game:get({:?})", NAMES[*i as usize % NAMES.len()]),
            Expr::Ply => "game:ply()".into(),
            Expr::ToMove => "game:to_move()".into(),
            Expr::InCheck => "game:in_check()".into(),
            Expr::PieceKind(s) => format!("(game:piece({}) or {{}}).kind", s.lua()),
            Expr::Hp(s) => format!("game:hp({})", s.lua()),
            Expr::Offset(s, x, y) => format!("game:offset({}, {x}, {y})", s.lua()),
            Expr::Score(s) => format!("game:score({:?})", SIDES[*s as usize % SIDES.len()]),
            Expr::Param(p) => format!("game:param({})", lua_string(p)),
            Expr::Actions => "game:actions()".into(),
            Expr::ActionCount => "#game:actions()".into(),
            Expr::Random(None) => "game:random()".into(),
            Expr::Random(Some(n)) => format!("game:random({})", e(n)),
            Expr::EventCount => "#game:events()".into(),
            Expr::Add(a, b) => format!("({} + {})", e(a), e(b)),
            Expr::Mul(a, b) => format!("({} * {})", e(a), e(b)),
            Expr::IDiv(a, b) => format!("({} // {})", e(a), e(b)),
            Expr::Concat(a, b) => format!("({} .. {})", e(a), e(b)),
            Expr::Rep(a, b) => format!("string.rep({}, {})", e(a), e(b)),
            Expr::Sub(a, b, c) => format!("string.sub({}, {}, {})", e(a), e(b), e(c)),
            Expr::Upper(a) => format!("string.upper({})", e(a)),
            Expr::Len(a) => format!("#{}", e(a)),
            Expr::Match(a, p) => format!("string.match({}, {:?})", e(a), STRINGS[*p as usize % STRINGS.len()]),
            Expr::Gsub(a, p, r) => {
                format!("string.gsub({}, {:?}, {})", e(a), STRINGS[*p as usize % STRINGS.len()], e(r))
            }
            Expr::Format(a) => format!("string.format(\"%s %d\", {}, 1)", e(a)),
            Expr::ToStr(a) => format!("tostring({})", e(a)),
            Expr::ToNum(a) => format!("tonumber({})", e(a)),
            Expr::Eq(a, b) => format!("({} == {})", e(a), e(b)),
            Expr::Lt(a, b) => format!("({} < {})", e(a), e(b)),
            Expr::Not(a) => format!("(not {})", e(a)),
            Expr::Table(items) => {
                format!("{{{}}}", items.iter().take(6).map(e).collect::<Vec<_>>().join(", "))
            }
            Expr::Index(t, k) => format!("({})[{}]", e(t), e(k)),
            Expr::Pcall(a) => format!("pcall(function() return {} end)", e(a)),
            Expr::Char(c) => format!("utf8.char({})", c % 0x11_0000),
        }
    }
}

fn lua_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes().take(40) {
        let _ = write!(out, "\\{b}");
    }
    out.push('"');
    out
}

impl Out {
    fn line(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.text.push_str("  ");
        }
        self.text.push_str(s);
        self.text.push('\n');
    }

    fn block(&mut self, stmts: &[Stmt], d: usize) {
        self.depth += 1;
        for s in stmts.iter().take(6) {
            self.stmt(s, d + 1);
        }
        self.depth -= 1;
    }

    fn stmt(&mut self, s: &Stmt, d: usize) {
        if d > 4 {
            return;
        }
        match s {
            Stmt::Assign(v, x) => self.line(&format!("{} = {}", v.name(), x.lua(0))),
            Stmt::Set(n, x) => self.line(&format!("game:set({:?}, {})", NAMES[*n as usize % NAMES.len()], x.lua(0))),
            Stmt::Award(side, x) => {
                self.line(&format!("game:award({:?}, {}, \"fuzz\")", SIDES[*side as usize % SIDES.len()], x.lua(0)))
            }
            Stmt::Place(sq, k, side) => self.line(&format!(
                "game:place({}, {:?}, {:?})",
                sq.lua(),
                KINDS[*k as usize % KINDS.len()],
                SIDES[*side as usize % SIDES.len()]
            )),
            Stmt::Move(a, b) => self.line(&format!("game:move({}, {})", a.lua(), b.lua())),
            Stmt::Remove(a) => self.line(&format!("game:remove({})", a.lua())),
            Stmt::Damage(a, x) => self.line(&format!("game:damage({}, {})", a.lua(), x.lua(0))),
            Stmt::Note(x) => self.line(&format!("game:note({})", x.lua(0))),
            Stmt::Print(x) => self.line(&format!("print({})", x.lua(0))),
            Stmt::EndGame(r) => self.line(&format!("game:end_game({:?}, \"fuzz\")", SIDES[*r as usize % SIDES.len()])),
            Stmt::Error(x) => self.line(&format!("error({})", x.lua(0))),
            Stmt::ErrorLevel0(x) => self.line(&format!("error({}, 0)", x.lua(0))),
            Stmt::If(c, a, b) => {
                self.line(&format!("if {} then", c.lua(0)));
                self.block(a, d);
                self.line("else");
                self.block(b, d);
                self.line("end");
            }
            Stmt::For(n, body) => {
                self.line(&format!("for i = 1, {} do", n % 20));
                self.block(body, d);
                self.line("end");
            }
            Stmt::While(c, body) => {
                self.line(&format!("while {} do", c.lua(0)));
                self.block(body, d);
                self.line("end");
            }
            Stmt::Forever => self.line("while true do end"),
            Stmt::Pcall(body) => {
                self.line("pcall(function()");
                self.block(body, d);
                self.line("end)");
            }
            Stmt::Return(r) => {
                // `return` must end a block: wrap it in one.
                let value = match r {
                    Ret::Nothing => String::new(),
                    Ret::Value(x) => x.lua(0),
                    Ret::Refuse(x) => format!("false, {}", x.lua(0)),
                    Ret::Actions => "game:actions()".into(),
                    Ret::Filtered(k) => format!(
                        "(function() local t = {{}} for i, a in ipairs(game:actions()) do if i % {} == 0 then t[#t + 1] = a end end return t end)()",
                        1 + k % 4
                    ),
                    Ret::Extra(items) => format!(
                        "(function() local t = game:actions() {} return t end)()",
                        items.iter().take(4).map(|x| format!("t[#t + 1] = {}", x.lua(0))).collect::<String>()
                    ),
                    Ret::Pair(a, b) => format!("{}, {}", a.lua(0), b.lua(0)),
                };
                self.line(&format!("do return {value} end"));
            }
            Stmt::Global(x) => self.line(&format!("new_global = {}", x.lua(0))),
            Stmt::SetTableField(v, k, x) => {
                self.line(&format!("if type({0}) == \"table\" then {0}[{1}] = {2} end", v.name(), k.lua(0), x.lua(0)))
            }
            Stmt::Sort(v) => self.line(&format!("table.sort({})", v.name())),
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    /// Extend Chessception (combat, its own hooks) rather than standard chess.
    combat: bool,
    hooks: Vec<(HookName, Vec<Stmt>)>,
    /// Which action to play at each ply.
    picks: Vec<u8>,
    /// Top-level statements run while the script loads.
    top: Vec<Stmt>,
}

fn script(input: &Input) -> String {
    let mut out = Out { text: String::from("-- generated by the lua_hooks fuzz target\n"), depth: 0 };
    if !input.top.is_empty() {
        out.line("local v0, v1, v2, v3 = nil, nil, nil, nil");
        out.line("local game = { set = function() end, get = function() end }");
        for s in input.top.iter().take(3) {
            out.stmt(s, 0);
        }
    }
    let mut seen = Vec::new();
    for (hook, body) in input.hooks.iter().take(4) {
        let sig = hook.signature();
        if seen.contains(&sig) {
            continue;
        }
        seen.push(sig);
        out.line(&format!("function {sig}"));
        out.depth += 1;
        out.line("local v0, v1, v2, v3 = 1, \"e2-e4\", {}, nil");
        out.depth -= 1;
        out.block(body, 0);
        out.line("end");
    }
    out.text
}

/// A folder of its own for this process, in memory where the system has one.
static DIR: LazyLock<PathBuf> = LazyLock::new(|| {
    let base = if std::path::Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
    let dir = base.join(format!("varia-fuzz-{}", std::process::id())).join("hooked");
    std::fs::create_dir_all(&dir).unwrap();
    dir
});

fn check_script_error(e: &RuleError, lua: &str) {
    let text = e.to_string();
    assert!(text.contains("rules.lua"), "a hook's error does not name the script: {text}\n{lua}");
}

fuzz_target!(|input: Input| {
    let lua = script(&input);
    let parent = if input.combat { "chessception" } else { "standard" };
    let toml = format!(
        "extends = \"{parent}\"\n\n[scripting]\nmemory_limit_mb = 8\ninstruction_limit = 100000\ntime_limit_ms = 2000\n"
    );
    std::fs::write(DIR.join("variant.toml"), toml).unwrap();
    std::fs::write(DIR.join("rules.lua"), &lua).unwrap();
    let variant = match Variant::load(DIR.to_str().unwrap()) {
        Ok(v) => v,
        Err(e) => {
            assert!(!e.problems().is_empty());
            return;
        }
    };
    let mut game = Game::new(variant);
    for &p in input.picks.iter().take(6) {
        if game.outcome().is_some() {
            break;
        }
        let legal = match game.try_legal_actions() {
            Ok(l) => l,
            Err(e) => {
                check_script_error(&e, &lua);
                break;
            }
        };
        if legal.is_empty() {
            break;
        }
        let a = legal[p as usize % legal.len()];
        let before = state(&game);
        match game.apply(a) {
            Ok(events) => {
                let _ = format!("{events:?}");
                let _ = game.fen();
            }
            Err(e) => {
                if matches!(e, RuleError::Script(_) | RuleError::Listing(_)) {
                    check_script_error(&e, &lua);
                }
                assert_eq!(state(&game), before, "a failed action was not rolled back: {e}\n{lua}");
            }
        }
    }
    // Undo goes back to the start, whatever the hooks did.
    let plies = game.ply();
    assert_eq!(game.undo(plies), plies);
    assert_eq!(game.ply(), 0);
});
