//! Legal move generation for any variant the tables describe.
//!
//! Pseudo-legal targets come from the atoms' tables. Legality (when `rules.check` is
//! on) takes one of two paths:
//! - **fast**: with one royal piece and only plain attackers near it, checkers and
//!   pins are found once per position and each move is tested with a mask;
//! - **exact**: otherwise (several royals, a silenced shooter aimed at the king, an
//!   en-passant capture, a shot), the move is applied to a copy and the royal pieces
//!   are tested for attack.
//!
//! Both paths accept exactly the same moves; the fast one only skips work.

pub(crate) mod ends;
pub(crate) mod tables;

use crate::action::{Action, ActionKind};
use crate::bits::Bits;
use crate::event::NoEvents;
use crate::geometry::Square;
use crate::piece::MAX_KINDS;
use crate::position::{Position, kind_of};
use crate::variant::{Shape, WhenEmpty};
use tables::{CAtom, Tables};

/// The squares an atom reaches from `from` with occupancy `occ` (before the mode and
/// capture rules are applied); `by_kind` tells a hop which pieces may not screen.
#[inline(always)]
pub(crate) fn reach<B: Bits>(t: &Tables<B>, a: &CAtom<B>, from: usize, occ: B, by_kind: &[B; MAX_KINDS]) -> B {
    // Hops, blockable leaps and confined slides: one flag, so plain atoms pay one branch.
    if a.special {
        return special(t, a, from, occ, by_kind);
    }
    if a.shape != Shape::Slide {
        return a.table[from];
    }
    slide(t, a, from, occ)
}

#[inline(always)]
fn slide<B: Bits>(t: &Tables<B>, a: &CAtom<B>, from: usize, occ: B) -> B {
    let mut out = B::EMPTY;
    for (i, &d) in a.dirs.iter().enumerate() {
        let ray = a.table[i * t.nsq + from];
        let blockers = ray & occ;
        out |= if blockers.is_empty() {
            ray
        } else {
            let b = if t.positive[d as usize] { blockers.lsb() } else { blockers.msb() };
            ray & !t.ray(d, b)
        };
    }
    out
}

#[inline(never)]
fn special<B: Bits>(t: &Tables<B>, a: &CAtom<B>, from: usize, occ: B, by_kind: &[B; MAX_KINDS]) -> B {
    let out = match a.shape {
        Shape::Hop => {
            // The pieces it may not use as a screen.
            let mut no_screen = B::EMPTY;
            let mut ks = a.cannot_hop;
            while ks != 0 {
                let k = ks.trailing_zeros() as usize;
                ks &= ks - 1;
                no_screen |= by_kind[k];
            }
            hop(t, a, from, occ, no_screen)
        }
        Shape::Slide => slide(t, a, from, occ),
        _ if !a.legs.is_empty() => blockable(t, a, from, occ),
        _ => a.table[from],
    };
    match a.within {
        Some(w) => out & w,
        None => out,
    }
}

/// Along each direction: over the first piece (the screen), then the empty squares
/// beyond it and the first piece after them.
#[inline(always)]
fn hop<B: Bits>(t: &Tables<B>, a: &CAtom<B>, from: usize, occ: B, no_screen: B) -> B {
    let mut out = B::EMPTY;
    for (i, &d) in a.dirs.iter().enumerate() {
        let ray = a.table[i * t.nsq + from];
        let blockers = ray & occ;
        if blockers.is_empty() {
            continue;
        }
        let first = |b: B| if t.positive[d as usize] { b.lsb() } else { b.msb() };
        let screen = first(blockers);
        if no_screen.has(screen) {
            continue;
        }
        let beyond = ray & t.ray(d, screen);
        let next = beyond & occ;
        out |= if next.is_empty() { beyond } else { beyond & !t.ray(d, first(next)) };
    }
    out
}

/// A leap's targets whose passed squares are all empty.
#[inline(always)]
fn blockable<B: Bits>(t: &Tables<B>, a: &CAtom<B>, from: usize, occ: B) -> B {
    let mut out = B::EMPTY;
    let mut i = from;
    while i < a.legs.len() {
        let (to, leg) = a.legs[i];
        if (leg & occ).is_empty() {
            out |= to;
        }
        i += t.nsq;
    }
    out
}

const MAX_PINS: usize = 16;

/// How moves are checked for leaving a royal piece attacked.
#[allow(clippy::large_enum_variant)]
enum Guard<B: Bits> {
    /// No check rule (or no royal piece): every move is legal.
    Off,
    /// Apply and test each move.
    Exact,
    // Unboxed: a guard lives on the stack for one listing, and an allocation per listing
    // showed in playout profiles.
    Fast(FastGuard<B>),
}

