//! What `varia uci` and `varia xboard` share: the variants a session can play (shipped,
//! on the variant path, and from folders the GUI names), the current game, the level,
//! the hash table kept between moves, and the search running on a thread of its own
//! while the protocol keeps reading commands (so `stop`, `?`, `isready` and `quit` are
//! answered at once).
//!
//! Only variants with two sides alternating can be played; the others are left out of
//! the lists and refused by name.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use varia::notation::names;
use varia::search::{AiConfig, Clock, HashTable, Level, SearchResult, Think};
use varia::variant::{Origin, TurnModel};
use varia::{Action, Game, Variant};

use crate::Fail;

/// One line to the GUI, flushed at once (both protocols are line-based and a GUI waits
/// for each reply); a closed pipe is the GUI's business, not an error of ours.
pub fn out(line: &str) {
    let stdout = std::io::stdout();
    let mut o = stdout.lock();
    let _ = writeln!(o, "{line}");
    let _ = o.flush();
}

/// Called on the search thread after each iteration, with the time spent so far.
pub type Reporter = Box<dyn Fn(&SearchResult, Duration) + Send>;

/// A variant the session can play, and its names in the protocols.
#[derive(Clone)]
pub struct Known {
    pub origin: Origin,
    pub uci: String,
    pub xboard: String,
}

/// What the main loop hears: a line from the GUI, or the end of a search.
pub enum Msg {
    Line(String),
    /// The input ended.
    Eof,
    /// A search finished (or was stopped): its result (None: no legal action) and the
    /// table it used, handed back.
    Done(Option<SearchResult>, HashTable),
}

/// Sends each line of standard input as [`Msg::Line`], then [`Msg::Eof`], from a thread
/// of its own (both protocols read commands while a search runs).
pub fn read_lines(tx: Sender<Msg>) {
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if tx.send(Msg::Line(line)).is_err() {
                return;
            }
        }
        let _ = tx.send(Msg::Eof);
    });
}

/// How a search is limited (what `go` or the clocks say), on top of the level.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// A fixed time for this move.
    pub movetime: Option<Duration>,
    /// The side to move's clock, its increment and the moves until the next time control.
    pub remaining: Option<Duration>,
    pub increment: Duration,
    pub moves_to_go: Option<u32>,
    /// Search until told to stop.
    pub infinite: bool,
}

/// A safety margin for reading the clock, writing the move and the GUI's own delay.
const OVERHEAD: Duration = Duration::from_millis(30);
/// The margin under a fixed `movetime`: the search polls the clock every 256 nodes and
/// the move is written at once, so a few milliseconds suffice (and the rest is used).
const MOVETIME_MARGIN: Duration = Duration::from_millis(3);

impl Limits {
    /// When to stop starting iterations and when to stop, from now.
    pub fn clock(&self, now: Instant) -> Option<Clock> {
        if self.infinite {
            return None;
        }
        if let Some(m) = self.movetime {
            let d = now + m.saturating_sub(MOVETIME_MARGIN).max(Duration::from_millis(1));
            return Some(Clock::Deadline(d));
        }
        let left = self.remaining?;
        let usable = left.saturating_sub(OVERHEAD);
        // An even share of what is left over the moves to go (a guess of 30 in sudden
        // death), most of the increment; at most a third of the clock in one move.
        let share = usable / self.moves_to_go.unwrap_or(30).max(1) + self.increment * 3 / 4;
        let soft = share.min(usable / 3);
        let hard = (share * 3).min(usable / 3).max(soft);
        Some(Clock::Window {
            soft: now + soft.max(Duration::from_millis(1)),
            hard: now + hard.max(Duration::from_millis(1)),
        })
    }
}

pub struct Session {
    pub known: Vec<Known>,
    /// Folders named by the GUI or the command line, searched first (latest first).
    extra: Vec<PathBuf>,
    pub variant: Arc<Variant>,
    pub config: AiConfig,
    pub level: String,
    /// The position to start from and the game played from it.
    pub game: Game,
    pub hash_mb: usize,
    /// The table, while no search holds it.
    table: Option<HashTable>,
    /// The running search: its stop flag and thread.
    running: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    pub seed: u64,
}

