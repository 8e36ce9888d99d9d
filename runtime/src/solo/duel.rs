//! Duels (CH-18, A-CH11): two players on the same board, each against the countdown of
//! `[duel]` instead of the time score ([`SoloGame::into_duel`]); the higher total wins
//! and equal totals draw; ratings move by Elo with `[duel] elo_k`.
//!
//! Ratings are a table of players kept as JSON text. Storing it is the caller's job (the
//! terminal keeps it in its data folder); reading refuses anything that is not such a
//! table and names the place, so a damaged file is never silently replaced.
//!
//! [`SoloGame::into_duel`]: super::SoloGame::into_duel

use std::collections::BTreeMap;

use serde_json::{Value, json};
use thiserror::Error;

use crate::scoring::Tenths;
use crate::variant::DuelRules;

/// How a duel ended, from the first player's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuelOutcome {
    FirstWins,
    SecondWins,
    Draw,
}

impl DuelOutcome {
    /// The higher total wins; equal totals draw.
    pub fn decide(first: Tenths, second: Tenths) -> DuelOutcome {
        match first.cmp(&second) {
            std::cmp::Ordering::Greater => DuelOutcome::FirstWins,
            std::cmp::Ordering::Less => DuelOutcome::SecondWins,
            std::cmp::Ordering::Equal => DuelOutcome::Draw,
        }
    }

    /// The first player's Elo score: 1, ½ or 0.
    fn first_score(self) -> f64 {
        match self {
            DuelOutcome::FirstWins => 1.0,
            DuelOutcome::Draw => 0.5,
            DuelOutcome::SecondWins => 0.0,
        }
    }
}

/// The first player's expected score against the second: 1 / (1 + 10^((rb − ra) / 400)).
pub fn expected(first: i64, second: i64) -> f64 {
    let diff = (second as f64 - first as f64) / 400.0;
    1.0 / (1.0 + 10f64.powf(diff))
}

/// The first player's rating change, `K × (S − E)` rounded to the nearest whole point
/// (halves away from zero); the second player's is its negation, so a duel never
/// creates or destroys rating points.
pub fn elo_change(first: i64, second: i64, outcome: DuelOutcome, k: u32) -> i64 {
    (k as f64 * (outcome.first_score() - expected(first, second))).round() as i64
}

/// Why a ratings table was refused, or a duel could not be recorded. Nothing changed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RatingsError {
    #[error("not valid JSON at line {line}, column {col}: {message}")]
    Json { line: usize, col: usize, message: String },
    #[error("`{field}`: {why}")]
    Field { field: String, why: String },
    #[error("`{name}` is not a player name: {why}")]
    Name { name: String, why: String },
    #[error("a duel needs two different players, not `{0}` twice")]
    SamePlayer(String),
}

fn field(field: impl Into<String>, why: impl Into<String>) -> RatingsError {
    RatingsError::Field { field: field.into(), why: why.into() }
}

/// One player's rating and duel counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    pub rating: i64,
    pub duels: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
}

impl Record {
    fn new(rating: i64) -> Record {
        Record { rating, duels: 0, wins: 0, losses: 0, draws: 0 }
    }
}

/// What recording a duel did to the two ratings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RatingChange {
    pub before: [i64; 2],
    pub after: [i64; 2],
}

/// Players' ratings, by name (in name order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ratings {
    players: BTreeMap<String, Record>,
}

/// A name as a player types it: 1 to 40 characters, no control characters, no space at
/// either end.
pub fn check_name(name: &str) -> Result<(), RatingsError> {
    let bad = |why: &str| Err(RatingsError::Name { name: name.to_string(), why: why.to_string() });
    let n = name.chars().count();
    if n == 0 {
        return bad("it is empty");
    }
    if n > 40 {
        return bad("it is longer than 40 characters");
    }
    if name.chars().any(char::is_control) {
        return bad("it holds a control character");
    }
    if name.trim() != name {
        return bad("it starts or ends with a space");
    }
    Ok(())
}