struct FastGuard<B: Bits> {
    checkers: B,
    /// With one checker: the squares where a move resolves it (capture or block).
    evasion: B,
    pinned: B,
    pins: [(usize, B); MAX_PINS],
    npins: usize,
}

impl<B: Bits> FastGuard<B> {
    /// Where a non-royal piece on `from` may move (not en passant, not a shot) without
    /// leaving the royal piece attacked: nowhere in a double check, onto the evasion
    /// squares in a single one, and along its pin line if pinned.
    #[inline(always)]
    fn mask(&self, from: usize) -> B {
        if self.checkers.more_than_one() {
            return B::EMPTY;
        }
        let m = if self.checkers.any() { self.evasion } else { !B::EMPTY };
        if self.pinned.has(from) { m & self.pin_line(from) } else { m }
    }

    #[inline(always)]
    fn pin_line(&self, sq: usize) -> B {
        for &(s, line) in &self.pins[..self.npins] {
            if s == sq {
                return line;
            }
        }
        B::EMPTY
    }
}

impl<B: Bits> Guard<B> {
    /// Sets the guard of `pos` in place: a fast guard built and returned was copied once
    /// more (a call to `memcpy` of its pins in every listing).
    #[inline(always)]
    fn set(&mut self, pos: &Position<B>, t: &Tables<B>, check: bool) {
        *self = Guard::Off;
        if !check {
            return;
        }
        let us = pos.stm;
        let them = us.opponent();
        let royals = pos.royals(t, us);
        if royals.is_empty() {
            return;
        }
        // Several royals, too many slide directions, or an opponent piece that a capture
        // could bring back (a frozen piece resolving): test each move exactly.
        // Royal facing: any move off a file between two royals may expose them.
        // Explosions: a capture may blast either side's royal pieces.
        if royals.more_than_one()
            || t.facing_illegal
            || t.explosion.is_some()
            || t.slide_attacks[them.index()].len() > MAX_PINS
            || !pos.queue[them.index()].is_empty()
        {
            *self = Guard::Exact;
            return;
        }
        let king = royals.lsb();
        let active_enemy = pos.by_side[them.index()] & !pos.inactive;
        // A conditional attacker (e.g. a shooter that adjacency silences) aimed at the king:
        // whether it gives check can change with any move, so test each move.
        let mut cond = t.cond_attackers[them.index()];
        while cond != 0 {
            let k = cond.trailing_zeros() as usize;
            cond &= cond - 1;
            if (t.kinds[them.index()][k].rev_cond[king] & pos.by_kind[k] & active_enemy).any() {
                *self = Guard::Exact;
                return;
            }
        }
        let occ = pos.occupied();
        let own = pos.by_side[us.index()];
        let checkers = pos.attackers(t, king, them, occ);
        *self = Guard::Fast(FastGuard {
            checkers,
            evasion: checkers,
            pinned: B::EMPTY,
            pins: [(0, B::EMPTY); MAX_PINS],
            npins: 0,
        });
        let Guard::Fast(g) = self else { return };
        let mut leap_checkers = B::EMPTY;
        if checkers.any() {
            let mut ks = t.leap_attackers[them.index()];
            while ks != 0 {
                let k = ks.trailing_zeros() as usize;
                ks &= ks - 1;
                leap_checkers |= t.kinds[them.index()][k].rev_leap[king] & pos.by_kind[k];
            }
            leap_checkers &= checkers;
        }
        for da in &t.slide_attacks[them.index()] {
            let ray = t.ray(da.scan, king);
            let blockers = ray & occ;
            if blockers.is_empty() {
                continue;
            }
            let pos_dir = t.positive[da.scan as usize];
            let b1 = if pos_dir { blockers.lsb() } else { blockers.msb() };
            if checkers.has(b1) {
                if !leap_checkers.has(b1) {
                    g.evasion |= ray & !t.ray(da.scan, b1);
                }
                continue;
            }
            if !own.has(b1) {
                continue;
            }
            let rest = t.ray(da.scan, b1) & occ;
            if rest.is_empty() {
                continue;
            }
            let b2 = if pos_dir { rest.lsb() } else { rest.msb() };
            if !active_enemy.has(b2) {
                continue;
            }
            let k2 = kind_of(pos.code(b2));
            if da.kinds & (1 << k2) == 0 {
                continue;
            }
            if da.limited && da.range[k2] != 0 {
                let (dx, dy) = t.dirs[da.scan as usize];
                let d = t.geo.distance(Square(king as u8), Square(b2 as u8)) as u32;
                if d / (dx.unsigned_abs().max(dy.unsigned_abs()) as u32) > da.range[k2] as u32 {
                    continue;
                }
            }
            g.pinned = g.pinned.with(b1);
            g.pins[g.npins] = (b1, ray & !t.ray(da.scan, b2));
            g.npins += 1;
        }
    }

