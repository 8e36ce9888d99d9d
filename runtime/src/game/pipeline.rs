//! Applying an action: the pipeline, hooks included, all or nothing.
//!
//! ```text
//! before_action ─► core applies the action ─► on_removed (each piece that left)
//!   ─► after_action ─► score ─► on_turn_end ─► the [scoring] tables ─► judge (core rules,
//!   then check_outcome)
//! ```
//!
//! Every hook acts through commands that emit events. If any hook fails, the position,
//! the rule state, the history and the outcome are restored exactly as they were, and
//! the error names the script, the line and the hook.

use super::*;
use crate::hooks::{Hook, HookGame, Hooks, Removed, ScriptError};

/// The most piece removals one action may report to `on_removed` (a guard against a
/// hook that keeps removing pieces in reaction to removals).
const MAX_REMOVALS: usize = 10_000;

impl Game {
    /// Every legal action, sorted by from-square, to-square and promotion. Empty once the
    /// game is over (or if a `filter_actions` hook fails: [`Game::try_legal_actions`]
    /// gives the error).
    pub fn legal_actions(&self) -> Vec<Action> {
        self.try_legal_actions().unwrap_or_default()
    }

    /// Every legal action, or the error of a failing `filter_actions` hook.
    pub fn try_legal_actions(&self) -> Result<Vec<Action>, RuleError> {
        if self.outcome.is_some() {
            return Ok(Vec::new());
        }
        self.actions().map_err(RuleError::Listing)
    }

