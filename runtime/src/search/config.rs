//! `[ai]` in variant.toml: the computer player's evaluation weights and levels, parsed
//! into typed values with located, did-you-mean errors.
//!
//! ```toml
//! [ai]
//! material = 100        # percent of each piece's `value` (pieces.<kind>.value)
//! mobility = 3          # centipawns per square a non-royal, non-`progress` piece can reach
//! centre = 8            # centipawns per square of empty-board reach above the kind's average
//! advance = 60          # centipawns for a `progress` piece one step from its promotion zone
//! king_shelter = 10     # centipawns per own piece next to a royal piece (middlegame)
//! king_centre = 5       # royal pieces: centralisation in the endgame, shelter at the edge before
//! tempo = 10            # centipawns for the side to move
//! passed = 80           # centipawns for a passed `progress` piece one step from its zone
//! pair = 30             # colour-bound pieces (bishops) on both colours
//! open_file = 20        # per file slider (rook, queen) on a file without `progress` pieces
//!                       # (half with only enemy ones)
//! doubled = 12          # penalty per `progress` piece beyond the first on a file
//! isolated = 10         # penalty per `progress` piece without own ones on the files beside
//! king_attack = 4       # per square of the enemy royal zone a piece reaches (middlegame)
//! hand = 100            # percent of its value a piece in hand is worth (with a reserve)
//! threat = 0            # per enemy piece worth more than the non-`progress` piece attacking it
//! pawn_threat = 0       # ... attacked by a `progress` piece (a pawn)
//! king_danger = 0       # an attack on a royal piece, percent of the danger scale (below):
//!                       # danger² × this / 524,300 in the middlegame, danger × this / 3,400
//!                       # in the endgame, where danger = attackers × their `danger_attack`
//!                       # sum + 69 per attack next to it + 185 per weak square of its ring +
//!                       # each kind's `danger_check` if it has a safe check − 873 without
//!                       # the attacker's most valuable kind (counts past 100 only)
//! hanging = 0           # per enemy piece (not royal) attacked and not defended
//! pawn_shelter = 0      # per file around a royal piece with an own `progress` piece one
//!                       # rank ahead of it (half two ranks ahead); middlegame
//! pawn_storm = 0        # penalty per file around it with an unblocked enemy `progress`
//!                       # piece two ranks ahead (half three ranks ahead); middlegame
//! connected = 0         # per `progress` piece defended by or beside one of its own,
//!                       # × (4 + n²) / 4 after n ranks past its second
//! passed_king = 0       # endgame, a passed `progress` piece c ranks up (w = 5c − 13 > 0):
//!                       # this / 100 × w × (5 × enemy royal distance to its next square
//!                       # − 2 × own royal's − own royal's to the one after), each ≤ 5
//! passed_free = 0       # ... its next square empty and not attacked: this / 10 × w
//! outpost = 0           # per piece (not royal or `progress`) in the enemy half, defended
//!                       # by an own `progress` piece, no enemy one able to come attack it
//! space = 0             # middlegame, per side: (safe squares of its central files on
//!                       # its ranks 2..half + those of them behind its own `progress`
//!                       # pieces) × (its pieces − 1)² × this / 1600 (Stockfish 11's space)
//!
//! [ai.pieces.knight]    # per kind, learned from data (`varia tune --tables`); all optional
//! mobility_mg = 2       # centipawns per square reached, added to `mobility`, middlegame
//! mobility_eg = 4       # ... and endgame (blended by the game phase)
//! square_mg = [...]     # centipawns per square, added to the placement terms: one number
//! square_eg = [...]     # per square, as White sees a diagram (the top rank first, files
//!                       # left to right); Black's pieces read it mirrored across the ranks
//! danger_attack = 81    # with king_danger: weight of each piece of the kind attacking a
//!                       # royal piece's ring (default 50)
//! danger_check = 790    # with king_danger: added when the kind has a safe check (default 800)
//!
//! [ai.levels.master]    # novice, veteran and master exist by default; any name may be added
//! depth = 5             # plies of full-width search
//! time_ms = 8000        # budget: deepening stops, and a deeper iteration is abandoned, past it
//! noise = 0             # centipawns of seeded random noise on each root move's score
//! quiescence = true     # search captures past the depth until the position is quiet
//! reductions = true     # late move reductions (master's default; off for the others)
//! null_move = true      # null-move pruning where the position allows it (master's default)
//! deepen = true         # given a time (movetime, a game clock): deepen past `depth` until
//!                       # it is spent (master's default; the others keep `depth` as a cap)
//! nodes = 0             # a node budget (0 = none): like time, but reproducible
//! futility = 100        # futility margin, centipawns per ply left (0 = off; master 100)
//! late_move_pruning = true  # skip late quiet actions near the frontier (master's default)
//! reverse_futility_depth = 3  # plies from the frontier where a node whose static
//!                       # evaluation beats beta by the margin is cut (with `futility`)
//! reverse_futility = 0  # that margin per ply left, centipawns (0 = `futility`'s)
//! late_move_pruning_depth = 4  # plies from the frontier where late move pruning works
//! move_futility_depth = 0  # skip a late quiet action giving no check whose reduced
//!                       # depth d is below this where the static evaluation + 180 +
//!                       # 130·d is ≤ alpha (0 = off)
//! see = true            # static exchange evaluation orders and prunes captures (master's)
//! iir = true            # internal iterative reduction without a table move (master's)
//! history = true        # quiet-move history with maluses and gravity; bad history
//!                       # reduces a ply more (master's)
//! continuation = true   # quiet moves also judged after the moves one and two plies
//!                       # before (master's; needs history)
//! improving = true      # prune and reduce more where the evaluation fell since the
//!                       # side's last turn (master's)
//! singular = true       # the table's move a ply deeper where every other falls short
//!                       # of it (singular extension, master's)
//! ```
//!
//! `depth` is the cap whenever no time is given from outside (`--no-clock`, UCI
//! `go depth`, the level's own `time_ms` budget). Callers that give a time for the move
//! (engine protocols, `varia match --movetime`) take [`Level::given_time`], which lifts
//! the cap of a level with `deepen`: it then deepens until the time is spent.
//!
//! Every key is optional. A level named in the file changes only the keys it lists; a
//! new level needs `depth`.

