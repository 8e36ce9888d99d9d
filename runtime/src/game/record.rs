//! Game records on a game: SAN for its moves (written and read against its position,
//! `notation::san`), and PGN import and export (`notation::pgn` is the text). A move
//! typed by a player may be from-to or SAN; both are read here.

use super::*;
use crate::notation::names;
use crate::notation::pgn::{PgnError, PgnGame, PgnMove};
use crate::notation::san::{self, Mark, SanBoard};
use crate::piece::KindId;

impl SanBoard for Game {
    fn variant(&self) -> &Variant {
        &self.variant
    }
    fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.core.piece_at(sq)
    }
    fn side_to_move(&self) -> Side {
        self.to_move()
    }
    fn legal(&self) -> Vec<Action> {
        self.legal_actions()
    }
    fn mark_after(&self, a: &Action) -> Mark {
        let mut g = self.without_history();
        if g.apply_unchecked(*a).is_err() {
            return Mark::None;
        }
        match g.outcome() {
            Some(o) if o.reason == Reason::Checkmate => Mark::Mate,
            _ if g.in_check() => Mark::Check,
            _ => Mark::None,
        }
    }
}

/// The kind a frozen piece returned as among an action's events.
fn returned_in(events: &[Event]) -> Option<KindId> {
    events.iter().find_map(|e| match e {
        Event::Returned { to, .. } => Some(*to),
        _ => None,
    })
}

impl Game {
    /// An action (one of the legal actions) in SAN: `Nf3`, `exd5`, `O-O`, `e8=Q+`.
    pub fn san(&self, a: &Action) -> String {
        san::write(self, a, None)
    }

    /// Reads a move written from-to (`e2-e4`, `e7-e8=Q`) or in SAN (`e4`, `Nxf7+`,
    /// `O-O`), and the `+X` it claims (a frozen piece returning as X). From-to is tried
    /// first; SAN's reason is given when neither reads.
    pub fn read_move(&self, text: &str) -> Result<(Action, Option<KindId>), RuleError> {
        match notation::parse(&self.variant, text) {
            Ok(w) => Ok((self.parse_action(text)?, w.returned)),
            Err(from_to) => {
                if let Some(o) = &self.outcome {
                    return Err(RuleError::GameOver(o.describe()));
                }
                match san::read(self, text) {
                    Ok(found) => Ok(found),
                    // Text that starts with a square and a separator was meant as from-to.
                    Err(_) if looks_from_to(&self.variant, text) => Err(RuleError::Notation(from_to)),
                    Err(e) => Err(RuleError::Notation(e)),
                }
            }
        }
    }

    /// The moves played so far in SAN (with `+X` where a frozen piece returned).
    pub fn history_san(&self) -> Vec<String> {
        // Walks back over a clone, which shares the history: each undo restores the
        // position a move was played from. Nothing is replayed, so no hook runs again and
        // no second history is built (a replay doubled the memory of hooks that keep
        // state, and could not follow a hook that reads the clock).
        let mut g = self.clone();
        let mut out = Vec::with_capacity(self.history.len());
        for ply in self.history.iter().rev() {
            g.undo(1);
            out.push(san::write(&g, &ply.action, returned_in(&ply.events)));
        }
        out.reverse();
        out
    }

    /// The moves played so far as numbered SAN: `1. e4 e5 2. Nf3`.
    pub fn moves_san(&self) -> String {
        let mut number = self.start.fullmove.max(1);
        let mut black = self.start.to_move == Side::Black;
        let mut out: Vec<String> = Vec::new();
        for (i, m) in self.history_san().into_iter().enumerate() {
            if !black {
                out.push(format!("{number}."));
            } else if i == 0 {
                out.push(format!("{number}..."));
            }
            out.push(m);
            if black {
                number += 1;
            }
            black = !black;
        }
        out.join(" ")
    }

