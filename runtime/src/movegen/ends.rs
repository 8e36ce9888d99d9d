//! The rules of `[[rules.end]]`, `forced_capture` and `giving_check` as the move
//! generator applies them: whether a position is over (then it has no legal move, as in
//! Fairy-Stockfish, whose perft counts none there) and the filters on a listing.

use crate::action::{Action, ActionKind};
use crate::bits::Bits;
use crate::event::NoEvents;
use crate::piece::{KindId, MAX_KINDS, Side};
use crate::position::Position;
use crate::variant::Verdict;

use super::tables::{CEnd, Tables};

/// An end rule that holds: its index in `[[rules.end]]` and the winner (None: a draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ended {
    pub rule: usize,
    pub winner: Option<Side>,
}

fn result(side: Side, verdict: Verdict) -> Option<Side> {
    match verdict {
        Verdict::Win => Some(side),
        Verdict::Loss => Some(side.opponent()),
        Verdict::Draw => None,
    }
}

/// A side's pieces of kind `k` (all its pieces with None), its hand included.
fn count<B: Bits>(pos: &Position<B>, t: &Tables<B>, side: Side, k: Option<usize>) -> u32 {
    let s = side.index();
    let hand = t.hand.is_some();
    match k {
        None => pos.by_side[s].count() + if hand { pos.hands[s].total() } else { 0 },
        Some(k) => pos.pieces(side, k).count() + if hand { pos.hands[s].count(KindId(k as u8)) } else { 0 },
    }
}

/// The first end rule that holds in `pos`, in the order of `[[rules.end]]`; for each,
/// white is looked at before black (as Fairy-Stockfish does).
pub(crate) fn ended<B: Bits>(pos: &Position<B>, t: &Tables<B>) -> Option<Ended> {
    let stm = pos.stm;
    for (i, e) in t.ends.iter().enumerate() {
        // `result = "points"`: the material count decides, whoever the rule concerns.
        let by_points = t.end_by_points & (1 << i) != 0;
        let hit = |winner| Some(Ended { rule: i, winner: if by_points { points_winner(pos, t) } else { winner } });
        match *e {
            CEnd::Reach { kinds, region, reply, verdict } => {
                let on_goal = |side: Side| {
                    let mut pcs = B::EMPTY;
                    for k in 0..MAX_KINDS {
                        if kinds & (1 << k) != 0 {
                            pcs |= pos.by_kind[k];
                        }
                    }
                    (pcs & pos.by_side[side.index()] & region[side.index()]).any()
                };
                if !reply {
                    if on_goal(stm.opponent()) {
                        return hit(result(stm.opponent(), verdict));
                    }
                } else if on_goal(stm) {
                    // Black equalised in its reply: a draw; otherwise the side to move,
                    // still on its goal after the opponent's reply, has it.
                    if stm == Side::White && on_goal(Side::Black) {
                        return hit(None);
                    }
                    return hit(result(stm, verdict));
                }
            }
            CEnd::Checks { count, verdict } => {
                // Judged for the side that just moved, as FSF does: only its count moved.
                let mover = stm.opponent();
                if pos.checks[mover.index()] >= count {
                    return hit(result(mover, verdict));
                }
            }
            CEnd::Passes { verdict } => {
                if pos.passes >= 2 {
                    return hit(result(stm.opponent(), verdict));
                }
            }
            CEnd::Facing { verdict } => {
                if pos.faced && pos.royals_face(t) {
                    return hit(result(stm.opponent(), verdict));
                }
            }
            CEnd::Extinct { kinds, at_most, opponent_at_least, claim, verdict } => {
                for side in Side::BOTH {
                    let needed = opponent_at_least + (claim && side == stm) as u32;
                    let out = |k: Option<usize>| {
                        count(pos, t, side, k) <= at_most && count(pos, t, side.opponent(), k) >= needed
                    };
                    let hold = match kinds {
                        None => out(None),
                        Some(mask) => (0..MAX_KINDS).filter(|&k| mask & (1 << k) != 0).any(|k| out(Some(k))),
                    };
                    if hold {
                        return hit(result(side, verdict));
                    }
                }
            }
        }
    }
    None
}

/// Each side's count by `[rules.points]`: its pieces' values (hand included) and its bonus.
pub(crate) fn points<B: Bits>(pos: &Position<B>, t: &Tables<B>) -> [f64; 2] {
    let Some(p) = t.points.as_ref() else { return [0.0; 2] };
    Side::BOTH.map(|side| {
        let pieces: f64 = p.values.iter().enumerate().map(|(k, v)| v * count(pos, t, side, Some(k)) as f64).sum();
        pieces + p.bonus[side.index()]
    })
}

/// The side with more points (None: equal).
fn points_winner<B: Bits>(pos: &Position<B>, t: &Tables<B>) -> Option<Side> {
    let [w, b] = points(pos, t);
    if w > b {
        Some(Side::White)
    } else if b > w {
        Some(Side::Black)
    } else {
        None
    }
}

/// Whether `a` takes a piece (en passant and shots included; castling and drops never).
fn is_capture<B: Bits>(pos: &Position<B>, a: &Action) -> bool {
    match a.kind {
        ActionKind::EnPassant | ActionKind::Shot => true,
        ActionKind::Castle(_) | ActionKind::Drop | ActionKind::Pass => false,
        _ => pos.by_side[pos.stm.opponent().index()].has(a.to.index()),
    }
}

/// Applies `giving_check` and `forced_capture` to the actions listed from `start` on:
/// moves that give check go first (so a capture that would check does not force others),
/// then, when a capture is left, every non-capture.
pub(crate) fn filter<B: Bits>(pos: &Position<B>, t: &Tables<B>, out: &mut Vec<Action>, start: usize) {
    if t.checks_illegal {
        let them = pos.stm.opponent();
        retain_from(out, start, |a| {
            let mut p = pos.clone();
            p.make(t, *a, &mut NoEvents);
            !p.royal_attacked(t, them)
        });
    }
    if t.forced_capture && out[start..].iter().any(|a| is_capture(pos, a)) {
        retain_from(out, start, |a| is_capture(pos, a));
    }
}

fn retain_from(out: &mut Vec<Action>, start: usize, keep: impl Fn(&Action) -> bool) {
    let mut w = start;
    for r in start..out.len() {
        if keep(&out[r]) {
            out[w] = out[r];
            w += 1;
        }
    }
    out.truncate(w);
}