    /// For a non-royal piece on `from`: the squares its ordinary moves (not en passant,
    /// not shots) may go to without leaving a royal piece attacked, when one mask says it
    /// (the same answers as [`Guard::allows`]); None when each move must be tested.
    #[inline(always)]
    fn piece_mask(&self, from: usize) -> Option<B> {
        match self {
            Guard::Off => Some(!B::EMPTY),
            Guard::Exact => None,
            Guard::Fast(g) => Some(g.mask(from)),
        }
    }

    /// Whether `a` (by a piece of kind `kind`) leaves no royal piece of the mover attacked.
    #[inline(always)]
    fn allows(&self, pos: &Position<B>, t: &Tables<B>, a: Action, royal: bool) -> bool {
        match self {
            Guard::Off => true,
            Guard::Exact => exact(pos, t, a),
            Guard::Fast(g) => {
                if royal {
                    royal_allowed(pos, t, a)
                } else {
                    match a.kind {
                        ActionKind::EnPassant | ActionKind::Shot => exact(pos, t, a),
                        _ => g.mask(a.from.index()).has(a.to.index()),
                    }
                }
            }
        }
    }
}

/// Under the fast guard (one royal piece, plain attackers): whether the royal piece's own
/// action `a` leaves it unattacked. [`Guard::allows`] asks this for every royal move;
/// [`legal_deferred`] leaves it to the caller, for the moves it picks.
#[inline(always)]
fn royal_allowed<B: Bits>(pos: &Position<B>, t: &Tables<B>, a: Action) -> bool {
    if a.kind == ActionKind::Shot {
        return exact(pos, t, a);
    }
    let (from, to) = (a.from.index(), a.to.index());
    let them = pos.stm.opponent();
    let occ = (pos.occupied() ^ B::bit(from)) | B::bit(to);
    if pos.attacked(t, to, them, occ) {
        return false;
    }
    let mut cond = t.cond_attackers[them.index()];
    while cond != 0 {
        let k = cond.trailing_zeros() as usize;
        cond &= cond - 1;
        if (t.kinds[them.index()][k].rev_cond[to] & pos.pieces(them, k)).any() {
            return exact(pos, t, a);
        }
    }
    true
}

/// Applies `a` to a copy and tests the mover's royal pieces.
fn exact<B: Bits>(pos: &Position<B>, t: &Tables<B>, a: Action) -> bool {
    let mut p = pos.clone();
    p.make(t, a, &mut NoEvents);
    if t.explosion.is_some() {
        return blast_legal(pos, &p, t);
    }
    !p.royal_attacked(t, pos.stm)
}

/// With `[rules.explosion]`, whether the move from `before` to `after` is legal: it may
/// not blast a royal piece of the mover's (nor both sides' at once); one that blasts the
/// opponent's last royal piece wins, whatever else; otherwise the mover's royal pieces
/// may not be left attacked (but where a capture would blast the attacker's own).
#[cold]
fn blast_legal<B: Bits>(before: &Position<B>, after: &Position<B>, t: &Tables<B>) -> bool {
    let us = before.stm;
    let them = us.opponent();
    if after.royals(t, us).count() < before.royals(t, us).count() {
        return false;
    }
    if before.royals(t, them).any() && after.royals(t, them).is_empty() {
        return true;
    }
    !after.royal_attacked(t, us)
}

/// Appends every legal action of the side to move to `out`.
#[inline]
pub(crate) fn legal<B: Bits>(pos: &Position<B>, t: &Tables<B>, check: bool, out: &mut Vec<Action>) {
    generate::<B, false, false>(pos, t, check, out);
}

/// The legal actions of the side to move that capture or promote (with the quiet
/// actions of a piece that may promote on their square, promoted or not), in the order
/// [`legal`] lists them, for a search's quiescence. Where a rule makes the list depend on
/// the other actions (hit points, forced captures, checks that are illegal, facing
/// royals, passes, gating) or adds drops, every legal action is listed instead: the
/// caller filters.
#[inline]
pub(crate) fn legal_captures<B: Bits>(pos: &Position<B>, t: &Tables<B>, check: bool, out: &mut Vec<Action>) {
    if list_is_final(pos, t) && !t.pass && t.hand.is_none() {
        generate::<B, false, true>(pos, t, check, out);
    } else {
        generate::<B, false, false>(pos, t, check, out);
    }
}

