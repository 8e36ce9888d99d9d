//! Static evaluation, derived from the variant's data: nothing here names a piece.
//!
//! Every term comes from geometry and the piece kinds' declared properties:
//! - material: `pieces.<kind>.value` (a kind without one is valued by its reach);
//! - placement: how many squares a kind reaches from a square on an empty board,
//!   compared with its average (knights centralise, rooks do not care); `progress`
//!   pieces (pawns) gain for advancing toward their promotion zone and for central files,
//!   and more when passed (no enemy `progress` piece ahead on their file or those beside);
//! - mobility: the squares each non-royal, non-`progress` piece reaches now;
//! - royal pieces: shelter by own pieces and the edge in the middlegame, the centre in
//!   the endgame, blended by the remaining material (the game phase);
//! - structure: colour-bound pieces (bishops) on both colours (`pair`), file sliders
//!   (rooks, queens) on files without own `progress` pieces (`open_file`), doubled and
//!   isolated `progress` pieces;
//! - king attack: squares of the enemy royal zone that pieces reach (middlegame), and
//!   king danger, which grows with the square of the attack (after Stockfish 11's
//!   classical evaluation): the attackers of the royal ring and their kinds' weights,
//!   attacks next to the royal piece, weak ring squares, and each kind's safe checks
//!   (squares an attacker reaches, from which it would attack the royal piece, that the
//!   defender does not attack);
//! - threats: enemy pieces attacked by a piece worth less (`threat`, `pawn_threat`);
//! - pieces in hand (with a reserve): their value (`hand`, percent);
//! - a bonus for the side to move;
//! - per kind, from `[ai.pieces.<kind>]` (learned from data): a square table and a
//!   mobility weight, middlegame and endgame, on top of the terms above.
//!
//! The tables are built once per search; evaluating a position reads only the square
//! sets and mailbox of [`Position`].

use crate::bits::Bits;
use crate::geometry::{Geometry, Offset, Square};
use crate::movegen::tables::Tables;
use crate::piece::{MAX_KINDS, Side};
use crate::position::Position;
use crate::variant::{Mode, Shape, Variant};

use super::config::{DANGER_ATTACK, DANGER_CHECK, PieceTerms, Weights};

/// What a royal piece is worth when it can be captured (for move ordering only).
pub(crate) const ROYAL_VALUE: i32 = 10_000;
/// The phase scale: 256 is the opening's material, 0 bare royals and pawns.
const PHASE: i32 = 256;
/// Piece values count up to this much (a thousand pawns), whatever the TOML says, so the
/// evaluation's integer arithmetic never overflows.
const MAX_VALUE: i32 = 100_000;
/// King danger (see [`Weights::king_danger`]): per attack of a non-`progress` piece on a
/// square next to a royal piece, per weak square of the ring, and the discount when the
/// attacker has no piece of its most valuable kind.
const DANGER_HIT: i64 = 69;
const DANGER_WEAK: i64 = 185;
const DANGER_NO_TOP: i64 = 873;
/// Danger up to this costs nothing; past the other bound it counts as that.
const DANGER_FREE: i64 = 100;
const DANGER_MAX: i64 = 1_000_000;
/// The danger's cost: `danger² × king_danger / DANGER_MG` centipawns in the middlegame,
/// `danger × king_danger / DANGER_EG` in the endgame (Stockfish 11's `danger²/4096` and
/// `danger/16` at 100, in its pawn units of 128 and 213).
const DANGER_MG: i64 = 524_300;
const DANGER_EG: i64 = 3_400;

/// Space's units per centipawn at `space = 1` (Stockfish 11's `bonus × weight² / 16`,
/// at 100 about its scale in centipawns).
const SPACE_SCALE: i64 = 1_600;

/// A kind's value as the evaluation uses it.
fn worth(kind: &crate::variant::Kind) -> i32 {
    kind.value.clamp(-MAX_VALUE, MAX_VALUE)
}

/// Evaluation tables for one variant and one set of weights (width-independent).
#[derive(Debug, Clone)]
pub(crate) struct Evaluator {
    nsq: usize,
    geometry: Geometry,
    /// `[(side * MAX_KINDS + kind) * nsq + sq]`: material plus placement, middlegame.
    mg: Vec<i32>,
    /// The same for the endgame.
    eg: Vec<i32>,
    /// Per kind: its weight in the game phase (the material of non-royal,
    /// non-`progress` kinds).
    phase_of: [i32; MAX_KINDS],
    phase_total: i64,
    /// Kinds whose mobility counts (bit per kind).
    mobile: u32,
    /// Kinds whose mobility is counted in the evaluation (a weight that reads it —
    /// mobility, king_attack, threat, king_danger, their own — is not 0).
    counted: u32,
    /// Per kind: centipawns per square reached on top of `mobility`, middlegame and
    /// endgame (`[ai.pieces.<kind>]`).
    mob_mg: [i32; MAX_KINDS],
    mob_eg: [i32; MAX_KINDS],
    royal: u32,
    /// `progress` kinds (bit per kind), for the passed term.
    progress: u32,
    /// `[(side * MAX_KINDS + kind) * nsq + sq]`: the passed bonus, middlegame and endgame.
    passed_mg: Vec<i32>,
    passed_eg: Vec<i32>,
    /// File and rank of each square.
    file: Vec<u8>,
    rank: Vec<u8>,
    nkinds: usize,
    mobility: i32,
    shelter: i32,
    tempo: i32,
    /// Hit points: per kind, the share of its value that scales with its HP (value ×
    /// weight / 100), and the weights for royal HP, stacks and guard.
    hp_share: [i32; MAX_KINDS],
    royal_hp: i32,
    stacks: i32,
    guarded: i32,
    /// Colour-bound kinds (bit per kind): every move keeps the square's colour.
    colour_bound: u32,
    /// Kinds that slide without limit along files (bit per kind).
    file_sliders: u32,
    pair: i32,
    open_file: i32,
    doubled: i32,
    isolated: i32,
    king_attack: i32,
    threat: i32,
    pawn_threat: i32,
    king_danger: i32,
    hanging: i32,
    pawn_shelter: i32,
    pawn_storm: i32,
    connected: i32,
    passed_king: i32,
    passed_free: i32,
    outpost: i32,
    space: i32,
    /// Per side, for `space`: each square of its space zone with the (up to two)
    /// squares in front of it on its file.
    space_zone: [Vec<(usize, [Option<usize>; 2])>; 2],
    /// Per kind, with king_danger: the weight of an attacker of the royal ring, and the
    /// danger a safe check adds.
    danger_attack: [i32; MAX_KINDS],
    danger_check: [i32; MAX_KINDS],
    /// The most valuable non-royal, non-`progress` kind, whose absence discounts the
    /// danger its side causes.
    top: Option<usize>,
    /// Per kind: the kinds (bit per kind) worth more than it and not royal: what its
    /// threats count.
    above: [u32; MAX_KINDS],
    /// Per kind: what one piece in hand is worth (0 for royal kinds).
    hand_value: [i32; MAX_KINDS],
    /// Per kind, for move ordering: its value, or [`ROYAL_VALUE`] for royal kinds.
    pub value: [i32; MAX_KINDS],
    /// `draws.insufficient_material`, which the fast back end applies itself.
    insufficient: Vec<[[u8; MAX_KINDS]; 2]>,
    insufficient_max: u32,
    same_colour: u32,
    light: Vec<bool>,
}