use std::path::Path;

use toml::de::{DeTable, DeValue};

use crate::error::{Problem, line_col};
use crate::suggest::did_you_mean;
use crate::variant::Variant;

/// The most plies a level may ask for.
pub const MAX_DEPTH: u32 = 64;

/// Evaluation weights, in centipawns unless stated. See the module docs for each key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Weights {
    /// Percent of each piece's `value`.
    pub material: i32,
    /// Per square a non-royal, non-`progress` piece can move to or capture on.
    pub mobility: i32,
    /// Per square of empty-board reach above the kind's average over the board: knights
    /// and other short-range pieces prefer the centre, rooks on an empty board do not care.
    pub centre: i32,
    /// For a `progress` piece (a pawn) on the square before its promotion zone; the bonus
    /// grows with the square of the distance covered, half of it in the middlegame.
    pub advance: i32,
    /// Per own piece next to a royal piece, in the middlegame.
    pub king_shelter: i32,
    /// Royal pieces, per square of empty-board reach above average: a bonus in the
    /// endgame (go to the centre), a penalty in the middlegame (stay at the edge).
    pub king_centre: i32,
    /// For the side to move.
    pub tempo: i32,
    /// With hit points: percent of a piece's value that depends on its hit points (a piece
    /// at half HP loses half of this share).
    pub hp: i32,
    /// With hit points: per hit point a royal piece has lost.
    pub royal_hp: i32,
    /// With a multiply aura: per stack a piece would attack with now.
    pub stacks: i32,
    /// With a divide aura: per piece holding it.
    pub guarded: i32,
    /// For a passed `progress` piece (no enemy `progress` piece ahead of it on its file
    /// or the files beside it) on the square before its promotion zone; it grows with
    /// the square of the distance covered like `advance`, half of it in the middlegame.
    pub passed: i32,
    /// For a side with colour-bound pieces (kinds whose every move keeps the square's
    /// colour, like bishops) on both colours: the bishop pair.
    pub pair: i32,
    /// Per file-sliding piece (a kind that slides without limit along files, like a rook
    /// or a queen) on a file without `progress` pieces; half of it on a file with only
    /// enemy ones.
    pub open_file: i32,
    /// A penalty per `progress` piece beyond the first of its side on a file.
    pub doubled: i32,
    /// A penalty per `progress` piece with none of its side's on the files beside it.
    pub isolated: i32,
    /// Per square of the enemy royal piece's zone (its square and those next to it) that
    /// a non-royal, non-`progress` piece reaches, summed over the pieces; in the
    /// middlegame (scaled by the game phase like `king_shelter`).
    pub king_attack: i32,
    /// Percent of each piece's `value` (times `material`) that a piece in hand is worth
    /// (with a two-sided `[reserve]`: crazyhouse, shogi).
    pub hand: i32,
    /// Per enemy piece (not royal) that a non-royal, non-`progress` piece attacks and
    /// that is worth more than it (a knight on a rook).
    pub threat: i32,
    /// The same for a `progress` piece (a pawn on a knight).
    pub pawn_threat: i32,
    /// An attack on a royal piece, growing with its square, in percent of the scale
    /// below (100 weighs it as Stockfish 11's classical evaluation does). The danger to a
    /// side: the enemy pieces attacking its royal pieces' ring (their squares and those
    /// next to them; `progress` pieces count, weight 0) times the sum of their kinds'
    /// `danger_attack`, + 69 per attack of a non-`progress` piece on a square next to a
    /// royal piece, + 185 per ring square the enemy attacks and no non-royal piece of
    /// its own defends, + each enemy kind's `danger_check` where that kind can give a
    /// safe check (from a square it reaches that the defender does not attack), − 873
    /// when the enemy has no piece of its most valuable kind. Past 100, the defender
    /// loses `danger² × king_danger / 524,300` centipawns in the middlegame and `danger
    /// × king_danger / 3,400` in the endgame, blended by the phase.
    pub king_danger: i32,
    /// Per enemy piece (not royal) that a side attacks and the enemy does not defend
    /// (royal pieces defend too).
    pub hanging: i32,
    /// Middlegame, per royal piece and each of the three files around it (the middle one
    /// kept off the edge): an own `progress` piece one rank ahead of it counts this, two
    /// ranks ahead half of it (the nearest on the file).
    pub pawn_shelter: i32,
    /// Middlegame, the same files: a penalty for the nearest enemy `progress` piece two
    /// ranks ahead of the royal piece, half of it three ranks ahead, unless an own
    /// `progress` piece stands right in front of it (a blocked storm).
    pub pawn_storm: i32,
    /// Per `progress` piece defended by one of its side's or beside one on its rank, growing
    /// with the ranks it has covered: `connected × (4 + n²) / 4` after `n` ranks past its
    /// side's second.
    pub connected: i32,
    /// Endgame, per passed `progress` piece past its side's third rank (`c` ranks from its
    /// back rank, `w = 5c − 13`): `passed_king / 100 × w × (5 × the enemy royal piece's
    /// distance to the square in front of it − 2 × its own's − its own's to the square
    /// after that)`, distances in king steps up to 5 (Stockfish 11's king proximity).
    pub passed_king: i32,
    /// Per such passed piece whose square in front is empty and not attacked by the
    /// enemy: `passed_free / 10 × w`.
    pub passed_free: i32,
    /// Per non-royal, non-`progress` piece in the enemy half, defended by an own
    /// `progress` piece, that no enemy `progress` piece can come to attack (none on a
    /// file beside it further ahead): a knight's outpost.
    pub outpost: i32,
    /// Middlegame space (Stockfish 11's): per side, the squares of the central files
    /// (all but the two outermost on each side) on its ranks 2 to half the board that
    /// are empty of its `progress` pieces and not attacked by the enemy's, plus those of
    /// them one or two squares behind an own `progress` piece that no enemy piece
    /// attacks, times (its pieces − 1)², times `space / 1600` centipawns; counted while
    /// at least three quarters of the starting material (the game phase) is on the board.
    pub space: i32,
}

