//! Combat: hit points instead of captures.
//!
//! With `[combat]`, a move onto an enemy is an attack. Its stages run in the order the
//! variant lists them (by default: primary damage → area damage → counters → removal of
//! pieces at 0 HP → landing). Damage is multiplied by a *multiply* aura (stacks read at
//! the attacker's origin, before the move) and divided, rounded down, by a *divide* aura
//! on the piece taking it. Every amount passes through the sink, where an `on_damage`
//! hook may change it.
//!
//! Per-piece state moves with its piece: hit points, which multiply-aura sources are spent
//! on it, whether it holds the divide aura and for how many plies it has been out of range.

use crate::action::{Action, ActionKind};
use crate::bits::Bits;
use crate::event::{Event, Sink};
use crate::geometry::{Offset, Square};
use crate::movegen::tables::Tables;
use crate::piece::{KindId, Piece, Side};
use crate::position::{Position, kind_of};
use crate::variant::{Cause, Combat, Stage};

/// The most multiply-aura sources on the board at once.
pub(crate) const MAX_SOURCES: usize = 16;

/// The combat share of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CombatState<B: Bits> {
    /// Hit points by square (0 on empty squares).
    pub hp: B::Squares,
    /// Multiply-aura source number + 1 by square (0: not a source).
    pub src: B::Squares,
    /// `spent[n]`: pieces on which source n's stack is spent.
    pub spent: [B; MAX_SOURCES],
    /// Pieces holding the divide aura...
    pub guarded: B,
    /// ...and the plies each has spent out of its range, by square.
    pub outside: B::Squares,
    /// This state's share of the position hash.
    pub key: u64,
}

/// What an attack did, for landing and for move generation's preview.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Killed enemies' squares: the attacked piece first, then the area in order.
    pub kills: Vec<usize>,
    pub attacker_dead: bool,
    /// Where the attacker ended (None when it died).
    pub landed: Option<usize>,
}

/// Offsets turned from "travelling north" (or north-east) to the direction `d`.
fn turn(offsets: &[Offset], base: Offset, d: Offset) -> Vec<Offset> {
    // Quarter turns clockwise: (x, y) -> (y, -x).
    let mut b = base;
    let mut out: Vec<Offset> = offsets.to_vec();
    for _ in 0..4 {
        if b == d {
            return out;
        }
        b = (b.1, -b.0);
        out = out.iter().map(|&(x, y)| (y, -x)).collect();
    }
    Vec::new()
}

/// Clockwise from north, for the order in which area squares (and counters) go.
fn clockwise(o: Offset) -> (u16, i32) {
    let (x, y) = (o.0 as f64, o.1 as f64);
    let angle = x.atan2(y); // 0 = north, growing clockwise
    let a = if angle < 0.0 { angle + std::f64::consts::TAU } else { angle };
    ((a * 1000.0) as u16, (x.abs() + y.abs()) as i32)
}

impl<B: Bits> CombatState<B> {
    pub fn new() -> Self {
        CombatState {
            hp: B::empty_squares(),
            src: B::empty_squares(),
            spent: [B::EMPTY; MAX_SOURCES],
            guarded: B::EMPTY,
            outside: B::empty_squares(),
            key: 0,
        }
    }

    /// This state's hash: hit points, spent marks (as source-square/piece-square pairs, so
    /// that source numbering does not matter) and aura flags with their counters.
    fn hash(&self, t: &Tables<B>) -> u64 {
        let z = &t.zobrist;
        let mut h = 0u64;
        for sq in 0..t.nsq {
            let hp = self.hp.as_ref()[sq];
            if hp != 0 {
                h ^= z.frozen[sq * 16 + (hp as usize & 15)].rotate_left(17);
            }
        }
        for n in 0..MAX_SOURCES {
            if self.spent[n].is_empty() {
                continue;
            }
            if let Some(s) = (0..t.nsq).find(|&s| self.src.as_ref()[s] as usize == n + 1) {
                for p in self.spent[n].iter() {
                    h ^= z.ep[s].rotate_left(23) ^ z.ep[p].rotate_left(41);
                }
            }
        }
        for sq in self.guarded.iter() {
            h ^= z.waiting[sq].rotate_left(29) ^ (self.outside.as_ref()[sq] as u64).wrapping_mul(0x9e37_79b9);
        }
        h
    }
}

