//! The lean playout path: a game played to its end as fast as the rules allow, for
//! self-play at scale (the balance lab, `varia bench selfplay`).
//!
//! The rules are the pipeline's (`pipeline.rs`); what a playout leaves out is what only
//! tools read: without hooks, no event list (unless a rule counts events: royal
//! arrivals, `[scoring]`), no action text, no saved state per ply (nothing can fail, so
//! nothing is rolled back), no history (undo is not offered), and the legal actions
//! are generated once per ply, by the judgement that also decides the end, instead of
//! three times (the caller's list, `apply`'s legality check, the judgement), and left
//! in the generator's order. With
//! hooks, every action goes through the whole pipeline (hooks read the events, the ply
//! and the history), and only the repeated listings are saved (the judgement's listing
//! is kept as the next legal list, in the generator's order unless `allow` or
//! `filter_actions` lists them, sorted). Either way the positions,
//! the legal lists and the outcomes equal the full path's (tests/playout.rs).

use super::*;
use crate::rng::Rng;
use crate::search::Evaluator;

/// A game played through the lean path. Its legal actions are kept from the last
/// judgement; [`Playout::apply`] takes one of them by index.
pub struct Playout {
    game: Game,
    /// The legal actions, except those in `untested`.
    legal: Vec<Action>,
    /// The range of `legal` whose actions the move generator left untested (the royal
    /// piece's moves, `movegen::legal_deferred`): legal only if the core says so. Tested
    /// all at once when the list is read, one at a time by [`Playout::play_random`].
    untested: std::ops::Range<usize>,
    /// With hooks, the list the next judgement fills (swapped with `legal` on success).
    next: Vec<Action>,
    events: Vec<Event>,
    plies: usize,
    hooked: bool,
    /// Whether a rule reads the events of an action (so `make` must list them).
    needs_events: bool,
    evaluator: Option<Evaluator>,
}

impl Playout {
    /// A playout from this game's position (its history is kept, and plies are counted
    /// from it). The legal actions of a failing `filter_actions` hook are the error.
    pub fn new(game: Game) -> Result<Playout, RuleError> {
        // The first listing is sorted (as `legal_actions`); later ones in generation order
        // (sorted when `allow` or `filter_actions` lists them).
        let legal = game.try_legal_actions()?;
        let hooked = game.hooked();
        let v = &game.variant;
        let needs_events = v.draws.royal_repeat.is_some() || v.scoring.is_some();
        let plies = game.ply();
        Ok(Playout {
            game,
            legal,
            untested: 0..0,
            next: Vec::new(),
            events: Vec::new(),
            plies,
            hooked,
            needs_events,
            evaluator: None,
        })
    }

    /// The legal actions now (none once it is over): the same actions as
    /// [`Game::legal_actions`]. After the first ply they come in the move generator's
    /// order, which depends on the position alone (so playouts are reproducible), not
    /// sorted (sorted when `allow` or `filter_actions` lists them).
    /// (`&mut`: the royal piece's moves are tested here, when the list is read.)
    pub fn legal(&mut self) -> &[Action] {
        self.test_all();
        &self.legal
    }

    /// Whether a legal action is left (false once it is over), testing as few actions
    /// as it can.
    pub fn has_legal(&mut self) -> bool {
        if self.legal.len() > self.untested.len() {
            return true;
        }
        // Only untested actions: test them in order up to the first legal one, which
        // leaves the range.
        while !self.untested.is_empty() {
            let a = self.legal[self.untested.start];
            if self.game.core.royal_move_legal(a) {
                self.untested.start += 1;
                return true;
            }
            self.legal.remove(self.untested.start);
            self.untested.end -= 1;
        }
        false
    }

    /// Drops the illegal actions of the untested range (the order of the rest is kept).
    fn test_all(&mut self) {
        if self.untested.is_empty() {
            return;
        }
        let core = &self.game.core;
        let (start, end) = (self.untested.start, self.untested.end);
        let mut kept = start;
        for i in start..end {
            let a = self.legal[i];
            if core.royal_move_legal(a) {
                self.legal[kept] = a;
                kept += 1;
            }
        }
        self.legal.drain(kept..end);
        self.untested = 0..0;
    }