impl Weights {
    /// The weight named `name` (a key of `[ai]`, [`WEIGHT_KEYS`]), if there is one.
    pub fn get(&self, name: &str) -> Option<i32> {
        let mut w = *self;
        w.slot(name).map(|s| *s)
    }

    /// Sets the weight named `name`; false if there is no such weight.
    pub fn set(&mut self, name: &str, value: i32) -> bool {
        self.slot(name).map(|s| *s = value).is_some()
    }

    fn slot(&mut self, name: &str) -> Option<&mut i32> {
        Some(match name {
            "material" => &mut self.material,
            "mobility" => &mut self.mobility,
            "centre" => &mut self.centre,
            "advance" => &mut self.advance,
            "king_shelter" => &mut self.king_shelter,
            "king_centre" => &mut self.king_centre,
            "tempo" => &mut self.tempo,
            "hp" => &mut self.hp,
            "royal_hp" => &mut self.royal_hp,
            "stacks" => &mut self.stacks,
            "guarded" => &mut self.guarded,
            "passed" => &mut self.passed,
            "pair" => &mut self.pair,
            "open_file" => &mut self.open_file,
            "doubled" => &mut self.doubled,
            "isolated" => &mut self.isolated,
            "king_attack" => &mut self.king_attack,
            "hand" => &mut self.hand,
            "threat" => &mut self.threat,
            "pawn_threat" => &mut self.pawn_threat,
            "king_danger" => &mut self.king_danger,
            "hanging" => &mut self.hanging,
            "pawn_shelter" => &mut self.pawn_shelter,
            "pawn_storm" => &mut self.pawn_storm,
            "connected" => &mut self.connected,
            "passed_king" => &mut self.passed_king,
            "passed_free" => &mut self.passed_free,
            "outpost" => &mut self.outpost,
            "space" => &mut self.space,
            _ => return None,
        })
    }
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            material: 100,
            mobility: 3,
            centre: 8,
            advance: 60,
            king_shelter: 10,
            king_centre: 5,
            tempo: 10,
            hp: 60,
            royal_hp: 150,
            stacks: 12,
            guarded: 6,
            passed: 80,
            pair: 30,
            open_file: 20,
            doubled: 12,
            isolated: 10,
            king_attack: 4,
            hand: 100,
            threat: 0,
            pawn_threat: 0,
            king_danger: 0,
            hanging: 0,
            pawn_shelter: 0,
            pawn_storm: 0,
            connected: 0,
            passed_king: 0,
            passed_free: 0,
            outpost: 0,
            space: 0,
        }
    }
}

