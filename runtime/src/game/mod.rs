//! A game in progress: the public face of the runtime.
//!
//! `Game` owns the current position (behind the width-hiding `Core` trait), the
//! rule-level state (hook variables, scores, the seeded generator), the history (for
//! undo and repetition), and the outcome. Applying an action runs the pipeline
//! (`pipeline.rs`): hooks included, all or nothing.

mod ai;
mod core;
mod explain;
mod hooked;
mod pipeline;
mod playout;
mod record;
mod score;

use std::sync::Arc;

use thiserror::Error;

use self::core::{Core, core_for};
pub use self::playout::Playout;
use crate::action::{Action, ActionKind};
use crate::event::Event;
use crate::geometry::Square;
use crate::hooks::{Hook, RuleState, ScriptError, Var};
use crate::notation::{self, fen, fen::FenError, fen::Setup};
use crate::outcome::{GameResult, Outcome, Reason};
use crate::piece::{Piece, Side};
use crate::variant::{Variant, Verdict};

/// The deepest perft counted (deeper ones are refused).
pub const MAX_PERFT_DEPTH: u32 = 64;

/// Why an action was refused. The game is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    #[error(transparent)]
    Notation(#[from] notation::NotationError),
    #[error("{action} is illegal: {why}")]
    Illegal { action: String, why: String },
    #[error("the game is over ({0})")]
    GameOver(String),
    /// Replaying a move list (pasted, or a game under new rules) failed at this move
    /// (1-based; 0 = the start).
    #[error("move {index} (`{action}`): {why}")]
    Replay { index: usize, action: String, why: String },
    /// A hook failed; the action was rolled back and the game is as it was.
    #[error("{0} (in hook `{hook}`; the action was rolled back)", hook = .0.hook)]
    Script(ScriptError),
    /// A hook failed while the legal actions were listed (`filter_actions`, or a
    /// `check_outcome` it relies on); nothing was applied.
    #[error("{0} (in hook `{hook}`, while listing the legal actions; nothing was changed)", hook = .0.hook)]
    Listing(ScriptError),
    /// A perft deeper than [`MAX_PERFT_DEPTH`] (no real count needs it, and the walk
    /// would exhaust the stack).
    #[error("a perft depth of {0} is more than {max}", max = MAX_PERFT_DEPTH)]
    TooDeep(u32),
    /// Walking the tree of legal actions (perft) failed below the current position, after
    /// these actions.
    #[error("after {moves}: {error}")]
    Below { moves: String, error: Box<RuleError> },
}

/// What a rollback or an undo restores. Its rule state shares the variables with the
/// game's (see `hooks::Vars`), so saving it costs the position and a few small fields,
/// whatever the hooks keep.
struct Saved {
    core: Box<dyn Core>,
    rules: RuleState,
    /// The outcome as it was judged then (undo restores it instead of judging again).
    outcome: Option<Outcome>,
}

impl Saved {
    fn copy(&self) -> Saved {
        Saved { core: self.core.boxed(), rules: self.rules.clone(), outcome: self.outcome.clone() }
    }
}

/// One action of the history. Plies are shared between a game and its clones (a clone
/// costs a reference per ply, not a copy of each position); undo copies a ply out only
/// while a clone still holds it.
struct Ply {
    before: Saved,
    action: Action,
    events: Vec<Event>,
}

/// A game of a variant.
pub struct Game {
    variant: Arc<Variant>,
    core: Box<dyn Core>,
    pub(crate) rules: RuleState,
    start: Setup,
    seed: u64,
    history: Vec<Arc<Ply>>,
    /// Hashes of every position since the start, the current one last.
    hashes: Vec<u64>,
    /// With `draws.perpetual_check`, for each position of `hashes`: the side to move and
    /// whether it was in check (empty otherwise).
    checks: Vec<(Side, bool)>,
    outcome: Option<Outcome>,
    last_events: Vec<Event>,
}

impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Game")
            .field("variant", &self.variant.name)
            .field("fen", &self.fen())
            .field("ply", &self.ply())
            .field("outcome", &self.outcome)
            .finish()
    }
}

