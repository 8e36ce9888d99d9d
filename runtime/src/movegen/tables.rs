//! Precomputed tables: every movement atom of every kind, for each side and square,
//! turned into square sets once at load time, so move generation is table lookups and
//! a few bit operations whatever the variant says.
//!
//! Slides use the "classical" ray method, which works for any direction vector and any
//! board width: the ray from a square, cut just past its first blocker.

use crate::bits::{Bits, Wide};
use crate::geometry::{Geometry, Offset, Square};
use crate::piece::{CODES, MAX_KINDS, Side};
use crate::variant::{AnyTables, Mode, Shape, Variant};

#[derive(Debug)]
pub(crate) struct Tables<B: Bits> {
    pub geo: Geometry,
    pub nsq: usize,
    /// Every square of the board.
    pub all: B,
    /// `[sq]`: the (up to 8) neighbours of a square.
    pub adjacent: Vec<B>,
    /// Slide directions in use (and their opposites, for looking back from a target).
    pub dirs: Vec<Offset>,
    pub positive: Vec<bool>,
    /// `rays[dir * nsq + sq]`: the squares from `sq` along `dir`, unlimited.
    pub rays: Vec<B>,
    /// `[side][kind]`.
    pub kinds: [Vec<KindTables<B>>; 2],
    /// Unconditional slide attacks of each side, grouped by direction.
    pub slide_attacks: [Vec<DirAttack>; 2],
    /// Kinds with unconditional leap attacks (bit per kind), per side.
    pub leap_attackers: [u32; 2],
    /// Kinds with unconditional slide attacks (the union of `slide_attacks`' kinds), per side.
    pub slide_attackers: [u32; 2],
    /// Kinds with conditional attacks (silenced, partly immune targets…), per side.
    pub cond_attackers: [u32; 2],
    pub regions: Vec<[B; 2]>,
    /// Per side and kind: where it promotes (empty if it does not).
    pub promo_zone: [Vec<B>; 2],
    /// Per side and kind: where it must promote (the zone, or an optional promotion's
    /// `forced` region; empty if it does not promote).
    pub promo_forced: [Vec<B>; 2],
    /// Per kind: how it promotes (None: it does not).
    pub promo: Vec<Option<PromoRule>>,
    /// Some kind promotes from the graveyard: captured pieces are counted.
    pub track_graveyard: bool,
    /// Per side and kind: how many the setup has (for promotion to "missing" kinds).
    pub initial_count: [[u8; MAX_KINDS]; 2],
    /// Hit points and damage (with `[combat]`), and each kind's numbers.
    pub combat: Option<crate::variant::Combat>,
    pub stats: Vec<crate::variant::Stats>,
    /// `[sq]`: squares within the multiply aura's / divide aura's radius.
    pub near_multiply: Vec<B>,
    pub near_divide: Vec<B>,
    /// Per square: the castling rights that survive a move from or to it.
    pub castle_keep: Vec<u32>,
    /// Per piece code: the castling rights that survive a move of that piece (a free
    /// castling's king may stand on any square of its rank, so it loses them by kind).
    pub castle_keep_code: Vec<u32>,
    pub castles: Vec<CastleTables<B>>,
    /// Per side: the bits of its entries in `castles` (the listing visits only these).
    pub castle_side: [u32; 2],
    pub royal: u32,
    pub progress: u32,
    /// Whether the en-passant squares can be trimmed to those an enemy could take.
    pub ep_trim: bool,
    /// With `rules.royals_facing` "illegal" or "break", or an end rule `when = "facing"`:
    /// per square, the squares above and below it on its file (empty otherwise, and then
    /// never looked at).
    pub facing: Vec<(B, B)>,
    /// `royals_facing = "illegal"`: facing counts as an attack.
    pub facing_illegal: bool,
    /// `royals_facing = "break"`: royals that face each other must be parted (or pass).
    pub facing_break: bool,
    /// A position remembers whether the royals faced each other before the last action.
    pub track_facing: bool,
    /// `[rules] pass`.
    pub pass: bool,
    /// End rules (bit per index) whose result is decided by `points`.
    pub end_by_points: u32,
    /// `[rules.points]`.
    pub points: Option<crate::variant::Points>,
    /// Hands (a two-sided `[reserve]`): what they hold and where each kind drops.
    pub hand: Option<Box<HandTables<B>>>,
    pub zobrist: Zobrist,
    /// `[[rules.end]]`, compiled (empty: no such rule, and never looked at).
    pub ends: Vec<CEnd<B>>,
    /// `rules.forced_capture`: a capture must be made when one is legal.
    pub forced_capture: bool,
    /// `rules.giving_check = "illegal"`.
    pub checks_illegal: bool,
    /// An end rule counts the checks each side gives (`when = "checks"`).
    pub count_checks: bool,
    /// `[rules.explosion]` (None: captures blast nothing, and this is never looked at).
    pub explosion: Option<Box<BlastTables<B>>>,
}