/// How hard and how long one level of the computer player thinks. The default thinks
/// not at all: depth 0, no budget, no noise, every refinement off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    /// Plies of full-width search (iterative deepening goes 1, 2, … up to it).
    pub depth: u32,
    /// A time budget in milliseconds (0 = none): no new iteration starts past it, and an
    /// iteration still running is abandoned for the last complete one. Depth 1 always
    /// completes, so a move is always found.
    pub time_ms: u64,
    /// Centipawns of seeded noise added to each root move's score (uniform in ±noise).
    pub noise: i32,
    /// Whether leaves are searched on through captures until quiet.
    pub quiescence: bool,
    /// A node budget (0 = none), checked like the time budget but reproducible.
    pub nodes: u64,
    /// Late move reductions: quiet actions tried late (after the table's move, captures
    /// and killers) are searched shallower first (more so the later they come, and two
    /// plies more at an expected cut node), and again at full depth only if they beat the
    /// best so far. Deeper search in the same time, at a small risk of missing a quiet
    /// move's point.
    pub reductions: bool,
    /// Null-move pruning: where the side to move, not in check and with pieces other
    /// than royal and `progress` ones (so that passing is rarely its best), would still
    /// be at or above beta after passing its turn to a shallower search, the node is cut.
    /// The back end decides where a pass is sound (the fast one without hit points and
    /// waiting pieces; the slow one, where hooks may count turns, never).
    pub null_move: bool,
    /// Given a time from outside ([`Level::given_time`]), deepen past `depth` until it is
    /// spent.
    pub deepen: bool,
    /// Futility margin in centipawns per ply left (0 = off): off the principal variation
    /// and out of check, a node within `reverse_futility_depth` plies of the frontier
    /// whose static evaluation beats beta by the margin (or `reverse_futility`'s) times
    /// the plies left is cut (reverse futility), and within 3 plies, where it falls that
    /// far below alpha, its quiet actions that give no check are skipped.
    pub futility: i32,
    /// How near the frontier reverse futility cuts, in plies left (default 3).
    pub reverse_futility_depth: i32,
    /// Reverse futility's margin per ply left, centipawns (0: `futility`'s).
    pub reverse_futility: i32,
    /// Late move pruning: within `late_move_pruning_depth` plies of the frontier, off the
    /// principal variation and out of check, only the first `3 + depth²` actions are
    /// tried (half as many plus one where the evaluation is not improving); later quiet
    /// ones (below the killers in the order) are skipped.
    pub late_move_pruning: bool,
    /// How near the frontier late move pruning works, in plies left (default 4).
    pub late_move_pruning_depth: i32,
    /// Futility by action (0 = off): off the principal variation and out of check, a
    /// quiet action below the killers, not the first tried and giving no check, is
    /// skipped where the depth it would be searched to after its late move reduction, d,
    /// is below this and the static evaluation + [`MOVE_FUTILITY_BASE`] +
    /// [`MOVE_FUTILITY_STEP`]·d is at or below alpha (Stockfish's parent-node futility).
    pub move_futility_depth: i32,
    /// Static exchange evaluation: captures that lose material when both sides recapture
    /// with their least valuable pieces are tried after the killers, skipped by
    /// quiescence, and skipped near the frontier when they lose more than a pawn a ply.
    /// Where the back end cannot tell (hit points, explosions, the slow back end), captures
    /// keep the plain victim-then-attacker order.
    pub see: bool,
    /// Internal iterative reduction: a node of depth 4 or more for which the transposition
    /// table has no action is searched a ply shallower.
    pub iir: bool,
    /// Finer quiet-move history: the quiet action that cuts a node gains, and each quiet
    /// action tried before it there loses, by `min(16·depth², 2000)`, with gravity (a
    /// figure moves less the nearer it is to ±16384, so old figures fade); a late quiet
    /// action with a negative history is reduced a ply more. Without it, the history
    /// only grows, by depth² per cutoff.
    pub history: bool,
    /// Continuation history: quiet actions are also judged by how they fared after the
    /// same action one and two plies before (keyed by piece and destination, the table
    /// shared by both), with the same bonuses, maluses and gravity; the sum orders quiet
    /// actions and moves their late move reduction (a ply more when negative, one less
    /// or more per 16384 beyond), and within 3 plies of the frontier a late quiet action
    /// with both figures negative is skipped. Needs `history`.
    pub continuation: bool,
    /// Whether the static evaluation rose since the side's last turn ("improving"): when
    /// not, late move pruning keeps half the actions, late moves are reduced a ply more,
    /// and when it is, reverse futility's margin is a ply smaller.
    pub improving: bool,
    /// Singular extension: at a node of depth 8 or more whose transposition-table entry
    /// (a lower bound or exact, at most 3 plies shallower) has an action, the other
    /// actions are searched to half the depth against the entry's score less 2
    /// centipawns per ply; if none reaches it the table's action is searched a ply
    /// deeper, and if that bound is at or above beta anyway the node is cut (multi-cut).
    pub singular: bool,
}

/// Futility by action ([`Level::move_futility_depth`]): the margin at depth 0 and its
/// growth per ply, centipawns.
pub const MOVE_FUTILITY_BASE: i32 = 180;
pub const MOVE_FUTILITY_STEP: i32 = 130;