impl<B: Bits> Position<B> {
    fn cs(&self) -> &CombatState<B> {
        self.combat.as_deref().expect("a combat variant's position has combat state")
    }
    fn cs_mut(&mut self) -> &mut CombatState<B> {
        self.combat.as_deref_mut().expect("a combat variant's position has combat state")
    }

    /// Sets up the combat state: full hit points unless `hp` says otherwise, aura sources
    /// numbered in square order, spent marks and aura flags as given (flags otherwise
    /// from where the pieces stand).
    pub(crate) fn init_combat(&mut self, t: &Tables<B>, s: &crate::notation::fen::Setup) {
        let Some(c) = &t.combat else { return };
        let mut st = CombatState::<B>::new();
        for (sq, p) in &s.pieces {
            st.hp.as_mut()[sq.index()] = t.stats[p.kind.index()].hp;
        }
        for &(sq, hp) in &s.hp {
            st.hp.as_mut()[sq.index()] = hp;
        }
        self.combat = Some(Box::new(st));
        if let Some(m) = &c.multiply {
            for (sq, p) in &s.pieces {
                if p.kind == m.source {
                    self.new_source(sq.index());
                }
            }
        }
        for &(piece, source) in &s.spent {
            let n = self.cs().src.as_ref()[source.index()];
            if n > 0 {
                let cs = self.cs_mut();
                cs.spent[n as usize - 1] = cs.spent[n as usize - 1].with(piece.index());
            }
        }
        self.update_guard(t, None);
        for &(sq, count) in &s.guard {
            let cs = self.cs_mut();
            cs.guarded = cs.guarded.with(sq.index());
            cs.outside.as_mut()[sq.index()] = count;
        }
        self.rekey_combat(t);
    }

    /// The combat part of a setup: hit points below full, spent marks, persisting flags.
    pub(crate) fn combat_setup(&self, t: &Tables<B>, s: &mut crate::notation::fen::Setup) {
        let Some(cs) = self.combat.as_deref() else { return };
        for (sq, p) in &s.pieces {
            let hp = cs.hp.as_ref()[sq.index()];
            if hp != t.stats[p.kind.index()].hp {
                s.hp.push((*sq, hp));
            }
        }
        for n in 0..MAX_SOURCES {
            if let Some(src) = (0..t.nsq).find(|&q| cs.src.as_ref()[q] as usize == n + 1) {
                for p in cs.spent[n].iter() {
                    s.spent.push((Square(p as u8), Square(src as u8)));
                }
            }
        }
        s.spent.sort();
        for sq in cs.guarded.iter() {
            if !self.in_guard_range(t, sq) {
                s.guard.push((Square(sq as u8), cs.outside.as_ref()[sq]));
            }
        }
    }

    fn rekey_combat(&mut self, t: &Tables<B>) {
        let old = self.cs().key;
        let new = self.cs().hash(t);
        self.hash ^= old ^ new;
        self.cs_mut().key = new;
    }

    /// Gives the piece on `sq` (a multiply-aura source) the smallest free source number.
    fn new_source(&mut self, sq: usize) {
        let cs = self.cs_mut();
        let used: Vec<u8> = cs.src.as_ref().iter().copied().filter(|&n| n > 0).collect();
        if let Some(n) = (1..=MAX_SOURCES as u8).find(|n| !used.contains(n)) {
            cs.src.as_mut()[sq] = n;
            cs.spent[n as usize - 1] = B::EMPTY;
        }
    }