/// `[rules.explosion]`, as the core applies it.
#[derive(Debug)]
pub(crate) struct BlastTables<B: Bits> {
    /// `[side][sq]`: the squares a capture on `sq` by `side` blasts (besides `sq`).
    pub area: [Vec<B>; 2],
    /// Kinds the blast leaves standing (bit per kind).
    pub spares: u32,
    pub capturer_explodes: bool,
    /// Royal kinds a blast removes (bit per kind): a royal piece of the attacker's within
    /// the blast of a square shields that square from the attacker's captures.
    pub blasted_royals: u32,
}

/// An end rule as the move generator tests it (see `variant::EndWhen`).
#[derive(Debug)]
pub(crate) enum CEnd<B: Bits> {
    Reach { kinds: u32, region: [B; 2], reply: bool, verdict: crate::variant::Verdict },
    Extinct { kinds: Option<u32>, at_most: u32, opponent_at_least: u32, claim: bool, verdict: crate::variant::Verdict },
    Checks { count: u8, verdict: crate::variant::Verdict },
    Passes { verdict: crate::variant::Verdict },
    Facing { verdict: crate::variant::Verdict },
}

/// A two-sided variant's hands, compiled.
#[derive(Debug)]
pub(crate) struct HandTables<B: Bits> {
    pub rule: crate::variant::ReserveRule,
    /// `[side][kind]`: the squares it may be dropped on (when empty).
    pub zone: [Vec<B>; 2],
    /// `[kind]`: the kind a promoted piece of this kind goes to the hand as.
    pub unpromoted: Vec<usize>,
    /// Gating (`[reserve] gating`), None without it.
    pub gating: Option<GateTables<B>>,
    /// Kinds a promotion makes that no hand holds: taken, they always go to the hand as
    /// the kind they promoted from (bit per kind).
    pub reverts: u32,
    /// Kinds (bit per kind) that may not be dropped on a file where their side already
    /// has one of them (`one_per_file`: shogi's nifu).
    pub one_per_file: u32,
    /// Kinds whose drop may not checkmate (`no_drop_mate`: shogi's uchifuzume): such drops
    /// are not listed...
    pub no_drop_mate: u32,
    /// ...or, with `drop_mate = "loses"`, are listed and lose (the side mated wins).
    pub drop_mate_loses: u32,
    /// `[sq]`: the squares of its file.
    pub file: Vec<B>,
}

/// Gating, compiled: where a piece's first move opens a gate, and which held kinds enter.
#[derive(Debug)]
pub(crate) struct GateTables<B: Bits> {
    /// `[side]`: the gating squares.
    pub region: [B; 2],
    /// The held kinds that may enter (bit per kind).
    pub kinds: u32,
}

#[derive(Debug)]
pub(crate) struct KindTables<B: Bits> {
    pub atoms: Vec<CAtom<B>>,
    /// `[sq]`: squares from which this kind's unconditional leap captures hit `sq`.
    pub rev_leap: Vec<B>,
    /// `[sq]`: squares from which its conditional captures could hit `sq` on an empty board.
    pub rev_cond: Vec<B>,
    /// `[sq]`: squares from which its en-passant captures hit `sq`.
    pub rev_ep: Vec<B>,
}

/// A compiled movement atom for one side.
#[derive(Debug)]
pub(crate) struct CAtom<B: Bits> {
    pub shape: Shape,
    /// Leap/Farthest: targets per square. Slide: range-limited rays, `[i * nsq + sq]` for
    /// the i-th of `dirs`.
    pub table: Vec<B>,
    pub dirs: Vec<u8>,
    pub mode: Mode,
    pub ranged: bool,
    /// Squares it may be used from (all, unless the atom names a region).
    pub from: B,
    pub creates_ep: bool,
    pub captures_ep: bool,
    pub silenced: bool,
    pub cannot_capture: u32,
    /// Blockable leaps: `[i * nsq + sq]` for the i-th vector, its target (one bit, or
    /// none off the board) and the squares a piece on which blocks it.
    pub legs: Vec<(B, B)>,
    /// Hops: kinds that may not be the screen (bit per kind).
    pub cannot_hop: u32,
    /// Slides and hops of a confined piece: the squares they may end on (leap tables are
    /// cut to it when built).
    pub within: Option<B>,
    /// A hop, a blockable leap or a confined slide: reached through the slower path.
    pub special: bool,
    /// All squares when it may capture (its mode is not `move`), else none: its captures
    /// are `reach & enemy & capture_mask`, without a branch on the mode.
    pub capture_mask: B,
    /// All squares when it may move to an empty square (its mode is not `capture`).
    pub quiet_mask: B,
    /// Silenced by an adjacent enemy, ranged, or with kinds it may not take: the listing
    /// tests these only when this one flag is set (most atoms have none of them).
    pub rare: bool,
}

