//! Long algebraic notation as engine protocols write it (UCI, XBoard): `e2e4`, a
//! promotion with the new kind's letter in lower case (`e7e8q`), castling as the king's
//! move (`e1g1`), a ranged shot as shooter and target (`b3b5`). Boards of ten ranks and
//! more write their ranks in full (`a10a9`).
//!
//! A drop is written as UCI writes drops: `P@e4` (the upper-case letter).
//!
//! A promotion to a kind that FEN writes `+X` (shogi's promoted pieces, `fen_plus`) is
//! written `+` after the move, as Fairy-Stockfish writes it (`a4a5+`); the move without
//! it stays unpromoted where promotion is optional (`a4a5`).
//!
//! A gating is written as Fairy-Stockfish writes it: the entering kind's letter in lower
//! case after the move (`b1c3h`, `e1g1h` on the king's square), and a castling that
//! gates on its rook's square from the rook's square to the king's (`h1e1h`).
//!
//! Extensions for what chess does not have, written after the move: a landing choice
//! `@square` (`c4e6@d7`), and `+x` for the kind a frozen piece returns as after the
//! capture (read and checked, never required, since it is forced).

use crate::action::Action;
use crate::variant::Variant;

use super::{NotationError, Written};

/// Writes an action for an engine protocol.
pub fn format(v: &Variant, a: &Action) -> String {
    if a.is_drop() {
        return super::drop_text(v, a);
    }
    if let Some(g) = a.gate {
        let letter = v.kind(g.kind()).letter.to_ascii_lowercase();
        if let (true, crate::action::ActionKind::Castle(i)) = (g.rook(), a.kind) {
            return format!("{}{}{letter}", v.square_name(v.castling[i as usize].rook), v.square_name(a.from));
        }
        return format!("{}{}{letter}", v.square_name(a.from), v.square_name(a.to));
    }
    let mut s = format!("{}{}", v.square_name(a.from), v.square_name(a.to));
    if let Some(p) = a.promotion {
        let k = v.kind(p);
        s.push(if k.fen_plus.is_some() { '+' } else { k.letter.to_ascii_lowercase() });
    }
    if let Some(l) = a.landing {
        s.push('@');
        s.push_str(&v.square_name(l));
    }
    s
}