impl Default for Level {
    /// No thinking: depth 0, no budget, no noise, every refinement off (their depths at
    /// the values master uses).
    fn default() -> Self {
        Level {
            depth: 0,
            time_ms: 0,
            noise: 0,
            quiescence: false,
            nodes: 0,
            reductions: false,
            null_move: false,
            deepen: false,
            futility: 0,
            reverse_futility_depth: 3,
            reverse_futility: 0,
            late_move_pruning: false,
            late_move_pruning_depth: 4,
            move_futility_depth: 0,
            see: false,
            iir: false,
            history: false,
            continuation: false,
            improving: false,
            singular: false,
        }
    }
}

impl Level {
    /// Reverse futility's margin per ply left (0: off).
    pub fn reverse_futility_margin(&self) -> i32 {
        match (self.futility, self.reverse_futility) {
            (0, _) => 0,
            (f, 0) => f,
            (_, r) => r,
        }
    }

    /// The level for a search given a time for the move (a movetime, a game clock's
    /// share): with `deepen`, `depth` no longer caps it and it deepens until the time
    /// is spent; without, it is unchanged.
    pub fn given_time(self) -> Level {
        if self.deepen { Level { depth: MAX_DEPTH, ..self } } else { self }
    }
}

/// One kind's evaluation terms from `[ai.pieces.<kind>]` (all zero by default): square
/// tables and mobility weights for the middlegame and the endgame, which the evaluation
/// blends by the game phase. Learned from data by `varia tune --tables`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PieceTerms {
    /// Centipawns per square reached, added to [`Weights::mobility`].
    pub mobility_mg: i32,
    pub mobility_eg: i32,
    /// Centipawns per square for White, by square index (a1 first; empty = none). Black
    /// reads the square mirrored across the ranks.
    pub square_mg: Vec<i32>,
    pub square_eg: Vec<i32>,
    /// With `king_danger`: the weight of each piece of this kind attacking a royal
    /// piece's ring (None: [`DANGER_ATTACK`]).
    pub danger_attack: Option<i32>,
    /// With `king_danger`: the danger a safe check by this kind adds (None:
    /// [`DANGER_CHECK`]).
    pub danger_check: Option<i32>,
}

/// `danger_attack` of a kind that sets none.
pub const DANGER_ATTACK: i32 = 50;
/// `danger_check` of a kind that sets none.
pub const DANGER_CHECK: i32 = 800;

impl PieceTerms {
    /// Whether every term is zero (the kind's table can be left out of the file).
    pub fn is_zero(&self) -> bool {
        self.mobility_mg == 0
            && self.mobility_eg == 0
            && self.square_mg.iter().all(|&x| x == 0)
            && self.square_eg.iter().all(|&x| x == 0)
            && self.danger_attack.is_none()
            && self.danger_check.is_none()
    }
}

/// The keys of `[ai.pieces.<kind>]`.
pub const PIECE_KEYS: [&str; 6] =
    ["mobility_mg", "mobility_eg", "square_mg", "square_eg", "danger_attack", "danger_check"];

/// The computer player's settings for one variant: `[ai]` with defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AiConfig {
    pub weights: Weights,
    /// Per kind (by index; shorter than the kinds when the last have none):
    /// `[ai.pieces.<kind>]`.
    pub pieces: Vec<PieceTerms>,
    /// Levels by name: novice, veteran, master, then the file's own, in file order.
    pub levels: Vec<(String, Level)>,
}

/// The built-in levels (RULES.md A-DC11, a ladder measured against Fairy-Stockfish's
/// Skill Levels, README "Strength"): a depth-2 novice with noise, a depth-3 veteran, and
/// a master with late move reductions and null-move pruning that deepens as far as the
/// time it is given allows (depth 5 without one); all search captures to quiet positions
/// (without it the lower levels left pieces hanging and lost every game to Skill Level 0).
pub fn default_levels() -> Vec<(String, Level)> {
    let l = |depth, time_ms, noise, quiescence| Level { depth, time_ms, noise, quiescence, ..Level::default() };
    vec![
        ("novice".to_string(), l(2, 1000, 40, true)),
        ("veteran".to_string(), l(3, 4000, 0, true)),
        (
            "master".to_string(),
            Level {
                reductions: true,
                null_move: true,
                deepen: true,
                futility: 100,
                late_move_pruning: true,
                see: true,
                iir: true,
                history: true,
                continuation: true,
                improving: true,
                singular: true,
                ..l(5, 8000, 0, true)
            },
        ),
    ]
}

impl Default for AiConfig {
    fn default() -> Self {
        AiConfig { weights: Weights::default(), pieces: Vec::new(), levels: default_levels() }
    }
}

/// The deepest a pruning depth may be set (`reverse_futility_depth`, …).
const MAX_PRUNING_DEPTH: i64 = 32;

