//! The scoring engine: points from tables, in exact integer tenths.
//!
//! A score is fed a stream of *strikes* (each one a piece kind: the piece struck in a
//! solo forge, or the piece captured in a two-sided game) and of *layer* events, and it
//! pays, all from `[scoring]` in TOML:
//! - **chain points** per strike, by the length of the run of strikes on the same kind
//!   (`chain = [1.0, 1.1, …]`, the last entry repeating);
//! - **run bonuses**: every `every` strikes in a row on kinds of a set, broken by any
//!   other kind (`[scoring.runs.<name>]`);
//! - **sequence bonuses**: strikes on kinds in a given order, one after the other
//!   (`[scoring.sequences.<name>]`; it can repeat);
//! - **layer bonuses**: each time a layer event happens (`layer = 20.0`);
//! - a **time score**: a start value losing `decay` per whole second, down to `floor`.
//!
//! Everything is kept in tenths (`Tenths`), so 1.1 + 1.2 is 2.3 exactly.

use std::fmt;

use serde_json::{Value, json};

use crate::piece::KindId;

/// An amount of points in tenths: `Tenths(23)` is 2.3 points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Tenths(pub i64);

impl Tenths {
    pub const ZERO: Tenths = Tenths(0);

    /// The sum, or `None` if it does not fit (scores never wrap).
    pub fn checked_add(self, other: Tenths) -> Option<Tenths> {
        self.0.checked_add(other.0).map(Tenths)
    }
}

impl fmt::Display for Tenths {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let a = self.0.unsigned_abs();
        write!(f, "{sign}{}.{}", a / 10, a % 10)
    }
}

/// A bonus for every `every` strikes in a row on the kinds of a set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunBonus {
    pub name: String,
    /// Bit per kind.
    pub kinds: u32,
    pub every: u32,
    pub points: Tenths,
}

/// A bonus for striking kinds in this order, one right after the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceBonus {
    pub name: String,
    pub kinds: Vec<KindId>,
    pub points: Tenths,
    /// The matcher's fallback table (Knuth–Morris–Pratt), so a broken sequence keeps the
    /// part of it that can still start a new one.
    fallback: Vec<usize>,
}

impl SequenceBonus {
    pub fn new(name: String, kinds: Vec<KindId>, points: Tenths) -> SequenceBonus {
        let mut fallback = vec![0; kinds.len()];
        let mut k = 0;
        for i in 1..kinds.len() {
            while k > 0 && kinds[i] != kinds[k] {
                k = fallback[k - 1];
            }
            if kinds[i] == kinds[k] {
                k += 1;
            }
            fallback[i] = k;
        }
        SequenceBonus { name, kinds, points, fallback }
    }

    /// The progress after a strike on `kind` with `progress` matched so far.
    pub(crate) fn step(&self, mut progress: usize, kind: KindId) -> usize {
        while progress > 0 && self.kinds[progress] != kind {
            progress = self.fallback[progress - 1];
        }
        if self.kinds[progress] == kind { progress + 1 } else { 0 }
    }
}

/// The time score: `start`, less `decay` per whole second, never below `floor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeScore {
    pub start: Tenths,
    pub decay: Tenths,
    pub floor: Tenths,
    /// A board that ends without being completed still gets its time score.
    pub on_unfinished: bool,
}

impl TimeScore {
    /// The time score after `elapsed_ms` of play (whole seconds, rounded down).
    pub fn at(&self, elapsed_ms: u64) -> Tenths {
        let secs = (elapsed_ms / 1000) as i64;
        let lost = self.decay.0.saturating_mul(secs);
        Tenths(self.start.0.saturating_sub(lost).max(self.floor.0))
    }
}

/// In a two-sided game, what counts as a strike of the side that acted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Feed {
    /// The kind of each piece its action removed.
    #[default]
    Captured,
    /// The kind of the piece that acted.
    Moved,
}

/// What `[scoring]` pays for.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ScoringRules {
    /// Points per strike by chain length (1-based; the last repeats). Empty: none.
    pub chain: Vec<Tenths>,
    pub runs: Vec<RunBonus>,
    pub sequences: Vec<SequenceBonus>,
    /// Points per layer event.
    pub layer: Tenths,
    pub time: Option<TimeScore>,
    /// Two-sided games: what feeds the strikes.
    pub feed: Feed,
}

/// Points paid by one event, with what they were for (the `Scored` events of a strike).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Award {
    /// `"strike"`, `"layer"`, or a run's or sequence's name.
    pub reason: String,
    pub points: Tenths,
}

