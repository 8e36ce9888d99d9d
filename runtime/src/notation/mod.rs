//! Text forms: actions (`e2-e4`, `e7-e8=Q`) and positions (FEN).
//!
//! An action is written `from-to`, case-insensitively; the dash may be left out
//! (`e2e4`) or written `x` for a capture. A promotion adds `=X` with the new kind's
//! letter. Castling is written as the king's move (`e1-g1`), a ranged shot as
//! shooter-target (`b1-b3`). A capture after which the loser's frozen piece returns adds
//! `+X` (the kind it returns as; informative, since it is forced). A trailing `+` or `#`
//! (check, mate) is accepted and ignored. A drop from the hand is the kind's letter, `@`
//! and the square (`P@e4`), in every notation. A gating adds `/X`, the held kind that
//! enters the square the move leaves (`b1-c3/H`); a castling that gates on its rook's
//! square names it (`e1-g1/Hh1`; `e1-g1/H` gates on the king's).

pub(crate) mod consistency;
pub mod fen;
pub mod lan;
pub mod names;
pub mod pgn;
pub mod san;

use thiserror::Error;

use crate::action::{Action, ActionKind, Gate};
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
    /// `/X`: the held piece that enters by gating (none: the action gates nothing).
    pub gate: Option<Gate>,
    /// Long algebraic with gating: the letter read as `promotion` may name the kind that
    /// enters by gating instead (`b1c3h`), and `rook_gate` is the castling (its king's
    /// from and to squares) that `from`-`to` names when written from the rook's square to
    /// the king's, gating on the rook's (`h1e1h`), as Fairy-Stockfish writes them.
    pub either: bool,
    pub rook_gate: Option<(Square, Square)>,
    /// Long algebraic `a4a5+`: a promotion to a kind FEN writes `+X` (shogi's promoted
    /// pieces), whichever it is (a piece has at most one such kind to promote to).
    pub plus: bool,
}

impl Written {
    /// A plain move's text: from, to, and nothing else.
    pub fn new(from: Square, to: Square) -> Written {
        Written {
            from,
            to,
            promotion: None,
            returned: None,
            landing: None,
            drop: false,
            gate: None,
            either: false,
            rook_gate: None,
            plus: false,
        }
    }

    /// Whether `a` is the action this text names (a promotion left out matches any; `+`
    /// matches a promotion).
    pub fn names(&self, a: &Action) -> bool {
        if let (Some((kf, kt)), Some(g), Some(k)) = (self.rook_gate, a.gate, self.promotion)
            && a.from == kf
            && a.to == kt
            && matches!(a.kind, ActionKind::Castle(_))
            && g.rook()
            && g.kind() == k
        {
            return true;
        }
        if a.from != self.from || a.to != self.to || a.is_drop() != self.drop {
            return false;
        }
        if self.either
            && let Some(k) = self.promotion
        {
            return (a.gate.is_none() && a.promotion == Some(k))
                || (a.promotion.is_none() && a.gate.is_some_and(|g| !g.rook() && g.kind() == k));
        }
        if self.plus {
            return a.gate == self.gate && a.promotion.is_some();
        }
        a.gate == self.gate && (self.promotion.is_none() || a.promotion == self.promotion)
    }
}

/// `/X` or `/Xsquare` after a move from `from` to `to`: the gating it names. The square
/// is the king's (`from`) or, for a castling, its rook's.
pub(crate) fn parse_gate(v: &Variant, from: Square, to: Square, text: &str) -> Result<Gate, String> {
    let Some(g) = v.gating() else {
        return Err(format!("`/{text}` is a gating: {} has no gating", v.name));
    };
    let mut cs = text.chars();
    let c = cs
        .next()
        .filter(|c| c.is_ascii_alphabetic())
        .ok_or_else(|| format!("`/{text}` should be `/` and a piece letter"))?;
    let kind = v.kind_by_letter(c).ok_or_else(|| format!("`{c}` is not a piece letter of {}", v.name))?;
    if g.kinds & (1 << kind.0) == 0 {
        return Err(format!("a {} does not enter by gating", v.kind(kind).name));
    }
    let rest = cs.as_str();
    if rest.is_empty() {
        return Ok(Gate::new(kind, false));
    }
    let sq = v.geometry.parse(rest).map_err(|e| format!("after `/{c}`: {e}"))?;
    if sq == from {
        return Ok(Gate::new(kind, false));
    }
    match v.castling.iter().find(|e| e.free.is_none() && e.king == from && e.king_to == to) {
        Some(e) if e.rook == sq => Ok(Gate::new(kind, true)),
        Some(e) => Err(format!(
            "a castling gates on its king's square ({}) or its rook's ({}), not {rest}",
            v.square_name(from),
            v.square_name(e.rook)
        )),
        None => Err(format!("a gating enters the square the move leaves ({}), not {rest}", v.square_name(from))),
    }
}

/// `/X` (`/Xh1` on a castling rook's square): the gating of `a`, written after the move.
pub(crate) fn gate_text(v: &Variant, a: &Action) -> String {
    let Some(g) = a.gate else { return String::new() };
    let letter = v.kinds.get(g.kind().index()).map_or('?', |k| k.letter);
    match (g.rook(), a.kind) {
        (true, ActionKind::Castle(i)) => match v.castling.get(i as usize) {
            Some(c) => format!("/{letter}{}", v.square_name(c.rook)),
            None => format!("/{letter}"),
        },
        _ => format!("/{letter}"),
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
        Ok(Written { promotion: Some(kind), drop: true, ..Written::new(to, to) })
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
    if a.gate.is_some() {
        s.push_str(&gate_text(v, a));
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
    let (t, gate) = match t.split_once('/') {
        Some((body, g)) => (body, Some(g)),
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
    let gate = match gate {
        Some(g) => Some(parse_gate(v, from, to, g).map_err(err)?),
        None => None,
    };
    Ok(Written { promotion, returned, landing, gate, ..Written::new(from, to) })
}
