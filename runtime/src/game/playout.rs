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
//! is kept as the next legal list, sorted as `legal_actions` sorts it). Either way the positions,
//! the legal lists and the outcomes equal the full path's (tests/playout.rs).

use super::*;
use crate::search::Evaluator;

/// A game played through the lean path. Its legal actions are kept from the last
/// judgement; [`Playout::apply`] takes one of them by index.
pub struct Playout {
    game: Game,
    legal: Vec<Action>,
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
        // The first listing is sorted (as `legal_actions`); later ones, without hooks,
        // in generation order.
        let legal = game.try_legal_actions()?;
        let hooked = game.hooked();
        let v = &game.variant;
        let needs_events = v.draws.royal_repeat.is_some() || v.scoring.is_some();
        let plies = game.ply();
        Ok(Playout { game, legal, next: Vec::new(), events: Vec::new(), plies, hooked, needs_events, evaluator: None })
    }

    /// The legal actions now (none once it is over): the same actions as
    /// [`Game::legal_actions`]. Without hooks they come in the move generator's order,
    /// which depends on the position alone (so playouts are reproducible), not sorted.
    pub fn legal(&self) -> &[Action] {
        &self.legal
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
            // The judgement's listing is the next one (sorted, through `filter_actions`);
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
        g.hashes.push(g.core.hash());
        self.legal.clear();
        // In generation order (a function of the position alone): sorting took a third
        // of a chess playout's time.
        g.core.legal(&mut self.legal);
        g.outcome = g.judge_core(self.legal.is_empty());
        if g.outcome.is_some() {
            self.legal.clear();
        }
        Ok(())
    }

    /// The static evaluation from white's side, in centipawns, with the variant's `[ai]`
    /// weights (the AI's evaluation, no search).
    pub fn evaluate_white(&mut self) -> Result<i32, crate::search::AiError> {
        if self.evaluator.is_none() {
            let config =
                crate::search::AiConfig::from_variant(&self.game.variant).map_err(crate::search::AiError::Config)?;
            self.evaluator = Some(Evaluator::new(&self.game.variant, &config.weights));
        }
        let e = self.game.evaluate_for_ai(self.evaluator.as_ref().expect("set just above"));
        Ok(if self.game.to_move() == Side::White { e } else { -e })
    }
}