/// How a kind promotes, compiled.
#[derive(Debug, Clone)]
pub(crate) struct PromoRule {
    /// The kinds it may become (source "list").
    pub list: Vec<crate::piece::KindId>,
    /// Only kinds of `list` its owner has fewer of than at the start, else `when_full`.
    pub missing_only: bool,
    pub when_full: Vec<crate::piece::KindId>,
    /// The new piece comes from the owner's graveyard...
    pub graveyard: bool,
    /// ...and must be one of these kinds (bit per kind).
    pub filter: u32,
    pub when_empty: crate::variant::WhenEmpty,
    /// The returned piece waits for its owner's next turn to end.
    pub waits: bool,
    /// A move that starts in the zone may promote too, wherever it ends.
    pub leaving: bool,
}

/// Attackers along one direction: kinds that slide that way, looked for by scanning
/// from the target along `scan` (the opposite direction).
#[derive(Debug, Clone)]
pub(crate) struct DirAttack {
    pub scan: u8,
    pub kinds: u32,
    /// Per kind: the most steps (0 = unlimited).
    pub range: [u8; MAX_KINDS],
    pub limited: bool,
}

#[derive(Debug)]
pub(crate) struct CastleTables<B: Bits> {
    pub side: Side,
    pub king: usize,
    pub rook: usize,
    pub king_to: usize,
    pub rook_to: usize,
    pub empty: B,
    pub safe: Vec<usize>,
    /// The kinds that castle (from the setup), when known.
    pub king_kind: Option<usize>,
    pub rook_kind: Option<usize>,
    /// A free castling (Chess960): its king stands anywhere on its rank.
    pub free: Option<FreeCastle<B>>,
}

/// A free castling's squares, by where its king stands.
#[derive(Debug)]
pub(crate) struct FreeCastle<B: Bits> {
    /// The rank the king stands on.
    pub home: B,
    pub king_kind: usize,
    /// `[king square]`: the squares that must be empty (all the king and rook cross or
    /// reach, but themselves), and those the king may not be attacked on (from its
    /// square to `king_to`); None where the king is on the wrong side of the rook.
    pub by_king: Vec<Option<(B, Vec<usize>)>>,
}

/// Random keys for position hashing, from a fixed seed: hashes are the same in every
/// run and process.
#[derive(Debug)]
pub(crate) struct Zobrist {
    /// `[code * nsq + sq]`.
    pub piece: Vec<u64>,
    pub side: u64,
    pub castle: [u64; 32],
    pub ep: Vec<u64>,
    /// Pieces waiting a turn, per square.
    pub waiting: Vec<u64>,
    /// Frozen pieces, per square and place in the queue (`[sq * 16 + place]`).
    pub frozen: Vec<u64>,
    /// Graveyard counts: `[(side * MAX_KINDS + kind) * 16 + count]`.
    pub graveyard: Vec<u64>,
    /// Hand counts: `[(side * MAX_KINDS + kind) * 64 + count]` (counts past 63 share a key).
    pub hand: Vec<u64>,
    /// Pieces that arrived by promotion, per square.
    pub promoted: Vec<u64>,
    /// `[side * 256 + checks given]`, when checks are counted.
    pub checks: Vec<u64>,
    /// Open gates, per square (with gating).
    pub gate: Vec<u64>,
}

