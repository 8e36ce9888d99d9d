//! Variants: loading `variant.toml`, checking it, and the compiled rules the engine runs.
//!
//! A [`Variant`] is built once (from a folder, a name or a TOML string) and shared by
//! every game of it. It holds the rules in the designer's terms (kinds, atoms, regions,
//! castling entries, draw rules) and the precomputed move tables for its board width.

mod builtin;
mod compile;
mod diagnostics;
mod ends;
mod explosion;
mod hand;
mod load;
mod reload;
mod schema;
mod solo;
mod source;
pub(crate) mod structure;
mod world_rules;
mod world_schema;

use std::path::PathBuf;
use std::sync::Arc;

use crate::bits::{Bits, Wide};
use crate::geometry::{Geometry, Offset, Square};
use crate::movegen::tables::Tables;
use crate::piece::{KindId, Side};

pub use builtin::{BuiltIn, built_in, built_in_named};
pub use ends::{EndRule, EndRules, EndWhen, Points};
pub use load::{Found, Origin, Script, find, known_variants, looked_in, search_path};
pub use reload::Reloader;
pub use solo::{DuelRules, Generation, LayerPiece, Level, SoloRules};
pub use source::Override;
pub use world_rules::{DropZone, Gating, Phase, ReserveRule, WorldRules};

/// Whether `s` can name a variant: 1 to 64 ASCII letters, digits, `-` and `_`, starting
/// with a letter or digit. A name becomes part of paths (a saved game's folder), so it
/// can never climb out of a folder or be absolute.
pub fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A compiled variant, ready to play.
pub struct Variant {
    pub name: String,
    pub title: String,
    pub summary: String,
    /// How turns are taken (`[turns] model`).
    pub turns: TurnModel,
    /// The folder it was loaded from, if any.
    pub dir: Option<PathBuf>,
    /// The shipped variant it was loaded from, if it is one (then `dir` is `None`).
    pub builtin: Option<&'static BuiltIn>,
    pub geometry: Geometry,
    pub kinds: Vec<Kind>,
    pub regions: Vec<Region>,
    pub castling: Vec<Castling>,
    pub rules: CoreRules,
    pub draws: Draws,
    /// The starting position, as FEN (for the other turn models, an empty board).
    pub setup: String,
    /// A dealt first rank (`[setup] deal`): numbered setups, see [`Variant::dealt_fen`].
    pub deal: Option<Deal>,
    /// Rules scripts, root ancestor first (a variant's own `rules.lua` last).
    pub scripts: Vec<Script>,
    /// Every file the variant was read from (its chain's TOML and Lua), for reloading.
    pub sources: Vec<PathBuf>,
    /// The rules the pipeline calls (the Lua host, or hooks supplied in Rust).
    pub hooks: Option<Arc<dyn crate::hooks::Hooks>>,
    /// Limits for the Lua host.
    pub scripting: ScriptLimits,
    /// The whole merged variant.toml, for `game:param`.
    pub data: toml::Table,
    /// Hit points and damage, when moves onto enemies attack instead of capturing.
    pub combat: Option<Combat>,
    /// A game clock: the game ends when the time is up.
    pub clock: Option<ClockRule>,
    /// Solo boards: wear, levels, dealing, duels (with `turns.model = "solo"`).
    pub solo: Option<SoloRules>,
    /// Points from tables (`[scoring]`).
    pub scoring: Option<crate::scoring::ScoringRules>,
    /// Pieces held off the board (`[reserve]`).
    pub reserve: Option<ReserveRule>,
    /// A world of boards played with simultaneous orders (`[world]`).
    pub world: Option<Arc<WorldRules>>,
    pub(crate) tables: AnyTables,
}

/// How the turns of a variant are taken. Each model owns its state and its sequencing;
/// all share the vocabulary (geometry, kinds and movement atoms, the loader, the Lua host).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnModel {
    /// Two sides, one action each in turn ([`crate::Game`]).
    Alternate,
    /// One player, alone against the board.
    Solo,
    /// Many players give secret orders, resolved together.
    Simultaneous,
}

