//! FEN for rectangular boards of any size.
//!
//! Six fields as in chess: board, side to move, castling, en passant, halfmove clock,
//! fullmove number. Extensions for larger boards and variants:
//! - empty-square counts may have several digits (`10` on a 10-wide board);
//! - the castling field uses each castling entry's letter (white upper case);
//! - the en-passant field may list several squares, comma-separated (`e3,e4` after a
//!   three-square pawn step).
//!
//! - with hands (a two-sided `[reserve]`), the pieces in hand follow the board in
//!   brackets, as Fairy-Stockfish writes them (`…/RNBQKBNR[Qp]`; `[]` when both are
//!   empty, which may also be left out), and a piece that arrived by promotion is marked
//!   `~` (`Q~`): captured, it goes to the hand as the kind it promoted from.
//!
//! Trailing fields may be left out: they default to `w - - 0 1`. A variant without
//! castling, gating and en passant also reads Fairy-Stockfish's four fields, `board side
//! halfmove fullmove` (`…[-] w 0 1`). After the six fields,
//! optional `name=value` fields carry state chess does not have:
//! - `graveyard=QNp`: captured pieces by letter (white upper case, black lower case);
//! - `frozen=a10,c1`: frozen pieces, oldest first;
//! - `waiting=d1`: returned pieces that cannot act until their owner's turn ends;
//! - `hp=e4:1,d5:3`: hit points of pieces not at full health;
//! - `spent=e4:d3`: the stack of the aura source on d3 is spent on the piece on e4;
//! - `guard=c3:1`: the piece on c3 still holds the divide aura out of range, 1 ply out.
//!
//! Each field is given once and must agree with the board and the rules (an en-passant
//! square the last move skipped, frozen pieces in their zone…: `consistency.rs`); the
//! board is read by characters, its counts bounded before they can overflow.

use thiserror::Error;

use crate::geometry::Square;
use crate::piece::{Piece, Side};
use crate::variant::Variant;

/// A position in width-independent form: what FEN and JSON snapshots describe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub pieces: Vec<(Square, Piece)>,
    pub to_move: Side,
    /// Bit i: castling entry i of the variant is available.
    pub castling: u32,
    pub en_passant: Vec<Square>,
    /// The piece that an en-passant capture removes.
    pub ep_victim: Option<Square>,
    pub halfmove: u32,
    pub fullmove: u32,
    /// Captured pieces per side (`[white, black]`) and kind.
    pub graveyard: [[u8; crate::piece::MAX_KINDS]; 2],
    /// Frozen pieces, oldest first.
    pub frozen: Vec<Square>,
    /// Pieces waiting for their owner's turn to end.
    pub waiting: Vec<Square>,
    /// Hit points of pieces not at full health (with `[combat]`).
    pub hp: Vec<(Square, u8)>,
    /// Multiply-aura stacks spent: (piece, source).
    pub spent: Vec<(Square, Square)>,
    /// Pieces holding the divide aura out of its range, with the plies they have spent out.
    pub guard: Vec<(Square, u8)>,
    /// Pieces in hand per side (`[white, black]`) and kind (with a two-sided `[reserve]`).
    pub hands: [[u8; crate::piece::MAX_KINDS]; 2],
    /// Pieces that arrived by promotion: captured, they go to the hand as the kind they
    /// promoted from (`Q~` in FEN).
    pub promoted: Vec<Square>,
    /// Checks given by each side (`[white, black]`), with an end rule that counts them;
    /// FEN writes the checks each still needs (`2+3`).
    pub checks: [u8; 2],
    /// Open gates (with gating): squares whose piece may still bring a held piece onto
    /// the square it leaves. FEN writes them after each side's castling letters as file
    /// letters (`KQABCDEFGHkqabcdefgh`), as Fairy-Stockfish does.
    pub gates: Vec<Square>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FenError {
    #[error(
        "a FEN has 6 fields (board, side, castling, en passant, halfmove, fullmove) and then only name=value fields (graveyard=, frozen=, waiting=); `{0}` is neither"
    )]
    Fields(String),
    #[error("{field} field: {why}")]
    Extra { field: String, why: String },
    #[error("the FEN is empty")]
    Empty,
    #[error("board field: {0}")]
    Board(String),
    #[error("hand (`[...]` after the board): {0}")]
    Hand(String),
    #[error("side-to-move field: `{0}` is not `w` or `b`")]
    Side(String),
    #[error("castling field: {0}")]
    Castling(String),
    #[error("en-passant field: {0}")]
    EnPassant(String),
    #[error("{field} field: `{value}` is not a whole number from 0 to 4294967295")]
    Counter { field: &'static str, value: String },
    #[error("position: {0}")]
    Position(String),
}

