//! Movement over the world, read from the kinds' ordinary movement atoms: whether a piece
//! reaches a square (and if not, why), every square it reaches, and the reverse
//! questions the rules ask — is a square attacked (every piece blocks), is a piece
//! guarded (only its owner's pieces block the guard's line).
//!
//! Vectors are used as written (a world has no white and black, so nothing is
//! mirrored). A path may enter at most `max_other_boards` boards besides its own (the
//! set of boards its squares touch, minus the origin's), and kinds bound to their board
//! never leave it.

use super::cells::Cell;
use super::geometry::{BoardId, Pos, boards_entered};
use crate::piece::KindId;
use crate::variant::{Mode, Shape, Variant, WorldRules};

/// Which pieces block a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    /// Only this player's pieces (the legality of that player's orders).
    Owner(u32),
    /// Every piece (attacks for check and safety).
    All,
}

/// How a piece reaches a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// A slide, field by field (else one hop).
    pub slide: bool,
    /// The unit step of a slide (the whole vector of a hop).
    pub dir: (i32, i32),
    /// Fields travelled (1 for a hop).
    pub fields: i32,
    /// No piece at all stands between (known when found by [`Movement::targets`]; a hop
    /// always is).
    pub clear: bool,
}

/// Why a piece does not reach a square; the text is the reason given to players.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NoReach {
    #[error("a {kind} does not move from {from} to {to}")]
    Shape { kind: String, from: Pos, to: Pos },
    #[error("the way from {from} to {to} is blocked by your own piece on {at}")]
    Blocked { from: Pos, to: Pos, at: Pos },
    #[error("your own piece stands on {to}")]
    Own { to: Pos },
    #[error("the move from {from} to {to} enters {} boards besides its own ({}); at most {limit} allowed", boards.len(), list(boards))]
    Boards { from: Pos, to: Pos, boards: Vec<BoardId>, limit: u32 },
    #[error("a {kind} never leaves its board")]
    Bound { kind: String },
    #[error("a {kind} moves to {to} only onto an empty square")]
    MoveOnly { kind: String, to: Pos },
    #[error("a {kind} moves to {to} only to capture")]
    CaptureOnly { kind: String, to: Pos },
    #[error("a {kind} never captures a {target}")]
    CannotCapture { kind: String, target: String },
    #[error("the {kind} on {from} is silenced by an adjacent enemy")]
    Silenced { kind: String, from: Pos },
    #[error("the {kind} on {from} moves to {to} only from the region `{region}`")]
    Region { kind: String, from: Pos, to: Pos, region: String },
}

fn list(b: &[BoardId]) -> String {
    b.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")
}

/// Why an atom fails, before it is put in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Why {
    Own,
    Bound,
    Boards,
    Region(usize),
    MoveOnly,
    CaptureOnly,
    CannotCapture,
    Silenced,
    Blocked(Pos),
}

/// The movement of a variant over its world.
pub struct Movement<'v> {
    pub v: &'v Variant,
    pub rules: &'v WorldRules,
    /// Every leap vector of any kind.
    leaps: Vec<(i32, i32)>,
    /// Every slide direction of any kind, with the longest range (0: unlimited).
    slides: Vec<((i32, i32), u8)>,
    royal: u32,
    /// Kinds whose moves may reach one square two ways (several atoms, or vectors of one
    /// direction): their targets are checked for repeats.
    overlapping: u32,
}

