//! The scoring engine in a two-sided game: a variant with `[scoring]` keeps one score
//! per side, fed by every action of that side (`feed`): the kind of each enemy piece
//! the action removed — captured, killed or removed by a rule, in the order of its
//! events (`"captured"`, the default) — or the kind of the piece that acted
//! (`"moved"`). Chains, runs and sequences then pay as on a solo board, as
//! `TableScored` events. Layers and the time score belong to solo boards and are not
//! used here. The scores live in the rule state, so undo and rollback restore them.

use serde_json::{Value, json};

use super::{Game, RuleError};
use crate::event::Event;
use crate::piece::{KindId, Side};
use crate::scoring::{Feed, ScoreState};

impl Game {
    /// Feeds the action just made by `mover` (whose acting piece was `acting`) into its
    /// score, adding the points paid to `events`. Nothing to do without `[scoring]`.
    pub(super) fn score_action(
        &mut self,
        mover: Side,
        acting: Option<KindId>,
        text: &str,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        if self.variant.scoring.is_none() {
            return Ok(());
        }
        let variant = self.variant.clone();
        let rules = variant.scoring.as_ref().expect("checked just above");
        let fed: Vec<KindId> = match rules.feed {
            Feed::Moved => acting.into_iter().collect(),
            Feed::Captured => events
                .iter()
                .filter_map(|e| match e {
                    Event::Captured { side, kind, .. }
                    | Event::Killed { side, kind, .. }
                    | Event::Exploded { side, kind, .. }
                    | Event::Removed { side, kind, .. }
                        if *side != mover =>
                    {
                        Some(*kind)
                    }
                    _ => None,
                })
                .collect(),
        };
        if fed.is_empty() {
            return Ok(());
        }
        let table = self.rules.table.get_or_insert_with(|| Box::new([ScoreState::new(rules), ScoreState::new(rules)]));
        let score = &mut table[mover.index()];
        for kind in fed {
            let awards = score.strike(rules, kind).map_err(|_| RuleError::Illegal {
                action: text.to_string(),
                why: format!("{mover}'s score would overflow"),
            })?;
            for a in awards {
                events.push(Event::TableScored { side: mover, points: a.points, reason: a.reason });
            }
        }
        Ok(())
    }

    /// A side's score from the `[scoring]` tables (empty without them, or before it
    /// has scored).
    pub fn table_score(&self, side: Side) -> ScoreState {
        match (&self.rules.table, &self.variant.scoring) {
            (Some(t), _) => t[side.index()].clone(),
            (None, Some(rules)) => ScoreState::new(rules),
            (None, None) => ScoreState::default(),
        }
    }

    /// Each side's score breakdown in tenths (`{"white": {...}, "black": {...}}`, the
    /// keys of `ScoreState::to_json`), or `None` without `[scoring]`.
    pub fn table_scores_json(&self) -> Option<Value> {
        let rules = self.variant.scoring.as_ref()?;
        let kinds = |k: KindId| self.variant.kind(k).name.clone();
        let side = |s: Side| self.table_score(s).to_json(rules, &kinds, None);
        Some(json!({ "white": side(Side::White), "black": side(Side::Black) }))
    }
}