/// Every two-sided variant in these folders (each a variant folder, or a folder of
/// them), then those of the variant path and the built-in ones.
pub fn scan(dirs: &[PathBuf]) -> Vec<Known> {
    let mut found: Vec<Origin> = Vec::new();
    for d in dirs {
        if d.join("variant.toml").is_file() {
            found.push(Origin::Folder(d.clone()));
            continue;
        }
        let Ok(entries) = std::fs::read_dir(d) else { continue };
        let mut here: Vec<PathBuf> =
            entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.join("variant.toml").is_file()).collect();
        here.sort();
        found.extend(here.into_iter().map(Origin::Folder));
    }
    found.extend(varia::variant::known_variants().into_iter().map(|f| f.origin));
    let mut out: Vec<Known> = Vec::new();
    for origin in found {
        let Ok(v) = Variant::load_origin(&origin, &[]) else { continue };
        if v.turns != TurnModel::Alternate {
            continue;
        }
        let n = names::protocol_names(&v);
        // The first variant to claim a protocol name keeps it; a later one answers to
        // its folder's name.
        let uci = if out.iter().any(|k| k.uci == n.uci) { v.name.clone() } else { n.uci };
        let xboard = if out.iter().any(|k| k.xboard == n.xboard) { v.name.clone() } else { n.xboard };
        if out.iter().any(|k| k.uci == uci || k.origin == origin) {
            continue;
        }
        out.push(Known { origin, uci, xboard });
    }
    out
}

impl Session {
    /// A session on `variant` (a name or folder; the first known variant if none).
    pub fn new(variant: Option<&str>, extra: &[PathBuf]) -> Result<Session, Fail> {
        let known = scan(extra);
        let v = match variant {
            Some(name) => load_playable(name)?,
            None => {
                let first = known.iter().find(|k| k.uci == "chess").or(known.first());
                let first = first.ok_or_else(|| Fail("no two-sided variant found on the variant path".into()))?;
                playable(Variant::load_origin(&first.origin, &[])?)?
            }
        };
        let config = AiConfig::from_variant(&v).map_err(varia::search::AiError::Config)?;
        Ok(Session {
            known,
            extra: extra.to_vec(),
            game: Game::new(v.clone()),
            variant: v,
            config,
            level: "master".into(),
            hash_mb: 16,
            table: Some(HashTable::with_megabytes(16)),
            running: None,
            seed: 0,
        })
    }

    /// Adds the variants of a folder (a variant folder or a folder of them).
    pub fn add_path(&mut self, dir: &Path) -> Result<usize, Fail> {
        if !dir.is_dir() {
            return Err(Fail(format!("{} is not a folder", dir.display())));
        }
        let before = self.known.len();
        self.extra.insert(0, dir.to_path_buf());
        self.known = scan(&self.extra);
        Ok(self.known.len().saturating_sub(before))
    }

    /// Switches to the variant a protocol calls `name` (or a variant name or folder):
    /// a new game from its setup.
    pub fn set_variant(&mut self, name: &str, xboard: bool) -> Result<(), Fail> {
        let found = self.known.iter().find(|k| if xboard { k.xboard == name } else { k.uci == name });
        let v = match found {
            Some(k) => playable(Variant::load_origin(&k.origin, &[])?)?,
            None => load_playable(name)?,
        };
        self.config = AiConfig::from_variant(&v).map_err(varia::search::AiError::Config)?;
        if self.config.level(&self.level).is_err() {
            self.level = self.config.levels.last().map(|(n, _)| n.clone()).unwrap_or_default();
        }
        self.game = Game::new(v.clone());
        self.variant = v;
        self.clear_hash();
        Ok(())
    }

    pub fn set_level(&mut self, name: &str) -> Result<(), Fail> {
        self.level = self.config.level_name(name).map_err(Fail)?.to_string();
        Ok(())
    }

    pub fn set_hash(&mut self, mb: usize) {
        self.hash_mb = mb.clamp(1, 4096);
        self.table = Some(HashTable::with_megabytes(self.hash_mb));
    }

    pub fn clear_hash(&mut self) {
        if let Some(t) = self.table.as_mut() {
            t.clear();
        }
    }

