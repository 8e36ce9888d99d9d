//! Events: the observable truth of what an action did. Fixtures snapshot them, user
//! interfaces animate them, tests assert on them.

use serde_json::{Value, json};

use crate::geometry::Square;
use crate::outcome::Outcome;
use crate::piece::{KindId, Side};
use crate::variant::Variant;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A piece went from one square to another.
    Moved { side: Side, kind: KindId, from: Square, to: Square },
    /// A piece was removed by the opponent.
    Captured { side: Side, kind: KindId, square: Square },
    /// A piece took damage (with `[combat]`): how much, what is left, why, and what
    /// changed the amount (`note`: a multiplier, a guarding aura).
    Damaged {
        side: Side,
        kind: KindId,
        square: Square,
        amount: i64,
        hp: i64,
        cause: crate::variant::Cause,
        /// The square of the piece that dealt it (none for damage from a rule).
        by: Option<Square>,
        note: String,
    },
    /// A piece reached 0 hit points and was removed.
    Killed { side: Side, kind: KindId, square: Square },
    /// A capture's blast removed a piece (`[rules.explosion]`): the capturer or a
    /// neighbour of the capture square.
    Exploded { side: Side, kind: KindId, square: Square },
    /// After its attack, the attacker landed on a square it killed.
    Landed { side: Side, from: Square, to: Square },
    /// After its attack, the attacker stayed where it was (no kill).
    Bounced { side: Side, square: Square },
    /// A piece shot at a square without moving (the capture follows as `Captured`).
    Shot { side: Side, kind: KindId, from: Square, to: Square },
    /// A piece reached its promotion zone with nothing to become, and froze there.
    Frozen { side: Side, square: Square },
    /// The side passed (`[rules] pass`): nothing moved. `square` is its royal piece's,
    /// where the pass is written.
    Passed { side: Side, square: Square },
    /// A frozen piece became the piece its owner just lost.
    Returned { side: Side, square: Square, from: KindId, to: KindId },
    /// A piece from its side's hand was dropped on an empty square.
    Dropped { side: Side, kind: KindId, square: Square },
    /// A piece taken on `square` went to the taker's (`side`'s) hand, as `kind`.
    Banked { side: Side, kind: KindId, square: Square },
    /// A piece changed kind on promotion.
    Promoted { side: Side, square: Square, from: KindId, to: KindId },
    /// A castling moved the king and the rook.
    Castled { side: Side, king_from: Square, king_to: Square, rook_from: Square, rook_to: Square },
    /// A rule (a hook) removed a piece.
    Removed { side: Side, kind: KindId, square: Square },
    /// A rule (a hook) put a piece on the board.
    Placed { side: Side, kind: KindId, square: Square },
    /// A side scored points.
    Scored { side: Side, points: i64, reason: String },
    /// A side scored points from the `[scoring]` tables (in tenths: chain points,
    /// `"strike"`, or a run's or sequence's name).
    TableScored { side: Side, points: crate::scoring::Tenths, reason: String },
    /// A line a rule wrote to the log.
    Note { text: String },
    /// The game ended.
    Ended { outcome: Outcome },
}

/// Where the core sends events while applying an action. Search and perft use
/// [`NoEvents`], which compiles the events away.
pub(crate) trait Sink {
    const ON: bool;
    fn push(&mut self, e: Event);
    /// The damage a piece on `sq` is about to take; a rules hook may change it.
    fn damage(&mut self, _sq: Square, amount: i64, _cause: crate::variant::Cause) -> i64 {
        amount
    }
}

pub(crate) struct NoEvents;

impl Sink for NoEvents {
    const ON: bool = false;
    #[inline(always)]
    fn push(&mut self, _: Event) {}
}

impl Sink for Vec<Event> {
    const ON: bool = true;
    fn push(&mut self, e: Event) {
        Vec::push(self, e)
    }
}