    /// The full state of the piece on `sq`.
    pub(crate) fn piece_state(&self, t: &Tables<B>, sq: usize) -> Option<crate::piece::PieceState> {
        let piece = self.piece_at(Square(sq as u8))?;
        let k = piece.kind.index();
        let mut st = crate::piece::PieceState {
            square: Square(sq as u8),
            piece,
            hp: None,
            max_hp: None,
            damage: 0,
            aoe: 0,
            stacks: 0,
            multiplier: 1,
            sources: Vec::new(),
            guarded: false,
            outside_plies: 0,
            waiting: (self.waiting[0] | self.waiting[1]).has(sq),
            frozen: self.frozen.has(sq),
        };
        if let Some(cs) = self.combat.as_deref() {
            st.hp = Some(cs.hp.as_ref()[sq]);
            st.max_hp = Some(t.stats[k].hp);
            st.damage = t.stats[k].damage;
            st.aoe = t.stats[k].aoe;
            (st.stacks, _) = self.stacks(t, sq, piece.side);
            (st.multiplier, _) = self.multiplier(t, sq, piece.side);
            if let Some(m) = t.combat.as_ref().and_then(|c| c.multiply.as_ref()) {
                let mut near = t.near_multiply[sq] & self.pieces(piece.side, m.source.index());
                if piece.kind == m.source && m.includes_source {
                    near = near.with(sq);
                }
                for s in near.iter() {
                    let id = cs.src.as_ref()[s] as usize;
                    let spent = s != sq && id > 0 && m.spend && cs.spent[id - 1].has(sq);
                    st.sources.push((Square(s as u8), spent));
                }
            }
            st.guarded = cs.guarded.has(sq);
            st.outside_plies = cs.outside.as_ref()[sq];
        }
        Some(st)
    }

    /// Whether the piece on `sq` stands within range of a friendly divide-aura source.
    fn in_guard_range(&self, t: &Tables<B>, sq: usize) -> bool {
        let Some(d) = t.combat.as_ref().and_then(|c| c.divide.as_ref()) else { return false };
        let Some(p) = self.piece_at(Square(sq as u8)) else { return false };
        let sources = self.pieces(p.side, d.source.index());
        (d.includes_source && p.kind == d.source) || (t.near_divide[sq] & sources).any()
    }

    /// The multiply-aura stacks of the piece on `sq` (of side `side`), and the source
    /// numbers that gave them (its own stack excluded).
    pub(crate) fn stacks(&self, t: &Tables<B>, sq: usize, side: Side) -> (u32, Vec<usize>) {
        let mut used = Vec::new();
        let n = self.count_stacks(t, sq, side, Some(&mut used));
        (n, used)
    }

    /// For evaluation, without allocating: hit points and maximum, stacks given by other
    /// sources (its own excluded), and whether it holds the divide aura.
    pub(crate) fn combat_terms(&self, t: &Tables<B>, sq: usize, side: Side, kind: usize) -> (u8, u8, u32, bool) {
        let cs = self.cs();
        let own = t
            .combat
            .as_ref()
            .and_then(|c| c.multiply.as_ref())
            .is_some_and(|m| m.includes_source && m.source.index() == kind);
        let stacks = self.count_stacks(t, sq, side, None).saturating_sub(own as u32);
        (cs.hp.as_ref()[sq], t.stats[kind].hp, stacks, cs.guarded.has(sq))
    }

    fn count_stacks(&self, t: &Tables<B>, sq: usize, side: Side, mut used: Option<&mut Vec<usize>>) -> u32 {
        let Some(m) = t.combat.as_ref().and_then(|c| c.multiply.as_ref()) else { return 0 };
        let cs = self.cs();
        let mut n = 0;
        let own = self.piece_at(Square(sq as u8)).is_some_and(|p| p.kind == m.source);
        if own && m.includes_source {
            n += 1;
        }
        for s in (t.near_multiply[sq] & self.pieces(side, m.source.index())).iter() {
            let id = cs.src.as_ref()[s] as usize;
            if id == 0 {
                continue;
            }
            if m.spend && cs.spent[id - 1].has(sq) {
                continue;
            }
            n += 1;
            if let Some(u) = used.as_deref_mut() {
                u.push(id - 1);
            }
        }
        n.min(m.max_stacks)
    }

