//! Solo boards on the page (any `[turns] model = "solo"` variant: Chessic's forge): a
//! board dealt from a level and a seed exactly as `varia play` deals it (or given as
//! text), struck square by square, read as JSON for the page (hits and state of every
//! square, the gold targets, the score part by part from the runtime's scoring, the
//! clock, the events in words). No rules live here: `varia::solo` decides everything.
//!
//! Time is an input of the runtime, and here it is the server's: every request reads
//! the server's [`TimeSource`] into the board's [`Stopwatch`] (pauses excluded) and the
//! reading into `SoloGame::set_elapsed`, as the terminal does. The page only shows it
//! (and counts on between replies). The clock is injected: the system's monotonic
//! clock, or a [`ManualClock`] that only `POST /api/clock/wait` moves
//! (`varia serve --clock manual`), so tests are deterministic.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::Deserialize;
use serde_json::{Value, json};
use varia::Variant;
use varia::solo::{Forge, SoloBoard, SoloEvent, SoloGame, Status, Stopwatch, TimeRule};

use crate::error::Error;
use crate::games::OnRules;

/// Where the server's time comes from, in milliseconds from any origin.
pub trait TimeSource: Send + Sync {
    fn now_ms(&self) -> u64;
    /// Lets `ms` pass and returns the new reading; only a manual clock can.
    fn wait(&self, ms: u64) -> Result<u64, Error>;
    fn is_manual(&self) -> bool;
}

/// The system's monotonic clock.
pub struct SystemClock(Instant);

impl SystemClock {
    pub fn new() -> SystemClock {
        SystemClock(Instant::now())
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

impl TimeSource for SystemClock {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.0.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
    fn wait(&self, _: u64) -> Result<u64, Error> {
        Err(Error::NotManualClock)
    }
    fn is_manual(&self) -> bool {
        false
    }
}

/// A clock that stands still until told to move.
#[derive(Default)]
pub struct ManualClock(AtomicU64);

impl TimeSource for ManualClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
    fn wait(&self, ms: u64) -> Result<u64, Error> {
        // Saturating: a reading stuck at the maximum is still a forward reading.
        let mut now = self.0.load(Ordering::SeqCst);
        loop {
            let next = now.saturating_add(ms);
            match self.0.compare_exchange(now, next, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return Ok(next),
                Err(seen) => now = seen,
            }
        }
    }
    fn is_manual(&self) -> bool {
        true
    }
}

/// A board in play and its stopwatch.
#[derive(Clone)]
pub struct SoloPlay {
    pub game: SoloGame,
    pub watch: Stopwatch,
    /// Dealt with `raw` (the seed's first board, forgeable or not).
    pub raw: bool,
}

impl SoloPlay {
    /// Reads the clock into the board (what every request does first).
    pub fn tick(&mut self, now: u64) -> Result<(), Error> {
        let played = self.watch.elapsed(now).map_err(|e| Error::Rules { message: format!("clock: {e}") })?;
        self.game.set_elapsed(played);
        Ok(())
    }
}

impl OnRules for SoloPlay {
    fn rules(&self) -> &Arc<Variant> {
        &self.game.forge().variant
    }

    /// The same board (its stacks as text), level and strikes under the new rules. A
    /// board that has ended keeps the rules it was played under: its time is fixed.
    fn on_rules(&self, rules: Arc<Variant>) -> Result<SoloPlay, String> {
        if self.game.status() != Status::Playing {
            return Err("the board is over".into());
        }
        let old = self.rules().clone();
        let forge = Forge::new(rules.clone()).map_err(|e| e.to_string())?;
        let level = forge.level(self.game.level_name()).map_err(|e| e.to_string())?;
        let board = SoloBoard::parse(&rules, &self.game.board().text(&old)).map_err(|e| e.to_string())?;
        let strikes: Vec<String> = self.game.strikes().into_iter().map(|s| old.square_name(s)).collect();
        let mut game = SoloGame::new(forge, level, board).with_seed(self.game.seed());
        game.set_elapsed(self.game.elapsed_ms());
        let game = game.then_strikes(&strikes.join(" ")).map_err(|e| e.to_string())?;
        Ok(SoloPlay { game, watch: self.watch.clone(), raw: self.raw })
    }
}

/// `POST /api/solo`: which board to play.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSolo {
    pub variant: String,
    /// A level of the variant (any case); default its first, as `varia play`.
    #[serde(default)]
    pub level: Option<String>,
    /// Deal the board of this seed (default 0, as `varia play`).
    #[serde(default)]
    pub seed: Option<u64>,
    /// The board as text instead (`"212 332 …"`, a1, b1, … each stack's letters).
    #[serde(default)]
    pub board: Option<String>,
    /// Deal the seed's first board, forgeable or not.
    #[serde(default)]
    pub raw: bool,
    /// Strikes to make at once (`"c3 d4"`): the board is made only if all are legal.
    #[serde(default)]
    pub strikes: Option<String>,
}