/// Reads a FEN for this variant.
pub fn parse(v: &Variant, text: &str) -> Result<Setup, FenError> {
    let all: Vec<&str> = text.split_whitespace().collect();
    if all.is_empty() {
        return Err(FenError::Empty);
    }
    let n = all.iter().position(|f| f.contains('=')).unwrap_or(all.len());
    let (fields, extras) = all.split_at(n);
    // With counted checks, the checks each side still needs come after en passant
    // (`3+3`), as Fairy-Stockfish writes them; they may be left out (none given yet).
    let mut fields = fields.to_vec();
    let mut checks = [0u8; 2];
    if let Some(count) = v.check_count()
        && fields.len() > 4
        && fields[4].contains('+')
    {
        let f = fields.remove(4);
        let bad = || FenError::Extra {
            field: "checks".into(),
            why: format!(
                "`{f}` should be the checks white and black still need, joined by `+` (0 to {count}, as `{count}+{count}`)"
            ),
        };
        let (w, b) = f.split_once('+').ok_or_else(bad)?;
        for (i, n) in [w, b].into_iter().enumerate() {
            let left: u8 =
                n.parse().ok().filter(|&x| x <= count && n.bytes().all(|c| c.is_ascii_digit())).ok_or_else(bad)?;
            checks[i] = count - left;
        }
    }
    // Fairy-Stockfish's four fields, `board side halfmove fullmove` (its shogi start
    // position is `…[-] w 0 1`): the castling and en-passant fields left out. Read so
    // only where the variant has neither (no castling, gating or en passant), where they
    // could only be `-`; elsewhere a number where castling belongs is refused.
    let number = |f: &str| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit());
    if fields.len() == 4 && number(fields[2]) && number(fields[3]) {
        let en_passant = v.kinds.iter().any(|k| k.atoms.iter().any(|a| a.creates_en_passant || a.captures_en_passant));
        if v.castling.is_empty() && v.gating().is_none() && !en_passant {
            fields.splice(2..2, ["-", "-"]);
        } else {
            let has = match (v.castling.is_empty() && v.gating().is_none(), en_passant) {
                (false, true) => "castling and en passant",
                (false, false) => "castling",
                _ => "en passant",
            };
            return Err(FenError::Castling(format!(
                "`{}` is not castling rights: a FEN of four fields (board, side, halfmove, fullmove, as \
                 Fairy-Stockfish writes shogi's) is read only for variants without castling and en passant, \
                 and {} has {has}; write the castling and en-passant fields (`- -` for none)",
                fields[2], v.name
            )));
        }
    }
    let fields = &fields[..];
    if fields.is_empty() {
        return Err(FenError::Board(format!(
            "a FEN starts with the board (ranks separated by `/`); `{}` is a name=value field, which comes after the six fields",
            all[0]
        )));
    }
    if fields.len() > 6 {
        return Err(FenError::Fields(fields[6].to_string()));
    }
    let g = v.geometry;
    let (board, hand) = match fields[0].split_once('[') {
        Some((b, h)) => match h.strip_suffix(']') {
            Some(h) if !h.contains(['[', ']']) => (b, Some(h)),
            _ => return Err(FenError::Hand(format!("`[{h}` should be the pieces in hand, closed by `]`"))),
        },
        None => (fields[0], None),
    };
    let (pieces, promoted) = parse_board(v, board)?;
    let hands = match hand {
        Some(h) => parse_hand(v, h)?,
        None => [[0; crate::piece::MAX_KINDS]; 2],
    };

    let to_move = match fields.get(1).copied().unwrap_or("w") {
        "w" | "W" => Side::White,
        "b" | "B" => Side::Black,
        other => return Err(FenError::Side(other.into())),
    };

    let mut castling = 0u32;
    let mut gates = Vec::new();
    let cf = fields.get(2).copied().unwrap_or("-");
    if cf != "-" {
        for c in cf.chars() {
            if v.gating().is_some() {
                castling |= gating_letter(v, &pieces, &hands, c, &mut gates).map_err(FenError::Castling)?;
                continue;
            }
            castling |= 1 << castling_entry(v, &pieces, c).map_err(FenError::Castling)?;
        }
        gates.sort();
        gates.dedup();
        if let Some(e) = free_twins(v, castling) {
            return Err(FenError::Castling(e));
        }
    }

    let mut en_passant = Vec::new();
    let mut ep_victim = None;
    let ef = fields.get(3).copied().unwrap_or("-");
    if ef != "-" {
        for name in ef.split(',') {
            let sq = g.parse(name).map_err(|e| FenError::EnPassant(e.to_string()))?;
            if pieces.iter().any(|&(s, _)| s == sq) {
                return Err(FenError::EnPassant(format!(
                    "{name} is occupied; an en-passant square is one a piece skipped"
                )));
            }
            if en_passant.contains(&sq) {
                return Err(FenError::EnPassant(format!("{name} is listed twice")));
            }
            en_passant.push(sq);
        }
        en_passant.sort();
        let mover = to_move.opponent();
        let victims = super::consistency::en_passant_victims(v, &pieces, mover, &en_passant);
        let Some(&victim) = victims.first() else {
            let names: Vec<String> = en_passant.iter().map(|&q| v.square_name(q)).collect();
            return Err(FenError::EnPassant(format!(
                "no {mover} piece could have skipped {} on its last move (a skipping move from an empty \
                 square of its start, over empty squares)",
                names.join(" and ")
            )));
        };
        ep_victim = Some(victim);
    }

    let counter = |i: usize, field: &'static str, default: u32| -> Result<u32, FenError> {
        match fields.get(i) {
            None => Ok(default),
            Some(t) => t
                .parse()
                .ok()
                .filter(|_| t.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| FenError::Counter { field, value: t.to_string() }),
        }
    };
    let halfmove = counter(4, "halfmove", 0)?;
    let fullmove = counter(5, "fullmove", 1)?.max(1);
    let mut setup = Setup {
        pieces,
        to_move,
        castling,
        en_passant,
        ep_victim,
        halfmove,
        fullmove,
        graveyard: [[0; crate::piece::MAX_KINDS]; 2],
        frozen: Vec::new(),
        waiting: Vec::new(),
        hp: Vec::new(),
        spent: Vec::new(),
        guard: Vec::new(),
        hands,
        promoted,
        checks,
        gates,
    };
    let mut seen: Vec<&str> = Vec::new();
    for extra in extras {
        let (name, value) = extra.split_once('=').ok_or_else(|| FenError::Fields(extra.to_string()))?;
        let bad = |why: String| FenError::Extra { field: name.to_string(), why };
        if seen.contains(&name) {
            return Err(bad("given twice".into()));
        }
        seen.push(name);
        match name {
            "graveyard" => {
                for c in value.chars() {
                    let k = v
                        .kind_by_letter(c)
                        .filter(|_| c.is_ascii_alphabetic())
                        .ok_or_else(|| bad(format!("`{c}` is not a piece letter of this variant")))?;
                    let side = if c.is_ascii_uppercase() { 0 } else { 1 };
                    let n = &mut setup.graveyard[side][k.index()];
                    *n = n
                        .checked_add(1)
                        .ok_or_else(|| bad(format!("more than {} of a kind (`{c}`) in one graveyard", u8::MAX)))?;
                }
            }
            "frozen" | "waiting" => {
                for sq in value.split(',').filter(|s| !s.is_empty()) {
                    let s = g.parse(sq).map_err(|e| bad(e.to_string()))?;
                    if !setup.pieces.iter().any(|&(q, _)| q == s) {
                        return Err(bad(format!("{sq} is empty")));
                    }
                    if name == "frozen" { setup.frozen.push(s) } else { setup.waiting.push(s) }
                }
            }
            "hp" | "guard" => {
                for item in value.split(',').filter(|s| !s.is_empty()) {
                    let (sq, n) =
                        item.split_once(':').ok_or_else(|| bad(format!("`{item}` should be square:number")))?;
                    let s = g.parse(sq).map_err(|e| bad(e.to_string()))?;
                    let n: u8 = n.parse().map_err(|_| bad(format!("`{n}` is not a number from 0 to 255")))?;
                    if !setup.pieces.iter().any(|&(q, _)| q == s) {
                        return Err(bad(format!("{sq} is empty")));
                    }
                    if name == "hp" { setup.hp.push((s, n)) } else { setup.guard.push((s, n)) }
                }
            }
            "spent" => {
                for item in value.split(',').filter(|s| !s.is_empty()) {
                    let (a, b) = item.split_once(':').ok_or_else(|| bad(format!("`{item}` should be piece:source")))?;
                    let a = g.parse(a).map_err(|e| bad(e.to_string()))?;
                    let b = g.parse(b).map_err(|e| bad(e.to_string()))?;
                    setup.spent.push((a, b));
                }
            }
            other => {
                return Err(FenError::Fields(format!("{other}=")));
            }
        }
    }
    check_combat_fields(v, &setup)?;
    super::consistency::check(v, &setup)?;
    Ok(setup)
}