/// [`legal`], except that the ordinary moves of the royal piece are not tested where the
/// fast guard would test each with an attack query: they are appended untested (in the
/// same places) and their range in `out` is returned; such a move is legal if and only if
/// [`royal_move_legal`] says so. Every other action appended is legal. A random playout
/// tests only the moves it picks (a uniform pick among the listed actions, dropping an
/// illegal one and picking again, is uniform over the legal ones): the king's attack
/// tests were a third of a chess playout's time. Nothing is deferred (an empty range)
/// when a later pass reads the list (`[combat]`, `forced_capture`, `giving_check`).
#[inline]
pub(crate) fn legal_deferred<B: Bits>(
    pos: &Position<B>,
    t: &Tables<B>,
    check: bool,
    out: &mut Vec<Action>,
) -> std::ops::Range<usize> {
    generate::<B, true, false>(pos, t, check, out)
}

/// Whether an action from the range [`legal_deferred`] returned for this position is legal.
pub(crate) fn royal_move_legal<B: Bits>(pos: &Position<B>, t: &Tables<B>, a: Action) -> bool {
    royal_allowed(pos, t, a)
}

/// Whether no pass after the pieces' moves reads or rewrites the list (hit points'
/// attacks, forced captures, illegal checks, facing royals, gating).
#[inline]
fn list_is_final<B: Bits>(pos: &Position<B>, t: &Tables<B>) -> bool {
    t.combat.is_none() && !t.forced_capture && !t.checks_illegal && !t.facing_break && pos.gates.is_empty()
}

