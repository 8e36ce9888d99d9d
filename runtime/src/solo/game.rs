//! A solo board in play: strikes, targets, the score, the clock reading, undo.

use std::sync::Arc;

use super::{Forge, SoloBoard, SoloError};
use crate::geometry::Square;
use crate::piece::KindId;
use crate::rng::Rng;
use crate::scoring::{Award, ScoreState, ScoringRules, Tenths, TimeScore};
use crate::variant::DuelRules;

/// Where a board stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    Playing,
    /// Every square is cleared.
    Forged,
    /// No target is left: the score counts, but the board is not forged.
    Cooled,
    /// A duel's countdown ran out.
    OutOfTime,
}

impl Status {
    pub fn name(self) -> &'static str {
        match self {
            Status::Playing => "playing",
            Status::Forged => "forged",
            Status::Cooled => "cooled",
            Status::OutOfTime => "out_of_time",
        }
    }
}

/// What the clock is worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeRule {
    /// No time score.
    None,
    /// `[scoring.time]`: a start value losing points per whole second.
    Score(TimeScore),
    /// A duel: a countdown; the seconds left are worth points, and the board ends at 0.
    Countdown(DuelRules),
}

/// What a strike did: the observable truth, for traces, displays and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SoloEvent {
    /// `kind` (the piece shown before the strike) was struck; the square now has `hits`.
    Struck {
        square: Square,
        kind: KindId,
        hits: u8,
    },
    /// The square now shows this piece.
    Revealed {
        square: Square,
        kind: KindId,
    },
    /// The square took its last strike and is empty.
    Cleared {
        square: Square,
    },
    /// Every square has now taken `layer` strikes.
    LayerCompleted {
        layer: u8,
    },
    /// A level's layer rule left this piece on the square instead of its stack's.
    Placed {
        square: Square,
        kind: KindId,
    },
    Scored {
        points: Tenths,
        reason: String,
    },
    Ended {
        status: Status,
    },
}

/// Everything a strike changes (what undo restores).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct State {
    pub hits: Vec<u8>,
    /// The piece each square shows now; `None` once cleared.
    pub shown: Vec<Option<KindId>>,
    /// The last strike: its square and the piece it struck (which decides the targets).
    pub last: Option<(Square, KindId)>,
    pub score: ScoreState,
    /// Layers completed (the least hits over all squares).
    pub layers: u8,
    pub status: Status,
    /// The clock reading when the board ended.
    pub ended_ms: Option<u64>,
}

/// A solo board in play.
#[derive(Debug, Clone)]
pub struct SoloGame {
    forge: Arc<Forge>,
    level: usize,
    board: SoloBoard,
    /// The seed the board was dealt from, if it was.
    seed: Option<u64>,
    state: State,
    /// The state before each strike, and the strike.
    history: Vec<(Square, State)>,
    time: TimeRule,
    elapsed_ms: u64,
    last_events: Vec<SoloEvent>,
}

impl SoloGame {
    /// A game of `board` at the level with index `level` (see [`Forge::level`]).
    pub fn new(forge: Arc<Forge>, level: usize, board: SoloBoard) -> SoloGame {
        let n = board.squares();
        let time = forge.variant.scoring.as_ref().and_then(|s| s.time).map_or(TimeRule::None, TimeRule::Score);
        let score = ScoreState::new(forge.variant.scoring.as_ref().unwrap_or(&ScoringRules::default()));
        let state = State {
            hits: vec![0; n],
            shown: (0..n).map(|sq| Some(board.cell(Square(sq as u8), 0))).collect(),
            last: None,
            score,
            layers: 0,
            status: Status::Playing,
            ended_ms: None,
        };
        let mut g = SoloGame {
            forge,
            level,
            board,
            seed: None,
            state,
            history: Vec::new(),
            time,
            elapsed_ms: 0,
            last_events: Vec::new(),
        };
        // A board with nothing to strike (one of zero strikes) is over at once.
        g.state.status = g.judge();
        g
    }

    /// A raw board dealt from `seed` at `level` (no forgeability check: see
    /// `varia::search::solo` for dealing forgeable boards).
    pub fn dealt(forge: Arc<Forge>, level: usize, seed: u64) -> SoloGame {
        let board = SoloBoard::draw(&forge.variant, &forge.rules().levels[level], &mut Rng::new(seed));
        let mut g = SoloGame::new(forge, level, board);
        g.seed = Some(seed);
        g
    }