    /// Plays a uniformly random legal action, drawn with `rng`, and returns it; None when
    /// there is none (the game is over, or a hook left no action). A draw among the
    /// listed actions that falls on an illegal one (the royal piece's, tested only when
    /// drawn) drops it and draws again, so each legal action is equally likely. The same
    /// position and generator give the same action.
    pub fn play_random(&mut self, rng: &mut Rng) -> Result<Option<Action>, RuleError> {
        loop {
            if self.legal.is_empty() {
                return Ok(None);
            }
            let i = rng.below(self.legal.len() as u64) as usize;
            let a = self.legal[i];
            if self.untested.contains(&i) && !self.game.core.royal_move_legal(a) {
                self.legal.remove(i);
                self.untested.end -= 1;
                continue;
            }
            self.apply_at(i)?;
            return Ok(Some(a));
        }
    }

    /// The game's position, outcome and rule state. Without hooks it has no history of
    /// the playout's plies ([`Playout::ply`] counts them).
    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        self.game.outcome.as_ref()
    }

    /// Plies played, from the start of the game.
    pub fn ply(&self) -> usize {
        self.plies
    }

    /// Applies the legal action at `index` of [`Playout::legal`]. A hook's failure is
    /// the error, and the game is as it was; an index out of range is refused.
    pub fn apply(&mut self, index: usize) -> Result<(), RuleError> {
        self.test_all();
        self.apply_at(index)
    }

    /// [`Playout::apply`] of the action at `index` of the list as it stands (a tested one).
    fn apply_at(&mut self, index: usize) -> Result<(), RuleError> {
        let Some(&action) = self.legal.get(index) else {
            return Err(match &self.game.outcome {
                Some(o) => RuleError::GameOver(o.describe()),
                None => RuleError::Illegal {
                    action: format!("#{index}"),
                    why: format!("there are {} legal actions", self.legal.len()),
                },
            });
        };
        if self.hooked {
            // The judgement's listing is the next one (through `allow`/`filter_actions`);
            // on an error the game is as it was, and so are its legal actions.
            self.game.apply_listing(action, &mut self.next)?;
            std::mem::swap(&mut self.legal, &mut self.next);
            if self.game.outcome.is_some() {
                self.legal.clear();
            }
        } else {
            self.step(action)?;
        }
        self.plies = self.plies.saturating_add(1);
        Ok(())
    }

    /// Applies a legal action (found in [`Playout::legal`]); anything else is refused.
    pub fn apply_action(&mut self, action: Action) -> Result<(), RuleError> {
        self.test_all();
        match self.legal.iter().position(|a| *a == action) {
            Some(i) => self.apply(i),
            None => Err(RuleError::Illegal {
                action: self.game.format(&action),
                why: "it is not among the legal actions".into(),
            }),
        }
    }

    /// The pipeline for a variant without hooks: the core's move, the rules that read
    /// its events, the judgement.
    fn step(&mut self, action: Action) -> Result<(), RuleError> {
        let g = &mut self.game;
        let mover = g.core.to_move();
        let acting = g.variant.scoring.as_ref().and_then(|_| g.core.piece_at(action.from)).map(|p| p.kind);
        self.events.clear();
        if self.needs_events {
            g.core.make(action, &mut self.events);
            g.count_royal_arrivals(action, mover, &self.events);
            if g.variant.scoring.is_some() {
                let text = g.format(&action);
                g.score_action(mover, acting, &text, &mut self.events)?;
            }
        } else {
            g.core.make_quiet(action);
        }
        g.record_position();
        self.legal.clear();
        // In generation order (a function of the position alone): sorting took a third
        // of a chess playout's time. The royal piece's moves are tested when read or drawn.
        self.untested = g.core.legal_deferred(&mut self.legal);
        let no_moves = !self.has_legal();
        let g = &mut self.game;
        g.outcome = g.judge_core(no_moves);
        if g.outcome.is_some() {
            self.legal.clear();
            self.untested = 0..0;
        }
        Ok(())
    }

    /// The static evaluation from white's side, in centipawns, with the variant's `[ai]`
    /// weights (the AI's evaluation, no search).
    pub fn evaluate_white(&mut self) -> Result<i32, crate::search::AiError> {
        if self.evaluator.is_none() {
            let config =
                crate::search::AiConfig::from_variant(&self.game.variant).map_err(crate::search::AiError::Config)?;
            self.evaluator = Some(Evaluator::new(&self.game.variant, &config.weights, &config.pieces));
        }
        let e = self.game.evaluate_for_ai(self.evaluator.as_ref().expect("set just above"));
        Ok(if self.game.to_move() == Side::White { e } else { -e })
    }
}
