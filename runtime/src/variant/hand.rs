//! The keys of `[reserve]` that only a two-sided board reads (a hand): per-kind drop
//! zones, gating. The rest of `[reserve]` (what it holds, its cap, whether taken pieces change
//! side into it) is one schema with the world's vaults, built in `world_rules`.

use toml::Spanned;

use super::diagnostics::Diagnostics;
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

/// What a hand on a two-sided board cannot be.
pub(super) fn check_two_sided(rule: &ReserveRule, r: &Spanned<ReserveSpec>, combat: bool, d: &mut Diagnostics) {
    let s = r.get_ref();
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

/// What a world's reserve (a vault) cannot be: gating is for hands.
pub(super) fn check_world(r: &Spanned<ReserveSpec>, d: &mut Diagnostics) {
    if let Some(g) = &r.get_ref().gating {
        d.at(g.span(), "`gating` is for hands on two-sided boards, not a world's reserve");
    }
}