impl Ratings {
    /// Reads a table written by [`Ratings::to_json`]:
    /// `{"players": {"alice": {"rating": 1216, "duels": 1, "wins": 1, "losses": 0, "draws": 0}}}`.
    pub fn parse(text: &str) -> Result<Ratings, RatingsError> {
        let value: Value = serde_json::from_str(text).map_err(|e| RatingsError::Json {
            line: e.line(),
            col: e.column(),
            message: e.to_string().split(" at line").next().unwrap_or_default().to_string(),
        })?;
        let players = value
            .as_object()
            .and_then(|o| o.get("players"))
            .ok_or_else(|| field("players", "a ratings table is an object with `players`"))?
            .as_object()
            .ok_or_else(|| field("players", "expected an object of players by name"))?;
        let mut out = BTreeMap::new();
        for (name, r) in players {
            check_name(name)?;
            let at = |k: &str| format!("players.{name}.{k}");
            let obj = r.as_object().ok_or_else(|| field(format!("players.{name}"), "expected an object"))?;
            for k in obj.keys() {
                if !["rating", "duels", "wins", "losses", "draws"].contains(&k.as_str()) {
                    return Err(field(at(k), "unknown key; expected rating, duels, wins, losses, draws"));
                }
            }
            let rating = obj
                .get("rating")
                .ok_or_else(|| field(at("rating"), "missing"))?
                .as_i64()
                .filter(|r| r.unsigned_abs() <= 1 << 40)
                .ok_or_else(|| field(at("rating"), "expected a whole number"))?;
            let count = |k: &str| -> Result<u64, RatingsError> {
                match obj.get(k) {
                    None => Ok(0),
                    Some(v) => v.as_u64().ok_or_else(|| field(at(k), "expected a count (a whole number, 0 or more)")),
                }
            };
            let rec = Record {
                rating,
                duels: count("duels")?,
                wins: count("wins")?,
                losses: count("losses")?,
                draws: count("draws")?,
            };
            let sum = rec.wins.checked_add(rec.losses).and_then(|s| s.checked_add(rec.draws));
            if sum != Some(rec.duels) {
                return Err(field(at("duels"), "wins, losses and draws do not add up to the duels"));
            }
            out.insert(name.clone(), rec);
        }
        Ok(Ratings { players: out })
    }

    /// The table as JSON text (what [`Ratings::parse`] reads).
    pub fn to_json(&self) -> String {
        let players: serde_json::Map<String, Value> = self
            .players
            .iter()
            .map(|(n, r)| {
                let rec =
                    json!({"rating": r.rating, "duels": r.duels, "wins": r.wins, "losses": r.losses, "draws": r.draws});
                (n.clone(), rec)
            })
            .collect();
        serde_json::to_string_pretty(&json!({ "players": players })).expect("a JSON value always serialises")
    }

    pub fn get(&self, name: &str) -> Option<&Record> {
        self.players.get(name)
    }

    /// Every player, in name order.
    pub fn players(&self) -> impl Iterator<Item = (&str, &Record)> {
        self.players.iter().map(|(n, r)| (n.as_str(), r))
    }

    /// A player's rating; `[duel] elo_start` for a newcomer.
    pub fn rating(&self, name: &str, rules: &DuelRules) -> i64 {
        self.players.get(name).map_or(rules.elo_start as i64, |r| r.rating)
    }