fn generate<B: Bits, const DEFER: bool, const CAPTURES: bool>(
    pos: &Position<B>,
    t: &Tables<B>,
    check: bool,
    out: &mut Vec<Action>,
) -> std::ops::Range<usize> {
    let us = pos.stm;
    let s = us.index();
    let them = us.opponent();
    let occ = pos.occupied();
    let own = pos.by_side[s];
    let enemy = pos.by_side[them.index()];
    // A position a `[[rules.end]]` rule ends has no legal move.
    if !t.ends.is_empty() && ends::ended(pos, t).is_some() {
        return out.len()..out.len();
    }
    let mut guard = Guard::Off;
    guard.set(pos, t, check);
    let start = out.len();
    // The royal moves are left untested only where the fast guard would test each one on
    // its own, and no later pass reads the list.
    let defer = DEFER && matches!(guard, Guard::Fast(_)) && list_is_final(pos, t);
    let mut deferred = start..start;

    for k in 0..t.kinds[s].len().min(MAX_KINDS) {
        let pcs = pos.by_kind[k] & own & !pos.inactive;
        if pcs.is_empty() {
            continue;
        }
        let kt = &t.kinds[s][k];
        let royal = t.royal & (1 << k) != 0;
        let zone = t.promo_zone[s][k];
        // Where it must promote (with an optional promotion, where it may also stay).
        let forced = t.promo_forced[s][k];
        let leaving = t.promo[k].as_ref().is_some_and(|r| r.leaving);
        // The kinds it may become here, and what to do when there is none.
        let mut graveyard_kinds = [crate::piece::KindId(0); MAX_KINDS];
        let (promos, when_empty): (&[crate::piece::KindId], WhenEmpty) = match t.promo[k].as_ref() {
            None => (&[], WhenEmpty::Stay),
            Some(r) if r.graveyard => {
                let mut n = 0;
                for (kk, &count) in pos.graveyard[s].iter().enumerate() {
                    if count > 0 && r.filter & (1 << kk) != 0 {
                        graveyard_kinds[n] = crate::piece::KindId(kk as u8);
                        n += 1;
                    }
                }
                (&graveyard_kinds[..n], r.when_empty)
            }
            Some(r) if r.missing_only => {
                // Kinds of the list its side has fewer of than at the start; else when_full.
                let mut n = 0;
                for &kk in &r.list {
                    if (pos.pieces(us, kk.index())).count() < t.initial_count[s][kk.index()] as u32 {
                        graveyard_kinds[n] = kk;
                        n += 1;
                    }
                }
                if n == 0 {
                    for &kk in &r.when_full {
                        graveyard_kinds[n] = kk;
                        n += 1;
                    }
                }
                (&graveyard_kinds[..n], r.when_empty)
            }
            Some(r) => (&r.list, r.when_empty),
        };
        let defer_here = defer && royal;
        if defer_here {
            deferred.start = out.len();
        }
        for from in pcs.iter() {
            let fsq = Square(from as u8);
            // A move that starts in the zone of a `leaving` promotion may promote anywhere.
            let zone = if leaving && zone.has(from) { t.all } else { zone };
            let mut seen = B::EMPTY;
            let mut seen_shot = B::EMPTY;
            // The targets the guard allows this piece's ordinary moves without testing each
            // (None: test each): most pieces of most positions, which then push in a loop.
            let unguarded = if royal { None } else { guard.piece_mask(from) };
            let push = |out: &mut Vec<Action>, to: usize, kind: ActionKind| {
                let a = Action::new(fsq, Square(to as u8), kind);
                if !defer_here && !guard.allows(pos, t, a, royal) {
                    return;
                }
                if kind != ActionKind::Shot && zone.has(to) {
                    for &p in promos {
                        out.push(a.promoting(p));
                    }
                    // Unpromoted: where promoting is optional, or (where it is forced)
                    // with nothing to become, unless that forbids the move.
                    if !forced.has(to) || (promos.is_empty() && when_empty != WhenEmpty::Forbid) {
                        out.push(a);
                    }
                } else {
                    out.push(a);
                }
            };
            for a in &kt.atoms {
                if !a.from.has(from) {
                    continue;
                }
                let r = reach(t, a, from, occ, &pos.by_kind);
                let mut capt = r & enemy & a.capture_mask;
                let quiet = r & !occ & a.quiet_mask;
                // Silenced, ranged, or with kinds it may not take: one test for all three.
                if a.rare {
                    if a.silenced && (t.adjacent[from] & enemy).any() {
                        continue;
                    }
                    let mut ks = a.cannot_capture;
                    while ks != 0 {
                        let ck = ks.trailing_zeros() as usize;
                        ks &= ks - 1;
                        capt &= !pos.by_kind[ck];
                    }
                    if a.ranged {
                        let shots = capt & !seen_shot;
                        seen_shot |= shots;
                        for to in shots.iter() {
                            push(out, to, ActionKind::Shot);
                        }
                        let q = quiet & !seen;
                        seen |= q;
                        if !CAPTURES {
                            for to in q.iter() {
                                push(out, to, ActionKind::Normal);
                            }
                        }
                        continue;
                    }
                }
                let mut targets = (capt | quiet) & !seen;
                seen |= targets;
                if CAPTURES {
                    // Quiet moves only onto squares where the piece may promote.
                    targets &= enemy | zone;
                }
                let kind = if a.creates_ep { ActionKind::Skip } else { ActionKind::Normal };
                match unguarded {
                    // No promotion among them: push in a loop, in the same order.
                    Some(m) if (targets & zone).is_empty() => {
                        for to in (targets & m).iter() {
                            out.push(Action::new(fsq, Square(to as u8), kind));
                        }
                    }
                    _ => {
                        for to in targets.iter() {
                            push(out, to, kind);
                        }
                    }
                }
                if pos.ep.any() && a.captures_ep {
                    let eps = r & pos.ep & !seen;
                    seen |= eps;
                    for to in eps.iter() {
                        push(out, to, ActionKind::EnPassant);
                    }
                }
            }
        }
        if defer_here {
            deferred.end = out.len();
        }
    }

    if CAPTURES {
        return deferred;
    }
    if let Some(h) = t.hand.as_deref() {
        drops(pos, t, h, &guard, check, out);
    }
    castling(pos, t, check, &guard, out);
    if pos.gates.any() {
        gatings(pos, t, out, start);
    }
    if t.combat.is_some() {
        expand_attacks(pos, t, out, start);
    }
    if t.forced_capture || t.checks_illegal {
        ends::filter(pos, t, out, start);
    }
    if t.facing_break || t.pass {
        facing_and_pass(pos, t, check, out, start);
    }
    deferred
}

/// `royals_facing = "break"`: while the royal pieces face each other, only the moves that
/// part them are legal (and a pass). `[rules] pass`: the side may pass, written at its
/// first royal piece's square, unless it is in check; while the royals face each other
/// under "break", it may pass even in check (as Fairy-Stockfish's janggi allows).
#[inline(never)]
fn facing_and_pass<B: Bits>(pos: &Position<B>, t: &Tables<B>, check: bool, out: &mut Vec<Action>, start: usize) {
    let facing = t.facing_break && pos.royals_face(t);
    if facing {
        let mut w = start;
        for r in start..out.len() {
            let mut p = pos.clone();
            p.make(t, out[r], &mut NoEvents);
            if !p.royals_face(t) {
                out[w] = out[r];
                w += 1;
            }
        }
        out.truncate(w);
    }
    if t.pass
        && let Some(at) = pos.royals(t, pos.stm).iter().next()
        && (facing || !check || !pos.royal_attacked(t, pos.stm))
    {
        out.push(Action::pass(Square(at as u8)));
    }
}