    /// The damage multiplier of the piece on `sq`.
    fn multiplier(&self, t: &Tables<B>, sq: usize, side: Side) -> (i64, Vec<usize>) {
        let Some(m) = t.combat.as_ref().and_then(|c| c.multiply.as_ref()) else { return (1, Vec::new()) };
        let (stacks, used) = self.stacks(t, sq, side);
        (m.base.saturating_pow(stacks), used)
    }

    /// Damage after the divide aura of the piece on `sq`, if it holds it.
    fn divided(&self, t: &Tables<B>, amount: i64, cause: Cause, guarded: bool) -> i64 {
        match t.combat.as_ref().and_then(|c| c.divide.as_ref()) {
            Some(d) if guarded && d.applies & (1 << cause as u8) != 0 => amount / d.divisor,
            _ => amount,
        }
    }

    /// Moves a piece and everything that belongs to it (hit points, marks, flags).
    pub(crate) fn carry(&mut self, t: &Tables<B>, from: usize, to: usize) {
        let code = self.remove(t, from);
        self.put(t, to, code);
        if from == to {
            return;
        }
        let cs = self.cs_mut();
        for arr in [&mut cs.hp, &mut cs.src, &mut cs.outside] {
            let v = arr.as_ref()[from];
            arr.as_mut()[from] = 0;
            arr.as_mut()[to] = v;
        }
        for m in cs.spent.iter_mut().chain(std::iter::once(&mut cs.guarded)) {
            if m.has(from) {
                *m = m.without(from).with(to);
            }
        }
    }

    /// Clears everything that belonged to the piece on `sq` (it left the board).
    pub(crate) fn forget(&mut self, sq: usize) {
        let cs = self.cs_mut();
        cs.hp.as_mut()[sq] = 0;
        cs.outside.as_mut()[sq] = 0;
        let id = cs.src.as_ref()[sq] as usize;
        cs.src.as_mut()[sq] = 0;
        if id > 0 {
            cs.spent[id - 1] = B::EMPTY;
        }
        for m in cs.spent.iter_mut().chain(std::iter::once(&mut cs.guarded)) {
            *m = m.without(sq);
        }
    }

    /// Applies `amount` (before hooks) to the piece on `sq`; returns the damage dealt.
    fn hit<S: Sink>(&mut self, sq: usize, by: Option<usize>, amount: i64, cause: Cause, note: &str, ev: &mut S) -> i64 {
        let amount = ev.damage(Square(sq as u8), amount.max(0), cause).max(0);
        let hp = self.cs().hp.as_ref()[sq] as i64;
        let left = (hp - amount).max(0);
        self.cs_mut().hp.as_mut()[sq] = left as u8;
        if S::ON
            && let Some(p) = self.piece_at(Square(sq as u8))
        {
            ev.push(Event::Damaged {
                side: p.side,
                kind: p.kind,
                square: Square(sq as u8),
                amount,
                hp: left,
                cause,
                by: by.map(|b| Square(b as u8)),
                note: note.to_string(),
            });
        }
        amount
    }

    /// The squares of the area shape of kind `k` attacking from `from` onto `to`, in
    /// clockwise order from north.
    fn area(&self, t: &Tables<B>, c: &Combat, k: usize, from: usize, to: usize) -> Vec<usize> {
        let Some(shape) = t.stats[k].aoe_shape.map(|i| &c.shapes[i]) else { return Vec::new() };
        let g = t.geo;
        let (f, d) = (Square(from as u8), Square(to as u8));
        let dx = g.file(d) as i32 - g.file(f) as i32;
        let dy = g.rank(d) as i32 - g.rank(f) as i32;
        let mut offsets: Vec<Offset> = shape.any.clone();
        let aligned = dx == 0 || dy == 0 || dx.abs() == dy.abs();
        if aligned && (dx, dy) != (0, 0) {
            let dir = (dx.signum() as i8, dy.signum() as i8);
            if dir.0 == 0 || dir.1 == 0 {
                offsets.extend(turn(&shape.orthogonal, (0, 1), dir));
            } else {
                offsets.extend(turn(&shape.diagonal, (1, 1), dir));
            }
        }
        offsets.sort_by_key(|&o| clockwise(o));
        offsets.dedup();
        offsets.iter().filter_map(|&o| g.offset(d, o)).map(|s| s.index()).filter(|&s| s != from).collect()
    }