impl TurnModel {
    pub fn name(self) -> &'static str {
        match self {
            TurnModel::Alternate => "alternate",
            TurnModel::Solo => "solo",
            TurnModel::Simultaneous => "simultaneous",
        }
    }
}

/// Limits for a variant's scripts.
#[derive(Debug, Clone, Copy)]
pub struct ScriptLimits {
    pub memory_limit_mb: u32,
    pub instruction_limit: u64,
    /// Wall-clock time one hook call may take, in milliseconds.
    pub time_limit_ms: u32,
}

/// What two opposing royal pieces facing each other on an open file mean
/// (`[rules] royals_facing`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RoyalsFacing {
    /// Nothing (chess).
    #[default]
    Allowed,
    /// They may not: facing counts as an attack (xiangqi's flying general).
    Illegal,
    /// The side to move must part them (any move that leaves them facing is illegal), or
    /// pass (janggi's bikjang).
    Break,
}

/// Core rules that every two-sided variant states.
#[derive(Debug, Clone)]
pub struct CoreRules {
    /// A move may not leave one of the mover's royal pieces attacked.
    pub check: bool,
    /// The result for the side to move with no legal move, in check.
    pub checkmate: Verdict,
    /// The result for the side to move with no legal move, not in check.
    pub stalemate: Verdict,
    /// A side that has lost all its royal pieces loses (when set).
    pub royal_lost: bool,
    /// Two opposing royal pieces on one open file (`royals_facing`).
    pub royals_facing: RoyalsFacing,
    /// A side may pass (`[rules] pass`).
    pub pass: bool,
    /// `[[rules.end]]`, `forced_capture`, `giving_check`.
    pub end: EndRules,
    /// `[rules.explosion]`: captures blast the squares around them.
    pub explosion: Option<Explosion>,
}

/// `[rules.explosion]`, compiled: a capture removes the captured piece, the pieces on the
/// squares `around` the capture square (but those of `spares` kinds) and, when
/// `capturer_explodes`, the capturing piece.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explosion {
    /// Offsets from the capture square, from white's point of view (mirrored for black).
    pub around: Vec<crate::geometry::Offset>,
    /// Kinds the blast leaves standing (bit per kind).
    pub spares: u32,
    pub capturer_explodes: bool,
}

/// A game clock.
#[derive(Debug, Clone, Copy)]
pub struct ClockRule {
    pub limit_ms: u64,
    /// The winner when the time is up (None: a draw).
    pub winner: Option<Side>,
}

/// The stages of an attack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The attacked piece takes the attacker's damage.
    Primary,
    /// Enemies on the attacker's area shape take its area damage.
    Aoe,
    /// Damaged survivors with a counter strike the attacker back.
    Counter,
    /// Pieces at 0 HP are removed.
    Cleanup,
    /// The attacker lands: on a killed square, or stays where it was.
    Landing,
}

/// Why a piece takes damage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    Primary,
    Aoe,
    Counter,
    EnPassant,
    /// A rule's command (`game:damage`).
    Rule,
}

impl Cause {
    pub fn name(self) -> &'static str {
        match self {
            Cause::Primary => "primary",
            Cause::Aoe => "aoe",
            Cause::Counter => "counter",
            Cause::EnPassant => "en_passant",
            Cause::Rule => "rule",
        }
    }
}

/// Hit points, damage and what modifies them.
#[derive(Debug, Clone)]
pub struct Combat {
    pub stages: Vec<Stage>,
    pub aoe_on_quiet_move: bool,
    pub friendly_fire: bool,
    /// En-passant damage: None = an ordinary attack by the capturing piece.
    pub en_passant_damage: Option<i64>,
    pub damage_is_progress: bool,
    pub shapes: Vec<AreaShape>,
    pub multiply: Option<MultiplyAura>,
    pub divide: Option<DivideAura>,
}

/// Offsets from the destination; see the schema.
#[derive(Debug, Clone)]
pub struct AreaShape {
    pub name: String,
    pub any: Vec<Offset>,
    pub orthogonal: Vec<Offset>,
    pub diagonal: Vec<Offset>,
}

