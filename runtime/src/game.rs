//! A game in progress: the public face of the runtime.
//!
//! `Game` owns the current position, the history (for undo and repetition), and the
//! outcome. Positions are generic over the board width; `Game` hides that behind one
//! small internal trait, so callers never see it, and search code runs monomorphised.

use std::sync::Arc;

use thiserror::Error;

use crate::action::{Action, ActionKind};
use crate::bits::{Bits, Wide};
use crate::event::{Event, NoEvents};
use crate::geometry::Square;
use crate::movegen;
use crate::notation::{self, fen, fen::FenError, fen::Setup};
use crate::outcome::{GameResult, Outcome, Reason};
use crate::piece::{Piece, Side};
use crate::position::Position;
use crate::variant::{AnyTables, Variant, Verdict};

/// Why an action was refused. The game is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleError {
    #[error(transparent)]
    Notation(#[from] notation::NotationError),
    #[error("{action} is illegal: {why}")]
    Illegal { action: String, why: String },
    #[error("the game is over ({0})")]
    GameOver(String),
}

/// The width-specific engine behind a [`Game`].
pub(crate) trait Core: Send + Sync {
    fn legal(&self, out: &mut Vec<Action>);
    /// Moves that ignore the check rule (used to explain illegal moves).
    fn pseudo_legal(&self, out: &mut Vec<Action>);
    fn make(&mut self, a: Action, events: &mut Vec<Event>);
    fn setup(&self) -> Setup;
    fn hash(&self) -> u64;
    fn halfmove(&self) -> u32;
    fn to_move(&self) -> Side;
    fn in_check(&self) -> bool;
    fn perft(&self, depth: u32) -> u64;
    fn after(&self, a: Action) -> Box<dyn Core>;
    fn boxed(&self) -> Box<dyn Core>;
    fn piece_at(&self, sq: Square) -> Option<Piece>;
}

pub(crate) struct CoreImpl<B: Bits> {
    v: Arc<Variant>,
    pub(crate) pos: Position<B>,
}

impl<B: Bits> Core for CoreImpl<B> {
    fn legal(&self, out: &mut Vec<Action>) {
        movegen::legal(&self.pos, self.v.tables(), self.v.rules.check, out)
    }
    fn pseudo_legal(&self, out: &mut Vec<Action>) {
        movegen::legal(&self.pos, self.v.tables(), false, out)
    }
    fn make(&mut self, a: Action, events: &mut Vec<Event>) {
        self.pos.make(self.v.tables(), a, events)
    }
    fn setup(&self) -> Setup {
        self.pos.to_setup()
    }
    fn hash(&self) -> u64 {
        self.pos.hash
    }
    fn halfmove(&self) -> u32 {
        self.pos.halfmove
    }
    fn to_move(&self) -> Side {
        self.pos.stm
    }
    fn in_check(&self) -> bool {
        movegen::in_check(&self.pos, self.v.tables())
    }
    fn perft(&self, depth: u32) -> u64 {
        movegen::perft(&self.pos, self.v.tables(), self.v.rules.check, depth)
    }
    fn after(&self, a: Action) -> Box<dyn Core> {
        let mut p = self.pos.clone();
        p.make(self.v.tables(), a, &mut NoEvents);
        Box::new(CoreImpl {
            v: self.v.clone(),
            pos: p,
        })
    }
    fn boxed(&self) -> Box<dyn Core> {
        Box::new(CoreImpl {
            v: self.v.clone(),
            pos: self.pos.clone(),
        })
    }
    fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.pos.piece_at(sq)
    }
}

fn core_for(v: &Arc<Variant>, s: &Setup) -> Box<dyn Core> {
    fn make<B: Bits>(v: &Arc<Variant>, s: &Setup) -> Box<dyn Core> {
        Box::new(CoreImpl::<B> {
            v: v.clone(),
            pos: Position::from_setup(v.tables(), s),
        })
    }
    match &v.tables {
        AnyTables::Narrow(_) => make::<u64>(v, s),
        AnyTables::Mid(_) => make::<u128>(v, s),
        AnyTables::Wide(_) => make::<Wide>(v, s),
    }
}

struct Ply {
    before: Box<dyn Core>,
    action: Action,
    events: Vec<Event>,
}

/// A game of a variant.
pub struct Game {
    variant: Arc<Variant>,
    core: Box<dyn Core>,
    start: Setup,
    history: Vec<Ply>,
    /// Hashes of every position since the start, the current one last.
    hashes: Vec<u64>,
    outcome: Option<Outcome>,
    last_events: Vec<Event>,
}

