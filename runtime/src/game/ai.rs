//! The computer player's entry point on a game: reads `[ai]`, picks the back end (the
//! bare position when no hook takes part, the whole game otherwise) and hands it the
//! game's history for repetitions.

use super::Game;
use crate::search::{AiConfig, AiError, Clock, Evaluator, Job, Level, SearchResult, Think, slow};

impl Game {
    /// The computer player's action for the side to move, at `level` (a name from
    /// `[ai.levels]`: novice, veteran and master by default). With [`Clock::Off`] the
    /// same position, level and seed give the same action; the level can change from
    /// one call to the next.
    ///
    /// ```
    /// use varia::{Game, Variant, search::Clock};
    /// let game = Game::new(Variant::load("standard").unwrap());
    /// let r = game.best_action("novice", 1, Clock::Off).unwrap();
    /// assert!(game.legal_actions().contains(&r.action));
    /// ```
    pub fn best_action(&self, level: &str, seed: u64, clock: Clock) -> Result<SearchResult, AiError> {
        let config = AiConfig::from_variant(&self.variant).map_err(AiError::Config)?;
        let level = config.level(level).map_err(AiError::UnknownLevel)?;
        self.search(&config, level, seed, clock)
    }

    /// Like [`Game::best_action`], with a configuration and level already read (or
    /// made up by the caller).
    pub fn search(&self, config: &AiConfig, level: &Level, seed: u64, clock: Clock) -> Result<SearchResult, AiError> {
        self.think(config, level, Think { seed, clock: Some(clock), ..Think::default() })
    }

    /// The search with everything an engine session gives it: a stop flag, a listener
    /// for each iteration, a table kept between moves ([`Think`]).
    pub fn think(&self, config: &AiConfig, level: &Level, think: Think<'_>) -> Result<SearchResult, AiError> {
        if let Some(o) = &self.outcome {
            return Err(AiError::GameOver(o.describe()));
        }
        if self.hooked() {
            // A failing filter_actions is the game's error, not "no move".
            self.try_legal_actions().map_err(|e| match e {
                super::RuleError::Script(s) | super::RuleError::Listing(s) => AiError::Script(s),
                other => AiError::GameOver(other.to_string()),
            })?;
        }
        let evaluator = Evaluator::new(&self.variant, &config.weights, &config.pieces);
        self.think_evaluated(&evaluator, level, think).ok_or(AiError::NoAction)
    }

    /// The search with an evaluator already built (the tuner scores many positions with
    /// the same weights). None if the side to move has no action.
    pub(crate) fn think_evaluated(
        &self,
        evaluator: &Evaluator,
        level: &Level,
        think: Think<'_>,
    ) -> Option<SearchResult> {
        let (soft, deadline) = think.clock.unwrap_or(Clock::Off).limits(level);
        let mut job = Job {
            level,
            evaluator,
            seed: think.seed,
            soft,
            deadline,
            history: &self.hashes,
            stop: think.stop,
            progress: think.progress,
            table: think.table,
        };
        if self.searched_whole() { slow::search(self, &mut job) } else { self.core.search(&mut job) }
    }

    /// Whether the search must play through the whole game: hooks take part, or a rule
    /// counts what the bare position does not keep (royal arrivals for `royal_repeat`).
    /// A game clock is left out either way: no time passes inside a search.
    fn searched_whole(&self) -> bool {
        self.hooked() || self.variant.draws.royal_repeat.is_some()
    }

    /// The static evaluation of the current position for the side to move, in centipawns,
    /// with the variant's `[ai]` weights (no search).
    pub fn evaluate(&self) -> Result<i32, AiError> {
        let config = AiConfig::from_variant(&self.variant).map_err(AiError::Config)?;
        Ok(self.core.evaluate(&Evaluator::new(&self.variant, &config.weights, &config.pieces)))
    }

    /// The static exchange evaluation of the capture `action` for the side to move, in
    /// centipawns of the pieces' values: what it wins (or loses, below 0) when both sides
    /// recapture on its square with their least valuable attackers while that pays. None
    /// for an action that captures nothing by moving there (drops, castling, en passant,
    /// shots) and in variants where a capture is not a plain exchange (hit points,
    /// explosions).
    pub fn static_exchange(&self, action: crate::action::Action) -> Result<Option<i32>, AiError> {
        let config = AiConfig::from_variant(&self.variant).map_err(AiError::Config)?;
        Ok(self.core.static_exchange(&Evaluator::new(&self.variant, &config.weights, &config.pieces), action))
    }

    /// The per-kind evaluation terms' features of the current position (for tuning them).
    pub(crate) fn features_for_ai(&self, ev: &Evaluator) -> crate::search::eval::Features {
        self.core.features(ev)
    }

    /// The static exchange value of `action` with an evaluator already built.
    pub(crate) fn static_exchange_for_ai(&self, ev: &Evaluator, action: crate::action::Action) -> Option<i32> {
        self.core.static_exchange(ev, action)
    }

    /// The static evaluation of a position of this game, for the slow back end.
    pub(crate) fn evaluate_for_ai(&self, ev: &Evaluator) -> i32 {
        self.core.evaluate(ev)
    }
}