/// An aura that multiplies the damage its holders deal: base^stacks.
#[derive(Debug, Clone)]
pub struct MultiplyAura {
    pub source: KindId,
    pub radius: u8,
    pub base: i64,
    pub max_stacks: u32,
    pub includes_source: bool,
    /// A damaging move spends the other sources' stacks until they separate and meet again.
    pub spend: bool,
}

/// An aura that divides the damage its holders take.
#[derive(Debug, Clone)]
pub struct DivideAura {
    pub source: KindId,
    pub radius: u8,
    pub divisor: i64,
    pub includes_source: bool,
    pub persist_plies: u8,
    /// Bit per [`Cause`] it reduces.
    pub applies: u8,
}

/// A kind's combat numbers (all 0 without `[combat]`).
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub hp: u8,
    pub damage: i64,
    pub aoe: i64,
    pub aoe_shape: Option<usize>,
    pub counter: i64,
}

/// A result from the point of view of the side it happens to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Loss,
    Draw,
    Win,
}

/// A piece kind.
#[derive(Debug, Clone)]
pub struct Kind {
    pub name: String,
    /// Upper case; black's pieces use the lower case.
    pub letter: char,
    pub royal: bool,
    pub value: i32,
    pub progress: bool,
    pub atoms: Vec<Atom>,
    pub promotion: Option<Promotion>,
    /// Hit points and damage (with `[combat]`).
    pub stats: Stats,
    /// `fen = "+P"`: FEN writes it as `+` and this letter (another kind's, upper case).
    pub fen_plus: Option<char>,
}

/// How a movement atom reaches its squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Jumps by each vector; what stands between does not matter.
    Leap,
    /// Repeats each vector until blocked, the board edge, or the range.
    Slide,
    /// The last on-board square along each vector's line.
    Farthest,
    /// Every square of the board (solo boards only).
    Anywhere,
    /// Over exactly one piece (the screen) along each vector, then on like a slide.
    Hop,
}

/// Which squares an atom may go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Both,
    Move,
    Capture,
}

/// One part of a piece's movement, e.g. "slides orthogonally" or "steps forward,
/// moves only".
#[derive(Debug, Clone)]
pub struct Atom {
    pub shape: Shape,
    /// From white's point of view (positive `dy` is forward); black's are mirrored.
    pub vectors: Vec<Offset>,
    /// For slides: the most steps, or 0 for unlimited.
    pub range: u8,
    pub mode: Mode,
    /// Captures remove the target and leave the mover in place.
    pub ranged: bool,
    /// Only from squares of this region.
    pub from: Option<usize>,
    /// Squares skipped by this move may be taken en passant on the next reply.
    pub creates_en_passant: bool,
    /// This capture may land on such a skipped square.
    pub captures_en_passant: bool,
    /// Unusable while an enemy stands next to the piece.
    pub silenced_by_adjacent_enemy: bool,
    /// Kinds it never captures (bit per kind).
    pub cannot_capture: u32,
    /// A leap blocked by a piece on a square it passes (orthogonal steps first).
    pub blockable: bool,
    /// Hops: kinds that may not be the screen (bit per kind).
    pub cannot_hop: u32,
    /// Only to squares of this region (the piece is `confined` to it).
    pub within: Option<usize>,
    /// Only to squares of this region (the atom's own `to`).
    pub to: Option<usize>,
}

impl Atom {
    pub fn captures(&self) -> bool {
        self.mode != Mode::Move
    }
    pub fn moves(&self) -> bool {
        self.mode != Mode::Capture
    }
}

/// Where a kind promotes, and to what.
#[derive(Debug, Clone)]
pub struct Promotion {
    pub zone: usize,
    pub to: Vec<KindId>,
    /// The new piece comes from the owner's graveyard (captured pieces).
    pub from_graveyard: bool,
    /// Only kinds of `to` its owner has fewer of than at the start ("missing"); when
    /// none is, `when_full`.
    pub missing_only: bool,
    pub when_full: Vec<KindId>,
    /// What happens with nothing to promote to.
    pub when_empty: WhenEmpty,
    /// The returned piece cannot act until its owner has finished their next turn.
    pub returned_waits: bool,
    /// A move into the zone may also stay unpromoted (but onto `forced`).
    pub optional: bool,
    /// The region where it must promote: the whole zone unless `optional`; with
    /// `optional`, the `forced` region (None: nowhere).
    pub forced: Option<usize>,
    /// A move that starts in the zone may promote too, wherever it ends.
    pub leaving: bool,
}