impl Zobrist {
    /// `checks`: draw the check-count keys (only variants that count checks use them;
    /// they are drawn last, so the other keys are the same either way).
    /// `gates`: draw the gating keys, last (so the other keys are the same either way).
    fn new(nsq: usize, checks: bool, gates: bool) -> Zobrist {
        let mut state = 0x005e_ed0f_7a1a_u64;
        let mut next = move || {
            // SplitMix64: a fixed, documented generator; never change it silently.
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Zobrist {
            piece: (0..CODES * nsq).map(|_| next()).collect(),
            side: next(),
            castle: std::array::from_fn(|_| next()),
            ep: (0..nsq).map(|_| next()).collect(),
            waiting: (0..nsq).map(|_| next()).collect(),
            frozen: (0..nsq * 16).map(|_| next()).collect(),
            graveyard: (0..2 * MAX_KINDS * 16).map(|_| next()).collect(),
            // Drawn after the older keys, so those keep their values.
            hand: (0..2 * MAX_KINDS * 64).map(|_| next()).collect(),
            promoted: (0..nsq).map(|_| next()).collect(),
            checks: if checks { (0..2 * 256).map(|_| next()).collect() } else { Vec::new() },
            gate: if gates { (0..nsq).map(|_| next()).collect() } else { Vec::new() },
        }
    }
}

pub(crate) fn build_any(v: &Variant) -> AnyTables {
    let n = v.geometry.len();
    if n <= 64 {
        AnyTables::Narrow(std::sync::Arc::new(Tables::<u64>::build(v)))
    } else if n <= 128 {
        AnyTables::Mid(std::sync::Arc::new(Tables::<u128>::build(v)))
    } else {
        AnyTables::Wide(std::sync::Arc::new(Tables::<Wide>::build(v)))
    }
}

impl<B: Bits> Tables<B> {
    /// A placeholder with no squares, replaced before the variant is used.
    pub fn empty() -> Self {
        Tables {
            geo: Geometry { files: 1, ranks: 1 },
            nsq: 0,
            all: B::EMPTY,
            adjacent: vec![],
            dirs: vec![],
            positive: vec![],
            rays: vec![],
            kinds: [vec![], vec![]],
            slide_attacks: [vec![], vec![]],
            leap_attackers: [0; 2],
            slide_attackers: [0; 2],
            cond_attackers: [0; 2],
            regions: vec![],
            promo_zone: [vec![], vec![]],
            promo_forced: [vec![], vec![]],
            promo: vec![],
            track_graveyard: false,
            initial_count: [[0; MAX_KINDS]; 2],
            combat: None,
            stats: vec![],
            near_multiply: vec![],
            near_divide: vec![],
            castle_keep: vec![],
            castle_keep_code: vec![u32::MAX; CODES],
            castles: vec![],
            castle_side: [0; 2],
            royal: 0,
            progress: 0,
            ep_trim: true,
            facing: vec![],
            facing_illegal: false,
            facing_break: false,
            track_facing: false,
            pass: false,
            end_by_points: 0,
            points: None,
            hand: None,
            zobrist: Zobrist::new(0, false, false),
            ends: vec![],
            forced_capture: false,
            checks_illegal: false,
            count_checks: false,
            explosion: None,
        }
    }

    #[inline(always)]
    pub fn ray(&self, dir: u8, sq: usize) -> B {
        self.rays[dir as usize * self.nsq + sq]
    }

    fn set(&self, squares: impl IntoIterator<Item = Square>) -> B {
        squares.into_iter().fold(B::EMPTY, |b, s| b.with(s.index()))
    }

    fn dir_index(dirs: &mut Vec<Offset>, d: Offset) -> u8 {
        if let Some(i) = dirs.iter().position(|&x| x == d) {
            return i as u8;
        }
        dirs.push(d);
        (dirs.len() - 1) as u8
    }

