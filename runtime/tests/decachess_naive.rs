//! An independent, deliberately naive Decachess move generator, written only for tests,
//! used to cross-check varia's perft counts.
//!
//! It was written from the rules alone (the Decachess rules document and RULES.md §2.4,
//! DC-01..DC-20, decisions A-DC1..A-DC15), without looking at varia's move generation or
//! at `scripts/decachess/variant.toml`. It is a mailbox board, plain loops, and a position
//! copied for every move: slow and, one hopes, obviously correct.
//!
//! Rules it implements (the ones that matter for move generation and legality):
//! - 10×10 board, files a-j, ranks 1-10; K Q R B N P as in chess, plus the Archer (A).
//! - Archer: steps 1 square in any direction onto an EMPTY square; or shoots (removes) an
//!   enemy exactly 2 squares away orthogonally or diagonally, staying put, ignoring what
//!   stands between. It cannot shoot while any enemy piece is on one of its 8 neighbours,
//!   never shoots a rook (DC-06) nor a king (A-DC5). An unsilenced archer attacks its 8
//!   distance-2 squares for check (A-DC3); silence is judged on the position after the
//!   candidate move (A-DC4).
//! - Castling (DC-07/08, A-DC2, A-DC13): kingside K f→h, R j→g, needs g h i empty;
//!   queenside K f→d, R a→e, needs b c d e empty. The king must not be in check, and each
//!   square it crosses or reaches (g h / e d) is judged with the king placed on it (moved
//!   there from f, the rook not yet moved). Rights come from the FEN; they are lost when
//!   the king or that rook moves, or when something is captured on the rook's square.
//! - Pawns: 1, 2 or 3 squares from the start rank (path clear), then 1; diagonal capture;
//!   en passant on the immediate reply onto any skipped square (DC-10), taking the pawn
//!   that stepped.
//! - Promotion (DC-11..14, A-DC6..8, A-DC14, A-DC15): on the last rank, one action per kind
//!   in the owner's graveyard (that piece leaves it); with an empty graveyard the pawn
//!   freezes (no moves, no attacks; it blocks, can be captured, silences archers). At the
//!   owner's next loss the oldest frozen pawn becomes the piece just lost. A frozen pawn
//!   that is itself captured leaves the queue first. Returned pieces (promoted or resolved)
//!   wait: they neither move, shoot nor attack until their owner has finished the next
//!   turn; modelled as a per-side set cleared at the start of that side's own move.
//! - No draws: perft counts the legal-action tree, one node per action (each promotion
//!   choice, and a freezing move, is one action).
//!
//! Readings where the text leaves room (each agrees with varia):
//! - "Middle rank" of a 3-step is the rank next to the landing rank (rank 4 after e2-e5):
//!   the only enemy pawns whose diagonal capture lands on a skipped square are those on
//!   ranks 4 and 5, so "any enemy pawn whose capture lands on a skipped square" is exact.
//! - Castling squares are judged with the king moved there and the rook still at home;
//!   on this board that gives the same answers as judging the final position, because the
//!   final position is checked as well and the rook's landing square is one the king
//!   crosses.
//! - A frozen pawn "does not attack", which never matters: a pawn on its last rank has no
//!   forward diagonals.
//! - Frozen queues are per side; the FEN lists White's queue, then Black's (as varia does).
//!
//! The tests: hand-worked checks of the naive engine alone, then pinned perft counts
//! (both engines must agree and equal the number), then random playouts compared move by
//! move, then the disagreements found (ignored until varia is fixed).

use std::sync::Arc;

use varia::{Game, Variant};

// ---------------------------------------------------------------------------------------
// The naive engine
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    White,
    Black,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
    fn index(self) -> usize {
        match self {
            Side::White => 0,
            Side::Black => 1,
        }
    }
    /// The rank direction this side's pawns move in.
    fn forward(self) -> i32 {
        match self {
            Side::White => 1,
            Side::Black => -1,
        }
    }
    /// The rank (0-based) this side's pawns start on.
    fn pawn_rank(self) -> i32 {
        match self {
            Side::White => 1,
            Side::Black => 8,
        }
    }
    /// The rank (0-based) this side's pawns promote on.
    fn last_rank(self) -> i32 {
        match self {
            Side::White => 9,
            Side::Black => 0,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    King,
    Queen,
    Rook,
    Bishop,
    Knight,
    Pawn,
    Archer,
}

/// The kinds a pawn may come back as (everything but the king), in the order this engine
/// lists promotion choices.
const RETURNABLE: [Kind; 6] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight, Kind::Archer, Kind::Pawn];

impl Kind {
    fn index(self) -> usize {
        self as usize
    }
    fn letter(self) -> char {
        match self {
            Kind::King => 'K',
            Kind::Queen => 'Q',
            Kind::Rook => 'R',
            Kind::Bishop => 'B',
            Kind::Knight => 'N',
            Kind::Pawn => 'P',
            Kind::Archer => 'A',
        }
    }
    fn from_letter(c: char) -> Option<(Side, Kind)> {
        let side = if c.is_ascii_uppercase() { Side::White } else { Side::Black };
        let kind = match c.to_ascii_uppercase() {
            'K' => Kind::King,
            'Q' => Kind::Queen,
            'R' => Kind::Rook,
            'B' => Kind::Bishop,
            'N' => Kind::Knight,
            'P' => Kind::Pawn,
            'A' => Kind::Archer,
            _ => return None,
        };
        Some((side, kind))
    }
}

type Cell = Option<(Side, Kind)>;

/// Square index = rank * 10 + file, both 0-based (a1 = 0, j1 = 9, a2 = 10, j10 = 99).
fn sq(file: i32, rank: i32) -> Option<usize> {
    if (0..10).contains(&file) && (0..10).contains(&rank) { Some((rank * 10 + file) as usize) } else { None }
}

fn file_of(s: usize) -> i32 {
    (s % 10) as i32
}

fn rank_of(s: usize) -> i32 {
    (s / 10) as i32
}

/// The square `df` files and `dr` ranks away from `s`, if it is on the board.
fn offset(s: usize, df: i32, dr: i32) -> Option<usize> {
    sq(file_of(s) + df, rank_of(s) + dr)
}

fn name(s: usize) -> String {
    format!("{}{}", (b'a' + (s % 10) as u8) as char, s / 10 + 1)
}

fn parse_square(t: &str) -> usize {
    let mut cs = t.chars();
    let f = cs.next().expect("a square name") as i32 - 'a' as i32;
    let r: i32 = cs.as_str().parse::<i32>().expect("a rank number") - 1;
    sq(f, r).unwrap_or_else(|| panic!("{t} is not a square of a 10x10 board"))
}

