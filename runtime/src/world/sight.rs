//! What the round's start position sees, found once for the whole world and shared by
//! the bots and the validation: per board, a mask of its squares attacked by the board
//! owner's pieces, one of its squares attacked by anyone else's, and one of its pieces
//! guarded by their owner (A-CA10, A-CA20). Each piece's moves are walked forward once
//! (every board in parallel, the masks of neighbouring boards or-ed in, so the result
//! does not depend on the order), instead of a backward scan for every question.
//!
//! The answers are exactly [`Movement::attacked`] and [`Movement::guarded`] on the start
//! position (a test asks both for every square of generated worlds). Where a mask cannot
//! tell — a square of a board that does not exist, a victim that is not the board's
//! owner while others attack the square, or a variant whose attacks depend on the victim
//! (`cannot_capture`) or on neighbours (`silenced_by_adjacent_enemy`) — the answer is
//! None and the caller scans. Boards larger than 32 squares have no masks.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::cells::{Cell, Cells, Window};
use super::geometry::Pos;
use super::moves::Movement;
use crate::variant::{Mode, Shape};

/// The start position's attacks and guards, per board of one [`Cells`] (by its board
/// index: use it only with the world it was made from).
pub struct Sight {
    /// Per board: bits 0..32, its squares attacked by pieces of the board's owner; bits
    /// 32..64, by pieces of anyone else.
    attacks: Vec<AtomicU64>,
    /// Per board: its squares whose piece is guarded by its owner.
    guards: Vec<AtomicU32>,
    /// The attack masks answer (see the module's text).
    exact: bool,
}

/// Marks of one board's pieces on the boards of its window (by window index, with the
/// board's index), or-ed into the masks at the end.
struct Marks {
    attack: [u64; 25],
    guard: [u32; 25],
    board: [u32; 25],
}

impl Default for Marks {
    fn default() -> Marks {
        Marks { attack: [0; 25], guard: [0; 25], board: [u32::MAX; 25] }
    }
}

impl Sight {
    /// No masks: every question is answered by a scan.
    pub fn none() -> Sight {
        Sight { attacks: Vec::new(), guards: Vec::new(), exact: false }
    }

    /// The masks of `cells`' start position, on threads when asked (the same result).
    pub fn new(m: &Movement, cells: &Cells, parallel: bool) -> Sight {
        let (w, h) = cells.tile();
        if w * h > 32 {
            return Sight::none();
        }
        let exact =
            m.v.kinds.iter().flat_map(|k| &k.atoms).all(|a| a.cannot_capture == 0 && !a.silenced_by_adjacent_enemy);
        let n = cells.boards().len();
        let s = Sight {
            attacks: (0..n).map(|_| AtomicU64::new(0)).collect(),
            guards: (0..n).map(|_| AtomicU32::new(0)).collect(),
            exact,
        };
        let one = |t: usize, marks: &mut Marks| {
            walk_board(m, cells, &s, t, marks);
            for wi in 0..25 {
                let u = std::mem::replace(&mut marks.board[wi], u32::MAX);
                if u == u32::MAX {
                    continue;
                }
                let (a, g) = (std::mem::take(&mut marks.attack[wi]), std::mem::take(&mut marks.guard[wi]));
                if a != 0 {
                    s.attacks[u as usize].fetch_or(a, Ordering::Relaxed);
                }
                if g != 0 {
                    s.guards[u as usize].fetch_or(g, Ordering::Relaxed);
                }
            }
        };
        #[cfg(feature = "parallel")]
        if parallel {
            use rayon::prelude::*;
            (0..n).into_par_iter().with_min_len(4096).for_each_init(Marks::default, |marks, t| one(t, marks));
            return s;
        }
        let _ = parallel;
        let mut marks = Marks::default();
        for t in 0..n {
            one(t, &mut marks);
        }
        s
    }

    /// Whether a piece of `victim_owner` on the square at `local` of board `t` is attacked
    /// in the start position (by another player's piece), if the masks tell.
    #[inline]
    pub fn attacked(&self, cells: &Cells, t: usize, local: usize, victim_owner: u32) -> Option<bool> {
        if !self.exact {
            return None;
        }
        let a = self.attacks.get(t)?.load(Ordering::Relaxed);
        let (own, other) = (a >> local & 1 != 0, a >> (32 + local) & 1 != 0);
        if victim_owner == cells.owners[t] {
            Some(other)
        } else if own {
            Some(true)
        } else if !other {
            Some(false)
        } else {
            None
        }
    }

    /// Whether the piece standing on the square at `local` of board `t` in the start
    /// position is guarded by its owner, if the masks tell.
    #[inline]
    pub fn guarded(&self, t: usize, local: usize) -> Option<bool> {
        Some(self.guards.get(t)?.load(Ordering::Relaxed) >> local & 1 != 0)
    }

    /// [`Sight::attacked`] for the square `p`, found through `w`.
    #[inline]
    pub fn attacked_at(&self, w: &Window, p: Pos, victim_owner: u32) -> Option<bool> {
        if !self.exact {
            return None;
        }
        let (t, local) = w.locate(p)?;
        self.attacked(w.cells(), t, local, victim_owner)
    }

