//! One alpha-beta for both back ends: iterative deepening with aspiration windows,
//! negamax with principal variation search, a transposition table (read and written by
//! quiescence too), an evaluation cache, move ordering (table move, captures by victim
//! and attacker value, killers, history and continuation history), quiescence on
//! captures, check extensions, and per level late move reductions (two plies more at
//! expected cut nodes), null-move pruning, futility, late move pruning, static exchange
//! pruning, "improving" and singular extensions; repetition as a draw, and mate scores
//! that prefer the shorter mate. An iteration cut short by time still counts for the root
//! moves it finished.
//!
//! The position it searches is a [`Node`]: the fast back end (a bare position, copy-make)
//! or the slow one (a whole `Game`, hooks included). Nothing here knows which.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::action::{Action, ActionKind};
use crate::piece::Side;
use crate::rng::Rng;
use crate::variant::Verdict;

use super::config::{Level, MOVE_FUTILITY_BASE, MOVE_FUTILITY_STEP};
use super::tt::{Best, Bound, Entry, Table};
use super::{Backend, SearchResult};

/// The score of a mate on the board (the side to move is mated: `-MATE`).
pub(crate) const MATE: i32 = 30_000;
/// Scores beyond this are mates (in `MATE - score` plies).
pub(crate) const MATE_BOUND: i32 = MATE - 1_000;
const INF: i32 = 31_000;
const DRAW: i32 = 0;
/// The deepest line the search follows (extensions and quiescence included).
pub(crate) const MAX_PLY: usize = 128;
/// The half-width of the first root window around the last iteration's score; a score
/// outside it is searched again with the window widened.
const ASPIRATION: i32 = 40;
/// The most plies quiescence follows past the depth. Captures end in chess, but where
/// an attack may only damage its target (hit points), exchanges could go on and on.
const MAX_QUIESCENCE: usize = 10;
/// Quiescence searches every evasion from a check only this many plies past the depth.
const QUIESCENCE_EVASIONS: usize = 4;
/// Futility pruning of quiet actions and SEE pruning of captures work this near the
/// frontier (reverse futility and late move pruning as near as the level says).
const FUTILITY_DEPTH: i32 = 3;
/// Internal iterative reduction works from this depth.
const IIR_DEPTH: i32 = 4;
/// Captures losing more than this per ply left (by SEE) are pruned near the frontier.
const SEE_MARGIN: i32 = 100;

/// Singular extensions work from this depth, with a margin of this many centipawns per
/// ply below the table's score.
const SINGULAR_DEPTH: i32 = 8;
const SINGULAR_MARGIN: i32 = 2;

/// A position the search can walk: the back ends implement it.
pub(crate) trait Node {
    /// The transposition and repetition key of the current position.
    fn key(&self) -> u64;
    /// Appends the legal actions of the side to move.
    fn generate(&mut self, out: &mut Vec<Action>);
    /// Appends the legal actions that capture or promote, in [`Node::generate`]'s order,
    /// for quiescence (which filters what it is given: a back end may list more, and by
    /// default lists every action).
    fn generate_captures(&mut self, out: &mut Vec<Action>) {
        self.generate(out)
    }
    /// Plays a legal action; false if the rules refused it (the node is unchanged).
    fn make(&mut self, a: Action) -> bool;
    /// Takes back the last action played (or the null move).
    fn unmake(&mut self);
    /// Passes the turn (for null-move pruning), if the back end allows a pass here:
    /// false (the node unchanged) where passing could break the rules' bookkeeping.
    fn make_null(&mut self) -> bool {
        false
    }
    /// Whether the side to move has pieces other than royal and `progress` ones (where
    /// it has none, zugzwang is common and a pass proves nothing).
    fn has_officers(&self) -> bool {
        false
    }
    /// Whether the side to move is in check: a royal piece attacked, under the check
    /// rule (without it, an attacked royal piece forces nothing, so it is not extended
    /// or searched like a check).
    fn in_check(&mut self) -> bool;
    /// Whether the game is over here, for the side to move; `moves` are its legal actions.
    fn verdict(&mut self, moves: &[Action]) -> Option<Verdict>;
    /// Whether a rule that does not depend on the legal actions (a draw by material or
    /// by no progress, an outcome a hook declared) has ended the game here.
    fn rule_verdict(&mut self) -> Option<Verdict>;
    /// The static evaluation for the side to move, in centipawns.
    fn evaluate(&mut self) -> i32;
    /// The value of what `a` captures, if it captures.
    fn captures(&self, a: Action) -> Option<i32>;
    /// The value of the piece that plays `a`.
    fn mover_value(&self, a: Action) -> i32;
    /// The code of the piece that plays `a` (kind and side, [`Piece::code`]), or of the
    /// piece a drop brings; with the destination, the key of the continuation history.
    ///
    /// [`Piece::code`]: crate::piece::Piece::code
    fn mover(&self, a: Action) -> u8;
    /// How many piece codes there are (`2 × kinds + 1`, 0 being no piece) and squares.
    fn shape(&self) -> (usize, usize);
    /// The static exchange value of the capture `a`: what the mover expects to gain
    /// when both sides recapture on its square with their least valuable attackers, as
    /// long as that pays. None where the back end cannot tell (its default, and actions
    /// or rules whose exchanges the square sets do not show).
    fn see(&self, _a: Action) -> Option<i32> {
        None
    }
    /// The value of a kind (for promotions).
    fn kind_value(&self, kind: usize) -> i32;
    /// The number of pieces on the board.
    fn pieces(&self) -> u32;
    fn side(&self) -> Side;
    /// Plies since the last irreversible action, if known (bounds the repetition scan).
    fn reversible_plies(&self) -> Option<u32>;
}

