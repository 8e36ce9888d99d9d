//! From `variant.toml` text to a [`Variant`]: parse, check every name and number, and
//! collect every problem with its place (not only the first), then build the tables.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;

use toml::Spanned;

use serde::Deserialize;

use super::diagnostics::{Diagnostics, structural_problem, variant_name};
use super::schema::{self, VariantFile, VectorSpec};
use super::source::{self, Override, Sources};
use super::*;
use crate::error::{LoadError, Problem};
use crate::piece::MAX_KINDS;

/// One `variant.toml` of an `extends` chain.
pub(crate) struct Input {
    /// The path shown in messages.
    pub label: String,
    pub text: String,
}

/// Compiles a chain of files (the root ancestor first, the variant itself last) with
/// overrides laid on top. `default_name` (the folder's) names a file without `name`.
pub(crate) fn compile(
    files: Vec<Input>,
    overrides: &[Override],
    dir: Option<PathBuf>,
    default_name: Option<&str>,
) -> Result<Variant, LoadError> {
    let mut sources = Sources::default();
    for f in files {
        sources.add(&f.label, f.text, false);
    }
    let nfiles = sources.len();
    for o in overrides {
        sources.add("--set", o.to_string(), true);
    }
    let mut d = Diagnostics::new(&sources);
    let mut root: Option<Spanned<toml::de::DeTable>> = None;
    for i in 0..nfiles {
        match source::parse(&sources, i) {
            Ok(mut t) => {
                if i + 1 < nfiles {
                    // An ancestor's name is its own, never the child's.
                    t.get_mut().remove("name");
                }
                match &mut root {
                    None => root = Some(t),
                    Some(r) => source::merge(r.get_mut(), t.into_inner()),
                }
            }
            Err(p) => d.problems.push(p),
        }
    }
    let Some(mut root) = root.filter(|_| d.problems.is_empty()) else {
        return Err(d.finish().unwrap_err());
    };
    for i in nfiles..sources.len() {
        if let Err(p) = source::apply_override(&sources, i, root.get_mut()) {
            d.problems.push(p);
        }
    }
    if !d.problems.is_empty() {
        return Err(d.finish().unwrap_err());
    }
    let data = toml::Table::deserialize(toml::de::Deserializer::from(root.clone())).unwrap_or_default();
    // Every unknown key and wrong type at once; with unknown keys only, the file still
    // means something, and its semantic problems are listed with them.
    let structural = super::structure::deserialize::<VariantFile>(&root);
    for (span, message) in &structural.problems {
        structural_problem(&mut d, span.clone(), message);
    }
    d.quiet = structural.lost;
    let Some(spec) = structural.value else {
        return Err(d.finish().unwrap_err());
    };
    // The name, checked: it becomes part of paths (the saved game's folder).
    let default_name = variant_name(&mut d, spec.name.as_ref(), default_name);
    let file = sources.label(nfiles - 1).to_string();
    let solo = spec.turns.model.as_ref().is_some_and(|m| m.get_ref() == "solo");
    let variant = Compiler { d: &mut d, solo, counted_checks: false }.build(spec, default_name, dir);
    d.finish()?;
    let mut variant = variant.ok_or_else(|| unreachable_problem(&file))?;
    variant.data = data;
    Ok(variant)
}

/// The FEN of an empty board of this shape (the placeholder setup of turn models that
/// do not start from a FEN).
fn empty_board_fen(g: Geometry) -> String {
    let rank = g.files.to_string();
    let board = vec![rank; g.ranks as usize].join("/");
    format!("{board} w - - 0 1")
}

fn unreachable_problem(file: &str) -> LoadError {
    LoadError::Invalid {
        problems: vec![Problem {
            file: file.into(),
            line: 0,
            col: 0,
            message: "the variant could not be built".into(),
        }],
    }
}

pub(super) struct Compiler<'d, 'a> {
    d: &'d mut Diagnostics<'a>,
    /// The variant is a solo board (some atoms and letters are allowed only there).
    solo: bool,
    /// An end rule already counts checks.
    pub(super) counted_checks: bool,
}

impl Compiler<'_, '_> {
    pub(super) fn err(&mut self, span: Range<usize>, message: impl Into<String>) {
        self.d.at(span, message);
    }

    /// The offsets a vector set's name or a list of `[dx, dy]` pairs gives (a move's
    /// vectors, a blast's area), or `None` after reporting the first problem at `span`
    /// (`noun` names a pair in the message).
    pub(super) fn offsets(&mut self, v: &VectorSpec, span: Range<usize>, noun: &str) -> Option<Vec<Offset>> {
        match v {
            VectorSpec::Named(n) => {
                let vs = named_vectors(n);
                if vs.is_none() {
                    self.err(span, format!("unknown vector set `{n}`; known: {}", VECTOR_SET_NAMES.join(", ")));
                }
                vs
            }
            VectorSpec::List(list) => {
                let mut out = Vec::with_capacity(list.len());
                for &schema::Pair(dx, dy) in list {
                    if (dx, dy) == (0, 0) || dx.abs() > 15 || dy.abs() > 15 {
                        self.err(span, format!("{noun} [{dx}, {dy}] must be non-zero, each part within -15..15"));
                        return None;
                    }
                    out.push((dx as i8, dy as i8));
                }
                Some(out)
            }
        }
    }

