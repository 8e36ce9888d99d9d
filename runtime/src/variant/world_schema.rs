//! The `variant.toml` tables of a tiled, unbounded world played with simultaneous
//! orders (`[world]` and its sub-tables), and of a reserve (`[reserve]`): what a designer
//! may write, with a comment on every key. `world_rules` checks them and builds the rules.
//!
//! Kept apart from `schema.rs` so the two-sided schema stays as it is; `VariantFile`
//! gains only the two optional tables.

use serde::Deserialize;
use toml::Spanned;

use super::schema::Name;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorldSpec {
    /// Boards a move's path may enter besides the board it starts on (the set of boards
    /// its squares touch, minus its own).
    #[serde(default = "one")]
    pub max_other_boards: Spanned<u32>,
    /// Kinds that never leave the board they stand on.
    #[serde(default)]
    pub bound_to_board: Vec<Name>,
    /// What a player has and may do.
    #[serde(default)]
    pub players: PlayersSpec,
    /// Kings in danger: the rescue rule and the server's forced flee.
    #[serde(default)]
    pub rescue: RescueSpec,
    /// The phases and micro-steps in which the orders of a round take effect.
    #[serde(default)]
    pub resolution: ResolutionSpec,
    /// Idle players: the bot, claimable boards, the lockout.
    #[serde(default)]
    pub inactivity: InactivitySpec,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayersSpec {
    /// Boards a new player starts with.
    #[serde(default = "three")]
    pub start_boards: Spanned<u32>,
    /// The pieces of each starting board: kind name → `[file, rank]` on the board, 0-based
    /// from its lower-left corner.
    #[serde(default)]
    pub start: super::schema::Ordered<Spanned<[i32; 2]>>,
    /// Orders a player may give per board where they have at least one piece (a move,
    /// a drop or a pass each).
    #[serde(default = "one")]
    pub actions_per_board: Spanned<u32>,
}

impl Default for PlayersSpec {
    fn default() -> Self {
        PlayersSpec { start_boards: three(), start: super::schema::Ordered::default(), actions_per_board: one() }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RescueSpec {
    /// A royal piece that an enemy could take in one move at the start of the round must
    /// be rescued (by a flee, a block or a capture, from any board).
    #[serde(default = "yes")]
    pub required: bool,
    /// When no order rescues it and a safe flee exists, the server moves it there:
    /// "lowest_yx" (the safe square with the lowest y, then x) or "none" (no forced flee).
    #[serde(default = "lowest_yx")]
    pub flee_choice: Spanned<String>,
    /// Where a royal piece nobody placed appears: "lowest_yx" (the lowest free square not
    /// attacked, else the lowest free square) or "none" (it stays pending).
    #[serde(default = "lowest_yx")]
    pub placement: Spanned<String>,
}

impl Default for RescueSpec {
    fn default() -> Self {
        RescueSpec { required: true, flee_choice: lowest_yx(), placement: lowest_yx() }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolutionSpec {
    /// The phases of a round, in order, each once: "place_kings" (royal pieces placed on
    /// conquered boards), "drops" (pieces from reserves), "leaps" (pieces moving by a leap
    /// atom, in one hop) and "slides" (pieces moving by a slide atom, one field per
    /// micro-step).
    #[serde(default = "default_phases")]
    pub phases: Vec<Name>,
    /// The phase of royal pieces' moves: "leaps" or "slides".
    #[serde(default = "leaps")]
    pub king_phase: Spanned<String>,
    /// "after_leaps": the leaps are micro-step 1 and a slider's k-th field micro-step
    /// k+1; "with_leaps": a slider's first field is micro-step 1, with the leaps.
    #[serde(default = "after_leaps")]
    pub slides_start: Spanned<String>,
    /// Two enemy movers that swap adjacent squares in one micro-step collide as if they
    /// arrived together.
    #[serde(default = "yes")]
    pub swap_collision: bool,
    /// Arrival strength by kind name (higher wins; equal strengths destroy each other).
    /// Every kind needs one.
    #[serde(default)]
    pub strength: super::schema::Ordered<Spanned<i64>>,
}

impl Default for ResolutionSpec {
    fn default() -> Self {
        ResolutionSpec {
            phases: default_phases(),
            king_phase: leaps(),
            slides_start: after_leaps(),
            swap_collision: true,
            strength: super::schema::Ordered::default(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InactivitySpec {
    /// After this many rounds in a row without an order, a bot gives the player's orders
    /// (0: never).
    #[serde(default = "ten")]
    pub bot_after: Spanned<u32>,
    /// After this many idle rounds, the player's boards may be taken by a new player
    /// (0: never).
    #[serde(default = "forty_five")]
    pub claimable_after: Spanned<u32>,
    /// Hours a player who abandons their empire must wait before joining again.
    #[serde(default = "twenty_four")]
    pub lockout_hours: Spanned<u32>,
}

impl Default for InactivitySpec {
    fn default() -> Self {
        InactivitySpec { bot_after: ten(), claimable_after: forty_five(), lockout_hours: twenty_four() }
    }
}

/// A reserve: pieces a player holds off the board and may drop (a vault, a hand).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReserveSpec {
    /// The most pieces one reserve holds; pieces beyond it are destroyed (0: no cap).
    #[serde(default = "zero")]
    pub cap: Spanned<u32>,
    /// The kinds it may hold (others, such as royal pieces, go to no reserve).
    pub holds: Vec<Name>,
    /// Where its pieces may be dropped: "presence" (an empty square of a board where the
    /// player has a piece), "anywhere" (any empty square), a region's name, or "none"
    /// (two-sided boards: never dropped, say when they enter by gating).
    #[serde(default = "presence")]
    pub drop: Spanned<String>,
    /// A piece taken goes to the taker's reserve, changing side ("taker"), or nowhere
    /// ("none").
    #[serde(default = "taker")]
    pub captured: Spanned<String>,
    /// Two-sided boards (a hand): per kind, the region where it may be dropped instead of
    /// `drop`'s (say, pawns: not on the first or last rank).
    #[serde(default)]
    pub drop_zones: std::collections::BTreeMap<String, Spanned<String>>,
    /// Two-sided boards (a hand): held pieces enter by gating, onto the square a piece
    /// leaves on its first move from a square of a region (Seirawan chess).
    #[serde(default)]
    pub gating: Option<Spanned<GatingSpec>>,
    /// Two-sided boards: kinds a side may not drop on a file where it has one of that
    /// kind already (shogi's nifu: two unpromoted pawns on a file).
    #[serde(default)]
    pub one_per_file: Vec<Name>,
    /// Two-sided boards: kinds whose drop may not give checkmate (shogi's uchifuzume).
    #[serde(default)]
    pub no_drop_mate: Vec<Name>,
    /// What `no_drop_mate` does: "illegal" (default: such a drop is not listed) or
    /// "loses" (it is legal, and the side it mates wins, as Fairy-Stockfish plays it).
    pub drop_mate: Option<Name>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatingSpec {
    /// The gating squares: a region (relative for each side, like a back rank).
    pub region: Spanned<String>,
    /// The held kinds that may enter by gating (default: every kind the hand holds).
    pub kinds: Option<Vec<Name>>,
}

fn yes() -> bool {
    true
}
fn zero() -> Spanned<u32> {
    Spanned::new(0..0, 0)
}
fn one() -> Spanned<u32> {
    Spanned::new(0..0, 1)
}
fn three() -> Spanned<u32> {
    Spanned::new(0..0, 3)
}
fn ten() -> Spanned<u32> {
    Spanned::new(0..0, 10)
}
fn forty_five() -> Spanned<u32> {
    Spanned::new(0..0, 45)
}
fn twenty_four() -> Spanned<u32> {
    Spanned::new(0..0, 24)
}
fn text(s: &str) -> Spanned<String> {
    Spanned::new(0..0, s.to_string())
}
fn lowest_yx() -> Spanned<String> {
    text("lowest_yx")
}
fn leaps() -> Spanned<String> {
    text("leaps")
}
fn after_leaps() -> Spanned<String> {
    text("after_leaps")
}
fn presence() -> Spanned<String> {
    text("presence")
}
fn taker() -> Spanned<String> {
    text("taker")
}
fn default_phases() -> Vec<Name> {
    ["place_kings", "drops", "leaps", "slides"].iter().map(|s| text(s)).collect()
}
