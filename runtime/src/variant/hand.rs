//! The keys of `[reserve]` that only a two-sided board reads (a hand): per-kind drop
//! zones, gating. The rest of `[reserve]` (what it holds, its cap, whether taken pieces change
//! side into it) is one schema with the world's vaults, built in `world_rules`.

use toml::Spanned;

use super::diagnostics::Diagnostics;
use super::schema::CastlingSpec;
use super::world_rules::Gating;
use super::world_schema::ReserveSpec;
use super::{Region, ReserveRule};
use crate::piece::KindId;

/// Adds the hand's keys of `s` to `rule`; problems go to `d`.
pub(super) fn compile(
    s: &ReserveSpec,
    kind_of: &mut dyn FnMut(&mut Diagnostics, &Spanned<String>) -> Option<KindId>,
    regions: &[Region],
    d: &mut Diagnostics,
    rule: &mut ReserveRule,
) {
    rule.one_per_file = s.one_per_file.iter().filter_map(|n| kind_of(d, n)).collect();
    rule.no_drop_mate = s.no_drop_mate.iter().filter_map(|n| kind_of(d, n)).collect();
    match s.drop_mate.as_ref().map(|m| (m.get_ref().as_str(), m.span())) {
        None | Some(("illegal", _)) => {}
        Some(("loses", _)) => rule.drop_mate_loses = true,
        Some((other, at)) => d.at(at, format!("unknown `drop_mate` `{other}`; expected \"illegal\" or \"loses\"")),
    }
    for (kind, zone) in &s.drop_zones {
        // The key has no place of its own in the file: name it at its value.
        let Some(k) = kind_of(d, &Spanned::new(zone.span(), kind.clone())) else { continue };
        match regions.iter().position(|g| g.name == *zone.get_ref()) {
            Some(i) => rule.drop_zones.push((k, i)),
            None => d.at(
                zone.span(),
                format!("drop_zones.{kind}: unknown region `{}`; define it under [regions]", zone.get_ref()),
            ),
        }
    }
    if let Some(g) = &s.gating {
        let g = g.get_ref();
        let region = regions.iter().position(|r| r.name == *g.region.get_ref());
        if region.is_none() {
            d.at(
                g.region.span(),
                format!("gating.region: unknown region `{}`; define it under [regions]", g.region.get_ref()),
            );
        }
        let mut kinds = rule.holds;
        if let Some(list) = &g.kinds {
            kinds = 0;
            for n in list {
                let Some(k) = kind_of(d, n) else { continue };
                if !rule.holds(k) {
                    d.at(n.span(), format!("gating.kinds: `{}` is not a kind the hand holds (`holds`)", n.get_ref()));
                }
                kinds |= 1 << k.0;
            }
        }
        if let Some(region) = region {
            rule.gating = Some(Gating { region, kinds });
        }
    }
}

/// What a hand on a two-sided board cannot be. `castling` is the variant's `[[castling]]`.
pub(super) fn check_two_sided(
    rule: &ReserveRule,
    r: &Spanned<ReserveSpec>,
    combat: bool,
    castling: &[Spanned<CastlingSpec>],
    d: &mut Diagnostics,
) {
    let s = r.get_ref();
    // Gating with Chess960 castling: FSF plays it (castling rights in FEN then come from the
    // king's and rooks' gates, and a gate on the rook's square is written rook-to-king,
    // `h1b1h`), but varia's FEN reading of gates and castling letters, and its notation, do
    // not tell the two apart yet: refused rather than played wrong.
    if s.gating.is_some() {
        for c in castling {
            if let Some(free) = c.get_ref().free.as_ref().filter(|f| *f.get_ref()) {
                d.at(
                    free.span(),
                    "a free castling (`free = true`, Chess960) cannot be combined with `[reserve] gating` yet: give the castling fixed squares, or leave out `gating`",
                );
            }
        }
    }
    if rule.drop == super::DropZone::Presence {
        let at = if s.drop.span().is_empty() { r.span() } else { s.drop.span() };
        d.at(
            at,
            "a hand on a two-sided board drops \"anywhere\" or on a region: set `drop` (\"presence\", the default, is for worlds of boards)",
        );
    }
    if combat {
        d.at(r.span(), "`[reserve]` on a two-sided board cannot be combined with `[combat]` yet");
    }
}

/// The keys of a hand that a world's vault does not read.
pub(super) fn check_world(r: &Spanned<ReserveSpec>, d: &mut Diagnostics) {
    let s = r.get_ref();
    for (key, names) in [("one_per_file", &s.one_per_file), ("no_drop_mate", &s.no_drop_mate)] {
        if let Some(n) = names.first() {
            d.at(n.span(), format!("`{key}` is for a hand on a two-sided board, not a world's vault"));
        }
    }
    if let Some(m) = &s.drop_mate {
        d.at(m.span(), "`drop_mate` is for a hand on a two-sided board, not a world's vault");
    }
    if let Some(g) = &s.gating {
        d.at(g.span(), "`gating` is for a hand on a two-sided board, not a world's vault");
    }
}