    /// [`Sight::guarded`] for the square `p`, found through `w`.
    #[inline]
    pub fn guarded_at(&self, w: &Window, p: Pos) -> Option<bool> {
        if self.guards.is_empty() {
            return None;
        }
        let (t, local) = w.locate(p)?;
        self.guarded(t, local)
    }
}

/// Walks every piece of board `t` forward and records what it attacks (every piece
/// blocking its line) and which pieces of its owner it guards (only the owner's pieces
/// blocking), as [`Movement::attacked`] and [`Movement::guarded`] judge them.
fn walk_board(m: &Movement, cells: &Cells, sight: &Sight, t: usize, marks: &mut Marks) {
    let tile = cells.tile();
    let home = cells.boards()[t];
    let Some(corner) = home.corner(tile) else { return };
    let w = cells.window(home);
    let limit = m.rules.max_other_boards as usize;
    // Where a square is stored (None: no board), and its piece.
    let spot = |p: Pos| {
        let s = w.spot(p);
        (s, s.map_or(Cell::EMPTY, |(_, u, l)| cells.cell(u, l)))
    };
    let mut mark = |s: (usize, usize, usize), attacker: u32, attack: bool, guard: bool| {
        let (wi, u, local) = s;
        let a = if !attack {
            0
        } else if cells.owners[u] == attacker {
            1u64 << local
        } else {
            1u64 << (32 + local)
        };
        let g = if guard { 1u32 << local } else { 0 };
        if wi < 25 {
            marks.board[wi] = u as u32;
            marks.attack[wi] |= a;
            marks.guard[wi] |= g;
        } else {
            // Outside the window (a long move): straight into the masks.
            sight.attacks[u].fetch_or(a, Ordering::Relaxed);
            sight.guards[u].fetch_or(g, Ordering::Relaxed);
        }
    };
    for (i, &c) in cells.board_cells(t).iter().enumerate() {
        if c.is_empty() {
            continue;
        }
        let (lx, ly) = (i as i32 % tile.0, i as i32 / tile.0);
        let Some(from) = corner.offset(lx, ly) else { continue };
        let owner = c.owner();
        let kind = c.kind();
        let royal = m.is_royal(kind);
        let bound = m.is_bound(kind);
        // Silenced atoms are judged on the start position, as the scans judge them there.
        let silenced = std::cell::OnceCell::new();
        let is_silenced = || {
            *silenced.get_or_init(|| {
                super::moves::NEIGHBOURS.iter().any(|&(nx, ny)| {
                    let n = from.offset(nx, ny).map_or(Cell::EMPTY, |q| w.get(q));
                    !n.is_empty() && n.owner() != owner
                })
            })
        };
        for a in &m.v.kinds[kind.index()].atoms {
            if a.mode == Mode::Move {
                continue;
            }
            if let Some(region) = a.from
                && !m.v.regions[region].squares[0].contains(&crate::geometry::Square((ly * tile.0 + lx) as u8))
            {
                continue;
            }
            if a.silenced_by_adjacent_enemy && is_silenced() {
                continue;
            }
            // What this atom guards: a piece of the owner it could take were it an enemy.
            let guards =
                |x: Cell| !royal && !x.is_empty() && x.owner() == owner && a.cannot_capture & (1 << x.kind().0) == 0;
            let (slide, max) = match a.shape {
                Shape::Leap => (false, 1),
                Shape::Slide => (true, if a.range == 0 { i32::MAX } else { a.range as i32 }),
                _ => continue,
            };
            for &(vx, vy) in &a.vectors {
                let d = (vx as i32, vy as i32);
                if !slide {
                    let Some(p) = from.offset(d.0, d.1) else { continue };
                    let b = home.at_local(tile, lx + d.0, ly + d.1);
                    if b != home && (bound || limit == 0) {
                        continue;
                    }
                    if let (Some(s), x) = spot(p) {
                        mark(s, owner, true, guards(x));
                    }
                    continue;
                }
                // A line: attacks up to the first piece of anyone, guards up to the first
                // of the owner's; boards entered counted as in `Movement::reach`.
                let mut seen = [home; 9];
                let mut boards = 0;
                let (mut attack, mut guard) = (true, !royal);
                let mut n = 1;
                while n <= max && (attack || guard) {
                    let Some(p) = from.offset(d.0 * n, d.1 * n) else { break };
                    let b = home.at_local(tile, lx + d.0 * n, ly + d.1 * n);
                    if b != home && !seen[..boards].contains(&b) {
                        if boards >= limit || bound || boards >= seen.len() {
                            break;
                        }
                        seen[boards] = b;
                        boards += 1;
                    }
                    let (s, x) = spot(p);
                    if let Some(s) = s {
                        mark(s, owner, attack, guard && guards(x));
                    }
                    if !x.is_empty() {
                        attack = false;
                        if x.owner() == owner {
                            guard = false;
                        }
                    }
                    n += 1;
                }
            }
        }
    }
}