/// The names of the weights, as `[ai]` spells them (in [`Weights::get`]'s order).
pub const WEIGHT_KEYS: [&str; 29] = [
    "material",
    "mobility",
    "centre",
    "advance",
    "king_shelter",
    "king_centre",
    "tempo",
    "hp",
    "royal_hp",
    "stacks",
    "guarded",
    "passed",
    "pair",
    "open_file",
    "doubled",
    "isolated",
    "king_attack",
    "hand",
    "threat",
    "pawn_threat",
    "king_danger",
    "hanging",
    "pawn_shelter",
    "pawn_storm",
    "connected",
    "passed_king",
    "passed_free",
    "outpost",
    "space",
];
const LEVEL_KEYS: [&str; 20] = [
    "depth",
    "time_ms",
    "noise",
    "quiescence",
    "nodes",
    "reductions",
    "null_move",
    "deepen",
    "futility",
    "late_move_pruning",
    "see",
    "iir",
    "history",
    "continuation",
    "improving",
    "singular",
    "reverse_futility_depth",
    "reverse_futility",
    "late_move_pruning_depth",
    "move_futility_depth",
];

impl AiConfig {
    /// The variant's `[ai]` table, checked. Problems name the file, line and column of
    /// the key when the variant was read from files.
    pub fn from_variant(v: &Variant) -> Result<AiConfig, Vec<Problem>> {
        let mut cx = Cx { v, problems: Vec::new() };
        let config = match v.data.get("ai") {
            None => AiConfig::default(),
            Some(toml::Value::Table(t)) => cx.ai(t),
            Some(other) => {
                cx.problem(&["ai"], false, format!("`ai` must be a table, not {}", describe(other)));
                AiConfig::default()
            }
        };
        if cx.problems.is_empty() {
            Ok(config)
        } else {
            // By place in each file (tables merged from ancestors list their keys first).
            let mut files: Vec<String> = Vec::new();
            for p in &cx.problems {
                if !files.contains(&p.file) {
                    files.push(p.file.clone());
                }
            }
            cx.problems.sort_by_key(|p| (files.iter().position(|f| *f == p.file), p.line == 0, p.line, p.col));
            Err(cx.problems)
        }
    }

    /// The level with this name; the error lists the known ones (with a suggestion).
    pub fn level(&self, name: &str) -> Result<&Level, String> {
        self.find(name).map(|(_, l)| l)
    }

    /// The level's name as the variant spells it (`Master` finds `master`).
    pub fn level_name(&self, name: &str) -> Result<&str, String> {
        self.find(name).map(|(n, _)| n)
    }

    /// A level by name: the exact name, else the same name in another case.
    fn find(&self, name: &str) -> Result<(&str, &Level), String> {
        let found = self.levels.iter().find(|(n, _)| n == name);
        let found = found.or_else(|| self.levels.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)));
        found.map(|(n, l)| (n.as_str(), l)).ok_or_else(|| {
            let names: Vec<&str> = self.levels.iter().map(|(n, _)| n.as_str()).collect();
            format!(
                "unknown level `{name}`{}; the levels are {}",
                did_you_mean(name, names.iter().copied()),
                names.join(", ")
            )
        })
    }
}

struct Cx<'a> {
    v: &'a Variant,
    problems: Vec<Problem>,
}

fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the text \"{s}\""),
        toml::Value::Integer(i) => format!("the number {i}"),
        toml::Value::Float(f) => format!("the number {f}"),
        toml::Value::Boolean(b) => format!("`{b}`"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".into(),
        toml::Value::Table(_) => "a table".into(),
    }
}