    /// Resolves an attack by the piece on `from` onto `target` (for en passant, the passed
    /// piece; the attacker lands on `to`). Runs the variant's stages in order.
    fn attack<S: Sink>(&mut self, t: &Tables<B>, c: &Combat, a: Action, target: usize, ev: &mut S) -> Outcome {
        let from = a.from.index();
        let to = a.to.index();
        let us = self.stm;
        let k = kind_of(self.code(from));
        let (mult, used) = self.multiplier(t, from, us);
        let attacker_guarded = self.cs().guarded.has(from);
        let en_passant = a.kind == ActionKind::EnPassant;
        let mut damaged: Vec<(usize, i64)> = Vec::new();
        let mut out = Outcome::default();
        let note = |mult: i64, halved: bool| -> String {
            let mut n = String::new();
            if mult > 1 {
                n.push_str(&format!("×{mult}"));
            }
            if halved {
                if !n.is_empty() {
                    n.push(' ');
                }
                n.push_str("guarded");
            }
            n
        };
        for &stage in &c.stages {
            match stage {
                Stage::Primary => {
                    let (base, cause) = match (en_passant, c.en_passant_damage) {
                        (true, Some(n)) => (n, Cause::EnPassant),
                        (true, None) => (t.stats[k].damage.saturating_mul(mult), Cause::EnPassant),
                        _ => (t.stats[k].damage.saturating_mul(mult), Cause::Primary),
                    };
                    let g = self.cs().guarded.has(target);
                    let amount = self.divided(t, base, cause, g);
                    let m = if cause == Cause::EnPassant && c.en_passant_damage.is_some() { 1 } else { mult };
                    let dealt = self.hit(target, Some(from), amount, cause, &note(m, g && amount != base), ev);
                    damaged.push((target, dealt));
                }
                Stage::Aoe => {
                    if t.stats[k].aoe > 0 {
                        for s in self.area(t, c, k, from, if en_passant { target } else { to }) {
                            let Some(p) = self.piece_at(Square(s as u8)) else { continue };
                            if p.side == us && !c.friendly_fire {
                                continue;
                            }
                            let base = t.stats[k].aoe.saturating_mul(mult);
                            let g = self.cs().guarded.has(s);
                            let amount = self.divided(t, base, Cause::Aoe, g);
                            let dealt =
                                self.hit(s, Some(from), amount, Cause::Aoe, &note(mult, g && amount != base), ev);
                            damaged.push((s, dealt));
                        }
                    }
                }
                Stage::Counter => {
                    for &(s, dealt) in &damaged.clone() {
                        if self.cs().hp.as_ref()[from] == 0 {
                            break;
                        }
                        let Some(p) = self.piece_at(Square(s as u8)) else { continue };
                        let counter = t.stats[p.kind.index()].counter;
                        if p.side == us || counter <= 0 || dealt <= 0 || self.cs().hp.as_ref()[s] == 0 {
                            continue;
                        }
                        let amount = self.divided(t, counter, Cause::Counter, attacker_guarded);
                        let dealt = self.hit(
                            from,
                            Some(s),
                            amount,
                            Cause::Counter,
                            &note(1, attacker_guarded && amount != counter),
                            ev,
                        );
                        damaged.push((from, dealt));
                    }
                }
                Stage::Cleanup => {
                    let mut dead: Vec<usize> = damaged.iter().map(|&(s, _)| s).collect();
                    dead.dedup();
                    let mut seen = Vec::new();
                    for s in dead {
                        if seen.contains(&s) || self.code(s) == 0 || self.cs().hp.as_ref()[s] != 0 {
                            continue;
                        }
                        seen.push(s);
                        let p = Piece::from_code(self.code(s)).unwrap();
                        self.remove(t, s);
                        self.forget(s);
                        if s == from {
                            out.attacker_dead = true;
                        } else if p.side != us {
                            out.kills.push(s);
                        }
                        if S::ON {
                            ev.push(Event::Killed { side: p.side, kind: p.kind, square: Square(s as u8) });
                        }
                    }
                }
                Stage::Landing => {
                    if out.attacker_dead || self.code(from) == 0 {
                        out.attacker_dead = true;
                        continue;
                    }
                    // En passant kills land on the passed square, not the victim's.
                    let killed = |s: usize| if en_passant && s == target { to } else { s };
                    let choices: Vec<usize> = out.kills.iter().map(|&s| killed(s)).collect();
                    let land = match a.landing.map(|l| l.index()) {
                        Some(l) if choices.contains(&l) => Some(l),
                        _ if choices.is_empty() => None,
                        _ if choices.len() == 1 => Some(choices[0]),
                        // Several kills and no (valid) choice: the attacked square first.
                        _ => Some(choices[0]),
                    };
                    match land {
                        Some(l) if self.code(l) == 0 => {
                            self.carry(t, from, l);
                            out.landed = Some(l);
                            if S::ON {
                                ev.push(Event::Landed { side: us, from: a.from, to: Square(l as u8) });
                            }
                        }
                        _ => {
                            out.landed = Some(from);
                            if S::ON {
                                ev.push(Event::Bounced { side: us, square: a.from });
                            }
                        }
                    }
                }
            }
        }
        // A stage order without landing still leaves the attacker where it was.
        if out.landed.is_none() && !out.attacker_dead && self.code(from) != 0 {
            out.landed = Some(from);
        }
        // The stacks that were used are spent on the attacker (wherever it is now).
        if let (Some(m), Some(at)) = (c.multiply.as_ref(), out.landed)
            && m.spend
        {
            let cs = self.cs_mut();
            for n in used {
                cs.spent[n] = cs.spent[n].with(at);
            }
        }
        out
    }

