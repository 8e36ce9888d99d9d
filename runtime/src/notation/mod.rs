//! Text forms: actions (`e2-e4`, `e7-e8=Q`) and positions (FEN).
//!
//! An action is written `from-to`, case-insensitively; the dash may be left out
//! (`e2e4`) or written `x` for a capture. A promotion adds `=X` with the new kind's
//! letter. Castling is written as the king's move (`e1-g1`), a ranged shot as
//! shooter-target (`b1-b3`). A capture after which the loser's frozen piece returns adds
//! `+X` (the kind it returns as; informative, since it is forced). A trailing `+` or `#`
//! (check, mate) is accepted and ignored. A drop from the hand is the kind's letter, `@`
//! and the square (`P@e4`), in every notation.

pub(crate) mod consistency;
pub mod fen;
pub mod lan;
pub mod names;
pub mod pgn;
pub mod san;

use thiserror::Error;

use crate::action::Action;
use crate::geometry::Square;
use crate::piece::KindId;
use crate::variant::Variant;

/// An action as written, before it is matched against the legal actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub from: Square,
    pub to: Square,
    pub promotion: Option<KindId>,
    /// `+X`: the kind the opponent's frozen piece returns as after this capture.
    pub returned: Option<KindId>,
    /// `@square`: where the attacker lands when its attack kills on several squares.
    pub landing: Option<Square>,
    /// `X@square`: a piece of kind `promotion` dropped from the hand on `to` (= `from`).
    pub drop: bool,
}

impl Written {
    /// Whether `a` is the action this text names (a promotion left out matches any).
    pub fn names(&self, a: &Action) -> bool {
        a.from == self.from
            && a.to == self.to
            && a.is_drop() == self.drop
            && (self.promotion.is_none() || a.promotion == self.promotion)
    }
}

/// Among the actions a text names (one piece's move to one square), the one that stays
/// unpromoted when the text names no promotion and the others all promote (an optional
/// promotion: `e8-e9` stays a pawn, `e8-e9=Q` promotes).
pub(crate) fn unpromoted_choice(found: &[Action], written: Option<KindId>) -> Option<Action> {
    if written.is_some() || found.len() < 2 || found.iter().any(|a| a.landing.is_some()) {
        return None;
    }
    let mut stay = found.iter().filter(|a| a.promotion.is_none());
    let one = *stay.next()?;
    let same = found.iter().all(|a| (a.from, a.to, a.is_drop()) == (one.from, one.to, one.is_drop()));
    (stay.next().is_none() && same).then_some(one)
}

/// `X@square` (any case, the letter of a kind): a drop, or None if `text` is not one.
pub(crate) fn parse_drop(v: &Variant, text: &str) -> Option<Result<Written, NotationError>> {
    // Without hands the text is read as before, and SAN says it is a drop of no variant's.
    v.hand()?;
    let (letter, square) = text.split_once('@')?;
    let mut cs = letter.chars();
    let c = cs.next().filter(|c| c.is_ascii_alphabetic() && cs.next().is_none())?;
    let err = |why: String| NotationError { text: text.to_string(), why };
    Some((|| {
        let kind = v.kind_by_letter(c).ok_or_else(|| err(format!("`{c}` is not a piece letter of {}", v.name)))?;
        let to = v.geometry.parse(square).map_err(|e| err(format!("after `@`: {e} (a drop is written like P@e4)")))?;
        Ok(Written { from: to, to, promotion: Some(kind), returned: None, landing: None, drop: true })
    })())
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`{text}` is not a move: {why}")]
pub struct NotationError {
    pub text: String,
    pub why: String,
}

/// Writes an action.
pub fn format(v: &Variant, a: &Action) -> String {
    if a.is_drop() {
        return drop_text(v, a);
    }
    let mut s = format!("{}-{}", v.square_name(a.from), v.square_name(a.to));
    if let Some(p) = a.promotion {
        s.push('=');
        // An action built by hand may name a kind the variant lacks: written, not trusted.
        s.push(v.kinds.get(p.index()).map_or('?', |k| k.letter));
    }
    if let Some(l) = a.landing {
        s.push('@');
        s.push_str(&v.square_name(l));
    }
    s
}

/// `P@e4`: the dropped kind's (white) letter, `@`, the square.
pub(crate) fn drop_text(v: &Variant, a: &Action) -> String {
    let letter = a.promotion.and_then(|p| v.kinds.get(p.index())).map_or('?', |k| k.letter);
    format!("{letter}@{}", v.square_name(a.to))
}

/// Reads an action's text (it is not yet checked against the position).
pub fn parse(v: &Variant, text: &str) -> Result<Written, NotationError> {
    let err = |why: String| NotationError { text: text.to_string(), why };
    let t = text.trim().trim_end_matches(['#', '+']);
    if let Some(d) = parse_drop(v, t) {
        return d;
    }
    let letter = |c: char| v.kind_by_letter(c).filter(|_| c.is_ascii_alphabetic());
    let (t, returned) = match t.rsplit_once('+') {
        Some((body, x)) => {
            let mut cs = x.chars();
            match (cs.next().and_then(letter), cs.next()) {
                (Some(k), None) => (body, Some(k)),
                _ => {
                    return Err(err(format!(
                        "`+{x}` should be `+` and one piece letter (the kind a frozen piece returns as)"
                    )));
                }
            }
        }
        None => (t, None),
    };
    let (t, landing) = match t.split_once('@') {
        Some((body, sq)) => (body, Some(v.geometry.parse(sq).map_err(|e| err(format!("after `@`: {e}")))?)),
        None => (t, None),
    };
    let (body, promo) = match t.split_once('=') {
        Some((b, p)) => (b, Some(p)),
        None => (t, None),
    };
    let g = v.geometry;
    let (from, rest) = g.parse_prefix(body).map_err(|e| err(format!("{e} (expected from-to, like e2-e4)")))?;
    let rest = rest.strip_prefix(['-', 'x', 'X']).unwrap_or(rest);
    let to = g.parse(rest).map_err(|e| err(format!("{e} (expected from-to, like e2-e4)")))?;
    let promotion = match promo {
        None => None,
        Some(p) => {
            let mut cs = p.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => {
                    Some(v.kind_by_letter(c).ok_or_else(|| err(format!("`{c}` is not a piece letter of {}", v.name)))?)
                }
                _ => return Err(err(format!("`={p}` should be `=` and one piece letter"))),
            }
        }
    };
    Ok(Written { from, to, promotion, returned, landing, drop: false })
}