fn bad(e: impl std::fmt::Display) -> Error {
    Error::BadRequest { message: e.to_string() }
}

/// Deals or reads the board `req` names, its clock starting at `now`.
pub fn start(variant: Arc<Variant>, req: &NewSolo, now: u64) -> Result<SoloPlay, Error> {
    let forge = Forge::new(variant).map_err(bad)?;
    let level = match &req.level {
        Some(l) => forge.level(l).map_err(bad)?,
        None => 0,
    };
    let game = match (&req.board, req.seed) {
        (Some(_), Some(_)) => return Err(bad("give `board` or `seed`, not both")),
        (Some(text), None) => SoloGame::new(forge.clone(), level, SoloBoard::parse(&forge.variant, text).map_err(bad)?),
        (None, seed) => varia::search::solo::deal(&forge, level, seed.unwrap_or(0), req.raw)
            .map_err(|e| Error::Rules { message: e.to_string() })?,
    };
    let game = match &req.strikes {
        Some(s) if !s.trim().is_empty() => {
            game.then_strikes(s).map_err(|e| Error::MovesRefused { why: e.to_string() })?
        }
        _ => game,
    };
    let watch = Stopwatch::for_game(&game, now);
    Ok(SoloPlay { game, watch, raw: req.raw })
}

/// Strikes the square named `text`; the events, in words and as data.
pub fn strike(play: &mut SoloPlay, text: &str) -> Result<Value, Error> {
    if play.watch.is_paused() {
        return Err(Error::Strike { square: clip(text), why: "the forge is paused: resume first".into() });
    }
    let forge = play.game.forge().clone();
    let g = forge.variant.geometry;
    let sq = forge.square(text).map_err(|_| Error::BadSquare {
        text: clip(text),
        files: g.files.into(),
        ranks: g.ranks.into(),
    })?;
    let events = play.game.strike(sq).map_err(|e| Error::Strike { square: clip(text), why: e.to_string() })?;
    Ok(events_json(&forge.variant, events))
}

fn clip(s: &str) -> String {
    s.chars().take(8).collect()
}

/// Events as the page shows them: each with its text ([`SoloEvent::describe`], the
/// terminal's words) and its data (as in the JSON snapshot).
pub fn events_json(v: &Variant, events: &[SoloEvent]) -> Value {
    Value::Array(events.iter().map(|e| json!({ "text": e.describe(v), "data": e.to_json(v) })).collect())
}

/// The score part by part, in tenths: the keys of the runtime's score JSON with the
/// labels the terminal's score line uses, then the total.
fn breakdown(game: &SoloGame, score: &Value) -> Value {
    let v = &game.forge().variant;
    let mut parts = vec![("strike_points".to_string(), "strikes (with chains)".to_string())];
    if let Some(rules) = &v.scoring {
        for r in &rules.runs {
            parts.push((r.name.clone(), format!("{} runs", r.name)));
        }
        for q in &rules.sequences {
            parts.push((q.name.clone(), format!("{} sequences", q.name)));
        }
    }
    parts.push(("layer".into(), "layers".into()));
    if score.get("time").is_some() {
        parts.push(("time".into(), "time".into()));
    }
    Value::Array(
        parts
            .into_iter()
            .map(|(key, label)| json!({ "key": key, "label": label, "tenths": score[&key].as_i64().unwrap_or(0) }))
            .collect(),
    )
}