    /// A rule's damage to the piece on `sq`: applied (events included), and the piece
    /// removed at 0 HP. False when the variant has no hit points or the square is empty.
    pub(crate) fn damage_command<S: Sink>(&mut self, t: &Tables<B>, sq: usize, amount: i64, ev: &mut S) -> bool {
        if self.combat.is_none() || self.code(sq) == 0 {
            return false;
        }
        self.hit(sq, None, amount, Cause::Rule, "", ev);
        if self.cs().hp.as_ref()[sq] == 0 {
            let p = Piece::from_code(self.code(sq)).unwrap();
            self.remove(t, sq);
            self.forget(sq);
            if S::ON {
                ev.push(Event::Killed { side: p.side, kind: p.kind, square: Square(sq as u8) });
            }
        }
        self.rekey_combat(t);
        true
    }

    /// What an attack would do, without events or hooks (for move generation).
    pub(crate) fn preview(&self, t: &Tables<B>, a: Action) -> Outcome {
        let c = t.combat.as_ref().expect("combat");
        let mut p = self.clone();
        let target = if a.kind == ActionKind::EnPassant { self.ep_victim as usize } else { a.to.index() };
        p.attack(t, c, Action { landing: None, ..a }, target, &mut crate::event::NoEvents)
    }

    /// Applies an action in a combat variant. Returns whether damage was dealt (progress).
    pub(crate) fn make_combat<S: Sink>(&mut self, t: &Tables<B>, c: &Combat, a: Action, ev: &mut S) -> bool {
        let us = self.stm;
        let from = a.from.index();
        let to = a.to.index();
        let kind = kind_of(self.code(from));
        let mut damage = false;
        let mut acted_at = Some(to);
        match a.kind {
            ActionKind::Castle(i) => {
                // Castling: both pieces move, no combat.
                let cst = &t.castles[i as usize];
                let (k, r) = (from, cst.rook);
                let hk = self.cs().hp.as_ref()[k];
                let hr = self.cs().hp.as_ref()[r];
                let (kc, rc) = (self.remove(t, k), self.remove(t, r));
                let (sk, sr) = (self.snapshot_marks(k), self.snapshot_marks(r));
                self.forget(k);
                self.forget(r);
                self.put(t, cst.king_to, kc);
                self.put(t, cst.rook_to, rc);
                self.restore_marks(cst.king_to, hk, sk);
                self.restore_marks(cst.rook_to, hr, sr);
                acted_at = Some(cst.king_to);
                if S::ON {
                    ev.push(Event::Castled {
                        side: us,
                        king_from: Square(k as u8),
                        king_to: Square(cst.king_to as u8),
                        rook_from: Square(r as u8),
                        rook_to: Square(cst.rook_to as u8),
                    });
                }
            }
            ActionKind::EnPassant => {
                let target = self.ep_victim as usize;
                let out = self.attack(t, c, a, target, ev);
                damage = true;
                acted_at = out.landed;
            }
            _ if self.code(to) != 0 && Piece::from_code(self.code(to)).is_some_and(|p| p.side != us) => {
                let out = self.attack(t, c, a, to, ev);
                damage = true;
                acted_at = out.landed;
            }
            _ => {
                self.carry(t, from, to);
                if S::ON {
                    ev.push(Event::Moved { side: us, kind: KindId(kind as u8), from: a.from, to: a.to });
                }
                if c.aoe_on_quiet_move && t.stats[kind].aoe > 0 {
                    let (mult, _) = self.multiplier(t, to, us);
                    for s in self.area(t, c, kind, from, to) {
                        if self.piece_at(Square(s as u8)).is_some_and(|p| p.side != us || c.friendly_fire) {
                            let g = self.cs().guarded.has(s);
                            let amount = self.divided(t, t.stats[kind].aoe.saturating_mul(mult), Cause::Aoe, g);
                            self.hit(s, Some(from), amount, Cause::Aoe, "", ev);
                            damage = true;
                        }
                    }
                    for s in 0..t.nsq {
                        if self.code(s) != 0 && self.cs().hp.as_ref()[s] == 0 {
                            let p = Piece::from_code(self.code(s)).unwrap();
                            self.remove(t, s);
                            self.forget(s);
                            if S::ON {
                                ev.push(Event::Killed { side: p.side, kind: p.kind, square: Square(s as u8) });
                            }
                        }
                    }
                }
            }
        }
        // Promotion happens where the piece lands.
        if let Some(at) = acted_at
            && let Some(p) = a.promotion
            && self.code(at) != 0
            && kind_of(self.code(at)) == kind
        {
            let old = self.remove(t, at);
            self.forget(at);
            self.put(t, at, Piece::new(p, us).code());
            self.cs_mut().hp.as_mut()[at] = t.stats[p.index()].hp;
            if c.multiply.as_ref().is_some_and(|m| m.source == p) {
                self.new_source(at);
            }
            if S::ON {
                ev.push(Event::Promoted {
                    side: us,
                    square: Square(at as u8),
                    from: KindId(kind_of(old) as u8),
                    to: p,
                });
            }
        }
        self.end_of_ply(t, acted_at);
        damage
    }

