//! Win conditions as data: the `[[rules.end]]` entries (a piece reaching a region, a
//! side running out of a kind or of all its pieces), `forced_capture` and
//! `giving_check`, checked here and compiled into the rules the core judges every
//! position by (`movegen::ended`). The semantics follow Fairy-Stockfish's
//! `is_immediate_game_end`: a position where a rule holds has no legal move.

use toml::Spanned;

use super::compile::Compiler;
use super::schema::{EndSpec, RulesSpec};
use super::{Kind, Region, Verdict};

/// When an end rule holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndWhen {
    /// A piece of `kinds` (bit per kind) stands on `region` (as its side sees it).
    /// Without `reply` it is judged for the side that just moved; with `reply`, for the
    /// side to move (the opponent has had one reply), and a draw when both stand there
    /// with white to move (black equalised in its reply).
    Reach { kinds: u32, region: usize, reply: bool },
    /// A side has at most `at_most` pieces of one of `kinds` (each kind on its own), or of
    /// all its pieces together (`kinds` = None), hand included, while its opponent has at
    /// least `opponent_at_least` (one more when `claim` and the side out is to move).
    Extinct { kinds: Option<u32>, at_most: u32, opponent_at_least: u32, claim: bool },
    /// A side has given check `count` times (judged for the side that just moved; the
    /// counts are carried in the FEN as the checks each side still needs, `3+3`).
    Checks { count: u8 },
    /// Both sides passed, one after the other (judged for the side that passed last).
    Passes,
    /// The royal pieces face each other on an open file and did before the last action:
    /// the side that just moved left them so (judged for that side).
    Facing,
}

/// `[rules.points]`, compiled: what a side's material counts, for `result = "points"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Points {
    /// Per kind.
    pub values: Vec<f64>,
    /// Per side (white, black).
    pub bonus: [f64; 2],
}

/// One compiled `[[rules.end]]` entry.
#[derive(Debug, Clone)]
pub struct EndRule {
    pub when: EndWhen,
    /// The result for the side concerned (the one that arrived, or that ran out).
    pub verdict: Verdict,
    /// `result = "points"`: the winner is decided by `[rules.points]` (the verdict is
    /// then unused).
    pub by_points: bool,
    /// The outcome's reason (`"reaching_the_goal"`, `"extinction"` or the entry's own).
    pub reason: String,
}

/// The compiled `[rules]` additions: end rules, forced capture, checks that are illegal.
#[derive(Debug, Clone, Default)]
pub struct EndRules {
    pub ends: Vec<EndRule>,
    pub forced_capture: bool,
    pub checks_illegal: bool,
    /// `[rules.points]`.
    pub points: Option<Points>,
}