impl Clone for Game {
    fn clone(&self) -> Self {
        let mut g = self.without_history();
        g.history = self.history.clone();
        g.hashes = self.hashes.clone();
        g.checks = self.checks.clone();
        g.last_events = self.last_events.clone();
        g
    }
}

impl Game {
    /// A game from the variant's starting position.
    pub fn new(variant: Arc<Variant>) -> Game {
        let setup = fen::parse(&variant, &variant.setup).expect("the setup FEN was checked when the variant loaded");
        Game::from_setup(variant, setup)
    }

    /// A game from a FEN.
    pub fn from_fen(variant: Arc<Variant>, text: &str) -> Result<Game, FenError> {
        Game::from_fen_seeded(variant, text, 0)
    }

    /// A game from a FEN, whose random numbers come from `seed`.
    pub fn from_fen_seeded(variant: Arc<Variant>, text: &str, seed: u64) -> Result<Game, FenError> {
        let setup = fen::parse(&variant, text)?;
        Game::from_checked_setup(variant, setup, seed)
    }

    /// A game from a setup that passed the FEN checks, refused if the side that just moved
    /// left a royal piece attacked (a position no game reaches under the check rule).
    pub(crate) fn from_checked_setup(variant: Arc<Variant>, setup: Setup, seed: u64) -> Result<Game, FenError> {
        let check = variant.rules.check;
        let g = Game::from_setup_seeded(variant, setup, seed);
        if check && g.core.opponent_in_check() {
            let side = g.to_move().opponent();
            return Err(FenError::Position(format!(
                "{side} is not to move, yet a royal piece of {side}'s is attacked (that cannot happen in a game)"
            )));
        }
        Ok(g)
    }

    /// A game whose random numbers (for rules that use them) come from `seed`.
    pub fn with_seed(variant: Arc<Variant>, seed: u64) -> Game {
        let setup = fen::parse(&variant, &variant.setup).expect("the setup FEN was checked when the variant loaded");
        Game::from_setup_seeded(variant, setup, seed)
    }

    pub(crate) fn from_setup(variant: Arc<Variant>, setup: Setup) -> Game {
        Game::from_setup_seeded(variant, setup, 0)
    }

    pub(crate) fn from_setup_seeded(variant: Arc<Variant>, setup: Setup, seed: u64) -> Game {
        let core = core_for(&variant, &setup);
        let mut g = Game {
            variant,
            hashes: Vec::new(),
            checks: Vec::new(),
            core,
            rules: RuleState::new(seed),
            seed,
            start: setup,
            history: Vec::new(),
            outcome: None,
            last_events: Vec::new(),
        };
        g.record_position();
        // A failing check_outcome at the start leaves the game open; the error shows on
        // the first action.
        g.outcome = g.judge().unwrap_or(None);
        g
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// This game under other rules (a reloaded or edited variant): the start position
    /// and every action are replayed with the same seed. If the start no longer reads
    /// or an action is no longer legal, the error says which, and this game is untouched.
    pub fn with_variant(&self, variant: Arc<Variant>) -> Result<Game, RuleError> {
        let start = fen::parse(&variant, &self.start_fen()).map_err(|e| RuleError::Replay {
            index: 0,
            action: "(start)".into(),
            why: format!("under the new rules: {e}"),
        })?;
        let mut g = Game::from_setup_seeded(variant, start, self.seed);
        for (i, a) in self.history().iter().enumerate() {
            let text = self.format(a);
            g.play(&text).map_err(|e| RuleError::Replay {
                index: i + 1,
                action: text,
                why: format!("under the new rules: {e}"),
            })?;
        }
        Ok(g)
    }

    /// Takes back up to `plies` actions; returns how many were taken back.
    pub fn undo(&mut self, plies: usize) -> usize {
        let n = plies.min(self.history.len());
        for _ in 0..n {
            let ply = self.history.pop().unwrap();
            let before = Arc::try_unwrap(ply).map_or_else(|shared| shared.before.copy(), |ply| ply.before);
            self.core = before.core;
            self.rules = before.rules;
            self.outcome = before.outcome;
            self.hashes.pop();
            self.checks.pop();
        }
        self.last_events = self.history.last().map(|p| p.events.clone()).unwrap_or_default();
        n
    }

    /// The result, once the game has ended.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome.clone()
    }

