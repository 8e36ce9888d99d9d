//! `[rules.explosion]`: a capture that blasts the squares around it (atomic chess), checked
//! here and compiled into the rule the core applies (`Position::explode`) and judges
//! legality by (`movegen`'s exact guard).

use toml::Spanned;

use super::compile::{Compiler, named_vectors};
use super::schema::{ExplosionSpec, VariantFile};
use super::{Explosion, Kind};
use crate::geometry::Offset;

impl Compiler<'_, '_> {
    /// The explosion rule of `[rules.explosion]`, if any.
    pub(super) fn explosion(&mut self, spec: &VariantFile, kinds: &[Kind], two_sided: bool) -> Option<Explosion> {
        let e: &Spanned<ExplosionSpec> = spec.rules.explosion.as_ref()?;
        let s = e.get_ref();
        if !two_sided {
            self.err(e.span(), "`[rules.explosion]` is for two-sided boards");
            return None;
        }
        if spec.combat.is_some() || spec.reserve.is_some() {
            self.err(e.span(), "`[rules.explosion]` cannot be combined with `[combat]` or `[reserve]` yet");
            return None;
        }
        let mut ok = true;
        let around: Vec<Offset> = match s.around.as_ref() {
            None => named_vectors("all").unwrap_or_default(),
            Some(a) => match self.offsets(a.get_ref(), a.span(), "offset") {
                Some(vs) => {
                    // A square named twice is blasted once.
                    let mut once = Vec::with_capacity(vs.len());
                    for o in vs {
                        if !once.contains(&o) {
                            once.push(o);
                        }
                    }
                    once
                }
                None => {
                    ok = false;
                    Vec::new()
                }
            },
        };
        let mut spares = 0u32;
        for k in &s.spares {
            match kinds.iter().position(|x| &x.name == k.get_ref()) {
                Some(i) => spares |= 1 << i,
                None => {
                    self.unknown(k, "piece kind", kinds.iter().map(|x| x.name.as_str()));
                    ok = false;
                }
            }
        }
        let capturer_explodes = match s.capturer.as_ref().map(|c| (c.get_ref().as_str(), c.span())) {
            None | Some(("explodes", _)) => true,
            Some(("survives", _)) => false,
            Some((other, sp)) => {
                self.err(sp, format!("`{other}`: capturer is \"explodes\" or \"survives\""));
                ok = false;
                true
            }
        };
        ok.then_some(Explosion { around, spares, capturer_explodes })
    }
}