/// `hp=`, `spent=` and `guard=` must make sense for the variant and the board.
fn check_combat_fields(v: &Variant, s: &Setup) -> Result<(), FenError> {
    let bad = |field: &str, why: String| FenError::Extra { field: field.to_string(), why };
    let piece = |sq: Square| s.pieces.iter().find(|&&(q, _)| q == sq).map(|&(_, p)| p);
    let name = |sq: Square| v.square_name(sq);
    let Some(c) = &v.combat else {
        if let Some(f) = [("hp", !s.hp.is_empty()), ("spent", !s.spent.is_empty()), ("guard", !s.guard.is_empty())]
            .into_iter()
            .find(|f| f.1)
        {
            return Err(bad(f.0, "this variant has no hit points or auras (no [combat])".into()));
        }
        return Ok(());
    };
    for &(sq, n) in &s.hp {
        let p = piece(sq).ok_or_else(|| bad("hp", format!("{} is empty", name(sq))))?;
        let max = v.kind(p.kind).stats.hp;
        if n == 0 || n > max {
            return Err(bad(
                "hp",
                format!("{}: {n} HP is not within 1 to {max}, the {}'s maximum", name(sq), v.kind(p.kind).name),
            ));
        }
    }
    for &(at, src) in &s.spent {
        let m = c.multiply.as_ref().ok_or_else(|| bad("spent", "this variant has no multiply aura".into()))?;
        let p = piece(at).ok_or_else(|| bad("spent", format!("{} is empty", name(at))))?;
        let source = piece(src).filter(|q| q.kind == m.source && q.side == p.side && src != at);
        if source.is_none() || v.geometry.distance(at, src) > m.radius {
            return Err(bad(
                "spent",
                format!(
                    "{}:{}: a spent mark joins a piece and a friendly {} within {} square(s)",
                    name(at),
                    name(src),
                    v.kind(m.source).name,
                    m.radius
                ),
            ));
        }
    }
    if !s.guard.is_empty() && c.divide.is_none() {
        return Err(bad("guard", "this variant has no divide aura".into()));
    }
    Ok(())
}

