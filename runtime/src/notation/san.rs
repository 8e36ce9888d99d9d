//! SAN, standard algebraic notation, for any variant: written and read against the
//! position it is played in (a [`SanBoard`]: the game implements it).
//!
//! - A piece's move is its letter (from `pieces.<kind>.letter`) and the destination:
//!   `Nf3`. The pawn of SAN (the variant's one `progress` kind that is not royal) has
//!   no letter: `e4`, and a capture names its file: `exd5`. With no such kind, or several,
//!   every kind is written with its letter.
//! - Disambiguation as in chess: the origin's file, else its rank, else both (`Nbd2`,
//!   `R1a3`, `Qh4e1`), only when another piece of the same kind can go to the same square.
//! - `x` marks a capture (an attack on an enemy, en passant, a ranged shot: `Axe6` for an
//!   archer that shoots and stays). `=Q` a promotion. `O-O` castling towards the higher
//!   files, `O-O-O` towards the lower ones (a variant with two castlings on one side
//!   writes them as the king's move, `Kh1`).
//! - `+` after a move that gives check, `#` after checkmate: only where the variant has
//!   the check rule.
//! - Extensions: `@square` after a landing choice (`Qxe6@d7`), and `+X` after a capture
//!   after which a frozen piece returns as X (`Rxb8+N`, then `+`/`#` if it checks).
//! - A gating adds `/X`, the held kind entering the square the move leaves (`Nc3/H`,
//!   `O-O/E`), with the rook's square when a castling gates there (`O-O/Eh1`).
//!
//! Reading accepts the same, with annotations (`!`, `?`) and check marks ignored, `0-0`
//! for `O-O`, `:` for `x`, the long form (`Ng1-f3`, `Ng1f3`) and `e8Q` for `e8=Q`.
//! The pawn's letter may be written too (`Pe4`).
//! - A drop from the hand is the kind's letter, `@` and the square, pawns included
//!   (`P@e4`, `N@f7+`), as SAN writes drops.

use crate::action::{Action, ActionKind};
use crate::geometry::Square;
use crate::piece::{KindId, Piece, Side};
use crate::variant::Variant;

use super::NotationError;

/// What SAN needs to know about the position a move is played in.
pub trait SanBoard {
    fn variant(&self) -> &Variant;
    fn piece_at(&self, sq: Square) -> Option<Piece>;
    fn side_to_move(&self) -> Side;
    /// Every legal action.
    fn legal(&self) -> Vec<Action>;
    /// Whether `a` (one of the legal actions) gives check or mates; asked only where
    /// the variant has the check rule.
    fn mark_after(&self, a: &Action) -> Mark;
}

/// What a move does to the opponent's royal pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    None,
    Check,
    Mate,
}

/// The kind written without a letter: the variant's one `progress` kind that is not
/// royal, if there is exactly one.
pub fn pawn_kind(v: &Variant) -> Option<KindId> {
    let mut found = v.kinds.iter().enumerate().filter(|(_, k)| k.progress && !k.royal);
    match (found.next(), found.next()) {
        (Some((i, _)), None) => Some(KindId(i as u8)),
        _ => None,
    }
}

fn is_capture(b: &dyn SanBoard, a: &Action) -> bool {
    match a.kind {
        ActionKind::EnPassant | ActionKind::Shot => true,
        ActionKind::Castle(_) => false,
        _ => b.piece_at(a.to).is_some_and(|p| p.side != b.side_to_move()),
    }
}

/// The castling's SAN (`O-O` or `O-O-O`), unless another legal castling goes the same
/// way or the king moves along its file.
fn castle_text(b: &dyn SanBoard, i: u8, legal: &[Action]) -> Option<&'static str> {
    let v = b.variant();
    let g = v.geometry;
    let dir = |i: u8| v.castling[i as usize].direction(g);
    let d = dir(i);
    let twin = legal.iter().any(|a| matches!(a.kind, ActionKind::Castle(j) if j != i && dir(j) == d));
    match d {
        0 => None,
        _ if twin => None,
        1 => Some("O-O"),
        _ => Some("O-O-O"),
    }
}

