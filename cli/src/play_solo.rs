//! `varia play` on a solo board (`[turns] model = "solo"`, Chessic): the board with each
//! square's hit layer and piece, the gold targets, the running score part by part,
//! pause and resume (the clock stops, the board is hidden), undo, a hint from the
//! solver, the end (forged, cooled, out of time) with the final score, and the How to
//! Play text from the variant's README.md (`help rules`).
//!
//! Time comes from a [`ClockSource`]: the system clock, or with `--clock manual` a clock
//! that only `wait SECONDS` moves (for scripted sessions and tests). The readings go
//! through the runtime's `Stopwatch` into `SoloGame::set_elapsed`, so the status and
//! the time score follow the rules' clock. Duels (`duel.rs`) play sessions of this panel.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use varia::Variant;
use varia::search::solo::{Limits, Verdict, solve};
use varia::solo::{Forge, SoloGame, Status, Stopwatch, TimeRule};

use crate::Fail;
use crate::solo::{score_line, seconds};

/// The hint's search: a short one (positions first, so that it is the same on every
/// machine when the board is small; the time bounds it on a big board).
const HINT_NODES: u64 = 200_000;
const HINT_TIME: Duration = Duration::from_secs(2);

/// What `varia play` passes for a solo board.
pub struct SoloOptions {
    pub level: Option<String>,
    pub seed: u64,
    pub board: Option<String>,
    pub raw: bool,
    pub clock: String,
}

/// Where the panel's time comes from, in milliseconds from any origin.
pub trait ClockSource {
    fn now_ms(&self) -> u64;
    /// `wait SECONDS`: lets time pass (only a manual clock can).
    fn wait(&mut self, ms: u64) -> Result<(), String>;
}

/// The system's monotonic clock.
struct SystemClock(Instant);

impl ClockSource for SystemClock {
    fn now_ms(&self) -> u64 {
        self.0.elapsed().as_millis() as u64
    }
    fn wait(&mut self, _: u64) -> Result<(), String> {
        Err("`wait` is for --clock manual; the system clock runs by itself".into())
    }
}

/// A clock that stands still until told to move (`wait`).
struct ManualClock(u64);

impl ClockSource for ManualClock {
    fn now_ms(&self) -> u64 {
        self.0
    }
    fn wait(&mut self, ms: u64) -> Result<(), String> {
        self.0 = self.0.saturating_add(ms);
        Ok(())
    }
}

/// `--clock system` (the default) or `--clock manual`.
pub fn clock_source(name: &str) -> Result<Box<dyn ClockSource>, Fail> {
    match name {
        "system" => Ok(Box::new(SystemClock(Instant::now()))),
        "manual" => Ok(Box::new(ManualClock(0))),
        other => Err(Fail(format!("--clock is `system` or `manual` (time moves only with `wait`), not `{other}`"))),
    }
}

/// The board a session starts from: dealt from a seed or given as text.
pub fn start_game(
    forge: &Arc<Forge>,
    level: Option<&str>,
    seed: Option<u64>,
    board: Option<&str>,
    raw: bool,
) -> Result<SoloGame, Fail> {
    let level = match level {
        Some(l) => forge.level(l)?,
        None => 0,
    };
    match (board, seed) {
        (Some(text), _) => {
            Ok(SoloGame::new(forge.clone(), level, varia::solo::SoloBoard::parse(&forge.variant, text)?))
        }
        (None, Some(seed)) => deal(forge, level, seed, raw),
        (None, None) => Err(Fail("give the board with --board \"…\" or a seed with --seed S".into())),
    }
}

