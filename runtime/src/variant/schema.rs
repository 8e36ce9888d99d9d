//! The `variant.toml` schema: what a designer may write, with a comment on every key.
//!
//! These structs only describe the file; `compile` checks what they mean (names that
//! must exist, squares on the board, letters that must be unique) and builds the rules.
//! Keys that need a semantic check keep their position (`Spanned`) so errors can say
//! `path:line:col`. Unknown keys are errors (`deny_unknown_fields`).

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{MapAccess, Visitor};
use toml::Spanned;

pub type Name = Spanned<String>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantFile {
    /// The variant's name; defaults to its folder's name. Letters, digits, `-` and `_`
    /// (it names the variant's files, such as a saved game).
    pub name: Option<Spanned<String>>,
    /// Another variant this one is a cousin of: its keys are the defaults, this file
    /// lists only what changes. A name (searched like any variant) or a relative path.
    /// (Read by the loader before the files are merged.)
    #[allow(dead_code)]
    pub extends: Option<Spanned<String>>,
    /// A human title, such as "Standard chess".
    pub title: Option<String>,
    /// One or two sentences on what the variant is.
    pub summary: Option<String>,
    /// How turns are taken: two sides alternating (default), one player alone, or
    /// many players giving secret orders that are resolved together.
    #[serde(default)]
    pub turns: TurnsSpec,
    /// Board shape.
    pub board: BoardSpec,
    /// The starting position (required with `turns.model = "alternate"`).
    pub setup: Option<Spanned<SetupSpec>>,
    /// Named sets of squares (promotion zones, pawn start ranks…).
    #[serde(default)]
    pub regions: Ordered<Spanned<RegionSpec>>,
    /// Core rules: check, and what having no legal move means.
    #[serde(default)]
    pub rules: RulesSpec,
    /// Draw conditions; each is off unless given.
    #[serde(default)]
    pub draws: DrawsSpec,
    /// Piece kinds by name.
    pub pieces: Ordered<Spanned<PieceSpec>>,
    /// Castling moves, described by data.
    #[serde(default)]
    pub castling: Vec<Spanned<CastlingSpec>>,
    /// Limits for the variant's `rules.lua`.
    #[serde(default)]
    pub scripting: ScriptingSpec,
    /// Hit points and damage: moves onto enemies attack instead of capturing.
    pub combat: Option<Spanned<CombatSpec>>,
    /// Named area shapes for `aoe_shape`.
    #[serde(default)]
    pub shapes: Ordered<Spanned<ShapeSpec>>,
    /// Named auras: pieces that change the damage dealt or taken by friends nearby.
    #[serde(default)]
    pub auras: Ordered<Spanned<AuraSpec>>,
    /// A game clock.
    pub clock: Option<ClockSpec>,
    /// The names engine protocols and game records use for the variant (UCI_Variant,
    /// XBoard's `variant`, PGN's `Variant` tag); read by `notation::names`.
    #[serde(default)]
    #[allow(dead_code)]
    pub protocol: ProtocolSpec,
    /// A world of boards for simultaneous orders (see `world_schema.rs`).
    pub world: Option<Spanned<super::world_schema::WorldSpec>>,
    /// Pieces players hold off the board and may drop (a vault, a hand).
    pub reserve: Option<Spanned<super::world_schema::ReserveSpec>>,
    /// The computer player: evaluation weights and levels. Read and checked by
    /// `varia::search` (see its docs for the keys).
    #[serde(default)]
    #[allow(dead_code)]
    pub ai: toml::Table,
    /// Solo boards: how squares wear down under strikes.
    pub wear: Option<Spanned<super::solo::WearSpec>>,
    /// Solo boards: what each level deals.
    #[serde(default)]
    pub levels: Ordered<Spanned<super::solo::LevelSpec>>,
    /// Solo boards: how boards are dealt.
    #[serde(default)]
    pub generation: super::solo::GenerationSpec,
    /// Solo boards: two players on the same board.
    pub duel: Option<super::solo::DuelSpec>,
    /// Points from tables (any turn model).
    pub scoring: Option<super::solo::ScoringSpec>,
    /// The designer's own numbers, free-form, read by hooks with `game:param("name")`
    /// (through `Variant::data`).
    #[serde(default)]
    #[allow(dead_code)]
    pub params: toml::Table,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct ProtocolSpec {
    /// The name in UCI's `UCI_Variant` option (Fairy-Stockfish's names: `chess`).
    pub uci: Option<String>,
    /// The name in XBoard's `variant` command (`normal` for chess).
    pub xboard: Option<String>,
    /// The PGN `Variant` tag (`Standard`).
    pub pgn: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptingSpec {
    /// Memory the rules' Lua state may use, in megabytes.
    #[serde(default = "default_memory_mb")]
    pub memory_limit_mb: Spanned<u32>,
    /// Lua instructions one hook call may run before it is stopped (about 25 ms for
    /// 5 million), library work in C counted too (one per 8 bytes or element).
    #[serde(default = "default_instructions")]
    pub instruction_limit: Spanned<u64>,
    /// Wall-clock milliseconds one hook call may take before it is stopped (a backstop
    /// for work done in C, which the instruction count does not see).
    #[serde(default = "default_time_ms")]
    pub time_limit_ms: Spanned<u32>,
}

impl Default for ScriptingSpec {
    fn default() -> Self {
        ScriptingSpec {
            memory_limit_mb: default_memory_mb(),
            instruction_limit: default_instructions(),
            time_limit_ms: default_time_ms(),
        }
    }
}

fn default_time_ms() -> Spanned<u32> {
    Spanned::new(0..0, 40)
}

fn default_memory_mb() -> Spanned<u32> {
    Spanned::new(0..0, 32)
}
fn default_instructions() -> Spanned<u64> {
    Spanned::new(0..0, 5_000_000)
}

/// A TOML table read in the order it is written (kinds keep the designer's order, so
/// move lists and promotion choices follow it).
#[derive(Debug)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<V> Ordered<V> {
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = Ordered<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a table")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, V>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V2(PhantomData))
    }
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TurnsSpec {
    /// "alternate" (default: two sides, one action each in turn), "solo" (one player
    /// strikes squares of a board that wears down) or "simultaneous" (N players give
    /// secret orders, resolved together in phases).
    pub model: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardSpec {
    /// Number of files (columns, a…), 1 to 16.
    pub files: Spanned<u32>,
    /// Number of ranks (rows, 1…), 1 to 16.
    pub ranks: Spanned<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupSpec {
    /// The starting position as FEN (see the notation module for the extensions).
    pub fen: Spanned<String>,
    /// Chess960: white's first rank is dealt, black's mirrors it (numbered setups).
    pub deal: Option<Spanned<DealSpec>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DealSpec {
    /// White's rank dealt, counted from 1 (black's is its mirror).
    pub rank: Spanned<i64>,
    /// In order: each step places its kinds on squares of the rank still free.
    pub steps: Vec<Spanned<DealStepSpec>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DealStepSpec {
    /// The kinds placed, from the lowest chosen file up.
    pub place: Vec<Name>,
    /// `"light"` or `"dark"`: only squares of that colour.
    pub colour: Option<Name>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RegionSpec {
    /// Whole ranks, counted from 1; negative counts from the far edge (-1 = last rank).
    #[serde(default)]
    pub ranks: Vec<i32>,
    /// Whole files, by letter.
    #[serde(default)]
    pub files: Vec<Name>,
    /// Single squares, by name.
    #[serde(default)]
    pub squares: Vec<Name>,
    /// Counted from each side's own edge: black's ranks are mirrored.
    #[serde(default)]
    pub relative: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSpec {
    /// A move may not leave one of the mover's royal pieces attacked.
    #[serde(default = "yes")]
    pub check: bool,
    /// The result for the side to move when it has no legal move and is in check.
    #[serde(default = "loss")]
    pub checkmate: Spanned<String>,
    /// The result for the side to move when it has no legal move and is not in check.
    #[serde(default = "draw")]
    pub stalemate: Spanned<String>,
    /// The result for a side that has lost all its royal pieces (e.g. a king killed by
    /// damage): "loss", or omitted for no such rule. If both sides lose their last royal
    /// piece in one action, the side that acted wins.
    pub royal_lost: Option<Spanned<String>>,
    /// "illegal": two royal pieces of opposite sides may not stand on one file with
    /// nothing between them (xiangqi's flying general); "allowed" (default).
    pub royals_facing: Option<Spanned<String>>,
    /// Ways the game ends besides mate and stalemate (`[[rules.end]]`, see `ends.rs`).
    #[serde(default)]
    pub end: Vec<Spanned<EndSpec>>,
    /// A capture must be made when one is legal (antichess, losers).
    #[serde(default)]
    pub forced_capture: bool,
    /// "illegal": a move may not give check (racing kings); "allowed" (default).
    pub giving_check: Option<Spanned<String>>,
    /// A capture blasts the squares around it (`[rules.explosion]`, see `explosion.rs`).
    pub explosion: Option<Spanned<ExplosionSpec>>,
    /// A side may pass (not in check), written as its royal piece's move onto its own
    /// square (`e2-e2`, as Fairy-Stockfish writes janggi's pass).
    #[serde(default)]
    pub pass: bool,
    /// The material count an end rule with `result = "points"` decides by.
    pub points: Option<Spanned<PointsSpec>>,
}

/// `[rules.points]`: each side's material counted by kind, plus a bonus per side (the
/// komi); the higher total wins, equal totals draw.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointsSpec {
    /// Points per piece, by kind name (kinds left out count nothing).
    #[serde(default)]
    pub values: Ordered<Spanned<f64>>,
    /// Points added to a side's count: `{ black = 1.5 }`.
    #[serde(default)]
    pub bonus: BonusSpec,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BonusSpec {
    #[serde(default)]
    pub white: f64,
    #[serde(default)]
    pub black: f64,
}

/// `[rules.explosion]`: every capture removes the pieces around the capture square.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExplosionSpec {
    /// The squares the blast reaches, as offsets from the capture square (a vector set's
    /// name or a list, mirrored for black like movement); default "all" (the 8 neighbours).
    pub around: Option<Spanned<VectorSpec>>,
    /// Kinds the blast leaves standing on those squares (the captured piece always goes).
    #[serde(default)]
    pub spares: Vec<Name>,
    /// "explodes" (default: the capturing piece is removed too) or "survives".
    pub capturer: Option<Spanned<String>>,
}

impl Default for RulesSpec {
    fn default() -> Self {
        RulesSpec {
            check: true,
            checkmate: loss(),
            stalemate: draw(),
            royal_lost: None,
            royals_facing: None,
            end: Vec::new(),
            forced_capture: false,
            giving_check: None,
            explosion: None,
            pass: false,
            points: None,
        }
    }
}

/// One way the game ends: `when = "reach"` (a piece of `kinds` stands on `region`) or
/// `when = "extinct"` (a side's count of `kinds`, each kind on its own, or of all its
/// pieces when `kinds` is left out, is at most `at_most`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndSpec {
    pub when: Spanned<String>,
    #[serde(default)]
    pub kinds: Vec<Name>,
    /// With "reach": the goal, as the side concerned sees it.
    pub region: Option<Name>,
    /// With "reach": judged only when the side's turn comes again (the opponent had one
    /// reply), instead of as soon as it arrives.
    pub reply: Option<Spanned<bool>>,
    /// With "extinct": the count at or below which the side is out (default 0).
    pub at_most: Option<Spanned<u32>>,
    /// With "extinct": the rule applies only while the opponent has at least this many.
    pub opponent_at_least: Option<Spanned<u32>>,
    /// With "extinct": a side that is out but to move may still answer (its opponent
    /// needs one piece more for the rule to apply).
    pub claim: Option<Spanned<bool>>,
    /// With "checks": the checks a side must give (3 in three-check).
    pub count: Option<Spanned<i64>>,
    /// The result for the side concerned (the one that arrived, or ran out).
    pub result: Spanned<String>,
    /// The reason the outcome gives (default "reaching_the_goal" or "extinction").
    pub reason: Option<Spanned<String>>,
}

fn yes() -> bool {
    true
}
fn loss() -> Spanned<String> {
    Spanned::new(0..0, "loss".into())
}
fn draw() -> Spanned<String> {
    Spanned::new(0..0, "draw".into())
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DrawsSpec {
    /// Plies without a capture or a move of a `progress` piece after which the game is
    /// drawn (100 = chess's 50-move rule).
    pub no_progress_plies: Option<u32>,
    /// The game is drawn when the same position occurs this many times (3 = threefold).
    pub repetition: Option<u32>,
    /// What a repetition is when one side gave check with every one of its moves since
    /// the first of the repeated positions counted: "draw" (the default) or "loses" (the
    /// checking side loses: xiangqi's and shogi's perpetual check).
    pub perpetual_check: Option<Spanned<String>>,
    /// Who a repetition (not a perpetual check) goes to: "draw" (the default), "white"
    /// or "black" (minishogi's sennichite: white, who moved first, loses).
    pub repetition_result: Option<Spanned<String>>,
    /// Material with which nobody can win.
    pub insufficient_material: Option<InsufficientSpec>,
    /// The game is drawn when the full-move number reaches this: a game started from a
    /// FEN at full move 140 has 10 full moves left with 150 (A-CC26).
    pub turn_limit: Option<u32>,
    /// The game is drawn when one royal piece arrives on the same square this many times
    /// by plain moves, with its side moving nothing else, no castling, and no damage by
    /// either side in between ("king-repeat").
    pub royal_repeat: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InsufficientSpec {
    /// Exact material lists, by letter, one side against the other: "KvK", "KBvK".
    #[serde(default)]
    pub material: Vec<Name>,
    /// Kinds (by letter) that, with the kings alone, draw when all stand on squares of
    /// one colour (chess: "B", same-coloured bishops).
    #[serde(default)]
    pub same_colour: Vec<Name>,
    /// Kinds (by letter) that, with the kings alone, draw when each side holds some,
    /// each side's all on squares of one colour and the two sides' on different colours
    /// (atomic: bishops that can never take each other).
    #[serde(default)]
    pub opposite_colours: Vec<Name>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceSpec {
    /// The FEN letter; white's is upper case, black's lower case.
    pub letter: Name,
    /// Losing it (or having it attacked, when `rules.check` is on) matters.
    #[serde(default)]
    pub royal: bool,
    /// Material value in centipawns (used by evaluation and by tools).
    #[serde(default)]
    pub value: i32,
    /// Moving it counts as progress for `draws.no_progress_plies` (pawns in chess).
    #[serde(default)]
    pub progress: bool,
    /// How it moves and captures: a list of movement atoms.
    pub moves: Vec<Spanned<MoveSpec>>,
    /// How and where it promotes.
    pub promotion: Option<PromotionSpec>,
    /// A region it may never leave: every move must end in it (a palace, one's own side
    /// of the river).
    pub confined: Option<Name>,
    /// How FEN writes it instead of its letter: `+` and another kind's letter (`"+P"`,
    /// shogi's promoted pawn, as Fairy-Stockfish and SFEN write it).
    pub fen: Option<Name>,
    /// Hit points (with `[combat]`): it is removed at 0.
    pub hp: Option<Spanned<u32>>,
    /// Damage its attacks deal to the attacked piece (with `[combat]`).
    pub damage: Option<u32>,
    /// Damage its attacks deal on each square of its `aoe_shape` (with `[combat]`).
    pub aoe: Option<u32>,
    /// The shape (a name under `[shapes]`) its area damage covers.
    pub aoe_shape: Option<Name>,
    /// When it survives damage greater than 0, it strikes the attacker back for this
    /// much (no multiplier; defensive auras apply).
    pub counter: Option<u32>,
}

/// A set of vectors: a name (`"knight"`, `"orthogonal"`, `"forward"`…) or a list of
/// `[dx, dy]` pairs, where positive `dy` points toward the opponent.
#[derive(Debug, Deserialize, Clone)]
#[serde(untagged)]
pub enum VectorSpec {
    Named(String),
    List(Vec<Pair>),
}

/// `[dx, dy]`: exactly two whole numbers. (serde reads `[1, 2, 3]` into a `[i32; 2]` as
/// `[1, 2]`, silently; a designer's typo must be an error instead.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair(pub i32, pub i32);

impl<'de> Deserialize<'de> for Pair {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Pair, D::Error> {
        let v = Vec::<i32>::deserialize(d)?;
        match v[..] {
            [x, y] => Ok(Pair(x, y)),
            _ => Err(serde::de::Error::invalid_length(v.len(), &"a pair [dx, dy]")),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveSpec {
    /// Jumps by these vectors; pieces in between do not matter.
    pub leap: Option<VectorSpec>,
    /// Slides along these directions until blocked (or `range` steps).
    pub slide: Option<VectorSpec>,
    /// Goes to the farthest square on the board along each of these directions.
    pub farthest: Option<VectorSpec>,
    /// Along each direction, passes over exactly one piece (the screen), then goes on like
    /// a slide: the empty squares beyond it and the first piece after them (a cannon).
    pub hop: Option<VectorSpec>,
    /// With `leap`: the leap is blocked by a piece on any square it passes, going
    /// orthogonally first and then diagonally (the xiangqi horse's leg, the elephant's eye).
    #[serde(default)]
    pub blockable: bool,
    /// With `hop`: kinds that may not serve as the screen.
    #[serde(default)]
    pub cannot_hop: Vec<Name>,
    /// Reaches every square of the board (solo boards only: a wildcard strikes any
    /// unfinished square).
    #[serde(default)]
    pub anywhere: bool,
    /// Expands explicit vectors: "all" (every sign and swap), "mirror" (left–right), "none".
    pub symmetry: Option<Spanned<String>>,
    /// Multiplies each vector: `leap = "all", distance = 2` is "exactly two squares away".
    pub distance: Option<Spanned<u32>>,
    /// The most steps a slide may take.
    pub range: Option<Spanned<u32>>,
    /// "both" (default), "move" (to empty squares only), or "capture" (onto enemies only).
    pub mode: Option<Spanned<String>>,
    /// "replace" (default: the mover takes the target's square) or "ranged" (the target is
    /// removed and the mover stays where it is).
    pub capture: Option<Spanned<String>>,
    /// Only from squares of this region (a pawn's first-move steps).
    pub from: Option<Name>,
    /// Only to squares of this region, and (with `from` left out) only from them too: a
    /// move along lines drawn inside a region (janggi's palace diagonals).
    pub to: Option<Name>,
    /// "creates": the squares this move skips can be taken en passant on the next reply.
    /// "captures": this capture may also land on such a skipped square.
    pub en_passant: Option<Spanned<String>>,
    /// The atom is unusable while an enemy piece stands on one of the 8 neighbours.
    #[serde(default)]
    pub silenced_by_adjacent_enemy: bool,
    /// Kinds this atom can never capture.
    #[serde(default)]
    pub cannot_capture: Vec<Name>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromotionSpec {
    /// The region (see `[regions]`) where the piece promotes.
    pub zone: Name,
    /// The kinds it may become (with `source = "list"`; with "graveyard", an optional
    /// filter on what may come back).
    #[serde(default)]
    pub to: Vec<Name>,
    /// Where the new piece comes from: "list" (default: any kind of `to`), "missing"
    /// (kinds of `to` its owner has fewer of than in the setup, else `when_full`) or
    /// "graveyard" (a piece of the owner's that was captured, which leaves the graveyard).
    pub source: Option<Spanned<String>>,
    /// With nothing to promote to: "freeze" (the piece stays, frozen: it cannot act
    /// until its owner loses a piece, which it then becomes, oldest frozen first),
    /// "stay" (it stays as it is) or "forbid" (it may not move there).
    pub when_empty: Option<Spanned<String>>,
    /// A piece that arrives by promotion cannot act (move, capture, attack) until its
    /// owner has finished their next turn.
    #[serde(default)]
    pub returned_waits: bool,
    /// With source = "missing" (only kinds of `to` that its owner has fewer of than at
    /// the start): the kinds offered when none is missing.
    #[serde(default)]
    pub when_full: Vec<Name>,
    /// A move into the zone may also stay unpromoted (except onto `forced`).
    #[serde(default)]
    pub optional: bool,
    /// With `optional`: a region of the zone where the piece must promote (where it
    /// would have no move otherwise); with nothing to become there, `when_empty` holds.
    pub forced: Option<Name>,
    /// A move that starts in the zone may promote too, wherever it ends (shogi).
    #[serde(default)]
    pub leaving: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CastlingSpec {
    /// The FEN castling letter for this move (white's; black's is its lower case).
    pub right: Name,
    /// Squares for white; black's are mirrored unless `side` says otherwise.
    pub king: Name,
    pub rook: Name,
    pub king_to: Name,
    pub rook_to: Name,
    /// Squares that must be empty (besides the king and rook themselves). Default: every
    /// square the king or rook crosses or lands on.
    pub empty: Option<Vec<Name>>,
    /// Squares the king may not stand on, cross or reach while attacked. Default: from
    /// the king's square to its destination.
    pub safe: Option<Vec<Name>>,
    /// "both" (default: black's move mirrors white's), "white" or "black".
    pub side: Option<Spanned<String>>,
    /// Other squares a player may name as the king's destination for this castling
    /// (a user interface's click target, such as b1 for the queenside).
    pub also_to: Option<Vec<Name>>,
    /// Chess960: the king and this rook may stand on any files of their rank (the king
    /// between the rooks); `king` and `rook` name the kinds (those on them in the setup),
    /// the rank, and the side the rook stands on.
    pub free: Option<Spanned<bool>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatSpec {
    /// The stages of an attack, in order; each of "primary", "aoe", "counter", "cleanup"
    /// (remove pieces at 0 HP) and "landing" (where the attacker ends up) exactly once.
    pub stages: Option<Vec<Name>>,
    /// Area damage on moves to empty squares too (default false: attacks only).
    #[serde(default)]
    pub aoe_on_quiet_move: bool,
    /// Area damage hits the attacker's friends too (default false).
    #[serde(default)]
    pub friendly_fire: bool,
    /// Damage of an en-passant capture: "attack" (an ordinary attack by the capturing
    /// piece, default) or a number.
    pub en_passant_damage: Option<toml::Value>,
    /// Damage counts as progress for `draws.no_progress_plies` (default true).
    #[serde(default = "yes")]
    pub damage_is_progress: bool,
}

/// Offsets from the destination square. `orthogonal` and `diagonal` are written for a
/// piece travelling up (north) and up-right (north-east) and are turned with the actual
/// direction of travel; `any` squares apply whatever the direction (and for pieces that
/// do not slide).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeSpec {
    #[serde(default)]
    pub any: Vec<Spanned<Pair>>,
    #[serde(default)]
    pub orthogonal: Vec<Spanned<Pair>>,
    #[serde(default)]
    pub diagonal: Vec<Spanned<Pair>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuraSpec {
    /// "multiply": its holders deal base^stacks times the damage; "divide": its holders
    /// take the damage divided by `divisor`, rounded down.
    pub effect: Name,
    /// The kind of piece that projects it (on friendly pieces).
    pub source: Name,
    /// Within this many squares (king-move distance) of a source.
    #[serde(default = "one")]
    pub radius: u32,
    /// The source holds its own aura (a lone knight always has one stack).
    #[serde(default = "yes")]
    pub includes_source: bool,
    /// multiply: the multiplier per stack.
    pub base: Option<u32>,
    /// multiply: the most stacks that count.
    pub max_stacks: Option<u32>,
    /// multiply: "spend_until_reenter" (a damaging move spends every other source's stack
    /// on the attacker until the two separate and meet again) or "geometric" (stacks are
    /// counted afresh before every move, nothing is spent).
    pub model: Option<Spanned<String>>,
    /// divide: the divisor.
    pub divisor: Option<u32>,
    /// divide: a piece keeps the aura after leaving range until it moves, or for this
    /// many plies outside it (2 = one full round).
    pub persist_plies: Option<u32>,
    /// divide: which damage it reduces: any of "primary", "aoe", "counter", "en_passant".
    pub applies_to: Option<Vec<Name>>,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSpec {
    /// The game ends when this many minutes have passed (the time is an input: see
    /// `Game::set_elapsed`).
    pub limit_minutes: u32,
    /// Then: "draw", or "white"/"black" wins.
    #[serde(default = "draw")]
    pub result: Spanned<String>,
}