    /// The points each side has scored (`[white, black]`).
    pub fn scores(&self) -> [i64; 2] {
        self.rules.scores
    }

    /// Each side's points when the variant scores them: its hooks define `score`, or a
    /// rule has awarded some. `None` for a game without points.
    pub fn points(&self) -> Option<[i64; 2]> {
        let scoring = self.variant.hooks.as_ref().is_some_and(|h| h.defines(crate::hooks::Hook::Score));
        (scoring || self.rules.scores != [0, 0]).then_some(self.rules.scores)
    }

    /// A value a rule keeps in the game (`game:set` in Lua).
    pub fn var(&self, name: &str) -> Option<&Var> {
        self.rules.vars.get(name)
    }

    /// Every rule variable, in name order (`for (name, value) in game.vars()`).
    pub fn vars(&self) -> &crate::hooks::Vars {
        &self.rules.vars
    }

    /// Sets how much game time has passed (time is an input, never read from the system
    /// clock here): with a `[clock]`, the game ends when the limit is reached.
    pub fn set_elapsed(&mut self, elapsed: std::time::Duration) {
        if self.outcome.is_some() {
            return;
        }
        self.rules.elapsed_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        if let Ok(Some(o)) = self.judge() {
            self.last_events = vec![Event::Ended { outcome: o.clone() }];
            self.outcome = Some(o);
        }
    }

