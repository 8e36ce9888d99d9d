//! A rule's commands on the board (`game:remove`, `game:place`, `game:move`): each keeps
//! every mark that belongs to a piece consistent with where the pieces now stand —
//! frozen, waiting and promoted marks, hit points and aura marks, castling rights, and the
//! en-passant squares — so that the position after a hook is one a game could hold, and
//! reads back the same from its FEN or snapshot.

use crate::bits::Bits;
use crate::movegen::tables::Tables;
use crate::piece::Piece;
use crate::position::Position;

impl<B: Bits> Position<B> {
    /// The en-passant squares end when a command touches one of them or the piece that
    /// skipped them: the capture they offer would no longer be the one the skip made.
    fn touch_en_passant(&mut self, t: &Tables<B>, sq: usize) {
        if self.ep.any() && (self.ep.has(sq) || self.ep_victim as usize == sq) {
            for s in self.ep.iter() {
                self.hash ^= t.zobrist.ep[s];
            }
            self.ep = B::EMPTY;
        }
    }

    /// Removes a piece with everything that belongs to it; the castling rights tied to its
    /// square go too. It does not enter the graveyard: it was removed, not captured.
    pub fn take(&mut self, t: &Tables<B>, sq: usize) -> Option<Piece> {
        let piece = Piece::from_code(self.code(sq))?;
        self.touch_en_passant(t, sq);
        self.remove(t, sq);
        self.unmark(t, piece.side, sq);
        if self.promoted.has(sq) {
            self.mark_promoted(t, sq);
        }
        self.refresh_inactive();
        if self.combat.is_some() {
            self.forget(sq);
            self.settle_combat(t);
        }
        let rights = self.castling & t.castle_keep[sq] & t.castle_keep_code[piece.code() as usize];
        if rights != self.castling {
            self.set_castling(t, rights);
        }
        Some(piece)
    }

    /// Puts a piece on an empty square (at full hit points); false if it is occupied.
    pub fn drop_piece(&mut self, t: &Tables<B>, sq: usize, piece: Piece) -> bool {
        if self.code(sq) != 0 {
            return false;
        }
        self.touch_en_passant(t, sq);
        self.put(t, sq, piece.code());
        self.combat_placed(t, sq);
        self.settle_combat(t);
        true
    }

    /// Moves a piece to an empty square with everything that belongs to it. A frozen
    /// piece stays frozen only inside its promotion zone; castling rights tied to the
    /// square it left go.
    pub fn shift(&mut self, t: &Tables<B>, from: usize, to: usize) -> Option<Piece> {
        let piece = Piece::from_code(self.code(from))?;
        if self.code(to) != 0 {
            return None;
        }
        if from == to {
            return Some(piece);
        }
        self.touch_en_passant(t, from);
        self.touch_en_passant(t, to);
        if self.combat.is_some() {
            self.carry(t, from, to);
        } else {
            let code = self.remove(t, from);
            self.put(t, to, code);
        }
        let side = piece.side.index();
        if self.frozen.has(from) {
            if t.promo_zone[side][piece.kind.index()].has(to) {
                let before = self.queue[side];
                self.queue[side].rename(from as u8, to as u8);
                self.frozen = self.frozen.without(from).with(to);
                self.rehash_queue(t, piece.side, before);
            } else {
                self.unmark(t, piece.side, from);
            }
        }
        if self.promoted.has(from) {
            self.mark_promoted(t, from);
            self.mark_promoted(t, to);
        }
        if self.waiting[side].has(from) {
            self.waiting[side] = self.waiting[side].without(from).with(to);
            self.hash ^= t.zobrist.waiting[from] ^ t.zobrist.waiting[to];
        }
        self.refresh_inactive();
        self.settle_combat(t);
        let rights = self.castling & t.castle_keep[from] & t.castle_keep_code[piece.code() as usize];
        if rights != self.castling {
            self.set_castling(t, rights);
        }
        Some(piece)
    }
}