/// `QRrp`: the pieces in hand, white's upper case, black's lower case, in any order.
fn parse_hand(v: &Variant, text: &str) -> Result<[[u8; crate::piece::MAX_KINDS]; 2], FenError> {
    let Some(rule) = v.hand() else {
        return Err(FenError::Hand(format!("{} has no hands (no [reserve]); leave out `[{text}]`", v.name)));
    };
    let mut hands = [[0u8; crate::piece::MAX_KINDS]; 2];
    for c in text.chars() {
        if c == '-' && text.len() == 1 {
            break;
        }
        let k = v
            .kind_by_letter(c)
            .filter(|_| c.is_ascii_alphabetic())
            .ok_or_else(|| FenError::Hand(format!("`{c}` is not a piece letter of {}", v.name)))?;
        if !rule.holds(k) {
            return Err(FenError::Hand(format!("a hand never holds a {} (`{c}`)", v.kind(k).name)));
        }
        let side = if c.is_ascii_uppercase() { 0 } else { 1 };
        let n = &mut hands[side][k.index()];
        *n = n
            .checked_add(1)
            .ok_or_else(|| FenError::Hand(format!("more than {} of a kind (`{c}`) in one hand", u8::MAX)))?;
    }
    Ok(hands)
}

/// The castling entry that a letter of the castling field names on this board: the
/// letter of a fixed entry; for free entries (Chess960) the entry's own letter (`K`, `Q`:
/// the outermost rook on that side of the king, as X-FEN) or a file's letter (the rook on
/// that file, as Shredder-FEN and X-FEN), upper case for white.
pub(crate) fn castling_entry(v: &Variant, pieces: &[(Square, Piece)], c: char) -> Result<usize, String> {
    let on = |sq: Square| pieces.iter().find(|&&(s, _)| s == sq).map(|&(_, p)| p);
    if let Some(i) = v.castling.iter().position(|e| e.right == c && e.free.is_none()) {
        let e = &v.castling[i];
        // The pieces that castle are the kinds that stand there in the setup.
        let has = |sq: Square, kind: Option<crate::piece::KindId>| {
            on(sq).is_some_and(|p| p.side == e.side && kind.is_none_or(|k| k == p.kind))
        };
        if !has(e.king, e.king_kind) || !has(e.rook, e.rook_kind) {
            let what =
                |k: Option<crate::piece::KindId>| k.map_or("a piece".to_string(), |k| format!("a {}", v.kind(k).name));
            return Err(format!(
                "`{c}` needs {} {} on {} and {} on {}",
                e.side,
                what(e.king_kind),
                v.square_name(e.king),
                what(e.rook_kind),
                v.square_name(e.rook)
            ));
        }
        return Ok(i);
    }
    let side = if c.is_ascii_uppercase() { Side::White } else { Side::Black };
    let free: Vec<usize> =
        (0..v.castling.len()).filter(|&i| v.castling[i].free.is_some() && v.castling[i].side == side).collect();
    let Some(&first) = free.first() else {
        let known: String = v.castling.iter().map(|e| e.right).collect();
        return Err(if known.is_empty() {
            format!("`{c}`: this variant has no castling (use `-`)")
        } else {
            format!("`{c}` is not a castling right of this variant (known: {known})")
        });
    };
    let g = v.geometry;
    let e = &v.castling[first];
    let rank = g.rank(e.king);
    let kind_name = |k: Option<crate::piece::KindId>| k.map_or("piece".to_string(), |k| v.kind(k).name.clone());
    let row = |kind: Option<crate::piece::KindId>| -> Vec<Square> {
        pieces
            .iter()
            .filter(|&&(s, p)| g.rank(s) == rank && p.side == side && kind.is_none_or(|k| k == p.kind))
            .map(|&(s, _)| s)
            .collect()
    };
    let king = match row(e.king_kind)[..] {
        [k] => k,
        _ => {
            return Err(format!(
                "`{c}` needs one {side} {} on rank {} (the king castles from where it stands)",
                kind_name(e.king_kind),
                rank + 1
            ));
        }
    };
    let rooks = row(e.rook_kind);
    let kf = g.file(king) as i32;
    let upper = c.to_ascii_uppercase();
    let (rook, dir) = if let Some(&i) = free.iter().find(|&&i| v.castling[i].right.to_ascii_uppercase() == upper) {
        // The outermost rook on the entry's side of the king.
        let dir = v.castling[i].outward(g);
        let outer =
            rooks.iter().filter(|&&r| (g.file(r) as i32 - kf).signum() == dir).max_by_key(|&&r| g.file(r) as i32 * dir);
        match outer {
            Some(&r) => (r, dir),
            None => {
                return Err(format!(
                    "`{c}` needs a {side} {} on rank {} on the {} side of the {}",
                    kind_name(e.rook_kind),
                    rank + 1,
                    if dir > 0 { "higher files'" } else { "lower files'" },
                    kind_name(e.king_kind)
                ));
            }
        }
    } else if upper.is_ascii_uppercase() && ((upper as u8 - b'A') < g.files) {
        let f = upper as u8 - b'A';
        let Some(&r) = rooks.iter().find(|&&r| g.file(r) == f) else {
            return Err(format!(
                "`{c}` names the {side} {} on file {}, and there is none on rank {}",
                kind_name(e.rook_kind),
                c.to_ascii_lowercase(),
                rank + 1
            ));
        };
        (r, (f as i32 - kf).signum())
    } else {
        let known: String = v.castling.iter().filter(|e| e.free.is_none()).map(|e| e.right).collect();
        return Err(format!(
            "`{c}` is not a castling right of this variant (known: {known}{}, or a file letter)",
            free.iter().map(|&i| v.castling[i].right).collect::<String>()
        ));
    };
    free.iter().copied().find(|&i| v.castling[i].rook == rook && v.castling[i].outward(g) == dir).ok_or_else(|| {
        format!("`{c}`: the {side} {} cannot castle with the rook on {}", kind_name(e.king_kind), v.square_name(rook))
    })
}

