//! Hooks: rules that no mechanism covers, called by name at fixed points of the pipeline.
//!
//! The core does not know Lua: it calls a [`Hooks`] implementation (the Lua host in
//! `script/` is one; a game can supply its own in Rust). A hook reads the game and acts
//! only through [`HookGame`] commands, which the core applies, so every change emits
//! events and a failing hook can be rolled back completely.
//!
//! | hook | when | may |
//! |---|---|---|
//! | `before_action(game, action)` | before an action is applied | return `false, "why"` to refuse it; issue commands |
//! | `after_action(game, action)` | after it is applied (and its removals reported) | issue commands |
//! | `on_removed(game, piece)` | a piece left the board (captured, killed, removed by a rule) | issue commands |
//! | `on_damage(game, damage)` | a piece is about to take damage | return the new amount |
//! | `score(game, action)` | after the action | return points for the side that acted, or call `game:award` |
//! | `on_turn_end(game)` | after every completed turn | issue commands |
//! | `check_outcome(game)` | after the core judged the position | return an outcome to end the game |
//! | `allow(game, action)` | for each core-legal action it declares interest in, when actions are listed | return `false, "why"` to take it out |
//! | `filter_actions(game, actions)` | whenever legal actions are listed (the slow path) | return the list to use |

mod vars;

use std::sync::Arc;

use thiserror::Error;

use crate::action::Action;
use crate::event::Event;
use crate::game::Game;
use crate::geometry::Square;
use crate::outcome::Outcome;
use crate::piece::{Piece, Side};
use crate::rng::Rng;
use crate::variant::Variant;

pub use vars::{Iter as VarsIter, Vars};

/// The hook points of the pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hook {
    BeforeAction,
    AfterAction,
    OnRemoved,
    OnDamage,
    Score,
    OnTurnEnd,
    CheckOutcome,
    FilterActions,
    Allow,
}

impl Hook {
    pub const ALL: [Hook; 9] = [
        Hook::BeforeAction,
        Hook::AfterAction,
        Hook::OnRemoved,
        Hook::OnDamage,
        Hook::Score,
        Hook::OnTurnEnd,
        Hook::CheckOutcome,
        Hook::FilterActions,
        Hook::Allow,
    ];

    /// The name of the global function that implements it.
    pub fn name(self) -> &'static str {
        match self {
            Hook::BeforeAction => "before_action",
            Hook::AfterAction => "after_action",
            Hook::OnRemoved => "on_removed",
            Hook::OnDamage => "on_damage",
            Hook::Score => "score",
            Hook::OnTurnEnd => "on_turn_end",
            Hook::CheckOutcome => "check_outcome",
            Hook::FilterActions => "filter_actions",
            Hook::Allow => "allow",
        }
    }

    pub fn parse(name: &str) -> Option<Hook> {
        Hook::ALL.into_iter().find(|h| h.name() == name)
    }
}

/// A hook failed (an error raised by the script, a limit hit, a wrong return value).
/// The action was rolled back.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ScriptError {
    /// The hook that failed.
    pub hook: String,
    /// `path:line: message`, as precise as the script allows.
    pub message: String,
    /// The Lua traceback, if any.
    pub traceback: String,
}

impl ScriptError {
    pub fn new(hook: &str, message: impl Into<String>) -> ScriptError {
        ScriptError { hook: hook.to_string(), message: message.into(), traceback: String::new() }
    }
}

/// A value a rule keeps in the game between hooks (`game:set` / `game:get`). Text is
/// shared, not copied, by every saved state that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Var {
    Int(i64),
    Bool(bool),
    Text(Arc<str>),
}

/// The rule-level state of a game: what hooks keep, scores, and the seeded generator.
/// Part of snapshots and of every rollback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleState {
    /// What hooks keep (`game:set`); a copy shares it (see [`Vars`]).
    pub vars: Vars,
    pub scores: [i64; 2],
    pub rng: Rng,
    /// An outcome declared by a hook (`game:end_game`), applied after the hook.
    pub declared: Option<Outcome>,
    /// Royal-repeat counts: per side, (square, arrivals) of its royal piece by plain moves
    /// since the last reset (another move of that side, castling, or any damage).
    pub royal_arrivals: [Vec<(Square, u32)>; 2],
    /// Game time that has passed, in milliseconds (an input: `Game::set_elapsed`).
    pub elapsed_ms: u64,
    /// Each side's score from the `[scoring]` tables (`game/score.rs`), once fed.
    pub table: Option<Box<[crate::scoring::ScoreState; 2]>>,
}