/// Every drop from the hand of the side to move: each kind held onto each empty square of
/// its zone. A drop uncovers nothing, so with the fast guard it is legal unless it leaves
/// a check unanswered: out of check anywhere, in a single check only between the checker
/// and the royal piece.
fn drops<B: Bits>(
    pos: &Position<B>,
    t: &Tables<B>,
    h: &tables::HandTables<B>,
    guard: &Guard<B>,
    check: bool,
    out: &mut Vec<Action>,
) {
    let s = pos.stm.index();
    let hand = &pos.hands[s];
    if hand.is_empty() {
        return;
    }
    let empty = t.all & !pos.occupied();
    let allowed = match guard {
        Guard::Fast(g) if g.checkers.any() => {
            if g.checkers.more_than_one() {
                return;
            }
            g.evasion
        }
        _ => t.all,
    };
    for (k, zone) in h.zone[s].iter().enumerate() {
        let kind = crate::piece::KindId(k as u8);
        if hand.count(kind) == 0 {
            continue;
        }
        let mut squares = empty & *zone & allowed;
        // `one_per_file`: not on a file where the side has one of this kind already.
        if h.one_per_file & (1 << k) != 0 {
            for sq in pos.pieces(pos.stm, k).iter() {
                squares &= !h.file[sq];
            }
        }
        let no_mate = h.no_drop_mate & (1 << k) != 0;
        for to in squares.iter() {
            let a = Action::drop(kind, Square(to as u8));
            if matches!(guard, Guard::Exact) && !exact(pos, t, a) {
                continue;
            }
            if no_mate && drop_mates(pos, t, a, check) {
                continue;
            }
            out.push(a);
        }
    }
}

/// Gating: for each legal action of the list from `start` that leaves an open gate of the
/// mover's (its piece's first move from a gating square; a castling's king or rook
/// square), the same action once more for each held kind that may enter there. The
/// entering piece is not counted for legality: an action is legal with it if it is
/// legal without it (as Fairy-Stockfish judges: a king may not step off a line that the
/// piece entering behind it would close, nor a pinned piece leave its line).
#[inline(never)]
fn gatings<B: Bits>(pos: &Position<B>, t: &Tables<B>, out: &mut Vec<Action>, start: usize) {
    let Some(g) = t.hand.as_deref().and_then(|h| h.gating.as_ref()) else { return };
    let s = pos.stm.index();
    let gates = pos.gates & pos.by_side[s];
    let hand = &pos.hands[s];
    let mut kinds = [crate::piece::KindId(0); MAX_KINDS];
    let mut n = 0;
    let mut ks = g.kinds;
    while ks != 0 {
        let k = ks.trailing_zeros() as usize;
        ks &= ks - 1;
        if hand.count(crate::piece::KindId(k as u8)) > 0 {
            kinds[n] = crate::piece::KindId(k as u8);
            n += 1;
        }
    }
    if gates.is_empty() || n == 0 {
        return;
    }
    let end = out.len();
    for i in start..end {
        let a = out[i];
        if a.is_drop() {
            continue;
        }
        let from = a.from.index();
        // The squares the action leaves empty that it may gate: (square, at the rook's).
        let (first, second) = match a.kind {
            ActionKind::Castle(c) => {
                let c = &t.castles[c as usize];
                let vacated = |sq: usize| sq != c.king_to && sq != c.rook_to;
                (
                    (gates.has(from) && vacated(from)).then_some(false),
                    (gates.has(c.rook) && vacated(c.rook)).then_some(true),
                )
            }
            _ => (gates.has(from).then_some(false), None),
        };
        for rook in [first, second].into_iter().flatten() {
            for &k in &kinds[..n] {
                out.push(a.gating(crate::action::Gate::new(k, rook)));
            }
        }
    }
}

/// Whether the drop `a` checkmates: the opponent's royal piece is attacked after it and
/// the opponent has no legal action (`no_drop_mate`, shogi's uchifuzume).
#[cold]
fn drop_mates<B: Bits>(pos: &Position<B>, t: &Tables<B>, a: Action, check: bool) -> bool {
    let mut p = pos.clone();
    p.make(t, a, &mut NoEvents);
    if !p.royal_attacked(t, p.stm) {
        return false;
    }
    let mut replies = Vec::new();
    legal(&p, t, check, &mut replies);
    replies.is_empty()
}