    /// Builds the variant; returns `None` when a problem makes that impossible (the
    /// problems are in the diagnostics).
    fn build(&mut self, spec: VariantFile, name: String, dir: Option<PathBuf>) -> Option<Variant> {
        let geometry = match Geometry::new(*spec.board.files.get_ref(), *spec.board.ranks.get_ref()) {
            Ok(g) => g,
            Err(e) => {
                self.err(spec.board.files.span(), e.to_string());
                return None;
            }
        };

        let regions = self.regions(&spec.regions, geometry);
        let region_index = |name: &str| regions.iter().position(|r: &Region| r.name == name);

        // Kinds first (names and letters), then their atoms, which may name other kinds.
        let names: Vec<&String> = spec.pieces.keys().collect();
        if names.len() > MAX_KINDS {
            self.err(0..0, format!("at most {MAX_KINDS} piece kinds are supported, not {}", names.len()));
            return None;
        }
        if names.is_empty() {
            self.err(0..0, "`[pieces]` declares no piece kind");
            return None;
        }
        let kind_index = |name: &str| names.iter().position(|n| n.as_str() == name).map(|i| KindId(i as u8));
        let mut letters: BTreeMap<char, String> = BTreeMap::new();
        let mut kinds = Vec::new();
        for (name, piece) in spec.pieces.iter() {
            let p = piece.get_ref();
            let letter = self.letter(&p.letter, name, &mut letters);
            let confined = p.confined.as_ref().and_then(|r| {
                if self.solo {
                    self.err(r.span(), "`confined` is for two-sided boards: a solo board's targets ignore it");
                    return None;
                }
                let i = region_index(r.get_ref());
                if i.is_none() {
                    self.unknown(r, "region", regions.iter().map(|r| r.name.as_str()));
                }
                i
            });
            let mut atoms = Vec::new();
            for m in &p.moves {
                if let Some(mut a) = self.atom(m, &kind_index, &region_index) {
                    a.within = confined;
                    atoms.push(a);
                }
            }
            let promotion = p.promotion.as_ref().and_then(|pr| {
                let zone = region_index(pr.zone.get_ref());
                if zone.is_none() {
                    self.unknown(&pr.zone, "region", regions.iter().map(|r| r.name.as_str()));
                }
                let mut to = Vec::new();
                for t in &pr.to {
                    match kind_index(t.get_ref()) {
                        Some(k) => to.push(k),
                        None => self.unknown(t, "piece kind", names.iter().map(|s| s.as_str())),
                    }
                }
                let (from_graveyard, missing_only) = match pr.source.as_ref().map(|s| (s.get_ref().as_str(), s.span()))
                {
                    None | Some(("list", _)) => (false, false),
                    Some(("graveyard", _)) => (true, false),
                    Some(("missing", _)) => (false, true),
                    Some((other, sp)) => {
                        self.err(
                            sp,
                            format!(
                                "unknown promotion source `{other}`; expected \"list\", \"missing\" or \"graveyard\""
                            ),
                        );
                        (false, false)
                    }
                };
                let mut when_full = Vec::new();
                for t in &pr.when_full {
                    match kind_index(t.get_ref()) {
                        Some(k) => when_full.push(k),
                        None => self.unknown(t, "piece kind", names.iter().map(|s| s.as_str())),
                    }
                }
                if pr.to.is_empty() && !from_graveyard {
                    self.err(pr.zone.span(), "a promotion needs at least one kind in `to` (or source = \"graveyard\")");
                }
                let when_empty = match pr.when_empty.as_ref().map(|s| (s.get_ref().as_str(), s.span())) {
                    None | Some(("stay", _)) => WhenEmpty::Stay,
                    Some(("freeze", _)) => WhenEmpty::Freeze,
                    Some(("forbid", _)) => WhenEmpty::Forbid,
                    Some((other, sp)) => {
                        self.err(
                            sp,
                            format!("unknown `when_empty` `{other}`; expected \"freeze\", \"stay\" or \"forbid\""),
                        );
                        WhenEmpty::Stay
                    }
                };
                let forced = match &pr.forced {
                    None => None,
                    Some(f) if !pr.optional => {
                        self.err(f.span(), "`forced` is for an optional promotion: set `optional = true` too");
                        None
                    }
                    Some(f) => match region_index(f.get_ref()) {
                        None => {
                            self.unknown(f, "region", regions.iter().map(|r| r.name.as_str()));
                            None
                        }
                        Some(i) => {
                            // Every forced square must be one where the piece promotes.
                            let outside = zone.is_some_and(|z| {
                                (0..2).any(|s| regions[i].squares[s].iter().any(|q| !regions[z].squares[s].contains(q)))
                            });
                            if outside {
                                self.err(
                                    f.span(),
                                    format!(
                                        "the forced region `{}` has squares outside the zone `{}`",
                                        f.get_ref(),
                                        pr.zone.get_ref()
                                    ),
                                );
                            }
                            Some(i)
                        }
                    },
                };
                if pr.optional && when_empty == WhenEmpty::Freeze {
                    let at = pr.when_empty.as_ref().map_or(pr.zone.span(), |w| w.span());
                    self.err(at, "an optional promotion cannot freeze: set `when_empty` to \"stay\" or \"forbid\"");
                }
                Some(Promotion {
                    zone: zone?,
                    to,
                    from_graveyard,
                    missing_only,
                    when_full,
                    when_empty,
                    returned_waits: pr.returned_waits,
                    optional: pr.optional,
                    forced: if pr.optional { forced } else { zone },
                    leaving: pr.leaving,
                })
            });
            kinds.push(Kind {
                name: name.clone(),
                letter,
                royal: p.royal,
                value: p.value,
                progress: p.progress,
                atoms,
                promotion,
                stats: Stats::default(),
                fen_plus: None,
            });
        }
        // `fen = "+P"`: `+` and the letter of another kind, one kind per spelling.
        for (i, (_, piece)) in spec.pieces.iter().enumerate() {
            let Some(f) = &piece.get_ref().fen else { continue };
            let mut cs = f.get_ref().chars();
            let l = match (cs.next(), cs.next(), cs.next()) {
                (Some('+'), Some(c), None) if c.is_ascii_alphabetic() => c.to_ascii_uppercase(),
                _ => {
                    self.err(f.span(), format!("`fen = \"{}\"`: write `+` and a letter, like \"+P\"", f.get_ref()));
                    continue;
                }
            };
            if !kinds.iter().enumerate().any(|(j, k)| j != i && k.letter == l) {
                self.err(f.span(), format!("`fen = \"+{l}\"`: `{l}` is the letter of no other kind"));
            } else if kinds.iter().any(|k| k.fen_plus == Some(l)) {
                self.err(f.span(), format!("two kinds are written `+{l}` in FEN"));
            } else {
                kinds[i].fen_plus = Some(l);
            }
        }

        let castling = self.castling(&spec.castling, geometry);
        let rules = CoreRules {
            check: spec.rules.check,
            royals_facing: RoyalsFacing::Allowed,
            pass: spec.rules.pass,
            checkmate: self.verdict(&spec.rules.checkmate),
            stalemate: self.verdict(&spec.rules.stalemate),
            royal_lost: match &spec.rules.royal_lost {
                None => false,
                Some(r) if r.get_ref() == "loss" => true,
                Some(r) => {
                    self.err(r.span(), format!("`{}`: royal_lost is \"loss\" (or leave it out)", r.get_ref()));
                    false
                }
            },
            end: Default::default(),
            explosion: None,
        };
        let royals_facing = match &spec.rules.royals_facing {
            None => RoyalsFacing::Allowed,
            Some(r) if r.get_ref() == "allowed" => RoyalsFacing::Allowed,
            Some(r) if r.get_ref() == "illegal" => RoyalsFacing::Illegal,
            Some(r) if r.get_ref() == "break" => RoyalsFacing::Break,
            Some(r) => {
                self.err(
                    r.span(),
                    format!("`{}`: royals_facing is \"illegal\", \"break\" or \"allowed\"", r.get_ref()),
                );
                RoyalsFacing::Allowed
            }
        };
        let rules = CoreRules { royals_facing, ..rules };
        let two_sided = spec.turns.model.as_ref().is_none_or(|m| m.get_ref() == "alternate");
        let rules = CoreRules { end: self.end_rules(&spec.rules, &kinds, &regions, two_sided), ..rules };
        let rules = CoreRules { explosion: self.explosion(&spec, &kinds, two_sided), ..rules };
        let combat = self.combat(&spec, &mut kinds, &kind_index);
        let clock = spec.clock.as_ref().map(|c| ClockRule {
            limit_ms: c.limit_minutes as u64 * 60_000,
            winner: match c.result.get_ref().as_str() {
                "draw" => None,
                other => match Side::parse(other) {
                    Some(s) => Some(s),
                    None => {
                        self.err(
                            c.result.span(),
                            format!("`{other}`: the clock's result is \"draw\", \"white\" or \"black\""),
                        );
                        None
                    }
                },
            },
        });
        let draws = self.draws(&spec.draws, &kinds, spec.rules.check);
        let turns = match spec.turns.model.as_ref().map(|m| (m.get_ref().as_str(), m.span())) {
            None | Some(("alternate", _)) => Some(TurnModel::Alternate),
            Some(("solo", _)) => Some(TurnModel::Solo),
            Some(("simultaneous", _)) => Some(TurnModel::Simultaneous),
            Some((other, sp)) => {
                self.err(
                    sp,
                    format!("unknown turn model `{other}`; expected \"alternate\", \"solo\" or \"simultaneous\""),
                );
                None
            }
        };
        let solo = turns
            .and_then(|t| self.solo(t, spec.wear.as_ref(), &spec.levels, &spec.generation, spec.duel.as_ref(), &kinds));
        let scoring = spec.scoring.as_ref().map(|s| self.scoring(s, &kinds));
        // Two sides alternating start from a FEN; the other models build their own state.
        let setup_fen = match (&spec.setup, turns) {
            (Some(s), _) => Some(s.get_ref().fen.clone()),
            (None, Some(TurnModel::Alternate)) => {
                self.err(0..0, "`[setup]` with a `fen` is required (two sides alternating start from a position)");
                None
            }
            (None, _) => None,
        };

        let deal =
            spec.setup.as_ref().and_then(|s| s.get_ref().deal.as_ref()).and_then(|d| self.deal(d, geometry, &names));
        let tile = (geometry.files as i32, geometry.ranks as i32);
        let (reserve, world) = super::world_rules::compile(&spec, turns, &kinds, &regions, tile, self.d);
        let variant = Variant {
            name,
            title: spec.title.unwrap_or_default(),
            summary: spec.summary.unwrap_or_default(),
            turns: turns.unwrap_or(TurnModel::Alternate),
            dir,
            builtin: None,
            geometry,
            kinds,
            regions,
            castling,
            rules,
            draws,
            setup: setup_fen.as_ref().map_or_else(|| empty_board_fen(geometry), |f| f.get_ref().clone()),
            deal,
            scripts: Vec::new(),
            sources: Vec::new(),
            hooks: None,
            combat,
            clock,
            solo,
            scoring,
            reserve,
            world,
            scripting: ScriptLimits {
                memory_limit_mb: *spec.scripting.memory_limit_mb.get_ref(),
                instruction_limit: *spec.scripting.instruction_limit.get_ref(),
                time_limit_ms: *spec.scripting.time_limit_ms.get_ref(),
            },
            data: toml::Table::new(),
            tables: AnyTables::Narrow(std::sync::Arc::new(Tables::<u64>::empty())),
        };
        if !self.d.problems.is_empty() {
            return None;
        }
        let mut variant = variant;
        // The setup first (it names the kinds that castle), then the tables. The kinds
        // come from the board alone, as free castling reads them to parse the rights.
        let board = variant.setup.split_whitespace().next().unwrap_or("");
        if let Ok((pieces, _)) = crate::notation::fen::parse_board(&variant, board.split('[').next().unwrap_or("")) {
            let kind_on = |sq: Square| pieces.iter().find(|&&(s, _)| s == sq).map(|&(_, p)| p.kind);
            for c in variant.castling.iter_mut() {
                c.king_kind = kind_on(c.king);
                c.rook_kind = kind_on(c.free.unwrap_or(c.rook));
            }
        }
        if let Err(e) = crate::notation::fen::parse(&variant, &variant.setup) {
            let span = setup_fen.as_ref().map_or(0..0, |f| f.span());
            self.err(span, format!("the setup FEN is invalid: {e}"));
            return None;
        }
        variant.tables = crate::movegen::tables::build_any(&variant);
        Some(variant)
    }