impl RuleState {
    pub fn new(seed: u64) -> RuleState {
        RuleState {
            vars: Vars::new(),
            scores: [0; 2],
            rng: Rng::new(seed),
            declared: None,
            royal_arrivals: [Vec::new(), Vec::new()],
            elapsed_ms: 0,
            table: None,
        }
    }
}

/// `[scripting] memory_limit_mb` in bytes.
pub(crate) fn limit_bytes(mb: u32) -> usize {
    (mb as usize).saturating_mul(1 << 20)
}

/// `n` bytes as MB, for messages.
pub(crate) fn megabytes(n: usize) -> String {
    format!("{:.1} MB", n as f64 / (1u64 << 20) as f64)
}

/// A name as a message shows it: at most 40 characters.
fn short(name: &str) -> String {
    match name.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &name[..i]),
        None => name.to_string(),
    }
}

/// A piece that left the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed {
    pub square: Square,
    pub piece: Piece,
    /// `"capture"`, `"damage"` (killed at 0 HP) or `"rules"` (removed by a hook's command).
    pub cause: &'static str,
}

/// A rules implementation called by the pipeline. Every method has a default that
/// does nothing, so an implementation overrides only what it defines; `defines` tells
/// the core which hooks exist, so undefined hooks cost nothing.
pub trait Hooks: Send + Sync {
    fn defines(&self, hook: Hook) -> bool;

    /// Where a hook is written (`path:line`), for messages about what it did; `None`
    /// when unknown.
    fn place(&self, _hook: Hook) -> Option<String> {
        None
    }

    /// `Ok(Some(reason))` refuses the action.
    fn before_action(&self, _g: &mut HookGame<'_>, _action: &str) -> Result<Option<String>, ScriptError> {
        Ok(None)
    }
    fn after_action(&self, _g: &mut HookGame<'_>, _action: &str) -> Result<(), ScriptError> {
        Ok(())
    }
    fn on_removed(&self, _g: &mut HookGame<'_>, _removed: &Removed) -> Result<(), ScriptError> {
        Ok(())
    }
    /// Returns the damage to apply instead of `amount`.
    fn on_damage(&self, _g: &mut HookGame<'_>, _square: Square, amount: i64, _cause: &str) -> Result<i64, ScriptError> {
        Ok(amount)
    }
    /// Points for the side that acted.
    fn score(&self, _g: &mut HookGame<'_>, _action: &str) -> Result<i64, ScriptError> {
        Ok(0)
    }
    fn on_turn_end(&self, _g: &mut HookGame<'_>) -> Result<(), ScriptError> {
        Ok(())
    }
    fn check_outcome(&self, _g: &mut HookGame<'_>) -> Result<Option<Outcome>, ScriptError> {
        Ok(None)
    }
    /// The actions to offer instead of `actions` (in notation).
    fn filter_actions(&self, _g: &mut HookGame<'_>, actions: Vec<String>) -> Result<Vec<String>, ScriptError> {
        Ok(actions)
    }
    /// Takes out of `actions` (core-legal actions of the side to move) those the `allow`
    /// predicate refuses; an action it declares no interest in is kept without a call.
    /// The fast path of a rule that forbids moves: one call per action of interest, no
    /// text, no list rebuilt.
    fn allow(&self, _g: &mut HookGame<'_>, _actions: &mut Vec<Action>) -> Result<(), ScriptError> {
        Ok(())
    }
    /// Why `allow` refuses `action` (`Ok(None)`: it allows it, or takes no interest).
    fn allow_reason(&self, _g: &mut HookGame<'_>, _action: &Action) -> Result<Option<String>, ScriptError> {
        Ok(None)
    }
}

/// The game as a hook sees it: reads, and commands that the core applies at once
/// (emitting events). Created by the pipeline for the length of one hook call. In the
/// read-only hooks (`filter_actions`, `check_outcome`) commands are refused.
pub struct HookGame<'a> {
    game: GameRef<'a>,
    events: Option<&'a mut Vec<Event>>,
    /// Plies played beyond the game's history: a perft walk below it keeps no history.
    below: usize,
}