#[inline(always)]
fn castling<B: Bits>(pos: &Position<B>, t: &Tables<B>, check: bool, guard: &Guard<B>, out: &mut Vec<Action>) {
    let us = pos.stm;
    // The side's entries it still has the right to, in the order of `t.castles`.
    let mut rights = pos.castling & t.castle_side[us.index()];
    if rights == 0 {
        return;
    }
    let them = us.opponent();
    let occ = pos.occupied();
    while rights != 0 {
        let i = rights.trailing_zeros() as usize;
        rights &= rights - 1;
        let c = &t.castles[i];
        // A free castling's king castles from where it stands, its rook from its own
        // square; the squares to keep empty and safe follow from the king's.
        let (king, empty, safe, to) = match &c.free {
            None => (c.king, c.empty, &c.safe[..], c.king_to),
            Some(f) => match pos.castle_king(us, f).and_then(|k| Some((k, f.by_king[k].as_ref()?))) {
                Some((k, (empty, safe))) => (k, *empty, &safe[..], c.rook),
                None => continue,
            },
        };
        // The right implies both pieces stand there; never castle with a missing one.
        if pos.code(king) == 0 || pos.code(c.rook) == 0 {
            continue;
        }
        let lifted = occ & !B::bit(king) & !B::bit(c.rook);
        if (empty & lifted).any() || pos.inactive.has(king) || pos.inactive.has(c.rook) {
            continue;
        }
        let king_code = pos.code(king);
        // Each square is judged with the king on it and the rook lifted (a rook between
        // an attacker and the king's destination does not shield it).
        let safe = safe.iter().all(|&s| {
            // With explosions, a square next to an enemy royal piece is safe (a capture
            // there would blast it).
            if t.explosion.is_some() && pos.blast_shielded(t, s, them) {
                return true;
            }
            let occ_s = lifted | B::bit(s);
            if pos.attacked(t, s, them, occ_s) {
                return false;
            }
            if t.cond_attackers[them.index()] == 0 {
                return true;
            }
            // Judge conditional attackers with the king really standing on `s`.
            let mut p = pos.clone();
            p.by_side[us.index()] = (p.by_side[us.index()] & !B::bit(king)) | B::bit(s);
            p.board.as_mut()[king] = 0;
            p.board.as_mut()[s] = king_code;
            !p.cond_attacked(t, s, them, kind_of(king_code))
        });
        if !safe {
            continue;
        }
        // A free castling is written as the king taking its own rook (as UCI_Chess960
        // does): its king may not move at all.
        let a = Action::new(Square(king as u8), Square(to as u8), ActionKind::Castle(i as u8));
        if check && matches!(guard, Guard::Exact) && !exact(pos, t, a) {
            continue;
        }
        out.push(a);
    }
}

/// With combat, an attack's result decides what the action is: the attacker promotes only
/// if it lands in its zone, and several kills give one action per landing square. Each
/// attack (grouped with its promotion variants) is previewed once and replaced.
fn expand_attacks<B: Bits>(pos: &Position<B>, t: &Tables<B>, out: &mut Vec<Action>, start: usize) {
    let us = pos.stm;
    let generated: Vec<Action> = out.drain(start..).collect();
    let mut done: Vec<(Square, Square, ActionKind)> = Vec::new();
    for a in &generated {
        let is_attack = a.kind == ActionKind::EnPassant
            || (!matches!(a.kind, ActionKind::Castle(_)) && pos.piece_at(a.to).is_some_and(|p| p.side != us));
        if !is_attack {
            out.push(*a);
            continue;
        }
        let key = (a.from, a.to, a.kind);
        if done.contains(&key) {
            continue;
        }
        done.push(key);
        let promos: Vec<_> =
            generated.iter().filter(|b| (b.from, b.to, b.kind) == key).filter_map(|b| b.promotion).collect();
        let base = Action { promotion: None, landing: None, ..*a };
        let preview = pos.preview(t, base);
        let kind = pos.piece_at(a.from).map(|p| p.kind.index()).unwrap_or(0);
        let zone = t.promo_zone[us.index()][kind];
        let mut push = |landing: Option<usize>, at: Option<usize>| {
            let b = match landing {
                Some(l) => base.landing_on(Square(l as u8)),
                None => base,
            };
            match at {
                Some(sq) if zone.has(sq) && !promos.is_empty() => {
                    for &p in &promos {
                        out.push(b.promoting(p));
                    }
                }
                _ => out.push(b),
            }
        };
        if preview.attacker_dead {
            push(None, None);
            continue;
        }
        let en_passant = a.kind == ActionKind::EnPassant;
        let landings: Vec<usize> = preview
            .kills
            .iter()
            .map(|&s| if en_passant && s == pos.ep_victim as usize { a.to.index() } else { s })
            .collect();
        match landings.len() {
            0 => push(None, None),
            1 => push(None, Some(landings[0])),
            _ => {
                for &l in &landings {
                    push(Some(l), Some(l));
                }
            }
        }
    }
}