/// Writes `a`, one of the legal actions of `b`, in SAN. `returned` is the kind a frozen
/// piece returned as after it (from the action's events), if one did.
pub fn write(b: &dyn SanBoard, a: &Action, returned: Option<KindId>) -> String {
    let v = b.variant();
    let legal = b.legal();
    let mut s = String::new();
    let castle = match a.kind {
        ActionKind::Castle(i) => castle_text(b, i, &legal),
        _ => None,
    };
    if a.is_drop() {
        s.push_str(&super::drop_text(v, a));
    } else if let Some(c) = castle {
        s.push_str(c);
    } else {
        let mover = b.piece_at(a.from).map(|p| p.kind);
        let pawn = mover.is_some() && mover == pawn_kind(v);
        if let (Some(k), false) = (mover, pawn) {
            s.push(v.kind(k).letter);
        }
        let capture = is_capture(b, a);
        let g = v.geometry;
        // Other pieces of the same kind that can go to the same square.
        let others: Vec<Square> = legal
            .iter()
            .filter(|o| o.from != a.from && o.to == a.to && !matches!(o.kind, ActionKind::Castle(_)))
            .filter(|o| b.piece_at(o.from).map(|p| p.kind) == mover)
            .map(|o| o.from)
            .collect();
        let file = (b'a' + g.file(a.from)) as char;
        let rank = (g.rank(a.from) + 1).to_string();
        let same_file = others.iter().any(|&o| g.file(o) == g.file(a.from));
        let same_rank = others.iter().any(|&o| g.rank(o) == g.rank(a.from));
        if pawn && capture {
            s.push(file);
            if same_file {
                s.push_str(&rank);
            }
        } else if !others.is_empty() {
            if !same_file {
                s.push(file);
            } else if !same_rank {
                s.push_str(&rank);
            } else {
                s.push(file);
                s.push_str(&rank);
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&v.square_name(a.to));
        if let Some(p) = a.promotion {
            s.push('=');
            s.push(v.kind(p).letter);
        }
        if let Some(l) = a.landing {
            s.push('@');
            s.push_str(&v.square_name(l));
        }
    }
    if a.gate.is_some() {
        s.push_str(&super::gate_text(v, a));
    }
    if let Some(k) = returned {
        s.push('+');
        s.push(v.kind(k).letter);
    }
    if v.rules.check {
        match b.mark_after(a) {
            Mark::None => {}
            Mark::Check => s.push('+'),
            Mark::Mate => s.push('#'),
        }
    }
    s
}

/// A SAN move as written, before it is matched to a legal action.
#[derive(Debug, PartialEq, Eq)]
enum Shape {
    /// `O-O` (towards higher files: +1) or `O-O-O` (-1).
    Castle(i32),
    Move {
        kind: Option<KindId>,
        file: Option<u8>,
        rank: Option<u8>,
        to: Square,
        promotion: Option<KindId>,
        landing: Option<Square>,
    },
}

/// Reads a SAN move of the side to move in `b`: the legal action it names, and the
/// `+X` it claims (the caller checks that a frozen piece does return as X).
pub fn read(b: &dyn SanBoard, text: &str) -> Result<(Action, Option<KindId>), NotationError> {
    let v = b.variant();
    let err = |why: String| NotationError { text: text.trim().to_string(), why };
    let mut legal = b.legal();
    let side = b.side_to_move();
    // A gating (`/X`, `/Xh1`): only the actions that gate so (none: those that gate nothing).
    let (plain, gate) = split_gate(v, text).map_err(err)?;
    let text = plain.as_str();
    legal.retain(|a| gate_matches(v, a, gate));
    if let Some(d) = super::parse_drop(v, text.trim().trim_end_matches(['!', '?', '+', '#'])) {
        let w = d?;
        if v.hand().is_none() {
            return Err(err(format!("`{}` is a drop: {} has no drops", text.trim(), v.name)));
        }
        let kind = w.promotion.map_or(String::new(), |k| v.kind(k).name.clone());
        return match legal.iter().find(|a| w.names(a)) {
            Some(a) => Ok((*a, None)),
            None => Err(err(format!("{side} cannot drop a {kind} on {} here", v.square_name(w.to)))),
        };
    }
    let (shape, returned) = shape(v, text).map_err(err)?;
    match shape {
        Shape::Castle(dir) => {
            let g = v.geometry;
            let found: Vec<&Action> = legal
                .iter()
                .filter(|a| match a.kind {
                    ActionKind::Castle(i) => v.castling[i as usize].direction(g) == dir,
                    _ => false,
                })
                .collect();
            let name = if dir > 0 { "O-O" } else { "O-O-O" };
            match found.as_slice() {
                [a] => Ok((**a, returned)),
                [] => Err(err(format!("{side} cannot castle {name} here"))),
                _ => Err(err(format!("{name} could be several castlings here: write it as the king's move"))),
            }
        }
        Shape::Move { kind, file, rank, to, promotion, landing } => {
            let pawn = pawn_kind(v);
            let Some(kind) = kind.or(pawn) else {
                return Err(err(format!(
                    "every piece of {} has a letter: write it first (like N{})",
                    v.name,
                    v.square_name(to)
                )));
            };
            let g = v.geometry;
            let kname = &v.kind(kind).name;
            let mut found: Vec<Action> = legal
                .iter()
                .copied()
                .filter(|a| a.to == to && b.piece_at(a.from).map(|p| p.kind) == Some(kind))
                .filter(|a| file.is_none_or(|f| g.file(a.from) == f) && rank.is_none_or(|r| g.rank(a.from) == r))
                .filter(|a| promotion.is_none_or(|p| a.promotion == Some(p)))
                .filter(|a| landing.is_none_or(|l| a.landing == Some(l)))
                .collect();
            // (A castling named by the king's move, `Kg1`, is found here too.)
            found.sort();
            let from: Vec<Square> = {
                let mut f: Vec<Square> = found.iter().map(|a| a.from).collect();
                f.dedup();
                f
            };
            let origin = match (file, rank) {
                (Some(f), Some(r)) => format!(" from {}{}", (b'a' + f) as char, r + 1),
                (Some(f), None) => format!(" on the {}-file", (b'a' + f) as char),
                (None, Some(r)) => format!(" on rank {}", r + 1),
                (None, None) => String::new(),
            };
            if let Some(stay) = super::unpromoted_choice(&found, promotion) {
                return Ok((stay, returned));
            }
            match (from.len(), found.len()) {
                (0, _) => Err(err(format!("no {side} {kname}{origin} can go to {}", v.square_name(to)))),
                (1, 1) => Ok((found[0], returned)),
                (1, _) if found.iter().any(|a| a.landing.is_some()) && landing.is_none() => {
                    let mut l: Vec<String> =
                        found.iter().filter_map(|a| a.landing).map(|s| format!("@{}", v.square_name(s))).collect();
                    l.dedup();
                    Err(err(format!("it kills on several squares: choose where to land with {}", l.join(" or "))))
                }
                (1, _) if found.iter().all(|a| a.promotion.is_some()) => {
                    let l: Vec<String> =
                        found.iter().map(|a| format!("={}", v.kind(a.promotion.unwrap()).letter)).collect();
                    Err(err(format!("it promotes: add one of {}", l.join(", "))))
                }
                (1, _) => Err(err("it is ambiguous".into())),
                _ => {
                    let names: Vec<String> = from.iter().map(|&s| v.square_name(s)).collect();
                    Err(err(format!(
                        "ambiguous: a {kname} on {} can go to {}; name the one you mean (like {}{}{})",
                        names.join(" and on "),
                        v.square_name(to),
                        if Some(kind) == pawn { String::new() } else { v.kind(kind).letter.to_string() },
                        v.square_name(from[0]),
                        v.square_name(to)
                    )))
                }
            }
        }
    }
}

/// A gating kind and the square it names (if any).
type GateSpec = Option<(KindId, Option<Square>)>;

/// The text without its `/X` or `/Xsquare`, and the gating that names.
fn split_gate(v: &Variant, text: &str) -> Result<(String, GateSpec), String> {
    let Some((body, rest)) = text.split_once('/') else { return Ok((text.to_string(), None)) };
    let end = rest.find(['+', '#', '!', '?']).unwrap_or(rest.len());
    let (g, tail) = rest.split_at(end);
    let mut cs = g.chars();
    let c = cs
        .next()
        .filter(|c| c.is_ascii_alphabetic())
        .ok_or_else(|| format!("`/{g}` should be `/` and a piece letter"))?;
    let kind = v.kind_by_letter(c).ok_or_else(|| format!("`{c}` is not a piece letter of {}", v.name))?;
    let sq = match cs.as_str() {
        "" => None,
        sq => Some(v.geometry.parse(sq).map_err(|e| format!("after `/{c}`: {e}"))?),
    };
    Ok((format!("{body}{tail}"), Some((kind, sq))))
}

/// Whether `a` gates as `spec` says (no spec: `a` gates nothing). A square names the
/// king's square (the mover's `from`) or a castling rook's.
fn gate_matches(v: &Variant, a: &Action, spec: GateSpec) -> bool {
    match (a.gate, spec) {
        (None, None) => true,
        (Some(g), Some((k, sq))) => {
            let at = match (g.rook(), a.kind) {
                (true, ActionKind::Castle(i)) => v.castling.get(i as usize).map_or(a.from, |c| c.rook),
                _ => a.from,
            };
            g.kind() == k && sq.map_or(!g.rook(), |s| s == at)
        }
        _ => false,
    }
}

/// The written shape of a SAN move and its `+X`, or why it is not SAN.
fn shape(v: &Variant, text: &str) -> Result<(Shape, Option<KindId>), String> {
    let mut t = text.trim();
    while let Some(rest) = t.strip_suffix(['!', '?', '+', '#']) {
        t = rest;
    }
    // SAN is written in ASCII (piece letters are upper-case ASCII); byte offsets below
    // rely on it.
    if let Some(c) = t.chars().find(|c| !c.is_ascii()) {
        return Err(format!("`{c}` cannot be part of a move"));
    }
    let letter = |c: char| v.kind_by_letter(c).filter(|_| c.is_ascii_uppercase());
    let mut returned = None;
    if let Some((body, x)) = t.rsplit_once('+') {
        let mut cs = x.chars();
        match (cs.next().and_then(|c| v.kind_by_letter(c).filter(|_| c.is_ascii_alphabetic())), cs.next()) {
            (Some(k), None) => {
                returned = Some(k);
                t = body;
            }
            _ => return Err(format!("`+{x}` should be `+` and one piece letter (the kind a frozen piece returns as)")),
        }
    }
    match t {
        "O-O" | "0-0" | "o-o" => return Ok((Shape::Castle(1), returned)),
        "O-O-O" | "0-0-0" | "o-o-o" => return Ok((Shape::Castle(-1), returned)),
        _ => {}
    }
    let g = v.geometry;
    let (t, landing) = match t.rsplit_once('@') {
        Some((body, _)) if body.chars().count() == 1 && body.chars().all(|c| c.is_ascii_uppercase()) => {
            return Err(format!("`{t}` is a drop: {} has no drops", v.name));
        }
        Some((body, sq)) => (body, Some(g.parse(sq).map_err(|e| format!("after `@`: {e}"))?)),
        None => (t, None),
    };
    // The promotion: `=Q`, `(Q)` or a letter right after the destination (`e8Q`).
    let (t, promotion) = if let Some((body, p)) = t.split_once('=') {
        (body, Some(p))
    } else if let Some(body) = t.strip_suffix(')').and_then(|b| b.rsplit_once('(')) {
        (body.0, Some(body.1))
    } else {
        match t.chars().last() {
            Some(c) if c.is_ascii_uppercase() && t.len() > 1 => (&t[..t.len() - 1], Some(&t[t.len() - 1..])),
            _ => (t, None),
        }
    };
    let promotion = match promotion {
        None => None,
        Some(p) => {
            let mut cs = p.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) => {
                    Some(v.kind_by_letter(c).ok_or_else(|| format!("`{c}` is not a piece letter of {}", v.name))?)
                }
                _ => return Err(format!("`={p}` should be `=` and one piece letter")),
            }
        }
    };
    let expected = "(expected SAN like e4, Nf3, exd5, O-O, e8=Q, or from-to like e2-e4)";
    let mut cs = t.chars();
    let kind = match cs.next() {
        Some(c) if c.is_ascii_uppercase() => {
            Some(letter(c).ok_or_else(|| format!("`{c}` is not a piece letter of {} {expected}", v.name))?)
        }
        Some(_) => None,
        None => return Err(format!("nothing to read {expected}")),
    };
    let body = if kind.is_some() { cs.as_str() } else { t };
    // The destination: the last file letter and the digits after it.
    let digits = body.bytes().rev().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits + 1 > body.len() {
        return Err(format!("`{t}` does not end with a square {expected}"));
    }
    let split = body.len() - digits - 1;
    let to = g.parse(&body[split..]).map_err(|e| format!("{e} {expected}"))?;
    let mut head = &body[..split];
    head = head.strip_suffix(['x', ':', '-']).unwrap_or(head);
    let hb = head.as_bytes();
    let (mut file, mut rank) = (None, None);
    let mut i = 0;
    if i < hb.len() && hb[i].is_ascii_lowercase() {
        let f = hb[i] - b'a';
        if f >= g.files {
            return Err(format!("`{}` is not a file of {} {expected}", hb[i] as char, v.name));
        }
        file = Some(f);
        i += 1;
    }
    if i < hb.len() {
        let r: u32 = head[i..].parse().map_err(|_| format!("`{head}` is not a file, a rank or a square {expected}"))?;
        if r == 0 || r > g.ranks as u32 {
            return Err(format!("rank {r} is not on the board {expected}"));
        }
        rank = Some((r - 1) as u8);
    }
    Ok((Shape::Move { kind, file, rank, to, promotion, landing }, returned))
}