    /// The seed of this game's random numbers.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub(crate) fn core_mut(&mut self) -> &mut dyn Core {
        self.core.as_mut()
    }

    /// The core's legal actions, without `filter_actions`.
    pub(crate) fn core_actions(&self) -> Vec<Action> {
        let mut v = Vec::new();
        self.core.legal(&mut v);
        v.sort();
        v
    }

    pub fn to_move(&self) -> Side {
        self.core.to_move()
    }

    /// Whether the side to move has a royal piece under attack.
    pub fn in_check(&self) -> bool {
        self.core.in_check()
    }

    /// The piece on `sq` (none on a square off the board).
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        (sq.index() < self.variant.geometry.len()).then(|| self.core.piece_at(sq)).flatten()
    }

    /// Everything about the piece on `sq`: hit points, auras, waiting or frozen.
    pub fn piece_state(&self, sq: Square) -> Option<crate::piece::PieceState> {
        (sq.index() < self.variant.geometry.len()).then(|| self.core.piece_state(sq)).flatten()
    }

    /// Every piece, by square.
    pub fn pieces(&self) -> Vec<(Square, Piece)> {
        self.core.setup().pieces
    }

    /// The position in width-independent form.
    pub fn setup(&self) -> Setup {
        self.core.setup()
    }

    pub fn fen(&self) -> String {
        fen::write(&self.variant, &self.core.setup())
    }

    /// The FEN of the position the game started from.
    pub fn start_fen(&self) -> String {
        fen::write(&self.variant, &self.start)
    }

    /// The actions played so far.
    pub fn history(&self) -> Vec<Action> {
        self.history.iter().map(|p| p.action).collect()
    }

    /// The actions played so far, in notation, with `+X` where a frozen piece returned.
    pub fn history_text(&self) -> Vec<String> {
        self.history.iter().map(|p| self.played_text(&p.action, &p.events)).collect()
    }

    /// The last action played, as [`Game::history_text`] writes it.
    pub fn last_action_text(&self) -> Option<String> {
        self.history.last().map(|p| self.played_text(&p.action, &p.events))
    }

    fn played_text(&self, a: &Action, events: &[Event]) -> String {
        let mut t = self.format(a);
        for e in events {
            if let Event::Returned { to, .. } = e {
                t.push('+');
                t.push(self.variant.kind(*to).letter);
            }
        }
        t
    }

    /// An action as the history will write it: in notation, with `+X` for each frozen
    /// piece that returns after it (as [`Game::history_text`] writes the actions played).
    pub fn action_text(&self, a: &Action) -> String {
        let mut t = self.format(a);
        // Only a capture with frozen pieces on the board returns one; only an action the
        // core itself offers is tried (the copy is made as play would make it).
        if self.core.setup().frozen.is_empty() || !self.core_actions().contains(a) {
            return t;
        }
        let mut after = self.core.boxed();
        let mut events = Vec::new();
        after.make(*a, &mut events);
        for e in &events {
            if let Event::Returned { to, .. } = e {
                t.push('+');
                t.push(self.variant.kind(*to).letter);
            }
        }
        t
    }

    /// The move list as one line of text (what "copy moves" puts on the clipboard).
    pub fn moves_text(&self) -> String {
        self.history_text().join(" ")
    }

    /// A game from the variant's start and a move list (what "paste moves" reads): moves
    /// separated by spaces, commas or new lines; move numbers like `12.` are skipped. On
    /// any error nothing is built and the error names the move.
    pub fn from_moves(variant: Arc<Variant>, text: &str) -> Result<Game, RuleError> {
        Game::new(variant).then_moves(text)
    }

    /// This game followed by a move list, read as [`Game::from_moves`] reads it; on any
    /// error this game is untouched and the error names the move.
    pub fn then_moves(&self, text: &str) -> Result<Game, RuleError> {
        let mut g = self.clone();
        let moves = text
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|m| !m.is_empty() && !m.trim_end_matches('.').chars().all(|c| c.is_ascii_digit()));
        for (i, m) in moves.enumerate() {
            g.play(m).map_err(|e| RuleError::Replay { index: i + 1, action: m.to_string(), why: e.to_string() })?;
        }
        Ok(g)
    }

    /// The events of the last action.
    pub fn last_events(&self) -> &[Event] {
        &self.last_events
    }

    /// Plies played since the start of this game.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// The position hash (equal positions hash equally).
    pub fn hash(&self) -> u64 {
        self.core.hash()
    }

    /// An action in the variant's notation.
    pub fn format(&self, a: &Action) -> String {
        notation::format(&self.variant, a)
    }

    /// Whether the variant's hooks take part in play (and perft must go through them).
    fn hooked(&self) -> bool {
        self.variant.hooks.as_ref().is_some_and(|h| Hook::ALL.iter().any(|&k| h.defines(k)))
    }

    /// The number of leaves of the legal-move tree to `depth`, or the first error of a
    /// hook on the way (with the actions that led to it). Variants without hooks count on
    /// the core alone (no Lua on that path); with hooks, every node goes through the full
    /// pipeline.
    pub fn try_perft(&self, depth: u32) -> Result<u64, RuleError> {
        if depth > MAX_PERFT_DEPTH {
            return Err(RuleError::TooDeep(depth));
        }
        if self.allow_only() {
            return self.perft_allowed(depth, false);
        }
        self.perft_below(depth, &mut Vec::new())
    }

    fn perft_below(&self, depth: u32, path: &mut Vec<String>) -> Result<u64, RuleError> {
        if !self.hooked() {
            return Ok(self.core.perft(depth));
        }
        if depth == 0 {
            return Ok(1);
        }
        let below = |path: &[String], e: RuleError| {
            if path.is_empty() { e } else { RuleError::Below { moves: path.join(" "), error: Box::new(e) } }
        };
        let actions = self.try_legal_actions().map_err(|e| below(path, e))?;
        if depth == 1 {
            return Ok(actions.len() as u64);
        }
        let mut n = 0u64;
        for a in actions {
            let mut g = self.clone();
            path.push(self.format(&a));
            g.apply_unchecked(a).map_err(|e| below(&path[..path.len() - 1], e))?;
            n += g.perft_below(depth - 1, path)?;
            path.pop();
        }
        Ok(n)
    }

    /// [`Game::try_perft`] split by first action.
    pub fn try_divide(&self, depth: u32) -> Result<Vec<(Action, u64)>, RuleError> {
        if depth > MAX_PERFT_DEPTH {
            return Err(RuleError::TooDeep(depth));
        }
        if self.allow_only() {
            return self.divide_allowed(depth, false);
        }
        let d = depth.max(1);
        let mut out = Vec::new();
        for a in self.try_legal_actions()? {
            if !self.hooked() {
                out.push((a, self.core.after(a).perft(d - 1)));
                continue;
            }
            let mut g = self.clone();
            g.apply_unchecked(a)?;
            let n = g.perft_below(d - 1, &mut vec![self.format(&a)])?;
            out.push((a, n));
        }
        Ok(out)
    }

    /// The number of leaves of the legal-move tree to `depth`; a subtree whose hooks
    /// fail counts 0, and so does a depth past [`MAX_PERFT_DEPTH`] ([`Game::try_perft`]
    /// reports both instead).
    pub fn perft(&self, depth: u32) -> u64 {
        if depth > MAX_PERFT_DEPTH {
            return 0;
        }
        if self.allow_only() {
            return self.perft_allowed(depth, true).unwrap_or(0);
        }
        if !self.hooked() {
            return self.core.perft(depth);
        }
        if depth == 0 {
            return 1;
        }
        let actions = self.legal_actions();
        if depth == 1 {
            return actions.len() as u64;
        }
        actions
            .into_iter()
            .map(|a| {
                let mut g = self.clone();
                match g.apply_unchecked(a) {
                    Ok(_) => g.perft(depth - 1),
                    Err(_) => 0,
                }
            })
            .sum()
    }

    /// Perft split by first action (failing subtrees count 0; see [`Game::try_divide`]).
    pub fn divide(&self, depth: u32) -> Vec<(Action, u64)> {
        if depth > MAX_PERFT_DEPTH {
            return Vec::new();
        }
        if self.allow_only() {
            return self.divide_allowed(depth, true).unwrap_or_default();
        }
        let d = depth.max(1);
        self.legal_actions()
            .into_iter()
            .map(|a| {
                if !self.hooked() {
                    return (a, self.core.after(a).perft(d - 1));
                }
                let mut g = self.clone();
                let n = if g.apply_unchecked(a).is_ok() { g.perft(d - 1) } else { 0 };
                (a, n)
            })
            .collect()
    }

    /// Decides whether the game has ended: an outcome a hook declared, then the core's
    /// rules (no legal move, draws), then the `check_outcome` hook.
    fn judge(&self) -> Result<Option<Outcome>, ScriptError> {
        self.judge_listing(&mut Vec::new())
    }

    /// [`Game::judge`], keeping in `legal` (empty on entry) the legal actions it listed
    /// (none when a hook had declared the end), so that a playout need not list them
    /// again: as [`Game::try_legal_actions`] lists them when `allow` or `filter_actions`
    /// is defined, else the same actions in the move generator's order.
    fn judge_listing(&self, legal: &mut Vec<Action>) -> Result<Option<Outcome>, ScriptError> {
        if let Some(o) = &self.rules.declared {
            return Ok(Some(o.clone()));
        }
        if self.variant.hooks.as_ref().is_some_and(|h| h.defines(Hook::Allow) || h.defines(Hook::FilterActions)) {
            *legal = self.actions()?;
        } else {
            // Only whether there is one matters to the judgement, and a playout draws from
            // them as they come: the core's actions in its order, into the caller's list
            // (no sort, no new list).
            legal.clear();
            self.core.legal(legal);
        }
        let no_moves = legal.is_empty();
        let core = self.judge_core(no_moves);
        if let Some(h) = self.variant.hooks.clone()
            && h.defines(Hook::CheckOutcome)
        {
            let mut view = crate::hooks::HookGame::read_only(self);
            if let Some(o) = h.check_outcome(&mut view)? {
                return Ok(Some(o));
            }
        }
        Ok(core)
    }

    /// Records the current position for the repetition rules (after each action).
    pub(super) fn record_position(&mut self) {
        self.hashes.push(self.core.hash());
        if self.variant.draws.perpetual_check_loses {
            self.checks.push((self.core.to_move(), self.core.in_check()));
        }
    }

    /// The side that gave check with every one of its moves since position `first` of
    /// the history (`draws.perpetual_check`), the side that moved last first (as
    /// Fairy-Stockfish judges a cycle in which both did).
    fn perpetual_checker(&self, first: usize) -> Option<Side> {
        let positions = self.checks.get(first..)?;
        let checked_always = |side: Side| {
            let mut moves = positions.windows(2).filter(|w| w[0].0 == side).peekable();
            moves.peek().is_some() && moves.all(|w| w[1].0 != side && w[1].1)
        };
        let last_mover = self.core.to_move().opponent();
        [last_mover, last_mover.opponent()].into_iter().find(|&s| checked_always(s))
    }

    fn judge_core(&self, no_moves: bool) -> Option<Outcome> {
        let v = &self.variant;
        let stm = self.core.to_move();
        let verdict = |verdict: Verdict, reason| {
            let result = match verdict {
                Verdict::Loss => GameResult::Win(stm.opponent()),
                Verdict::Win => GameResult::Win(stm),
                Verdict::Draw => GameResult::Draw,
            };
            Some(Outcome { result, reason })
        };
        if v.rules.royal_lost && v.kinds.iter().any(|k| k.royal) {
            let lost = [Side::White, Side::Black].map(|s| self.core.royals(s) == 0);
            let mover = stm.opponent();
            match lost {
                [true, true] => return Some(Outcome { result: GameResult::Win(mover), reason: Reason::RoyalLost }),
                [true, false] => {
                    return Some(Outcome { result: GameResult::Win(Side::Black), reason: Reason::RoyalLost });
                }
                [false, true] => {
                    return Some(Outcome { result: GameResult::Win(Side::White), reason: Reason::RoyalLost });
                }
                _ => {}
            }
        }
        if let Some(e) = self.core.ended() {
            let result = e.winner.map_or(GameResult::Draw, GameResult::Win);
            return Some(Outcome { result, reason: Reason::parse(&v.rules.end.ends[e.rule].reason) });
        }
        if let Some(clock) = v.clock
            && self.rules.elapsed_ms >= clock.limit_ms
        {
            let result = clock.winner.map_or(GameResult::Draw, GameResult::Win);
            return Some(Outcome { result, reason: Reason::TimeLimit });
        }
        if no_moves {
            // Without the check rule there is no checkmate: no legal move is a stalemate.
            return if v.rules.check && self.core.in_check() {
                // A mate by a drop that may not mate (`drop_mate = "loses"`): the side
                // mated wins.
                if self.core.mate_by_drop_loses() {
                    return Some(Outcome { result: GameResult::Win(stm), reason: Reason::Rule("drop_mate".into()) });
                }
                verdict(v.rules.checkmate, Reason::Checkmate)
            } else {
                verdict(v.rules.stalemate, Reason::Stalemate)
            };
        }
        let draw = |reason| Some(Outcome { result: GameResult::Draw, reason });
        if self.insufficient_material() {
            return draw(Reason::InsufficientMaterial);
        }
        if let Some(n) = v.draws.no_progress_plies
            && self.core.halfmove() >= n
        {
            return draw(Reason::NoProgress);
        }
        if let Some(n) = v.draws.turn_limit
            && self.core.fullmove() >= n
        {
            return draw(Reason::TurnLimit);
        }
        if let Some(n) = v.draws.royal_repeat
            && self.rules.royal_arrivals.iter().flatten().any(|&(_, c)| c >= n)
        {
            return draw(Reason::RoyalRepeat);
        }
        if let Some(n) = v.draws.repetition {
            let now = self.core.hash();
            // Only positions since the last irreversible move can repeat; where captured
            // pieces go to the taker's hand, a capture is not one (the piece can come back,
            // and so can the position: Fairy-Stockfish looks back through the whole game).
            let whole = v.hand().is_some_and(|h| h.captured_to_taker);
            let window =
                if whole { self.hashes.len() } else { (self.core.halfmove() as usize + 1).min(self.hashes.len()) };
            let recent = self.hashes.len() - window;
            let seen = self.hashes[recent..].iter().filter(|&&h| h == now).count();
            if seen >= n as usize {
                if v.draws.perpetual_check_loses {
                    // The cycle runs from the n-th occurrence, counted back from now.
                    let first =
                        (recent..self.hashes.len()).rev().filter(|&i| self.hashes[i] == now).nth(n as usize - 1);
                    if let Some(checker) = first.and_then(|i| self.perpetual_checker(i)) {
                        return Some(Outcome {
                            result: GameResult::Win(checker.opponent()),
                            reason: Reason::Rule("perpetual_check".into()),
                        });
                    }
                }
                if let Some(winner) = v.draws.repetition_winner {
                    return Some(Outcome { result: GameResult::Win(winner), reason: Reason::Repetition });
                }
                return draw(Reason::Repetition);
            }
        }
        None
    }

    fn insufficient_material(&self) -> bool {
        let v = &self.variant;
        let d = &v.draws;
        if d.insufficient.is_empty() && d.same_colour == 0 && d.opposite_colours == 0 {
            return false;
        }
        // Counted from the square sets: building the whole setup each ply cost more than
        // the rest of the judgement.
        let counts = self.core.material();
        if d.insufficient.iter().any(|pair| {
            (pair[0] == counts[0] && pair[1] == counts[1]) || (pair[1] == counts[0] && pair[0] == counts[1])
        }) {
            return true;
        }
        if d.same_colour != 0 {
            let others = |k: usize| !v.kinds[k].royal && (counts[0][k] > 0 || counts[1][k] > 0);
            let any = (0..v.kinds.len()).any(others);
            let all_same = (0..v.kinds.len()).filter(|&k| others(k)).all(|k| d.same_colour & (1 << k) != 0);
            if any && all_same {
                let pieces = self.core.setup().pieces;
                let others: Vec<&(Square, Piece)> = pieces.iter().filter(|(_, p)| !v.kind(p.kind).royal).collect();
                if !others.is_empty() && others.iter().all(|(_, p)| d.same_colour & (1 << p.kind.0) != 0) {
                    let light = v.geometry.is_light(others[0].0);
                    if others.iter().all(|(s, _)| v.geometry.is_light(*s) == light) {
                        return true;
                    }
                }
            }
        }
        if d.opposite_colours != 0 {
            let listed = (0..v.kinds.len())
                .filter(|&k| !v.kinds[k].royal && (counts[0][k] > 0 || counts[1][k] > 0))
                .all(|k| d.opposite_colours & (1 << k) != 0);
            if !listed {
                return false;
            }
            // Each side's colour: None without such pieces, Some(None) on both colours.
            let mut colour: [Option<Option<bool>>; 2] = [None, None];
            for (s, p) in self.core.setup().pieces.iter().filter(|(_, p)| !v.kind(p.kind).royal) {
                let light = v.geometry.is_light(*s);
                let c = &mut colour[p.side.index()];
                *c = match *c {
                    None => Some(Some(light)),
                    Some(Some(l)) if l == light => Some(Some(l)),
                    _ => Some(None),
                };
            }
            if let [Some(Some(w)), Some(Some(b))] = colour {
                return w != b;
            }
        }
        false
    }

    /// The board as text: ranks from the top, `.` for empty squares.
    pub fn board_text(&self) -> String {
        let v = &self.variant;
        let g = v.geometry;
        let setup = self.core.setup();
        let wide = g.ranks >= 10;
        // With hit points, each square shows the piece and its HP: `Q4`, `p1`, `..`.
        let hp = v.combat.is_some();
        let mut out = String::new();
        for rank in (0..g.ranks).rev() {
            if wide {
                out.push_str(&format!("{:>2} ", rank + 1));
            } else {
                out.push_str(&format!("{} ", rank + 1));
            }
            for file in 0..g.files {
                let sq = Square(rank * g.files + file);
                let c = setup.pieces.iter().find(|&&(s, _)| s == sq).map_or('.', |&(_, p)| v.letter(p));
                out.push(' ');
                out.push(c);
                if hp {
                    match self.core.piece_state(sq).and_then(|st| st.hp) {
                        Some(n) if n < 10 => out.push((b'0' + n) as char),
                        Some(_) => out.push('+'),
                        None => out.push('.'),
                    }
                }
            }
            out.push('\n');
        }
        out.push_str(if wide { "   " } else { "  " });
        for file in 0..g.files {
            out.push(' ');
            out.push((b'a' + file) as char);
            if hp && file + 1 < g.files {
                out.push(' ');
            }
        }
        out.push('\n');
        out
    }

    /// Whether an action is a capture (for tools and displays).
    pub fn is_capture(&self, a: &Action) -> bool {
        match a.kind {
            ActionKind::EnPassant | ActionKind::Shot => true,
            ActionKind::Castle(_) => false,
            _ => self.piece_at(a.to).is_some_and(|p| p.side != self.to_move()),
        }
    }
}