/// A promotion with nothing to promote to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenEmpty {
    /// The piece stays, frozen, until its owner loses a piece, which it then becomes.
    Freeze,
    /// The piece stays as it is.
    Stay,
    /// The move is not allowed.
    Forbid,
}

/// A named set of squares, per side.
#[derive(Debug, Clone)]
pub struct Region {
    pub name: String,
    pub squares: [Vec<Square>; 2],
}

/// One castling move of one side.
#[derive(Debug, Clone)]
pub struct Castling {
    pub side: Side,
    /// Its letter in FEN's castling field.
    pub right: char,
    pub king: Square,
    pub rook: Square,
    pub king_to: Square,
    pub rook_to: Square,
    pub empty: Vec<Square>,
    pub safe: Vec<Square>,
    /// Other squares a player may name as the king's destination (`king-also`).
    pub also_to: Vec<Square>,
    /// The kinds that castle: those on `king` and `rook` in the setup.
    pub king_kind: Option<KindId>,
    pub rook_kind: Option<KindId>,
    /// With `free = true` (Chess960): the square the data named for the rook (its kind is
    /// the one standing there in the setup). The entry is then the castling with the rook
    /// on `rook`, the king wherever the castling kind stands on that rank, on the side
    /// away from `rook_to` (`king` is only the data's square); `empty` and `safe` follow
    /// from where the king stands.
    pub free: Option<Square>,
}

impl Castling {
    /// +1 when the king castles toward the higher files (O-O), −1 toward the lower
    /// (O-O-O), 0 along its file.
    pub fn direction(&self, g: crate::geometry::Geometry) -> i32 {
        let from = if self.free.is_some() { self.rook_to } else { self.king };
        (g.file(self.king_to) as i32 - g.file(from) as i32).signum()
    }

    /// A free entry's side of the king: +1 with the rook on the higher files.
    pub(crate) fn outward(&self, g: crate::geometry::Geometry) -> i32 {
        let rook = self.free.unwrap_or(self.rook);
        (g.file(rook) as i32 - g.file(self.king) as i32).signum()
    }
}

/// Ways to choose `k` of `n` (0 when `k > n`).
pub(crate) fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1u64, |c, i| c * (n - i) / (i + 1))
}

/// A dealt first rank (`[setup] deal`, Chess960): each step chooses squares for its
/// kinds among the rank's squares still free, and a number picks one choice per step.
#[derive(Debug, Clone)]
pub struct Deal {
    /// White's rank (from 0); black's is its mirror.
    pub rank: u8,
    pub steps: Vec<DealStep>,
    /// How many setups there are (the product of each step's choices).
    pub count: u64,
}

#[derive(Debug, Clone)]
pub struct DealStep {
    /// The kinds placed, on the chosen squares from the lowest file up.
    pub kinds: Vec<KindId>,
    /// Only squares of this colour (`Some(true)`: light).
    pub light: Option<bool>,
}

/// Draw conditions; `None` is off.
#[derive(Debug, Clone, Default)]
pub struct Draws {
    pub no_progress_plies: Option<u32>,
    pub repetition: Option<u32>,
    /// A repetition in which one side checked with every move loses for that side
    /// (`perpetual_check = "loses"`) instead of drawing.
    pub perpetual_check_loses: bool,
    /// The side a repetition goes to (`repetition_result`); `None`: a draw.
    pub repetition_winner: Option<crate::piece::Side>,
    /// Material pairs that draw, as counts per kind: `[one side, the other]`.
    pub insufficient: Vec<[[u8; crate::piece::MAX_KINDS]; 2]>,
    /// Kinds that draw when, besides royal pieces, only they remain, all on one colour.
    pub same_colour: u32,
    /// Kinds that draw when, besides royal pieces, only they remain, each side holding
    /// some, each side's on one colour and the two sides' on different colours.
    pub opposite_colours: u32,
    /// Drawn when the full-move number reaches this.
    pub turn_limit: Option<u32>,
    /// Drawn when a royal piece repeats an arrival this many times (king-repeat).
    pub royal_repeat: Option<u32>,
}

