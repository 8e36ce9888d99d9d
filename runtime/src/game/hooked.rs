//! What makes hooks cheap: the `allow` predicate applied to the legal actions, a perft
//! walk for variants whose only hook is `allow`, and the queries hooks ask the core
//! (attacks, royal squares, checkers) instead of listing actions to find them.
//!
//! A variant whose only hook is `allow` changes which actions are legal and nothing
//! else (the predicate only reads), so its perft walks positions as the core's does —
//! no pipeline, no events, no history, no judgement — with `allow` at each listing:
//! the count a data variant with the same rule gives.

use super::*;
use crate::hooks::{HookGame, Hooks};

impl Game {
    /// `actions` (the core's legal actions) without those the `allow` hook refuses.
    pub(crate) fn allowed(&self, mut actions: Vec<Action>) -> Result<Vec<Action>, ScriptError> {
        if let Some(h) = self.variant.hooks.as_deref().filter(|h| h.defines(Hook::Allow)) {
            h.allow(&mut HookGame::read_only(self), &mut actions)?;
        }
        Ok(actions)
    }

    /// Whether `allow` is the variant's only hook (its perft takes the walk below).
    pub(super) fn allow_only(&self) -> bool {
        self.variant
            .hooks
            .as_ref()
            .is_some_and(|h| h.defines(Hook::Allow) && Hook::ALL.iter().all(|&k| k == Hook::Allow || !h.defines(k)))
    }

    /// Why the `allow` hook refuses a core-legal action that `names` matches, if it does:
    /// the rule's reason and where the hook is written.
    pub(super) fn allow_refusal(&self, names: impl Fn(&Action) -> bool) -> Option<String> {
        let h = self.variant.hooks.as_deref().filter(|h| h.defines(Hook::Allow))?;
        let place = h.place(Hook::Allow).map(|p| format!(", {p}")).unwrap_or_default();
        self.core_actions().iter().filter(|a| names(a)).find_map(|a| {
            let why = h.allow_reason(&mut HookGame::read_only(self), a).ok().flatten()?;
            Some(format!("the variant's rules do not allow it here: {why} (allow{place})"))
        })
    }

    /// Perft of a variant whose only hook is `allow`. `lenient`: a listing whose hook
    /// fails counts 0 (as [`Game::perft`] counts a failing subtree) instead of being
    /// the error, which names the actions that led to it.
    pub(super) fn perft_allowed(&self, depth: u32, lenient: bool) -> Result<u64, RuleError> {
        self.perft_allowed_below(depth, self.ply(), lenient)
    }

    /// [`Game::perft_allowed`] split by first action.
    pub(super) fn divide_allowed(&self, depth: u32, lenient: bool) -> Result<Vec<(Action, u64)>, RuleError> {
        let first = match self.actions() {
            Ok(list) => list,
            Err(_) if lenient => return Ok(Vec::new()),
            Err(e) => return Err(RuleError::Listing(e)),
        };
        let mut out = Vec::with_capacity(first.len());
        for a in first {
            let mut g = self.without_history();
            g.core = self.core.after(a);
            let n = g.perft_allowed_below(depth.max(1) - 1, self.ply() + 1, lenient).map_err(|e| match e {
                RuleError::Below { moves, error } => {
                    RuleError::Below { moves: format!("{} {moves}", self.format(&a)), error }
                }
                e => RuleError::Below { moves: self.format(&a), error: Box::new(e) },
            })?;
            out.push((a, n));
        }
        Ok(out)
    }

    fn perft_allowed_below(&self, depth: u32, below: usize, lenient: bool) -> Result<u64, RuleError> {
        if depth == 0 {
            return Ok(1);
        }
        let h = self.variant.hooks.clone().expect("allow_only");
        let mut scratch = self.without_history();
        let mut lists: Vec<Vec<Action>> = (0..depth.clamp(1, MAX_PERFT_DEPTH)).map(|_| Vec::new()).collect();
        let mut path = Vec::new();
        scratch.walk_allowed(&*h, depth, below, lenient, &mut lists, &mut path).map_err(|e| {
            let e = RuleError::Listing(e);
            if path.is_empty() {
                return e;
            }
            let moves: Vec<String> = path.iter().map(|a| self.format(a)).collect();
            RuleError::Below { moves: moves.join(" "), error: Box::new(e) }
        })
    }

    /// The walk: this game's core is replaced by each child position in turn and put
    /// back. `below`: plies past the history (what `game:ply()` adds); `path`: the
    /// actions from the root, left as they were where a hook failed.
    fn walk_allowed(
        &mut self,
        h: &dyn Hooks,
        depth: u32,
        below: usize,
        lenient: bool,
        lists: &mut [Vec<Action>],
        path: &mut Vec<Action>,
    ) -> Result<u64, ScriptError> {
        let Some((list, rest)) = lists.split_first_mut() else { return Ok(0) };
        list.clear();
        self.core.legal(list);
        match h.allow(&mut HookGame::read_only_below(self, below), list) {
            Ok(()) => {}
            Err(_) if lenient => return Ok(0),
            Err(e) => return Err(e),
        }
        if depth == 1 {
            return Ok(list.len() as u64);
        }
        let mut n = 0u64;
        for &a in list.iter() {
            let child = self.core.after(a);
            let parent = std::mem::replace(&mut self.core, child);
            path.push(a);
            let r = self.walk_allowed(h, depth - 1, below + 1, lenient, rest, path);
            self.core = parent;
            n += r?;
            path.pop();
        }
        Ok(n)
    }

    /// Whether a piece of `by` attacks `sq`: could capture there, were it an enemy's
    /// (the check rule aside; conditional atoms such as a silenced shot included).
    pub fn attacked(&self, sq: Square, by: Side) -> bool {
        sq.index() < self.variant.geometry.len() && self.core.attacked(sq, by)
    }

    /// The squares of `side`'s royal pieces, in square order.
    pub fn royal_squares(&self, side: Side) -> Vec<Square> {
        self.core.royal_squares(side)
    }

    /// The squares of the pieces that attack a royal piece of the side to move, in
    /// square order (by atoms without a condition; [`Game::in_check`] sees them all).
    pub fn checkers(&self) -> Vec<Square> {
        self.core.checkers()
    }

    /// The piece `action` would take: the enemy on its target, or the one that skipped,
    /// en passant; none for castling and drops.
    pub fn captured(&self, action: &Action) -> Option<Piece> {
        if action.to.index() >= self.variant.geometry.len() {
            return None;
        }
        self.core.captured(action)
    }
}