impl Clone for Game {
    fn clone(&self) -> Self {
        Game {
            variant: self.variant.clone(),
            core: self.core.boxed(),
            start: self.start.clone(),
            history: self
                .history
                .iter()
                .map(|p| Ply {
                    before: p.before.boxed(),
                    action: p.action,
                    events: p.events.clone(),
                })
                .collect(),
            hashes: self.hashes.clone(),
            outcome: self.outcome,
            last_events: self.last_events.clone(),
        }
    }
}

impl Game {
    /// A game from the variant's starting position.
    pub fn new(variant: Arc<Variant>) -> Game {
        let setup = fen::parse(&variant, &variant.setup)
            .expect("the setup FEN was checked when the variant loaded");
        Game::from_setup(variant, setup)
    }

    /// A game from a FEN.
    pub fn from_fen(variant: Arc<Variant>, text: &str) -> Result<Game, FenError> {
        let setup = fen::parse(&variant, text)?;
        Ok(Game::from_setup(variant, setup))
    }

    pub(crate) fn from_setup(variant: Arc<Variant>, setup: Setup) -> Game {
        let core = core_for(&variant, &setup);
        let mut g = Game {
            variant,
            hashes: vec![core.hash()],
            core,
            start: setup,
            history: Vec::new(),
            outcome: None,
            last_events: Vec::new(),
        };
        g.outcome = g.judge();
        g
    }

    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// Every legal action, sorted by from-square, to-square and promotion.
    pub fn legal_actions(&self) -> Vec<Action> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        let mut v = Vec::new();
        self.core.legal(&mut v);
        v.sort();
        v
    }

    /// Applies a legal action; on error nothing changes.
    pub fn apply(&mut self, action: Action) -> Result<Vec<Event>, RuleError> {
        if let Some(o) = self.outcome {
            return Err(RuleError::GameOver(o.describe()));
        }
        let mut legal = Vec::new();
        self.core.legal(&mut legal);
        if !legal.contains(&action) {
            return Err(RuleError::Illegal {
                action: self.format(&action),
                why: self.explain(action.from, action.to, action.promotion),
            });
        }
        Ok(self.apply_unchecked(action))
    }

    fn apply_unchecked(&mut self, action: Action) -> Vec<Event> {
        let before = self.core.boxed();
        let mut events = Vec::new();
        self.core.make(action, &mut events);
        self.hashes.push(self.core.hash());
        self.outcome = self.judge();
        if let Some(o) = self.outcome {
            events.push(Event::Ended { outcome: o });
        }
        self.history.push(Ply {
            before,
            action,
            events: events.clone(),
        });
        self.last_events = events.clone();
        events
    }

    /// Reads an action in the variant's notation and matches it to a legal action.
    pub fn parse_action(&self, text: &str) -> Result<Action, RuleError> {
        let w = notation::parse(&self.variant, text)?;
        if let Some(o) = self.outcome {
            return Err(RuleError::GameOver(o.describe()));
        }
        let mut legal = Vec::new();
        self.core.legal(&mut legal);
        let matches: Vec<Action> = legal
            .iter()
            .copied()
            .filter(|a| {
                a.from == w.from
                    && a.to == w.to
                    && (w.promotion.is_none() || a.promotion == w.promotion)
            })
            .collect();
        match matches.len() {
            1 => Ok(matches[0]),
            0 => Err(RuleError::Illegal {
                action: text.trim().to_string(),
                why: self.explain(w.from, w.to, w.promotion),
            }),
            _ if matches.iter().all(|a| a.promotion.is_some()) => {
                let choices: Vec<String> = matches
                    .iter()
                    .map(|a| format!("={}", self.variant.kind(a.promotion.unwrap()).letter))
                    .collect();
                Err(RuleError::Illegal {
                    action: text.trim().to_string(),
                    why: format!("it promotes: add one of {}", choices.join(", ")),
                })
            }
            _ => Err(RuleError::Illegal {
                action: text.trim().to_string(),
                why: "it is ambiguous".into(),
            }),
        }
    }

    /// Parses and applies an action written in the variant's notation.
    pub fn play(&mut self, text: &str) -> Result<Vec<Event>, RuleError> {
        let a = self.parse_action(text)?;
        Ok(self.apply_unchecked(a))
    }

    /// Why moving from `from` to `to` is not legal here, in a player's words.
    fn explain(&self, from: Square, to: Square, promotion: Option<crate::piece::KindId>) -> String {
        let v = &self.variant;
        let name = |s: Square| v.square_name(s);
        let Some(piece) = self.core.piece_at(from) else {
            return format!("there is no piece on {}", name(from));
        };
        let kind = &v.kind(piece.kind).name;
        let stm = self.core.to_move();
        if piece.side != stm {
            return format!(
                "the {kind} on {} is {}'s, and it is {stm}'s turn",
                name(from),
                piece.side
            );
        }
        let mut pseudo = Vec::new();
        self.core.pseudo_legal(&mut pseudo);
        let same: Vec<&Action> = pseudo
            .iter()
            .filter(|a| a.from == from && a.to == to)
            .collect();
        if same.is_empty() {
            if let Some(c) = v
                .castling
                .iter()
                .find(|c| c.side == stm && c.king == from && c.king_to == to)
            {
                let setup = self.core.setup();
                let i = v.castling.iter().position(|x| std::ptr::eq(x, c)).unwrap();
                if setup.castling & (1 << i) == 0 {
                    return format!(
                        "castling {}-{} is no longer allowed (the king or rook has moved)",
                        name(from),
                        name(to)
                    );
                }
                if let Some(&blocked) = c
                    .empty
                    .iter()
                    .find(|&&s| s != c.king && s != c.rook && self.core.piece_at(s).is_some())
                {
                    return format!("castling needs {} to be empty", name(blocked));
                }
                let safe: Vec<String> = c.safe.iter().map(|&s| name(s)).collect();
                return format!(
                    "castling needs the king not to stand on, cross or reach an attacked square ({})",
                    safe.join(", ")
                );
            }
            return format!("a {kind} on {} cannot move to {}", name(from), name(to));
        }
        if let Some(p) = promotion
            && !same.iter().any(|a| a.promotion == Some(p))
        {
            let options: Vec<String> = same
                .iter()
                .filter_map(|a| a.promotion)
                .map(|k| format!("={}", v.kind(k).letter))
                .collect();
            return if options.is_empty() {
                format!("a {kind} moving to {} does not promote", name(to))
            } else {
                format!(
                    "it cannot promote to {}; choose one of {}",
                    v.kind(p).name,
                    options.join(", ")
                )
            };
        }
        let royal = v
            .kinds
            .iter()
            .find(|k| k.royal)
            .map_or("royal piece".to_string(), |k| k.name.clone());
        format!("it would leave your {royal} attacked")
    }

    /// Takes back up to `plies` actions; returns how many were taken back.
    pub fn undo(&mut self, plies: usize) -> usize {
        let n = plies.min(self.history.len());
        for _ in 0..n {
            let ply = self.history.pop().unwrap();
            self.core = ply.before;
            self.hashes.pop();
        }
        self.outcome = self.judge();
        self.last_events = self
            .history
            .last()
            .map(|p| p.events.clone())
            .unwrap_or_default();
        n
    }

    /// The result, once the game has ended.
    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    pub fn to_move(&self) -> Side {
        self.core.to_move()
    }

    /// Whether the side to move has a royal piece under attack.
    pub fn in_check(&self) -> bool {
        self.core.in_check()
    }

    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.core.piece_at(sq)
    }

    /// Every piece, by square.
    pub fn pieces(&self) -> Vec<(Square, Piece)> {
        self.core.setup().pieces
    }

    /// The position in width-independent form.
    pub fn setup(&self) -> Setup {
        self.core.setup()
    }

    pub fn fen(&self) -> String {
        fen::write(&self.variant, &self.core.setup())
    }

    /// The FEN of the position the game started from.
    pub fn start_fen(&self) -> String {
        fen::write(&self.variant, &self.start)
    }

    /// The actions played so far.
    pub fn history(&self) -> Vec<Action> {
        self.history.iter().map(|p| p.action).collect()
    }

    /// The events of the last action.
    pub fn last_events(&self) -> &[Event] {
        &self.last_events
    }

    /// Plies played since the start of this game.
    pub fn ply(&self) -> usize {
        self.history.len()
    }

    /// The position hash (equal positions hash equally).
    pub fn hash(&self) -> u64 {
        self.core.hash()
    }

    /// An action in the variant's notation.
    pub fn format(&self, a: &Action) -> String {
        notation::format(&self.variant, a)
    }

    /// The number of leaves of the legal-move tree to `depth`.
    pub fn perft(&self, depth: u32) -> u64 {
        self.core.perft(depth)
    }

    /// Perft split by first action.
    pub fn divide(&self, depth: u32) -> Vec<(Action, u64)> {
        let d = depth.max(1);
        self.legal_actions()
            .into_iter()
            .map(|a| (a, self.core.after(a).perft(d - 1)))
            .collect()
    }

    /// Decides whether the game has ended in the current position.
    fn judge(&self) -> Option<Outcome> {
        let v = &self.variant;
        let stm = self.core.to_move();
        let mut legal = Vec::new();
        self.core.legal(&mut legal);
        let verdict = |verdict: Verdict, reason| {
            let result = match verdict {
                Verdict::Loss => GameResult::Win(stm.opponent()),
                Verdict::Win => GameResult::Win(stm),
                Verdict::Draw => GameResult::Draw,
            };
            Some(Outcome { result, reason })
        };
        if legal.is_empty() {
            return if self.core.in_check() {
                verdict(v.rules.checkmate, Reason::Checkmate)
            } else {
                verdict(v.rules.stalemate, Reason::Stalemate)
            };
        }
        let draw = |reason| {
            Some(Outcome {
                result: GameResult::Draw,
                reason,
            })
        };
        if self.insufficient_material() {
            return draw(Reason::InsufficientMaterial);
        }
        if let Some(n) = v.draws.no_progress_plies
            && self.core.halfmove() >= n
        {
            return draw(Reason::NoProgress);
        }
        if let Some(n) = v.draws.repetition {
            let now = self.core.hash();
            // Only positions since the last irreversible move can repeat.
            let window = (self.core.halfmove() as usize + 1).min(self.hashes.len());
            let seen = self.hashes[self.hashes.len() - window..]
                .iter()
                .filter(|&&h| h == now)
                .count();
            if seen >= n as usize {
                return draw(Reason::Repetition);
            }
        }
        None
    }

    fn insufficient_material(&self) -> bool {
        let v = &self.variant;
        let d = &v.draws;
        if d.insufficient.is_empty() && d.same_colour == 0 {
            return false;
        }
        let pieces = self.core.setup().pieces;
        let mut counts = [[0u8; crate::piece::MAX_KINDS]; 2];
        for &(_, p) in &pieces {
            counts[p.side.index()][p.kind.index()] += 1;
        }
        if d.insufficient.iter().any(|pair| {
            (pair[0] == counts[0] && pair[1] == counts[1])
                || (pair[1] == counts[0] && pair[0] == counts[1])
        }) {
            return true;
        }
        if d.same_colour != 0 {
            let others: Vec<&(Square, Piece)> = pieces
                .iter()
                .filter(|(_, p)| !v.kind(p.kind).royal)
                .collect();
            if !others.is_empty()
                && others
                    .iter()
                    .all(|(_, p)| d.same_colour & (1 << p.kind.0) != 0)
            {
                let light = v.geometry.is_light(others[0].0);
                return others.iter().all(|(s, _)| v.geometry.is_light(*s) == light);
            }
        }
        false
    }

    /// The board as text: ranks from the top, `.` for empty squares.
    pub fn board_text(&self) -> String {
        let v = &self.variant;
        let g = v.geometry;
        let setup = self.core.setup();
        let wide = g.ranks >= 10;
        let mut out = String::new();
        for rank in (0..g.ranks).rev() {
            if wide {
                out.push_str(&format!("{:>2} ", rank + 1));
            } else {
                out.push_str(&format!("{} ", rank + 1));
            }
            for file in 0..g.files {
                let sq = Square(rank * g.files + file);
                let c = setup
                    .pieces
                    .iter()
                    .find(|&&(s, _)| s == sq)
                    .map_or('.', |&(_, p)| v.letter(p));
                out.push(' ');
                out.push(c);
            }
            out.push('\n');
        }
        out.push_str(if wide { "   " } else { "  " });
        for file in 0..g.files {
            out.push(' ');
            out.push((b'a' + file) as char);
        }
        out.push('\n');
        out
    }

    /// Whether an action is a capture (for tools and displays).
    pub fn is_capture(&self, a: &Action) -> bool {
        match a.kind {
            ActionKind::EnPassant | ActionKind::Shot => true,
            ActionKind::Castle(_) => false,
            _ => self
                .core
                .piece_at(a.to)
                .is_some_and(|p| p.side != self.to_move()),
        }
    }
}