/// What one search is asked to do.
pub(crate) struct Params<'a> {
    pub level: &'a Level,
    pub seed: u64,
    /// No new iteration starts past it.
    pub soft: Option<Instant>,
    /// The search stops at it.
    pub deadline: Option<Instant>,
    /// Keys of the game's positions before the root (repetitions against the game count).
    pub history: &'a [u64],
    pub backend: Backend,
    pub stop: Option<&'a AtomicBool>,
    pub progress: Option<&'a dyn Fn(&SearchResult)>,
}

/// What searches learn about actions rather than positions (the quiet-action history
/// and continuation history), kept with the transposition table from one search to the
/// next; sized by the first search that uses it (and again if a search needs another size).
#[derive(Default)]
pub(crate) struct Heuristics {
    /// `[side][from][to]`: see [`Search`]'s use.
    history: Vec<i32>,
    /// `[earlier action][action]` by move keys; empty without the level's `continuation`.
    cont: Vec<i16>,
}

impl Heuristics {
    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.history.fill(0);
        self.cont.fill(0);
    }

    /// Ready for a search that needs `cont` continuation entries.
    fn prepare(&mut self, cont: usize) {
        if self.history.len() != HISTORY_LEN {
            self.history = vec![0; HISTORY_LEN];
        }
        if self.cont.len() != cont {
            self.cont = vec![0; cont];
        }
    }
}

/// The entries of the quiet-action history: two sides, 256 squares from and to.
const HISTORY_LEN: usize = 2 * 256 * 256;

struct Search<'a, N: Node> {
    node: N,
    p: &'a Params<'a>,
    tt: &'a mut Table,
    /// The history and continuation history (see [`Heuristics`]).
    h: &'a mut Heuristics,
    /// Keys of the game's history, then of every position on the current line.
    keys: Vec<u64>,
    killers: Vec<[Option<Action>; 2]>,
    /// The quiet actions tried at each ply, with their move keys (for the maluses).
    quiets: Vec<Vec<(Action, u32)>>,
    lists: Vec<Vec<Action>>,
    scores: Vec<Vec<i32>>,
    pv: Vec<Vec<Action>>,
    /// Whether the action that led to each ply was a null move (no two in a row).
    null: Vec<bool>,
    /// `[depth][move number]`: the late move reduction, `a + ln(depth)·ln(number)/b`.
    lmr: Vec<[u8; 64]>,
    /// The number of move keys (piece codes × squares) and of squares.
    move_keys: usize,
    squares: u32,
    /// The move key of the action that led to each ply (None at the root, after a null move).
    moved: Vec<Option<u32>>,
    /// The static evaluation at each ply of the line (None in check or not taken).
    evals: Vec<Option<i32>>,
    /// The action a singular-extension search leaves out at each ply.
    excluded: Vec<Option<Action>>,
    /// Static evaluations by position key, one per slot ([`EVAL_CACHE`] of them): a
    /// position recurs through transpositions and between the search and quiescence.
    eval_cache: Vec<(u64, i32)>,
    nodes: u64,
    seldepth: usize,
    /// Whether limits may stop the search (never before depth 1 is complete).
    can_stop: bool,
    stopped: bool,
}

fn verdict_score(v: Verdict, ply: usize) -> i32 {
    match v {
        Verdict::Loss => -MATE + ply as i32,
        Verdict::Win => MATE - ply as i32,
        Verdict::Draw => DRAW,
    }
}

/// Mate scores are stored relative to the node, so they stay true wherever it recurs.
fn to_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s + ply as i32
    } else if s <= -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