    /// This game as a duel: the countdown of `[duel]` replaces the time score.
    pub fn into_duel(mut self) -> Result<SoloGame, SoloError> {
        let duel = self.forge.rules().duel.ok_or(SoloError::NotSolo {
            variant: format!("{} (it has no [duel])", self.forge.variant.name),
            model: "solo",
        })?;
        self.time = TimeRule::Countdown(duel);
        Ok(self)
    }

    pub fn with_seed(mut self, seed: Option<u64>) -> SoloGame {
        self.seed = seed;
        self
    }

    pub fn forge(&self) -> &Arc<Forge> {
        &self.forge
    }
    pub fn board(&self) -> &SoloBoard {
        &self.board
    }
    pub fn level(&self) -> usize {
        self.level
    }
    pub fn level_name(&self) -> &str {
        &self.forge.rules().levels[self.level].name
    }
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }
    pub fn status(&self) -> Status {
        self.state.status
    }
    pub fn time_rule(&self) -> TimeRule {
        self.time
    }
    pub fn hits(&self, sq: Square) -> u8 {
        self.state.hits[sq.index()]
    }
    /// The piece `sq` shows now (`None` once cleared).
    pub fn shown(&self, sq: Square) -> Option<KindId> {
        self.state.shown[sq.index()]
    }
    /// The last strike: its square and the piece it struck.
    pub fn last(&self) -> Option<(Square, KindId)> {
        self.state.last
    }
    pub fn layers_completed(&self) -> u8 {
        self.state.layers
    }
    pub fn score(&self) -> &ScoreState {
        &self.state.score
    }
    pub fn strikes(&self) -> Vec<Square> {
        self.history.iter().map(|(s, _)| *s).collect()
    }
    pub fn ply(&self) -> usize {
        self.history.len()
    }
    pub fn last_events(&self) -> &[SoloEvent] {
        &self.last_events
    }
    pub fn elapsed_ms(&self) -> u64 {
        self.elapsed_ms
    }

    fn scoring(&self) -> &ScoringRules {
        static NONE: std::sync::OnceLock<ScoringRules> = std::sync::OnceLock::new();
        self.forge.variant.scoring.as_ref().unwrap_or_else(|| NONE.get_or_init(ScoringRules::default))
    }

    /// A key of what decides the rest of the board (hits, pieces shown, the last strike),
    /// equal for equal positions whatever the route (the score aside). In-process only.
    pub fn position_key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.state.hits.hash(&mut h);
        self.state.shown.hash(&mut h);
        self.state.last.hash(&mut h);
        h.finish()
    }

    /// The squares that may be struck now (the gold marks), in square order.
    pub fn targets(&self) -> Vec<Square> {
        if self.state.status != Status::Playing {
            return Vec::new();
        }
        let cleared = |s: Square| self.state.shown[s.index()].is_none();
        match self.state.last {
            None => self.forge.variant.geometry.squares().filter(|&s| !cleared(s)).collect(),
            Some((from, kind)) => self.forge.targets(kind, from, &cleared),
        }
    }

    fn judge(&self) -> Status {
        if self.state.shown.iter().all(Option::is_none) {
            Status::Forged
        } else if self.targets().is_empty() {
            Status::Cooled
        } else {
            Status::Playing
        }
    }

    /// Strikes `sq`. On any error nothing changes.
    pub fn strike(&mut self, sq: Square) -> Result<&[SoloEvent], SoloError> {
        let name = |s: Square| self.forge.variant.square_name(s);
        if self.state.status != Status::Playing {
            return Err(SoloError::Over(self.state.status.name()));
        }
        if sq.index() >= self.state.shown.len() {
            return Err(SoloError::Illegal { square: format!("#{}", sq.0), why: "it is off the board".into() });
        }
        let Some(kind) = self.state.shown[sq.index()] else {
            return Err(SoloError::Illegal { square: name(sq), why: "it is cleared".into() });
        };
        let targets = self.targets();
        if !targets.contains(&sq) {
            let (from, last) = self.state.last.expect("the first strike may land on any unfinished square");
            let list = targets.iter().map(|&s| name(s)).collect::<Vec<_>>().join(", ");
            let v = &self.forge.variant;
            return Err(SoloError::Illegal {
                square: name(sq),
                why: format!("the {} struck on {} reaches only {list}", v.kind(last).name, name(from)),
            });
        }
        let before = self.state.clone();
        let mut events = Vec::new();
        match self.apply(sq, kind, &mut events) {
            Ok(()) => {
                self.history.push((sq, before));
                self.last_events = events;
                Ok(&self.last_events)
            }
            Err(e) => {
                self.state = before;
                Err(e)
            }
        }
    }

    fn apply(&mut self, sq: Square, kind: KindId, events: &mut Vec<SoloEvent>) -> Result<(), SoloError> {
        let layers = self.board.layers();
        let i = sq.index();
        let hits = self.state.hits[i] + 1;
        self.state.hits[i] = hits;
        events.push(SoloEvent::Struck { square: sq, kind, hits });
        if hits >= layers {
            self.state.shown[i] = None;
            events.push(SoloEvent::Cleared { square: sq });
        } else {
            let next = self.board.cell(sq, hits);
            self.state.shown[i] = Some(next);
            events.push(SoloEvent::Revealed { square: sq, kind: next });
        }
        self.state.last = Some((sq, kind));
        let scoring = self.scoring().clone();
        let awards = self.state.score.strike(&scoring, kind).map_err(|_| SoloError::Overflow)?;
        let mut paid: Vec<Award> = awards;
        let least = self.state.hits.iter().copied().min().unwrap_or(0);
        if least > self.state.layers {
            self.state.layers = least;
            events.push(SoloEvent::LayerCompleted { layer: least });
            paid.extend(self.state.score.layer(&scoring).map_err(|_| SoloError::Overflow)?);
            let rule = self.forge.rules().levels[self.level].layer_piece.as_ref();
            if let Some(lp) = rule.filter(|lp| lp.layers.contains(&least))
                && self.state.shown[i].is_some()
            {
                self.state.shown[i] = Some(lp.kind);
                events.push(SoloEvent::Placed { square: sq, kind: lp.kind });
            }
        }
        for a in paid {
            events.push(SoloEvent::Scored { points: a.points, reason: a.reason });
        }
        self.state.status = self.judge();
        if self.state.status != Status::Playing {
            self.state.ended_ms = Some(self.elapsed_ms);
            events.push(SoloEvent::Ended { status: self.state.status });
        }
        Ok(())
    }

    /// Takes back up to `n` strikes; returns how many.
    pub fn undo(&mut self, n: usize) -> usize {
        let n = n.min(self.history.len());
        for _ in 0..n {
            let (_, before) = self.history.pop().expect("n is at most the history's length");
            self.state = before;
        }
        self.last_events.clear();
        n
    }

    /// Strikes a list of squares written as text (`c3 d4`, commas or new lines too);
    /// on any error this game is untouched and the error names the strike.
    pub fn then_strikes(&self, text: &str) -> Result<SoloGame, SoloError> {
        let mut g = self.clone();
        let list = text.split(|c: char| c.is_whitespace() || c == ',').filter(|m| !m.is_empty());
        for (i, m) in list.enumerate() {
            let replay = |e: SoloError| SoloError::Replay { index: i + 1, text: m.to_string(), why: e.to_string() };
            let sq = g.forge.square(m).map_err(replay)?;
            g.strike(sq).map_err(replay)?;
        }
        Ok(g)
    }

    /// Sets the clock reading (time is an input): how long the board has been played,
    /// pauses excluded. Once the board has ended its time is fixed; a duel ends when
    /// its countdown reaches 0.
    pub fn set_elapsed(&mut self, ms: u64) {
        if self.state.status != Status::Playing {
            return;
        }
        self.elapsed_ms = ms;
        if let TimeRule::Countdown(d) = self.time
            && ms >= d.countdown_ms
        {
            self.state.status = Status::OutOfTime;
            self.state.ended_ms = Some(d.countdown_ms);
            self.last_events = vec![SoloEvent::Ended { status: Status::OutOfTime }];
        }
    }

    /// The time score: what the clock is worth now (frozen once the board has ended).
    pub fn time_points(&self) -> Tenths {
        let at = self.state.ended_ms.unwrap_or(self.elapsed_ms);
        match self.time {
            TimeRule::None => Tenths::ZERO,
            TimeRule::Score(ts) => {
                let ended_unfinished = matches!(self.state.status, Status::Cooled | Status::OutOfTime);
                if ended_unfinished && !ts.on_unfinished { Tenths::ZERO } else { ts.at(at) }
            }
            TimeRule::Countdown(d) => {
                let left = d.countdown_ms.saturating_sub(at) / 1000;
                Tenths(d.bonus_per_second.0.saturating_mul(left as i64))
            }
        }
    }

    /// Strike points, bonuses and the time score.
    pub fn total(&self) -> Tenths {
        Tenths(self.state.score.points().0.saturating_add(self.time_points().0))
    }
}