    pub(super) fn unknown<'n>(&mut self, name: &Spanned<String>, what: &str, known: impl Iterator<Item = &'n str>) {
        let known: Vec<&str> = known.collect();
        let mut msg = format!("unknown {what} `{}`", name.get_ref());
        msg.push_str(&crate::suggest::did_you_mean(name.get_ref(), known.iter().copied()));
        if known.is_empty() {
            msg.push_str(&format!("; no {what} is declared"));
        } else {
            msg.push_str(&format!("; known: {}", known.join(", ")));
        }
        self.err(name.span(), msg);
    }

    fn letter(&mut self, letter: &Spanned<String>, kind: &str, seen: &mut BTreeMap<char, String>) -> char {
        let mut chars = letter.get_ref().chars();
        let c = match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => c.to_ascii_uppercase(),
            // Solo boards have no FEN, whose digits count empty squares: digits are free.
            (Some(c), None) if self.solo && c.is_ascii_digit() => c,
            _ => {
                let what = if self.solo { "one ASCII letter or digit" } else { "one ASCII letter" };
                self.err(letter.span(), format!("`{}` is not a letter: a piece letter is {what}", letter.get_ref()));
                return '?';
            }
        };
        if let Some(other) = seen.get(&c) {
            self.err(letter.span(), format!("pieces `{other}` and `{kind}` share the letter {c}"));
        } else {
            seen.insert(c, kind.to_string());
        }
        c
    }

    pub(super) fn verdict(&mut self, s: &Spanned<String>) -> Verdict {
        match s.get_ref().as_str() {
            "loss" => Verdict::Loss,
            "draw" => Verdict::Draw,
            "win" => Verdict::Win,
            other => {
                self.err(s.span(), format!("`{other}` is not a result; expected \"loss\", \"draw\" or \"win\""));
                Verdict::Draw
            }
        }
    }

    fn square(&mut self, g: Geometry, name: &Spanned<String>) -> Option<Square> {
        match g.parse(name.get_ref()) {
            Ok(s) => Some(s),
            Err(e) => {
                self.err(name.span(), e.to_string());
                None
            }
        }
    }

    fn regions(&mut self, specs: &schema::Ordered<Spanned<schema::RegionSpec>>, g: Geometry) -> Vec<Region> {
        let mut out = Vec::new();
        for (name, spec) in specs.iter() {
            let r = spec.get_ref();
            let mut white = Vec::new();
            for &rank in &r.ranks {
                let idx = if rank > 0 { rank - 1 } else { g.ranks as i32 + rank };
                if rank == 0 || idx < 0 || idx >= g.ranks as i32 {
                    self.err(
                        spec.span(),
                        format!("region `{name}`: rank {rank} is not on a board of {} ranks", g.ranks),
                    );
                    continue;
                }
                white.extend((0..g.files as i32).filter_map(|f| g.at(f, idx)));
            }
            for file in &r.files {
                let f = file.get_ref().to_ascii_lowercase();
                match f.as_bytes() {
                    [c] if c.is_ascii_lowercase() && (c - b'a') < g.files => {
                        white.extend((0..g.ranks as i32).filter_map(|rk| g.at((c - b'a') as i32, rk)))
                    }
                    _ => self.err(
                        file.span(),
                        format!("`{}` is not a file of a board with {} files", file.get_ref(), g.files),
                    ),
                }
            }
            for sq in &r.squares {
                if let Some(s) = self.square(g, sq) {
                    white.push(s);
                }
            }
            white.sort();
            white.dedup();
            if white.is_empty() {
                self.err(spec.span(), format!("region `{name}` has no squares"));
            }
            let black = if r.relative {
                let mut b: Vec<Square> = white.iter().map(|&s| g.mirror(s)).collect();
                b.sort();
                b
            } else {
                white.clone()
            };
            out.push(Region { name: name.clone(), squares: [white, black] });
        }
        out
    }

    fn atom(
        &mut self,
        m: &Spanned<schema::MoveSpec>,
        kind_index: &dyn Fn(&str) -> Option<KindId>,
        region_index: &dyn Fn(&str) -> Option<usize>,
    ) -> Option<Atom> {
        let span = m.span();
        let s = m.get_ref();
        let shapes =
            [(Shape::Leap, &s.leap), (Shape::Slide, &s.slide), (Shape::Farthest, &s.farthest), (Shape::Hop, &s.hop)];
        let given: Vec<_> = shapes.iter().filter(|(_, v)| v.is_some()).collect();
        if given.len() + s.anywhere as usize != 1 {
            self.err(span, "a movement atom needs exactly one of `leap`, `slide`, `farthest`, `hop` or `anywhere`");
            return None;
        }
        if s.anywhere {
            if !self.solo {
                self.err(span, "`anywhere` reaches every square: only solo boards (turns.model = \"solo\") use it");
                return None;
            }
            return Some(Atom {
                shape: Shape::Anywhere,
                vectors: Vec::new(),
                range: 0,
                mode: Mode::Both,
                ranged: false,
                from: None,
                creates_en_passant: false,
                captures_en_passant: false,
                silenced_by_adjacent_enemy: false,
                cannot_capture: 0,
                blockable: false,
                cannot_hop: 0,
                within: None,
                to: None,
            });
        }
        let (shape, vectors) = (given[0].0, given[0].1.as_ref().unwrap());
        // The solo engine reads only leaps, slides and farthest squares over its wear.
        if self.solo && (shape == Shape::Hop || s.blockable) {
            self.err(span.clone(), "`hop` and `blockable` are for two-sided boards: a solo board has no screens");
            return None;
        }
        if self.solo && s.to.is_some() {
            self.err(span.clone(), "`to` is for two-sided boards: a solo board's targets ignore it");
            return None;
        }
        if s.blockable && shape != Shape::Leap {
            self.err(span.clone(), "`blockable` applies to a `leap` (a slide is always blocked)");
            return None;
        }
        if !s.cannot_hop.is_empty() && shape != Shape::Hop {
            self.err(span.clone(), "`cannot_hop` names the kinds a `hop` may not jump over");
            return None;
        }
        let symmetry = s.symmetry.as_ref().map(|x| x.get_ref().as_str()).unwrap_or("none");
        let mut vs = self.offsets(vectors, span.clone(), "vector")?;
        vs = match symmetry {
            "none" => vs,
            "mirror" => vs.iter().flat_map(|&(x, y)| [(x, y), (-x, y)]).collect(),
            "all" => vs
                .iter()
                .flat_map(|&(x, y)| [(x, y), (-x, y), (x, -y), (-x, -y), (y, x), (-y, x), (y, -x), (-y, -x)])
                .collect(),
            other => {
                let sp = s.symmetry.as_ref().unwrap().span();
                self.err(sp, format!("unknown symmetry `{other}`; expected \"none\", \"mirror\" or \"all\""));
                return None;
            }
        };
        if let Some(dist) = &s.distance {
            let n = *dist.get_ref();
            if shape != Shape::Leap || n == 0 || n > 15 {
                self.err(dist.span(), "`distance` (1 to 15) scales the vectors of a `leap`");
                return None;
            }
            let mut scaled = Vec::new();
            for &(x, y) in &vs {
                let (sx, sy) = (x as i32 * n as i32, y as i32 * n as i32);
                if sx.abs() > 15 || sy.abs() > 15 {
                    self.err(dist.span(), format!("vector [{x}, {y}] × {n} leaves every board"));
                    return None;
                }
                scaled.push((sx as i8, sy as i8));
            }
            vs = scaled;
        }
        let mut seen = std::collections::HashSet::new();
        vs.retain(|v| seen.insert(*v));

        let range = match &s.range {
            None => 0,
            Some(r) if shape == Shape::Slide && (1..=15).contains(r.get_ref()) => *r.get_ref() as u8,
            Some(r) => {
                self.err(r.span(), "`range` (1 to 15) limits the steps of a `slide`");
                0
            }
        };
        let mode = match s.mode.as_ref().map(|m| (m.get_ref().as_str(), m.span())) {
            None | Some(("both", _)) => Mode::Both,
            Some(("move", _)) => Mode::Move,
            Some(("capture", _)) => Mode::Capture,
            Some((other, sp)) => {
                self.err(sp, format!("unknown mode `{other}`; expected \"both\", \"move\" or \"capture\""));
                Mode::Both
            }
        };
        let ranged = match s.capture.as_ref().map(|m| (m.get_ref().as_str(), m.span())) {
            None | Some(("replace", _)) => false,
            Some(("ranged", _)) => true,
            Some((other, sp)) => {
                self.err(sp, format!("unknown capture style `{other}`; expected \"replace\" or \"ranged\""));
                false
            }
        };
        let (mut creates, mut captures) = (false, false);
        if let Some(ep) = &s.en_passant {
            match ep.get_ref().as_str() {
                "creates" if mode == Mode::Move && matches!(shape, Shape::Leap | Shape::Slide) => creates = true,
                "creates" => {
                    self.err(ep.span(), "en_passant = \"creates\" needs a `slide` or `leap` with mode = \"move\"")
                }
                "captures" if mode != Mode::Move && !ranged => captures = true,
                "captures" => {
                    self.err(ep.span(), "en_passant = \"captures\" needs an atom that captures by replacement")
                }
                other => {
                    self.err(ep.span(), format!("unknown en_passant `{other}`; expected \"creates\" or \"captures\""))
                }
            }
        }
        let region = |c: &mut Self, r: &schema::Name| {
            let i = region_index(r.get_ref());
            if i.is_none() {
                c.err(r.span(), format!("unknown region `{}`", r.get_ref()));
            }
            i
        };
        let to = s.to.as_ref().and_then(|r| region(self, r));
        // `to` alone: the move starts in the region too (a line drawn inside it).
        let from = match &s.from {
            Some(r) => region(self, r),
            None => to,
        };
        let mut cannot_capture = 0u32;
        for k in &s.cannot_capture {
            match kind_index(k.get_ref()) {
                Some(id) => cannot_capture |= 1 << id.0,
                None => self.err(k.span(), format!("unknown piece kind `{}`", k.get_ref())),
            }
        }
        let mut cannot_hop = 0u32;
        for k in &s.cannot_hop {
            match kind_index(k.get_ref()) {
                Some(id) => cannot_hop |= 1 << id.0,
                None => self.err(k.span(), format!("unknown piece kind `{}`", k.get_ref())),
            }
        }
        Some(Atom {
            shape,
            vectors: vs,
            range,
            mode,
            ranged,
            from,
            creates_en_passant: creates,
            captures_en_passant: captures,
            silenced_by_adjacent_enemy: s.silenced_by_adjacent_enemy,
            cannot_capture,
            blockable: s.blockable,
            cannot_hop,
            within: None,
            to,
        })
    }

    /// `[combat]`, `[shapes]`, `[auras]` and the kinds' combat numbers.
    fn combat(
        &mut self,
        spec: &VariantFile,
        kinds: &mut [Kind],
        kind_index: &dyn Fn(&str) -> Option<KindId>,
    ) -> Option<Combat> {
        let mut shapes = Vec::new();
        for (name, sh) in spec.shapes.iter() {
            let s = sh.get_ref();
            let mut offsets = |list: &[Spanned<schema::Pair>]| {
                let mut out = Vec::new();
                for p in list {
                    let schema::Pair(x, y) = *p.get_ref();
                    if x.abs() > 15 || y.abs() > 15 {
                        self.err(p.span(), format!("shape `{name}`: offset [{x}, {y}] must be within -15..15"));
                    } else {
                        out.push((x as i8, y as i8));
                    }
                }
                out
            };
            let (any, orthogonal, diagonal) = (offsets(&s.any), offsets(&s.orthogonal), offsets(&s.diagonal));
            if s.any.is_empty() && s.orthogonal.is_empty() && s.diagonal.is_empty() {
                self.err(
                    sh.span(),
                    format!("shape `{name}` has no squares (give `any`, `orthogonal` or `diagonal` offsets)"),
                );
            }
            shapes.push(AreaShape { name: name.clone(), any, orthogonal, diagonal });
        }
        let Some(c) = &spec.combat else {
            for (name, piece) in spec.pieces.iter() {
                let p = piece.get_ref();
                if p.hp.is_some() || p.damage.is_some() || p.aoe.is_some() || p.counter.is_some() {
                    self.err(piece.span(), format!("piece `{name}` has combat numbers (hp, damage, aoe, counter) but there is no [combat] table"));
                }
            }
            return None;
        };
        let cs = c.get_ref();
        for (i, (name, piece)) in spec.pieces.iter().enumerate() {
            let p = piece.get_ref();
            let Some(hp) = &p.hp else {
                self.err(
                    piece.span(),
                    format!("piece `{name}` needs `hp` (with [combat], every piece has hit points)"),
                );
                continue;
            };
            if *hp.get_ref() == 0 || *hp.get_ref() > 255 {
                self.err(hp.span(), "`hp` is 1 to 255");
            }
            let aoe_shape = p.aoe_shape.as_ref().and_then(|n| {
                let i = shapes.iter().position(|s| s.name == *n.get_ref());
                if i.is_none() {
                    self.unknown(n, "shape", shapes.iter().map(|s| s.name.as_str()));
                }
                i
            });
            if p.aoe.unwrap_or(0) > 0 && aoe_shape.is_none() && p.aoe_shape.is_none() {
                self.err(piece.span(), format!("piece `{name}` has `aoe` damage but no `aoe_shape`"));
            }
            kinds[i].stats = Stats {
                hp: (*hp.get_ref()).clamp(1, 255) as u8,
                damage: p.damage.unwrap_or(0) as i64,
                aoe: p.aoe.unwrap_or(0) as i64,
                aoe_shape,
                counter: p.counter.unwrap_or(0) as i64,
            };
        }
        let all = [Stage::Primary, Stage::Aoe, Stage::Counter, Stage::Cleanup, Stage::Landing];
        let stages = match &cs.stages {
            None => all.to_vec(),
            Some(list) => {
                let mut out = Vec::new();
                for n in list {
                    let st = match n.get_ref().as_str() {
                        "primary" => Stage::Primary,
                        "aoe" => Stage::Aoe,
                        "counter" => Stage::Counter,
                        "cleanup" => Stage::Cleanup,
                        "landing" => Stage::Landing,
                        other => {
                            self.err(
                                n.span(),
                                format!(
                                    "unknown stage `{other}`; the stages are primary, aoe, counter, cleanup, landing"
                                ),
                            );
                            continue;
                        }
                    };
                    if out.contains(&st) {
                        self.err(n.span(), format!("stage `{}` is listed twice", n.get_ref()));
                    }
                    out.push(st);
                }
                if out.len() != all.len() && self.d.problems.is_empty() {
                    self.err(c.span(), "`stages` must list primary, aoe, counter, cleanup and landing, each once, in the order they run");
                }
                out
            }
        };
        let en_passant_damage = match &cs.en_passant_damage {
            None => None,
            Some(toml::Value::String(s)) if s == "attack" => None,
            Some(toml::Value::Integer(n)) if *n >= 0 => Some(*n),
            Some(_) => {
                self.err(c.span(), "`en_passant_damage` is \"attack\" or a whole number");
                None
            }
        };
        let (mut multiply, mut divide) = (None, None);
        for (name, a) in spec.auras.iter() {
            let s = a.get_ref();
            let Some(source) = kind_index(s.source.get_ref()) else {
                self.unknown(&s.source, "piece kind", kinds.iter().map(|k| k.name.as_str()));
                continue;
            };
            let radius = s.radius.clamp(1, 15) as u8;
            match s.effect.get_ref().as_str() {
                "multiply" => {
                    if multiply.is_some() {
                        self.err(a.span(), format!("aura `{name}`: only one `multiply` aura is supported"));
                    }
                    let spend = match s.model.as_ref().map(|m| (m.get_ref().as_str(), m.span())) {
                        None | Some(("spend_until_reenter", _)) => true,
                        Some(("geometric", _)) => false,
                        Some((other, sp)) => {
                            self.err(
                                sp,
                                format!("unknown model `{other}`; expected \"spend_until_reenter\" or \"geometric\""),
                            );
                            true
                        }
                    };
                    multiply = Some(MultiplyAura {
                        source,
                        radius,
                        base: s.base.unwrap_or(2) as i64,
                        max_stacks: s.max_stacks.unwrap_or(3),
                        includes_source: s.includes_source,
                        spend,
                    });
                }
                "divide" => {
                    if divide.is_some() {
                        self.err(a.span(), format!("aura `{name}`: only one `divide` aura is supported"));
                    }
                    let mut applies = 0u8;
                    match &s.applies_to {
                        None => applies = 0b1111,
                        Some(list) => {
                            for n in list {
                                match n.get_ref().as_str() {
                                    "primary" => applies |= 1 << Cause::Primary as u8,
                                    "aoe" => applies |= 1 << Cause::Aoe as u8,
                                    "counter" => applies |= 1 << Cause::Counter as u8,
                                    "en_passant" => applies |= 1 << Cause::EnPassant as u8,
                                    other => self.err(
                                        n.span(),
                                        format!(
                                            "unknown damage `{other}`; expected primary, aoe, counter or en_passant"
                                        ),
                                    ),
                                }
                            }
                        }
                    }
                    if s.divisor.unwrap_or(2) == 0 {
                        self.err(a.span(), "`divisor` must be at least 1");
                    }
                    divide = Some(DivideAura {
                        source,
                        radius,
                        divisor: s.divisor.unwrap_or(2).max(1) as i64,
                        includes_source: s.includes_source,
                        persist_plies: s.persist_plies.unwrap_or(0).min(255) as u8,
                        applies,
                    });
                }
                other => self.err(
                    s.effect.span(),
                    format!("unknown aura effect `{other}`; expected \"multiply\" or \"divide\""),
                ),
            }
        }
        Some(Combat {
            stages,
            aoe_on_quiet_move: cs.aoe_on_quiet_move,
            friendly_fire: cs.friendly_fire,
            en_passant_damage,
            damage_is_progress: cs.damage_is_progress,
            shapes,
            multiply,
            divide,
        })
    }

    fn castling(&mut self, specs: &[Spanned<schema::CastlingSpec>], g: Geometry) -> Vec<Castling> {
        let mut out = Vec::new();
        for spec in specs {
            let c = spec.get_ref();
            let sq = |this: &mut Self, n: &Spanned<String>| this.square(g, n);
            let (Some(king), Some(rook), Some(king_to), Some(rook_to)) =
                (sq(self, &c.king), sq(self, &c.rook), sq(self, &c.king_to), sq(self, &c.rook_to))
            else {
                continue;
            };
            let right = match c.right.get_ref().chars().collect::<Vec<_>>()[..] {
                [l] if l.is_ascii_alphabetic() => l.to_ascii_uppercase(),
                _ => {
                    self.err(c.right.span(), "a castling right is one letter, as in FEN (K, Q, or a file letter)");
                    continue;
                }
            };
            if let Some(free) = c.free.as_ref().filter(|f| *f.get_ref()) {
                let rank = g.rank(king);
                if [rook, king_to, rook_to].iter().any(|&s| g.rank(s) != rank) || rook == king {
                    self.err(free.span(), "a free castling's king, rook, king_to and rook_to stand on one rank");
                    continue;
                }
                if c.empty.is_some() || c.safe.is_some() || c.also_to.is_some() {
                    self.err(
                        free.span(),
                        "a free castling's `empty` and `safe` squares follow from where the king and rook stand: leave out `empty`, `safe` and `also_to`",
                    );
                    continue;
                }
                // One entry per square the rook may start on: any file with room for the
                // king on its inner side.
                let outward = g.file(rook) > g.file(king);
                for f in 0..g.files {
                    if (outward && f == 0) || (!outward && f + 1 == g.files) {
                        continue;
                    }
                    let white = Castling {
                        side: Side::White,
                        right,
                        king,
                        rook: g.at(f as i32, rank as i32).unwrap_or(rook),
                        king_to,
                        rook_to,
                        empty: Vec::new(),
                        safe: Vec::new(),
                        also_to: Vec::new(),
                        king_kind: None,
                        rook_kind: None,
                        free: Some(rook),
                    };
                    match c.side.as_ref().map(|s| s.get_ref().as_str()) {
                        None | Some("both") => {
                            let black = Castling {
                                side: Side::Black,
                                right: right.to_ascii_lowercase(),
                                king: g.mirror(king),
                                rook: g.mirror(white.rook),
                                king_to: g.mirror(king_to),
                                rook_to: g.mirror(rook_to),
                                free: Some(g.mirror(rook)),
                                ..white.clone()
                            };
                            out.push(white);
                            out.push(black);
                        }
                        Some("white") => out.push(white),
                        Some("black") => {
                            out.push(Castling { side: Side::Black, right: right.to_ascii_lowercase(), ..white })
                        }
                        Some(other) => {
                            let sp = c.side.as_ref().map_or(0..0, |s| s.span());
                            self.err(sp, format!("unknown side `{other}`; expected \"both\", \"white\" or \"black\""));
                            break;
                        }
                    }
                }
                continue;
            }
            let line = |a: Square, b: Square| -> Option<Vec<Square>> {
                // Squares from a (exclusive) to b (inclusive) on a straight line.
                let (df, dr) = (g.file(b) as i32 - g.file(a) as i32, g.rank(b) as i32 - g.rank(a) as i32);
                if df != 0 && dr != 0 && df.abs() != dr.abs() {
                    return None;
                }
                let step = (df.signum() as i8, dr.signum() as i8);
                let mut v = Vec::new();
                let mut s = a;
                while s != b {
                    s = g.offset(s, step)?;
                    v.push(s);
                }
                Some(v)
            };
            let empty = match &c.empty {
                Some(list) => list.iter().filter_map(|n| self.square(g, n)).collect(),
                None => match (line(king, king_to), line(rook, rook_to)) {
                    (Some(a), Some(b)) => {
                        let mut v: Vec<Square> = a.into_iter().chain(b).filter(|&s| s != king && s != rook).collect();
                        v.sort();
                        v.dedup();
                        v
                    }
                    _ => {
                        self.err(
                            spec.span(),
                            "the king or rook does not move in a straight line: list `empty` squares",
                        );
                        continue;
                    }
                },
            };
            let safe = match &c.safe {
                Some(list) => list.iter().filter_map(|n| self.square(g, n)).collect(),
                None => match line(king, king_to) {
                    Some(v) => std::iter::once(king).chain(v).collect(),
                    None => {
                        self.err(spec.span(), "the king does not move in a straight line: list `safe` squares");
                        continue;
                    }
                },
            };
            let also_to: Vec<Square> = c.also_to.iter().flatten().filter_map(|n| self.square(g, n)).collect();
            let white = Castling {
                side: Side::White,
                right,
                king,
                rook,
                king_to,
                rook_to,
                empty,
                safe,
                also_to,
                king_kind: None,
                rook_kind: None,
                free: None,
            };
            let mirror = |c: &Castling| Castling {
                side: Side::Black,
                right: c.right.to_ascii_lowercase(),
                king: g.mirror(c.king),
                rook: g.mirror(c.rook),
                king_to: g.mirror(c.king_to),
                rook_to: g.mirror(c.rook_to),
                empty: c.empty.iter().map(|&s| g.mirror(s)).collect(),
                safe: c.safe.iter().map(|&s| g.mirror(s)).collect(),
                also_to: c.also_to.iter().map(|&s| g.mirror(s)).collect(),
                king_kind: None,
                rook_kind: None,
                free: None,
            };
            match c.side.as_ref().map(|s| (s.get_ref().as_str(), s.span())) {
                None | Some(("both", _)) => {
                    let black = mirror(&white);
                    out.push(white);
                    out.push(black);
                }
                Some(("white", _)) => out.push(white),
                Some(("black", _)) => {
                    // Squares given for black are black's own: keep them, lower-case the right.
                    let mut b = white;
                    b.side = Side::Black;
                    b.right = b.right.to_ascii_lowercase();
                    out.push(b);
                }
                Some((other, sp)) => {
                    self.err(sp, format!("unknown side `{other}`; expected \"both\", \"white\" or \"black\""))
                }
            }
        }
        // FEN lists white's rights first (KQkq).
        out.sort_by_key(|c| c.side);
        if out.len() > 32 {
            self.err(0..0, "at most 32 castling moves are supported");
        }
        out
    }

    /// `[setup] deal`: the steps must fill the rank, coloured steps first (so each step's
    /// number of choices is the same whatever the earlier ones chose).
    fn deal(&mut self, spec: &Spanned<schema::DealSpec>, g: Geometry, names: &[&String]) -> Option<Deal> {
        let d = spec.get_ref();
        let rank = *d.rank.get_ref();
        if rank < 1 || rank > g.ranks as i64 {
            self.err(d.rank.span(), format!("`rank = {rank}` is off the board (1 to {})", g.ranks));
            return None;
        }
        let row: Vec<Square> = (0..g.files).filter_map(|f| g.at(f as i32, rank as i32 - 1)).collect();
        let mut free_light = row.iter().filter(|&&s| g.is_light(s)).count() as u64;
        let mut free_dark = row.len() as u64 - free_light;
        let mut steps = Vec::new();
        let mut count: u64 = 1;
        let mut uncoloured = false;
        for step in &d.steps {
            let st = step.get_ref();
            let mut kinds = Vec::new();
            for name in &st.place {
                match names.iter().position(|n| *n == name.get_ref()) {
                    Some(k) => kinds.push(KindId(k as u8)),
                    None => self.unknown(name, "piece kind", names.iter().map(|s| s.as_str())),
                }
            }
            if st.place.is_empty() {
                self.err(step.span(), "a deal step places at least one piece (`place = [\"queen\"]`)");
                return None;
            }
            let light = match st.colour.as_ref().map(|c| (c.get_ref().as_str(), c.span())) {
                None => None,
                Some(("light", _)) => Some(true),
                Some(("dark", _)) => Some(false),
                Some((other, sp)) => {
                    self.err(sp, format!("`{other}`: a deal step's colour is \"light\" or \"dark\""));
                    return None;
                }
            };
            if light.is_some() && uncoloured {
                self.err(step.span(), "a deal step with a `colour` comes before every step without one");
                return None;
            }
            uncoloured |= light.is_none();
            let n = st.place.len() as u64;
            let m = match light {
                Some(true) => free_light,
                Some(false) => free_dark,
                None => free_light + free_dark,
            };
            if n > m {
                self.err(step.span(), format!("this step places {n} pieces on the {m} squares left free"));
                return None;
            }
            match light {
                Some(true) => free_light -= n,
                Some(false) => free_dark -= n,
                // Which colours an uncoloured step takes varies; only the total matters now.
                None => {
                    let total = free_light + free_dark - n;
                    (free_light, free_dark) = (total, 0);
                }
            }
            let choices = binomial(m, n);
            count = match count.checked_mul(choices) {
                Some(c) => c,
                None => {
                    self.err(spec.span(), "this deal has more setups than a 64-bit number counts");
                    return None;
                }
            };
            steps.push(DealStep { kinds, light });
        }
        if free_light + free_dark != 0 {
            self.err(
                spec.span(),
                format!(
                    "the deal's steps leave {} squares of rank {rank} empty: they fill the rank",
                    free_light + free_dark
                ),
            );
            return None;
        }
        Some(Deal { rank: rank as u8 - 1, steps, count })
    }

    fn draws(&mut self, spec: &schema::DrawsSpec, kinds: &[Kind], check: bool) -> Draws {
        let mut draws = Draws {
            no_progress_plies: spec.no_progress_plies,
            repetition: spec.repetition,
            turn_limit: spec.turn_limit,
            royal_repeat: spec.royal_repeat,
            ..Draws::default()
        };
        if spec.repetition.is_some_and(|n| n < 2) {
            self.err(0..0, "draws.repetition must be at least 2");
        }
        if let Some(r) = &spec.repetition_result {
            match r.get_ref().as_str() {
                "draw" => {}
                _ if spec.repetition.is_none() => {
                    self.err(r.span(), "draws.repetition_result judges a repetition: it needs draws.repetition")
                }
                other => match Side::parse(other) {
                    Some(s) => draws.repetition_winner = Some(s),
                    None => self.err(
                        r.span(),
                        format!("`{other}`: draws.repetition_result is \"draw\", \"white\" or \"black\""),
                    ),
                },
            }
        }
        if let Some(p) = &spec.perpetual_check {
            match p.get_ref().as_str() {
                "draw" => {}
                "loses" if spec.repetition.is_none() => {
                    self.err(p.span(), "draws.perpetual_check judges a repetition: it needs draws.repetition")
                }
                "loses" if !check => {
                    self.err(p.span(), "draws.perpetual_check needs the check rule (rules.check = true)")
                }
                "loses" => draws.perpetual_check_loses = true,
                other => self.err(p.span(), format!("`{other}`: draws.perpetual_check is \"draw\" or \"loses\"")),
            }
        }
        let Some(ins) = &spec.insufficient_material else {
            return draws;
        };
        let kind_of = |c: char| kinds.iter().position(|k| k.letter == c.to_ascii_uppercase());
        for m in &ins.material {
            let parts: Vec<&str> = m.get_ref().split(['v', 'V']).collect();
            let mut pair = [[0u8; MAX_KINDS]; 2];
            let mut ok = parts.len() == 2;
            for (i, part) in parts.iter().enumerate().take(2) {
                for c in part.chars() {
                    match kind_of(c) {
                        Some(k) => pair[i][k] = pair[i][k].saturating_add(1),
                        None => ok = false,
                    }
                }
            }
            if ok {
                draws.insufficient.push(pair);
            } else {
                self.err(
                    m.span(),
                    format!("`{}` is not material like \"KBvK\" (piece letters, v, piece letters)", m.get_ref()),
                );
            }
        }
        for (list, mask) in
            [(&ins.same_colour, &mut draws.same_colour), (&ins.opposite_colours, &mut draws.opposite_colours)]
        {
            for l in list {
                match l.get_ref().chars().collect::<Vec<_>>()[..] {
                    [c] if kind_of(c).is_some() => *mask |= 1 << kind_of(c).unwrap(),
                    _ => self.err(l.span(), format!("`{}` is not a piece letter", l.get_ref())),
                }
            }
        }
        draws
    }
}

pub(super) const VECTOR_SET_NAMES: &[&str] = &[
    "orthogonal",
    "diagonal",
    "all",
    "knight",
    "forward",
    "backward",
    "sideways",
    "vertical",
    "forward-diagonal",
    "backward-diagonal",
];

/// The named vector sets, from white's point of view.
pub(super) fn named_vectors(name: &str) -> Option<Vec<Offset>> {
    Some(match name {
        "orthogonal" => vec![(1, 0), (-1, 0), (0, 1), (0, -1)],
        "diagonal" => vec![(1, 1), (-1, 1), (1, -1), (-1, -1)],
        "all" => vec![(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)],
        "knight" => vec![(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)],
        "forward" => vec![(0, 1)],
        "backward" => vec![(0, -1)],
        "sideways" => vec![(1, 0), (-1, 0)],
        "vertical" => vec![(0, 1), (0, -1)],
        "forward-diagonal" => vec![(-1, 1), (1, 1)],
        "backward-diagonal" => vec![(-1, -1), (1, -1)],
        _ => return None,
    })
}