/// A letter of the castling field of a variant with gating: a castling right (its bit),
/// which opens the gates of its king's and rook's squares too, as Fairy-Stockfish reads
/// `K` and `Q`, while the side's hand holds something; or a file letter (white upper
/// case), which opens the gates of that file's gating squares where the side has a
/// piece (0: no castling right).
fn gating_letter(
    v: &Variant,
    pieces: &[(Square, Piece)],
    hands: &[[u8; crate::piece::MAX_KINDS]; 2],
    c: char,
    gates: &mut Vec<Square>,
) -> Result<u32, String> {
    let Some(g) = v.gating() else { return Ok(0) };
    let side = if c.is_ascii_uppercase() { Side::White } else { Side::Black };
    let own = |sq: Square| pieces.iter().any(|&(q, p)| q == sq && p.side == side);
    let region = &v.regions[g.region].squares[side.index()];
    if let Ok(i) = castling_entry(v, pieces, c) {
        let e = &v.castling[i];
        let holds = hands[side.index()].iter().any(|&n| n > 0) || v.hand().is_some_and(|h| h.captured_to_taker);
        if holds && e.free.is_none() {
            gates.extend([e.king, e.rook].into_iter().filter(|&q| region.contains(&q) && own(q)));
        }
        return Ok(1 << i);
    }
    let geo = v.geometry;
    let file = (c.to_ascii_lowercase() as u8).wrapping_sub(b'a');
    if !c.is_ascii_alphabetic() || file >= geo.files {
        let known: String = v.castling.iter().map(|e| e.right).collect();
        return Err(format!(
            "`{c}` is neither a castling right of this variant (known: {known}) nor a file letter (an open gate)"
        ));
    }
    let found: Vec<Square> = region.iter().copied().filter(|&q| geo.file(q) == file && own(q)).collect();
    if found.is_empty() {
        return Err(format!("`{c}`: no {side} piece stands on a gating square of file {}", (b'a' + file) as char));
    }
    gates.extend(found);
    Ok(0)
}