impl Cx<'_> {
    fn ai(&mut self, t: &toml::Table) -> AiConfig {
        let mut c = AiConfig::default();
        for (key, value) in t {
            if key == "levels" {
                self.levels(value, &mut c.levels);
                continue;
            }
            if key == "pieces" {
                c.pieces = self.pieces(value);
                continue;
            }
            let slot = match c.weights.slot(key) {
                Some(slot) => slot,
                None => {
                    let other = key.as_str();
                    let known = WEIGHT_KEYS.iter().chain(["levels", "pieces"].iter()).copied();
                    self.problem(
                        &["ai", other],
                        true,
                        format!(
                            "unknown key `ai.{other}`{}; expected one of {}, levels, pieces",
                            did_you_mean(other, known),
                            WEIGHT_KEYS.join(", ")
                        ),
                    );
                    continue;
                }
            };
            if let Some(n) = self.int(&["ai", key], value, -10_000, 10_000) {
                *slot = n as i32;
            }
        }
        c
    }

    /// `[ai.pieces.<kind>]`: per kind, square tables (one number per square, in diagram
    /// order) and mobility weights.
    fn pieces(&mut self, value: &toml::Value) -> Vec<PieceTerms> {
        let v = self.v;
        let mut out: Vec<PieceTerms> = Vec::new();
        let toml::Value::Table(t) = value else {
            self.problem(
                &["ai", "pieces"],
                false,
                format!("`ai.pieces` must be a table of kinds ([ai.pieces.<kind>]), not {}", describe(value)),
            );
            return out;
        };
        let g = v.geometry;
        let nsq = g.len();
        for (name, spec) in t {
            let path = ["ai", "pieces", name.as_str()];
            let Some(k) = v.kinds.iter().position(|kind| &kind.name == name) else {
                let names: Vec<&str> = v.kinds.iter().map(|k| k.name.as_str()).collect();
                self.problem(
                    &path,
                    true,
                    format!(
                        "no kind `{name}` for `ai.pieces.{name}`{}; the kinds are {}",
                        did_you_mean(name, names.iter().copied()),
                        names.join(", ")
                    ),
                );
                continue;
            };
            let toml::Value::Table(spec) = spec else {
                self.problem(
                    &path,
                    false,
                    format!("`ai.pieces.{name}` must be a table (square_mg, mobility_mg, …), not {}", describe(spec)),
                );
                continue;
            };
            let mut terms = PieceTerms::default();
            for (key, value) in spec {
                let p = ["ai", "pieces", name.as_str(), key.as_str()];
                match key.as_str() {
                    "mobility_mg" | "mobility_eg" => {
                        if let Some(n) = self.int(&p, value, -10_000, 10_000) {
                            *if key == "mobility_mg" { &mut terms.mobility_mg } else { &mut terms.mobility_eg } =
                                n as i32;
                        }
                    }
                    "danger_attack" | "danger_check" => {
                        if let Some(n) = self.int(&p, value, 0, 10_000) {
                            *if key == "danger_attack" { &mut terms.danger_attack } else { &mut terms.danger_check } =
                                Some(n as i32);
                        }
                    }
                    "square_mg" | "square_eg" => {
                        let dotted = p.join(".");
                        let toml::Value::Array(items) = value else {
                            self.problem(
                                &p,
                                false,
                                format!(
                                    "`{dotted}` must be a list of {nsq} numbers (one per square), not {}",
                                    describe(value)
                                ),
                            );
                            continue;
                        };
                        if items.len() != nsq {
                            self.problem(
                                &p,
                                false,
                                format!(
                                    "`{dotted}` has {} numbers; the board has {nsq} squares ({} files by {} ranks), one number each, the top rank first",
                                    items.len(),
                                    g.files,
                                    g.ranks
                                ),
                            );
                            continue;
                        }
                        let mut table = vec![0; nsq];
                        let mut ok = true;
                        for (j, item) in items.iter().enumerate() {
                            match item {
                                toml::Value::Integer(n) if (-10_000..=10_000).contains(n) => {
                                    // Diagram order (the top rank first, files left to right):
                                    // the j-th entry is square j mirrored across the ranks.
                                    table[g.mirror(crate::geometry::Square(j as u8)).index()] = *n as i32;
                                }
                                other => {
                                    self.problem(
                                        &p,
                                        false,
                                        format!(
                                            "`{dotted}`: entry {} must be a whole number from -10000 to 10000, not {}",
                                            j + 1,
                                            describe(other)
                                        ),
                                    );
                                    ok = false;
                                    break;
                                }
                            }
                        }
                        if ok {
                            *if key == "square_mg" { &mut terms.square_mg } else { &mut terms.square_eg } = table;
                        }
                    }
                    other => self.problem(
                        &p,
                        true,
                        format!(
                            "unknown key `ai.pieces.{name}.{other}`{}; expected one of {}",
                            did_you_mean(other, PIECE_KEYS),
                            PIECE_KEYS.join(", ")
                        ),
                    ),
                }
            }
            if out.len() <= k {
                out.resize(k + 1, PieceTerms::default());
            }
            out[k] = terms;
        }
        out
    }

    fn levels(&mut self, value: &toml::Value, levels: &mut Vec<(String, Level)>) {
        let toml::Value::Table(t) = value else {
            self.problem(
                &["ai", "levels"],
                false,
                format!("`ai.levels` must be a table of levels ([ai.levels.<name>]), not {}", describe(value)),
            );
            return;
        };
        for (name, spec) in t {
            let path = ["ai", "levels", name.as_str()];
            let toml::Value::Table(spec) = spec else {
                self.problem(
                    &path,
                    false,
                    format!("`ai.levels.{name}` must be a table (depth, time_ms, …), not {}", describe(spec)),
                );
                continue;
            };
            let known = levels.iter().position(|(n, _)| n == name);
            let mut level = known.map_or(Level::default(), |i| levels[i].1);
            for (key, value) in spec {
                let p = ["ai", "levels", name.as_str(), key.as_str()];
                match key.as_str() {
                    "depth" => {
                        if let Some(n) = self.int(&p, value, 1, MAX_DEPTH as i64) {
                            level.depth = n as u32;
                        }
                    }
                    "time_ms" => {
                        if let Some(n) = self.int(&p, value, 0, 3_600_000) {
                            level.time_ms = n as u64;
                        }
                    }
                    "noise" => {
                        if let Some(n) = self.int(&p, value, 0, 10_000) {
                            level.noise = n as i32;
                        }
                    }
                    "nodes" => {
                        if let Some(n) = self.int(&p, value, 0, i64::MAX) {
                            level.nodes = n as u64;
                        }
                    }
                    "futility" | "reverse_futility" => {
                        if let Some(n) = self.int(&p, value, 0, 10_000) {
                            *if key == "futility" { &mut level.futility } else { &mut level.reverse_futility } =
                                n as i32;
                        }
                    }
                    "reverse_futility_depth" | "late_move_pruning_depth" | "move_futility_depth" => {
                        if let Some(n) = self.int(&p, value, 0, MAX_PRUNING_DEPTH) {
                            *match key.as_str() {
                                "reverse_futility_depth" => &mut level.reverse_futility_depth,
                                "late_move_pruning_depth" => &mut level.late_move_pruning_depth,
                                _ => &mut level.move_futility_depth,
                            } = n as i32;
                        }
                    }
                    "quiescence" | "reductions" | "null_move" | "deepen" | "late_move_pruning" | "see" | "iir"
                    | "history" | "continuation" | "improving" | "singular" => match value {
                        toml::Value::Boolean(b) => {
                            *match key.as_str() {
                                "quiescence" => &mut level.quiescence,
                                "reductions" => &mut level.reductions,
                                "null_move" => &mut level.null_move,
                                "late_move_pruning" => &mut level.late_move_pruning,
                                "see" => &mut level.see,
                                "iir" => &mut level.iir,
                                "history" => &mut level.history,
                                "continuation" => &mut level.continuation,
                                "improving" => &mut level.improving,
                                "singular" => &mut level.singular,
                                _ => &mut level.deepen,
                            } = *b
                        }
                        other => self.problem(
                            &p,
                            false,
                            format!("`ai.levels.{name}.{key}` must be true or false, not {}", describe(other)),
                        ),
                    },
                    other => self.problem(
                        &p,
                        true,
                        format!(
                            "unknown key `ai.levels.{name}.{other}`{}; expected one of {}",
                            did_you_mean(other, LEVEL_KEYS),
                            LEVEL_KEYS.join(", ")
                        ),
                    ),
                }
            }
            match known {
                Some(i) => levels[i].1 = level,
                None if level.depth == 0 => {
                    if !spec.contains_key("depth") {
                        self.problem(&path, true, format!("level `{name}` needs a `depth` (plies, 1 to {MAX_DEPTH})"));
                    }
                }
                None => levels.push((name.clone(), level)),
            }
        }
    }

    /// A whole number in `lo..=hi`, or a problem.
    fn int(&mut self, path: &[&str], value: &toml::Value, lo: i64, hi: i64) -> Option<i64> {
        let dotted = path.join(".");
        match value {
            toml::Value::Integer(n) if (lo..=hi).contains(n) => Some(*n),
            toml::Value::Integer(n) => {
                let range = if hi == i64::MAX { format!("at least {lo}") } else { format!("from {lo} to {hi}") };
                self.problem(path, false, format!("`{dotted}` must be {range}, not {n}"));
                None
            }
            other => {
                self.problem(path, false, format!("`{dotted}` must be a whole number, not {}", describe(other)));
                None
            }
        }
    }

    /// Records a problem at the key (`at_key`) or the value of `path` in the variant's
    /// files (the last file of the `extends` chain that has it).
    fn problem(&mut self, path: &[&str], at_key: bool, message: String) {
        self.problems.push(locate(self.v, path, at_key, message));
    }
}