    /// The game from `fen` (or the setup) followed by protocol moves; on any error the
    /// current game is kept and the error says which move.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), Fail> {
        let mut g = match fen {
            Some(f) => Game::from_fen(self.variant.clone(), f).map_err(|e| Fail(format!("bad FEN: {e}")))?,
            None => Game::new(self.variant.clone()),
        };
        for (i, m) in moves.iter().enumerate() {
            play(&mut g, m).map_err(|e| Fail(format!("move {} (`{m}`): {e}", i + 1)))?;
        }
        self.game = g;
        Ok(())
    }

    pub fn searching(&self) -> bool {
        self.running.is_some()
    }

    /// Starts searching the current position; the result comes as [`Msg::Done`].
    /// `report` is called on the search thread after each iteration.
    pub fn start(&mut self, limits: Limits, done: Sender<Msg>, report: Reporter) -> Result<(), Fail> {
        self.stop();
        let mut level: Level = *self.config.level(&self.level).map_err(Fail)?;
        let clock = limits.clock(Instant::now());
        // Given a time or a node budget (or told to go on until `stop`), a level that
        // deepens is not held to its depth; `depth` given caps it, and the level keeps
        // its noise either way.
        if limits.infinite || clock.is_some() || limits.nodes.is_some() {
            level = level.given_time();
        }
        if limits.infinite || clock.is_some() {
            level.time_ms = 0;
        }
        if let Some(d) = limits.depth {
            level.depth = d.clamp(1, varia::search::config::MAX_DEPTH);
        }
        if let Some(n) = limits.nodes {
            level.nodes = n;
        }
        let game = self.game.clone();
        let config = self.config.clone();
        let mut table = self.table.take().unwrap_or_else(|| HashTable::with_megabytes(self.hash_mb));
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let seed = self.seed ^ (game.ply() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let handle = std::thread::spawn(move || {
            let t = Instant::now();
            let progress = |r: &SearchResult| report(r, t.elapsed());
            let think = Think {
                seed,
                clock: Some(clock.unwrap_or(Clock::Off)),
                stop: Some(&flag),
                progress: Some(&progress),
                table: Some(&mut table),
            };
            let r = game.think(&config, &level, think).ok();
            let _ = done.send(Msg::Done(r, table));
        });
        self.running = Some((stop, handle));
        Ok(())
    }

    /// Tells a running search to stop (its result still comes as `Done`).
    pub fn stop(&mut self) {
        if let Some((flag, _)) = &self.running {
            flag.store(true, Ordering::Relaxed);
        }
    }

    /// Takes back the table after `Done`, and forgets the finished search.
    pub fn finished(&mut self, table: HashTable) {
        if let Some((_, h)) = self.running.take() {
            let _ = h.join();
        }
        self.table = Some(table);
    }
}

/// A variant by name or folder, if it is played by two sides alternating.
pub fn load_playable(name: &str) -> Result<Arc<Variant>, Fail> {
    playable(Variant::load(name)?)
}

fn playable(v: Arc<Variant>) -> Result<Arc<Variant>, Fail> {
    if v.turns != TurnModel::Alternate {
        return Err(Fail(format!(
            "`{}` is a {} variant: engine protocols play two sides alternating only",
            v.name,
            v.turns.name()
        )));
    }
    Ok(v)
}

/// The legal action a protocol move names (`e2e4`, `e7e8q`, `c4e6@d7`; a castling may
/// also be named by the other square its variant gives it, `also_to`).
pub fn find(game: &Game, text: &str) -> Result<Action, String> {
    crate::uci_client::find(game, text)
}

/// Plays a protocol move. A `+x` it claims (the kind a frozen piece returns as) must
/// be what happens; otherwise the move is taken back and refused.
pub fn play(game: &mut Game, text: &str) -> Result<(), String> {
    let a = find(game, text)?;
    let events = game.apply(a).map_err(|e| e.to_string())?;
    let claimed = varia::notation::lan::parse(game.variant(), text).ok().and_then(|w| w.returned);
    if let Some(k) = claimed {
        let happened = events.iter().any(|e| matches!(e, varia::Event::Returned { to, .. } if *to == k));
        if !happened {
            game.undo(1);
            return Err(format!("no frozen piece returns as {} after it", game.variant().kind(k).name));
        }
    }
    Ok(())
}