/// Two free castling rights of one side with rooks on the same side of the king.
fn free_twins(v: &Variant, rights: u32) -> Option<String> {
    let g = v.geometry;
    let free: Vec<&crate::variant::Castling> = (0..v.castling.len())
        .filter(|i| rights & (1 << i) != 0)
        .map(|i| &v.castling[i])
        .filter(|e| e.free.is_some())
        .collect();
    for (n, a) in free.iter().enumerate() {
        if let Some(b) =
            free[n + 1..].iter().find(|b| b.side == a.side && b.outward(g) == a.outward(g) && b.rook != a.rook)
        {
            return Some(format!(
                "{} may castle with one rook on each side of its king, not with both {} and {}",
                a.side,
                v.square_name(a.rook),
                v.square_name(b.rook)
            ));
        }
    }
    None
}

/// The letter FEN writes for castling entry `i` on this board: a fixed entry's letter; a
/// free entry's (X-FEN) when its rook is the outermost on its side of the king, else the
/// rook's file letter.
pub(crate) fn castling_letter(v: &Variant, pieces: &[(Square, Piece)], i: usize) -> char {
    let e = &v.castling[i];
    if e.free.is_none() {
        return e.right;
    }
    let g = v.geometry;
    let rank = g.rank(e.rook);
    let dir = e.outward(g);
    let beyond = pieces.iter().any(|&(s, p)| {
        g.rank(s) == rank
            && p.side == e.side
            && e.rook_kind.is_none_or(|k| k == p.kind)
            && (g.file(s) as i32 - g.file(e.rook) as i32).signum() == dir
    });
    if !beyond {
        return e.right;
    }
    let f = (b'A' + g.file(e.rook)) as char;
    if e.side == Side::White { f } else { f.to_ascii_lowercase() }
}

/// The board's pieces, and the squares of those marked promoted (`Q~`).
pub(crate) type Board = (Vec<(Square, Piece)>, Vec<Square>);

