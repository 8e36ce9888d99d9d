//! The width-specific engine behind a `Game`: one small trait, implemented once per
//! board width, so callers never see the width and search code runs monomorphised.

use std::sync::Arc;

use crate::action::Action;
use crate::bits::{Bits, Wide};
use crate::event::{Event, NoEvents};
use crate::geometry::Square;
use crate::movegen;
use crate::notation::fen::Setup;
use crate::piece::{Piece, Side};
use crate::position::Position;
use crate::variant::{AnyTables, Cause, Variant};

pub(crate) trait Core: Send + Sync {
    fn legal(&self, out: &mut Vec<Action>);
    /// `legal`, with the royal piece's own moves appended untested where that saves
    /// work: their range in `out` (see `movegen::legal_deferred`).
    fn legal_deferred(&self, out: &mut Vec<Action>) -> std::ops::Range<usize>;
    /// Whether an action of the range `legal_deferred` returned is legal.
    fn royal_move_legal(&self, a: Action) -> bool;
    /// Moves that ignore the check rule (used to explain illegal moves).
    fn pseudo_legal(&self, out: &mut Vec<Action>);
    fn make(&mut self, a: Action, events: &mut Vec<Event>);
    /// `make` without the event list (a playout that no rule reads events in).
    fn make_quiet(&mut self, a: Action);
    /// Pieces per side and kind (saturating at 255), read from the square sets.
    fn material(&self) -> [[u8; crate::piece::MAX_KINDS]; 2];
    /// Like `make`, with every damage amount passed through `damage` first.
    fn make_with_damage(
        &mut self,
        a: Action,
        events: &mut Vec<Event>,
        damage: &mut dyn FnMut(Square, i64, Cause) -> i64,
    );
    /// A rule's command: `amount` damage to the piece on `sq` (with `[combat]`); removes it
    /// at 0 HP. Returns false when the variant has no hit points.
    fn damage(&mut self, sq: Square, amount: i64, events: &mut Vec<Event>) -> bool;
    fn setup(&self) -> Setup;
    fn hash(&self) -> u64;
    fn halfmove(&self) -> u32;
    fn fullmove(&self) -> u32;
    /// How many royal pieces a side has.
    fn royals(&self, side: Side) -> u32;
    fn to_move(&self) -> Side;
    fn in_check(&self) -> bool;
    /// Whether the side not to move has a royal piece attacked (an impossible position
    /// when the check rule is on).
    fn opponent_in_check(&self) -> bool;
    /// Whether the last action dropped a kind whose mate loses (`no_drop_mate` with
    /// `drop_mate = "loses"`): a checkmate it gave is a win for the side mated.
    fn mate_by_drop_loses(&self) -> bool;
    fn perft(&self, depth: u32) -> u64;
    /// The `[[rules.end]]` rule that ends this position, if one does.
    fn ended(&self) -> Option<crate::movegen::ends::Ended>;
    fn after(&self, a: Action) -> Box<dyn Core>;
    fn boxed(&self) -> Box<dyn Core>;
    fn piece_at(&self, sq: Square) -> Option<Piece>;
    fn piece_state(&self, sq: Square) -> Option<crate::piece::PieceState>;
    /// A rule's command: removes a piece.
    fn remove(&mut self, sq: Square) -> Option<Piece>;
    /// A rule's command: puts a piece on an empty square (false if it is occupied).
    fn place(&mut self, sq: Square, piece: Piece) -> bool;
    /// A rule's command: moves a piece to an empty square (None if there is no piece to
    /// move or the square is occupied).
    fn move_piece(&mut self, from: Square, to: Square) -> Option<Piece>;
    /// The computer player's search on this position alone (variants without hooks).
    fn search(&self, job: &mut crate::search::Job<'_>) -> Option<crate::search::SearchResult>;
    /// The static evaluation for the side to move, in centipawns.
    fn evaluate(&self, ev: &crate::search::Evaluator) -> i32;
    /// The per-kind evaluation terms' features (for tuning them).
    fn features(&self, ev: &crate::search::Evaluator) -> crate::search::eval::Features;
    /// The static exchange value of `a` as the fast back end's search sees it.
    fn static_exchange(&self, ev: &crate::search::Evaluator, a: crate::action::Action) -> Option<i32>;
    /// Queries for hooks (`game/hooked.rs`): whether a piece of `by` attacks `sq`.
    fn attacked(&self, sq: Square, by: Side) -> bool;
    /// The squares of `side`'s royal pieces, in square order.
    fn royal_squares(&self, side: Side) -> Vec<Square>;
    /// The pieces attacking a royal piece of the side to move by an unconditional atom.
    fn checkers(&self) -> Vec<Square>;
    /// The piece an action takes (on its target, or the one that skipped, en passant).
    fn captured(&self, a: &Action) -> Option<Piece>;
}

/// Events into a list, damage through a callback (the `on_damage` hook).
struct DamageSink<'a> {
    events: &'a mut Vec<Event>,
    damage: &'a mut dyn FnMut(Square, i64, Cause) -> i64,
}