    /// This game as a PGN record: the `Variant` tag, `FEN` and `SetUp` when it did not
    /// start from the variant's setup, the result (`*` while it goes on, with the reason
    /// as a comment after the last move when it ended), and SAN moves. `comments[i]`
    /// (if given) follows move i. Other tags are the caller's ([`PgnGame::set_tag`]).
    pub fn to_pgn(&self, comments: &[String]) -> PgnGame {
        let mut p = PgnGame::default();
        p.set_tag("Variant", names::protocol_names(&self.variant).pgn);
        let setup = fen::parse(&self.variant, &self.variant.setup).map(|s| fen::write(&self.variant, &s));
        let start = self.start_fen();
        if setup.as_deref() != Ok(start.as_str()) {
            p.set_tag("SetUp", "1");
            p.set_tag("FEN", start);
        }
        let result = match self.outcome.as_ref().map(|o| o.result) {
            Some(GameResult::Win(Side::White)) => "1-0",
            Some(GameResult::Win(Side::Black)) => "0-1",
            Some(GameResult::Draw) => "1/2-1/2",
            None => "*",
        };
        p.set_tag("Result", result);
        p.result = Some(result.to_string());
        p.moves = self
            .history_san()
            .into_iter()
            .enumerate()
            .map(|(i, san)| PgnMove {
                san,
                comments: comments.get(i).filter(|c| !c.is_empty()).cloned().into_iter().collect(),
                ..PgnMove::default()
            })
            .collect();
        if let (Some(o), Some(last)) = (&self.outcome, p.moves.last_mut()) {
            last.comments.push(o.describe());
        }
        p
    }

    /// The game a PGN record describes, in `variant`: its `FEN` (if any) and every move
    /// of its main line (SAN, or from-to), checked. A `Variant` tag must name this
    /// variant; a result that contradicts how the game ended is an error. Each error
    /// names the line and column of what is wrong.
    pub fn from_pgn(variant: Arc<Variant>, record: &PgnGame) -> Result<Game, PgnError> {
        if let Some(name) = record.tag("Variant")
            && !names::answers_to(&variant, name)
        {
            return Err(PgnError::Tag {
                line: record.line,
                tag: "Variant".into(),
                why: format!("`{name}` is not {} (give the variant it names)", variant.name),
            });
        }
        let mut game = match record.tag("FEN") {
            Some(f) => Game::from_fen(variant.clone(), f).map_err(|e| PgnError::Tag {
                line: record.line,
                tag: "FEN".into(),
                why: e.to_string(),
            })?,
            None => Game::new(variant.clone()),
        };
        for (i, m) in record.moves.iter().enumerate() {
            let fail =
                |why: String| PgnError::Move { line: m.line, col: m.col, index: i + 1, text: m.san.clone(), why };
            game.play(&m.san).map_err(|e| fail(e.to_string()))?;
        }
        let claimed = record.result.as_deref().or(record.tag("Result")).unwrap_or("*");
        if let Some(o) = &game.outcome {
            let actual = match o.result {
                GameResult::Win(Side::White) => "1-0",
                GameResult::Win(Side::Black) => "0-1",
                GameResult::Draw => "1/2-1/2",
            };
            if claimed != "*" && claimed != actual {
                let (line, col) = record.moves.last().map_or((record.line, 1), |m| (m.line, m.col));
                return Err(PgnError::Syntax {
                    line,
                    col,
                    why: format!(
                        "the result {claimed} does not match the game, which ended {actual} ({})",
                        o.describe()
                    ),
                });
            }
        }
        Ok(game)
    }

    /// The game number `index` (from 1) of a PGN text, played in `variant`.
    pub fn from_pgn_text(variant: Arc<Variant>, text: &str, index: usize) -> Result<Game, PgnError> {
        let games = notation::pgn::parse(text)?;
        let record = games.get(index.wrapping_sub(1)).ok_or_else(|| {
            PgnError::NoGame(match games.len() {
                0 => "the text holds no PGN game".to_string(),
                n => format!("there is no game {index}: the text holds {n} game{}", if n == 1 { "" } else { "s" }),
            })
        })?;
        Game::from_pgn(variant, record)
    }
}

/// Whether `text` starts like a from-to move (a square, then a dash, an `x` or another
/// square), so its from-to error is the one to show.
fn looks_from_to(v: &Variant, text: &str) -> bool {
    match v.geometry.parse_prefix(text.trim()) {
        Ok((_, rest)) => {
            let rest = rest.strip_prefix(['-', 'x', 'X']).unwrap_or(rest);
            v.geometry.parse_prefix(rest).is_ok()
        }
        Err(_) => false,
    }
}