fn from_tt(s: i32, ply: usize) -> i32 {
    if s >= MATE_BOUND {
        s - ply as i32
    } else if s <= -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

/// Late move reductions, logarithmic in the depth and in the action's number in the
/// order: `LMR_BASE + ln(depth)·ln(number)/LMR_DIVISOR` plies (rounded down), and
/// `CUT_REDUCTION` more at an expected cut node.
const LMR_BASE: f64 = 0.75;
const LMR_DIVISOR: f64 = 1.75;
const CUT_REDUCTION: i32 = 2;
/// The bound of a quiet action's history with the level's `history` (gravity keeps it
/// inside), and the largest bonus (or malus) one cutoff gives.
const HISTORY_MAX: i32 = 16_384;
const HISTORY_BONUS_MAX: i32 = 2_000;
/// The most entries of the continuation history (2 bytes each, a power of two): boards
/// and piece sets whose key pairs are more share slots.
const CONTINUATION_MAX: usize = 1 << 23;
/// Continuation-history pruning works this near the frontier.
const CONTINUATION_PRUNING_DEPTH: i32 = 3;
/// Slots of the evaluation cache (a power of two).
const EVAL_CACHE: usize = 1 << 16;

fn lmr_table() -> Vec<[u8; 64]> {
    (0..64)
        .map(|d| {
            std::array::from_fn(|m| {
                if d == 0 || m == 0 {
                    0
                } else {
                    (LMR_BASE + (d as f64).ln() * (m as f64).ln() / LMR_DIVISOR).floor().max(0.0) as u8
                }
            })
        })
        .collect()
}

/// The score a table entry gives a node at `ply` searched inside `(alpha, beta)`, if its
/// bound settles the window.
#[inline]
fn settled(e: Entry, alpha: i32, beta: i32, ply: usize) -> Option<i32> {
    let s = from_tt(e.score, ply);
    match e.bound {
        Bound::Exact => Some(s),
        Bound::Lower if s >= beta => Some(s),
        Bound::Upper if s <= alpha => Some(s),
        _ => None,
    }
}

/// What a node's result `best` is, searched from the window `(alpha0, beta)`.
#[inline]
fn bound_of(best: i32, alpha0: i32, beta: i32) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if best > alpha0 {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// A history figure moved by `bonus` with gravity: the nearer the figure is to the bound
/// on that side, the less it moves, so it stays within ±[`HISTORY_MAX`] (and a
/// continuation figure fits 16 bits).
#[inline]
fn gravity(v: i32, bonus: i32) -> i32 {
    v + bonus - v * bonus.abs() / HISTORY_MAX
}

/// Whether `a` promotes (a drop names the kind it drops in the same field: not a promotion).
#[inline]
fn promotes(a: Action) -> bool {
    a.promotes_to().is_some()
}

/// Searches the position `node` stands on. None if the side to move has no action.
///
/// The history (`h.history`, `[side][from][to]`) tells how often a quiet action caused a
/// cutoff, weighted by depth (with the level's `history`: bonuses and maluses with
/// gravity, in ±[`HISTORY_MAX`]). With the level's `continuation`, `h.cont` holds
/// `[earlier action][action]` figures for quiet actions, each action keyed by its piece
/// and destination ([`Search::move_key`]): a power of two of entries, at most
/// [`CONTINUATION_MAX`] (larger products share slots).
pub(crate) fn run<N: Node>(node: N, p: &Params<'_>, tt: &mut Table, h: &mut Heuristics) -> Option<SearchResult> {
    tt.new_search();
    let (codes, squares) = node.shape();
    let move_keys = codes * squares;
    h.prepare(if p.level.history && p.level.continuation {
        move_keys.saturating_mul(move_keys).min(CONTINUATION_MAX).next_power_of_two()
    } else {
        0
    });
    let mut s = Search {
        node,
        p,
        tt,
        h,
        keys: p.history.to_vec(),
        killers: vec![[None; 2]; MAX_PLY + 1],
        quiets: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
        lists: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
        scores: (0..=MAX_PLY).map(|_| Vec::with_capacity(64)).collect(),
        pv: (0..=MAX_PLY + 1).map(|_| Vec::new()).collect(),
        null: vec![false; MAX_PLY + 2],
        lmr: lmr_table(),
        move_keys,
        squares: squares as u32,
        moved: vec![None; MAX_PLY + 2],
        evals: vec![None; MAX_PLY + 2],
        excluded: vec![None; MAX_PLY + 1],
        eval_cache: vec![(0, 0); EVAL_CACHE],
        nodes: 0,
        seldepth: 0,
        can_stop: false,
        stopped: false,
    };
    s.root()
}

impl<N: Node> Search<'_, N> {
    fn root(&mut self) -> Option<SearchResult> {
        let root_key = self.node.key();
        if self.keys.last() != Some(&root_key) {
            self.keys.push(root_key);
        }
        let mut actions = Vec::new();
        self.node.generate(&mut actions);
        // Actions the rules refuse when played (a hook's veto) are not candidates.
        actions.retain(|&a| {
            let ok = self.node.make(a);
            if ok {
                self.node.unmake();
            }
            ok
        });
        if actions.is_empty() {
            return None;
        }
        // Noise is drawn once per root action, in the order of the legal list, so the
        // same seed gives the same choice.
        let mut rng = Rng::new(self.p.seed);
        let noise = self.p.level.noise;
        let mut root: Vec<(Action, i32)> = actions
            .iter()
            .map(|&a| (a, if noise > 0 { rng.below(2 * noise as u64 + 1) as i32 - noise } else { 0 }))
            .collect();
        // Initial order: captures and promotions first, as inside the tree.
        let keyed: Vec<i32> = root.iter().map(|&(a, _)| self.order_key(a, None, 0)).collect();
        let mut order: Vec<usize> = (0..root.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(keyed[i]));
        root = order.into_iter().map(|i| root[i]).collect();

        // The last complete iteration: action, score without noise, line, depth.
        let mut best: Option<(Action, i32, Vec<Action>, u32)> = None;
        let max_depth = self.p.level.depth.max(1);
        let mut spent = false;
        let mut last: i32 = 0;
        for depth in 1..=max_depth {
            if depth > 1 && self.out_of_budget() {
                spent = true;
                break;
            }
            // Aspiration: a window around the last score (without noise, whose shifts
            // make every action's window its own), widened to the full one on a miss.
            let mut window = if depth >= 4 && noise == 0 && last.abs() < MATE_BOUND {
                (last - ASPIRATION, last + ASPIRATION)
            } else {
                (-INF, INF)
            };
            let (alpha, best_i, best_noise, scores, pv) = loop {
                let it = self.iteration(&root, depth, window);
                let (alpha, ..) = it;
                if self.stopped || (alpha > window.0 && alpha < window.1) || window == (-INF, INF) {
                    break it;
                }
                window = (-INF, INF);
            };
            if self.stopped {
                spent = true;
                // The actions this iteration finished inside the window are scored at
                // the new depth: the best of them replaces the last iteration's choice.
                if !pv.is_empty() && alpha > window.0 && alpha < window.1 {
                    best = Some((root[best_i].0, alpha - best_noise, pv, depth - 1));
                }
                break;
            }
            last = alpha - best_noise;
            best = Some((root[best_i].0, alpha - best_noise, pv, depth));
            if let Some(report) = self.p.progress
                && let Some(r) = self.result(&best, false)
            {
                report(&r);
            }
            // The best first, then the others by their (bounded) scores.
            let mut order: Vec<usize> = (0..root.len()).collect();
            order.sort_by_key(|&i| (i != best_i, std::cmp::Reverse(scores[i])));
            root = order.into_iter().map(|i| root[i]).collect();
            self.can_stop = true;
            // A forced mate found within this depth will not change deeper.
            if (alpha - best_noise).abs() >= MATE_BOUND && ((MATE - (alpha - best_noise).abs()) as u32) <= depth {
                break;
            }
        }
        self.result(&best, spent)
    }

    /// One iteration over the root actions at `depth` inside `window`: the best score
    /// (with its action's noise), the best action's index and noise, every action's
    /// (bounded) score, and the line. Stopped midway, it holds what it finished.
    #[allow(clippy::type_complexity)]
    fn iteration(
        &mut self,
        root: &[(Action, i32)],
        depth: u32,
        window: (i32, i32),
    ) -> (i32, usize, i32, Vec<i32>, Vec<Action>) {
        let (mut alpha, beta) = window;
        let mut best_i = 0;
        let mut best_noise = 0;
        let mut scores = vec![-INF; root.len()];
        let mut pv = Vec::new();
        for (i, &(a, n)) in root.iter().enumerate() {
            self.moved[1] = Some(self.move_key(a));
            if !self.node.make(a) {
                continue;
            }
            self.keys.push(self.node.key());
            self.null[1] = false;
            // The noise shifts this action's window, so pruning stays exact for the
            // noisy scores.
            let d = depth as i32 - 1;
            let mut score = if i == 0 {
                -self.search(d, -(beta - n), -(alpha - n), 1, false) + n
            } else {
                let s = -self.search(d, -(alpha - n) - 1, -(alpha - n), 1, true) + n;
                if s > alpha && !self.stopped { -self.search(d, -(beta - n), -(alpha - n), 1, false) + n } else { s }
            };
            self.keys.pop();
            self.node.unmake();
            if self.stopped {
                break;
            }
            score = score.clamp(-INF + 1, INF - 1);
            scores[i] = score;
            if score > alpha {
                alpha = score;
                best_i = i;
                best_noise = n;
                pv.clear();
                pv.push(a);
                pv.extend_from_slice(&self.pv[1]);
                if alpha >= beta {
                    break;
                }
            }
        }
        (alpha, best_i, best_noise, scores, pv)
    }

    /// The result of the last finished iteration.
    fn result(&self, best: &Option<(Action, i32, Vec<Action>, u32)>, stopped: bool) -> Option<SearchResult> {
        let (action, score, pv, depth) = best.clone()?;
        let mate = (score.abs() >= MATE_BOUND).then(|| {
            let plies = MATE - score.abs();
            let moves = (plies + 1) / 2;
            if score > 0 { moves } else { -moves }
        });
        Some(SearchResult {
            action,
            score,
            mate,
            depth,
            seldepth: self.seldepth as u32,
            nodes: self.nodes,
            pv,
            stopped,
            backend: self.p.backend,
        })
    }

    /// Whether the search was told to stop (another thread set the flag).
    #[inline]
    fn told_to_stop(&self) -> bool {
        self.p.stop.is_some_and(|f| f.load(Ordering::Relaxed))
    }

    /// Whether a new iteration may not start: the node budget or the soft time limit is
    /// spent, or the search was told to stop.
    fn out_of_budget(&self) -> bool {
        (self.p.level.nodes != 0 && self.nodes >= self.p.level.nodes)
            || self.p.soft.is_some_and(|d| Instant::now() >= d)
            || self.told_to_stop()
    }

    /// Stops the search once a budget is spent (the clock and the flag are read every
    /// 256 nodes: well under a millisecond at the usual speeds, and reading the clock
    /// costs tens of nanoseconds).
    #[inline]
    fn poll(&mut self) -> bool {
        if self.can_stop && !self.stopped {
            let nodes = self.p.level.nodes != 0 && self.nodes >= self.p.level.nodes;
            let time =
                self.nodes & 255 == 0 && (self.p.deadline.is_some_and(|d| Instant::now() >= d) || self.told_to_stop());
            self.stopped = nodes || time;
        }
        self.stopped
    }

    /// Whether the current position occurred before, on this line or in the game,
    /// with the same side to move.
    fn repeated(&self) -> bool {
        let n = self.keys.len();
        if n < 5 {
            return false;
        }
        let key = self.keys[n - 1];
        let window = self.node.reversible_plies().map_or(n, |r| (r as usize + 1).min(n));
        let mut i = n - 1;
        while i >= 2 && n - 1 - (i - 2) < window {
            i -= 2;
            if self.keys[i] == key {
                return true;
            }
        }
        false
    }

    /// The static evaluation of the current position, through the cache (the key is the
    /// transposition table's: what one trusts, the other may).
    #[inline]
    fn evaluate(&mut self) -> i32 {
        let key = self.node.key();
        let slot = key as usize & (EVAL_CACHE - 1);
        let (k, e) = self.eval_cache[slot];
        if k == key && key != 0 {
            return e;
        }
        let e = self.node.evaluate();
        self.eval_cache[slot] = (key, e);
        e
    }

    /// The order in which actions are tried: the table's move, captures (most valuable
    /// victim, then least valuable attacker), promotions, killers, then history.
    fn order_key(&self, a: Action, tt_move: Option<Best>, ply: usize) -> i32 {
        if tt_move.is_some_and(|b| b.is(a)) {
            return 1 << 30;
        }
        let promo = a.promotes_to().map_or(0, |k| self.node.kind_value(k.index()).max(0));
        if let Some(victim) = self.node.captures(a) {
            let key = victim * 64 - self.node.mover_value(a) / 16 + promo;
            // A capture that loses material in the exchange goes after the killers.
            if self.p.level.see && promo == 0 && self.node.see(a).is_some_and(|s| s < 0) {
                return (1 << 25) + key.clamp(0, (1 << 24) - 1);
            }
            return (1 << 28) + key;
        }
        if promotes(a) {
            return (1 << 27) + promo;
        }
        let k = &self.killers[ply];
        if k[0] == Some(a) {
            return 1 << 26;
        }
        if k[1] == Some(a) {
            return (1 << 26) - 1;
        }
        self.quiet_stat(a, self.move_key(a), ply)
    }

    /// A quiet action's figure: its history, and with continuation its figures after the
    /// actions one and two plies before. `key` is [`Search::move_key`] of `a`.
    #[inline]
    fn quiet_stat(&self, a: Action, key: u32, ply: usize) -> i32 {
        let mut stat = self.h.history[self.history_index(a)];
        for slot in self.cont_slots(key, ply).into_iter().flatten() {
            stat += self.h.cont[slot] as i32;
        }
        stat
    }

    /// An action's key in the continuation history: its piece and destination (taken
    /// before it is played).
    #[inline]
    fn move_key(&self, a: Action) -> u32 {
        self.node.mover(a) as u32 * self.squares + a.to.index() as u32
    }

    /// The continuation slots of the action with move key `key` at `ply`: after the
    /// action that led here (the opponent's) and the one before it (the side's own).
    #[inline]
    fn cont_slots(&self, key: u32, ply: usize) -> [Option<usize>; 2] {
        if self.h.cont.is_empty() {
            return [None; 2];
        }
        let mask = self.h.cont.len() - 1;
        let slot = |prev: Option<u32>| prev.map(|p| (p as usize * self.move_keys + key as usize) & mask);
        [slot(self.moved[ply]), if ply >= 1 { slot(self.moved[ply - 1]) } else { None }]
    }

    /// Moves a quiet action's history and continuation figures by `bonus` (positive or
    /// negative) with [`gravity`]. `key` is [`Search::move_key`] of `a`.
    fn reward(&mut self, a: Action, key: u32, ply: usize, bonus: i32) {
        let h = self.history_index(a);
        self.h.history[h] = gravity(self.h.history[h], bonus);
        for slot in self.cont_slots(key, ply).into_iter().flatten() {
            self.h.cont[slot] = gravity(self.h.cont[slot] as i32, bonus) as i16;
        }
    }

    #[inline]
    fn history_index(&self, a: Action) -> usize {
        (self.node.side().index() * 256 + a.from.index()) * 256 + a.to.index()
    }

    /// Neither a capture nor a promotion (a drop is quiet).
    fn is_quiet(&self, a: Action) -> bool {
        !promotes(a) && self.node.captures(a).is_none()
    }

    /// The late move reduction (from the table) of the action tried after `searched`
    /// others at `depth`, before the node's adjustments.
    #[inline]
    fn reduction(&self, depth: i32, searched: usize) -> i32 {
        self.lmr[(depth as usize).min(63)][(searched + 1).min(63)] as i32
    }

    /// Moves the best remaining action (by score) to index `i`.
    fn pick(list: &mut [Action], scores: &mut [i32], i: usize) {
        let mut best = i;
        for j in i + 1..list.len() {
            if scores[j] > scores[best] {
                best = j;
            }
        }
        list.swap(i, best);
        scores.swap(i, best);
    }

    /// Negamax to `depth` in the window (alpha, beta). `cut`: an expected cut node (a
    /// late move's null-window search, or the first child of an expected all node),
    /// where late quiet moves are reduced `CUT_REDUCTION` plies more; its first child is
    /// an expected all node, and an all node's first child a cut node.
    fn search(&mut self, mut depth: i32, mut alpha: i32, mut beta: i32, ply: usize, cut: bool) -> i32 {
        self.pv[ply].clear();
        if self.poll() {
            return 0;
        }
        if self.repeated() {
            return DRAW;
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        // A mate found nearer the root is better than anything from here.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let in_check = self.node.in_check();
        if in_check && depth > 0 {
            depth += 1;
        }
        if depth <= 0 {
            return if self.p.level.quiescence { self.quiesce(alpha, beta, ply, 0, in_check) } else { self.leaf(ply) };
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);

        let key = self.node.key();
        let entry = self.tt.probe(key);
        let pv_node = beta - alpha > 1;
        let excluded = self.excluded[ply];
        if let Some(e) = entry
            && !pv_node
            && excluded.is_none()
            && e.depth >= depth
            && let Some(s) = settled(e, alpha, beta, ply)
        {
            return s;
        }

        let level = self.p.level;
        // The static evaluation (not in check), where pruning or `improving` use it.
        let prunes = !pv_node && (level.null_move || level.futility > 0);
        // Reverse futility and the null move need no move list: it is made after them,
        // and before them only the verdicts that need none are asked, as quiescence does
        // before standing pat. A stalemate at a node they cut is overlooked (rare, and
        // off the PV). Where neither can cut, the list's verdicts end the game as before.
        if prunes
            && !in_check
            && let Some(v) = self.node.rule_verdict()
        {
            return verdict_score(v, ply);
        }
        let raw = if !in_check && (prunes || level.improving) { Some(self.evaluate()) } else { None };
        // For pruning (off the PV), the table's score where its bound says it is nearer
        // the truth.
        let eval = raw.filter(|_| prunes).map(|e| match entry {
            Some(t) if t.score.abs() < MATE_BOUND => match t.bound {
                Bound::Exact => t.score,
                Bound::Lower => e.max(t.score),
                Bound::Upper => e.min(t.score),
            },
            _ => e,
        });
        // Improving: the static evaluation is above the one of the side's last turn
        // (taken as true where either is unknown, and always without the level's flag).
        let improving = if level.improving {
            self.evals[ply] = raw;
            match (raw, ply.checked_sub(2).and_then(|p| self.evals[p])) {
                (Some(e), Some(before)) => e > before,
                _ => true,
            }
        } else {
            true
        };
        // Reverse futility: at a frontier node whose static evaluation beats beta by a
        // margin per ply left (a ply fewer when improving), the opponent is not expected
        // to catch up.
        let margin = level.reverse_futility_margin();
        if let Some(e) = eval
            && margin > 0
            && depth <= level.reverse_futility_depth
            && beta.abs() < MATE_BOUND
            && e - margin * (depth - (level.improving && improving) as i32) >= beta
        {
            return e;
        }
        // Null move: if passing the turn still leaves the side to move at or above beta
        // after a search R plies shallower, a real action would too (unless in zugzwang,
        // which the back end's and `has_officers`'s conditions make rare). R grows with
        // the depth (3 plies, and one more every 3) and with the margin over beta (one
        // more per 200 centipawns, up to 3).
        if level.null_move
            && !pv_node
            && excluded.is_none()
            && !in_check
            && depth >= 3
            && !self.null[ply]
            && beta.abs() < MATE_BOUND
            && self.node.has_officers()
            && eval.is_some_and(|e| e >= beta)
            && self.node.make_null()
        {
            let over = eval.map_or(0, |e| ((e - beta) / 200).min(3));
            let r = 3 + depth / 3 + over;
            self.keys.push(self.node.key());
            self.null[ply + 1] = true;
            self.moved[ply + 1] = None;
            let score = -self.search(depth - 1 - r, -beta, -beta + 1, ply + 1, !cut);
            self.null[ply + 1] = false;
            self.keys.pop();
            self.node.unmake();
            if self.stopped || score >= beta {
                // A mate found after a pass is not proven: a bound of beta is.
                return if self.stopped {
                    0
                } else if score >= MATE_BOUND {
                    beta
                } else {
                    score
                };
            }
        }
        self.null[ply + 1] = false;
        let mut list = match self.actions(ply) {
            Ok(list) => list,
            Err(score) => return score,
        };

        let tt_move = entry.and_then(|e| e.best);
        // Singular extension: the table's action, when every other one falls short of
        // its score by a margin in a shallower search, is searched a ply deeper.
        let mut singular = None;
        if level.singular
            && depth >= SINGULAR_DEPTH
            && excluded.is_none()
            && let (Some(e), Some(m)) = (entry, tt_move)
            && e.depth >= depth - 3
            && e.bound != Bound::Upper
            && e.score.abs() < MATE_BOUND
            && let Some(&a) = list.iter().find(|&&a| m.is(a))
        {
            let sbeta = from_tt(e.score, ply) - SINGULAR_MARGIN * depth;
            self.excluded[ply] = Some(a);
            let s = self.search((depth - 1) / 2, sbeta - 1, sbeta, ply, cut);
            self.excluded[ply] = None;
            self.pv[ply].clear();
            if self.stopped {
                self.lists[ply] = list;
                return 0;
            }
            if s < sbeta {
                singular = Some(a);
            } else if sbeta >= beta {
                // Another action beats beta too (multi-cut).
                self.lists[ply] = list;
                return sbeta;
            }
        }
        // Internal iterative reduction: a deep node the table knows no action for is
        // likely not worth its full depth (and, searched shallower, gives the table one).
        if level.iir && depth >= IIR_DEPTH && tt_move.is_none() {
            depth -= 1;
        }
        let mut scores = std::mem::take(&mut self.scores[ply]);
        scores.clear();
        scores.extend(list.iter().map(|&a| self.order_key(a, tt_move, ply)));

        // Futility: at a frontier node whose static evaluation is far below alpha, quiet
        // actions (that give no check) cannot raise it.
        let futile = level.futility > 0
            && depth <= FUTILITY_DEPTH
            && alpha.abs() < MATE_BOUND
            && eval.is_some_and(|e| e + level.futility * depth <= alpha);
        // Late move pruning: near the frontier, off the PV, only the first quiet actions
        // in the order are tried (half as many where the evaluation is not improving).
        let lmp = if level.late_move_pruning && !pv_node && !in_check && depth <= level.late_move_pruning_depth {
            let n = (3 + depth * depth) as usize;
            if improving { n } else { n / 2 + 1 }
        } else {
            usize::MAX
        };

        let alpha0 = alpha;
        let mut quiets = std::mem::take(&mut self.quiets[ply]);
        quiets.clear();
        let mut best = -INF;
        let mut best_move = None;
        let mut searched = 0;
        for i in 0..list.len() {
            Self::pick(&mut list, &mut scores, i);
            let a = list[i];
            if excluded == Some(a) {
                continue;
            }
            let quiet = self.is_quiet(a);
            // Below the killers in the order (bad captures are too).
            let below_killers = scores[i] < (1 << 26) - 1;
            let key = self.move_key(a);
            if searched > 0 && best > -MATE_BOUND {
                if quiet && below_killers && searched >= lmp {
                    continue;
                }
                // Near the frontier, a late quiet action that did badly after both the
                // opponent's last action and the side's own (continuation history).
                if quiet
                    && below_killers
                    && !in_check
                    && depth <= CONTINUATION_PRUNING_DEPTH
                    && self.cont_slots(key, ply).iter().all(|s| s.is_some_and(|s| self.h.cont[s] < 0))
                {
                    continue;
                }
                // A capture that loses more than a margin per ply in the exchange.
                if level.see
                    && !pv_node
                    && !in_check
                    && !quiet
                    && depth <= FUTILITY_DEPTH
                    && !promotes(a)
                    && self.node.see(a).is_some_and(|s| s < -SEE_MARGIN * depth)
                {
                    continue;
                }
            }
            // Reducible: late in the order (below the killers), and quiet.
            let late = level.reductions && searched >= 3 && below_killers && quiet;
            let stat = if late && level.history { self.quiet_stat(a, key, ply) } else { 0 };
            self.moved[ply + 1] = Some(key);
            // Futility by action: a late quiet action that, searched to its reduced
            // depth, is not expected to lift the static evaluation up to alpha (unless
            // it gives check, seen once it is made).
            let move_futile = level.move_futility_depth > 0
                && searched > 0
                && best > -MATE_BOUND
                && quiet
                && below_killers
                && !in_check
                && eval.is_some_and(|e| {
                    let d = depth - 1 - self.reduction(depth, searched);
                    d < level.move_futility_depth && e + MOVE_FUTILITY_BASE + MOVE_FUTILITY_STEP * d.max(0) <= alpha
                });
            if !self.node.make(a) {
                continue;
            }
            let gives_check = (futile || late || move_futile) && self.node.in_check();
            if (futile || move_futile) && quiet && searched > 0 && !gives_check && best > -MATE_BOUND {
                self.node.unmake();
                continue;
            }
            self.keys.push(self.node.key());
            let mut score;
            if searched == 0 {
                let extend = (singular == Some(a)) as i32;
                score = -self.search(depth - 1 + extend, -beta, -alpha, ply + 1, !pv_node && !cut);
            } else {
                // A late quiet action (below the killers in the order), neither out of
                // nor into check, is tried shallower first.
                let r = if late && depth >= 3 && !in_check && !gives_check {
                    let mut r = self.reduction(depth, searched) - pv_node as i32;
                    // One ply more for an action whose history is bad; with continuation,
                    // one less or more per HISTORY_MAX of the figures' sum beyond that.
                    if stat < 0 {
                        r += 1;
                    }
                    if !self.h.cont.is_empty() {
                        r -= stat / HISTORY_MAX;
                    }
                    if !improving {
                        r += 1;
                    }
                    if cut {
                        r += CUT_REDUCTION;
                    }
                    r.clamp(0, depth - 2)
                } else {
                    0
                };
                score = -self.search(depth - 1 - r, -alpha - 1, -alpha, ply + 1, true);
                if r > 0 && score > alpha && !self.stopped {
                    score = -self.search(depth - 1, -alpha - 1, -alpha, ply + 1, !cut);
                }
                if score > alpha && score < beta && !self.stopped {
                    score = -self.search(depth - 1, -beta, -alpha, ply + 1, false);
                }
            }
            self.keys.pop();
            self.node.unmake();
            if self.stopped {
                self.lists[ply] = list;
                self.scores[ply] = scores;
                self.quiets[ply] = quiets;
                return 0;
            }
            searched += 1;
            if score > best {
                best = score;
                best_move = Some(a);
                if score > alpha {
                    alpha = score;
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(a);
                    head[ply].extend_from_slice(&tail[0]);
                    if score >= beta {
                        if quiet {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(a) {
                                k[1] = k[0];
                                k[0] = Some(a);
                            }
                            let h = self.history_index(a);
                            if level.history {
                                let bonus = (depth * depth * 16).min(HISTORY_BONUS_MAX);
                                self.reward(a, key, ply, bonus);
                                for &(q, qkey) in &quiets {
                                    self.reward(q, qkey, ply, -bonus);
                                }
                            } else {
                                self.h.history[h] = (self.h.history[h] + depth * depth).min(1 << 24);
                            }
                        }
                        break;
                    }
                }
            }
            if quiet && level.history {
                quiets.push((a, key));
            }
        }
        self.quiets[ply] = quiets;
        self.lists[ply] = list;
        self.scores[ply] = scores;
        if searched == 0 {
            // Left out the only action: it is singular. Every action refused by the
            // rules: judge the position as it stands.
            return if excluded.is_some() { alpha } else { self.evaluate() };
        }
        if excluded.is_none() {
            let bound = bound_of(best, alpha0, beta);
            self.tt.store(key, Entry { best: best_move.map(Best::of), score: to_tt(best, ply), depth, bound });
        }
        best
    }

    /// A leaf without quiescence: the static evaluation, unless the game is over here.
    fn leaf(&mut self, ply: usize) -> i32 {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        match self.actions(ply) {
            Ok(list) => {
                self.lists[ply] = list;
                self.evaluate()
            }
            Err(score) => score,
        }
    }

    /// The actions here, in the list kept for `ply` (give it back there when done); or,
    /// when the game is over here, its score.
    fn actions(&mut self, ply: usize) -> Result<Vec<Action>, i32> {
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        self.node.generate(&mut list);
        match self.node.verdict(&list) {
            Some(v) => {
                self.lists[ply] = list;
                Err(verdict_score(v, ply))
            }
            None => Ok(list),
        }
    }

    /// Captures (and promotions) until the position is quiet; every evasion when in check.
    fn quiesce(&mut self, mut alpha: i32, beta: i32, ply: usize, qply: usize, in_check: bool) -> i32 {
        self.pv[ply].clear();
        if self.poll() {
            return 0;
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 || qply >= MAX_QUIESCENCE {
            return self.evaluate();
        }
        // Evasions are searched only in the first plies of quiescence: with drops, every
        // check can be blocked on many squares by many kinds, and check, block, capture
        // could go on to the limit. Deeper, a check is judged like a quiet position.
        let checked = in_check;
        let in_check = in_check && qply < QUIESCENCE_EVASIONS;
        // The table: a stored bound that settles the window ends it here (any depth
        // covers quiescence), and its action is tried first.
        let key = self.node.key();
        let entry = self.tt.probe(key);
        if let Some(s) = entry.and_then(|e| settled(e, alpha, beta, ply)) {
            return s;
        }
        let tt_move = entry.and_then(|e| e.best);
        let alpha0 = alpha;
        let mut best_move = None;
        let mut best = -INF;
        let mut stand = -INF;
        if !in_check {
            // Standing pat needs no move list: only checked positions can be mates, and
            // a stalemate this deep is rare enough to overlook.
            if let Some(v) = self.node.rule_verdict() {
                return verdict_score(v, ply);
            }
            stand = self.evaluate();
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        // Out of check only captures and promotions are searched, and the verdicts that
        // need no move list were asked above. In check (evasions, or past their plies a
        // mate to find) every action; and where there is nothing to take and only royal
        // and `progress` pieces to move, a stalemate is likely enough to look for.
        let mut list = std::mem::take(&mut self.lists[ply]);
        list.clear();
        if !checked {
            self.node.generate_captures(&mut list);
        }
        if checked || (list.is_empty() && !self.node.has_officers()) {
            self.lists[ply] = list;
            list = match self.actions(ply) {
                Ok(list) => list,
                Err(score) => return score,
            };
        }
        let mut scores = std::mem::take(&mut self.scores[ply]);
        scores.clear();
        // Quiet actions stay only as evasions.
        let mut n = 0;
        for i in 0..list.len() {
            let a = list[i];
            let victim = self.node.captures(a);
            if !in_check && victim.is_none() && !promotes(a) {
                continue;
            }
            list[n] = a;
            n += 1;
            scores.push(self.order_key(a, tt_move, ply));
        }
        list.truncate(n);
        let mut searched = 0;
        for i in 0..list.len() {
            Self::pick(&mut list, &mut scores, i);
            let a = list[i];
            if !in_check && !promotes(a) {
                // Delta pruning: even winning this piece outright would not reach alpha.
                let gain = self.node.captures(a).unwrap_or(0);
                if stand + gain + 200 < alpha {
                    continue;
                }
                // A capture that loses material in the exchange.
                if self.p.level.see && self.node.see(a).is_some_and(|s| s < 0) {
                    continue;
                }
            }
            let before = if in_check { 0 } else { self.node.pieces() };
            if !self.node.make(a) {
                continue;
            }
            // An attack that removed nothing (a target with hit points left) changes
            // nothing quiescence looks for: it is left to the full-width search.
            if !in_check && !promotes(a) && self.node.pieces() == before {
                self.node.unmake();
                continue;
            }
            self.keys.push(self.node.key());
            let child_check = self.node.in_check();
            let score = -self.quiesce(-beta, -alpha, ply + 1, qply + 1, child_check);
            self.keys.pop();
            self.node.unmake();
            if self.stopped {
                break;
            }
            searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(a);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.lists[ply] = list;
        self.scores[ply] = scores;
        if self.stopped {
            return 0;
        }
        if in_check && searched == 0 {
            return self.evaluate();
        }
        // Stored at depth 0, unless the table holds a deeper result for this position.
        if entry.is_none_or(|e| e.depth <= 0) {
            let bound = bound_of(best, alpha0, beta);
            self.tt.store(key, Entry { best: best_move.map(Best::of), score: to_tt(best, ply), depth: 0, bound });
        }
        best
    }
}

/// Whether an action takes a piece, by its kind alone (en passant, a shot); other
/// captures are found by looking at the destination.
pub(crate) fn captures_by_kind(a: Action) -> bool {
    matches!(a.kind, ActionKind::EnPassant | ActionKind::Shot)
}