/// A score in progress: totals by source and the state of every chain, run and sequence.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScoreState {
    /// Chain points from strikes.
    pub strikes: Tenths,
    /// Per run bonus, then per sequence bonus (in the order of the rules).
    pub bonuses: Vec<Tenths>,
    pub layers: Tenths,
    /// The kind of the current chain and its length.
    pub chain: Option<(KindId, u32)>,
    /// Per run bonus: strikes in a row on its kinds.
    pub runs: Vec<u32>,
    /// Per sequence bonus: how much of it has been matched.
    pub sequences: Vec<usize>,
}

/// A score would overflow (it never wraps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the score would overflow")]
pub struct Overflow;

fn add(total: &mut Tenths, points: Tenths) -> Result<(), Overflow> {
    *total = total.checked_add(points).ok_or(Overflow)?;
    Ok(())
}

impl ScoreState {
    pub fn new(rules: &ScoringRules) -> ScoreState {
        ScoreState {
            bonuses: vec![Tenths::ZERO; rules.runs.len() + rules.sequences.len()],
            runs: vec![0; rules.runs.len()],
            sequences: vec![0; rules.sequences.len()],
            ..ScoreState::default()
        }
    }

    /// A strike on `kind`: chain points, then any run or sequence it completes.
    pub fn strike(&mut self, rules: &ScoringRules, kind: KindId) -> Result<Vec<Award>, Overflow> {
        let mut out = Vec::new();
        let len = match self.chain {
            Some((k, n)) if k == kind => n.saturating_add(1),
            _ => 1,
        };
        self.chain = Some((kind, len));
        if let Some(&last) = rules.chain.last() {
            let points = rules.chain.get(len as usize - 1).copied().unwrap_or(last);
            add(&mut self.strikes, points)?;
            out.push(Award { reason: "strike".into(), points });
        }
        for (i, run) in rules.runs.iter().enumerate() {
            if run.kinds & (1 << kind.0) == 0 {
                self.runs[i] = 0;
                continue;
            }
            self.runs[i] = self.runs[i].saturating_add(1);
            if self.runs[i] % run.every == 0 {
                add(&mut self.bonuses[i], run.points)?;
                out.push(Award { reason: run.name.clone(), points: run.points });
            }
        }
        let nruns = rules.runs.len();
        for (i, seq) in rules.sequences.iter().enumerate() {
            let p = seq.step(self.sequences[i], kind);
            if p == seq.kinds.len() {
                self.sequences[i] = 0;
                add(&mut self.bonuses[nruns + i], seq.points)?;
                out.push(Award { reason: seq.name.clone(), points: seq.points });
            } else {
                self.sequences[i] = p;
            }
        }
        Ok(out)
    }

    /// A layer event (every square has taken one more strike).
    pub fn layer(&mut self, rules: &ScoringRules) -> Result<Option<Award>, Overflow> {
        if rules.layer == Tenths::ZERO {
            return Ok(None);
        }
        add(&mut self.layers, rules.layer)?;
        Ok(Some(Award { reason: "layer".into(), points: rules.layer }))
    }

    /// Strike points, bonuses and layers: everything but time.
    pub fn points(&self) -> Tenths {
        let b: i64 = self.bonuses.iter().map(|t| t.0).fold(0i64, i64::saturating_add);
        Tenths(self.strikes.0.saturating_add(b).saturating_add(self.layers.0))
    }