impl<'v> Movement<'v> {
    pub fn new(v: &'v Variant, rules: &'v WorldRules) -> Movement<'v> {
        let mut leaps: Vec<(i32, i32)> = Vec::new();
        let mut slides: Vec<((i32, i32), u8)> = Vec::new();
        let mut royal = 0;
        let mut overlapping = 0;
        for (i, k) in v.kinds.iter().enumerate() {
            if k.royal {
                royal |= 1 << i;
            }
            let same_way = |a: &crate::variant::Atom| {
                a.vectors.iter().enumerate().any(|(j, &(x, y))| {
                    a.vectors[..j].iter().any(|&(u, w)| {
                        if a.shape == Shape::Slide {
                            // One direction: a positive multiple of the other.
                            (x as i32) * (w as i32) == (y as i32) * (u as i32)
                                && (x as i32) * (u as i32) + (y as i32) * (w as i32) > 0
                        } else {
                            (x, y) == (u, w)
                        }
                    })
                })
            };
            if k.atoms.len() > 1 || k.atoms.iter().any(same_way) {
                overlapping |= 1 << i;
            }
            for a in &k.atoms {
                for &(dx, dy) in &a.vectors {
                    let d = (dx as i32, dy as i32);
                    match a.shape {
                        Shape::Leap if !leaps.contains(&d) => leaps.push(d),
                        Shape::Slide => match slides.iter_mut().find(|(s, _)| *s == d) {
                            Some((_, r)) => *r = if *r == 0 || a.range == 0 { 0 } else { (*r).max(a.range) },
                            None => slides.push((d, a.range)),
                        },
                        _ => {}
                    }
                }
            }
        }
        Movement { v, rules, leaps, slides, royal, overlapping }
    }

    pub fn tile(&self) -> (i32, i32) {
        self.rules.tile
    }

    pub fn is_royal(&self, k: KindId) -> bool {
        self.royal & (1 << k.0) != 0
    }

    pub fn is_bound(&self, k: KindId) -> bool {
        self.rules.bound & (1 << k.0) != 0
    }

    pub fn kind_name(&self, k: KindId) -> &str {
        &self.v.kinds[k.index()].name
    }

    /// Whether `piece` on `from` reaches `to`. `target` is the piece assumed on `to`
    /// (None: empty); `block` says whose pieces stop a slide on the way.
    pub fn reach(
        &self,
        occ: &impl Fn(Pos) -> Cell,
        from: Pos,
        piece: Cell,
        to: Pos,
        target: Option<Cell>,
        block: Block,
    ) -> Result<Reach, NoReach> {
        let mut first = None;
        match self.reach_why(occ, from, piece, to, target, block, &mut first) {
            Some(r) => Ok(r),
            None => Err(self.explain(from, piece, to, target, first)),
        }
    }

    /// [`Movement::reach`] without the reason: the fast path of searches.
    #[inline]
    pub fn reaches(
        &self,
        occ: &impl Fn(Pos) -> Cell,
        from: Pos,
        piece: Cell,
        to: Pos,
        target: Option<Cell>,
        block: Block,
    ) -> Option<Reach> {
        self.reach_why(occ, from, piece, to, target, block, &mut None)
    }

    #[allow(clippy::too_many_arguments)]
    fn reach_why(
        &self,
        occ: &impl Fn(Pos) -> Cell,
        from: Pos,
        piece: Cell,
        to: Pos,
        target: Option<Cell>,
        block: Block,
        first: &mut Option<(Why, Reach)>,
    ) -> Option<Reach> {
        if target.is_some_and(|t| t.owner() == piece.owner()) {
            *first = Some((Why::Own, Reach { slide: false, dir: (0, 0), fields: 0, clear: true }));
            return None;
        }
        let (dx, dy) = ((to.x as i64 - from.x as i64), (to.y as i64 - from.y as i64));
        for a in &self.v.kinds[piece.kind().index()].atoms {
            for &(vx, vy) in &a.vectors {
                let (vx, vy) = (vx as i64, vy as i64);
                let n = match a.shape {
                    Shape::Leap if (vx, vy) == (dx, dy) => 1,
                    Shape::Slide => match multiple(dx, dy, vx, vy) {
                        Some(n) if a.range == 0 || n <= a.range as i64 => n,
                        _ => continue,
                    },
                    _ => continue,
                };
                let r = Reach {
                    slide: a.shape == Shape::Slide,
                    dir: (vx as i32, vy as i32),
                    fields: n as i32,
                    clear: false,
                };
                match self.check_atom(occ, a, from, piece, to, target, block, r) {
                    Ok(()) => return Some(r),
                    Err(w) => {
                        first.get_or_insert((w, r));
                    }
                }
            }
        }
        None
    }

    /// The reason for a failed reach, in words.
    fn explain(&self, from: Pos, piece: Cell, to: Pos, target: Option<Cell>, first: Option<(Why, Reach)>) -> NoReach {
        let kind = self.kind_name(piece.kind()).to_string();
        let Some((why, r)) = first else { return NoReach::Shape { kind, from, to } };
        match why {
            Why::Own => NoReach::Own { to },
            Why::Bound => NoReach::Bound { kind },
            Why::Boards => {
                let mut boards = Vec::new();
                if r.slide {
                    boards_entered(from, r.dir, r.fields, self.tile(), usize::MAX, &mut boards);
                } else {
                    boards.push(to.board(self.tile()));
                }
                NoReach::Boards { from, to, boards, limit: self.rules.max_other_boards }
            }
            Why::Region(i) => NoReach::Region { kind, from, to, region: self.v.regions[i].name.clone() },
            Why::MoveOnly => NoReach::MoveOnly { kind, to },
            Why::CaptureOnly => NoReach::CaptureOnly { kind, to },
            Why::CannotCapture => NoReach::CannotCapture {
                kind,
                target: target.map_or(String::new(), |t| self.kind_name(t.kind()).to_string()),
            },
            Why::Silenced => NoReach::Silenced { kind, from },
            Why::Blocked(at) => NoReach::Blocked { from, to, at },
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn check_atom(
        &self,
        occ: &impl Fn(Pos) -> Cell,
        a: &crate::variant::Atom,
        from: Pos,
        piece: Cell,
        to: Pos,
        target: Option<Cell>,
        block: Block,
        r: Reach,
    ) -> Result<(), Why> {
        let kind = piece.kind();
        let tile = self.tile();
        let home = from.board(tile);
        if self.is_bound(kind) && to.board(tile) != home {
            return Err(Why::Bound);
        }
        let limit = self.rules.max_other_boards as usize;
        if r.slide {
            let mut seen = [home; 9];
            let mut n = 0;
            let (lx, ly) = from.local(tile);
            for i in 1..=r.fields {
                if from.offset(r.dir.0 * i, r.dir.1 * i).is_none() {
                    break;
                }
                let b = home.at_local(tile, lx + r.dir.0 * i, ly + r.dir.1 * i);
                if b != home && !seen[..n].contains(&b) {
                    if n >= limit {
                        return Err(Why::Boards);
                    }
                    seen[n] = b;
                    n += 1;
                }
            }
        } else if to.board(tile) != home && limit == 0 {
            return Err(Why::Boards);
        }
        if let Some(region) = a.from {
            let (lx, ly) = from.local(tile);
            let sq = crate::geometry::Square((ly * tile.0 + lx) as u8);
            if !self.v.regions[region].squares[0].contains(&sq) {
                return Err(Why::Region(region));
            }
        }
        match (a.mode, target) {
            (Mode::Move, Some(_)) => return Err(Why::MoveOnly),
            (Mode::Capture, None) => return Err(Why::CaptureOnly),
            _ => {}
        }
        if let Some(t) = target
            && a.cannot_capture & (1 << t.kind().0) != 0
        {
            return Err(Why::CannotCapture);
        }
        if a.silenced_by_adjacent_enemy {
            for (nx, ny) in NEIGHBOURS {
                let c = from.offset(nx, ny).map_or(Cell::EMPTY, occ);
                if !c.is_empty() && c.owner() != piece.owner() {
                    return Err(Why::Silenced);
                }
            }
        }
        if r.slide {
            for i in 1..r.fields {
                let Some(p) = from.offset(r.dir.0 * i, r.dir.1 * i) else { break };
                let c = occ(p);
                let blocks = match block {
                    Block::All => !c.is_empty(),
                    Block::Owner(o) => !c.is_empty() && c.owner() == o,
                };
                if blocks {
                    return Err(Why::Blocked(p));
                }
            }
        }
        Ok(())
    }

    /// Every square `piece` on `from` may be ordered to (its owner's pieces block, others
    /// do not), with how; the target's occupant is read from `occ`. In atom order, then
    /// by distance.
    pub fn targets(&self, occ: &impl Fn(Pos) -> Cell, from: Pos, piece: Cell, out: &mut Vec<(Pos, Reach)>) {
        out.clear();
        let kind = piece.kind();
        let owner = piece.owner();
        let tile = self.tile();
        let home = from.board(tile);
        let limit = self.rules.max_other_boards as usize;
        let bound = self.is_bound(kind);
        let overlapping = self.overlapping & (1 << kind.0) != 0;
        let (lx, ly) = from.local(tile);
        for a in &self.v.kinds[kind.index()].atoms {
            if let Some(region) = a.from
                && !self.v.regions[region].squares[0].contains(&crate::geometry::Square((ly * tile.0 + lx) as u8))
            {
                continue;
            }
            if a.silenced_by_adjacent_enemy
                && NEIGHBOURS.iter().any(|&(nx, ny)| {
                    let c = from.offset(nx, ny).map_or(Cell::EMPTY, occ);
                    !c.is_empty() && c.owner() != owner
                })
            {
                continue;
            }
            let slide = a.shape == Shape::Slide;
            for &(vx, vy) in &a.vectors {
                let d = (vx as i32, vy as i32);
                let max = if slide { if a.range == 0 { i32::MAX } else { a.range as i32 } } else { 1 };
                // One walk per direction: boards entered and own blockers counted as it goes.
                let mut seen = [home; 9];
                let mut boards = 0;
                let mut clear = true;
                let mut n = 1;
                while n <= max {
                    let Some(to) = from.offset(d.0 * n, d.1 * n) else { break };
                    let b = home.at_local(tile, lx + d.0 * n, ly + d.1 * n);
                    if b != home && !seen[..boards].contains(&b) {
                        if boards >= limit || bound {
                            break;
                        }
                        seen[boards] = b;
                        boards += 1;
                    }
                    let c = occ(to);
                    if !c.is_empty() && c.owner() == owner {
                        break;
                    }
                    let ok = match (a.mode, c.is_empty()) {
                        (Mode::Move, false) | (Mode::Capture, true) => false,
                        (_, true) => true,
                        (_, false) => a.cannot_capture & (1 << c.kind().0) == 0,
                    };
                    if ok && (!overlapping || !out.iter().any(|(p, _)| *p == to)) {
                        out.push((to, Reach { slide, dir: d, fields: n, clear }));
                    }
                    clear &= c.is_empty();
                    n += 1;
                }
            }
        }
    }

    /// A piece of another player than `victim` that could take a piece of `victim` on
    /// `sq` in one move, every piece blocking (the lowest (y, x) such attacker).
    pub fn attacker(&self, occ: &impl Fn(Pos) -> Cell, sq: Pos, victim: Cell) -> Option<Pos> {
        let mut found: Option<Pos> = None;
        self.scan(occ, sq, Block::All, |p, c| {
            if c.owner() != victim.owner()
                && self.reaches(occ, p, c, sq, Some(victim), Block::All).is_some()
                && found.is_none_or(|f| p < f)
            {
                found = Some(p);
            }
            false
        });
        found
    }

    /// Whether [`Movement::attacker`] finds one (it stops at the first).
    pub fn attacked(&self, occ: &impl Fn(Pos) -> Cell, sq: Pos, victim: Cell) -> bool {
        let mut found = false;
        self.scan(occ, sq, Block::All, |p, c| {
            found = c.owner() != victim.owner() && self.reaches(occ, p, c, sq, Some(victim), Block::All).is_some();
            found
        });
        found
    }

    /// A piece of `piece`'s owner, not royal and not on `sq` itself, that could move to
    /// `sq` in one move were an enemy there, with only the owner's pieces blocking its line
    /// (the lowest (y, x) such guard).
    pub fn guard(&self, occ: &impl Fn(Pos) -> Cell, sq: Pos, piece: Cell) -> Option<Pos> {
        let mut found: Option<Pos> = None;
        self.guards(occ, sq, piece, |p| {
            if found.is_none_or(|f| p < f) {
                found = Some(p);
            }
            false
        });
        found
    }

    /// Whether [`Movement::guard`] finds one (it stops at the first).
    pub fn guarded(&self, occ: &impl Fn(Pos) -> Cell, sq: Pos, piece: Cell) -> bool {
        let mut found = false;
        self.guards(occ, sq, piece, |_| {
            found = true;
            true
        });
        found
    }

    /// Calls `f` with every guard of `piece` on `sq` until it returns true.
    fn guards(&self, occ: &impl Fn(Pos) -> Cell, sq: Pos, piece: Cell, mut f: impl FnMut(Pos) -> bool) {
        let owner = piece.owner();
        // A stand-in enemy on `sq`: the guard must be able to capture this kind there.
        let enemy = Cell::piece(owner.wrapping_add(1), piece.kind());
        self.scan(occ, sq, Block::Owner(owner), |p, c| {
            c.owner() == owner
                && !self.is_royal(c.kind())
                && self.reaches(occ, p, c, sq, Some(enemy), Block::Owner(owner)).is_some()
                && f(p)
        });
    }

    /// Calls `f` with each piece that could reach `sq` by one leap, and with the first
    /// piece along each slide line back from `sq` that `block` stops at (for
    /// `Block::Owner(o)`: the first of o's pieces; others are passed to `f` as met),
    /// until `f` returns true.
    fn scan(&self, occ: &impl Fn(Pos) -> Cell, sq: Pos, block: Block, mut f: impl FnMut(Pos, Cell) -> bool) {
        for &(vx, vy) in &self.leaps {
            if let Some(p) = sq.offset(-vx, -vy) {
                let c = occ(p);
                if !c.is_empty() && f(p, c) {
                    return;
                }
            }
        }
        for &((vx, vy), range) in &self.slides {
            if self.scan_line(occ, sq, (vx, vy), range, block, &mut f) {
                return;
            }
        }
    }

    /// [`Movement::scan`] along one slide line back from `sq` (vector `(vx, vy)`, range 0:
    /// unlimited); true if `f` returned true.
    #[inline]
    fn scan_line(
        &self,
        occ: &impl Fn(Pos) -> Cell,
        sq: Pos,
        (vx, vy): (i32, i32),
        range: u8,
        block: Block,
        f: &mut impl FnMut(Pos, Cell) -> bool,
    ) -> bool {
        let tile = self.tile();
        // A line touches at most `limit` boards (its target's and the ones it may enter);
        // one more ends it.
        // A straight line never comes back to a board it left (boards are rectangles), so
        // counting the changes of board counts the boards it touches.
        let limit = self.rules.max_other_boards as usize + 1;
        let home = sq.board(tile);
        let (lx, ly) = sq.local(tile);
        let mut board = home;
        let mut n_boards = 1;
        let max = if range == 0 { i32::MAX } else { range as i32 };
        let mut n = 1;
        while n <= max {
            let Some(p) = sq.offset(-vx * n, -vy * n) else { break };
            let b = home.at_local(tile, lx - vx * n, ly - vy * n);
            if b != board {
                if n_boards >= limit {
                    break;
                }
                board = b;
                n_boards += 1;
            }
            let c = occ(p);
            if !c.is_empty() {
                match block {
                    Block::All => return f(p, c),
                    Block::Owner(o) => {
                        if c.owner() == o {
                            return f(p, c);
                        }
                    }
                }
            }
            n += 1;
        }
        false
    }

    /// Whether another player's piece attacks a piece of `victim` on `sq` along a slide
    /// line that passes through `via` (every piece blocking, as `occ` shows them). With
    /// the start position's attacks known, a piece leaving `via` changes only these
    /// lines: this is what its leaving adds.
    pub fn attacked_via(&self, occ: &impl Fn(Pos) -> Cell, sq: Pos, via: Pos, victim: Cell) -> bool {
        let (dx, dy) = (sq.x as i64 - via.x as i64, sq.y as i64 - via.y as i64);
        let mut found = false;
        for &((vx, vy), range) in &self.slides {
            // `via` is on the line back from `sq`: via = sq - n·v.
            if multiple(dx, dy, vx as i64, vy as i64).is_none() {
                continue;
            }
            self.scan_line(occ, sq, (vx, vy), range, Block::All, &mut |p, c| {
                found = c.owner() != victim.owner() && self.reaches(occ, p, c, sq, Some(victim), Block::All).is_some();
                found
            });
            if found {
                return true;
            }
        }
        false
    }
}

/// The 8 neighbours.
pub const NEIGHBOURS: [(i32, i32); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];

/// `n` with `(dx, dy) = n·(vx, vy)`, n ≥ 1.
#[inline]
fn multiple(dx: i64, dy: i64, vx: i64, vy: i64) -> Option<i64> {
    // Unit steps (most vectors) need no division.
    let n = match (vx, vy) {
        (1, _) => dx,
        (-1, _) => -dx,
        (0, 1) => dy,
        (0, -1) => -dy,
        (0, _) => dy / vy,
        _ => dx / vx,
    };
    (n >= 1 && dx == n * vx && dy == n * vy).then_some(n)
}