    /// The legal actions, through `allow` and then `filter_actions` when the variant
    /// defines them.
    pub(crate) fn actions(&self) -> Result<Vec<Action>, ScriptError> {
        let core = self.allowed(self.core_actions())?;
        let Some(h) = self.variant.hooks.clone().filter(|h| h.defines(Hook::FilterActions)) else {
            return Ok(core);
        };
        let texts = core.iter().map(|a| self.format(a)).collect();
        let chosen = h.filter_actions(&mut HookGame::read_only(self), texts)?;
        let mut out = Vec::with_capacity(chosen.len());
        for text in chosen {
            let w = notation::parse(&self.variant, &text).map_err(|e| {
                ScriptError::new("filter_actions", format!("returned `{text}`, which is not an action: {}", e.why))
            })?;
            let found = core.iter().find(|a| w.names(a));
            if found.is_none() && w.drop {
                return Err(ScriptError::new(
                    "filter_actions",
                    format!("returned `{text}`, which is not a drop the position allows"),
                ));
            }
            // An action the core does not know is applied as a plain move.
            let mut a = found.copied().unwrap_or(Action::new(w.from, w.to, ActionKind::Normal));
            if w.promotion.is_some() {
                a.promotion = w.promotion;
            }
            if self.core.piece_at(a.from).is_none_or(|p| p.side != self.core.to_move()) {
                return Err(ScriptError::new(
                    "filter_actions",
                    format!(
                        "returned `{text}`, but {} holds no piece of the side to move",
                        self.variant.square_name(a.from)
                    ),
                ));
            }
            // A plain move onto its own side's piece would stack two pieces on a square.
            if found.is_none() && self.core.piece_at(a.to).is_some_and(|p| p.side == self.core.to_move()) {
                return Err(ScriptError::new(
                    "filter_actions",
                    format!(
                        "returned `{text}`, but {} holds a piece of the side to move",
                        self.variant.square_name(a.to)
                    ),
                ));
            }
            out.push(a);
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Applies a legal action; on any error the game is unchanged.
    pub fn apply(&mut self, action: Action) -> Result<Vec<Event>, RuleError> {
        if let Some(o) = &self.outcome {
            return Err(RuleError::GameOver(o.describe()));
        }
        let legal = self.actions().map_err(RuleError::Listing)?;
        if !legal.contains(&action) {
            let w = notation::Written {
                promotion: action.promotion,
                landing: action.landing,
                drop: action.is_drop(),
                gate: action.gate,
                ..notation::Written::new(action.from, action.to)
            };
            return Err(RuleError::Illegal { action: self.format(&action), why: self.refusal(&w, &legal) });
        }
        self.apply_unchecked(action)
    }

    /// Reads an action in the variant's notation and matches it to a legal action.
    pub fn parse_action(&self, text: &str) -> Result<Action, RuleError> {
        let mut w = notation::parse(&self.variant, text)?;
        if let Some(o) = &self.outcome {
            return Err(RuleError::GameOver(o.describe()));
        }
        let legal = self.actions().map_err(RuleError::Listing)?;
        // A castling named by another square of its own (`also_to`, a click target),
        // unless that is a move of its own.
        if !w.drop && !legal.iter().any(|a| a.from == w.from && a.to == w.to) {
            let stm = self.to_move();
            if let Some(c) =
                self.variant.castling.iter().find(|c| c.side == stm && c.king == w.from && c.also_to.contains(&w.to))
            {
                w.to = c.king_to;
            }
        }
        let matches: Vec<Action> = legal
            .iter()
            .copied()
            .filter(|a| w.names(a))
            .filter(|a| w.landing.is_none() || a.landing == w.landing)
            .collect();
        // An optional promotion: the move written without `=X` is the one that stays.
        if let Some(stay) = notation::unpromoted_choice(&matches, w.promotion) {
            return Ok(stay);
        }
        match matches.len() {
            1 => Ok(matches[0]),
            0 => Err(RuleError::Illegal { action: text.trim().to_string(), why: self.refusal(&w, &legal) }),
            _ if matches.iter().any(|a| a.landing.is_some()) && w.landing.is_none() => {
                let mut choices: Vec<String> = matches
                    .iter()
                    .filter_map(|a| a.landing)
                    .map(|l| format!("@{}", self.variant.square_name(l)))
                    .collect();
                choices.dedup();
                Err(RuleError::Illegal {
                    action: text.trim().to_string(),
                    why: format!("it kills on several squares: choose where to land with {}", choices.join(" or ")),
                })
            }
            _ if matches.iter().all(|a| a.promotion.is_some()) => {
                let choices: Vec<String> =
                    matches.iter().map(|a| format!("={}", self.variant.kind(a.promotion.unwrap()).letter)).collect();
                Err(RuleError::Illegal {
                    action: text.trim().to_string(),
                    why: format!("it promotes: add one of {}", choices.join(", ")),
                })
            }
            _ => Err(RuleError::Illegal { action: text.trim().to_string(), why: "it is ambiguous".into() }),
        }
    }

    /// Parses and applies an action written in the variant's notation (from-to) or in
    /// SAN. A `+X` suffix (a frozen piece returning as X) must match what happens, or
    /// nothing changes.
    pub fn play(&mut self, text: &str) -> Result<Vec<Event>, RuleError> {
        let (a, returned) = self.read_move(text)?;
        let events = self.apply_unchecked(a)?;
        if let Some(k) = returned {
            let ok = events.iter().any(|e| matches!(e, Event::Returned { to, .. } if *to == k));
            if !ok {
                self.undo(1);
                return Err(RuleError::Illegal {
                    action: text.trim().to_string(),
                    why: format!("no frozen piece returns as {} after it", self.variant.kind(k).name),
                });
            }
        }
        Ok(events)
    }

    /// Runs the pipeline for an action known to be legal. On error, restores everything.
    pub(crate) fn apply_unchecked(&mut self, action: Action) -> Result<Vec<Event>, RuleError> {
        self.apply_listing(action, &mut Vec::new())?;
        Ok(self.last_events.clone())
    }

    /// [`Game::apply_unchecked`], leaving in `legal` the legal actions after it (those of
    /// [`Game::try_legal_actions`], see `judge_listing`) when the judgement listed them, or
    /// nothing (a hook ended the game); on error `legal` holds nothing useful. The events
    /// are the game's last events (not returned: a playout reads none).
    pub(super) fn apply_listing(&mut self, action: Action, legal: &mut Vec<Action>) -> Result<(), RuleError> {
        let before = Saved { core: self.core.boxed(), rules: self.rules.clone(), outcome: self.outcome.clone() };
        let hashes = self.hashes.len();
        let checks = self.checks.len();
        let mut events = Vec::new();
        legal.clear();
        match self.pipeline(action, &mut events, legal) {
            Ok(()) => {
                self.history.push(Arc::new(Ply { before, action, events: events.clone() }));
                self.last_events = events;
                Ok(())
            }
            Err(e) => {
                self.core = before.core;
                self.rules = before.rules;
                self.hashes.truncate(hashes);
                self.checks.truncate(checks);
                Err(e)
            }
        }
    }

    fn pipeline(&mut self, action: Action, events: &mut Vec<Event>, legal: &mut Vec<Action>) -> Result<(), RuleError> {
        let hooks = self.variant.hooks.clone();
        let defines = |k: Hook| hooks.as_ref().is_some_and(|h| h.defines(k));
        // The action's text is written only for the hooks that take it (and for an
        // error's message): a playout of a variant with `on_turn_end` alone never needs it.
        let wants_text = [Hook::BeforeAction, Hook::AfterAction, Hook::Score].into_iter().any(defines)
            || self.variant.scoring.is_some();
        let text = if wants_text { self.format(&action) } else { String::new() };
        let named = |g: &Game| if text.is_empty() { g.format(&action) } else { text.clone() };
        let mover = self.core.to_move();
        self.rules.declared = None;

        if defines(Hook::BeforeAction) {
            let h = hooks.as_deref().unwrap();
            let veto = h.before_action(&mut HookGame::new(self, events), &text).map_err(RuleError::Script)?;
            if let Some(why) = veto {
                return Err(RuleError::Illegal { action: named(&*self), why });
            }
            if !events.is_empty() && !self.actions().map_err(RuleError::Script)?.contains(&action) {
                return Err(RuleError::Illegal {
                    action: named(&*self),
                    why: "before_action changed the board so that it is no longer legal".into(),
                });
            }
        }

        let mut reported = events.len();
        let before_make = events.len();
        let acting = self.variant.scoring.as_ref().and_then(|_| self.core.piece_at(action.from)).map(|p| p.kind);
        if defines(Hook::OnDamage) {
            // on_damage reads the game as it was before the action (the position is being
            // changed while it runs) and returns the amount to apply. The view keeps no
            // history, so `game:ply()` is told how many plies it leaves out.
            let h = hooks.as_deref().unwrap();
            let view = self.without_history();
            let plies = self.history.len();
            let mut failure: Option<ScriptError> = None;
            let mut damage = |sq: Square, amount: i64, cause: crate::variant::Cause| {
                if failure.is_some() {
                    return amount;
                }
                match h.on_damage(&mut HookGame::read_only_below(&view, plies), sq, amount, cause.name()) {
                    Ok(n) => n,
                    Err(e) => {
                        failure = Some(e);
                        amount
                    }
                }
            };
            self.core.make_with_damage(action, events, &mut damage);
            if let Some(e) = failure {
                return Err(RuleError::Script(e));
            }
        } else {
            self.core.make(action, events);
        }
        self.count_royal_arrivals(action, mover, &events[before_make..]);
        if defines(Hook::OnRemoved) {
            self.report_removals(hooks.as_deref().unwrap(), events, &mut reported)?;
        }
        if defines(Hook::AfterAction) {
            let h = hooks.as_deref().unwrap();
            h.after_action(&mut HookGame::new(self, events), &text).map_err(RuleError::Script)?;
            if defines(Hook::OnRemoved) {
                self.report_removals(h, events, &mut reported)?;
            }
        }
        if defines(Hook::Score) {
            let h = hooks.as_deref().unwrap();
            let mut g = HookGame::new(self, events);
            let points = h.score(&mut g, &text).map_err(RuleError::Script)?;
            if points != 0 {
                g.award(mover, points, "score").map_err(|why| {
                    let at = h.place(Hook::Score).map(|p| format!("{p}: ")).unwrap_or_default();
                    RuleError::Script(ScriptError::new("score", format!("{at}`score` returned {points}, but {why}")))
                })?;
            }
        }
        if defines(Hook::OnTurnEnd) {
            let h = hooks.as_deref().unwrap();
            h.on_turn_end(&mut HookGame::new(self, events)).map_err(RuleError::Script)?;
            if defines(Hook::OnRemoved) {
                self.report_removals(h, events, &mut reported)?;
            }
        }

        // Rule commands (or an action a filter added) may move pieces, but under the check
        // rule no action ends with the mover's royal piece attacked: no game holds that
        // position, and its FEN would not read back.
        if self.variant.rules.check && self.core.opponent_in_check() {
            return Err(RuleError::Illegal {
                action: named(&*self),
                why: format!("with the rules' commands it leaves {mover}'s royal piece attacked"),
            });
        }
        self.score_action(mover, acting, &text, events)?;
        self.record_position();
        let outcome = self.judge_listing(legal).map_err(RuleError::Script)?;
        if let Some(o) = &outcome {
            events.push(Event::Ended { outcome: o.clone() });
        }
        self.outcome = outcome;
        Ok(())
    }

    /// Royal-repeat bookkeeping (A-CC23): a plain move of the royal piece with no damage
    /// counts an arrival on its square; any other move of that side, or castling, resets
    /// that side's counts; any damage resets both sides'.
    pub(super) fn count_royal_arrivals(&mut self, action: Action, mover: Side, events: &[Event]) {
        if self.variant.draws.royal_repeat.is_none() {
            return;
        }
        let damage = events.iter().any(|e| matches!(e, Event::Damaged { amount, .. } if *amount > 0));
        if damage {
            self.rules.royal_arrivals = [Vec::new(), Vec::new()];
            return;
        }
        let royal_move = action.kind == ActionKind::Normal
            && events.iter().any(
                |e| matches!(e, Event::Moved { kind, to, .. } if self.variant.kind(*kind).royal && *to == action.to),
            );
        let counts = &mut self.rules.royal_arrivals[mover.index()];
        if !royal_move {
            counts.clear();
            return;
        }
        match counts.iter_mut().find(|(s, _)| *s == action.to) {
            Some((_, c)) => *c = c.saturating_add(1),
            None => counts.push((action.to, 1)),
        }
    }

    /// A copy of the current position and rule state, without the history (for hooks that
    /// read the game while it is being changed; `Clone` adds the history).
    pub(super) fn without_history(&self) -> Game {
        let mut g = Game {
            variant: self.variant.clone(),
            core: self.core.boxed(),
            rules: self.rules.clone(),
            start: self.start.clone(),
            seed: self.seed,
            history: Vec::new(),
            hashes: Vec::new(),
            checks: Vec::new(),
            outcome: self.outcome.clone(),
            last_events: Vec::new(),
        };
        g.record_position();
        g
    }

    /// Calls `on_removed` for every piece that left the board since `reported`,
    /// including pieces that those calls remove.
    fn report_removals(
        &mut self,
        h: &dyn Hooks,
        events: &mut Vec<Event>,
        reported: &mut usize,
    ) -> Result<(), RuleError> {
        let mut count = 0;
        while *reported < events.len() {
            let removed = match &events[*reported] {
                Event::Captured { side, kind, square } => {
                    Some(Removed { square: *square, piece: Piece::new(*kind, *side), cause: "capture" })
                }
                Event::Removed { side, kind, square } => {
                    Some(Removed { square: *square, piece: Piece::new(*kind, *side), cause: "rules" })
                }
                Event::Killed { side, kind, square } => {
                    Some(Removed { square: *square, piece: Piece::new(*kind, *side), cause: "damage" })
                }
                Event::Exploded { side, kind, square } => {
                    Some(Removed { square: *square, piece: Piece::new(*kind, *side), cause: "explosion" })
                }
                _ => None,
            };
            *reported += 1;
            if let Some(r) = removed {
                count += 1;
                if count > MAX_REMOVALS {
                    return Err(RuleError::Script(ScriptError::new(
                        "on_removed",
                        format!(
                            "more than {MAX_REMOVALS} removals in one action: does on_removed keep removing pieces?"
                        ),
                    )));
                }
                h.on_removed(&mut HookGame::new(self, events), &r).map_err(RuleError::Script)?;
            }
        }
        Ok(())
    }
}