    /// Records a duel between `first` and `second` (newcomers start at `elo_start`).
    pub fn record(
        &mut self,
        first: &str,
        second: &str,
        outcome: DuelOutcome,
        rules: &DuelRules,
    ) -> Result<RatingChange, RatingsError> {
        check_name(first)?;
        check_name(second)?;
        if first == second {
            return Err(RatingsError::SamePlayer(first.to_string()));
        }
        let before = [self.rating(first, rules), self.rating(second, rules)];
        let delta = elo_change(before[0], before[1], outcome, rules.elo_k);
        let after = [before[0].saturating_add(delta), before[1].saturating_sub(delta)];
        for (i, name) in [first, second].into_iter().enumerate() {
            let r = self.players.entry(name.to_string()).or_insert(Record::new(before[i]));
            r.rating = after[i];
            r.duels = r.duels.saturating_add(1);
            let won = match outcome {
                DuelOutcome::Draw => None,
                DuelOutcome::FirstWins => Some(i == 0),
                DuelOutcome::SecondWins => Some(i == 1),
            };
            match won {
                None => r.draws = r.draws.saturating_add(1),
                Some(true) => r.wins = r.wins.saturating_add(1),
                Some(false) => r.losses = r.losses.saturating_add(1),
            }
        }
        Ok(RatingChange { before, after })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(k: u32) -> DuelRules {
        DuelRules {
            countdown_ms: 300_000,
            bonus_per_second: Tenths(1),
            pause: false,
            elo_k: k,
            elo_start: 1200,
            computer_pace_ms: 2_000,
        }
    }

    #[test]
    fn the_higher_total_wins_and_equal_totals_draw() {
        assert_eq!(DuelOutcome::decide(Tenths(1605), Tenths(1604)), DuelOutcome::FirstWins);
        assert_eq!(DuelOutcome::decide(Tenths(10), Tenths(2693)), DuelOutcome::SecondWins);
        assert_eq!(DuelOutcome::decide(Tenths(519), Tenths(519)), DuelOutcome::Draw);
    }

    #[test]
    fn elo_changes_by_hand() {
        // Equal ratings: E = 0.5, so K × ½ = 16 for a win, 0 for a draw.
        assert_eq!(elo_change(1200, 1200, DuelOutcome::FirstWins, 32), 16);
        assert_eq!(elo_change(1200, 1200, DuelOutcome::Draw, 32), 0);
        assert_eq!(elo_change(1200, 1200, DuelOutcome::SecondWins, 32), -16);
        // 1400 against 1200: E = 1 / (1 + 10^-0.5) = 0.759746…; a win 32 × 0.240253 = 7.69
        // → 8; a draw 32 × -0.259747 = -8.31 → -8; a loss 32 × -0.759747 = -24.31 → -24.
        assert_eq!(elo_change(1400, 1200, DuelOutcome::FirstWins, 32), 8);
        assert_eq!(elo_change(1400, 1200, DuelOutcome::Draw, 32), -8);
        assert_eq!(elo_change(1400, 1200, DuelOutcome::SecondWins, 32), -24);
        // 1000 against 1800 with K = 16: E = 1/101 = 0.009901; a win 16 × 0.990099 = 15.84
        // → 16; a draw 16 × 0.490099 = 7.84 → 8; a loss 16 × -0.009901 = -0.16 → 0.
        assert_eq!(elo_change(1000, 1800, DuelOutcome::FirstWins, 16), 16);
        assert_eq!(elo_change(1000, 1800, DuelOutcome::Draw, 16), 8);
        assert_eq!(elo_change(1000, 1800, DuelOutcome::SecondWins, 16), 0);
        // A half rounds away from zero: K = 1 at equal ratings is ½ → 1.
        assert_eq!(elo_change(1500, 1500, DuelOutcome::FirstWins, 1), 1);
        assert!((expected(1400, 1200) - 0.759_746_926).abs() < 1e-9);
    }

    #[test]
    fn recording_duels_moves_both_ratings_and_counts() {
        let r = rules(32);
        let mut t = Ratings::default();
        let c = t.record("alice", "bob", DuelOutcome::FirstWins, &r).unwrap();
        assert_eq!(c, RatingChange { before: [1200, 1200], after: [1216, 1184] });
        // 1184 against 1216: E = 1 / (1 + 10^(32/400)) = 0.454078; a win pays
        // 32 × 0.545922 = 17.47 → 17.
        let c = t.record("bob", "alice", DuelOutcome::FirstWins, &r).unwrap();
        assert_eq!(c, RatingChange { before: [1184, 1216], after: [1201, 1199] });
        // 1199 against a newcomer (1200): E = 0.498561, a draw 32 × 0.001439 = 0.05 → 0.
        let c = t.record("alice", "carol", DuelOutcome::Draw, &r).unwrap();
        assert_eq!(c, RatingChange { before: [1199, 1200], after: [1199, 1200] });
        let alice = *t.get("alice").unwrap();
        assert_eq!(alice, Record { rating: 1199, duels: 3, wins: 1, losses: 1, draws: 1 });
        assert_eq!(t.rating("dave", &r), 1200);
        // The table round-trips as JSON.
        assert_eq!(Ratings::parse(&t.to_json()).unwrap(), t);
        assert_eq!(t.record("alice", "alice", DuelOutcome::Draw, &r), Err(RatingsError::SamePlayer("alice".into())));
        assert!(matches!(t.record("", "bob", DuelOutcome::Draw, &r), Err(RatingsError::Name { .. })));
        assert_eq!(t.get("alice").unwrap().duels, 3, "a refused duel changes nothing");
    }

    #[test]
    fn a_damaged_table_is_refused_with_its_place() {
        let e = Ratings::parse("{\"players\": {\"alice\": {\"rating\": 12").unwrap_err();
        assert!(matches!(e, RatingsError::Json { line: 1, .. }), "{e}");
        let e = Ratings::parse("[1, 2]").unwrap_err();
        assert_eq!(e.to_string(), "`players`: a ratings table is an object with `players`");
        let e = Ratings::parse(r#"{"players": {"alice": {"rating": "high"}}}"#).unwrap_err();
        assert_eq!(e.to_string(), "`players.alice.rating`: expected a whole number");
        let e = Ratings::parse(r#"{"players": {"alice": {"rating": 1200, "duels": 2, "wins": 1}}}"#).unwrap_err();
        assert_eq!(e.to_string(), "`players.alice.duels`: wins, losses and draws do not add up to the duels");
        let e = Ratings::parse(r#"{"players": {"alice": {"rating": 1200, "elo": 3}}}"#).unwrap_err();
        assert!(e.to_string().starts_with("`players.alice.elo`: unknown key"), "{e}");
        let e = Ratings::parse(r#"{"players": {"a\u0007": {"rating": 1200}}}"#).unwrap_err();
        assert!(matches!(e, RatingsError::Name { .. }), "{e}");
        assert_eq!(Ratings::parse(r#"{"players": {}}"#).unwrap(), Ratings::default());
    }
}
