//! What the round's start position sees, found once for the whole world and shared by
//! the bots and the validation: per board, a mask of its squares attacked by the board
//! owner's pieces, one of its squares attacked by anyone else's, and one of its pieces
//! guarded by their owner (A-CA10, A-CA20). Each piece's lines are followed forward once
//! (every board in parallel, the masks of neighbouring boards or-ed in, so the result
//! does not depend on the order), instead of a backward scan for every question.
//!
//! A line is not walked square by square: per vector and square of a board, tables give
//! the squares after it on its board (one mask) and where the line goes on (the next
//! board and the square it enters). With each board's occupancy as a mask, the squares a
//! line attacks on a board are its mask up to the first occupied bit, and the piece it
//! guards is the first bit of its owner's pieces: a few bit operations per board a line
//! crosses.
//!
//! The answers are exactly [`Movement::attacked`] and [`Movement::guarded`] on the start
//! position (a test asks both for every square of generated worlds). Where a mask cannot
//! tell — a square of a board that does not exist, a victim that is not the board's
//! owner while others attack the square, or a variant whose attacks depend on the victim
//! (`cannot_capture`) or on neighbours (`silenced_by_adjacent_enemy`) — the answer is
//! None and the caller scans. Boards larger than 32 squares have no masks.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::cells::{Cell, Cells, Window};
use super::geometry::{BoardId, Pos};
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

/// Where one vector leads from each square of a board (squares numbered row by row from
/// the lower-left corner, as a board's cells are).
struct Line {
    /// Per square: the squares after it along the vector, on its board.
    ray: [u32; 32],
    /// Per square: how many.
    len: [u8; 32],
    /// Per square: the first square of the line past its board, as the board's offset
    /// from the square's board and the square on it.
    next: [(i32, i32, u8); 32],
    /// Squares along the vector come in increasing order of their numbers.
    up: bool,
}

impl Line {
    fn new((vx, vy): (i32, i32), (w, h): (i32, i32)) -> Line {
        let mut l = Line { ray: [0; 32], len: [0; 32], next: [(0, 0, 0); 32], up: vy * w + vx > 0 };
        for s in 0..(w * h) as usize {
            let (x, y) = (s as i32 % w, s as i32 / w);
            if (vx, vy) == (0, 0) {
                // Not a direction: the square itself, as a step off the board.
                l.next[s] = (0, 0, s as u8);
                continue;
            }
            let mut n = 1;
            loop {
                let (px, py) = (x + vx * n, y + vy * n);
                if !(0..w).contains(&px) || !(0..h).contains(&py) {
                    l.next[s] = (px.div_euclid(w), py.div_euclid(h), (py.rem_euclid(h) * w + px.rem_euclid(w)) as u8);
                    break;
                }
                l.ray[s] |= 1 << (py * w + px);
                l.len[s] += 1;
                n += 1;
            }
        }
        l
    }
}

/// An atom that attacks, as the sight follows it.
struct Reach {
    slide: bool,
    /// Its vectors, as indices into [`Tables::lines`].
    lines: Vec<usize>,
    /// The most squares a slide goes.
    max: i32,
    /// The squares it is used from (its region, else all).
    from: u32,
    silenced: bool,
    cannot_capture: u32,
}

/// The variant's lines and attacking atoms, per kind.
struct Tables {
    lines: Vec<Line>,
    kinds: Vec<Vec<Reach>>,
}

impl Tables {
    fn new(m: &Movement) -> Tables {
        let tile = m.tile();
        let mut vectors: Vec<(i32, i32)> = Vec::new();
        let mut lines = Vec::new();
        let mut kinds = Vec::new();
        for k in &m.v.kinds {
            let mut reaches = Vec::new();
            for a in &k.atoms {
                let slide = match (a.mode, a.shape) {
                    (Mode::Move, _) => continue,
                    (_, Shape::Leap) => false,
                    (_, Shape::Slide) => true,
                    _ => continue,
                };
                let from = match a.from {
                    None => u32::MAX,
                    Some(r) => m.v.regions[r].squares[0].iter().filter(|s| s.0 < 32).fold(0, |f, s| f | 1 << s.0),
                };
                let mut ids = Vec::new();
                for &(vx, vy) in &a.vectors {
                    let d = (vx as i32, vy as i32);
                    let i = vectors.iter().position(|&v| v == d).unwrap_or_else(|| {
                        vectors.push(d);
                        lines.push(Line::new(d, tile));
                        vectors.len() - 1
                    });
                    ids.push(i);
                }
                let max = if !slide {
                    1
                } else if a.range == 0 {
                    i32::MAX
                } else {
                    a.range as i32
                };
                reaches.push(Reach {
                    slide,
                    lines: ids,
                    max,
                    from,
                    silenced: a.silenced_by_adjacent_enemy,
                    cannot_capture: a.cannot_capture,
                });
            }
            kinds.push(reaches);
        }
        Tables { lines, kinds }
    }
}

