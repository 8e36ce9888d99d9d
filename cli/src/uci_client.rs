//! Another engine over UCI, as `varia match` drives it: start it, set its options and
//! variant, and ask for a move at a fixed time per move. Its output is read on a thread
//! of its own, so a silent or hung engine is noticed (and loses on time) instead of
//! hanging the match.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use varia::notation::{lan, names};
use varia::{Action, Game, Variant};

use crate::Fail;

/// How long an engine may take to answer `uci` or `isready`.
const HANDSHAKE: Duration = Duration::from_secs(10);

pub struct UciEngine {
    /// The command line it was started with (for messages).
    pub command: String,
    /// Its `id name`.
    pub name: String,
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    /// The variants its `UCI_Variant` option offers (empty: it has no such option).
    variants: Vec<String>,
}

/// What the engine said with its move.
pub struct UciMove {
    pub action: Action,
    /// Its last reported score, for the side to move, in centipawns (a mate is ±(100,000
    /// minus its distance)).
    pub score: Option<i32>,
    pub depth: Option<u32>,
}

/// Why an engine's move could not be had.
pub enum UciFailure {
    /// It did not answer within the time (plus a margin).
    Time,
    /// It answered with something that is not a legal move here.
    Illegal(String),
    /// It stopped, or its output could not be read.
    Gone(String),
}