    fn build(v: &Variant) -> Self {
        let geo = v.geometry;
        let nsq = geo.len();
        let mut t = Tables::<B>::empty();
        t.geo = geo;
        t.nsq = nsq;
        let counts_checks = v.rules.end.ends.iter().any(|e| matches!(e.when, crate::variant::EndWhen::Checks { .. }));
        let gates = v.hand().is_some_and(|h| h.gating.is_some());
        t.zobrist = Zobrist::new(nsq, counts_checks, gates);
        t.all = t.set(geo.squares());
        let king: Vec<Offset> = vec![(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)];
        t.adjacent = geo.squares().map(|sq| t.set(king.iter().filter_map(|&d| geo.offset(sq, d)))).collect();
        t.royal = v.kinds.iter().enumerate().filter(|(_, k)| k.royal).fold(0, |m, (i, _)| m | 1 << i);
        t.progress = v.kinds.iter().enumerate().filter(|(_, k)| k.progress).fold(0, |m, (i, _)| m | 1 << i);
        t.regions = v.regions.iter().map(|r| [t.set(r.squares[0].clone()), t.set(r.squares[1].clone())]).collect();
        t.forced_capture = v.rules.end.forced_capture;
        t.checks_illegal = v.rules.end.checks_illegal;
        t.ends = v
            .rules
            .end
            .ends
            .iter()
            .map(|e| match e.when {
                crate::variant::EndWhen::Reach { kinds, region, reply } => {
                    CEnd::Reach { kinds, region: t.regions[region], reply, verdict: e.verdict }
                }
                crate::variant::EndWhen::Extinct { kinds, at_most, opponent_at_least, claim } => {
                    CEnd::Extinct { kinds, at_most, opponent_at_least, claim, verdict: e.verdict }
                }
                crate::variant::EndWhen::Checks { count } => CEnd::Checks { count, verdict: e.verdict },
                crate::variant::EndWhen::Passes => CEnd::Passes { verdict: e.verdict },
                crate::variant::EndWhen::Facing => CEnd::Facing { verdict: e.verdict },
            })
            .collect();
        t.end_by_points =
            v.rules.end.ends.iter().enumerate().filter(|(_, e)| e.by_points).fold(0, |m, (i, _)| m | 1 << i);
        t.points = v.rules.end.points.clone();
        t.pass = v.rules.pass;
        t.facing_illegal = v.rules.royals_facing == crate::variant::RoyalsFacing::Illegal;
        t.facing_break = v.rules.royals_facing == crate::variant::RoyalsFacing::Break;
        t.track_facing = t.facing_break || v.rules.end.ends.iter().any(|e| e.when == crate::variant::EndWhen::Facing);
        t.count_checks = t.ends.iter().any(|e| matches!(e, CEnd::Checks { .. }));
        t.explosion = v.rules.explosion.as_ref().map(|x| {
            let area = |side: Side| -> Vec<B> {
                let flip = if side == Side::White { 1 } else { -1 };
                geo.squares()
                    .map(|sq| t.set(x.around.iter().filter_map(|&(dx, dy)| geo.offset(sq, (dx, dy * flip)))))
                    .collect()
            };
            Box::new(BlastTables {
                area: [area(Side::White), area(Side::Black)],
                spares: x.spares,
                capturer_explodes: x.capturer_explodes,
                blasted_royals: t.royal & !x.spares,
            })
        });

        // Every slide direction, for both sides, with its opposite.
        let flip = |side: Side, (x, y): Offset| if side == Side::White { (x, y) } else { (x, -y) };
        let mut dirs = Vec::new();
        for k in &v.kinds {
            for a in k.atoms.iter().filter(|a| matches!(a.shape, Shape::Slide | Shape::Hop)) {
                for side in Side::BOTH {
                    for &vec in &a.vectors {
                        let d = flip(side, vec);
                        Self::dir_index(&mut dirs, d);
                        Self::dir_index(&mut dirs, (-d.0, -d.1));
                    }
                }
            }
        }
        t.positive = dirs.iter().map(|&(x, y)| y > 0 || (y == 0 && x > 0)).collect();
        t.rays = vec![B::EMPTY; dirs.len() * nsq];
        for (d, &dv) in dirs.iter().enumerate() {
            for sq in geo.squares() {
                t.rays[d * nsq + sq.index()] = t.set(walk(geo, sq, dv, 0));
            }
        }
        t.dirs = dirs;

        let all_royal = t.royal;
        for side in Side::BOTH {
            let s = side.index();
            let mut slide_attacks: Vec<DirAttack> = Vec::new();
            for (ki, kind) in v.kinds.iter().enumerate() {
                let mut kt = KindTables {
                    atoms: Vec::new(),
                    rev_leap: vec![B::EMPTY; nsq],
                    rev_cond: vec![B::EMPTY; nsq],
                    rev_ep: vec![B::EMPTY; nsq],
                };
                for a in &kind.atoms {
                    let from = match a.from {
                        Some(r) => t.regions[r][s],
                        None => t.all,
                    };
                    let vectors: Vec<Offset> = a.vectors.iter().map(|&x| flip(side, x)).collect();
                    // Where its moves may end: its piece's region (`confined`) and the
                    // atom's own `to`, both.
                    let within = match (a.within, a.to) {
                        (None, None) => None,
                        (w, to) => Some(w.map_or(t.all, |r| t.regions[r][s]) & to.map_or(t.all, |r| t.regions[r][s])),
                    };
                    let mut c = CAtom {
                        shape: a.shape,
                        table: Vec::new(),
                        dirs: Vec::new(),
                        mode: a.mode,
                        ranged: a.ranged,
                        from,
                        creates_ep: a.creates_en_passant,
                        captures_ep: a.captures_en_passant,
                        silenced: a.silenced_by_adjacent_enemy,
                        cannot_capture: a.cannot_capture,
                        legs: Vec::new(),
                        cannot_hop: a.cannot_hop,
                        within: None,
                        special: false,
                        capture_mask: if a.mode != Mode::Move { !B::EMPTY } else { B::EMPTY },
                        quiet_mask: if a.mode != Mode::Capture { !B::EMPTY } else { B::EMPTY },
                        rare: a.silenced_by_adjacent_enemy || a.ranged || a.cannot_capture != 0,
                    };
                    match a.shape {
                        Shape::Leap if a.blockable => {
                            for &d in &vectors {
                                for sq in geo.squares() {
                                    let to = geo.offset(sq, d).filter(|&x| within.is_none_or(|w| w.has(x.index())));
                                    let leg = to.map_or(B::EMPTY, |_| t.set(leg_squares(geo, sq, d)));
                                    c.legs.push((to.map_or(B::EMPTY, |x| B::bit(x.index())), leg));
                                }
                            }
                            c.table = geo
                                .squares()
                                .map(|sq| {
                                    (0..vectors.len()).fold(B::EMPTY, |acc, i| acc | c.legs[i * nsq + sq.index()].0)
                                })
                                .collect()
                        }
                        Shape::Leap => {
                            c.table = geo
                                .squares()
                                .map(|sq| t.set(vectors.iter().filter_map(|&d| geo.offset(sq, d))))
                                .collect()
                        }
                        Shape::Farthest => {
                            c.table = geo
                                .squares()
                                .map(|sq| t.set(vectors.iter().filter_map(|&d| walk(geo, sq, d, 0).last().copied())))
                                .collect()
                        }
                        // Solo boards only: the two-sided tables of a solo variant are never used.
                        Shape::Anywhere => c.table = geo.squares().map(|_| t.set(std::iter::empty())).collect(),
                        Shape::Slide | Shape::Hop => {
                            for &d in &vectors {
                                c.dirs.push(t.dirs.iter().position(|&x| x == d).unwrap() as u8);
                                c.table.extend(geo.squares().map(|sq| t.set(walk(geo, sq, d, a.range))));
                            }
                            c.within = within;
                        }
                    }
                    c.special = a.shape == Shape::Hop || !c.legs.is_empty() || c.within.is_some();
                    // A confined leap never lands outside its region: cut the table once.
                    if let (Some(w), Shape::Leap | Shape::Farthest) = (within, a.shape) {
                        for x in c.table.iter_mut() {
                            *x &= w;
                        }
                    }
                    // How this atom counts for attacks on royal pieces.
                    let immune_royals = a.cannot_capture & all_royal;
                    let never_attacks = all_royal != 0 && immune_royals == all_royal;
                    // Hops and blockable leaps depend on pieces the pin scan does not
                    // look at: they are judged on the very position, like conditional ones.
                    let conditional = a.silenced_by_adjacent_enemy
                        || (immune_royals != 0 && !never_attacks)
                        || (a.shape == Shape::Slide && (a.from.is_some() || within.is_some()))
                        || a.shape == Shape::Hop
                        || a.blockable;
                    if a.captures() && !never_attacks {
                        if conditional {
                            t.cond_attackers[s] |= 1 << ki;
                            // Reach on an empty board, ignoring blockers.
                            for f in from.iter() {
                                let reach = if matches!(a.shape, Shape::Slide | Shape::Hop) {
                                    c.dirs.iter().enumerate().fold(B::EMPTY, |acc, (i, _)| acc | c.table[i * nsq + f])
                                        & within.unwrap_or(t.all)
                                } else {
                                    c.table[f]
                                };
                                for to in reach.iter() {
                                    kt.rev_cond[to] = kt.rev_cond[to].with(f);
                                }
                            }
                        } else if a.shape == Shape::Slide {
                            for &d in &c.dirs {
                                let scan = t
                                    .dirs
                                    .iter()
                                    .position(|&x| x == (-t.dirs[d as usize].0, -t.dirs[d as usize].1))
                                    .unwrap() as u8;
                                let entry = match slide_attacks.iter_mut().find(|e| e.scan == scan) {
                                    Some(e) => e,
                                    None => {
                                        slide_attacks.push(DirAttack {
                                            scan,
                                            kinds: 0,
                                            range: [0; MAX_KINDS],
                                            limited: false,
                                        });
                                        slide_attacks.last_mut().unwrap()
                                    }
                                };
                                // Two slide atoms of one kind along one direction: the longer wins.
                                let old = entry.range[ki];
                                let had = entry.kinds & (1 << ki) != 0;
                                entry.range[ki] = if !had {
                                    a.range
                                } else if old == 0 || a.range == 0 {
                                    0
                                } else {
                                    old.max(a.range)
                                };
                                entry.kinds |= 1 << ki;
                                entry.limited |= entry.range[ki] != 0;
                            }
                        } else {
                            t.leap_attackers[s] |= 1 << ki;
                            for f in from.iter() {
                                for to in c.table[f].iter() {
                                    kt.rev_leap[to] = kt.rev_leap[to].with(f);
                                }
                            }
                        }
                    }
                    if a.captures_en_passant {
                        if a.shape == Shape::Slide {
                            t.ep_trim = false;
                        } else {
                            for f in from.iter() {
                                for to in c.table[f].iter() {
                                    kt.rev_ep[to] = kt.rev_ep[to].with(f);
                                }
                            }
                        }
                    }
                    kt.atoms.push(c);
                }
                t.kinds[s].push(kt);
            }
            t.slide_attackers[s] = slide_attacks.iter().fold(0, |acc, da| acc | da.kinds);
            t.slide_attacks[s] = slide_attacks;
            t.promo_zone[s] =
                v.kinds.iter().map(|k| k.promotion.as_ref().map_or(B::EMPTY, |p| t.regions[p.zone][s])).collect();
            t.promo_forced[s] = v
                .kinds
                .iter()
                .map(|k| k.promotion.as_ref().and_then(|p| p.forced).map_or(B::EMPTY, |r| t.regions[r][s]))
                .collect();
        }

        t.promo = v
            .kinds
            .iter()
            .map(|k| {
                k.promotion.as_ref().map(|p| PromoRule {
                    missing_only: p.missing_only,
                    when_full: p.when_full.clone(),
                    list: p.to.clone(),
                    graveyard: p.from_graveyard,
                    filter: if p.to.is_empty() { u32::MAX } else { p.to.iter().fold(0, |m, k| m | 1 << k.0) },
                    when_empty: p.when_empty,
                    waits: p.returned_waits,
                    leaving: p.leaving,
                })
            })
            .collect();
        t.track_graveyard = t.promo.iter().flatten().any(|p| p.graveyard);
        if let Ok(setup) = crate::notation::fen::parse(v, &v.setup) {
            for (_, p) in &setup.pieces {
                let n = &mut t.initial_count[p.side.index()][p.kind.index()];
                *n = n.saturating_add(1);
            }
        }
        if t.facing_illegal || t.track_facing {
            t.facing =
                geo.squares().map(|sq| (t.set(walk(geo, sq, (0, 1), 0)), t.set(walk(geo, sq, (0, -1), 0)))).collect();
        }
        if let Some(rule) = v.hand() {
            let zone = |side: Side, k: usize| {
                let own = rule.drop_zones.iter().find(|z| z.0.index() == k).map(|z| z.1);
                let region = match rule.drop {
                    crate::variant::DropZone::Region(r) => own.or(Some(r)),
                    _ => own,
                };
                match region {
                    Some(r) => t.regions[r][side.index()],
                    None if rule.drop == crate::variant::DropZone::Never => B::EMPTY,
                    None => t.all,
                }
            };
            let unpromoted: Vec<usize> = (0..v.kinds.len())
                .map(|k| v.unpromoted(crate::piece::KindId(k as u8)).map_or(k, |u| u.index()))
                .collect();
            let reverts = (0..v.kinds.len())
                .filter(|&k| unpromoted[k] != k && !rule.holds(crate::piece::KindId(k as u8)))
                .fold(0, |m, k| m | 1 << k);
            let bits = |l: &[crate::piece::KindId]| l.iter().fold(0u32, |m, k| m | 1 << k.index());
            let hand = HandTables {
                rule: rule.clone(),
                zone: [Side::White, Side::Black].map(|side| (0..v.kinds.len()).map(|k| zone(side, k)).collect()),
                unpromoted,
                reverts,
                one_per_file: bits(&rule.one_per_file),
                no_drop_mate: if rule.drop_mate_loses { 0 } else { bits(&rule.no_drop_mate) },
                drop_mate_loses: if rule.drop_mate_loses { bits(&rule.no_drop_mate) } else { 0 },
                file: geo.squares().map(|sq| t.set(geo.squares().filter(|&o| geo.file(o) == geo.file(sq)))).collect(),
                gating: rule.gating.as_ref().map(|g| GateTables { region: t.regions[g.region], kinds: g.kinds }),
            };
            t.hand = Some(Box::new(hand));
        }
        t.combat = v.combat.clone();
        t.stats = v.kinds.iter().map(|k| k.stats.clone()).collect();
        let near = |t: &Self, r: u8| -> Vec<B> {
            geo.squares().map(|sq| t.set(geo.squares().filter(|&o| o != sq && geo.distance(sq, o) <= r))).collect()
        };
        if let Some(c) = &v.combat {
            t.near_multiply = near(&t, c.multiply.as_ref().map_or(1, |m| m.radius));
            t.near_divide = near(&t, c.divide.as_ref().map_or(1, |d| d.radius));
        }
        t.castle_keep = vec![u32::MAX; nsq];
        for (i, c) in v.castling.iter().enumerate() {
            if c.free.is_none() {
                t.castle_keep[c.king.index()] &= !(1 << i);
            } else if let Some(k) = c.king_kind {
                t.castle_keep_code[crate::piece::Piece::new(k, c.side).code() as usize] &= !(1 << i);
            }
            t.castle_keep[c.rook.index()] &= !(1 << i);
            let free = c.free.and(c.king_kind).map(|k| {
                let home: Vec<Square> = geo.squares().filter(|&s| geo.rank(s) == geo.rank(c.rook)).collect();
                let span = |a: Square, b: Square| -> Vec<Square> {
                    let (lo, hi) = (geo.file(a).min(geo.file(b)), geo.file(a).max(geo.file(b)));
                    home.iter().copied().filter(|&s| (lo..=hi).contains(&geo.file(s))).collect()
                };
                let outward = c.outward(geo);
                let by_king = geo
                    .squares()
                    .map(|king| {
                        let side = (geo.file(c.rook) as i32 - geo.file(king) as i32).signum();
                        if geo.rank(king) != geo.rank(c.rook) || side != outward {
                            return None;
                        }
                        let empty = span(king, c.king_to).into_iter().chain(span(c.rook, c.rook_to));
                        let empty = t.set(empty.filter(|&s| s != king && s != c.rook));
                        // From the king's square to king_to, in the king's order.
                        let mut safe = span(king, c.king_to);
                        if geo.file(c.king_to) < geo.file(king) {
                            safe.reverse();
                        }
                        Some((empty, safe.into_iter().map(|s| s.index()).collect()))
                    })
                    .collect();
                FreeCastle { home: t.set(home.iter().copied()), king_kind: k.index(), by_king }
            });
            t.castle_side[c.side.index()] |= 1 << i;
            t.castles.push(CastleTables {
                side: c.side,
                king: c.king.index(),
                rook: c.rook.index(),
                king_to: c.king_to.index(),
                rook_to: c.rook_to.index(),
                empty: t.set(c.empty.iter().copied()),
                safe: c.safe.iter().map(|s| s.index()).collect(),
                king_kind: c.king_kind.map(|k| k.index()),
                rook_kind: c.rook_kind.map(|k| k.index()),
                free,
            });
        }
        t
    }
}

/// The squares a blockable leap by `d` from `sq` passes: its orthogonal steps first
/// (as many as the larger part exceeds the smaller), then its diagonal ones, the target
/// excluded. [1, 2] passes [0, 1] (the horse's leg), [2, 2] passes [1, 1] (the
/// elephant's eye), [2, 3] passes [0, 1] and [1, 2].
pub(crate) fn leg_squares(geo: Geometry, sq: Square, (dx, dy): Offset) -> Vec<Square> {
    let (ax, ay) = (dx.unsigned_abs(), dy.unsigned_abs());
    let ortho = if ax > ay { (dx.signum(), 0) } else { (0, dy.signum()) };
    let diag = (dx.signum(), dy.signum());
    let mut steps = vec![ortho; ax.abs_diff(ay) as usize];
    steps.extend(std::iter::repeat_n(diag, ax.min(ay) as usize));
    steps.pop();
    let mut out = Vec::new();
    let (mut x, mut y) = (0i8, 0i8);
    for (sx, sy) in steps {
        x += sx;
        y += sy;
        if let Some(s) = geo.offset(sq, (x, y)) {
            out.push(s);
        }
    }
    out
}

/// The squares from `sq` along `d`, at most `range` steps (0 = to the edge).
pub(crate) fn walk(geo: Geometry, sq: Square, d: Offset, range: u8) -> Vec<Square> {
    let mut out = Vec::new();
    let mut s = sq;
    while let Some(n) = geo.offset(s, d) {
        out.push(n);
        if range != 0 && out.len() >= range as usize {
            break;
        }
        s = n;
    }
    out
}