    /// The score as JSON, in tenths: `strike_points`, one key per bonus (its name),
    /// `layer`, `time` (when given), `total`, and the `chain` in progress.
    pub fn to_json(&self, rules: &ScoringRules, kinds: &dyn Fn(KindId) -> String, time: Option<Tenths>) -> Value {
        let mut o = serde_json::Map::new();
        o.insert("strike_points".into(), json!(self.strikes.0));
        let names = rules.runs.iter().map(|r| &r.name).chain(rules.sequences.iter().map(|s| &s.name));
        for (name, t) in names.zip(&self.bonuses) {
            o.insert(name.clone(), json!(t.0));
        }
        o.insert("layer".into(), json!(self.layers.0));
        let t = time.unwrap_or(Tenths::ZERO);
        if rules.time.is_some() {
            o.insert("time".into(), json!(t.0));
        }
        o.insert("total".into(), json!(self.points().0.saturating_add(t.0)));
        o.insert(
            "chain".into(),
            match self.chain {
                Some((k, n)) => json!({"kind": kinds(k), "length": n}),
                None => Value::Null,
            },
        );
        for (run, n) in rules.runs.iter().zip(&self.runs) {
            o.insert(format!("{}_run", run.name), json!(n));
        }
        Value::Object(o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: KindId = KindId(0);
    const TWO: KindId = KindId(1);
    const THREE: KindId = KindId(2);
    const FOUR: KindId = KindId(3);
    const BISHOP: KindId = KindId(4);
    const ROOK: KindId = KindId(5);

    fn strike_table_rules() -> ScoringRules {
        ScoringRules {
            chain: [10, 11, 12, 13, 14, 15].map(Tenths).to_vec(),
            runs: vec![RunBonus { name: "royal".into(), kinds: 0b11_0000, every: 4, points: Tenths(50) }],
            sequences: vec![SequenceBonus::new("perfect".into(), vec![ONE, TWO, THREE, FOUR], Tenths(50))],
            layer: Tenths(200),
            time: Some(TimeScore { start: Tenths(500), decay: Tenths(1), floor: Tenths(0), on_unfinished: true }),
            feed: Feed::Captured,
        }
    }

    fn play(rules: &ScoringRules, kinds: &[KindId]) -> (ScoreState, Vec<Award>) {
        let mut s = ScoreState::new(rules);
        let mut all = Vec::new();
        for &k in kinds {
            all.extend(s.strike(rules, k).unwrap());
        }
        (s, all)
    }

    #[test]
    fn chains_grow_to_the_cap_and_reset_on_a_new_kind() {
        let r = strike_table_rules();
        // Seven ones: 1.0 + 1.1 + 1.2 + 1.3 + 1.4 + 1.5 + 1.5 = 9.0; then a two: 1.0.
        let (s, _) = play(&r, &[ONE; 7]);
        assert_eq!(s.strikes, Tenths(90));
        assert_eq!(s.chain, Some((ONE, 7)));
        let (s, _) = play(&r, &[ONE, ONE, ONE, TWO, TWO]);
        assert_eq!(s.strikes, Tenths(10 + 11 + 12 + 10 + 11));
        assert_eq!(s.chain, Some((TWO, 2)));
    }

    #[test]
    fn runs_pay_at_every_multiple_and_break_on_other_kinds() {
        let r = strike_table_rules();
        // B R B R pays once (at 4), four more pay again (at 8); a number in between resets.
        let (s, a) = play(&r, &[BISHOP, ROOK, BISHOP, ROOK, BISHOP, ROOK, BISHOP, ROOK]);
        assert_eq!(s.bonuses[0], Tenths(100));
        assert_eq!(a.iter().filter(|x| x.reason == "royal").count(), 2);
        let (s, _) = play(&r, &[BISHOP, ROOK, BISHOP, ONE, ROOK, BISHOP, ROOK]);
        assert_eq!(s.bonuses[0], Tenths(0));
        assert_eq!(s.runs[0], 3);
    }

    #[test]
    fn sequences_need_consecutive_strikes_and_can_repeat() {
        let r = strike_table_rules();
        let (s, _) = play(&r, &[ONE, TWO, THREE, FOUR, ONE, TWO, THREE, FOUR]);
        assert_eq!(s.bonuses[1], Tenths(100));
        // Broken by a two in the middle; the one after the break starts a new match.
        let (s, _) = play(&r, &[ONE, TWO, TWO, THREE, FOUR]);
        assert_eq!(s.bonuses[1], Tenths(0));
        let (s, _) = play(&r, &[ONE, ONE, TWO, THREE, FOUR]);
        assert_eq!(s.bonuses[1], Tenths(50));
        // A self-overlapping pattern keeps what can still start it (1 1 2 after 1 1 1 2).
        let r2 = ScoringRules {
            sequences: vec![SequenceBonus::new("s".into(), vec![ONE, ONE, TWO], Tenths(10))],
            ..ScoringRules::default()
        };
        let (s, _) = play(&r2, &[ONE, ONE, ONE, TWO]);
        assert_eq!(s.bonuses[0], Tenths(10));
    }

    #[test]
    fn time_decays_by_whole_seconds_down_to_the_floor() {
        let t = strike_table_rules().time.unwrap();
        assert_eq!(t.at(0), Tenths(500));
        assert_eq!(t.at(999), Tenths(500));
        assert_eq!(t.at(12_900), Tenths(488));
        assert_eq!(t.at(500_000), Tenths(0));
        assert_eq!(t.at(u64::MAX), Tenths(0));
    }

    #[test]
    fn tenths_print_with_one_decimal_and_never_wrap() {
        assert_eq!(Tenths(23).to_string(), "2.3");
        assert_eq!(Tenths(-5).to_string(), "-0.5");
        assert_eq!(Tenths(500).to_string(), "50.0");
        let r = ScoringRules { layer: Tenths(i64::MAX), ..ScoringRules::default() };
        let mut s = ScoreState::new(&r);
        assert!(s.layer(&r).is_ok());
        assert_eq!(s.layer(&r), Err(Overflow));
        assert_eq!(s.layers, Tenths(i64::MAX));
    }
}
