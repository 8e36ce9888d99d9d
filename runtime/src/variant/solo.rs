//! Solo boards and scores in `variant.toml`: `[wear]` (squares that wear down under
//! strikes), `[levels.<name>]` (what is dealt), `[generation]`, `[duel]`, and
//! `[scoring]` (the scoring engine's tables, for any turn model).
//!
//! The schema structs describe the file; `Compiler::solo` and `Compiler::scoring` check
//! names and numbers and build [`SoloRules`] and [`ScoringRules`].

use serde::Deserialize;
use toml::Spanned;

use super::compile::Compiler;
use super::schema::{Name, Ordered};
use super::{Kind, TurnModel};
use crate::piece::KindId;
use crate::scoring::{Feed, RunBonus, ScoringRules, SequenceBonus, Tenths, TimeScore};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WearSpec {
    /// Strikes that clear a square: each square holds this many pieces, one per layer.
    pub strikes: Spanned<u32>,
    /// Names of a square's states by hits taken, from 0 to `strikes` (for displays).
    #[serde(default)]
    pub states: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LevelSpec {
    /// The kinds dealt on this level, by name, with their weights (in the order written,
    /// which the generator follows).
    pub weights: Ordered<Spanned<u32>>,
    /// The piece a strike leaves on its square when that strike completes one of these
    /// layers (a layer is complete when every square has taken that many strikes).
    pub layer_piece: Option<Spanned<LayerPieceSpec>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LayerPieceSpec {
    pub kind: Name,
    pub layers: Vec<u32>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct GenerationSpec {
    /// Deal only boards the solver proves can be completed, drawing again otherwise.
    pub guarantee_forgeable: Option<bool>,
    /// The solver's budget per drawn board, in nodes (not time, so that every machine
    /// deals the same board); a board not decided within it is drawn again.
    pub solver_nodes: Option<u64>,
    /// The most boards drawn for one seed before giving up.
    pub attempts: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DuelSpec {
    /// The countdown both players get, in seconds (it replaces the time score's clock).
    pub countdown_seconds: Spanned<u32>,
    /// Points per whole second left on the countdown when a board ends.
    pub bonus_per_second: Spanned<f64>,
    /// Whether a duel may be paused.
    #[serde(default)]
    pub pause: bool,
    /// The Elo K factor of a duel's rating update.
    pub elo_k: Spanned<u32>,
    /// A new player's rating.
    #[serde(default = "elo_start")]
    pub elo_start: u32,
    /// Seconds a computer opponent takes per strike (its clock, so that its countdown
    /// bonus does not depend on the machine); default 2.
    pub computer_pace: Option<Spanned<f64>>,
}

fn elo_start() -> u32 {
    1200
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoringSpec {
    /// Points per strike by the length of the chain of strikes on the same kind (1st,
    /// 2nd, …); the last entry repeats. Points have at most one decimal.
    #[serde(default)]
    pub chain: Vec<Spanned<f64>>,
    /// Run bonuses: `points` for every `every` strikes in a row on `kinds`.
    #[serde(default)]
    pub runs: Ordered<Spanned<RunSpec>>,
    /// Sequence bonuses: `points` for strikes on `kinds` in this order, one after another.
    #[serde(default)]
    pub sequences: Ordered<Spanned<SequenceSpec>>,
    /// Points for each layer completed (solo boards).
    pub layer: Option<Spanned<f64>>,
    /// A time score.
    pub time: Option<TimeSpec>,
    /// Two sides alternating: what counts as a strike, "captured" (default: the kind of
    /// each piece a side's action removes) or "moved" (the kind of the piece that acted).
    pub feed: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    pub kinds: Vec<Name>,
    pub every: Spanned<u32>,
    pub points: Spanned<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SequenceSpec {
    pub kinds: Vec<Name>,
    pub points: Spanned<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSpec {
    /// The time score when the clock starts.
    pub start: Spanned<f64>,
    /// Points lost per whole second.
    pub decay: Spanned<f64>,
    /// It never goes below this.
    #[serde(default)]
    pub floor: Option<Spanned<f64>>,
    /// A board that ends unfinished still gets its time score (default true).
    pub on_unfinished: Option<bool>,
}

/// A solo board's rules: how squares wear, what each level deals, and the duel.
#[derive(Debug, Clone)]
pub struct SoloRules {
    /// Strikes that clear a square (the pieces stacked on each square).
    pub strikes: u8,
    /// Names of a square's states by hits (`strikes + 1` of them).
    pub states: Vec<String>,
    pub levels: Vec<Level>,
    pub generation: Generation,
    pub duel: Option<DuelRules>,
}

impl SoloRules {
    /// The level with this name (any case).
    pub fn level(&self, name: &str) -> Option<&Level> {
        self.levels.iter().find(|l| l.name.eq_ignore_ascii_case(name))
    }
}

/// What a level deals, and its special rule.
#[derive(Debug, Clone)]
pub struct Level {
    pub name: String,
    /// Kinds with their weights, in the written order.
    pub weights: Vec<(KindId, u32)>,
    /// A strike that completes one of `layers` leaves `kind` on its square.
    pub layer_piece: Option<LayerPiece>,
}

#[derive(Debug, Clone)]
pub struct LayerPiece {
    pub kind: KindId,
    /// Layers by number (1 = every square struck once).
    pub layers: Vec<u8>,
}

/// How boards are dealt.
#[derive(Debug, Clone, Copy)]
pub struct Generation {
    pub guarantee_forgeable: bool,
    pub solver_nodes: u64,
    pub attempts: u32,
}

/// A duel: two players, the same board, a countdown instead of the time score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DuelRules {
    pub countdown_ms: u64,
    pub bonus_per_second: Tenths,
    pub pause: bool,
    pub elo_k: u32,
    pub elo_start: u32,
    /// A computer opponent's time per strike, in milliseconds.
    pub computer_pace_ms: u64,
}

/// Points written with at most one decimal, as tenths.
fn tenths(c: &mut Compiler, v: &Spanned<f64>) -> Tenths {
    let x = *v.get_ref() * 10.0;
    let r = x.round();
    if !x.is_finite() || (x - r).abs() > 1e-6 || r.abs() > 1e15 {
        c.err(v.span(), format!("{}: points have at most one decimal (and at most 10^14)", v.get_ref()));
        return Tenths::ZERO;
    }
    Tenths(r as i64)
}

impl Compiler<'_, '_> {
    fn kind_list(&mut self, names: &[Name], kinds: &[Kind]) -> Vec<KindId> {
        let mut out = Vec::new();
        for n in names {
            match kinds.iter().position(|k| &k.name == n.get_ref()) {
                Some(i) => out.push(KindId(i as u8)),
                None => self.unknown(n, "piece kind", kinds.iter().map(|k| k.name.as_str())),
            }
        }
        out
    }

    /// `[scoring]`, for any turn model.
    pub(super) fn scoring(&mut self, spec: &ScoringSpec, kinds: &[Kind]) -> ScoringRules {
        let chain = spec.chain.iter().map(|p| tenths(self, p)).collect();
        let mut runs = Vec::new();
        for (name, r) in spec.runs.iter() {
            let rs = r.get_ref();
            let ks = self.kind_list(&rs.kinds, kinds);
            if ks.is_empty() {
                self.err(r.span(), format!("run `{name}` names no kind"));
            }
            if *rs.every.get_ref() == 0 {
                self.err(rs.every.span(), "`every` is at least 1");
            }
            let points = tenths(self, &rs.points);
            let kinds = ks.iter().fold(0u32, |m, k| m | 1 << k.0);
            runs.push(RunBonus { name: name.clone(), kinds, every: (*rs.every.get_ref()).max(1), points });
        }
        let mut sequences = Vec::new();
        for (name, q) in spec.sequences.iter() {
            let ks = self.kind_list(&q.get_ref().kinds, kinds);
            if ks.is_empty() {
                self.err(q.span(), format!("sequence `{name}` names no kind"));
                continue;
            }
            let points = tenths(self, &q.get_ref().points);
            sequences.push(SequenceBonus::new(name.clone(), ks, points));
        }
        let layer = spec.layer.as_ref().map_or(Tenths::ZERO, |l| tenths(self, l));
        let time = spec.time.as_ref().map(|t| TimeScore {
            start: tenths(self, &t.start),
            decay: tenths(self, &t.decay),
            floor: t.floor.as_ref().map_or(Tenths::ZERO, |f| tenths(self, f)),
            on_unfinished: t.on_unfinished.unwrap_or(true),
        });
        let feed = match spec.feed.as_ref().map(|f| (f.get_ref().as_str(), f.span())) {
            None | Some(("captured", _)) => Feed::Captured,
            Some(("moved", _)) => Feed::Moved,
            Some((other, sp)) => {
                self.err(sp, format!("unknown feed `{other}`; expected \"captured\" or \"moved\""));
                Feed::Captured
            }
        };
        ScoringRules { chain, runs, sequences, layer, time, feed }
    }

    /// `[wear]`, `[levels]`, `[generation]` and `[duel]`: present exactly for solo boards.
    pub(super) fn solo(
        &mut self,
        turns: TurnModel,
        wear: Option<&Spanned<WearSpec>>,
        levels: &Ordered<Spanned<LevelSpec>>,
        generation: &GenerationSpec,
        duel: Option<&DuelSpec>,
        kinds: &[Kind],
    ) -> Option<SoloRules> {
        let Some(wear) = wear else {
            if turns == TurnModel::Solo {
                self.err(0..0, "a solo board needs `[wear]` with `strikes` (how many strikes clear a square)");
            } else if let Some((name, l)) = levels.iter().next() {
                self.err(l.span(), format!("`[levels.{name}]` deals solo boards: it needs turns.model = \"solo\""));
            }
            return None;
        };
        if turns != TurnModel::Solo {
            self.err(wear.span(), "`[wear]` is for solo boards: it needs turns.model = \"solo\"");
            return None;
        }
        let w = wear.get_ref();
        let strikes = *w.strikes.get_ref();
        if !(1..=8).contains(&strikes) {
            self.err(w.strikes.span(), "`strikes` is 1 to 8");
            return None;
        }
        let states = if w.states.is_empty() {
            (0..=strikes).map(|h| format!("{h} hits")).collect()
        } else {
            if w.states.len() != strikes as usize + 1 {
                self.err(
                    w.states[0].span(),
                    format!("`states` names the {} states from 0 to {strikes} hits", strikes + 1),
                );
            }
            w.states.iter().map(|s| s.get_ref().clone()).collect()
        };
        let mut out = Vec::new();
        for (name, l) in levels.iter() {
            let ls = l.get_ref();
            let mut weights = Vec::new();
            let mut total: u64 = 0;
            for (kind, weight) in ls.weights.iter() {
                match kinds.iter().position(|k| &k.name == kind) {
                    Some(i) => weights.push((KindId(i as u8), *weight.get_ref())),
                    None => {
                        let known = kinds.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ");
                        self.err(weight.span(), format!("level `{name}`: unknown piece kind `{kind}`; known: {known}"));
                    }
                }
                total += *weight.get_ref() as u64;
            }
            if total == 0 || total > u32::MAX as u64 {
                self.err(l.span(), format!("level `{name}`: the weights must add up to 1 .. 2^32-1, not {total}"));
            }
            let layer_piece = ls.layer_piece.as_ref().and_then(|lp| {
                let k = self.kind_list(std::slice::from_ref(&lp.get_ref().kind), kinds).first().copied()?;
                let mut layers = Vec::new();
                for &n in &lp.get_ref().layers {
                    if n == 0 || n >= strikes {
                        self.err(
                            lp.span(),
                            format!(
                                "layer {n}: a piece is left on layers 1 to {} (the last one ends the board)",
                                strikes - 1
                            ),
                        );
                    } else {
                        layers.push(n as u8);
                    }
                }
                Some(LayerPiece { kind: k, layers })
            });
            out.push(Level { name: name.clone(), weights, layer_piece });
        }
        if out.is_empty() {
            self.err(wear.span(), "a solo board needs at least one `[levels.<name>]` to deal from");
        }
        let duel = duel.map(|d| {
            let pace = d.computer_pace.as_ref().map_or(2.0, |p| *p.get_ref());
            if !(0.0..=86_400.0).contains(&pace) {
                let span = d.computer_pace.as_ref().map_or(0..0, |p| p.span());
                self.err(span, format!("`computer_pace` is 0 to 86400 seconds, not {pace}"));
            }
            DuelRules {
                countdown_ms: *d.countdown_seconds.get_ref() as u64 * 1000,
                bonus_per_second: tenths(self, &d.bonus_per_second),
                pause: d.pause,
                elo_k: *d.elo_k.get_ref(),
                elo_start: d.elo_start,
                computer_pace_ms: (pace.clamp(0.0, 86_400.0) * 1000.0).round() as u64,
            }
        });
        let generation = Generation {
            guarantee_forgeable: generation.guarantee_forgeable.unwrap_or(true),
            solver_nodes: generation.solver_nodes.unwrap_or(2_000_000),
            attempts: generation.attempts.unwrap_or(1000).max(1),
        };
        Some(SoloRules { strikes: strikes as u8, states, levels: out, generation, duel })
    }
}