impl crate::event::Sink for DamageSink<'_> {
    const ON: bool = true;
    fn push(&mut self, e: Event) {
        self.events.push(e)
    }
    fn damage(&mut self, sq: Square, amount: i64, cause: Cause) -> i64 {
        (self.damage)(sq, amount, cause)
    }
}

pub(crate) struct CoreImpl<B: Bits> {
    v: Arc<Variant>,
    pub(crate) pos: Position<B>,
}

impl<B: Bits> Core for CoreImpl<B> {
    fn legal(&self, out: &mut Vec<Action>) {
        movegen::legal(&self.pos, self.v.tables(), self.v.rules.check, out)
    }
    fn legal_deferred(&self, out: &mut Vec<Action>) -> std::ops::Range<usize> {
        movegen::legal_deferred(&self.pos, self.v.tables(), self.v.rules.check, out)
    }
    fn royal_move_legal(&self, a: Action) -> bool {
        movegen::royal_move_legal(&self.pos, self.v.tables(), a)
    }
    fn pseudo_legal(&self, out: &mut Vec<Action>) {
        movegen::legal(&self.pos, self.v.tables(), false, out)
    }
    fn make(&mut self, a: Action, events: &mut Vec<Event>) {
        self.pos.make(self.v.tables(), a, events)
    }
    fn make_quiet(&mut self, a: Action) {
        self.pos.make(self.v.tables(), a, &mut NoEvents)
    }
    fn material(&self) -> [[u8; crate::piece::MAX_KINDS]; 2] {
        let mut out = [[0u8; crate::piece::MAX_KINDS]; 2];
        for side in [Side::White, Side::Black] {
            for (k, n) in out[side.index()].iter_mut().enumerate().take(self.v.kinds.len()) {
                *n = u8::try_from(self.pos.pieces(side, k).count()).unwrap_or(u8::MAX);
            }
        }
        out
    }
    fn make_with_damage(
        &mut self,
        a: Action,
        events: &mut Vec<Event>,
        damage: &mut dyn FnMut(Square, i64, Cause) -> i64,
    ) {
        self.pos.make(self.v.tables(), a, &mut DamageSink { events, damage })
    }
    fn damage(&mut self, sq: Square, amount: i64, events: &mut Vec<Event>) -> bool {
        self.pos.damage_command(self.v.tables(), sq.index(), amount, events)
    }
    fn setup(&self) -> Setup {
        self.pos.to_setup_full(self.v.tables())
    }
    fn hash(&self) -> u64 {
        self.pos.hash
    }
    fn halfmove(&self) -> u32 {
        self.pos.halfmove
    }
    fn fullmove(&self) -> u32 {
        self.pos.fullmove
    }
    fn royals(&self, side: Side) -> u32 {
        self.pos.royals(self.v.tables(), side).count()
    }
    fn to_move(&self) -> Side {
        self.pos.stm
    }
    fn in_check(&self) -> bool {
        movegen::in_check(&self.pos, self.v.tables())
    }
    fn mate_by_drop_loses(&self) -> bool {
        self.pos.mate_by_drop_loses(self.v.tables())
    }