pub(crate) fn parse_board(v: &Variant, field: &str) -> Result<Board, FenError> {
    let g = v.geometry;
    let mut promoted = Vec::new();
    let rows: Vec<&str> = field.split('/').collect();
    if rows.len() != g.ranks as usize {
        return Err(FenError::Board(format!("expected {} ranks separated by `/`, found {}", g.ranks, rows.len())));
    }
    let mut pieces: Vec<(Square, Piece)> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let rank = g.ranks as usize - 1 - i;
        let mut file = 0usize;
        let mut digits = 0usize;
        let mut count = 0usize;
        let flush = |file: &mut usize, digits: &mut usize, count: &mut usize| {
            *file += *count;
            *digits = 0;
            *count = 0;
        };
        // A `+` read: the next letter is a kind written `+X` (`fen = "+P"`).
        let mut plus = false;
        for c in row.chars() {
            if c == '+' {
                if plus {
                    return Err(FenError::Board(format!("rank {}: `+` given twice", rank + 1)));
                }
                plus = true;
                continue;
            }
            if plus && !c.is_ascii_alphabetic() {
                return Err(FenError::Board(format!("rank {}: `+` is followed by a piece letter", rank + 1)));
            }
            if c == '~' {
                // The piece just read arrived by promotion.
                let Some(&(sq, p)) = pieces.last().filter(|_| digits == 0 && file > 0) else {
                    return Err(FenError::Board(format!("rank {}: `~` follows a piece letter", rank + 1)));
                };
                if v.hand().is_none() || v.unpromoted(p.kind).is_none() {
                    return Err(FenError::Board(format!(
                        "rank {}: `~` marks a piece that arrived by promotion, which matters only to a hand, and \
                         {} has {}",
                        rank + 1,
                        v.name,
                        if v.hand().is_none() {
                            "no hands".to_string()
                        } else {
                            format!("no promotion to a {}", v.kind(p.kind).name)
                        }
                    )));
                }
                if promoted.last() == Some(&sq) {
                    return Err(FenError::Board(format!("rank {}: `~` given twice", rank + 1)));
                }
                promoted.push(sq);
                continue;
            }
            if let Some(d) = c.to_digit(10) {
                if digits == 0 && d == 0 {
                    return Err(FenError::Board(format!("rank {}: an empty count cannot start with 0", rank + 1)));
                }
                count = count * 10 + d as usize;
                digits += 1;
                // Past the widest board the count is wrong whatever follows; stopping here
                // also keeps it from overflowing.
                if count > crate::geometry::MAX_SIDE as usize {
                    return Err(FenError::Board(format!(
                        "rank {}: an empty count of more than {} squares; the board has {} files",
                        rank + 1,
                        crate::geometry::MAX_SIDE,
                        g.files
                    )));
                }
                continue;
            }
            flush(&mut file, &mut digits, &mut count);
            let kind = if plus { v.kind_by_plus(c) } else { v.kind_by_letter(c) };
            if plus && kind.is_none() {
                let known: Vec<String> = v.kinds.iter().filter_map(|k| k.fen_plus).map(|l| format!("+{l}")).collect();
                return Err(FenError::Board(format!(
                    "rank {}: `+{c}` is not a piece of this variant{}",
                    rank + 1,
                    if known.is_empty() { String::new() } else { format!(" (known: {})", known.join(" ")) }
                )));
            }
            plus = false;
            let Some(kind) = kind.filter(|_| c.is_ascii_alphabetic()) else {
                let known: Vec<String> = v.kinds.iter().map(|k| k.letter.to_string()).collect();
                return Err(FenError::Board(format!(
                    "rank {}: `{c}` is not a piece letter of this variant (known: {})",
                    rank + 1,
                    known.join(" ")
                )));
            };
            if file >= g.files as usize {
                return Err(FenError::Board(format!("rank {} has more than {} files", rank + 1, g.files)));
            }
            let side = if c.is_ascii_uppercase() { Side::White } else { Side::Black };
            pieces.push((Square((rank * g.files as usize + file) as u8), Piece::new(kind, side)));
            file += 1;
        }
        flush(&mut file, &mut digits, &mut count);
        if plus {
            return Err(FenError::Board(format!("rank {}: `+` is followed by a piece letter", rank + 1)));
        }
        if file != g.files as usize {
            return Err(FenError::Board(format!(
                "rank {} describes {file} files; the board has {}",
                rank + 1,
                g.files
            )));
        }
    }
    pieces.sort_by_key(|&(s, _)| s);
    promoted.sort();
    Ok((pieces, promoted))
}