    fn snapshot_marks(&self, sq: usize) -> (u8, Vec<usize>, bool, u8) {
        let cs = self.cs();
        let spent = (0..MAX_SOURCES).filter(|&n| cs.spent[n].has(sq)).collect();
        (cs.src.as_ref()[sq], spent, cs.guarded.has(sq), cs.outside.as_ref()[sq])
    }

    fn restore_marks(&mut self, sq: usize, hp: u8, (src, spent, guarded, outside): (u8, Vec<usize>, bool, u8)) {
        let cs = self.cs_mut();
        cs.hp.as_mut()[sq] = hp;
        cs.src.as_mut()[sq] = src;
        cs.outside.as_mut()[sq] = outside;
        for n in spent {
            cs.spent[n] = cs.spent[n].with(sq);
        }
        if guarded {
            cs.guarded = cs.guarded.with(sq);
        }
    }

    /// The bookkeeping after every ply: spent marks of pieces no longer next to their
    /// source are cleared; the divide aura is set on pieces in range, counts plies out of
    /// range for the others, and leaves the piece that just acted if it ended out of range.
    fn end_of_ply(&mut self, t: &Tables<B>, acted_at: Option<usize>) {
        self.drop_separated_marks(t);
        self.update_guard(t, acted_at);
        self.rekey_combat(t);
    }