/// Per board: the squares holding a piece, and those holding a piece of its owner.
struct Occupancy {
    all: Vec<u32>,
    owners: Vec<u32>,
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
        let tables = Tables::new(m);
        let masks = |t: usize| {
            let owner = cells.owners[t];
            cells.board_cells(t).iter().enumerate().fold((0u32, 0u32), |(all, own), (i, c)| {
                let bit = (!c.is_empty() as u32) << i;
                (all | bit, own | if c.owner() == owner { bit } else { 0 })
            })
        };
        let (all, owners): (Vec<u32>, Vec<u32>) = super::round::map_players(n, parallel, masks).into_iter().unzip();
        let occupancy = Occupancy { all, owners };
        let one = |t: usize| follow_board(m, &tables, cells, &occupancy, &s, t);
        #[cfg(feature = "parallel")]
        if parallel {
            use rayon::prelude::*;
            (0..n).into_par_iter().with_min_len(4096).for_each(one);
            return s;
        }
        let _ = parallel;
        (0..n).for_each(one);
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

/// Follows every line of every piece of board `t` and records what it attacks (every
/// piece blocking its line) and which pieces of its owner it guards (only the owner's
/// pieces blocking), as [`Movement::attacked`] and [`Movement::guarded`] judge them.
fn follow_board(m: &Movement, tables: &Tables, cells: &Cells, occ: &Occupancy, sight: &Sight, t: usize) {
    let tile = cells.tile();
    let home = cells.boards()[t];
    let limit = (m.rules.max_other_boards as usize).min(9);
    // The boards around (by offset + 1, row by row; u32::MAX: none), their pieces, and
    // what lands on each. A board that does not exist holds nothing and takes no mark.
    let around = cells.around(home);
    let mut near_all = [0u32; 9];
    for (i, &u) in around.iter().enumerate() {
        if u != u32::MAX {
            near_all[i] = occ.all[u as usize];
        }
    }
    let mut attacks = [0u64; 9];
    let mut guards = [0u32; 9];
    // The squares of board `u` holding a piece of `owner`.
    let own = |u: usize, owner: u32| -> u32 {
        if cells.owners[u] == owner {
            return occ.owners[u];
        }
        let mut visitors = occ.all[u] & !occ.owners[u];
        let mut mine = 0;
        while visitors != 0 {
            let s = visitors.trailing_zeros();
            visitors &= visitors - 1;
            if cells.cell(u, s as usize).owner() == owner {
                mine |= 1 << s;
            }
        }
        mine
    };
    // For the owner of the pieces followed (found again when it changes): per board
    // around, its pieces of that owner and where its attacks go in the mask (0: the
    // board's owner, 32: anyone else).
    let mut seen_owner = None;
    let mut near_own = [0u32; 9];
    let mut near_shift = [32u32; 9];
    // A board further out: its index, if it exists.
    let far = |dx: i32, dy: i32| -> Option<usize> {
        cells.find(BoardId { bx: home.bx.checked_add(dx)?, by: home.by.checked_add(dy)? })
    };
    let far_mark = |u: usize, owner: u32, attack: u32, guard: u32| {
        let a = if cells.owners[u] == owner { attack as u64 } else { (attack as u64) << 32 };
        if a != 0 {
            sight.attacks[u].fetch_or(a, Ordering::Relaxed);
        }
        if guard != 0 {
            sight.guards[u].fetch_or(guard, Ordering::Relaxed);
        }
    };
    let mut pieces = occ.all[t];
    while pieces != 0 {
        let s = pieces.trailing_zeros() as usize;
        pieces &= pieces - 1;
        let c = cells.cell(t, s);
        let owner = c.owner();
        let kind = c.kind();
        let royal = m.is_royal(kind);
        let bound = m.is_bound(kind);
        if seen_owner != Some(owner) {
            seen_owner = Some(owner);
            for (i, &u) in around.iter().enumerate() {
                (near_own[i], near_shift[i]) = match u {
                    u32::MAX => (0, 32),
                    u => (own(u as usize, owner), if cells.owners[u as usize] == owner { 0 } else { 32 }),
                };
            }
        }
        // Silenced atoms are judged on the start position, as the scans judge them there.
        let silenced = std::cell::OnceCell::new();
        let is_silenced = || {
            *silenced.get_or_init(|| {
                let from = home.corner(tile).and_then(|p| p.offset(s as i32 % tile.0, s as i32 / tile.0));
                from.is_some_and(|from| {
                    super::moves::NEIGHBOURS.iter().any(|&(nx, ny)| {
                        let n = from.offset(nx, ny).map_or(Cell::EMPTY, |q: Pos| cells.get(q));
                        !n.is_empty() && n.owner() != owner
                    })
                })
            })
        };
        for a in &tables.kinds[kind.index()] {
            if a.from & (1 << s) == 0 || (a.silenced && is_silenced()) {
                continue;
            }
            // Whether the atom could take the piece on square `q` of board `u` (None: the
            // board around at this place) — a piece of the owner there: a guard.
            let takes = |u: Option<usize>, i: usize, q: u32| {
                a.cannot_capture == 0 || {
                    let u = u.unwrap_or(around[i] as usize);
                    a.cannot_capture & (1 << cells.cell(u, q as usize).kind().0) == 0
                }
            };
            for &li in &a.lines {
                let l = &tables.lines[li];
                if !a.slide {
                    let (dx, dy, q) = if l.len[s] > 0 {
                        let r = l.ray[s];
                        (0, 0, if l.up { r.trailing_zeros() } else { 31 - r.leading_zeros() })
                    } else {
                        let (dx, dy, q) = l.next[s];
                        if bound || limit == 0 {
                            continue;
                        }
                        (dx, dy, q as u32)
                    };
                    if dx.abs() <= 1 && dy.abs() <= 1 {
                        let i = ((dy + 1) * 3 + dx + 1) as usize;
                        attacks[i] |= (1u64 << q) << near_shift[i];
                        if !royal && near_own[i] >> q & 1 != 0 && takes(None, i, q) {
                            guards[i] |= 1 << q;
                        }
                    } else if let Some(u) = far(dx, dy) {
                        let guard = !royal && own(u, owner) >> q & 1 != 0 && takes(Some(u), 0, q);
                        far_mark(u, owner, 1 << q, (guard as u32) << q);
                    }
                    continue;
                }
                // A line: attacks up to the first piece of anyone, guards up to the first
                // of the owner's; a board at a time, counted as in `Movement::reach`.
                let (mut attack, mut guard) = (true, !royal);
                let (mut dx, mut dy) = (0i32, 0i32);
                let (mut seg, mut len, mut at) = (l.ray[s], l.len[s] as i32, s);
                let mut left = a.max;
                let mut boards = 0;
                loop {
                    if len > left {
                        seg = first(seg, left, l.up);
                        len = left;
                    }
                    if seg != 0 {
                        let near = dx.abs() <= 1 && dy.abs() <= 1;
                        let i = ((dy + 1) * 3 + dx + 1) as usize;
                        let u = if near { None } else { far(dx, dy) };
                        if near || u.is_some() {
                            let (all, mine) = match u {
                                None => (near_all[i], near_own[i]),
                                Some(u) => (occ.all[u], own(u, owner)),
                            };
                            let mut hit_attack = 0;
                            if attack {
                                let hit = seg & all;
                                hit_attack = if hit == 0 { seg } else { upto(seg, hit, l.up) };
                                attack = hit == 0;
                            }
                            let mut hit_guard = 0;
                            if guard {
                                let mine = seg & mine;
                                if mine != 0 {
                                    let q = if l.up { mine.trailing_zeros() } else { 31 - mine.leading_zeros() };
                                    guard = false;
                                    if takes(u, i, q) {
                                        hit_guard = 1 << q;
                                    }
                                }
                            }
                            match u {
                                None => {
                                    attacks[i] |= (hit_attack as u64) << near_shift[i];
                                    guards[i] |= hit_guard;
                                }
                                Some(u) => far_mark(u, owner, hit_attack, hit_guard),
                            }
                        }
                    }
                    left -= len;
                    if left <= 0 || !(attack || guard) || boards >= limit || bound {
                        break;
                    }
                    // On to the next board.
                    boards += 1;
                    let (nx, ny, e) = l.next[at];
                    (dx, dy) = (dx + nx, dy + ny);
                    at = e as usize;
                    (seg, len) = (1 << at | l.ray[at], 1 + l.len[at] as i32);
                }
            }
        }
    }
    for (i, &u) in around.iter().enumerate() {
        if u == u32::MAX {
            continue;
        }
        if attacks[i] != 0 {
            sight.attacks[u as usize].fetch_or(attacks[i], Ordering::Relaxed);
        }
        if guards[i] != 0 {
            sight.guards[u as usize].fetch_or(guards[i], Ordering::Relaxed);
        }
    }
}

/// The squares of `seg` (the squares of a line on one board) up to its first in `hit`.
#[inline]
fn upto(seg: u32, hit: u32, up: bool) -> u32 {
    if up {
        let b = hit & hit.wrapping_neg();
        seg & (b | (b - 1))
    } else {
        let b = 1u32 << (31 - hit.leading_zeros());
        seg & !(b - 1)
    }
}

/// The first `n` squares of `seg` along the line.
fn first(mut seg: u32, n: i32, up: bool) -> u32 {
    let mut out = 0;
    for _ in 0..n.max(0) {
        if seg == 0 {
            break;
        }
        let b = if up { seg & seg.wrapping_neg() } else { 1 << (31 - seg.leading_zeros()) };
        out |= b;
        seg &= !b;
    }
    out
}
