//! What makes a described position one that play could reach: each square listed once,
//! frozen and waiting pieces where the rules put them, a graveyard only where one is kept,
//! an en-passant square that the last move skipped, aura marks that fit the board.
//!
//! Every way in passes through here — FEN, JSON snapshots (checked as the FEN they
//! write), fixtures (which read FEN) — so no game is built from input that contradicts
//! itself; the engine below may then rely on these facts instead of re-checking them.

use super::fen::{FenError, Setup};
use crate::geometry::{MAX_SIDE, Square};
use crate::piece::{Piece, Side};
use crate::variant::{Shape, Variant, WhenEmpty};

/// The most frozen pieces one side may have at once (the length of the position's queue).
pub(crate) const MAX_FROZEN: usize = 16;

fn bad(field: &str, why: String) -> FenError {
    FenError::Extra { field: field.to_string(), why }
}

/// The first repeated item of a list, if any.
fn repeated<T: PartialEq + Copy>(items: impl IntoIterator<Item = T>) -> Option<T> {
    let mut seen = Vec::new();
    for x in items {
        if seen.contains(&x) {
            return Some(x);
        }
        seen.push(x);
    }
    None
}

/// Checks everything FEN fields cannot check one at a time.
pub(crate) fn check(v: &Variant, s: &Setup) -> Result<(), FenError> {
    let name = |sq: Square| v.square_name(sq);
    let piece = |sq: Square| s.pieces.iter().find(|&&(q, _)| q == sq).map(|&(_, p)| p);
    let describe = |p: Piece| format!("{} {}", p.side, v.kind(p.kind).name);

    if let Some(sq) = repeated(s.pieces.iter().map(|&(q, _)| q)) {
        return Err(FenError::Position(format!("two pieces on {}", name(sq))));
    }

    let mut frozen = [0usize; 2];
    if let Some(sq) = repeated(s.frozen.iter().copied()) {
        return Err(bad("frozen", format!("{} is listed twice", name(sq))));
    }
    for &sq in &s.frozen {
        let p = piece(sq).ok_or_else(|| bad("frozen", format!("{} is empty", name(sq))))?;
        let kind = v.kind(p.kind);
        match kind.promotion.as_ref().filter(|pr| pr.when_empty == WhenEmpty::Freeze) {
            None => {
                return Err(bad(
                    "frozen",
                    format!(
                        "the {} on {} cannot be frozen: only a kind whose promotion has when_empty = \"freeze\" \
                         freezes",
                        describe(p),
                        name(sq)
                    ),
                ));
            }
            Some(pr) if !v.regions[pr.zone].squares[p.side.index()].contains(&sq) => {
                return Err(bad(
                    "frozen",
                    format!(
                        "the {} on {} stands outside its promotion zone `{}`, the only place it freezes",
                        describe(p),
                        name(sq),
                        v.regions[pr.zone].name
                    ),
                ));
            }
            Some(_) => {}
        }
        frozen[p.side.index()] += 1;
        if frozen[p.side.index()] > MAX_FROZEN {
            return Err(bad("frozen", format!("{} has more than {MAX_FROZEN} frozen pieces", p.side)));
        }
    }

    if let Some(sq) = repeated(s.waiting.iter().copied()) {
        return Err(bad("waiting", format!("{} is listed twice", name(sq))));
    }
    let waits = v.kinds.iter().any(|k| k.promotion.as_ref().is_some_and(|p| p.returned_waits));
    for &sq in &s.waiting {
        let p = piece(sq).ok_or_else(|| bad("waiting", format!("{} is empty", name(sq))))?;
        if !waits {
            return Err(bad(
                "waiting",
                "no piece ever waits in this variant (no promotion with returned_waits)".into(),
            ));
        }
        if s.frozen.contains(&sq) {
            return Err(bad(
                "waiting",
                format!("the {} on {} is frozen; a piece waits only once it has returned", describe(p), name(sq)),
            ));
        }
    }

    let keeps_graveyard = v.kinds.iter().any(|k| k.promotion.as_ref().is_some_and(|p| p.from_graveyard));
    if !keeps_graveyard && s.graveyard.iter().flatten().any(|&n| n > 0) {
        return Err(bad(
            "graveyard",
            "this variant keeps no graveyard (no promotion with source = \"graveyard\")".into(),
        ));
    }

    if let Some(sq) = repeated(s.hp.iter().map(|&(q, _)| q)) {
        return Err(bad("hp", format!("{} is listed twice", name(sq))));
    }
    if let Some((a, b)) = repeated(s.spent.iter().copied()) {
        return Err(bad("spent", format!("{}:{} is listed twice", name(a), name(b))));
    }
    if let Some(sq) = repeated(s.guard.iter().map(|&(q, _)| q)) {
        return Err(bad("guard", format!("{} is listed twice", name(sq))));
    }
    if let Some(c) = &v.combat {
        if !s.spent.is_empty() && c.multiply.as_ref().is_some_and(|m| !m.spend) {
            return Err(bad("spent", "this variant's multiply aura is never spent (model = \"geometric\")".into()));
        }
        if let Some(d) = &c.divide {
            for &(sq, plies) in &s.guard {
                let Some(p) = piece(sq) else { continue };
                if in_guard_range(v, &s.pieces, sq) {
                    return Err(bad(
                        "guard",
                        format!(
                            "the {} on {} is within range of a friendly {}: it holds the aura anyway (list only \
                             pieces out of range)",
                            describe(p),
                            name(sq),
                            v.kind(d.source).name
                        ),
                    ));
                }
                if plies >= d.persist_plies {
                    return Err(bad(
                        "guard",
                        format!(
                            "{}:{plies}: a piece out of range keeps the aura for fewer than {} plies \
                             (persist_plies)",
                            name(sq),
                            d.persist_plies
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether the piece on `sq` stands within range of a friendly divide-aura source (where
/// it holds the aura whatever happened before).
pub(crate) fn in_guard_range(v: &Variant, pieces: &[(Square, Piece)], sq: Square) -> bool {
    let Some(d) = v.combat.as_ref().and_then(|c| c.divide.as_ref()) else { return false };
    let Some(&(_, p)) = pieces.iter().find(|&&(q, _)| q == sq) else { return false };
    pieces.iter().any(|&(q, src)| {
        src.side == p.side
            && src.kind == d.source
            && (q != sq || d.includes_source)
            && v.geometry.distance(q, sq) <= d.radius
    })
}

/// The pieces that could have made the last move if it skipped every square of `ep`: a
/// piece of `mover` whose kind has an atom that creates en passant, standing where that
/// atom brings it from an empty square (of the atom's region), over the squares of `ep`
/// (and, for a slide, over empty squares only). In square order.
pub(crate) fn en_passant_victims(v: &Variant, pieces: &[(Square, Piece)], mover: Side, ep: &[Square]) -> Vec<Square> {
    let g = v.geometry;
    let empty = |sq: Square| !pieces.iter().any(|&(q, _)| q == sq);
    let mut out = Vec::new();
    for &(to, p) in pieces {
        if p.side != mover {
            continue;
        }
        let could = v.kind(p.kind).atoms.iter().filter(|a| a.creates_en_passant).any(|a| {
            a.vectors.iter().any(|&(x, y)| {
                let (dx, dy) = (x as i32, if mover == Side::White { y as i32 } else { -(y as i32) });
                let most = match a.shape {
                    Shape::Leap => 1,
                    Shape::Slide if a.range > 0 => a.range as i32,
                    _ => MAX_SIDE as i32,
                };
                let (tf, tr) = (g.file(to) as i32, g.rank(to) as i32);
                (1..=most).any(|k| {
                    let Some(from) = g.at(tf - k * dx, tr - k * dy) else { return false };
                    let (df, dr) = (k * dx, k * dy);
                    if !empty(from)
                        || !(df == 0 || dr == 0 || df.abs() == dr.abs())
                        || a.from.is_some_and(|r| !v.regions[r].squares[mover.index()].contains(&from))
                    {
                        return false;
                    }
                    // A slide passed through each of its steps; they were empty.
                    if a.shape != Shape::Leap
                        && (1..k).any(|j| g.at(tf - j * dx, tr - j * dy).is_none_or(|s| !empty(s)))
                    {
                        return false;
                    }
                    let (sf, sr) = (df.signum(), dr.signum());
                    let passed: Vec<Square> =
                        (1..df.abs().max(dr.abs())).filter_map(|j| g.at(tf - j * sf, tr - j * sr)).collect();
                    ep.iter().all(|e| passed.contains(e))
                })
            })
        });
        if could {
            out.push(to);
        }
    }
    out
}