impl Event {
    /// The event as JSON, with names in the variant's words.
    pub fn to_json(&self, v: &Variant) -> Value {
        let sq = |s: &Square| v.square_name(*s);
        let kind = |k: &KindId| v.kind(*k).name.clone();
        match self {
            Event::Moved { side, kind: k, from, to } => {
                json!({"event": "moved", "side": side.name(), "kind": kind(k), "from": sq(from), "to": sq(to)})
            }
            Event::Captured { side, kind: k, square } => {
                json!({"event": "captured", "side": side.name(), "kind": kind(k), "square": sq(square)})
            }
            Event::Damaged { side, kind: k, square, amount, hp, cause, by, note } => json!({
                "event": "damaged", "side": side.name(), "kind": kind(k), "square": sq(square),
                "amount": amount, "hp": hp, "cause": cause.name(), "by": by.as_ref().map(sq), "note": note
            }),
            Event::Killed { side, kind: k, square } => {
                json!({"event": "killed", "side": side.name(), "kind": kind(k), "square": sq(square)})
            }
            Event::Exploded { side, kind: k, square } => {
                json!({"event": "exploded", "side": side.name(), "kind": kind(k), "square": sq(square)})
            }
            Event::Landed { side, from, to } => {
                json!({"event": "landed", "side": side.name(), "from": sq(from), "to": sq(to)})
            }
            Event::Bounced { side, square } => json!({"event": "bounced", "side": side.name(), "square": sq(square)}),
            Event::Shot { side, kind: k, from, to } => {
                json!({"event": "shot", "side": side.name(), "kind": kind(k), "from": sq(from), "to": sq(to)})
            }
            Event::Frozen { side, square } => json!({"event": "frozen", "side": side.name(), "square": sq(square)}),
            Event::Passed { side, square } => json!({"event": "passed", "side": side.name(), "square": sq(square)}),
            Event::Returned { side, square, from, to } => json!({
                "event": "returned", "side": side.name(), "square": sq(square), "from": kind(from), "to": kind(to)
            }),
            Event::Dropped { side, kind: k, square } => {
                json!({"event": "dropped", "side": side.name(), "kind": kind(k), "square": sq(square)})
            }
            Event::Banked { side, kind: k, square } => {
                json!({"event": "banked", "side": side.name(), "kind": kind(k), "square": sq(square)})
            }
            Event::Promoted { side, square, from, to } => json!({
                "event": "promoted", "side": side.name(), "square": sq(square), "from": kind(from), "to": kind(to)
            }),
            Event::Castled { side, king_from, king_to, rook_from, rook_to } => json!({
                "event": "castled", "side": side.name(),
                "king": [sq(king_from), sq(king_to)], "rook": [sq(rook_from), sq(rook_to)]
            }),
            Event::Removed { side, kind: k, square } => {
                json!({"event": "removed", "side": side.name(), "kind": kind(k), "square": sq(square)})
            }
            Event::Placed { side, kind: k, square } => {
                json!({"event": "placed", "side": side.name(), "kind": kind(k), "square": sq(square)})
            }
            Event::Scored { side, points, reason } => {
                json!({"event": "scored", "side": side.name(), "points": points, "reason": reason})
            }
            Event::TableScored { side, points, reason } => {
                json!({"event": "table_scored", "side": side.name(), "tenths": points.0, "reason": reason})
            }
            Event::Note { text } => json!({"event": "note", "text": text}),
            Event::Ended { outcome } => json!({"event": "ended", "outcome": outcome.to_json()}),
        }
    }

    /// One line of text, for traces and the terminal.
    pub fn describe(&self, v: &Variant) -> String {
        let sq = |s: &Square| v.square_name(*s);
        let kind = |k: &KindId| v.kind(*k).name.clone();
        match self {
            Event::Moved { side, kind: k, from, to } => format!("{side} {} {}-{}", kind(k), sq(from), sq(to)),
            Event::Captured { side, kind: k, square } => format!("{side} {} captured on {}", kind(k), sq(square)),
            Event::Dropped { side, kind: k, square } => format!("{side} {} dropped on {}", kind(k), sq(square)),
            Event::Banked { side, kind: k, square } => {
                format!("{side} takes the piece on {} into its hand as a {}", sq(square), kind(k))
            }
            Event::Promoted { side, square, from, to } => {
                format!("{side} {} on {} promoted to {}", kind(from), sq(square), kind(to))
            }
            Event::Shot { side, kind: k, from, to } => format!("{side} {} on {} shoots {}", kind(k), sq(from), sq(to)),
            Event::Damaged { side, kind: k, square, amount, hp, cause, by, note } => {
                let note = if note.is_empty() { String::new() } else { format!(", {note}") };
                // A counter names the piece that strikes back (the others come from the mover).
                let by = match (cause, by) {
                    (crate::variant::Cause::Counter, Some(b)) => format!(" from {}", sq(b)),
                    _ => String::new(),
                };
                format!(
                    "{side} {} on {} takes {amount} ({}{by}{note}): {hp} HP left",
                    kind(k),
                    sq(square),
                    cause.name()
                )
            }
            Event::Killed { side, kind: k, square } => format!("{side} {} on {} killed", kind(k), sq(square)),
            Event::Exploded { side, kind: k, square } => format!("{side} {} on {} exploded", kind(k), sq(square)),
            Event::Landed { side, from, to } => format!("{side} attacker {} lands on {}", sq(from), sq(to)),
            Event::Bounced { side, square } => format!("{side} attacker stays on {}", sq(square)),
            Event::Frozen { side, square } => format!("{side} piece on {} frozen (nothing to promote to)", sq(square)),
            Event::Passed { side, .. } => format!("{side} passes"),
            Event::Returned { side, square, from, to } => {
                format!("{side} frozen {} on {} returns as {}", kind(from), sq(square), kind(to))
            }
            Event::Castled { side, king_from, king_to, rook_from, rook_to } => format!(
                "{side} castled: king {}-{}, rook {}-{}",
                sq(king_from),
                sq(king_to),
                sq(rook_from),
                sq(rook_to)
            ),
            Event::Removed { side, kind: k, square } => format!("{side} {} removed from {}", kind(k), sq(square)),
            Event::Placed { side, kind: k, square } => format!("{side} {} placed on {}", kind(k), sq(square)),
            Event::Scored { side, points, reason } => format!("{side} scores {points} ({reason})"),
            Event::TableScored { side, points, reason } => format!("{side} scores {points} ({reason})"),
            Event::Note { text } => format!("note: {text}"),
            Event::Ended { outcome } => format!("game over: {}", outcome.describe()),
        }
    }
}