    fn opponent_in_check(&self) -> bool {
        let t = self.v.tables();
        // With explosions, a move that blasted the last royal piece of the side to move
        // won, whatever it left attacked.
        if t.explosion.is_some() && self.pos.royals(t, self.pos.stm).is_empty() {
            return false;
        }
        self.pos.royal_attacked(t, self.pos.stm.opponent())
    }
    fn perft(&self, depth: u32) -> u64 {
        movegen::perft(&self.pos, self.v.tables(), self.v.rules.check, depth)
    }
    fn ended(&self) -> Option<crate::movegen::ends::Ended> {
        let t = self.v.tables();
        if t.ends.is_empty() { None } else { movegen::ends::ended(&self.pos, t) }
    }
    fn after(&self, a: Action) -> Box<dyn Core> {
        let mut p = self.pos.clone();
        p.make(self.v.tables(), a, &mut NoEvents);
        Box::new(CoreImpl { v: self.v.clone(), pos: p })
    }
    fn boxed(&self) -> Box<dyn Core> {
        Box::new(CoreImpl { v: self.v.clone(), pos: self.pos.clone() })
    }
    fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.pos.piece_at(sq)
    }
    fn piece_state(&self, sq: Square) -> Option<crate::piece::PieceState> {
        self.pos.piece_state(self.v.tables(), sq.index())
    }
    fn remove(&mut self, sq: Square) -> Option<Piece> {
        self.pos.take(self.v.tables(), sq.index())
    }
    fn place(&mut self, sq: Square, piece: Piece) -> bool {
        self.pos.drop_piece(self.v.tables(), sq.index(), piece)
    }
    fn move_piece(&mut self, from: Square, to: Square) -> Option<Piece> {
        self.pos.shift(self.v.tables(), from.index(), to.index())
    }
    fn search(&self, job: &mut crate::search::Job<'_>) -> Option<crate::search::SearchResult> {
        crate::search::fast::search(&self.pos, &self.v, job)
    }
    fn evaluate(&self, ev: &crate::search::Evaluator) -> i32 {
        ev.evaluate(&self.pos, self.v.tables())
    }
    fn features(&self, ev: &crate::search::Evaluator) -> crate::search::eval::Features {
        ev.features(&self.pos, self.v.tables())
    }
    fn static_exchange(&self, ev: &crate::search::Evaluator, a: crate::action::Action) -> Option<i32> {
        crate::search::fast::static_exchange(&self.pos, &self.v, ev, a)
    }
    fn attacked(&self, sq: Square, by: Side) -> bool {
        let t = self.v.tables();
        let i = sq.index();
        if self.pos.attacked(t, i, by, self.pos.occupied()) {
            return true;
        }
        // Immunities are judged against the piece there; an empty square has none (31:
        // no kind's bit, as there are at most 16 kinds).
        let target = self.pos.piece_at(sq).map_or(31, |p| p.kind.index());
        t.cond_attackers[by.index()] != 0 && self.pos.cond_attacked(t, i, by, target)
    }
    fn royal_squares(&self, side: Side) -> Vec<Square> {
        self.pos.royals(self.v.tables(), side).iter().map(|i| Square(i as u8)).collect()
    }
    fn checkers(&self) -> Vec<Square> {
        let t = self.v.tables();
        let (stm, occ) = (self.pos.stm, self.pos.occupied());
        let mut all = B::EMPTY;
        for sq in self.pos.royals(t, stm).iter() {
            // With explosions, a royal piece no capture could take without blasting the
            // attacker's own is not in check.
            if t.explosion.is_some() && self.pos.blast_shielded(t, sq, stm.opponent()) {
                continue;
            }
            all |= self.pos.attackers(t, sq, stm.opponent(), occ);
        }
        all.iter().map(|i| Square(i as u8)).collect()
    }
    fn captured(&self, a: &Action) -> Option<Piece> {
        use crate::action::ActionKind;
        let at = match a.kind {
            ActionKind::Castle(_) | ActionKind::Drop => return None,
            ActionKind::EnPassant => Square(self.pos.ep_victim),
            _ => a.to,
        };
        self.pos.piece_at(at).filter(|p| p.side != self.pos.stm)
    }
}

pub(crate) fn core_for(v: &Arc<Variant>, s: &Setup) -> Box<dyn Core> {
    fn make<B: Bits>(v: &Arc<Variant>, s: &Setup) -> Box<dyn Core> {
        Box::new(CoreImpl::<B> { v: v.clone(), pos: Position::from_setup(v.tables(), s) })
    }
    match &v.tables {
        AnyTables::Narrow(_) => make::<u64>(v, s),
        AnyTables::Mid(_) => make::<u128>(v, s),
        AnyTables::Wide(_) => make::<Wide>(v, s),
    }
}