/// Reads a move as engine protocols write it (not yet checked against the position).
pub fn parse(v: &Variant, text: &str) -> Result<Written, NotationError> {
    let err = |why: String| NotationError { text: text.to_string(), why };
    let g = v.geometry;
    let t = text.trim();
    if let Some(d) = super::parse_drop(v, t) {
        return d;
    }
    // `a4a5+`: a promotion to the kind FEN writes `+X`.
    let (t, plus) = match t.strip_suffix('+') {
        Some(body) => (body, true),
        None => (t, false),
    };
    let (t, returned) = match t.rsplit_once('+') {
        Some((body, x)) => {
            let mut cs = x.chars();
            match (cs.next().and_then(|c| v.kind_by_letter(c).filter(|_| c.is_ascii_alphabetic())), cs.next()) {
                (Some(k), None) => (body, Some(k)),
                _ => return Err(err(format!("`+{x}` should be `+` and one piece letter"))),
            }
        }
        None => (t, None),
    };
    let (t, landing) = match t.split_once('@') {
        Some((body, sq)) => (body, Some(g.parse(sq).map_err(|e| err(format!("after `@`: {e}")))?)),
        None => (t, None),
    };
    let expected = "(expected a move like e2e4 or e7e8q)";
    let (from, rest) = g.parse_prefix(t).map_err(|e| err(format!("{e} {expected}")))?;
    if rest.is_empty() {
        return Err(err(format!("a move needs two squares {expected}")));
    }
    let (to, rest) = g.parse_prefix(rest).map_err(|e| err(format!("{e} {expected}")))?;
    let mut cs = rest.chars();
    let promotion = match (cs.next(), cs.next()) {
        (None, _) => None,
        (Some(c), None) if c.is_ascii_alphabetic() => {
            Some(v.kind_by_letter(c).ok_or_else(|| err(format!("`{c}` is not a piece letter of {}", v.name)))?)
        }
        _ => return Err(err(format!("`{rest}` after the squares should be one piece letter {expected}"))),
    };
    // With gating, the letter may name the kind that enters instead, and a castling that
    // gates on its rook's square is written from there to the king's square.
    let gating = v.gating().is_some();
    let rook_gate = if gating {
        v.castling.iter().find(|e| e.free.is_none() && e.rook == from && e.king == to).map(|e| (e.king, e.king_to))
    } else {
        None
    };
    if plus && !v.kinds.iter().any(|k| k.fen_plus.is_some()) {
        return Err(err(format!("`+` is a promotion to a piece FEN writes `+X`, and {} has none", v.name)));
    }
    if plus && promotion.is_some() {
        return Err(err(format!("`{rest}+` names a promotion twice: write `+` or one piece letter {expected}")));
    }
    Ok(Written { promotion, returned, landing, either: gating, rook_gate, plus, ..Written::new(from, to) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::action::ActionKind;

    #[test]
    fn moves_round_trip() {
        let std = Variant::load("standard").unwrap();
        let sq = |v: &Variant, s: &str| v.geometry.parse(s).unwrap();
        let q = std.kind_by_letter('Q').unwrap();
        let a = Action::new(sq(&std, "e7"), sq(&std, "e8"), ActionKind::Normal).promoting(q);
        assert_eq!(format(&std, &a), "e7e8q");
        let w = parse(&std, "e7e8q").unwrap();
        assert_eq!((w.from, w.to, w.promotion, w.landing, w.returned), (a.from, a.to, Some(q), None, None));
        // Ten ranks (the two-digit rank read whole): tests/records.rs, on a shipped variant.
        let w = parse(&std, "c4e6@d7").unwrap();
        assert_eq!(w.landing, Some(sq(&std, "d7")));
    }

    #[test]
    fn plus_promotions_as_fairy_stockfish_writes_them() {
        let v = Variant::load("minishogi").unwrap();
        let sq = |s: &str| v.geometry.parse(s).unwrap();
        let t = v.kinds.iter().position(|k| k.letter == 'T').map(|i| crate::piece::KindId(i as u8)).unwrap();
        let a = Action::new(sq("a4"), sq("a5"), ActionKind::Normal).promoting(t);
        assert_eq!(format(&v, &a), "a4a5+");
        let w = parse(&v, "a4a5+").unwrap();
        assert!(w.plus && w.promotion.is_none() && w.names(&a));
        let stay = Action::new(sq("a4"), sq("a5"), ActionKind::Normal);
        assert_eq!(format(&v, &stay), "a4a5");
        assert!(!w.names(&stay));
        assert_eq!(
            parse(&v, "a4a5t+").unwrap_err().to_string(),
            "`a4a5t+` is not a move: `t+` names a promotion twice: write `+` or one piece letter (expected a move like e2e4 or e7e8q)"
        );
    }

    #[test]
    fn bad_moves_say_why() {
        let std = Variant::load("standard").unwrap();
        let why = |t: &str| parse(&std, t).unwrap_err().to_string();
        assert_eq!(why("e2"), "`e2` is not a move: a move needs two squares (expected a move like e2e4 or e7e8q)");
        assert_eq!(why("e7e8z"), "`e7e8z` is not a move: `z` is not a piece letter of standard");
        assert_eq!(
            why("e7e8qq"),
            "`e7e8qq` is not a move: `qq` after the squares should be one piece letter (expected a move like e2e4 or e7e8q)"
        );
        assert_eq!(
            why("e2e4+"),
            "`e2e4+` is not a move: `+` is a promotion to a piece FEN writes `+X`, and standard has none"
        );
        assert!(why("e2e9").starts_with("`e2e9` is not a move: "), "{}", why("e2e9"));
        assert!(why("").starts_with("`` is not a move: "));
    }
}