/// How many tuning parameters one kind has ([`Evaluator::features`]): its middlegame
/// square table, its endgame one, then its middlegame and endgame mobility weights.
/// After the kinds' come two weights of `[ai]`: `threat`, then `pawn_threat`.
pub fn piece_stride(nsq: usize) -> usize {
    2 * nsq + 2
}

/// What the per-kind terms (`[ai.pieces]`) add to a position's score, for tuning:
/// the score from White's side is the rest of the evaluation plus, for each term,
/// `count × (weight[mg] × phase + weight[eg] × (256 − phase)) / 256`. Parameters are
/// numbered per kind `k` from `k × piece_stride(nsq)`: the middlegame square table (by
/// square as White sees it), the endgame one, then the mobility weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Features {
    /// The game phase, from 256 (all the starting material) to 0.
    pub phase: i32,
    /// Whether White is to move.
    pub white: bool,
    /// (middlegame parameter, endgame parameter, count from White's side): +1 or −1 for
    /// a piece on a square, ± the squares reached for mobility, ± the pieces threatened
    /// for the threat weights (whose two parameters are the same).
    pub terms: Vec<(u32, u32, i32)>,
}

/// The squares a kind of `side` reaches from `sq` on an empty board.
fn empty_reach(v: &Variant, kind: usize, side: Side, sq: Square) -> Vec<Square> {
    let g = v.geometry;
    let flip = |(x, y): Offset| if side == Side::White { (x, y) } else { (x, -y) };
    let mut out: Vec<Square> = Vec::new();
    for a in &v.kinds[kind].atoms {
        if let Some(r) = a.from
            && !v.regions[r].squares[side.index()].contains(&sq)
        {
            continue;
        }
        for &vec in &a.vectors {
            let d = flip(vec);
            match a.shape {
                Shape::Leap => out.extend(g.offset(sq, d)),
                // Solo boards only (no vectors): a two-sided game never has it.
                Shape::Anywhere => {}
                // A hop's reach on an empty board is taken as its line's (a rook's, for a cannon).
                Shape::Slide | Shape::Farthest | Shape::Hop => {
                    let mut s = sq;
                    let mut steps = 0;
                    let mut last = None;
                    while let Some(n) = g.offset(s, d) {
                        steps += 1;
                        if a.shape != Shape::Farthest {
                            out.push(n);
                        }
                        last = Some(n);
                        s = n;
                        if a.shape != Shape::Farthest && a.range != 0 && steps >= a.range {
                            break;
                        }
                    }
                    if a.shape == Shape::Farthest {
                        out.extend(last);
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The rank of `sq` counted from `side`'s own edge (0 is White's first rank for White,
/// the eighth on a chessboard for Black).
#[inline]
fn relative_rank(g: Geometry, side: Side, sq: Square) -> u8 {
    if side == Side::White { g.rank(sq) } else { g.ranks - 1 - g.rank(sq) }
}

/// The square `sq` as `side` sees it, for the per-kind square tables: White's own index,
/// Black's mirrored across the ranks.
#[inline]
fn relative(g: Geometry, side: Side, sq: Square) -> usize {
    if side == Side::White { sq.index() } else { g.mirror(sq).index() }
}

/// How far (in king steps) `sq` is from the nearest square of `zone`.
fn zone_distance(g: Geometry, zone: &[Square], sq: Square) -> Option<u8> {
    zone.iter().map(|&z| g.distance(z, sq)).min()
}

impl Evaluator {
    /// The evaluation for `v` with the weights `w` and the per-kind terms `pieces` (by
    /// kind index; missing kinds have none).
    pub fn new(v: &Variant, w: &Weights, pieces: &[PieceTerms]) -> Evaluator {
        let g = v.geometry;
        let nsq = g.len();
        let nkinds = v.kinds.len().min(MAX_KINDS);
        let mut e = Evaluator {
            nsq,
            geometry: g,
            mg: vec![0; 2 * MAX_KINDS * nsq],
            eg: vec![0; 2 * MAX_KINDS * nsq],
            phase_of: [0; MAX_KINDS],
            phase_total: 0,
            mobile: 0,
            counted: 0,
            mob_mg: std::array::from_fn(|k| pieces.get(k).map_or(0, |p| p.mobility_mg)),
            mob_eg: std::array::from_fn(|k| pieces.get(k).map_or(0, |p| p.mobility_eg)),
            royal: 0,
            progress: 0,
            passed_mg: vec![0; 2 * MAX_KINDS * nsq],
            passed_eg: vec![0; 2 * MAX_KINDS * nsq],
            file: g.squares().map(|s| g.file(s)).collect(),
            rank: g.squares().map(|s| g.rank(s)).collect(),
            nkinds,
            mobility: w.mobility,
            shelter: w.king_shelter,
            tempo: w.tempo,
            hp_share: std::array::from_fn(|k| v.kinds.get(k).map_or(0, |kind| worth(kind) * w.hp / 100)),
            royal_hp: w.royal_hp,
            stacks: w.stacks,
            guarded: w.guarded,
            colour_bound: 0,
            file_sliders: 0,
            pair: w.pair,
            open_file: w.open_file,
            doubled: w.doubled,
            isolated: w.isolated,
            king_attack: w.king_attack,
            threat: w.threat,
            pawn_threat: w.pawn_threat,
            king_danger: w.king_danger,
            hanging: w.hanging,
            pawn_shelter: w.pawn_shelter,
            pawn_storm: w.pawn_storm,
            connected: w.connected,
            passed_king: w.passed_king,
            passed_free: w.passed_free,
            outpost: w.outpost,
            space: w.space,
            space_zone: [Vec::new(), Vec::new()],
            danger_attack: std::array::from_fn(|k| {
                pieces.get(k).and_then(|p| p.danger_attack).unwrap_or(DANGER_ATTACK)
            }),
            danger_check: std::array::from_fn(|k| pieces.get(k).and_then(|p| p.danger_check).unwrap_or(DANGER_CHECK)),
            top: None,
            above: [0; MAX_KINDS],
            hand_value: [0; MAX_KINDS],
            value: [0; MAX_KINDS],
            insufficient: v.draws.insufficient.clone(),
            insufficient_max: v
                .draws
                .insufficient
                .iter()
                .map(|p| p.iter().flatten().map(|&n| n as u32).sum())
                .max()
                .unwrap_or(0),
            same_colour: v.draws.same_colour,
            light: g.squares().map(|s| g.is_light(s)).collect(),
        };
        for side in Side::BOTH {
            for k in 0..nkinds {
                let kind = &v.kinds[k];
                let reach: Vec<i32> = g.squares().map(|s| empty_reach(v, k, side, s).len() as i32).collect();
                let total: i32 = reach.iter().sum();
                // Above-average reach, in hundredths of a square (to keep integer maths exact).
                let centrality = |s: usize| (reach[s] * nsq as i32 - total) * 100 / nsq as i32;
                let value = if kind.royal && !v.rules.check {
                    // Without the check rule a royal piece can be taken: it is worth the game.
                    ROYAL_VALUE.max(worth(kind))
                } else if kind.value != 0 || kind.royal {
                    worth(kind)
                } else {
                    100 + 25 * total / nsq as i32
                };
                let material = value * w.material / 100;
                if side == Side::White {
                    e.value[k] = if kind.royal { ROYAL_VALUE.max(value) } else { value };
                    if !kind.royal {
                        e.hand_value[k] = material * w.hand / 100;
                    }
                    if kind.royal {
                        e.royal |= 1 << k;
                    } else if kind.progress {
                        // Pawns: their phase weight is nil, their mobility is their advance.
                        e.progress |= 1 << k;
                    } else {
                        e.mobile |= 1 << k;
                        e.phase_of[k] = value.max(0);
                        let bound = g.squares().all(|sq| {
                            let reach = empty_reach(v, k, side, sq);
                            reach.iter().all(|&r| g.is_light(r) == g.is_light(sq))
                        });
                        if bound && total > 0 {
                            e.colour_bound |= 1 << k;
                        }
                        let files = kind.atoms.iter().any(|a| {
                            a.shape == Shape::Slide
                                && a.range == 0
                                && a.from.is_none()
                                && a.mode != Mode::Move
                                && a.vectors.contains(&(0, 1))
                                && a.vectors.contains(&(0, -1))
                        });
                        if files {
                            e.file_sliders |= 1 << k;
                        }
                    }
                }
                let zone: Option<Vec<Square>> =
                    kind.promotion.as_ref().map(|p| v.regions[p.zone].squares[side.index()].clone());
                let far = zone.as_ref().and_then(|z| g.squares().filter_map(|s| zone_distance(g, z, s)).max());
                for sq in g.squares() {
                    let s = sq.index();
                    let i = (side.index() * MAX_KINDS + k) * nsq + s;
                    let (mut mg, mut eg) = (material * 100, material * 100);
                    if kind.royal {
                        mg -= w.king_centre * centrality(s);
                        eg += w.king_centre * centrality(s);
                    } else if kind.progress {
                        // Progress toward the promotion zone, 0 from the start rank to 1 on
                        // the square before the zone (or the ranks, without a zone).
                        let t = match (&zone, far) {
                            (Some(z), Some(far)) if far > 1 => {
                                let d = zone_distance(g, z, sq).unwrap_or(far) as i32;
                                ((far as i32 - 1 - d) * 100 / (far as i32 - 2).max(1)).clamp(0, 100)
                            }
                            _ => {
                                let rel = relative_rank(g, side, sq);
                                (rel as i32 - 1).max(0) * 100 / (g.ranks as i32 - 2).max(1)
                            }
                        };
                        let advance = w.advance * t * t / 100;
                        mg += advance / 2;
                        eg += advance;
                        // In centipawns (`mg` and `eg` are in hundredths of one here).
                        let passed = w.passed * t * t / 100;
                        e.passed_mg[i] = passed / 200;
                        e.passed_eg[i] = passed / 100;
                        // Central files, once the piece has left its start.
                        let file = g.file(sq) as i32;
                        let central = file.min(g.files as i32 - 1 - file);
                        let rel = relative_rank(g, side, sq);
                        let left = (rel as i32 - 1).clamp(0, 2);
                        mg += w.centre * central * left * 50;
                    } else {
                        mg += w.centre * centrality(s);
                        eg += w.centre * centrality(s);
                    }
                    e.mg[i] = mg / 100;
                    e.eg[i] = eg / 100;
                    if let Some(p) = pieces.get(k) {
                        let r = relative(g, side, sq);
                        e.mg[i] += p.square_mg.get(r).copied().unwrap_or(0);
                        e.eg[i] += p.square_eg.get(r).copied().unwrap_or(0);
                    }
                }
            }
        }
        for k in 0..nkinds {
            if e.mobile & (1 << k) != 0
                && (w.mobility != 0
                    || w.king_attack != 0
                    || w.threat != 0
                    || w.king_danger != 0
                    || e.mob_mg[k] != 0
                    || e.mob_eg[k] != 0)
            {
                e.counted |= 1 << k;
            }
            for j in 0..nkinds {
                if e.royal & (1 << j) == 0 && e.value[j] > e.value[k] {
                    e.above[k] |= 1 << j;
                }
            }
        }
        // Space: the central files (all but two on each side, on boards of six files or
        // more) on the side's ranks 2 to half the board.
        let edge = if g.files >= 6 { 2 } else { 0 };
        for side in Side::BOTH {
            let forward = if side == Side::White { 1 } else { -1 };
            for sq in g.squares() {
                let (f, rel) = (g.file(sq), relative_rank(g, side, sq));
                if f < edge || f >= g.files - edge || rel < 1 || rel >= g.ranks / 2 {
                    continue;
                }
                let front = |n: i8| g.offset(sq, (0, n * forward)).map(|s| s.index());
                e.space_zone[side.index()].push((sq.index(), [front(1), front(2)]));
            }
        }
        // The first of the most valuable, as `max_by_key` keeps the last.
        e.top = (0..nkinds).filter(|&k| e.mobile & (1 << k) != 0).rev().max_by_key(|&k| e.value[k]);
        // The phase's full scale: the material of the starting position.
        if let Ok(setup) = crate::notation::fen::parse(v, &v.setup) {
            e.phase_total = setup.pieces.iter().map(|(_, p)| e.phase_of[p.kind.index()] as i64).sum();
        }
        e
    }

    /// The game phase of `pos`, from [`PHASE`] (all the starting material) down to 0.
    #[inline]
    fn phase<B: Bits>(&self, pos: &Position<B>) -> i32 {
        if self.phase_total <= 0 {
            return 0;
        }
        let mut m = 0i64;
        let mut ks = self.mobile;
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            m += self.phase_of[k] as i64 * pos.by_kind[k].count() as i64;
        }
        (m * PHASE as i64 / self.phase_total).min(PHASE as i64) as i32
    }

    /// The score of `pos` for the side to move, in centipawns.
    pub fn evaluate<B: Bits>(&self, pos: &Position<B>, t: &Tables<B>) -> i32 {
        let phase = self.phase(pos);
        let occ = pos.by_side[0] | pos.by_side[1];
        // Sums in 64 bits: a board full of valuable pieces must not overflow.
        let (mut mg, mut eg, mut mob, mut shelter) = (0i64, 0i64, 0i64, 0i64);
        // Mobility by the kinds' own weights, middlegame and endgame.
        let (mut mob_mg, mut mob_eg) = (0i64, 0i64);
        // Each side's royal zone (royal squares and those next to them), for king_attack
        // and king_danger, and the squares next to its royal pieces.
        let mut zone = [B::EMPTY; 2];
        let mut near = [B::EMPTY; 2];
        if self.king_attack != 0 || self.king_danger != 0 {
            for side in Side::BOTH {
                let s = side.index();
                for sq in pos.royals(t, side).iter() {
                    zone[s] |= t.adjacent[sq].with(sq);
                    near[s] |= t.adjacent[sq];
                }
            }
        }
        let mut attack = 0i64;
        // With king_danger: per side attacked, what its enemies bring against it, and per
        // side the squares it attacks (royal pieces apart, and theirs).
        let mut danger = [Danger::default(); 2];
        // Per side, the squares its non-royal pieces attack, those its royal pieces attack,
        // and those its `progress` pieces attack (with any term that reads attacks).
        let mut attacked = [B::EMPTY; 2];
        let mut royal_attacked = [B::EMPTY; 2];
        let mut progress_attacked = [B::EMPTY; 2];
        let need_attacks = self.king_danger != 0
            || self.hanging != 0
            || self.connected != 0
            || self.passed_free != 0
            || self.outpost != 0
            || self.space != 0;
        // Per side and kind: the squares its pieces reach (for safe checks; only with
        // king_danger, so that the evaluation without it does not clear the array).
        let mut reach = if self.king_danger != 0 { Some([[B::EMPTY; MAX_KINDS]; 2]) } else { None };
        let (mut threats, mut pawn_threats) = (0i64, 0i64);
        let threatening = self.threat != 0 || self.pawn_threat != 0;
        for side in Side::BOTH {
            let s = side.index();
            let sign = if side == Side::White { 1 } else { -1 };
            let own = pos.by_side[s];
            #[allow(clippy::needless_range_loop)] // `reach` and the tables are indexed by kind
            for k in 0..self.nkinds {
                let pcs = pos.by_kind[k] & own;
                if pcs.is_empty() {
                    continue;
                }
                let targets = if threatening { self.targets(pos, s, k) } else { B::EMPTY };
                let base = (s * MAX_KINDS + k) * self.nsq;
                let mobile = self.counted & (1 << k) != 0;
                let (kmg, keg) = (self.mob_mg[k] as i64, self.mob_eg[k] as i64);
                let royal = self.royal & (1 << k) != 0;
                let enemy_zone = zone[1 - s];
                let progress = self.progress & (1 << k) != 0;
                // A pawn's moves count only for its threats.
                let pawn_threat = self.pawn_threat != 0 && progress && targets.any();
                for sq in pcs.iter() {
                    mg += sign * self.mg[base + sq] as i64;
                    eg += sign * self.eg[base + sq] as i64;
                    // The piece's moves, and with king danger its attacks: one pass for all.
                    let atoms = &t.kinds[s][k].atoms;
                    let (m, a) = if need_attacks {
                        mobility_attacks(t, atoms, sq, occ, own)
                    } else if mobile || pawn_threat {
                        (mobility(t, atoms, sq, occ, own), B::EMPTY)
                    } else {
                        (B::EMPTY, B::EMPTY)
                    };
                    if need_attacks {
                        // Every piece's attacks (own pieces included: it defends them).
                        if royal {
                            royal_attacked[s] |= a;
                        } else {
                            attacked[s] |= a;
                            if progress {
                                progress_attacked[s] |= a;
                            }
                        }
                    }
                    if let Some(r) = reach.as_mut() {
                        // King danger: what the piece brings against the enemy ring.
                        if !royal && (a & enemy_zone).any() {
                            let d = &mut danger[1 - s];
                            d.attackers += 1;
                            if !progress {
                                d.weight += self.danger_attack[k] as i64;
                                d.hits += (a & near[1 - s]).count() as i64;
                            }
                        }
                        if mobile {
                            r[s][k] |= m;
                        }
                    }
                    if mobile {
                        let n = sign * m.count() as i64;
                        mob += n;
                        mob_mg += n * kmg;
                        mob_eg += n * keg;
                        attack += sign * (m & enemy_zone).count() as i64;
                        if threatening {
                            threats += sign * (m & targets).count() as i64;
                        }
                    } else if pawn_threat {
                        pawn_threats += sign * (m & targets).count() as i64;
                    } else if royal && self.shelter != 0 {
                        shelter += sign * (t.adjacent[sq] & own).count() as i64;
                    }
                }
            }
        }
        // Per side, every square it attacks (its royal pieces' included).
        let all_attacked = [attacked[0] | royal_attacked[0], attacked[1] | royal_attacked[1]];
        if self.progress != 0 {
            let (pmg, peg) = self.passed(pos, t, &all_attacked);
            mg += pmg;
            eg += peg;
        }
        let combat = if pos.combat.is_some() { self.combat(pos, t) } else { 0 };
        let mut hanging = 0i64;
        if self.hanging != 0 {
            let royals = pos.royals(t, Side::White) | pos.royals(t, Side::Black);
            for side in Side::BOTH {
                let s = side.index();
                let sign = if side == Side::White { 1 } else { -1 };
                let hit = pos.by_side[1 - s] & !royals & all_attacked[s] & !all_attacked[1 - s];
                hanging += sign * hit.count() as i64;
            }
        }
        let connected = if self.connected != 0 { self.connected(pos, t, &progress_attacked) } else { 0 };
        let outposts = if self.outpost != 0 { self.outposts(pos, &progress_attacked) } else { 0 };
        let (shelter_units, storm_units) =
            if self.pawn_shelter != 0 || self.pawn_storm != 0 { self.pawn_shield(pos, t) } else { (0, 0) };
        let structure = self.structure(pos) + self.in_hand(pos);
        let space = if self.space != 0 && phase * 4 >= PHASE * 3 {
            self.space_units(pos, &progress_attacked, &all_attacked)
        } else {
            0
        };
        let (phase, full) = (phase as i64, PHASE as i64);
        // King danger, white's view, middlegame and endgame.
        let (mut danger_mg, mut danger_eg) = (0i64, 0i64);
        if let Some(reach) = &reach {
            for (d, dg) in danger.iter().enumerate() {
                let a = 1 - d;
                let no_top = self.top.is_none_or(|k| (pos.by_kind[k] & pos.by_side[a]).is_empty());
                // One attacker is not an attack, unless it is of the most valuable kind.
                if dg.attackers < 1 + no_top as i64 {
                    continue;
                }
                let defended = attacked[d] | royal_attacked[d];
                // The attackers' safe checks: squares they reach from which they would
                // attack a royal piece of `d`, that `d` does not attack; each kind that
                // has one adds its weight once.
                let mut checks = 0i64;
                let mut kinds = self.mobile;
                while kinds != 0 {
                    let k = kinds.trailing_zeros() as usize;
                    kinds &= kinds - 1;
                    let safe = reach[a][k] & !defended;
                    if safe.is_empty() {
                        continue;
                    }
                    let found = pos
                        .royals(t, Side::BOTH[d])
                        .iter()
                        .any(|ksq| (mobility(t, &t.kinds[d][k].atoms, ksq, occ, B::EMPTY) & safe).any());
                    if found {
                        checks += self.danger_check[k] as i64;
                    }
                }
                let weak = (zone[d] & attacked[a] & !attacked[d]).count() as i64;
                // Bounded, so that its square times any weight stays far inside 64 bits.
                let total = (dg.attackers * dg.weight + DANGER_HIT * dg.hits + DANGER_WEAK * weak + checks
                    - DANGER_NO_TOP * no_top as i64)
                    .min(DANGER_MAX);
                if total > DANGER_FREE {
                    let sign = if d == 0 { -1 } else { 1 };
                    let kd = self.king_danger as i64;
                    danger_mg += sign * (total * total).saturating_mul(kd) / DANGER_MG;
                    danger_eg += sign * total * kd / DANGER_EG;
                }
            }
        }
        let white = ((mg + mob_mg + danger_mg + space * self.space as i64 / SPACE_SCALE) * phase
            + (eg + mob_eg + danger_eg) * (full - phase))
            / full
            + mob * self.mobility as i64
            + (shelter * self.shelter as i64
                + attack * self.king_attack as i64
                + (shelter_units * self.pawn_shelter as i64 - storm_units * self.pawn_storm as i64) / 2)
                * phase
                / full
            + hanging * self.hanging as i64
            + connected
            + outposts * self.outpost as i64
            + combat
            + structure
            + threats * self.threat as i64
            + pawn_threats * self.pawn_threat as i64;
        let score = (if pos.stm == Side::White { white } else { -white }) + self.tempo as i64;
        // Below the mate scores, so that no material count reads as a mate.
        let most = super::engine::MATE_BOUND as i64 - 1;
        score.clamp(-most, most) as i32
    }

    /// The pieces of the side not `s` that a piece of kind `k` of side `s` threatens when
    /// it attacks them: those worth more than it, royal ones aside.
    #[inline]
    fn targets<B: Bits>(&self, pos: &Position<B>, s: usize, k: usize) -> B {
        pos.of_kinds(self.above[k]) & pos.by_side[1 - s]
    }

    /// The per-kind terms' features of `pos`, for tuning them ([`Features`]).
    pub fn features<B: Bits>(&self, pos: &Position<B>, t: &Tables<B>) -> Features {
        let nsq = self.nsq;
        let stride = piece_stride(nsq);
        let occ = pos.by_side[0] | pos.by_side[1];
        let mut terms = Vec::new();
        let g = self.geometry;
        // The weights' parameters follow the kinds' (untapered: both halves are one).
        let (threat, pawn_threat) = ((self.nkinds * stride) as u32, (self.nkinds * stride) as u32 + 1);
        for side in Side::BOTH {
            let s = side.index();
            let sign = if side == Side::White { 1 } else { -1 };
            let own = pos.by_side[s];
            for k in 0..self.nkinds {
                let base = (k * stride) as u32;
                let targets = self.targets(pos, s, k);
                for sq in (pos.by_kind[k] & own).iter() {
                    let r = relative(g, side, Square(sq as u8)) as u32;
                    terms.push((base + r, base + nsq as u32 + r, sign));
                    let mobile = self.mobile & (1 << k) != 0;
                    if mobile || self.progress & (1 << k) != 0 {
                        let m = mobility(t, &t.kinds[s][k].atoms, sq, occ, own);
                        let n = m.count() as i32;
                        if mobile && n != 0 {
                            let at = base + 2 * nsq as u32;
                            terms.push((at, at + 1, sign * n));
                        }
                        let hit = (m & targets).count() as i32;
                        if hit != 0 {
                            let at = if mobile { threat } else { pawn_threat };
                            terms.push((at, at, sign * hit));
                        }
                    }
                }
            }
        }
        Features { phase: self.phase(pos), white: pos.stm == Side::White, terms }
    }

    /// Whether `side` has a piece that is neither royal nor `progress` (one that counts
    /// in the game phase).
    #[inline]
    pub fn has_officers<B: Bits>(&self, pos: &Position<B>, side: Side) -> bool {
        (pos.of_kinds(self.mobile) & pos.by_side[side.index()]).any()
    }

    /// The pieces in hand (white's view).
    #[inline]
    fn in_hand<B: Bits>(&self, pos: &Position<B>) -> i64 {
        let mut score = 0i64;
        for side in Side::BOTH {
            let hand = &pos.hands[side.index()];
            if hand.is_empty() {
                continue;
            }
            let sign = if side == Side::White { 1 } else { -1 };
            for k in 0..self.nkinds {
                let n = hand.count(crate::piece::KindId(k as u8)) as i64;
                score += sign * n * self.hand_value[k] as i64;
            }
        }
        score
    }

    /// The pair, open-file, doubled and isolated terms (white's view).
    fn structure<B: Bits>(&self, pos: &Position<B>) -> i64 {
        let mut score = 0i64;
        if self.pair != 0 && self.colour_bound != 0 {
            for side in Side::BOTH {
                let sign = if side == Side::White { 1 } else { -1 };
                let (mut light, mut dark) = (false, false);
                for sq in (pos.of_kinds(self.colour_bound) & pos.by_side[side.index()]).iter() {
                    if self.light[sq] {
                        light = true;
                    } else {
                        dark = true;
                    }
                }
                if light && dark {
                    score += sign * self.pair as i64;
                }
            }
        }
        if self.progress == 0 || (self.open_file == 0 && self.doubled == 0 && self.isolated == 0) {
            return score;
        }
        // `progress` pieces per side and file.
        let mut files = [[0u8; crate::geometry::MAX_SIDE as usize + 2]; 2];
        let mut ks = self.progress;
        while ks != 0 {
            let k = ks.trailing_zeros() as usize;
            ks &= ks - 1;
            for (s, row) in files.iter_mut().enumerate() {
                for sq in (pos.by_kind[k] & pos.by_side[s]).iter() {
                    // Shifted by one: the files beside the first and the last read 0.
                    row[self.file[sq] as usize + 1] += 1;
                }
            }
        }
        for side in Side::BOTH {
            let s = side.index();
            let sign = if side == Side::White { 1 } else { -1 };
            let (own, theirs) = (&files[s], &files[1 - s]);
            for f in 1..own.len() - 1 {
                let n = own[f] as i64;
                if n == 0 {
                    continue;
                }
                score -= sign * (n - 1) * self.doubled as i64;
                if own[f - 1] == 0 && own[f + 1] == 0 {
                    score -= sign * n * self.isolated as i64;
                }
            }
            if self.open_file != 0 && self.file_sliders != 0 {
                for sq in (pos.of_kinds(self.file_sliders) & pos.by_side[s]).iter() {
                    let f = self.file[sq] as usize + 1;
                    if own[f] == 0 {
                        let bonus = if theirs[f] == 0 { self.open_file } else { self.open_file / 2 };
                        score += sign * bonus as i64;
                    }
                }
            }
        }
        score
    }

    /// The passed `progress` pieces' bonus (white's view), middlegame and endgame. White's
    /// pieces go up the ranks and black's down, as for `advance` without a zone.
    ///
    /// With `passed_king` and `passed_free`, past its side's third rank (`c` ranks from
    /// its back rank, `w = 5c − 13`, as Stockfish 11): in the endgame `passed_king / 100 ×
    /// w × (5 × the enemy royal piece's distance to the square in front of it − 2 × its
    /// own's − its own's to the square after, unless the first is the last rank)`,
    /// distances in king steps up to 5; and `passed_free / 10 × w` when the square in
    /// front is empty and the enemy does not attack it (`attacked`: per side, the squares
    /// it attacks).
    fn passed<B: Bits>(&self, pos: &Position<B>, t: &Tables<B>, attacked: &[B; 2]) -> (i64, i64) {
        let all = pos.of_kinds(self.progress);
        if all.is_empty() {
            return (0, 0);
        }
        let (mut mg, mut eg) = (0i64, 0i64);
        let (mut king_units, mut free_units) = (0i64, 0i64);
        let g = self.geometry;
        let last = g.ranks as i32 - 1;
        let near = |royals: B, to: Square| -> i64 {
            royals
                .iter()
                .map(|k| {
                    let (df, dr) = (self.file[k] as i32 - g.file(to) as i32, self.rank[k] as i32 - g.rank(to) as i32);
                    df.abs().max(dr.abs()).min(5) as i64
                })
                .min()
                .unwrap_or(5)
        };
        for side in Side::BOTH {
            let s = side.index();
            let white = side == Side::White;
            let theirs = all & pos.by_side[1 - s];
            let (ours_royal, their_royal) = if self.passed_king != 0 {
                (pos.royals(t, side), pos.royals(t, Side::BOTH[1 - s]))
            } else {
                (B::EMPTY, B::EMPTY)
            };
            for sq in (all & pos.by_side[s]).iter() {
                let (f, r) = (self.file[sq] as i32, self.rank[sq]);
                let blocked = theirs.iter().any(|o| {
                    (self.file[o] as i32 - f).abs() <= 1 && if white { self.rank[o] > r } else { self.rank[o] < r }
                });
                if blocked {
                    continue;
                }
                let i = (s * MAX_KINDS + crate::position::kind_of(pos.code(sq))) * self.nsq + sq;
                let sign = if white { 1 } else { -1 };
                mg += sign * self.passed_mg[i] as i64;
                eg += sign * self.passed_eg[i] as i64;
                let c = if white { r as i32 } else { last - r as i32 };
                let step = if white { 1 } else { -1 };
                let (w, Some(front)) = (5 * c as i64 - 13, g.at(f, r as i32 + step)) else { continue };
                if w <= 0 {
                    continue;
                }
                if self.passed_king != 0 {
                    let mut units = 5 * near(their_royal, front) - 2 * near(ours_royal, front);
                    if let Some(next) = g.at(f, r as i32 + 2 * step) {
                        units -= near(ours_royal, next);
                    }
                    king_units += sign * units * w;
                }
                let front = front.index();
                if self.passed_free != 0 && !(pos.by_side[0] | pos.by_side[1]).has(front) && !attacked[1 - s].has(front)
                {
                    free_units += sign * w;
                }
            }
        }
        let free = free_units * self.passed_free as i64 / 10;
        (mg + free, eg + free + king_units * self.passed_king as i64 / 100)
    }

    /// The connected term (white's view): `progress` pieces defended by one of their
    /// side's (`attacks`: what each side's `progress` pieces attack) or beside one on
    /// their rank, `connected × (4 + n²) / 4` each after `n` ranks past the second.
    fn connected<B: Bits>(&self, pos: &Position<B>, t: &Tables<B>, attacks: &[B; 2]) -> i64 {
        let all = pos.of_kinds(self.progress);
        let last = self.geometry.ranks.saturating_sub(1) as i64;
        let mut units = 0i64;
        for side in Side::BOTH {
            let s = side.index();
            let white = side == Side::White;
            let sign = if white { 1 } else { -1 };
            let own = all & pos.by_side[s];
            for sq in own.iter() {
                let r = self.rank[sq];
                // A neighbour on the same rank is beside it.
                if !attacks[s].has(sq) && !(t.adjacent[sq] & own).iter().any(|o| self.rank[o] == r) {
                    continue;
                }
                let covered = if white { r as i64 } else { last - r as i64 };
                let n = (covered - 1).max(0);
                units += sign * (4 + n * n);
            }
        }
        units * self.connected as i64 / 4
    }

    /// Space (white's view), in units of `space / SPACE_SCALE` centipawns: per side, its safe
    /// zone squares (no own `progress` piece, not attacked by an enemy one), plus those
    /// behind an own `progress` piece that no enemy piece attacks, times (pieces − 1)².
    fn space_units<B: Bits>(&self, pos: &Position<B>, pawn_attacks: &[B; 2], attacks: &[B; 2]) -> i64 {
        let pawns = pos.of_kinds(self.progress);
        let mut n = 0i64;
        for side in Side::BOTH {
            let s = side.index();
            let own = pawns & pos.by_side[s];
            let mut bonus = 0i64;
            for &(sq, front) in &self.space_zone[s] {
                if own.has(sq) || pawn_attacks[1 - s].has(sq) {
                    continue;
                }
                bonus += 1;
                if front.iter().flatten().any(|&f| own.has(f)) && !attacks[1 - s].has(sq) {
                    bonus += 1;
                }
            }
            let weight = (pos.by_side[s].count() as i64 - 1).max(0);
            n += if side == Side::White { 1 } else { -1 } * bonus * weight * weight;
        }
        n
    }

    /// The outposts (white's view): non-royal, non-`progress` pieces in the enemy half,
    /// defended by a `progress` piece of their side (`attacks`: what each side's attack),
    /// that no enemy `progress` piece on a file beside can come to attack (none further
    /// ahead there, as the piece sees it).
    fn outposts<B: Bits>(&self, pos: &Position<B>, attacks: &[B; 2]) -> i64 {
        let all = pos.of_kinds(self.progress);
        let ranks = self.geometry.ranks as i32;
        let mut n = 0i64;
        for side in Side::BOTH {
            let s = side.index();
            let white = side == Side::White;
            let theirs = all & pos.by_side[1 - s];
            for sq in (pos.of_kinds(self.mobile) & pos.by_side[s] & attacks[s]).iter() {
                let (f, r) = (self.file[sq] as i32, self.rank[sq] as i32);
                let deep = if white { 2 * r >= ranks } else { 2 * r < ranks };
                if !deep {
                    continue;
                }
                let chased = theirs.iter().any(|o| {
                    (self.file[o] as i32 - f).abs() == 1
                        && if white { self.rank[o] as i32 > r } else { (self.rank[o] as i32) < r }
                });
                if !chased {
                    n += if white { 1 } else { -1 };
                }
            }
        }
        n
    }

    /// The pawn shield (white's view), in half units of `pawn_shelter` and `pawn_storm`:
    /// per royal piece, on its file and those beside it (the middle one kept off the
    /// edge), the nearest own `progress` piece ahead of it (2 one rank ahead, 1 two
    /// ranks ahead), and the nearest enemy one (2 two ranks ahead, 1 three ranks ahead,
    /// none where an own one stands right in front of it).
    fn pawn_shield<B: Bits>(&self, pos: &Position<B>, t: &Tables<B>) -> (i64, i64) {
        let all = pos.of_kinds(self.progress);
        let width = self.geometry.files as i32;
        let (mut shelter, mut storm) = (0i64, 0i64);
        if all.is_empty() || width < 3 {
            return (0, 0);
        }
        for side in Side::BOTH {
            let s = side.index();
            let white = side == Side::White;
            let sign = if white { 1 } else { -1 };
            for ksq in pos.royals(t, side).iter() {
                let centre = (self.file[ksq] as i32).clamp(1, width - 2);
                let kr = self.rank[ksq] as i32;
                // Per file centre − 1, centre, centre + 1: the nearest own and enemy
                // pieces' distance ahead (0: none).
                let (mut ours, mut theirs) = ([0i32; 3], [0i32; 3]);
                for sq in all.iter() {
                    let df = self.file[sq] as i32 - centre;
                    let d = if white { self.rank[sq] as i32 - kr } else { kr - self.rank[sq] as i32 };
                    if df.abs() > 1 || d <= 0 {
                        continue;
                    }
                    let slot = if pos.by_side[s].has(sq) { &mut ours } else { &mut theirs };
                    let f = (df + 1) as usize;
                    if slot[f] == 0 || d < slot[f] {
                        slot[f] = d;
                    }
                }
                for f in 0..3 {
                    shelter += sign
                        * match ours[f] {
                            1 => 2,
                            2 => 1,
                            _ => 0,
                        };
                    let blocked = ours[f] != 0 && theirs[f] == ours[f] + 1;
                    if !blocked {
                        storm += sign
                            * match theirs[f] {
                                2 => 2,
                                3 => 1,
                                _ => 0,
                            };
                    }
                }
            }
        }
        (shelter, storm)
    }

    /// With hit points (white's view): damaged pieces are worth less, a wounded royal piece
    /// is a liability, stacks (damage to deal) and guard (damage halved) are assets.
    fn combat<B: Bits>(&self, pos: &Position<B>, t: &Tables<B>) -> i64 {
        let mut score = 0i64;
        for side in Side::BOTH {
            let sign = if side == Side::White { 1 } else { -1 };
            for sq in pos.by_side[side.index()].iter() {
                let k = crate::position::kind_of(pos.code(sq));
                let (hp, max, stacks, guarded) = pos.combat_terms(t, sq, side, k);
                let lost = max.saturating_sub(hp) as i64;
                if self.royal & (1 << k) != 0 {
                    score -= sign * lost * self.royal_hp as i64;
                } else if max > 0 {
                    score -= sign * self.hp_share[k] as i64 * lost / max as i64;
                }
                score += sign * (stacks as i64 * self.stacks as i64 + guarded as i64 * self.guarded as i64);
            }
        }
        score
    }

    /// Whether the material left is one the variant declares a draw
    /// (`draws.insufficient_material`), as the game judges it.
    pub fn insufficient<B: Bits>(&self, pos: &Position<B>) -> bool {
        if self.insufficient.is_empty() && self.same_colour == 0 {
            return false;
        }
        let occ = pos.by_side[0] | pos.by_side[1];
        if !self.insufficient.is_empty() && occ.count() <= self.insufficient_max {
            let mut counts = [[0u8; MAX_KINDS]; 2];
            for (s, row) in counts.iter_mut().enumerate() {
                for (k, c) in row.iter_mut().enumerate().take(self.nkinds) {
                    *c = (pos.by_kind[k] & pos.by_side[s]).count().min(u8::MAX as u32) as u8;
                }
            }
            if self.insufficient.iter().any(|pair| {
                (pair[0] == counts[0] && pair[1] == counts[1]) || (pair[1] == counts[0] && pair[0] == counts[1])
            }) {
                return true;
            }
        }
        if self.same_colour != 0 {
            let mut others = B::EMPTY;
            let mut outside = B::EMPTY;
            for k in 0..self.nkinds {
                if self.royal & (1 << k) != 0 {
                    continue;
                }
                if self.same_colour & (1 << k) != 0 {
                    others |= pos.by_kind[k];
                } else {
                    outside |= pos.by_kind[k];
                }
            }
            if others.any() && outside.is_empty() {
                let light = self.light[others.lsb()];
                return others.iter().all(|s| self.light[s] == light);
            }
        }
        false
    }
}

/// What the enemy brings against one side's royal pieces (king danger).
#[derive(Clone, Copy, Default)]
struct Danger {
    /// Pieces attacking the ring (royal squares and those next to them).
    attackers: i64,
    /// The sum of their kinds' `danger_attack`.
    weight: i64,
    /// Their attacks on squares next to a royal piece (`progress` pieces' aside).
    hits: i64,
}

/// The squares a piece on `sq` could move to or capture on (own pieces excluded):
/// the union of its atoms' reach, cut at the first blocker for slides.
#[inline]
fn mobility<B: Bits>(t: &Tables<B>, atoms: &[crate::movegen::tables::CAtom<B>], sq: usize, occ: B, own: B) -> B {
    mobility_attacks(t, atoms, sq, occ, own).0
}

/// [`mobility`], and the squares the piece attacks: those its capturing atoms reach,
/// empty or occupied by either side (a pawn attacks the squares it would capture on).
#[inline]
fn mobility_attacks<B: Bits>(
    t: &Tables<B>,
    atoms: &[crate::movegen::tables::CAtom<B>],
    sq: usize,
    occ: B,
    own: B,
) -> (B, B) {
    let mut out = B::EMPTY;
    let mut att = B::EMPTY;
    for a in atoms {
        if !a.from.has(sq) {
            continue;
        }
        let r = if a.special {
            // Screens of every kind count here: mobility is an estimate.
            crate::movegen::reach(t, a, sq, occ, &[B::EMPTY; crate::piece::MAX_KINDS])
        } else if a.shape != Shape::Slide {
            a.table[sq]
        } else {
            let mut r = B::EMPTY;
            for (i, &d) in a.dirs.iter().enumerate() {
                let ray = a.table[i * t.nsq + sq];
                let blockers = ray & occ;
                r |= if blockers.is_empty() {
                    ray
                } else {
                    let b = if t.positive[d as usize] { blockers.lsb() } else { blockers.msb() };
                    ray & !t.rays[d as usize * t.nsq + b]
                };
            }
            r
        };
        out |= match a.mode {
            Mode::Move => r & !occ,
            Mode::Capture => r & occ & !own,
            Mode::Both => r & !own,
        };
        if a.mode != Mode::Move {
            att |= r;
        }
    }
    (out, att)
}