const KING_STEPS: [(i32, i32); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];
const KNIGHT_JUMPS: [(i32, i32); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// One castling: the king and rook squares before and after, the squares that must be
/// empty, and the squares the king crosses or reaches (which must not be attacked).
struct Castling {
    side: Side,
    king_from: usize,
    king_to: usize,
    rook_from: usize,
    rook_to: usize,
    empty: &'static [usize],
    safe: &'static [usize],
}

/// Index order = FEN letters K Q k q.
const CASTLINGS: [Castling; 4] = [
    // White kingside: K f1-h1, R j1-g1; g1 h1 i1 empty; g1 h1 safe.
    Castling {
        side: Side::White,
        king_from: 5,
        king_to: 7,
        rook_from: 9,
        rook_to: 6,
        empty: &[6, 7, 8],
        safe: &[6, 7],
    },
    // White queenside: K f1-d1, R a1-e1; b1 c1 d1 e1 empty; e1 d1 safe.
    Castling {
        side: Side::White,
        king_from: 5,
        king_to: 3,
        rook_from: 0,
        rook_to: 4,
        empty: &[1, 2, 3, 4],
        safe: &[4, 3],
    },
    // Black kingside: K f10-h10, R j10-g10.
    Castling {
        side: Side::Black,
        king_from: 95,
        king_to: 97,
        rook_from: 99,
        rook_to: 96,
        empty: &[96, 97, 98],
        safe: &[96, 97],
    },
    // Black queenside: K f10-d10, R a10-e10.
    Castling {
        side: Side::Black,
        king_from: 95,
        king_to: 93,
        rook_from: 90,
        rook_to: 94,
        empty: &[91, 92, 93, 94],
        safe: &[94, 93],
    },
];

#[derive(Clone, Debug)]
struct Pos {
    board: [Cell; 100],
    to_move: Side,
    /// Castling rights in the order K Q k q.
    castling: [bool; 4],
    /// Squares a pawn skipped on the previous move (en-passant targets).
    ep: Vec<usize>,
    /// The pawn an en-passant capture removes.
    ep_victim: Option<usize>,
    /// Captured pieces, per side and kind.
    graveyard: [[u8; 7]; 2],
    /// Frozen pawns (both sides), oldest first.
    frozen: Vec<usize>,
    /// Returned pieces that cannot act yet (both sides).
    waiting: Vec<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum MoveKind {
    Plain,
    EnPassant,
    Castle(usize),
    Shot,
}

#[derive(Clone, Copy, Debug)]
struct Move {
    from: usize,
    to: usize,
    kind: MoveKind,
    promo: Option<Kind>,
    freeze: bool,
}

impl Move {
    fn plain(from: usize, to: usize) -> Move {
        Move { from, to, kind: MoveKind::Plain, promo: None, freeze: false }
    }
    /// The move in varia's notation: `from-to`, `=X` for a promotion; castling is the
    /// king's move, a shot is `archer-target`.
    fn text(&self) -> String {
        let mut s = format!("{}-{}", name(self.from), name(self.to));
        if let Some(k) = self.promo {
            s.push('=');
            s.push(k.letter());
        }
        s
    }
}

impl Pos {
    fn side_at(&self, s: usize) -> Option<Side> {
        self.board[s].map(|(side, _)| side)
    }

    /// Whether the piece on `s` may move, shoot and attack: it is neither frozen nor waiting.
    fn can_act(&self, s: usize) -> bool {
        self.board[s].is_some() && !self.frozen.contains(&s) && !self.waiting.contains(&s)
    }

    /// Whether the archer on `s` has an enemy piece on one of its 8 neighbours.
    fn silenced(&self, s: usize) -> bool {
        let me = self.side_at(s).unwrap();
        KING_STEPS.iter().any(|&(df, dr)| offset(s, df, dr).is_some_and(|n| self.side_at(n) == Some(me.other())))
    }

    /// Whether the piece on `from` attacks `target` (whether it may act is not checked here).
    fn attacks(&self, from: usize, target: usize) -> bool {
        let (side, kind) = self.board[from].unwrap();
        // A slider attacks `target` if it lies n ≥ 1 steps along one of `dirs` and the
        // n - 1 squares before it are empty.
        let (df, dr) = (file_of(target) - file_of(from), rank_of(target) - rank_of(from));
        let ray = |dirs: &[(i32, i32)]| {
            dirs.iter().any(|&(x, y)| {
                let n = if x != 0 { df / x } else { dr / y };
                n >= 1
                    && (x * n, y * n) == (df, dr)
                    && (1..n).all(|i| self.board[offset(from, i * x, i * y).unwrap()].is_none())
            })
        };
        match kind {
            Kind::King => KING_STEPS.iter().any(|&(df, dr)| offset(from, df, dr) == Some(target)),
            Kind::Knight => KNIGHT_JUMPS.iter().any(|&(df, dr)| offset(from, df, dr) == Some(target)),
            Kind::Pawn => [-1, 1].iter().any(|&df| offset(from, df, side.forward()) == Some(target)),
            Kind::Rook => ray(&ROOK_DIRS),
            Kind::Bishop => ray(&BISHOP_DIRS),
            Kind::Queen => ray(&ROOK_DIRS) || ray(&BISHOP_DIRS),
            Kind::Archer => {
                KING_STEPS.iter().any(|&(df, dr)| offset(from, 2 * df, 2 * dr) == Some(target)) && !self.silenced(from)
            }
        }
    }

    /// Whether any piece of `by` that may act attacks `target`.
    fn attacked(&self, target: usize, by: Side) -> bool {
        (0..100).any(|s| self.side_at(s) == Some(by) && self.can_act(s) && self.attacks(s, target))
    }

    fn king(&self, side: Side) -> usize {
        (0..100).find(|&s| self.board[s] == Some((side, Kind::King))).expect("each side has a king")
    }

    fn in_check(&self, side: Side) -> bool {
        self.attacked(self.king(side), side.other())
    }

    /// Every action of the side to move, before the own-king-safety test (castling is
    /// fully checked here, as its conditions are about the position before the move).
    fn pseudo_moves(&self) -> Vec<Move> {
        let me = self.to_move;
        let mut out = Vec::new();
        for from in 0..100 {
            if self.side_at(from) != Some(me) || !self.can_act(from) {
                continue;
            }
            let (_, kind) = self.board[from].unwrap();
            let target_ok = |t: usize| self.side_at(t) != Some(me);
            match kind {
                Kind::King | Kind::Knight => {
                    let steps = if kind == Kind::King { &KING_STEPS } else { &KNIGHT_JUMPS };
                    for &(df, dr) in steps {
                        if let Some(t) = offset(from, df, dr)
                            && target_ok(t)
                        {
                            out.push(Move::plain(from, t));
                        }
                    }
                }
                Kind::Rook | Kind::Bishop | Kind::Queen => {
                    let mut dirs: Vec<(i32, i32)> = Vec::new();
                    if kind != Kind::Bishop {
                        dirs.extend(ROOK_DIRS);
                    }
                    if kind != Kind::Rook {
                        dirs.extend(BISHOP_DIRS);
                    }
                    for (df, dr) in dirs {
                        let mut s = from;
                        while let Some(t) = offset(s, df, dr) {
                            if target_ok(t) {
                                out.push(Move::plain(from, t));
                            }
                            if self.board[t].is_some() {
                                break;
                            }
                            s = t;
                        }
                    }
                }
                Kind::Archer => {
                    for &(df, dr) in &KING_STEPS {
                        if let Some(t) = offset(from, df, dr)
                            && self.board[t].is_none()
                        {
                            out.push(Move::plain(from, t));
                        }
                    }
                    if !self.silenced(from) {
                        for &(df, dr) in &KING_STEPS {
                            if let Some(t) = offset(from, 2 * df, 2 * dr)
                                && let Some((side, k)) = self.board[t]
                                && side != me
                                && k != Kind::Rook
                                && k != Kind::King
                            {
                                out.push(Move { from, to: t, kind: MoveKind::Shot, promo: None, freeze: false });
                            }
                        }
                    }
                }
                Kind::Pawn => self.pawn_moves(from, &mut out),
            }
        }
        for (i, c) in CASTLINGS.iter().enumerate() {
            if c.side == me && self.castling[i] && self.castling_ok(c) {
                out.push(Move {
                    from: c.king_from,
                    to: c.king_to,
                    kind: MoveKind::Castle(i),
                    promo: None,
                    freeze: false,
                });
            }
        }
        out
    }

    fn pawn_moves(&self, from: usize, out: &mut Vec<Move>) {
        let me = self.to_move;
        let fwd = me.forward();
        // Adds a pawn move, split into its promotion choices on the last rank.
        let mut add = |to: usize, kind: MoveKind| {
            if rank_of(to) != me.last_rank() {
                out.push(Move { from, to, kind, promo: None, freeze: false });
                return;
            }
            let mut any = false;
            for k in RETURNABLE {
                if self.graveyard[me.index()][k.index()] > 0 {
                    out.push(Move { from, to, kind, promo: Some(k), freeze: false });
                    any = true;
                }
            }
            if !any {
                out.push(Move { from, to, kind, promo: None, freeze: true });
            }
        };
        // Pushes: 1 square; from the start rank also 2 or 3, the whole path empty.
        let max = if rank_of(from) == me.pawn_rank() { 3 } else { 1 };
        for n in 1..=max {
            match offset(from, 0, n * fwd) {
                Some(t) if self.board[t].is_none() => add(t, MoveKind::Plain),
                _ => break,
            }
        }
        for df in [-1, 1] {
            if let Some(t) = offset(from, df, fwd) {
                if self.side_at(t) == Some(me.other()) {
                    add(t, MoveKind::Plain);
                } else if self.board[t].is_none() && self.ep.contains(&t) {
                    add(t, MoveKind::EnPassant);
                }
            }
        }
    }

    fn castling_ok(&self, c: &Castling) -> bool {
        let me = c.side;
        if self.board[c.king_from] != Some((me, Kind::King)) || self.board[c.rook_from] != Some((me, Kind::Rook)) {
            return false;
        }
        if !self.can_act(c.king_from) || !self.can_act(c.rook_from) {
            return false;
        }
        if c.empty.iter().any(|&s| self.board[s].is_some()) {
            return false;
        }
        if self.attacked(c.king_from, me.other()) {
            return false;
        }
        // Each square the king crosses or reaches: the king placed there (moved from its
        // square, which is left empty), then asked whether that square is attacked.
        c.safe.iter().all(|&s| {
            let mut t = self.clone();
            t.board[s] = t.board[c.king_from].take();
            !t.attacked(s, me.other())
        })
    }

    /// The position after `m` (which must be one of `pseudo_moves`).
    fn apply(&self, m: &Move) -> Pos {
        let me = self.to_move;
        let opp = me.other();
        let mut p = self.clone();
        // The mover's returned pieces have now waited through their owner's turn.
        p.waiting.retain(|&s| self.side_at(s) != Some(me));
        p.ep.clear();
        p.ep_victim = None;
        let moving = self.board[m.from].unwrap();
        assert_eq!(moving.0, me);
        // The piece the mover takes: its square and kind.
        let mut lost: Option<(usize, Kind)> = None;
        match m.kind {
            MoveKind::Plain => {
                if let Some((side, k)) = self.board[m.to] {
                    assert_eq!(side, opp, "{} takes an own piece", m.text());
                    assert_ne!(k, Kind::King, "{} takes a king", m.text());
                    lost = Some((m.to, k));
                }
                p.board[m.to] = p.board[m.from].take();
            }
            MoveKind::EnPassant => {
                let victim = self.ep_victim.expect("an en-passant capture has a victim");
                assert_eq!(self.board[victim], Some((opp, Kind::Pawn)));
                p.board[victim] = None;
                lost = Some((victim, Kind::Pawn));
                p.board[m.to] = p.board[m.from].take();
            }
            MoveKind::Shot => {
                let (side, k) = self.board[m.to].unwrap();
                assert_eq!(side, opp);
                assert!(k != Kind::Rook && k != Kind::King);
                lost = Some((m.to, k));
                p.board[m.to] = None;
            }
            MoveKind::Castle(i) => {
                let c = &CASTLINGS[i];
                p.board[c.king_from] = None;
                p.board[c.rook_from] = None;
                p.board[c.king_to] = Some((me, Kind::King));
                p.board[c.rook_to] = Some((me, Kind::Rook));
            }
        }
        // Castling rights: lost when the king or the rook leaves its square, or when
        // something is taken on the rook's square.
        for (i, c) in CASTLINGS.iter().enumerate() {
            if m.from == c.king_from || m.from == c.rook_from || lost.is_some_and(|(s, _)| s == c.rook_from) {
                p.castling[i] = false;
            }
        }
        // A loss: the piece goes to its owner's graveyard; the owner's oldest frozen pawn
        // (after the lost piece itself left the queue) comes back as that piece, waiting.
        if let Some((s, k)) = lost {
            p.frozen.retain(|&f| f != s);
            p.waiting.retain(|&w| w != s);
            p.graveyard[opp.index()][k.index()] += 1;
            if let Some(i) = p.frozen.iter().position(|&f| p.side_at(f) == Some(opp)) {
                let f = p.frozen.remove(i);
                assert_eq!(p.board[f], Some((opp, Kind::Pawn)));
                p.board[f] = Some((opp, k));
                p.graveyard[opp.index()][k.index()] -= 1;
                p.waiting.push(f);
            }
        }
        // The mover's own promotion or freeze.
        if let Some(k) = m.promo {
            assert!(p.graveyard[me.index()][k.index()] > 0);
            p.graveyard[me.index()][k.index()] -= 1;
            p.board[m.to] = Some((me, k));
            p.waiting.push(m.to);
        }
        if m.freeze {
            p.frozen.push(m.to);
        }
        // A pawn step of 2 or 3 squares: the skipped squares are en-passant targets.
        if moving.1 == Kind::Pawn && m.kind == MoveKind::Plain {
            let steps = (rank_of(m.to) - rank_of(m.from)) * me.forward();
            if steps >= 2 {
                for n in 1..steps {
                    p.ep.push(offset(m.from, 0, n * me.forward()).unwrap());
                }
                p.ep_victim = Some(m.to);
            }
        }
        p.to_move = opp;
        p
    }

    /// The legal actions: pseudo-moves that do not leave the mover's king attacked.
    fn legal_moves(&self) -> Vec<Move> {
        let me = self.to_move;
        self.pseudo_moves().into_iter().filter(|m| !self.apply(m).in_check(me)).collect()
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|m| self.apply(m).perft(depth - 1)).sum()
    }

    /// Perft split by first action, sorted by the action's text.
    fn divide(&self, depth: u32) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> =
            self.legal_moves().iter().map(|m| (m.text(), self.apply(m).perft(depth - 1))).collect();
        v.sort();
        v
    }

    /// Perft with the root actions spread over threads (the counting itself is unchanged).
    fn perft_parallel(&self, depth: u32) -> u64 {
        if depth <= 2 {
            return self.perft(depth);
        }
        let moves = self.legal_moves();
        std::thread::scope(|scope| {
            let handles: Vec<_> = moves
                .iter()
                .map(|m| {
                    let next = self.apply(m);
                    scope.spawn(move || next.perft(depth - 1))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        })
    }

    fn find_move(&self, text: &str) -> Move {
        *self
            .legal_moves()
            .iter()
            .find(|m| m.text() == text)
            .unwrap_or_else(|| panic!("{text} is not legal in the naive engine"))
    }

    /// Reads a FEN: board (multi-digit empty counts), side, castling (KQkq), en passant
    /// (comma-separated squares), clocks, then optional `graveyard=`, `frozen=`, `waiting=`.
    fn from_fen(fen: &str) -> Pos {
        let all: Vec<&str> = fen.split_whitespace().collect();
        let n = all.iter().position(|f| f.contains('=')).unwrap_or(all.len());
        let (fields, extras) = all.split_at(n);
        let mut board: [Cell; 100] = [None; 100];
        let rows: Vec<&str> = fields[0].split('/').collect();
        assert_eq!(rows.len(), 10, "{fen}: 10 ranks");
        for (i, row) in rows.iter().enumerate() {
            let rank = 9 - i as i32;
            let mut file = 0;
            let mut count = 0;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    count = count * 10 + d as i32;
                    continue;
                }
                file += count;
                count = 0;
                let piece = Kind::from_letter(c).unwrap_or_else(|| panic!("{fen}: bad letter {c}"));
                board[sq(file, rank).unwrap_or_else(|| panic!("{fen}: rank {} too long", rank + 1))] = Some(piece);
                file += 1;
            }
            file += count;
            assert_eq!(file, 10, "{fen}: rank {} has {file} files", rank + 1);
        }
        let to_move = match fields.get(1).copied().unwrap_or("w") {
            "w" => Side::White,
            "b" => Side::Black,
            other => panic!("{fen}: side {other}"),
        };
        let mut castling = [false; 4];
        for c in fields.get(2).copied().unwrap_or("-").chars() {
            match c {
                'K' => castling[0] = true,
                'Q' => castling[1] = true,
                'k' => castling[2] = true,
                'q' => castling[3] = true,
                '-' => {}
                other => panic!("{fen}: castling {other}"),
            }
        }
        let mut ep = Vec::new();
        let mut ep_victim = None;
        let ef = fields.get(3).copied().unwrap_or("-");
        if ef != "-" {
            let mover = to_move.other();
            for t in ef.split(',') {
                ep.push(parse_square(t));
            }
            // The pawn that stepped stands just beyond the farthest skipped square.
            let far = *ep.iter().max_by_key(|&&s| rank_of(s) * mover.forward()).unwrap();
            let victim = offset(far, 0, mover.forward()).unwrap();
            assert_eq!(board[victim], Some((mover, Kind::Pawn)), "{fen}: no pawn beyond the en-passant squares");
            ep_victim = Some(victim);
        }
        let mut pos = Pos {
            board,
            to_move,
            castling,
            ep,
            ep_victim,
            graveyard: [[0; 7]; 2],
            frozen: Vec::new(),
            waiting: Vec::new(),
        };
        for extra in extras {
            let (key, value) = extra.split_once('=').unwrap();
            match key {
                "graveyard" => {
                    for c in value.chars() {
                        let (side, kind) = Kind::from_letter(c).unwrap();
                        pos.graveyard[side.index()][kind.index()] += 1;
                    }
                }
                "frozen" | "waiting" => {
                    for t in value.split(',').filter(|t| !t.is_empty()) {
                        let s = parse_square(t);
                        assert!(pos.board[s].is_some(), "{fen}: {key} square {t} is empty");
                        if key == "frozen" { pos.frozen.push(s) } else { pos.waiting.push(s) }
                    }
                }
                other => panic!("{fen}: unknown field {other}="),
            }
        }
        pos
    }

    /// A FEN of this position (for messages).
    fn fen(&self) -> String {
        let mut out = String::new();
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..10 {
                match self.board[sq(file, rank).unwrap()] {
                    None => empty += 1,
                    Some((side, kind)) => {
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let c = kind.letter();
                        out.push(if side == Side::White { c } else { c.to_ascii_lowercase() });
                    }
                }
            }
            if empty > 0 {
                out.push_str(&empty.to_string());
            }
            if rank > 0 {
                out.push('/');
            }
        }
        out.push_str(if self.to_move == Side::White { " w " } else { " b " });
        let rights: String = "KQkq".chars().zip(self.castling).filter(|&(_, on)| on).map(|(c, _)| c).collect();
        out.push_str(if rights.is_empty() { "-" } else { &rights });
        let ep: Vec<String> = self.ep.iter().map(|&s| name(s)).collect();
        out.push(' ');
        out.push_str(if ep.is_empty() { "-".to_string() } else { ep.join(",") }.as_str());
        out.push_str(" 0 1");
        let mut graveyard = String::new();
        for side in [Side::White, Side::Black] {
            for k in RETURNABLE {
                for _ in 0..self.graveyard[side.index()][k.index()] {
                    graveyard.push(if side == Side::White { k.letter() } else { k.letter().to_ascii_lowercase() });
                }
            }
        }
        if !graveyard.is_empty() {
            out.push_str(&format!(" graveyard={graveyard}"));
        }
        let list = |l: &[usize]| l.iter().map(|&s| name(s)).collect::<Vec<_>>().join(",");
        if !self.frozen.is_empty() {
            // The queues are per side: White's, then Black's, each oldest first.
            let mut frozen: Vec<usize> =
                self.frozen.iter().copied().filter(|&s| self.side_at(s) == Some(Side::White)).collect();
            frozen.extend(self.frozen.iter().copied().filter(|&s| self.side_at(s) == Some(Side::Black)));
            out.push_str(&format!(" frozen={}", list(&frozen)));
        }
        if !self.waiting.is_empty() {
            out.push_str(&format!(" waiting={}", list(&self.waiting)));
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// Self-checks of the naive engine, worked out by hand (no varia involved)
// ---------------------------------------------------------------------------------------

const START: &str = "ranbqkbnar/pppppppppp/10/10/10/10/10/10/PPPPPPPPPP/RANBQKBNAR w KQkq - 0 1";

fn moves_of(fen: &str) -> Vec<String> {
    let mut v: Vec<String> = Pos::from_fen(fen).legal_moves().iter().map(Move::text).collect();
    v.sort();
    v
}

fn has(moves: &[String], m: &str) -> bool {
    moves.iter().any(|x| x == m)
}

fn list(moves: &str) -> Vec<String> {
    let mut v: Vec<String> = moves.split_whitespace().map(String::from).collect();
    v.sort();
    v
}

#[test]
fn naive_start_position() {
    let p = Pos::from_fen(START);
    assert_eq!(p.fen(), START);
    // 10 pawns × 3 pushes, 2 knights × 2; the archers are boxed in and see no enemy.
    assert_eq!(p.perft(1), 34);
    // Nothing either side does in one move touches the other side's options.
    assert_eq!(p.perft(2), 34 * 34);
}

#[test]
fn naive_archer_walks_and_shoots() {
    // White archer e5: 8 empty neighbours; enemies 2 away: n e7, r g7 (immune), p c5,
    // n c3, p g5. White king j1 has 3 safe squares.
    let fen = "k9/10/10/4n1r3/10/2p1A1p3/10/2n7/10/9K w - - 0 1";
    let expected = "e5-d4 e5-d5 e5-d6 e5-e4 e5-e6 e5-f4 e5-f5 e5-f6 e5-e7 e5-c5 e5-c3 e5-g5 j1-i1 j1-i2 j1-j2";
    assert_eq!(moves_of(fen), list(expected));
    // A black pawn on f6 next to the archer silences it and takes a walking square.
    let fen = "k9/10/10/4n1r3/5p4/2p1A1p3/10/2n7/10/9K w - - 0 1";
    assert_eq!(moves_of(fen), list("e5-d4 e5-d5 e5-d6 e5-e4 e5-e6 e5-f4 e5-f5 j1-i1 j1-i2 j1-j2"));
}

#[test]
fn naive_archer_check_and_evasions() {
    // The black archer f3 checks the king f1 from 2 away. Evasions: any king step
    // (e2 f2 g2 are next to the archer and silence it), a piece landing next to the archer
    // (d1-e3, d1-f2, f8-f4), taking it (f8-f3). f8-f5 on the line does not block.
    let fen = "k9/10/5R4/10/10/10/10/5a4/10/3N1K4 w - - 0 1";
    assert!(Pos::from_fen(fen).in_check(Side::White));
    assert_eq!(moves_of(fen), list("f1-e1 f1-g1 f1-e2 f1-f2 f1-g2 d1-e3 d1-f2 f8-f4 f8-f3"));
    // Adjacency pin: the knight e2 is the only piece silencing the archer f3; it may only
    // go to squares still next to the archer (f4, g3).
    let fen = "k9/10/10/10/10/10/10/5a4/4N5/5K4 w - - 0 1";
    assert!(!Pos::from_fen(fen).in_check(Side::White));
    assert_eq!(moves_of(fen), list("e2-f4 e2-g3 f1-e1 f1-f2 f1-g1 f1-g2"));
}

#[test]
fn naive_castling_and_archers() {
    // Archer e3 attacks e1 and g1: neither castling, nor the king steps there.
    let fen = "4k5/10/10/10/10/10/10/4a5/10/R4K3R w KQ - 0 1";
    let m = moves_of(fen);
    assert_eq!(m.len(), 25 + 3);
    for x in ["f1-h1", "f1-d1", "f1-e1", "f1-g1"] {
        assert!(!has(&m, x), "{x}");
    }
    // A white pawn d2 next to the archer silences it: both castlings.
    let fen = "4k5/10/10/10/10/10/10/4a5/3P6/R4K3R w KQ - 0 1";
    let m = moves_of(fen);
    assert_eq!(m.len(), 5 + 2 + 4 + 25);
    assert!(has(&m, "f1-h1") && has(&m, "f1-d1") && has(&m, "d2-e3"));
    // A-DC13: the archer g1 is silenced by the king f1, but with the king placed on e1
    // (f1 left empty) it attacks e1: no queenside castling, no f1-e1.
    let fen = "4k5/10/10/10/10/10/10/10/10/R4Ka2R w KQ - 0 1";
    let m = moves_of(fen);
    assert_eq!(m.len(), 13 + 12 + 4);
    assert!(!has(&m, "f1-d1") && !has(&m, "f1-e1") && has(&m, "f1-g1") && has(&m, "j1-g1"));
    // …unless a pawn h2 keeps it silenced.
    let fen = "4k5/10/10/10/10/10/10/10/7P2/R4Ka2R w KQ - 0 1";
    let m = moves_of(fen);
    assert_eq!(m.len(), 5 + 1 + 25 + 3);
    assert!(has(&m, "f1-d1") && has(&m, "f1-e1"));
    // Mirror: archer e1 attacks g1 once the king has left f1.
    let fen = "4k5/10/10/10/10/10/10/10/10/R3aK3R w KQ - 0 1";
    let m = moves_of(fen);
    assert!(!has(&m, "f1-h1") && !has(&m, "f1-g1") && !has(&m, "f1-d1") && has(&m, "f1-e1"));
    let fen = "4k5/10/10/10/10/10/10/10/3P6/R3aK3R w KQ - 0 1";
    let m = moves_of(fen);
    assert!(has(&m, "f1-h1") && has(&m, "f1-g1"));
    // Black castles the same way; rook squares and rights.
    let fen = "r4k3r/10/10/10/10/10/10/10/10/5K4 b kq - 0 1";
    let p = Pos::from_fen(fen);
    let m = moves_of(fen);
    assert!(has(&m, "f10-h10") && has(&m, "f10-d10"));
    let after = p.apply(&p.find_move("f10-h10"));
    assert_eq!(after.fen(), "r5rk2/10/10/10/10/10/10/10/10/5K4 w - - 0 1");
    let after = p.apply(&p.find_move("f10-d10"));
    assert_eq!(after.fen(), "3kr4r/10/10/10/10/10/10/10/10/5K4 w - - 0 1");
    let after = p.apply(&p.find_move("j10-j9"));
    assert_eq!(after.fen(), "r4k4/9r/10/10/10/10/10/10/10/5K4 w q - 0 1");
}

#[test]
fn naive_triple_step_and_en_passant() {
    // White just played e2-e5: e3 and e4 are targets. d4 takes onto e3; f5 would take onto
    // e4, but that empties rank 5 between the king a5 and the rook j5.
    let fen = "10/10/10/10/10/k3Pp3R/3p6/10/10/9K b - e3,e4 0 1";
    assert_eq!(moves_of(fen), list("d4-d3 d4-e3 f5-f4 a5-a4 a5-b4 a5-b5 a5-a6 a5-b6"));
    let p = Pos::from_fen(fen);
    assert_eq!(p.apply(&p.find_move("d4-e3")).fen(), "10/10/10/10/10/k4p3R/10/4p5/10/9K w - - 0 1 graveyard=P");
    // The step itself sets both targets; a 2-step sets one.
    let p = Pos::from_fen("10/10/10/10/10/k4p3R/3p6/10/4P5/9K w - - 0 1");
    let after = p.apply(&p.find_move("e2-e5"));
    assert_eq!(after.fen(), "10/10/10/10/10/k3Pp3R/3p6/10/10/9K b - e3,e4 0 1");
    let after = p.apply(&p.find_move("e2-e4"));
    assert_eq!(after.fen(), "10/10/10/10/10/k4p3R/3pP5/10/10/9K b - e3 0 1");
    assert!(has(&after.legal_moves().iter().map(Move::text).collect::<Vec<_>>(), "d4-e3"));
    // The window lasts one move.
    let later = after.apply(&after.find_move("a5-a6"));
    let again = later.apply(&later.find_move("j1-i1"));
    assert!(!again.legal_moves().iter().any(|m| m.text() == "d4-e3"));
}

#[test]
fn naive_promotion_and_waiting() {
    // Graveyard Q N (white) and p (black): two promotion choices.
    let fen = "7k2/2P7/10/10/10/10/10/10/10/K9 w - - 0 1 graveyard=QNp";
    assert_eq!(moves_of(fen), list("c9-c10=Q c9-c10=N a1-a2 a1-b1 a1-b2"));
    let p = Pos::from_fen(fen);
    let q = p.apply(&p.find_move("c9-c10=Q"));
    assert_eq!(q.fen(), "2Q4k2/10/10/10/10/10/10/10/10/K9 b - - 0 1 graveyard=Np waiting=c10");
    // The queen waits: the black king may stay on, or step along, rank 10.
    assert_eq!(q.legal_moves().len(), 5);
    let q = q.apply(&q.find_move("h10-g10"));
    // White's turn: the queen still cannot move.
    assert_eq!(moves_of(&q.fen()), list("a1-a2 a1-b1 a1-b2"));
    // Once White has moved, the queen is free and checks g10.
    let q = q.apply(&q.find_move("a1-a2"));
    assert!(q.waiting.is_empty());
    assert!(q.in_check(Side::Black));
    assert_eq!(moves_of(&q.fen()), list("g10-f9 g10-g9 g10-h9"));
}

#[test]
fn naive_freezing_and_resolution() {
    // Empty white graveyard: c9-c10 freezes (one action).
    let fen = "7k2/2P7/4r5/10/10/10/4N5/10/10/K9 w - - 0 1";
    assert_eq!(moves_of(fen).len(), 1 + 8 + 3);
    let p = Pos::from_fen(fen);
    let f = p.apply(&p.find_move("c9-c10"));
    assert_eq!(f.fen(), "2P4k2/10/4r5/10/10/10/4N5/10/10/K9 b - - 0 1 frozen=c10");
    // Losing the knight resolves the frozen pawn into a (waiting) knight.
    let r = f.apply(&f.find_move("e8-e4"));
    assert_eq!(r.fen(), "2N4k2/10/10/10/10/10/4r5/10/10/K9 w - - 0 1 waiting=c10");
    assert_eq!(moves_of(&r.fen()), list("a1-a2 a1-b1 a1-b2"));
    let r = r.apply(&r.find_move("a1-a2"));
    let r = r.apply(&r.find_move("h10-h9"));
    assert!(has(&r.legal_moves().iter().map(Move::text).collect::<Vec<_>>(), "c10-d8"));

    // Two frozen pawns, c10 the older. Taking c10 itself: it leaves the queue, and e10
    // comes back as a pawn (not frozen, waiting, no moves).
    let fen = "2P1P5/10/10/10/10/10/9k/K9/10/2r1r5 b - - 0 1 frozen=c10,e10";
    let p = Pos::from_fen(fen);
    let a = p.apply(&p.find_move("c1-c10"));
    assert_eq!(a.fen(), "2r1P5/10/10/10/10/10/9k/K9/10/4r5 w - - 0 1 waiting=e10");
    // Taking e10 (the younger): c10 resolves into a pawn.
    let b = p.apply(&p.find_move("e1-e10"));
    assert_eq!(b.fen(), "2P1r5/10/10/10/10/10/9k/K9/10/2r7 w - - 0 1 waiting=c10");
    // A loss elsewhere: only the oldest resolves.
    let fen = "2P1P5/10/10/10/10/10/9k/K9/2N7/2r1r5 b - - 0 1 frozen=c10,e10";
    let p = Pos::from_fen(fen);
    let c = p.apply(&p.find_move("c1-c2"));
    assert_eq!(c.fen(), "2N1P5/10/10/10/10/10/9k/K9/2r7/4r5 w - - 0 1 frozen=e10 waiting=c10");
    // A frozen pawn silences an archer next to it: no d9-d7 shot while c10 is there.
    let fen = "2P4k2/3a6/10/3N6/10/10/10/10/10/K9 b - - 0 1 frozen=c10";
    assert!(!has(&moves_of(fen), "d9-d7"));
    assert!(has(&moves_of("7k2/3a6/10/3N6/10/10/10/10/10/K9 b - - 0 1"), "d9-d7"));
}

// ---------------------------------------------------------------------------------------
// Cross-checks against varia
// ---------------------------------------------------------------------------------------

fn decachess() -> Arc<Variant> {
    Variant::load("decachess").unwrap()
}

fn varia_divide(game: &Game, depth: u32) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = game.divide(depth).iter().map(|(a, n)| (game.format(a), *n)).collect();
    v.sort();
    v
}

/// Walks down the tree from `fen` along the first move whose counts differ, to the
/// shallowest depth where the two generators disagree on the moves themselves.
fn explain_mismatch(fen: &str, depth: u32) -> String {
    let mut pos = Pos::from_fen(fen);
    let mut game = Game::from_fen(decachess(), fen).unwrap();
    let mut path: Vec<String> = Vec::new();
    let mut out = String::new();
    for d in (1..=depth).rev() {
        let mine = pos.divide(d);
        let theirs = varia_divide(&game, d);
        let only_mine: Vec<&(String, u64)> = mine.iter().filter(|m| !theirs.iter().any(|t| t.0 == m.0)).collect();
        let only_theirs: Vec<&(String, u64)> = theirs.iter().filter(|t| !mine.iter().any(|m| m.0 == t.0)).collect();
        let differ: Vec<(String, u64, u64)> = mine
            .iter()
            .filter_map(|m| theirs.iter().find(|t| t.0 == m.0 && t.1 != m.1).map(|t| (m.0.clone(), m.1, t.1)))
            .collect();
        out = format!(
            "after [{}] from {fen}\n  naive FEN: {}\n  varia FEN: {}\n  depth {d}: naive {} / varia {}\n  only naive: {only_mine:?}\n  only varia: {only_theirs:?}\n  counts differ (move, naive, varia): {differ:?}",
            path.join(" "),
            pos.fen(),
            game.fen(),
            mine.iter().map(|m| m.1).sum::<u64>(),
            theirs.iter().map(|t| t.1).sum::<u64>(),
        );
        if !only_mine.is_empty() || !only_theirs.is_empty() || d == 1 {
            break;
        }
        let Some((m, _, _)) = differ.first() else { break };
        pos = pos.apply(&pos.find_move(m));
        game.play(m).unwrap_or_else(|e| panic!("varia refuses {m}: {e}"));
        path.push(m.clone());
    }
    out
}

/// Perft of `fen` to `depth` by both generators; panics with the first disagreement.
fn cross_check(fen: &str, depth: u32) -> u64 {
    let naive = Pos::from_fen(fen).perft_parallel(depth);
    let game = Game::from_fen(decachess(), fen).unwrap_or_else(|e| panic!("varia rejects {fen}: {e}"));
    let theirs = game.perft(depth);
    if naive != theirs {
        panic!("perft {depth} of {fen}: naive {naive}, varia {theirs}\n{}", explain_mismatch(fen, depth));
    }
    naive
}

/// Both generators agree with each other and with the pinned counts.
fn pinned(fen: &str, counts: &[(u32, u64)]) {
    for &(depth, nodes) in counts {
        assert_eq!(cross_check(fen, depth), nodes, "perft {depth} of {fen}");
    }
}

/// The naive position after playing `moves` (space-separated) from `fen`.
fn after(fen: &str, moves: &str) -> Pos {
    let mut p = Pos::from_fen(fen);
    for m in moves.split_whitespace() {
        p = p.apply(&p.find_move(m));
    }
    p
}

/// The naive legal moves after `moves` from `fen`, as text.
fn moves_after(fen: &str, moves: &str) -> Vec<String> {
    moves_of(&after(fen, moves).fen())
}

// ---------------------------------------------------------------------------------------
// Pinned perft counts: both generators must agree, and equal these numbers.
// ---------------------------------------------------------------------------------------

#[test]
fn perft_start_position() {
    pinned(START, &[(1, 34), (2, 1156), (3, 41890), (4, 1515418)]);
}

/// Depth 5 from the start: the naive engine takes ~20 s for it, so the suite checks varia
/// against the count both engines agreed on, and `naive_start_position_depth_5`
/// (ignored) re-derives it with the naive engine.
const START_DEPTH_5: u64 = 58654124;

#[test]
fn perft_start_position_depth_5() {
    assert_eq!(Game::from_fen(decachess(), START).unwrap().perft(5), START_DEPTH_5);
}

#[test]
#[ignore = "slow (~20 s): re-derives the pinned depth-5 start count with the naive engine"]
fn naive_start_position_depth_5() {
    assert_eq!(cross_check(START, 5), START_DEPTH_5);
}

/// Archers near kings. White: K e2, archer g2, rook d4, pawns c3 f3, knight h5. Black:
/// K f8, archers e4 c7 h8, rook g4, knight d7, pawn e6.
/// - The black archer e4 would check e2 from 2 away; it is silenced by two white pieces
///   next to it, one of them a rook (A-DC5): once the rook leaves, the pawn f3 is pinned
///   by adjacency (it may go to f4 or take e4, not take g4).
/// - The white archer g2 may shoot e4 but not the rook g4 (DC-06).
const ARCHERS_AND_KINGS: &str = "10/10/5k1a2/2an6/4p5/7N2/3Ra1r3/2P2P4/4K1A3/10 w - - 0 1";

#[test]
fn perft_archers_and_kings() {
    let root = moves_of(ARCHERS_AND_KINGS);
    assert!(has(&root, "g2-e4") && !has(&root, "g2-g4"));
    assert!(has(&root, "d4-d1") && has(&root, "f3-g4"));
    let m = moves_after(ARCHERS_AND_KINGS, "d4-d1 c7-b6");
    assert!(has(&m, "f3-f4") && has(&m, "f3-e4") && !has(&m, "f3-g4"));
    pinned(ARCHERS_AND_KINGS, &[(1, 37), (2, 1750), (3, 60126), (4, 2746296)]);
}

/// Checks by archers. The black archer f3 checks the king f1 from two squares away:
/// White's only moves are king steps (e2 f2 g2 next to the archer silence it), pieces
/// landing next to it (d1-e3, d1-f2, f8-f4) and taking it (f8-f3); f8-f5 on the line
/// does not block. Later the white archer d7 checks a10 from c8, and only the king can
/// answer (b9 by silencing it).
const ARCHER_CHECKS: &str = "k3n5/10/5R4/3A6/10/10/10/5a4/10/3N1K4 w - - 0 1";

#[test]
fn perft_archer_checks() {
    let root = moves_of(ARCHER_CHECKS);
    assert_eq!(root, list("d1-e3 d1-f2 f1-e1 f1-e2 f1-f2 f1-g1 f1-g2 f8-f3 f8-f4"));
    let p = after(ARCHER_CHECKS, "f8-f3 e10-g9 d7-c8");
    assert!(p.in_check(Side::Black));
    assert_eq!(moves_of(&p.fen()), list("a10-a9 a10-b10 a10-b9"));
    pinned(ARCHER_CHECKS, &[(1, 9), (2, 114), (3, 3299), (4, 42877)]);
}

/// Castling past archers at range, both sides. Black archers e3 (attacks c1 e1 g1) and
/// i3 (attacks g1 i1) are silenced by the white pawns d2 and j2; white archers c8
/// (attacks c10 e10) and j8 (attacks h10) by the black pawns b9 and i9. Moving a silencer
/// away switches the archer on and takes castling away.
const CASTLING_PAST_ARCHERS: &str = "r4k3r/pp6p1/2A6A/10/10/10/10/4a3a1/PP1P5P/R4K3R w KQkq - 0 1";

#[test]
fn perft_castling_past_archers() {
    let root = moves_of(CASTLING_PAST_ARCHERS);
    assert!(has(&root, "f1-h1") && has(&root, "f1-d1"));
    // d2-d5 wakes the archer e3: no castling, no f1-e1 or f1-g1.
    let m = moves_after(CASTLING_PAST_ARCHERS, "d2-d5 a9-a8");
    for x in ["f1-h1", "f1-d1", "f1-e1", "f1-g1"] {
        assert!(!has(&m, x), "{x}");
    }
    let m = moves_after(CASTLING_PAST_ARCHERS, "a2-a3");
    assert!(has(&m, "f10-h10") && has(&m, "f10-d10"));
    // b9-b6 wakes the archer c8, which attacks e10: no queenside castling.
    let m = moves_after(CASTLING_PAST_ARCHERS, "a2-a3 b9-b6 a3-a4");
    assert!(has(&m, "f10-h10") && !has(&m, "f10-d10"));
    pinned(CASTLING_PAST_ARCHERS, &[(1, 39), (2, 1531), (3, 56928), (4, 2231915)]);
}

/// A-DC13, both sides: an archer next to the king's square is silenced by the king, but
/// not once the king has left that square. The black archer g1 attacks e1 when the king
/// goes to e1 (f1 empty): no queenside castling until a white piece stands next to g1
/// (j1-h1). The white archer e10 attacks g10 when the black king goes to g10: no
/// kingside castling until a black piece stands next to e10 (a10-d10).
const CASTLING_ARCHER_BESIDE_KING: &str = "r3Ak3r/1pp5pp/10/10/10/10/10/10/1PP5PP/R4Ka2R w KQkq - 0 1";

#[test]
fn perft_castling_archer_beside_king() {
    let root = moves_of(CASTLING_ARCHER_BESIDE_KING);
    assert!(!has(&root, "f1-d1") && !has(&root, "f1-e1") && has(&root, "f1-g1"));
    assert!(has(&moves_after(CASTLING_ARCHER_BESIDE_KING, "j1-h1 b9-b8"), "f1-d1"));
    assert!(!has(&moves_after(CASTLING_ARCHER_BESIDE_KING, "b2-b3"), "f10-h10"));
    assert!(has(&moves_after(CASTLING_ARCHER_BESIDE_KING, "b2-b3 a10-d10 c2-c3"), "f10-h10"));
    pinned(CASTLING_ARCHER_BESIDE_KING, &[(1, 36), (2, 1242), (3, 43360), (4, 1478921)]);
}

/// Triple steps and en passant. White pawns c2 e2 g2 may step 1-3; black pawns b4 f4
/// (middle rank: take onto the nearer skipped square) and d5 h5 (landing rank: the farther
/// one). The white rook f5 and black king a5 share rank 5, so an en-passant capture by d5
/// that empties rank 5 is illegal (discovered check). Black's i9 has white pawns h7
/// (middle) and j6 (landing) waiting for its triple step.
const TRIPLE_STEPS: &str = "10/8p1/10/7P2/9P/k2p1R1p2/1p3p4/10/2P1P1P3/1K8 w - - 0 1";

#[test]
fn perft_triple_steps() {
    let m = moves_after(TRIPLE_STEPS, "e2-e5");
    assert!(has(&m, "f4-e3") && !has(&m, "d5-e4"));
    let m = moves_after(TRIPLE_STEPS, "c2-c5");
    assert!(has(&m, "b4-c3") && !has(&m, "d5-c4"));
    let m = moves_after(TRIPLE_STEPS, "g2-g5");
    assert!(has(&m, "f4-g3") && has(&m, "h5-g4"));
    let m = moves_after(TRIPLE_STEPS, "b1-a1 i9-i6");
    assert!(has(&m, "h7-i8") && has(&m, "j6-i7"));
    pinned(TRIPLE_STEPS, &[(1, 25), (2, 257), (3, 6777), (4, 73861)]);
}

/// The same position just after e2-e5, read from a FEN with both en-passant squares.
const AFTER_TRIPLE_STEP: &str = "10/8p1/10/7P2/9P/k2pPR1p2/1p3p4/10/2P3P3/1K8 b - e3,e4 0 1";

#[test]
fn perft_after_triple_step() {
    let root = moves_of(AFTER_TRIPLE_STEP);
    assert!(has(&root, "f4-e3") && !has(&root, "d5-e4"));
    pinned(AFTER_TRIPLE_STEP, &[(1, 12), (2, 265), (3, 2997), (4, 69928)]);
}

/// A triple step that discovers check: c2 leaves rank 2 between the rook a2 and the black
/// king h2. En-passant replies do not help; the rook g9 may block on g2.
const DISCOVERED_BY_STEP: &str = "10/6r3/10/9K/10/3p6/1p8/10/R1P4k2/10 w - - 0 1";

#[test]
fn perft_discovered_check_by_triple_step() {
    let p = after(DISCOVERED_BY_STEP, "c2-c5");
    assert!(p.in_check(Side::Black));
    let m = moves_of(&p.fen());
    assert!(has(&m, "g9-g2") && !has(&m, "b4-c3") && !has(&m, "d5-c4"));
    let m = moves_after(DISCOVERED_BY_STEP, "c2-c4");
    assert!(has(&m, "g9-g2") && !has(&m, "b4-c3"));
    pinned(DISCOVERED_BY_STEP, &[(1, 18), (2, 436), (3, 8768), (4, 213484)]);
}

/// Graveyard promotions with several kinds: White may bring back Q R N A P (push or
/// capture on d10), Black q or a (b2 also takes the rook a1). A returned knight on c10
/// would check b8 but waits; the black archer c8 may shoot it, but not a returned rook.
const PROMOTIONS: &str = "3r6/2P1P5/1ka2a4/10/7N2/10/9K/10/1p4p3/R9 w - - 0 1 graveyard=QRNAPqa";

#[test]
fn perft_graveyard_promotions() {
    let root = moves_of(PROMOTIONS);
    for k in "QRNAP".chars() {
        for m in ["c9-c10", "c9-d10", "e9-e10", "e9-d10"] {
            assert!(has(&root, &format!("{m}={k}")), "{m}={k}");
        }
    }
    assert!(!has(&root, "c9-c10=B") && !has(&root, "c9-c10"));
    let p = after(PROMOTIONS, "c9-c10=N");
    assert!(!p.in_check(Side::Black));
    assert!(has(&moves_of(&p.fen()), "c8-c10"));
    assert!(!has(&moves_after(PROMOTIONS, "c9-c10=R"), "c8-c10"));
    let m = moves_after(PROMOTIONS, "h6-g8");
    assert!(has(&m, "b2-b1=Q") && has(&m, "b2-a1=A") && !has(&m, "b2-b1=N"));
    pinned(PROMOTIONS, &[(1, 51), (2, 1898), (3, 73140), (4, 2417835)]);
}

/// Frozen pawns in a queue. White's c10 (older) and g10 are frozen, e9 is about to freeze;
/// Black's d1 is frozen and silences the white archer c2 (no c2-e4 shot). e9-e10 wakes
/// the black archer e8, which may then shoot the frozen pawns; the rook a10 and bishop h9
/// take them too. Taking a frozen pawn removes it from the queue and the next one comes
/// back as a pawn; taking the knight f6 brings d1 back as a waiting knight next to the
/// white king's square c3, which checks only after Black's next move.
const FROZEN_QUEUE: &str = "r1P3P3/4P2b2/4a5/9k/5n4/3N6/4p5/2K7/2A7/3p6 w - - 0 1 frozen=c10,g10,d1";

#[test]
fn perft_frozen_queue() {
    let root = moves_of(FROZEN_QUEUE);
    assert!(has(&root, "e9-e10") && !has(&root, "c2-e4"));
    let m = moves_after(FROZEN_QUEUE, "e9-e10");
    assert!(has(&m, "e8-c10") && has(&m, "e8-e10") && has(&m, "e8-g10") && has(&m, "a10-c10"));
    assert_eq!(
        after(FROZEN_QUEUE, "e9-e10 e8-c10").fen(),
        "r3P1P3/7b2/4a5/9k/5n4/3N6/4p5/2K7/2A7/3p6 w - - 0 1 frozen=e10,d1 waiting=g10"
    );
    let p = after(FROZEN_QUEUE, "d5-f6");
    assert_eq!(p.board[3], Some((Side::Black, Kind::Knight)));
    assert!(p.waiting.contains(&3) && !p.in_check(Side::White));
    assert!(after(FROZEN_QUEUE, "d5-f6 j7-j6").in_check(Side::White));
    pinned(FROZEN_QUEUE, &[(1, 20), (2, 758), (3, 12856), (4, 506034)]);
}

/// Waiting pieces. White's queen c10 and archer f8 and Black's knight e1 have just come
/// back. The queen and archer do not attack h10 or its neighbours, and the knight does
/// not attack f3; the knight cannot move this turn, but the black archer d8 may shoot the
/// waiting archer f8. After Black's move the knight e1 checks f3, while White's queen
/// still cannot move.
const WAITING: &str = "2Q4k2/10/3a1A4/p9/10/10/10/5K4/7P2/R3n5 b - - 0 1 waiting=c10,f8,e1";

#[test]
fn perft_waiting_pieces() {
    let p = Pos::from_fen(WAITING);
    assert!(!p.in_check(Side::Black) && !p.in_check(Side::White));
    let root = moves_of(WAITING);
    assert!(has(&root, "d8-f8") && has(&root, "h10-g10") && !root.iter().any(|m| m.starts_with("e1-")));
    let p = after(WAITING, "h10-g10");
    assert!(p.in_check(Side::White));
    assert!(!moves_of(&p.fen()).iter().any(|m| m.starts_with("c10-")));
    pinned(WAITING, &[(1, 15), (2, 120), (3, 708), (4, 36433)]);
}

/// En passant that triggers a resolution. White's c10 and Black's b1 are frozen. After
/// e2-e5, d4 and f5 may both take en passant; White's loss brings c10 back as a pawn.
/// Black's g9 may step to g6, after which White's h6 takes en passant and b1 comes back.
const EP_RESOLUTION: &str = "2P7/6p3/10/10/7P2/5p3k/3p6/K9/4P5/1p8 w - - 0 1 frozen=c10,b1";

#[test]
fn perft_en_passant_resolution() {
    let m = moves_after(EP_RESOLUTION, "e2-e5");
    assert!(has(&m, "d4-e3") && has(&m, "f5-e4"));
    assert_eq!(
        after(EP_RESOLUTION, "e2-e5 d4-e3").fen(),
        "2P7/6p3/10/10/7P2/5p3k/10/K3p5/10/1p8 w - - 0 1 frozen=b1 waiting=c10"
    );
    assert_eq!(after(EP_RESOLUTION, "e2-e3 g9-g6").fen(), EP_RESOLUTION_BLACK);
    pinned(EP_RESOLUTION, &[(1, 9), (2, 95), (3, 885), (4, 9433)]);
}

/// The same after e2-e3 g9-g6: White to move with Black's en-passant squares g8 and g7.
const EP_RESOLUTION_BLACK: &str = "2P7/10/10/10/6pP2/5p3k/3p6/K3P5/10/1p8 w - g8,g7 0 1 frozen=c10,b1";

#[test]
fn perft_en_passant_resolution_black() {
    assert!(has(&moves_of(EP_RESOLUTION_BLACK), "h6-g7"));
    assert_eq!(
        after(EP_RESOLUTION_BLACK, "h6-g7").fen(),
        "2P7/10/10/6P3/10/5p3k/3p6/K3P5/10/1p8 b - - 0 1 frozen=c10 waiting=b1"
    );
    pinned(EP_RESOLUTION_BLACK, &[(1, 9), (2, 78), (3, 658), (4, 6150)]);
}

/// Castling past a waiting queen. Black's c2 promotes to a queen on c1, which waits: it
/// neither checks f1 nor attacks g1 and h1, so White may castle kingside (and step to e1)
/// on the reply, or take the waiting queen with the rook a1.
const CASTLING_PAST_WAITING: &str = "4k5/10/10/10/10/10/6n3/10/2p4PP1/R4K3R b KQ - 0 1 graveyard=q";

#[test]
fn perft_castling_past_waiting_queen() {
    let m = moves_after(CASTLING_PAST_WAITING, "c2-c1=Q");
    assert!(has(&m, "f1-h1") && has(&m, "f1-e1") && has(&m, "a1-c1"));
    assert!(has(&moves_of(CASTLING_PAST_WAITING), "c2-c1=Q"));
    pinned(CASTLING_PAST_WAITING, &[(1, 14), (2, 439), (3, 5769), (4, 188375)]);
}

/// A promotion by capture with the opponent's frozen queue. White's d9 promotes (only a
/// knight is in White's graveyard) by pushing or by taking the knight e10 or rook c10;
/// each capture brings Black's oldest frozen pawn b1 back as the lost piece, waiting.
/// The white knight on e10 silences the black archer f9. The rook a1 may take the frozen
/// b1, after which g1 comes back as a pawn.
const PROMOTION_CAPTURE_QUEUE: &str = "2r1n5/3P1a4/7k2/10/10/10/10/9K/10/Rp4p3 w - - 0 1 graveyard=N frozen=b1,g1";

#[test]
fn perft_promotion_capture_queue() {
    let root = moves_of(PROMOTION_CAPTURE_QUEUE);
    assert!(has(&root, "d9-e10=N") && has(&root, "d9-c10=N") && has(&root, "d9-d10=N") && has(&root, "a1-b1"));
    let p = after(PROMOTION_CAPTURE_QUEUE, "d9-e10=N");
    assert_eq!(p.fen(), "2r1N5/5a4/7k2/10/10/10/10/9K/10/Rn4p3 b - - 0 1 frozen=g1 waiting=b1,e10");
    assert!(!moves_of(&p.fen()).iter().any(|m| m.starts_with("f9-") && p.board[parse_square(&m[3..])].is_some()));
    let p = after(PROMOTION_CAPTURE_QUEUE, "a1-b1");
    assert_eq!(p.fen(), "2r1n5/3P1a4/7k2/10/10/10/10/9K/10/1R4p3 b - - 0 1 graveyard=N waiting=g1");
    pinned(PROMOTION_CAPTURE_QUEUE, &[(1, 18), (2, 535), (3, 10818), (4, 327495)]);
}

/// Castling rights lost to captures on the rook squares: the white knight b8 may take the
/// rook a10, the black knight i3 the rook j1 (it also attacks h1, so White cannot castle
/// kingside while it stands there).
const CASTLING_RIGHTS: &str = "r4k3r/3p3p2/1N8/10/10/10/10/8n1/3P3P2/R4K3R w KQkq - 0 1";

#[test]
fn perft_castling_rights_lost_to_captures() {
    let root = moves_of(CASTLING_RIGHTS);
    assert!(has(&root, "f1-d1") && !has(&root, "f1-h1"));
    assert_eq!(after(CASTLING_RIGHTS, "b8-a10 i3-j1").castling, [false, true, true, false]);
    assert!(has(&moves_after(CASTLING_RIGHTS, "h2-i3 d9-d8"), "f1-h1"));
    pinned(CASTLING_RIGHTS, &[(1, 43), (2, 1658), (3, 65013), (4, 2428956)]);
}

/// A pawn race with empty graveyards: pawns freeze on arrival, queue up, and come back
/// at the owner's next loss; the archers shoot pawns and frozen pawns.
const PAWN_RACE: &str = "9k/1P2P2P2/10/2a3a3/10/9K/2A4A2/10/1p2p2p2/10 w - - 0 1";

#[test]
fn perft_pawn_race() {
    let root = moves_of(PAWN_RACE);
    assert!(has(&root, "b9-b10") && has(&root, "c4-e2") && has(&root, "h4-h2"));
    let p = after(PAWN_RACE, "b9-b10 b2-b1 e9-e10");
    assert_eq!(p.frozen, vec![parse_square("b10"), parse_square("b1"), parse_square("e10")]);
    // The archer c8, free once b9 has gone, shoots the frozen e10.
    assert!(has(&moves_after(PAWN_RACE, "b9-b10 c7-c8 e9-e10"), "c8-e10"));
    pinned(PAWN_RACE, &[(1, 25), (2, 575), (3, 13431), (4, 297525)]);
}

/// Promotions on one side (Black's graveyard holds a knight), freezing on the other;
/// i2 takes the rook j1, which gives White a rook to bring back.
const ONE_SIDED_GRAVEYARD: &str = "r3k5/1P5P1P/3n6/10/10/10/10/6N3/p1p5p1/4K4R b - - 0 1 graveyard=n";

#[test]
fn perft_one_sided_graveyard() {
    let root = moves_of(ONE_SIDED_GRAVEYARD);
    assert!(has(&root, "a2-a1=N") && has(&root, "i2-j1=N") && !has(&root, "a2-a1"));
    let m = moves_after(ONE_SIDED_GRAVEYARD, "i2-j1=N");
    assert!(has(&m, "b9-b10=R") && !has(&m, "b9-b10"));
    assert!(has(&moves_after(ONE_SIDED_GRAVEYARD, "c2-c1=N"), "b9-b10"));
    pinned(ONE_SIDED_GRAVEYARD, &[(1, 26), (2, 678), (3, 17749), (4, 450177)]);
}

/// Two middlegames reached by random play from the start (developed archers, castling
/// rights, pawns in both graveyards).
const MIDDLEGAME_1: &str =
    "ran1qkan1r/p2p5p/2p1p5/5ppp2/1p8/1bP5pP/2BP1b1P2/1N2P3N1/PA4P1P1/R3QKB1AR w KQkq - 0 1 graveyard=PP";
const MIDDLEGAME_2: &str =
    "r3q3ar/appp1kp2p/1n2p1n3/pb3pbp2/9P/10/5P1P2/1P1Q4NR/P1P1PBP1P1/RANB1K2A1 w Q - 0 1 graveyard=Pp";

#[test]
fn perft_middlegame_1() {
    pinned(MIDDLEGAME_1, &[(1, 51), (2, 2678), (3, 134631), (4, 7043678)]);
}

#[test]
fn perft_middlegame_2() {
    pinned(MIDDLEGAME_2, &[(1, 59), (2, 3739), (3, 215439)]);
}

// ---------------------------------------------------------------------------------------
// Random playouts: both generators, move by move
// ---------------------------------------------------------------------------------------

/// A small deterministic generator for the playouts (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// The FEN fields both engines must agree on: board, side, castling, and the graveyard,
/// frozen and waiting fields. Not the clocks (the naive engine keeps none), nor the
/// en-passant field (varia writes only squares where a capture is possible; the move
/// lists compare en passant itself). Waiting pieces are a set: sorted.
fn essential(fen: &str) -> String {
    let f: Vec<&str> = fen.split_whitespace().collect();
    let mut out: Vec<String> = f[..3].iter().map(|x| x.to_string()).collect();
    let mut extras: Vec<String> = f[4..]
        .iter()
        .filter_map(|x| x.split_once('='))
        .map(|(k, v)| {
            let mut l: Vec<&str> = v.split(',').collect();
            if k == "waiting" {
                l.sort();
            }
            format!("{k}={}", l.join(","))
        })
        .collect();
    extras.sort();
    out.extend(extras);
    out.join(" ")
}

/// Plays `games` random games of up to `plies` plies from `fen` in both engines; at every
/// ply the legal moves and the essential FEN must agree, and every fifth ply the perft 2
/// of the naive engine's FEN must agree too (this also tests varia's FEN reader).
fn playouts(fen: &str, games: u64, plies: usize) {
    for seed in 0..games {
        let mut rng = Lcg(seed);
        let mut pos = Pos::from_fen(fen);
        let mut game = Game::from_fen(decachess(), fen).unwrap();
        let mut path: Vec<String> = Vec::new();
        for ply in 0..plies {
            let mine: Vec<String> = moves_of(&pos.fen());
            if game.outcome().is_some() || mine.is_empty() {
                break;
            }
            let mut theirs: Vec<String> = game.legal_actions().iter().map(|a| game.format(a)).collect();
            theirs.sort();
            let context = || format!("playout {seed} from {fen} after [{}]", path.join(" "));
            assert_eq!(mine, theirs, "legal moves differ: {}", context());
            assert_eq!(essential(&pos.fen()), essential(&game.fen()), "positions differ: {}", context());
            if ply % 5 == 3 {
                cross_check(&pos.fen(), 2);
            }
            let m = mine[rng.below(mine.len())].clone();
            pos = pos.apply(&pos.find_move(&m));
            game.play(&m).unwrap_or_else(|e| panic!("varia refuses {m}: {e} ({})", context()));
            path.push(m);
        }
    }
}

#[test]
fn playouts_from_the_start() {
    playouts(START, 20, 150);
}

#[test]
fn playouts_from_the_special_positions() {
    for fen in [
        ARCHERS_AND_KINGS,
        ARCHER_CHECKS,
        CASTLING_PAST_ARCHERS,
        CASTLING_ARCHER_BESIDE_KING,
        TRIPLE_STEPS,
        PROMOTIONS,
        FROZEN_QUEUE,
        WAITING,
        EP_RESOLUTION,
        CASTLING_PAST_WAITING,
        PROMOTION_CAPTURE_QUEUE,
        CASTLING_RIGHTS,
        PAWN_RACE,
        ONE_SIDED_GRAVEYARD,
    ] {
        playouts(fen, 15, 40);
    }
}

// ---------------------------------------------------------------------------------------
// Disagreements
// ---------------------------------------------------------------------------------------

/// A castling right in a FEN with a piece other than the king on f1, or other than the
/// rook on j1 / a1. Such a position cannot arise in play (the right is lost when the king
/// or rook leaves its square, or when the rook is taken there). DC-07/DC-08 castle the
/// king with the rook: varia must refuse the FEN (it does now), or at least not castle
/// with whatever stands there.
#[test]
fn castling_rights_need_the_king_and_the_rook() {
    for (fen, naive) in
        [("4k5/10/10/10/10/10/10/10/10/R4K3N w KQ - 0 1", 21), ("4k5/10/10/10/10/10/10/10/K9/R4Q3R w KQ - 0 1", 45)]
    {
        assert_eq!(Pos::from_fen(fen).perft(1), naive);
        if let Ok(game) = Game::from_fen(decachess(), fen) {
            assert_eq!(game.perft(1), naive, "{fen}");
        }
    }
}

/// A tool: `DECACHESS_FEN='…' DECACHESS_DEPTH=3 cargo test --test decachess_naive
/// cross_check_any -- --ignored --nocapture` compares both generators on any position
/// and prints the first disagreement (with divides) if there is one.
#[test]
#[ignore = "a tool for investigating a position"]
fn cross_check_any() {
    let fen = std::env::var("DECACHESS_FEN").unwrap_or(START.to_string());
    let depth: u32 = std::env::var("DECACHESS_DEPTH").map_or(3, |d| d.parse().unwrap());
    for d in 1..=depth {
        println!("perft {d} = {}", cross_check(&fen, d));
    }
}