impl Compiler<'_, '_> {
    pub(super) fn end_rules(
        &mut self,
        spec: &RulesSpec,
        kinds: &[Kind],
        regions: &[Region],
        two_sided: bool,
    ) -> EndRules {
        let mut out = EndRules { forced_capture: spec.forced_capture, ..EndRules::default() };
        out.checks_illegal = match &spec.giving_check {
            None => false,
            Some(g) if g.get_ref() == "allowed" => false,
            Some(g) if g.get_ref() == "illegal" => true,
            Some(g) => {
                self.err(g.span(), format!("`{}`: giving_check is \"illegal\" or \"allowed\"", g.get_ref()));
                false
            }
        };
        if !two_sided && (!spec.end.is_empty() || spec.forced_capture || out.checks_illegal || spec.pass) {
            let span = spec.end.first().map_or(0..0, |e| e.span());
            self.err(span, "`[[rules.end]]`, `forced_capture`, `giving_check` and `pass` are for two-sided boards");
            return EndRules::default();
        }
        for e in &spec.end {
            if let Some(r) = self.end_rule(e, kinds, regions) {
                out.ends.push(r);
            }
        }
        if let Some(p) = &spec.points {
            let mut values = vec![0.0; kinds.len()];
            for (name, v) in p.get_ref().values.iter() {
                match kinds.iter().position(|k| &k.name == name) {
                    Some(i) if v.get_ref().is_finite() => values[i] = *v.get_ref(),
                    Some(_) => self.err(v.span(), format!("`{name}`: points are a finite number")),
                    None => self.err(
                        p.span(),
                        format!(
                            "`[rules.points] values`: unknown piece kind `{name}` (kinds: {})",
                            kinds.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    ),
                }
            }
            let b = &p.get_ref().bonus;
            if !b.white.is_finite() || !b.black.is_finite() {
                self.err(p.span(), "`[rules.points] bonus`: points are a finite number");
            }
            out.points = Some(Points { values, bonus: [b.white, b.black] });
        }
        if out.points.is_none()
            && let Some(e) = spec.end.iter().find(|e| e.get_ref().result.get_ref() == "points")
        {
            self.err(
                e.get_ref().result.span(),
                "result = \"points\" needs `[rules.points]` (what the material counts)",
            );
        }
        out
    }

    fn end_rule(&mut self, e: &Spanned<EndSpec>, kinds: &[Kind], regions: &[Region]) -> Option<EndRule> {
        let s = e.get_ref();
        let mut mask = 0u32;
        let mut ok = true;
        for k in &s.kinds {
            match kinds.iter().position(|x| &x.name == k.get_ref()) {
                Some(i) => mask |= 1 << i,
                None => {
                    self.unknown(k, "piece kind", kinds.iter().map(|x| x.name.as_str()));
                    ok = false;
                }
            }
        }
        let by_points = s.result.get_ref() == "points";
        let verdict = if by_points { Verdict::Draw } else { self.verdict(&s.result) };
        let reason = match &s.reason {
            None => None,
            Some(r) => {
                let t = r.get_ref();
                let fine = !t.is_empty()
                    && t.len() <= 40
                    && t.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
                if !fine {
                    self.err(r.span(), format!("`{t}`: a reason is 1 to 40 lower-case letters, digits and `_`"));
                    ok = false;
                }
                Some(t.clone())
            }
        };
        // A key of the other kind of entry is a mistake, not something to ignore.
        let given = [
            ("kinds", s.kinds.first().map(|k| k.span())),
            ("region", s.region.as_ref().map(|x| x.span())),
            ("reply", s.reply.as_ref().map(|x| x.span())),
            ("at_most", s.at_most.as_ref().map(|x| x.span())),
            ("opponent_at_least", s.opponent_at_least.as_ref().map(|x| x.span())),
            ("claim", s.claim.as_ref().map(|x| x.span())),
            ("count", s.count.as_ref().map(|x| x.span())),
        ];
        let misplaced = |c: &mut Self, when: &str, meant: &[&str]| {
            let mut ok = true;
            for (key, span) in &given {
                if let Some(sp) = span
                    && !meant.contains(key)
                {
                    c.err(sp.clone(), format!("`{key}` means nothing with when = \"{when}\""));
                    ok = false;
                }
            }
            ok
        };
        let when = match s.when.get_ref().as_str() {
            "reach" => {
                ok &= misplaced(self, "reach", &["kinds", "region", "reply"]);
                if s.kinds.is_empty() {
                    self.err(s.when.span(), "when = \"reach\" needs `kinds` (the pieces that must arrive)");
                    ok = false;
                }
                let region = match &s.region {
                    None => {
                        self.err(s.when.span(), "when = \"reach\" needs `region` (where they must arrive)");
                        None
                    }
                    Some(r) => {
                        let i = regions.iter().position(|x| &x.name == r.get_ref());
                        if i.is_none() {
                            self.unknown(r, "region", regions.iter().map(|x| x.name.as_str()));
                        }
                        i
                    }
                };
                let reply = s.reply.as_ref().is_some_and(|r| *r.get_ref());
                EndWhen::Reach { kinds: mask, region: region?, reply }
            }
            "checks" => {
                ok &= misplaced(self, "checks", &["count"]);
                let count = match &s.count {
                    None => {
                        self.err(s.when.span(), "when = \"checks\" needs `count` (the checks that end the game)");
                        return None;
                    }
                    Some(c) if (1..=99).contains(c.get_ref()) => *c.get_ref() as u8,
                    Some(c) => {
                        self.err(
                            c.span(),
                            format!("`count = {}`: the checks that end the game are 1 to 99", c.get_ref()),
                        );
                        return None;
                    }
                };
                if self.counted_checks {
                    self.err(
                        s.when.span(),
                        "one `[[rules.end]]` entry may count checks (the FEN carries one count per side)",
                    );
                    return None;
                }
                self.counted_checks = true;
                EndWhen::Checks { count }
            }
            "extinct" => {
                ok &= misplaced(self, "extinct", &["kinds", "at_most", "opponent_at_least", "claim"]);
                EndWhen::Extinct {
                    kinds: if s.kinds.is_empty() { None } else { Some(mask) },
                    at_most: s.at_most.as_ref().map_or(0, |x| *x.get_ref()),
                    opponent_at_least: s.opponent_at_least.as_ref().map_or(0, |x| *x.get_ref()),
                    claim: s.claim.as_ref().is_some_and(|x| *x.get_ref()),
                }
            }
            w @ ("passes" | "facing") => {
                ok &= misplaced(self, w, &[]);
                if w == "passes" { EndWhen::Passes } else { EndWhen::Facing }
            }
            other => {
                self.err(
                    s.when.span(),
                    format!(
                        "`{other}`: an end's `when` is \"reach\", \"extinct\", \"checks\", \"passes\" or \"facing\""
                    ),
                );
                return None;
            }
        };
        if !ok {
            return None;
        }
        let reason = reason.unwrap_or_else(|| {
            match when {
                EndWhen::Reach { .. } => "reaching_the_goal",
                EndWhen::Extinct { .. } => "extinction",
                EndWhen::Checks { .. } => "checks",
                EndWhen::Passes => "passes",
                EndWhen::Facing => "facing",
            }
            .to_string()
        });
        Some(EndRule { when, verdict, by_points, reason })
    }
}