impl UciEngine {
    /// Starts `command` (split at spaces), sets `options` (`name=value`) and waits until
    /// it is ready.
    pub fn start(command: &str, options: &[String]) -> Result<UciEngine, Fail> {
        let mut parts = command.split_whitespace();
        let program =
            parts.next().ok_or_else(|| Fail("`uci:` needs an engine command, like uci:fairy-stockfish".into()))?;
        let mut child = Command::new(program)
            .args(parts)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| Fail(format!("cannot start the engine `{command}`: {e}")))?;
        let input = child.stdin.take().expect("piped");
        let output = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = UciEngine {
            command: command.to_string(),
            name: command.to_string(),
            child,
            input,
            lines,
            variants: Vec::new(),
        };
        e.send("uci")?;
        let deadline = Instant::now() + HANDSHAKE;
        loop {
            let line = e
                .line_before(deadline)
                .map_err(|_| Fail(format!("the engine `{command}` did not answer `uci` with `uciok`")))?;
            if let Some(n) = line.strip_prefix("id name ") {
                e.name = n.trim().to_string();
            } else if line.starts_with("option name UCI_Variant ") {
                e.variants = combo_values(&line);
            } else if line.trim() == "uciok" {
                break;
            }
        }
        for o in options {
            let (name, value) = o
                .split_once('=')
                .ok_or_else(|| Fail(format!("an engine option is NAME=VALUE (like \"Skill Level=5\"), not `{o}`")))?;
            e.send(&format!("setoption name {} value {}", name.trim(), value.trim()))?;
        }
        e.ready()?;
        Ok(e)
    }

    fn send(&mut self, text: &str) -> Result<(), Fail> {
        writeln!(self.input, "{text}")
            .and_then(|_| self.input.flush())
            .map_err(|e| Fail(format!("the engine `{}` stopped: {e}", self.command)))
    }

    fn line_before(&self, deadline: Instant) -> Result<String, RecvTimeoutError> {
        self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now()))
    }

    fn ready(&mut self) -> Result<(), Fail> {
        self.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE;
        loop {
            match self.line_before(deadline) {
                Ok(l) if l.trim() == "readyok" => return Ok(()),
                Ok(_) => {}
                Err(_) => return Err(Fail(format!("the engine `{}` did not answer `isready`", self.command))),
            }
        }
    }

    /// Tells the engine which variant is played (UCI_Variant), or refuses a variant it
    /// does not offer.
    pub fn set_variant(&mut self, v: &Variant) -> Result<(), Fail> {
        let name = names::protocol_names(v).uci;
        if self.variants.contains(&name) {
            self.send(&format!("setoption name UCI_Variant value {name}"))?;
        } else if !(self.variants.is_empty() && name == "chess") {
            return Err(Fail(format!(
                "the engine `{}` does not play `{name}` (UCI_Variant offers: {})",
                self.command,
                if self.variants.is_empty() { "nothing".to_string() } else { self.variants.join(", ") }
            )));
        }
        self.ready()
    }

    /// A new game begins.
    pub fn new_game(&mut self) -> Result<(), Fail> {
        self.send("ucinewgame")?;
        self.ready()
    }

    /// The engine's move in `game` (played from `start_fen`), thinking `movetime`.
    pub fn play(&mut self, game: &Game, start_fen: &str, movetime: Duration) -> Result<UciMove, UciFailure> {
        let v = game.variant();
        let moves: Vec<String> = game.history().iter().map(|a| lan::format(v, a)).collect();
        let position = if moves.is_empty() {
            format!("position fen {start_fen}")
        } else {
            format!("position fen {start_fen} moves {}", moves.join(" "))
        };
        let gone = |e: Fail| UciFailure::Gone(e.0);
        self.send(&position).map_err(gone)?;
        self.send(&format!("go movetime {}", movetime.as_millis().max(1))).map_err(gone)?;
        // A margin for the engine's own overhead, and for a loaded machine.
        let deadline = Instant::now() + movetime * 3 + Duration::from_secs(2);
        let (mut score, mut depth) = (None, None);
        loop {
            let line = self.search_line(deadline)?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => {
                    let w: Vec<&str> = line.split_whitespace().collect();
                    if let Some(i) = w.iter().position(|&x| x == "depth") {
                        depth = w.get(i + 1).and_then(|d| d.parse().ok()).or(depth);
                    }
                    score = info_score(&line).or(score);
                }
                Some("bestmove") => {
                    let text = words.next().unwrap_or("");
                    let action = find(game, text).map_err(UciFailure::Illegal)?;
                    return Ok(UciMove { action, score, depth });
                }
                _ => {}
            }
        }
    }

    /// The engine's score of the position `fen` searched to `depth` plies: centipawns
    /// for the side to move, a mate as in [`UciMove::score`], None if it gave none.
    pub fn score_at_depth(&mut self, fen: &str, depth: u32) -> Result<Option<i32>, UciFailure> {
        let gone = |e: Fail| UciFailure::Gone(e.0);
        self.send(&format!("position fen {fen}")).map_err(gone)?;
        self.send(&format!("go depth {depth}")).map_err(gone)?;
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut score = None;
        loop {
            let line = self.search_line(deadline)?;
            if line.starts_with("info") {
                score = info_score(&line).or(score);
            } else if line.starts_with("bestmove") {
                return Ok(score);
            }
        }
    }

    /// The next line of a search started with `go`. Past `deadline` the engine is asked
    /// to stop and its late answer drained, so the next search starts clean.
    fn search_line(&mut self, deadline: Instant) -> Result<String, UciFailure> {
        match self.line_before(deadline) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => {
                let _ = self.send("stop");
                let _ = self.wait_bestmove(Instant::now() + Duration::from_secs(2));
                Err(UciFailure::Time)
            }
            Err(RecvTimeoutError::Disconnected) => Err(UciFailure::Gone("its output ended".into())),
        }
    }

    fn wait_bestmove(&self, deadline: Instant) -> Option<()> {
        loop {
            let l = self.line_before(deadline).ok()?;
            if l.starts_with("bestmove") {
                return Some(());
            }
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.input.flush();
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The score of an `info` line, in centipawns for the side to move (a mate in n moves
/// is ±(100,000 − n)).
fn info_score(line: &str) -> Option<i32> {
    let w: Vec<&str> = line.split_whitespace().collect();
    let i = w.iter().position(|&x| x == "score")?;
    match (w.get(i + 1), w.get(i + 2).and_then(|n| n.parse::<i32>().ok())) {
        (Some(&"cp"), Some(n)) => Some(n),
        (Some(&"mate"), Some(n)) => Some(if n > 0 { 100_000 - n } else { -100_000 - n }),
        _ => None,
    }
}

/// The values of a UCI combo option line (`option name X type combo default d var a var b`).
fn combo_values(line: &str) -> Vec<String> {
    line.split(" var ").skip(1).map(|v| v.trim().to_string()).collect()
}

/// The legal action a protocol move names.
pub fn find(game: &Game, text: &str) -> Result<Action, String> {
    let v = game.variant();
    let w = lan::parse(v, text).map_err(|e| e.to_string())?;
    let found: Vec<Action> = game
        .legal_actions()
        .into_iter()
        // A move written without a promotion names the unpromoted one (`e7e8` is not
        // `e7e8q`; shogi's `a6a7` stays unpromoted, `a6a7+` promotes).
        .filter(|a| w.names(a) && (w.promotion.is_some() || w.plus || a.promotion.is_none()))
        .filter(|a| w.landing.is_none() || a.landing == w.landing)
        .collect();
    match found.as_slice() {
        [a] => Ok(*a),
        [] => match game.parse_action(&format!("{}-{}", v.square_name(w.from), v.square_name(w.to))) {
            // A castling named by another square of its own (`also_to`).
            Ok(a) if matches!(a.kind, varia::ActionKind::Castle(_)) && w.promotion.is_none() => Ok(a),
            _ => Err(format!("`{text}` is not a legal move in {}", game.fen())),
        },
        _ => {
            let choices: Vec<String> = found.iter().map(|a| lan::format(v, a)).collect();
            Err(format!("`{text}` is ambiguous here: {}", choices.join(" or ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Moves as Fairy-Stockfish writes them, each matched to the one legal action it names.
    #[test]
    fn finds_fairy_stockfish_texts() {
        let game = |v: &str, fen: &str| Game::from_fen(varia::Variant::load(v).unwrap(), fen).unwrap();
        let found = |g: &Game, t: &str| find(g, t).map(|a| g.format(&a));
        // Minishogi: a pawn on the last rank must promote, written `+` (FEN `+P`).
        let g = game("minishogi", "1bsgk/P3p/5/5/KGSBR[] w - - 0 1");
        assert_eq!(found(&g, "a4a5+").unwrap(), "a4-a5=T");
        assert!(found(&g, "a4a5").unwrap_err().contains("is not a legal move"));
        // Shogi: into the zone the promotion is optional; without `+` the pawn stays.
        let g = game("shogi", "lnsgkgsnl/1r5b1/1pppppppp/P8/9/9/1PPPPPPPP/1B5R1/LNSGKGSNL[] w - - 0 1");
        let plain = found(&g, "a6a7").unwrap();
        let promoted = found(&g, "a6a7+").unwrap();
        assert_eq!(plain, "a6-a7");
        assert!(promoted.starts_with("a6-a7="), "{promoted}");
        // Seirawan: a gating is the entering kind's letter; without it nothing enters.
        let g = game("seirawan", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQK2R[EHeh] w KQABCDEHkqabcdefgh - 0 1");
        assert_eq!(found(&g, "b1c3h").unwrap(), "b1-c3/H");
        assert_eq!(found(&g, "b1c3").unwrap(), "b1-c3");
        assert_eq!(found(&g, "h1e1e").unwrap(), "e1-g1/Eh1");
        assert_eq!(found(&g, "e1g1e").unwrap(), "e1-g1/E");
        assert_eq!(found(&g, "e1g1").unwrap(), "e1-g1");
        // Standard: `e7e8` names no promotion, so it is not a move; `e7e8q` is.
        let g = game("standard", "8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
        assert!(found(&g, "e7e8").is_err());
        assert_eq!(found(&g, "e7e8q").unwrap(), "e7-e8=Q");
    }

    #[test]
    fn combo_lists_its_values() {
        assert_eq!(
            combo_values("option name UCI_Variant type combo default chess var chess var capablanca var grand"),
            ["chess", "capablanca", "grand"]
        );
    }
}