/// The move tables for the variant's board width, shared by the copies of a variant
/// that differ only in their hooks (`with_hooks`, `without_hooks`, `with_own_hooks`:
/// the tables are made from the TOML rules alone).
#[derive(Clone, Debug)]
pub(crate) enum AnyTables {
    Narrow(Arc<Tables<u64>>),
    Mid(Arc<Tables<u128>>),
    Wide(Arc<Tables<Wide>>),
}

impl std::fmt::Debug for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Variant").field("name", &self.name).field("geometry", &self.geometry).finish_non_exhaustive()
    }
}

impl Variant {
    /// A copy of this variant whose pipeline calls `hooks` (rules written in Rust).
    pub fn with_hooks(&self, hooks: Arc<dyn crate::hooks::Hooks>) -> Arc<Variant> {
        let mut v = self.clone_rules();
        v.hooks = Some(hooks);
        Arc::new(v)
    }

    /// A copy of this variant without its hooks (its TOML rules only): for measuring
    /// what the hooks cost, or for tools that must not run scripts.
    pub fn without_hooks(&self) -> Arc<Variant> {
        let mut v = self.clone_rules();
        v.hooks = None;
        v.scripts.clear();
        Arc::new(v)
    }

    /// A copy of this variant whose scripts run in a Lua state of their own (the same
    /// scripts, so the same rules and results). Games that share a variant share its
    /// Lua state, which runs one hook call at a time: work spread over threads (a batch
    /// of self-play games) takes one copy per thread to run its hooks in parallel.
    /// Variants without scripts come back as they are.
    pub fn with_own_hooks(&self) -> Result<Arc<Variant>, crate::LoadError> {
        let mut v = self.clone_rules();
        if !v.scripts.is_empty() {
            v.hooks = Some(Arc::new(crate::script::LuaHooks::load(&v)?));
        }
        Ok(Arc::new(v))
    }

    /// A document of the variant's own folder (`"README.md"`), read from disk or from the
    /// built-in copy; `None` if it has none. `file` is a name the program chose, never one
    /// from data.
    pub fn document(&self, file: &str) -> Option<String> {
        match (&self.dir, self.builtin) {
            (Some(dir), _) => std::fs::read_to_string(dir.join(file)).ok(),
            (None, Some(b)) => b.file(file).and_then(|bytes| String::from_utf8(bytes.to_vec()).ok()),
            (None, None) => None,
        }
    }

    fn clone_rules(&self) -> Variant {
        Variant {
            name: self.name.clone(),
            title: self.title.clone(),
            summary: self.summary.clone(),
            turns: self.turns,
            dir: self.dir.clone(),
            builtin: self.builtin,
            geometry: self.geometry,
            kinds: self.kinds.clone(),
            regions: self.regions.clone(),
            castling: self.castling.clone(),
            rules: self.rules.clone(),
            draws: self.draws.clone(),
            setup: self.setup.clone(),
            deal: self.deal.clone(),
            scripts: self.scripts.clone(),
            sources: self.sources.clone(),
            hooks: self.hooks.clone(),
            scripting: self.scripting,
            data: self.data.clone(),
            combat: self.combat.clone(),
            clock: self.clock,
            solo: self.solo.clone(),
            scoring: self.scoring.clone(),
            reserve: self.reserve.clone(),
            world: self.world.clone(),
            tables: self.tables.clone(),
        }
    }

    /// Loads a variant by name (searched in the folders of `VARIA_PATH`, then `./scripts`,
    /// then among the built-in variants) or by path to its folder or `variant.toml`.
    pub fn load(name_or_path: &str) -> Result<Arc<Variant>, crate::LoadError> {
        load::load(name_or_path, &[]).map(Arc::new)
    }

    /// Loads the variant at `origin` (as found by [`find`] or [`known_variants`]).
    pub fn load_origin(origin: &Origin, overrides: &[Override]) -> Result<Arc<Variant>, crate::LoadError> {
        load::load_from(origin, overrides).map(Arc::new)
    }