enum GameRef<'a> {
    Mut(&'a mut Game),
    Ref(&'a Game),
}

const READ_ONLY: &str = "this hook only reads the game; commands belong in the other hooks";

impl<'a> HookGame<'a> {
    pub(crate) fn new(game: &'a mut Game, events: &'a mut Vec<Event>) -> Self {
        HookGame { game: GameRef::Mut(game), events: Some(events), below: 0 }
    }

    /// A view that only reads (commands are refused): what `check_outcome` and
    /// `filter_actions` get, and what tools use to call a hook outside the pipeline.
    pub fn read_only(game: &'a Game) -> Self {
        HookGame { game: GameRef::Ref(game), events: None, below: 0 }
    }

    /// A read-only view of a position `below` plies past the game's history (a walk of
    /// the move tree that keeps none): `ply()` counts them.
    pub(crate) fn read_only_below(game: &'a Game, below: usize) -> Self {
        HookGame { game: GameRef::Ref(game), events: None, below }
    }

    fn g(&self) -> &Game {
        match &self.game {
            GameRef::Mut(g) => g,
            GameRef::Ref(g) => g,
        }
    }

    fn g_mut(&mut self) -> Result<(&mut Game, &mut Vec<Event>), String> {
        match (&mut self.game, &mut self.events) {
            (GameRef::Mut(g), Some(e)) => Ok((g, e)),
            _ => Err(READ_ONLY.into()),
        }
    }

    pub fn variant(&self) -> &Variant {
        self.g().variant()
    }
    pub fn piece(&self, sq: Square) -> Option<Piece> {
        self.g().piece_at(sq)
    }
    /// Every piece, ordered by square (a1, b1, …).
    pub fn pieces(&self) -> Vec<(Square, Piece)> {
        self.g().pieces()
    }
    pub fn to_move(&self) -> Side {
        self.g().to_move()
    }
    /// Plies played since the start.
    pub fn ply(&self) -> usize {
        self.g().ply().saturating_add(self.below)
    }
    pub fn in_check(&self) -> bool {
        self.g().in_check()
    }
    /// Whether a piece of `by` attacks `sq` (could capture there, the check rule aside).
    pub fn attacked(&self, sq: Square, by: Side) -> bool {
        self.g().attacked(sq, by)
    }
    /// The squares of `side`'s royal pieces, in square order.
    pub fn royal_squares(&self, side: Side) -> Vec<Square> {
        self.g().royal_squares(side)
    }
    /// The squares of the pieces that attack a royal piece of the side to move.
    pub fn checkers(&self) -> Vec<Square> {
        self.g().checkers()
    }
    /// The piece `action` takes (on its target, or en passant), if any.
    pub fn captured(&self, action: &Action) -> Option<Piece> {
        self.g().captured(action)
    }
    pub fn score(&self, side: Side) -> i64 {
        self.g().rules.scores[side.index()]
    }
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.g().rules.vars.get(name)
    }
    /// Everything about the piece on `sq` (hit points, auras…).
    pub fn piece_state(&self, sq: Square) -> Option<crate::piece::PieceState> {
        self.g().piece_state(sq)
    }
    /// The legal actions of the core (without `filter_actions`), in notation.
    pub fn core_actions(&self) -> Vec<String> {
        let g = self.g();
        g.core_actions().iter().map(|a| g.format(a)).collect()
    }

    /// The memory the game's rule variables hold, in bytes (see [`Vars::bytes`]).
    pub fn var_bytes(&self) -> usize {
        self.g().rules.vars.bytes()
    }

    /// Keeps a rule variable (`None` deletes it). The variables may hold at most
    /// `[scripting] memory_limit_mb`: a value that would take them past it is refused and
    /// nothing changes.
    pub fn set_var(&mut self, name: &str, value: Option<Var>) -> Result<(), String> {
        self.set_var_beside(name, value, 0)
    }

    /// [`HookGame::set_var`] for a host whose own memory, `beside` bytes (a script
    /// state's), counts against the same limit as the variables.
    pub fn set_var_beside(&mut self, name: &str, value: Option<Var>, beside: usize) -> Result<(), String> {
        self.g_mut()?;
        self.room_for_var(name, value.as_ref(), beside)?;
        self.g_mut()?.0.rules.vars.set(name, value);
        Ok(())
    }

    /// Whether `set_var_beside(name, value, beside)` would fit in the limit; why not if not.
    pub fn room_for_var(&self, name: &str, value: Option<&Var>, beside: usize) -> Result<(), String> {
        let mb = self.variant().scripting.memory_limit_mb;
        let vars = &self.g().rules.vars;
        let after = vars.bytes_after(name, value);
        // Deleting or shrinking is always allowed: it is how a rule gets back under.
        if after <= vars.bytes() || after.saturating_add(beside) <= limit_bytes(mb) {
            return Ok(());
        }
        let over = if beside > 0 {
            format!(", which with the {} the script's state uses is over", megabytes(beside))
        } else {
            ", over".to_string()
        };
        Err(format!(
            "game:set(\"{}\", …) would take the game's variables to {}{over} [scripting] memory_limit_mb = {mb}",
            short(name),
            megabytes(after),
        ))
    }

    /// Whether commands are refused (in `filter_actions` and `check_outcome`).
    pub fn is_read_only(&self) -> bool {
        self.events.is_none()
    }

    /// A number in `[0, 1)` from the game's seeded generator.
    pub fn random(&mut self) -> Result<f64, String> {
        Ok(self.g_mut()?.0.rules.rng.unit())
    }
    /// A whole number in `1..=n` from the game's seeded generator.
    pub fn random_int(&mut self, n: u64) -> Result<u64, String> {
        Ok(self.g_mut()?.0.rules.rng.below(n.max(1)) + 1)
    }

    /// The events of the action so far (empty in read-only hooks).
    pub fn events(&self) -> &[Event] {
        self.events.as_deref().map_or(&[], |e| e.as_slice())
    }

    /// Deals `amount` damage to the piece on `sq` (variants with hit points); at 0 HP it
    /// is removed (`on_removed` follows).
    pub fn damage(&mut self, sq: Square, amount: i64) -> Result<(), String> {
        let name = self.name(sq);
        let (g, events) = self.g_mut()?;
        if g.variant().combat.is_none() {
            return Err("this variant has no hit points (no [combat] in variant.toml)".into());
        }
        if !g.core_mut().damage(sq, amount, events) {
            return Err(format!("there is no piece on {name}"));
        }
        Ok(())
    }

    /// Removes the piece on `sq` (emits `Removed`; `on_removed` follows).
    pub fn remove(&mut self, sq: Square) -> Result<Piece, String> {
        let name = self.name(sq);
        let (g, events) = self.g_mut()?;
        let piece = g.core_mut().remove(sq).ok_or_else(|| format!("there is no piece on {name}"))?;
        events.push(Event::Removed { side: piece.side, kind: piece.kind, square: sq });
        Ok(piece)
    }
    /// Puts a piece on an empty square (at full hit points, with no marks).
    pub fn place(&mut self, sq: Square, piece: Piece) -> Result<(), String> {
        let name = self.name(sq);
        let (g, events) = self.g_mut()?;
        if g.piece_at(sq).is_some() || !g.core_mut().place(sq, piece) {
            return Err(format!("{name} is occupied"));
        }
        events.push(Event::Placed { side: piece.side, kind: piece.kind, square: sq });
        Ok(())
    }
    /// Moves a piece to an empty square, with its hit points and marks.
    pub fn move_piece(&mut self, from: Square, to: Square) -> Result<(), String> {
        let (nf, nt) = (self.name(from), self.name(to));
        let (g, events) = self.g_mut()?;
        if g.piece_at(from).is_none() {
            return Err(format!("there is no piece on {nf}"));
        }
        if from != to && g.piece_at(to).is_some() {
            return Err(format!("{nt} is occupied"));
        }
        let piece = g.core_mut().move_piece(from, to).ok_or_else(|| format!("{nt} is occupied"))?;
        events.push(Event::Moved { side: piece.side, kind: piece.kind, from, to });
        Ok(())
    }
    /// Adds points to a side's score; refused if the score would leave the range of a
    /// 64-bit integer (it never wraps).
    pub fn award(&mut self, side: Side, points: i64, reason: &str) -> Result<(), String> {
        let (g, events) = self.g_mut()?;
        let score = &mut g.rules.scores[side.index()];
        *score = score.checked_add(points).ok_or_else(|| {
            format!(
                "awarding {points} to {side} would take its score ({score}) past the range of whole numbers \
                 ({} to {})",
                i64::MIN,
                i64::MAX
            )
        })?;
        events.push(Event::Scored { side, points, reason: reason.to_string() });
        Ok(())
    }
    /// A line for the event log.
    pub fn note(&mut self, text: &str) -> Result<(), String> {
        self.g_mut()?.1.push(Event::Note { text: text.to_string() });
        Ok(())
    }
    /// Ends the game once the current hook returns.
    pub fn end_game(&mut self, outcome: Outcome) -> Result<(), String> {
        self.g_mut()?.0.rules.declared = Some(outcome);
        Ok(())
    }

    fn name(&self, sq: Square) -> String {
        self.g().variant().square_name(sq)
    }
}