/// The castling field of a variant with gating: each side's castling letters, then the
/// files of its open gates (white's upper case, then black's), as Fairy-Stockfish writes
/// them (`KQABCDEFGHkqabcdefgh`).
fn gating_field(v: &Variant, s: &Setup) -> String {
    let mut out = String::new();
    for side in Side::BOTH {
        for i in (0..v.castling.len()).filter(|&i| s.castling & (1 << i) != 0 && v.castling[i].side == side) {
            out.push(castling_letter(v, &s.pieces, i));
        }
        let own = |q: Square| s.pieces.iter().any(|&(x, p)| x == q && p.side == side);
        let mut files: Vec<u8> = s.gates.iter().filter(|&&q| own(q)).map(|&q| v.geometry.file(q)).collect();
        files.sort();
        files.dedup();
        for f in files {
            let c = (b'a' + f) as char;
            out.push(if side == Side::White { c.to_ascii_uppercase() } else { c });
        }
    }
    out
}

/// Writes a FEN.
pub fn write(v: &Variant, s: &Setup) -> String {
    let g = v.geometry;
    let mut board = String::new();
    for rank in (0..g.ranks).rev() {
        let mut empty = 0;
        for file in 0..g.files {
            let sq = Square(rank * g.files + file);
            match s.pieces.iter().find(|&&(q, _)| q == sq) {
                Some(&(_, p)) => {
                    if empty > 0 {
                        board.push_str(&empty.to_string());
                        empty = 0;
                    }
                    board.push_str(&v.fen_text(p));
                    if s.promoted.contains(&sq) {
                        board.push('~');
                    }
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            board.push_str(&empty.to_string());
        }
        if rank > 0 {
            board.push('/');
        }
    }
    if v.hand().is_some() {
        board.push('[');
        for side in Side::BOTH {
            for (k, &n) in s.hands[side.index()].iter().enumerate().take(v.kinds.len()) {
                for _ in 0..n {
                    board.push(v.letter(Piece::new(crate::piece::KindId(k as u8), side)));
                }
            }
        }
        board.push(']');
    }
    let mut castling: String = (0..v.castling.len())
        .filter(|i| s.castling & (1 << i) != 0)
        .map(|i| castling_letter(v, &s.pieces, i))
        .collect();
    if v.gating().is_some() {
        castling = gating_field(v, s);
    }
    let ep: Vec<String> = s.en_passant.iter().map(|&q| v.square_name(q)).collect();
    let checks = match v.check_count() {
        Some(n) => format!(" {}+{}", n.saturating_sub(s.checks[0]), n.saturating_sub(s.checks[1])),
        None => String::new(),
    };
    let mut out = format!(
        "{board} {} {} {}{checks} {} {}",
        if s.to_move == Side::White { "w" } else { "b" },
        if castling.is_empty() { "-".into() } else { castling },
        if ep.is_empty() { "-".into() } else { ep.join(",") },
        s.halfmove,
        s.fullmove
    );
    let mut graveyard = String::new();
    for side in Side::BOTH {
        for (k, &n) in s.graveyard[side.index()].iter().enumerate().take(v.kinds.len()) {
            for _ in 0..n {
                graveyard.push(v.letter(Piece::new(crate::piece::KindId(k as u8), side)));
            }
        }
    }
    if !graveyard.is_empty() {
        out.push_str(&format!(" graveyard={graveyard}"));
    }
    let names = |l: &[Square]| l.iter().map(|&q| v.square_name(q)).collect::<Vec<_>>().join(",");
    if !s.frozen.is_empty() {
        out.push_str(&format!(" frozen={}", names(&s.frozen)));
    }
    if !s.waiting.is_empty() {
        out.push_str(&format!(" waiting={}", names(&s.waiting)));
    }
    let pairs =
        |l: &[(Square, u8)]| l.iter().map(|&(q, n)| format!("{}:{n}", v.square_name(q))).collect::<Vec<_>>().join(",");
    if !s.hp.is_empty() {
        out.push_str(&format!(" hp={}", pairs(&s.hp)));
    }
    if !s.spent.is_empty() {
        let l: Vec<String> =
            s.spent.iter().map(|&(a, b)| format!("{}:{}", v.square_name(a), v.square_name(b))).collect();
        out.push_str(&format!(" spent={}", l.join(",")));
    }
    if !s.guard.is_empty() {
        out.push_str(&format!(" guard={}", pairs(&s.guard)));
    }
    out
}