    /// Spent marks last only while the piece stays next to the source.
    fn drop_separated_marks(&mut self, t: &Tables<B>) {
        if t.combat.as_ref().is_some_and(|c| c.multiply.is_some()) {
            for n in 0..MAX_SOURCES {
                let cs = self.cs();
                if cs.spent[n].is_empty() {
                    continue;
                }
                let keep = match (0..t.nsq).find(|&s| cs.src.as_ref()[s] as usize == n + 1) {
                    Some(s) => t.near_multiply[s],
                    None => B::EMPTY,
                };
                self.cs_mut().spent[n] &= keep;
            }
        }
    }

    /// The pieces within range of a friendly divide-aura source.
    fn within_guard(&self, t: &Tables<B>) -> B {
        let Some(d) = t.combat.as_ref().and_then(|c| c.divide.as_ref()) else { return B::EMPTY };
        let mut within = B::EMPTY;
        for side in Side::BOTH {
            let sources = self.pieces(side, d.source.index());
            let mut near = B::EMPTY;
            for s in sources.iter() {
                near |= t.near_divide[s];
            }
            if d.includes_source {
                near |= sources;
            }
            within |= near & self.by_side[side.index()];
        }
        within
    }

    /// After a rule's command changed the board between stages (no ply has passed): marks
    /// of pieces that left a source's range go, and pieces in range of a divide source hold
    /// its aura, as in a position built afresh from this one; plies out of range are not
    /// counted.
    pub(crate) fn settle_combat(&mut self, t: &Tables<B>) {
        if self.combat.is_none() {
            return;
        }
        self.drop_separated_marks(t);
        let within = self.within_guard(t);
        let cs = self.cs_mut();
        for s in within.iter() {
            cs.outside.as_mut()[s] = 0;
        }
        cs.guarded |= within;
        self.rekey_combat(t);
    }

    /// A piece a rule put on `sq` starts at full hit points (and, as a multiply-aura
    /// source, with a stack to give).
    pub(crate) fn combat_placed(&mut self, t: &Tables<B>, sq: usize) {
        if self.combat.is_none() {
            return;
        }
        let k = kind_of(self.code(sq));
        self.cs_mut().hp.as_mut()[sq] = t.stats[k].hp;
        if t.combat.as_ref().and_then(|c| c.multiply.as_ref()).is_some_and(|m| m.source.index() == k) {
            self.new_source(sq);
        }
    }

    fn update_guard(&mut self, t: &Tables<B>, acted_at: Option<usize>) {
        let Some(d) = t.combat.as_ref().and_then(|c| c.divide.as_ref()) else { return };
        let within = self.within_guard(t);
        let persist = d.persist_plies;
        let cs = self.cs_mut();
        let stale = cs.guarded & !within;
        for s in stale.iter() {
            let n = cs.outside.as_ref()[s].saturating_add(1);
            if n >= persist || Some(s) == acted_at {
                cs.guarded = cs.guarded.without(s);
                cs.outside.as_mut()[s] = 0;
            } else {
                cs.outside.as_mut()[s] = n;
            }
        }
        for s in within.iter() {
            cs.outside.as_mut()[s] = 0;
        }
        cs.guarded |= within;
    }
}