fn deal(forge: &Arc<Forge>, level: usize, seed: u64, raw: bool) -> Result<SoloGame, Fail> {
    let name = &forge.rules().levels[level].name;
    if !raw && forge.rules().generation.guarantee_forgeable {
        eprintln!("dealing the board of seed {seed} at {name} (checking that it can be forged)…");
    }
    Ok(varia::search::solo::deal(forge, level, seed, raw)?)
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionEnd {
    /// The board is over (a duel's session ends there).
    Over,
    /// The player quit, or the input ended.
    Quit,
}

/// What a command asks of the session.
enum Next {
    Continue,
    Quit,
}

/// One player at one board.
pub struct Panel {
    forge: Arc<Forge>,
    pub game: SoloGame,
    /// The board as dealt (`restart` returns to it).
    start: SoloGame,
    watch: Stopwatch,
    seed: Option<u64>,
    raw: bool,
    /// A duel: no hint, no new board, no restart.
    duel: bool,
    color: bool,
    /// The end has been announced (once per end).
    announced: bool,
}

const HELP: &str = "\
Type a square to strike it (c3): the first strike anywhere, then a gold target (*).
  board              the board again
  targets            the gold targets
  score              the score, part by part
  pause / resume     stop and restart the clock (the board is hidden while paused)
  undo [N]           take back the last strike (or N)
  hint               the solver's suggestion for the next strike (a short search)
  new [SEED]         a new board: the next seed, or SEED
  restart            this board again from the start (the clock starts again)
  wait SECONDS       with --clock manual: let that much time pass
  help rules         how to play
  help | quit";

const DUEL_HELP: &str = "\
A duel: type a square to strike it (c3): the first strike anywhere, then a gold
target (*). Your turn ends when the board does (forged, cooled, or out of time).
  board | targets | score      the board, the gold targets, the score
  pause / resume     when the duel allows it ([duel] pause)
  undo [N]           take back the last strike (or N); the countdown runs on
  wait SECONDS       with --clock manual: let that much time pass
  help rules         how to play
  help | quit        (quitting abandons the duel)";

fn superscript(n: u8) -> char {
    ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'][n.min(9) as usize]
}

impl Panel {
    pub fn new(game: SoloGame, seed: Option<u64>, raw: bool, duel: bool, clock: &dyn ClockSource) -> Panel {
        let watch = Stopwatch::for_game(&game, clock.now_ms());
        let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        Panel {
            forge: game.forge().clone(),
            start: game.clone(),
            game,
            watch,
            seed,
            raw,
            duel,
            color,
            announced: false,
        }
    }

    fn variant(&self) -> &Variant {
        &self.forge.variant
    }

    /// Reads the clock into the game; announces a countdown that ran out.
    fn tick(&mut self, clock: &dyn ClockSource, out: &mut dyn Write) {
        match self.watch.elapsed(clock.now_ms()) {
            Ok(played) => self.game.set_elapsed(played),
            Err(e) => {
                let _ = writeln!(out, "clock: {e}");
            }
        }
        self.announce_end(out);
    }

    fn announce_end(&mut self, out: &mut dyn Write) {
        if self.game.status() == Status::Playing {
            self.announced = false;
            return;
        }
        if self.announced {
            return;
        }
        self.announced = true;
        let why = match self.game.status() {
            Status::Forged => "Board complete: every square is cleared, the board is forged.",
            Status::Cooled => {
                "The forge cooled: no gold target is left. The score counts, but the board is not forged."
            }
            Status::OutOfTime => "Time is up: the countdown ran out.",
            Status::Playing => unreachable!("checked above"),
        };
        let _ = writeln!(out, "{why}");
        let _ = writeln!(out, "Final score: {}", score_line(&self.game));
    }

    fn names(&self, squares: &[varia::Square]) -> String {
        squares.iter().map(|&s| self.variant().square_name(s)).collect::<Vec<_>>().join(" ")
    }

    /// The board: each square its piece with its hits (`B¹`), gold targets marked `*`.
    fn board_lines(&self, out: &mut dyn Write) {
        let v = self.variant();
        let geo = v.geometry;
        let targets = self.game.targets();
        for rank in (0..geo.ranks).rev() {
            let mut line = format!("{:>2} ", rank + 1);
            for file in 0..geo.files {
                let sq = varia::Square(rank * geo.files + file);
                let cell = match self.game.shown(sq) {
                    None => " .. ".to_string(),
                    Some(k) => {
                        let text = format!("{}{}", v.kind(k).letter, superscript(self.game.hits(sq)));
                        match (targets.contains(&sq), self.color) {
                            (true, true) => format!("\x1b[1;33m*{text}\x1b[0m "),
                            (true, false) => format!("*{text} "),
                            (false, _) => format!(" {text} "),
                        }
                    }
                };
                line.push_str(&cell);
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        let files: String = (0..geo.files).map(|f| format!("  {} ", (b'a' + f) as char)).collect();
        let _ = writeln!(out, "   {}", files.trim_end());
        let states = &self.forge.rules().states;
        let mut legend: Vec<String> = states
            .iter()
            .take(states.len().saturating_sub(1))
            .enumerate()
            .map(|(h, name)| format!("{} {name}", superscript(h as u8)))
            .collect();
        legend.push(format!(".. {}", states.last().map_or("cleared", String::as_str)));
        legend.push("* gold target".into());
        let _ = writeln!(out, "hits: {}", legend.join("  "));
    }

    /// The score, the chain and bonuses in progress, and the clock.
    fn score_lines(&self, out: &mut dyn Write) {
        let g = &self.game;
        let v = self.variant();
        let _ = writeln!(out, "score: {}", score_line(g));
        let s = g.score();
        let mut parts = vec![match s.chain {
            Some((k, n)) => format!("chain {} ×{n}", v.kind(k).name),
            None => "chain none".into(),
        }];
        if let Some(rules) = &v.scoring {
            for (r, n) in rules.runs.iter().zip(&s.runs) {
                parts.push(format!("{} run {} of {}", r.name, n % r.every, r.every));
            }
            for (q, n) in rules.sequences.iter().zip(&s.sequences) {
                parts.push(format!("{} {} of {}", q.name, n, q.kinds.len()));
            }
        }
        let _ = writeln!(out, "{}", parts.join(" · "));
        let played = self.watch.played();
        let time = match g.time_rule() {
            TimeRule::Countdown(d) => {
                let left = d.countdown_ms.saturating_sub(g.elapsed_ms()) / 1000;
                format!("countdown: {left} s left, bonus {}", g.time_points())
            }
            TimeRule::Score(_) => format!("time: {} s played, time score {}", played / 1000, g.time_points()),
            TimeRule::None => format!("time: {} s played", played / 1000),
        };
        let paused = if self.watch.is_paused() { " (paused)" } else { "" };
        let _ = writeln!(out, "{time}{paused}");
    }

    /// The whole panel: the board (hidden while paused), targets, score, clock.
    pub fn draw(&self, out: &mut dyn Write) {
        let v = self.variant();
        let title = if v.title.is_empty() { v.name.clone() } else { v.title.clone() };
        let board = match self.seed {
            Some(s) if self.raw => format!("seed {s} (raw)"),
            Some(s) => format!("seed {s}"),
            None => "a given board".into(),
        };
        let duel = if self.duel { " · duel" } else { "" };
        let _ = writeln!(out, "{title} · {} · {board}{duel}", self.game.level_name());
        if self.watch.is_paused() {
            let _ = writeln!(out, "The forge is paused: the board is hidden and the clock stopped. Type `resume`.");
            self.score_lines(out);
            return;
        }
        self.board_lines(out);
        let g = &self.game;
        if g.status() == Status::Playing {
            let targets = g.targets();
            match g.last() {
                None => {
                    let _ = writeln!(out, "first strike: any unfinished square");
                }
                Some((sq, k)) => {
                    let _ = writeln!(
                        out,
                        "last strike: the {} on {}; gold targets ({}): {}",
                        v.kind(k).name,
                        v.square_name(sq),
                        targets.len(),
                        self.names(&targets)
                    );
                }
            }
        }
        self.score_lines(out);
    }

    fn hint(&self, out: &mut dyn Write) {
        let s = solve(&self.game, Limits { nodes: Some(HINT_NODES), time: Some(HINT_TIME) });
        let v = self.variant();
        let first = |r: &[varia::Square]| r.first().map(|&q| v.square_name(q));
        let line = match (s.verdict, first(&s.route), first(&s.best)) {
            (Verdict::Forged, Some(q), _) => {
                format!("hint: strike {q} (the solver found a route that forges the board)")
            }
            (Verdict::Impossible, _, Some(q)) => {
                format!("hint: no route forges the board from here; strike {q} for the best score found")
            }
            (Verdict::Undecided, _, Some(q)) => {
                format!("hint: strike {q} (the best route found in a short search; forging is undecided)")
            }
            _ => "hint: no strike helps from here".into(),
        };
        let _ = writeln!(out, "{line}");
    }

    fn new_board(&mut self, arg: Option<&str>, clock: &dyn ClockSource, out: &mut dyn Write) -> Result<(), Fail> {
        let seed = match (arg, self.seed) {
            (Some(a), _) => match a.parse::<u64>() {
                Ok(s) => s,
                Err(_) => {
                    let _ = writeln!(out, "`{a}` is not a seed (a whole number, 0 or more)");
                    return Ok(());
                }
            },
            (None, Some(s)) => match s.checked_add(1) {
                Some(n) => n,
                None => {
                    let _ = writeln!(out, "there is no seed after {s}: give one, `new 0`");
                    return Ok(());
                }
            },
            (None, None) => {
                let _ = writeln!(out, "this board was given with --board: `new SEED` deals the board of a seed");
                return Ok(());
            }
        };
        let g = deal(&self.forge, self.game.level(), seed, self.raw)?;
        *self = Panel::new(g, Some(seed), self.raw, self.duel, clock);
        let _ = writeln!(out, "new board: seed {seed}");
        self.draw(out);
        Ok(())
    }

    /// Handles one line.
    fn command(&mut self, line: &str, clock: &mut dyn ClockSource, out: &mut dyn Write) -> Result<Next, Fail> {
        let mut words = line.split_whitespace();
        let Some(word) = words.next() else { return Ok(Next::Continue) };
        let arg = words.next();
        let paused = self.watch.is_paused();
        let over = self.game.status() != Status::Playing;
        match word.to_ascii_lowercase().as_str() {
            "quit" | "exit" | "q" => return Ok(Next::Quit),
            "help" | "?" if arg.is_some_and(|a| a.eq_ignore_ascii_case("rules")) => {
                let _ = writeln!(out, "{}", how_to_play(self.variant()));
            }
            "help" | "?" => {
                let _ = writeln!(out, "{}", if self.duel { DUEL_HELP } else { HELP });
            }
            "board" => self.draw(out),
            "targets" | "moves" if paused => {
                let _ = writeln!(out, "the forge is paused: type `resume` first");
            }
            "targets" | "moves" => {
                let t = self.game.targets();
                let _ =
                    writeln!(out, "{} gold target{}: {}", t.len(), if t.len() == 1 { "" } else { "s" }, self.names(&t));
            }
            "score" => self.score_lines(out),
            "pause" => match self.watch.pause(clock.now_ms()) {
                Ok(played) => {
                    self.game.set_elapsed(played);
                    let _ = writeln!(out, "paused after {} s of play; type `resume` to go on", played / 1000);
                    self.draw(out);
                }
                Err(e) => {
                    let _ = writeln!(out, "pause refused: {e}");
                }
            },
            "resume" => match self.watch.resume(clock.now_ms()) {
                Ok(_) => {
                    let _ = writeln!(out, "resumed");
                    self.draw(out);
                }
                Err(e) => {
                    let _ = writeln!(out, "resume refused: {e}");
                }
            },
            "undo" => {
                let n = match arg.map(str::parse::<usize>) {
                    None => 1,
                    Some(Ok(n)) if n >= 1 => n,
                    Some(_) => {
                        let _ = writeln!(out, "undo takes a number of strikes (1 or more), e.g. `undo 2`");
                        return Ok(Next::Continue);
                    }
                };
                if paused {
                    let _ = writeln!(out, "the forge is paused: type `resume` first");
                    return Ok(Next::Continue);
                }
                let done = self.game.undo(n);
                self.tick(clock, out);
                let _ = writeln!(out, "took back {done} strike{}", if done == 1 { "" } else { "s" });
                self.draw(out);
            }
            "hint" if self.duel => {
                let _ = writeln!(out, "no hints in a duel");
            }
            "hint" if paused => {
                let _ = writeln!(out, "the forge is paused: type `resume` first");
            }
            "hint" if over => {
                let _ = writeln!(out, "the board is over: `undo`, `restart` or `new`");
            }
            "hint" => self.hint(out),
            "new" | "restart" if self.duel => {
                let _ = writeln!(out, "a duel is played on one board to its end");
            }
            "new" => self.new_board(arg, clock, out)?,
            "restart" => {
                *self = Panel::new(self.start.clone(), self.seed, self.raw, self.duel, clock);
                let _ = writeln!(out, "the same board from the start; the clock starts again");
                self.draw(out);
            }
            "wait" => {
                let ms = match arg.map(seconds) {
                    Some(Ok(ms)) => ms,
                    Some(Err(e)) => {
                        let _ = writeln!(out, "{}", e.0);
                        return Ok(Next::Continue);
                    }
                    None => {
                        let _ = writeln!(out, "wait how long? e.g. `wait 12.5` (seconds)");
                        return Ok(Next::Continue);
                    }
                };
                match clock.wait(ms) {
                    Ok(()) => {
                        let _ = writeln!(out, "{}.{} s pass", ms / 1000, ms % 1000 / 100);
                        self.tick(clock, out);
                    }
                    Err(e) => {
                        let _ = writeln!(out, "{e}");
                    }
                }
            }
            _ if paused => {
                let _ = writeln!(out, "the forge is paused: type `resume` first");
            }
            _ => self.strike(word, out),
        }
        Ok(Next::Continue)
    }

    fn strike(&mut self, text: &str, out: &mut dyn Write) {
        let sq = match self.forge.square(text) {
            Ok(sq) => sq,
            Err(e) => {
                let _ = writeln!(out, "{e} (type `help` for the commands)");
                return;
            }
        };
        match self.game.strike(sq) {
            Ok(events) => {
                let v = &self.forge.variant;
                let lines: Vec<String> = events
                    .iter()
                    .filter(|e| !matches!(e, varia::solo::SoloEvent::Ended { .. }))
                    .map(|e| e.describe(v))
                    .collect();
                let _ = writeln!(out, "{}", lines.join("; "));
                self.draw(out);
                self.announce_end(out);
            }
            Err(e) => {
                let t = self.game.targets();
                let hint = if t.is_empty() { String::new() } else { format!(" (gold targets: {})", self.names(&t)) };
                let _ = writeln!(out, "{e}{hint}");
            }
        }
    }

    fn prompt(&self) -> &'static str {
        if self.watch.is_paused() {
            "paused> "
        } else if self.game.status() == Status::Playing {
            "strike> "
        } else {
            "over> "
        }
    }
}

/// The How to Play text: the `How to Play` section of the variant's README.md.
pub fn how_to_play(v: &Variant) -> String {
    let missing = format!("{} has no How to Play text (a `## How to Play` section in its folder's README.md)", v.name);
    let Some(text) = v.document("README.md") else { return missing };
    let mut lines = text.lines();
    let Some(level) = lines.by_ref().find_map(|l| {
        let hashes = l.chars().take_while(|&c| c == '#').count();
        (hashes > 0 && l[hashes..].trim().eq_ignore_ascii_case("how to play")).then_some(hashes)
    }) else {
        return missing;
    };
    let body: Vec<&str> = lines
        .take_while(|l| {
            let hashes = l.chars().take_while(|&c| c == '#').count();
            hashes == 0 || hashes > level || !l[hashes..].starts_with(' ')
        })
        .collect();
    body.join("\n").trim().to_string()
}

/// Reads lines into the panel until the player quits or the input ends; in a duel,
/// also when the board is over.
pub fn session(
    panel: &mut Panel,
    clock: &mut dyn ClockSource,
    lines: &mut dyn Iterator<Item = std::io::Result<String>>,
    out: &mut dyn Write,
    who: &str,
) -> Result<SessionEnd, Fail> {
    let interactive = std::io::stdin().is_terminal();
    loop {
        if panel.duel && panel.game.status() != Status::Playing {
            return Ok(SessionEnd::Over);
        }
        let _ = write!(out, "{who}{}", panel.prompt());
        let _ = out.flush();
        let Some(line) = lines.next() else {
            let _ = writeln!(out);
            return Ok(SessionEnd::Quit);
        };
        let line = line.map_err(|e| Fail(e.to_string()))?;
        if !interactive {
            // Piped input: echo it, so a transcript reads like a session.
            let _ = writeln!(out, "{line}");
        }
        panel.tick(clock, out);
        if let Next::Quit = panel.command(&line, clock, out)? {
            return Ok(SessionEnd::Quit);
        }
    }
}

/// `varia play` on a solo variant.
pub fn run(variant: Arc<Variant>, o: SoloOptions) -> Result<(), Fail> {
    let forge = Forge::new(variant)?;
    let mut clock = clock_source(&o.clock)?;
    let seed = if o.board.is_some() { None } else { Some(o.seed) };
    let game = start_game(&forge, o.level.as_deref(), seed, o.board.as_deref(), o.raw)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut panel = Panel::new(game, seed, o.raw, false, clock.as_ref());
    let _ = writeln!(out, "Type `help` for the commands, `help rules` for how to play.");
    panel.draw(&mut out);
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    session(&mut panel, clock.as_mut(), &mut lines, &mut out, "")?;
    Ok(())
}