/// Whether the side to move has a royal piece under attack.
pub(crate) fn in_check<B: Bits>(pos: &Position<B>, t: &Tables<B>) -> bool {
    pos.royal_attacked(t, pos.stm)
}

/// Counts the leaves of the legal-move tree to `depth` (depth-1 nodes are counted in
/// bulk, as most perft tools do).
pub(crate) fn perft<B: Bits>(pos: &Position<B>, t: &Tables<B>, check: bool, depth: u32) -> u64 {
    // One list per level, made once; a depth beyond any real count (from a command line)
    // must not reserve memory for levels a search can never reach.
    let mut lists: Vec<Vec<Action>> = (0..depth.clamp(1, 64)).map(|_| Vec::with_capacity(256)).collect();
    perft_inner(pos, t, check, depth, &mut lists)
}

fn perft_inner<B: Bits>(pos: &Position<B>, t: &Tables<B>, check: bool, depth: u32, lists: &mut [Vec<Action>]) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut spare = Vec::new();
    let (list, rest) = match lists.split_first_mut() {
        Some((list, rest)) => (list, rest),
        None => (&mut spare, &mut [][..]),
    };
    list.clear();
    legal(pos, t, check, list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut n = 0;
    for &a in list.iter() {
        let mut p = pos.clone();
        p.make(t, a, &mut NoEvents);
        n += perft_inner(&p, t, check, depth - 1, rest);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::Wide;
    use crate::variant::{Variant, built_in};

    /// What quiescence keeps of a list: captures (a piece of the other side on the
    /// target, or en passant and shots) and promotions.
    fn kept<B: Bits>(pos: &Position<B>, list: &[Action]) -> Vec<Action> {
        list.iter()
            .copied()
            .filter(|a| {
                let taken = crate::piece::Piece::from_code(pos.code(a.to.index()))
                    .is_some_and(|p| p.side != pos.stm && !matches!(a.kind, ActionKind::Castle(_)));
                taken || matches!(a.kind, ActionKind::EnPassant | ActionKind::Shot) || a.promotes_to().is_some()
            })
            .collect()
    }

    /// Seeded random games: at every position, what `legal_captures` lists, filtered as
    /// quiescence filters it, is what `legal` lists filtered so, in the same order.
    fn walk<B: Bits>(v: &Variant, seed: u64) -> usize {
        let t = v.tables::<B>();
        let Ok(setup) = crate::notation::fen::parse(v, &v.setup) else { return 0 };
        let mut pos = Position::from_setup(t, &setup);
        let mut rng = seed;
        let (mut all, mut caps) = (Vec::new(), Vec::new());
        let mut checked = 0;
        for _ in 0..120 {
            all.clear();
            caps.clear();
            legal(&pos, t, v.rules.check, &mut all);
            legal_captures(&pos, t, v.rules.check, &mut caps);
            assert_eq!(kept(&pos, &caps), kept(&pos, &all), "{}: {:?}", v.name, pos.to_setup());
            assert!(caps.iter().all(|a| all.contains(a)), "{}: a capture that is not legal", v.name);
            checked += 1;
            if all.is_empty() {
                break;
            }
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let a = all[(rng >> 33) as usize % all.len()];
            pos.make(t, a, &mut crate::event::NoEvents);
        }
        checked
    }

    #[test]
    fn capture_lists_are_the_legal_lists_captures() {
        let mut positions = 0;
        for b in built_in() {
            let Ok(v) = Variant::load(b.name) else { continue };
            if v.solo.is_some() {
                continue;
            }
            for seed in 1..=4 {
                positions += match v.geometry.len() {
                    0..=64 => walk::<u64>(&v, seed),
                    65..=128 => walk::<u128>(&v, seed),
                    _ => walk::<Wide>(&v, seed),
                };
            }
        }
        assert!(positions > 5_000, "{positions}");
    }
}