/// What is in progress toward the next bonus: the chain, each run, each sequence.
fn progress(game: &SoloGame) -> Value {
    let v = &game.forge().variant;
    let s = game.score();
    let chain = s.chain.map(|(k, n)| {
        let table = v.scoring.as_ref().map(|r| r.chain.as_slice()).unwrap_or_default();
        // The table's entry for this length (the last repeats), in tenths.
        let at = table.get((n as usize).saturating_sub(1)).or(table.last()).map(|t| t.0);
        json!({ "kind": v.kind(k).name, "length": n, "points": at })
    });
    let mut runs = Vec::new();
    let mut sequences = Vec::new();
    if let Some(rules) = &v.scoring {
        for (r, n) in rules.runs.iter().zip(&s.runs) {
            runs.push(json!({ "name": r.name, "count": n % r.every.max(1), "every": r.every }));
        }
        for (q, n) in rules.sequences.iter().zip(&s.sequences) {
            sequences.push(json!({ "name": q.name, "count": n, "of": q.kinds.len() }));
        }
    }
    json!({ "chain": chain, "runs": runs, "sequences": sequences })
}

/// The whole state of a board, as the page draws it.
pub fn state_json(id: &str, play: &SoloPlay, rules_version: u64, note: Option<&str>, manual: bool) -> Value {
    let game = &play.game;
    let forge = game.forge();
    let v = &forge.variant;
    let g = v.geometry;
    let rules = forge.rules();
    let targets = game.targets();
    let layers = game.board().layers();
    let state_name = |hits: u8| rules.states.get(hits as usize).cloned().unwrap_or_else(|| format!("{hits} hits"));
    // Ranks from the top down, files left to right, as the page draws them.
    let mut squares = Vec::with_capacity(g.len());
    for rank in (0..g.ranks).rev() {
        for file in 0..g.files {
            let sq = g.at(file.into(), rank.into()).expect("inside the board");
            let hits = game.hits(sq);
            let piece =
                game.shown(sq).map(|k| json!({ "kind": v.kind(k).name, "letter": v.kind(k).letter.to_string() }));
            squares.push(json!({
                "name": v.square_name(sq),
                "file": file,
                "rank": rank,
                "light": g.is_light(sq),
                "hits": hits,
                "state": state_name(hits),
                "piece": piece,
                "target": targets.contains(&sq),
            }));
        }
    }
    let score = game.score_json();
    let outcome = match game.status() {
        Status::Playing => Value::Null,
        s => json!({ "result": s.name(), "text": match s {
            Status::Forged => "Board complete: every square is cleared, the board is forged.",
            Status::Cooled => "The forge cooled: no gold target is left. The score counts, but the board is not forged.",
            _ => "Time is up: the countdown ran out.",
        }}),
    };
    let (rule, countdown) = match game.time_rule() {
        TimeRule::None => ("none", None),
        TimeRule::Score(_) => ("score", None),
        TimeRule::Countdown(d) => ("countdown", Some(d.countdown_ms)),
    };
    json!({
        "id": id,
        "solo": true,
        "variant": v.name,
        "title": if v.title.is_empty() { v.name.clone() } else { v.title.clone() },
        "level": game.level_name(),
        "levels": rules.levels.iter().map(|l| l.name.clone()).collect::<Vec<_>>(),
        "seed": game.seed(),
        "raw": play.raw,
        "files": g.files,
        "ranks": g.ranks,
        "layers": layers,
        "states": rules.states,
        "squares": squares,
        "targets": targets.iter().map(|&s| v.square_name(s)).collect::<Vec<_>>(),
        "status": game.status().name(),
        "outcome": outcome,
        "ply": game.ply(),
        "strikes": game.strikes().into_iter().map(|s| v.square_name(s)).collect::<Vec<_>>(),
        "last": game.last().map(|(s, k)| json!({ "square": v.square_name(s), "kind": v.kind(k).name })),
        "layers_completed": game.layers_completed(),
        "score": score,
        "breakdown": breakdown(game, &score),
        "progress": progress(game),
        "clock": {
            "elapsed_ms": game.elapsed_ms(),
            "paused": play.watch.is_paused(),
            "can_pause": play.watch.can_pause(),
            "manual": manual,
            "rule": rule,
            "countdown_ms": countdown,
        },
        "events": events_json(v, game.last_events()),
        "rules_version": rules_version,
        "rules_note": note,
    })
}