    /// Like [`Variant::load`], with `--set KEY=VALUE` overrides laid on top.
    pub fn load_with(name_or_path: &str, overrides: &[Override]) -> Result<Arc<Variant>, crate::LoadError> {
        load::load(name_or_path, overrides).map(Arc::new)
    }

    /// Builds a variant from TOML text; `file` names it in error messages. The text may
    /// `extends` a variant found by name.
    pub fn from_toml(text: &str, file: &str) -> Result<Arc<Variant>, crate::LoadError> {
        load::load_text(text, file, &[]).map(Arc::new)
    }

    /// Like [`Variant::from_toml`], with overrides.
    pub fn from_toml_with(text: &str, file: &str, overrides: &[Override]) -> Result<Arc<Variant>, crate::LoadError> {
        load::load_text(text, file, overrides).map(Arc::new)
    }

    /// A value of variant.toml for hooks: a key of `[params]`, or any dotted path
    /// (`pieces.queen.value`; array items by index).
    pub fn param(&self, path: &str) -> Option<&toml::Value> {
        fn get<'a>(root: &'a toml::Table, path: &str) -> Option<&'a toml::Value> {
            let mut parts = path.split('.');
            let mut v = root.get(parts.next()?)?;
            for p in parts {
                v = match v {
                    toml::Value::Table(t) => t.get(p)?,
                    toml::Value::Array(a) => a.get(p.parse::<usize>().ok()?)?,
                    _ => return None,
                };
            }
            Some(v)
        }
        match self.data.get("params") {
            Some(toml::Value::Table(p)) => get(p, path).or_else(|| get(&self.data, path)),
            _ => get(&self.data, path),
        }
    }

    pub fn kind(&self, id: KindId) -> &Kind {
        &self.kinds[id.index()]
    }

    /// The starting position dealt as setup `number` (0 to `deal.count` − 1) of
    /// `[setup] deal`: the dealt rank emptied, then each step takes the `digit`-th way
    /// (in lexicographic order of the free squares, lowest file first) to place its
    /// kinds, where `number` is read in mixed radix, the first step's digit lowest;
    /// black's rank mirrors white's. The castling rights of the setup are kept, each
    /// letter read again on the new rank (`K`: the outermost rook on the king's side).
    /// With Chess960's steps this is Scharnagl's numbering (518 is the usual setup).
    pub fn dealt_fen(&self, number: u64) -> Result<String, String> {
        use crate::notation::fen;
        let Some(d) = &self.deal else {
            return Err(format!("{} has no dealt setups (no `[setup] deal`)", self.name));
        };
        if number >= d.count {
            return Err(format!("setup {number} does not exist: {} has setups 0 to {}", self.name, d.count - 1));
        }
        let g = self.geometry;
        let mut setup = fen::parse(self, &self.setup).map_err(|e| e.to_string())?;
        let letters: Vec<char> = (0..self.castling.len())
            .filter(|i| setup.castling & (1 << i) != 0)
            .map(|i| fen::castling_letter(self, &setup.pieces, i))
            .collect();
        let row: Vec<Square> = (0..g.files).filter_map(|f| g.at(f as i32, d.rank as i32)).collect();
        setup.pieces.retain(|&(s, _)| !row.contains(&s) && !row.contains(&g.mirror(s)));
        let mut free = row.clone();
        let mut n = number;
        for step in &d.steps {
            let pool: Vec<Square> =
                free.iter().copied().filter(|&s| step.light.is_none_or(|l| g.is_light(s) == l)).collect();
            let k = step.kinds.len();
            let choices = binomial(pool.len() as u64, k as u64);
            let mut digit = n % choices;
            n /= choices;
            // The digit-th k-subset of the pool in lexicographic order.
            let mut chosen = Vec::with_capacity(k);
            let mut start = 0;
            for left in (1..=k).rev() {
                for i in start..pool.len() {
                    let rest = pool.len() - i - 1;
                    let with_i = binomial(rest as u64, left as u64 - 1);
                    if digit < with_i {
                        chosen.push(pool[i]);
                        start = i + 1;
                        break;
                    }
                    digit -= with_i;
                }
            }
            for (&sq, &kind) in chosen.iter().zip(&step.kinds) {
                setup.pieces.push((sq, crate::piece::Piece::new(kind, Side::White)));
                setup.pieces.push((g.mirror(sq), crate::piece::Piece::new(kind, Side::Black)));
                free.retain(|&s| s != sq);
            }
        }
        setup.pieces.sort_by_key(|&(s, _)| s);
        setup.castling = 0;
        for c in letters {
            setup.castling |= 1 << fen::castling_entry(self, &setup.pieces, c)?;
        }
        Ok(fen::write(self, &setup))
    }

    /// The checks that end the game, when an end rule counts them (`when = "checks"`).
    pub fn check_count(&self) -> Option<u8> {
        self.rules.end.ends.iter().find_map(|e| match e.when {
            EndWhen::Checks { count } => Some(count),
            _ => None,
        })
    }

    /// A setup number of `[setup] deal` drawn from `seed` (uniform, the same for the
    /// same seed); `None` without a deal.
    pub fn deal_number(&self, seed: u64) -> Option<u64> {
        self.deal.as_ref().map(|d| crate::rng::Rng::new(seed).below(d.count))
    }

    /// The kind with this name.
    pub fn kind_named(&self, name: &str) -> Option<KindId> {
        self.kinds.iter().position(|k| k.name == name).map(|i| KindId(i as u8))
    }

    /// The kind FEN writes `+` and this letter (either case), if one is written so.
    pub fn kind_by_plus(&self, letter: char) -> Option<KindId> {
        let l = letter.to_ascii_uppercase();
        self.kinds.iter().position(|k| k.fen_plus == Some(l)).map(|i| KindId(i as u8))
    }

    /// The kind with this letter, either case.
    pub fn kind_by_letter(&self, letter: char) -> Option<KindId> {
        let l = letter.to_ascii_uppercase();
        self.kinds.iter().position(|k| k.letter == l).map(|i| KindId(i as u8))
    }

    /// The hand rule of a two-sided variant with `[reserve]` (pieces held and dropped).
    pub fn hand(&self) -> Option<&ReserveRule> {
        self.reserve.as_ref().filter(|_| self.turns == TurnModel::Alternate)
    }

    /// Gating (`[reserve] gating`) of a two-sided variant with hands.
    pub fn gating(&self) -> Option<&world_rules::Gating> {
        self.hand().and_then(|h| h.gating.as_ref())
    }

    /// The kind a promoted piece of `kind` reverts to when it is captured into a hand:
    /// the first kind (in the variant's order) whose promotion can make it.
    pub fn unpromoted(&self, kind: KindId) -> Option<KindId> {
        self.kinds
            .iter()
            .position(|k| k.promotion.as_ref().is_some_and(|p| p.to.contains(&kind)))
            .map(|i| KindId(i as u8))
    }

    /// The piece as FEN writes it: its letter, or `+` and a letter (`fen = "+P"`).
    pub fn fen_text(&self, piece: crate::piece::Piece) -> String {
        let lower = |c: char| if piece.side == Side::White { c } else { c.to_ascii_lowercase() };
        match self.kinds[piece.kind.index()].fen_plus {
            Some(l) => format!("+{}", lower(l)),
            None => lower(self.kinds[piece.kind.index()].letter).to_string(),
        }
    }

    /// The piece's letter as FEN writes it.
    pub fn letter(&self, piece: crate::piece::Piece) -> char {
        let l = self.kinds[piece.kind.index()].letter;
        if piece.side == Side::White { l } else { l.to_ascii_lowercase() }
    }

    pub fn square_name(&self, sq: Square) -> String {
        self.geometry.name(sq).to_string()
    }

    pub(crate) fn tables<B: Bits>(&self) -> &Tables<B> {
        fn cast<A: 'static, B: 'static>(t: &A) -> Option<&B> {
            (t as &dyn std::any::Any).downcast_ref::<B>()
        }
        let t = match &self.tables {
            AnyTables::Narrow(t) => cast::<Tables<u64>, Tables<B>>(t),
            AnyTables::Mid(t) => cast::<Tables<u128>, Tables<B>>(t),
            AnyTables::Wide(t) => cast::<Tables<Wide>, Tables<B>>(t),
        };
        t.expect("tables requested for the width the variant was compiled for")
    }
}