/// A problem at a dotted path of the variant's TOML: file, line and column when one of
/// its files (the variant's own first, then its ancestors) has the key; otherwise the
/// variant's own file, or its name, without a place (e.g. a `--set` override).
fn locate(v: &Variant, path: &[&str], at_key: bool, message: String) -> Problem {
    let files: Vec<&Path> =
        v.sources.iter().rev().map(|p| p.as_path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        if let Some(start) = span_of(&text, path, at_key) {
            let (line, col) = line_col(&text, start);
            return Problem { file: shown(file), line, col, message };
        }
    }
    let file = files.first().map_or_else(|| v.name.clone(), |f| shown(f));
    Problem { file, line: 0, col: 0, message }
}

/// Where the key (or its value) at `path` starts in `text`, if the text has it.
fn span_of(text: &str, path: &[&str], at_key: bool) -> Option<usize> {
    let root = DeTable::parse(text).ok()?;
    let mut table = root.get_ref();
    for (i, part) in path.iter().enumerate() {
        let (k, v) = table.iter().find(|(k, _)| k.get_ref().as_ref() == *part)?;
        if i + 1 == path.len() {
            return Some(if at_key { k.span().start } else { v.span().start });
        }
        match v.get_ref() {
            DeValue::Table(t) => table = t,
            _ => return None,
        }
    }
    None
}

/// A path as the loader shows it: relative to the working directory when inside it.
fn shown(path: &Path) -> String {
    let abs = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    std::env::current_dir()
        .ok()
        .and_then(|c| c.canonicalize().ok())
        .and_then(|c| abs.strip_prefix(c).ok().map(|p| p.display().to_string()))
        .unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_keys_and_values() {
        let text = "a = 1\n[ai]\ntempo = 5\n[ai.levels.master]\ndepht = 6\n";
        assert_eq!(span_of(text, &["ai", "tempo"], true), Some(11));
        assert_eq!(span_of(text, &["ai", "tempo"], false), Some(19));
        assert_eq!(line_col(text, span_of(text, &["ai", "levels", "master", "depht"], true).unwrap()), (5, 1));
        assert_eq!(span_of(text, &["ai", "nothing"], true), None);
    }
}
