//! `varia play`: a game in the terminal, with the control panel of the rules documents:
//! game mode and play-as (changing either restarts), AI level (changes the AI's next move,
//! no restart), manual move entry, undo (up to 4 plies), copy and paste of the move list
//! (system clipboard when one is found, else a file), one saved-state slot, reset.
//!
//! Everything is line-based on stdin, so a session can be scripted:
//! `printf 'e2-e5\nundo\nquit\n' | varia play decachess --as both`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use varia::search::Clock;
use varia::variant::Override;
use varia::{Event, Game, Side, Variant};

use crate::Fail;

#[derive(clap::Args)]
pub struct PlayArgs {
    /// A variant name or folder.
    variant: String,
    /// The computer player's level (a name from the variant's [ai.levels]).
    #[arg(long, default_value = "veteran")]
    ai: String,
    /// The sides you play: white or black (against the AI), both (two humans at one
    /// keyboard), none (watch the AI play itself).
    #[arg(long = "as", default_value = "white")]
    play_as: String,
    /// Seed of the AI's randomness (the same seed and moves give the same game).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Override values of the variant (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Stop an AI-only game after this many plies.
    #[arg(long, default_value_t = 400)]
    max_plies: usize,
    /// Start from this position instead of the variant's setup (reset returns to it,
    /// and pasted move lists are played from it).
    #[arg(long)]
    fen: Option<String>,
    /// Solo boards: the level (its pool and rules); default: the variant's first. With
    /// a solo board, --seed deals the board.
    #[arg(long)]
    level: Option<String>,
    /// Solo boards: the board as text, one stack per square a1, b1, … (instead of --seed).
    #[arg(long, conflicts_with = "fen")]
    board: Option<String>,
    /// Solo boards: deal the seed's raw board, even if it cannot be forged.
    #[arg(long)]
    raw: bool,
    /// Solo boards: where time comes from, system or manual (time moves only with
    /// `wait SECONDS`, for scripted sessions).
    #[arg(long, default_value = "system")]
    clock: String,
}

/// Who plays which side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PlayAs {
    White,
    Black,
    Both,
    None,
}

impl PlayAs {
    fn parse(s: &str) -> Option<PlayAs> {
        Some(match s {
            "white" | "w" => PlayAs::White,
            "black" | "b" => PlayAs::Black,
            "both" => PlayAs::Both,
            "none" => PlayAs::None,
            _ => return None,
        })
    }
    fn name(self) -> &'static str {
        match self {
            PlayAs::White => "white",
            PlayAs::Black => "black",
            PlayAs::Both => "both",
            PlayAs::None => "none",
        }
    }
    fn human(self, side: Side) -> bool {
        match self {
            PlayAs::White => side == Side::White,
            PlayAs::Black => side == Side::Black,
            PlayAs::Both => true,
            PlayAs::None => false,
        }
    }
    /// The game mode this implies: against the AI, or between humans.
    fn mode(self) -> &'static str {
        if self == PlayAs::Both { "humans" } else { "ai" }
    }
}

struct Panel {
    variant: Arc<Variant>,
    /// Where the game starts (and `reset` returns): the setup, or `--fen`.
    start: Game,
    game: Game,
    play_as: PlayAs,
    level: String,
    seed: u64,
    max_plies: usize,
}

const HELP: &str = "\
Type a move from-to (e2-e4, a promotion e7-e8=Q, a shot b3-b5, castling as the king's
move) or in SAN (e4, Nf3, exd5, e8=Q, O-O), or:
  mode ai|humans     game mode: against the AI, or two humans (restarts the game)
  as white|black|both|none   the sides you play (restarts the game)
  level NAME         the AI's level, e.g. novice, veteran, master (from its next move; no restart)
  undo               take back up to 4 plies
  copy               copy the move list to the clipboard (or a file if there is none)
  paste              replace the game with the move list on the clipboard (or in that file)
  save / load        the one saved-state slot (saving again overwrites it)
  save FILE.pgn      write the game as PGN;  load FILE.pgn  replace the game with its first game
  reset              restart now
  inspect SQUARE     a piece's hit points, damage and auras
  board | moves | help | quit";

/// Where varia keeps its files for a user: `$VARIA_DATA_DIR`, else the platform's data
/// folder (`$XDG_DATA_HOME/varia`, `~/.local/share/varia`, `~/Library/Application
/// Support/varia`, `%APPDATA%\varia`).
pub(crate) fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("VARIA_DATA_DIR") {
        return PathBuf::from(d);
    }
    if cfg!(windows) {
        if let Some(a) = std::env::var_os("APPDATA") {
            return PathBuf::from(a).join("varia");
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
    if cfg!(target_os = "macos") {
        return home.join("Library/Application Support/varia");
    }
    match std::env::var_os("XDG_DATA_HOME") {
        Some(x) if !x.is_empty() => PathBuf::from(x).join("varia"),
        _ => home.join(".local/share/varia"),
    }
}

/// The system clipboard through the platform's tools, or a file when there is none
/// (or when `VARIA_CLIPBOARD=file`). Returns where the text went or came from.
mod clipboard {
    use super::*;

    const WRITERS: &[(&str, &[&str])] = &[
        ("wl-copy", &[]),
        ("xclip", &["-selection", "clipboard"]),
        ("xsel", &["--clipboard", "--input"]),
        ("pbcopy", &[]),
        ("clip.exe", &[]),
    ];
    const READERS: &[(&str, &[&str])] = &[
        ("wl-paste", &["--no-newline"]),
        ("xclip", &["-selection", "clipboard", "-o"]),
        ("xsel", &["--clipboard", "--output"]),
        ("pbpaste", &[]),
        ("powershell.exe", &["-command", "Get-Clipboard"]),
    ];

    fn forced_file() -> bool {
        std::env::var("VARIA_CLIPBOARD").is_ok_and(|v| v == "file")
    }

    pub fn file() -> PathBuf {
        data_dir().join("clipboard.txt")
    }

    pub fn copy(text: &str) -> Result<String, Fail> {
        if !forced_file() {
            for (cmd, args) in WRITERS {
                let Ok(mut child) = Command::new(cmd).args(*args).stdin(Stdio::piped()).stderr(Stdio::null()).spawn()
                else {
                    continue;
                };
                let ok = child.stdin.take().is_some_and(|mut i| i.write_all(text.as_bytes()).is_ok());
                if ok && child.wait().is_ok_and(|s| s.success()) {
                    return Ok(format!("the clipboard ({cmd})"));
                }
            }
        }
        let f = file();
        std::fs::create_dir_all(f.parent().unwrap()).map_err(|e| Fail(format!("{}: {e}", f.display())))?;
        std::fs::write(&f, text).map_err(|e| Fail(format!("{}: {e}", f.display())))?;
        Ok(format!("{} (no system clipboard found)", f.display()))
    }

    pub fn paste() -> Result<(String, String), Fail> {
        if !forced_file() {
            for (cmd, args) in READERS {
                if let Ok(out) = Command::new(cmd).args(*args).stderr(Stdio::null()).output()
                    && out.status.success()
                {
                    return Ok((String::from_utf8_lossy(&out.stdout).into_owned(), format!("the clipboard ({cmd})")));
                }
            }
        }
        let f = file();
        let text = std::fs::read_to_string(&f).map_err(|e| {
            Fail(format!("no system clipboard found, and {} cannot be read ({e}); use `copy` first", f.display()))
        })?;
        Ok((text, f.display().to_string()))
    }
}

/// The saved-state slot of a variant: `<data folder>/<name>/save.json`. The loader only
/// accepts identifiers as names; this refuses anything else too (a variant built by an
/// embedder), so no name can put the file outside the data folder.
fn slot_path(data: &std::path::Path, name: &str) -> Result<PathBuf, Fail> {
    if !varia::variant::is_name(name) {
        return Err(Fail(format!(
            "`{}` is not a variant name: it cannot name a saved-game folder",
            name.escape_debug()
        )));
    }
    Ok(data.join(name).join("save.json"))
}

impl Panel {
    fn save_file(&self) -> Result<PathBuf, Fail> {
        slot_path(&data_dir(), &self.variant.name)
    }

    fn restart(&mut self) {
        self.game = self.start.clone();
    }

    /// The board with the state a player needs: whose turn, check, graveyards, frozen
    /// and waiting pieces, the last move.
    fn draw(&self, out: &mut impl Write) {
        let v = &self.variant;
        let g = &self.game;
        let _ = write!(out, "{}", g.board_text());
        let setup = g.setup();
        let has_graveyards = v.kinds.iter().any(|k| k.promotion.as_ref().is_some_and(|p| p.from_graveyard));
        if has_graveyards || setup.graveyard.iter().flatten().any(|&n| n > 0) {
            for side in Side::BOTH {
                let mut list = Vec::new();
                for (k, &n) in setup.graveyard[side.index()].iter().enumerate().take(v.kinds.len()) {
                    for _ in 0..n {
                        list.push(v.letter(varia::Piece::new(varia::KindId(k as u8), side)).to_string());
                    }
                }
                let shown = if list.is_empty() { "-".to_string() } else { list.join(" ") };
                let _ = writeln!(out, "{side} graveyard: {shown}");
            }
        }
        let names = |l: &[varia::Square]| l.iter().map(|&s| v.square_name(s)).collect::<Vec<_>>().join(", ");
        if !setup.frozen.is_empty() {
            let _ = writeln!(out, "frozen (oldest first): {}", names(&setup.frozen));
        }
        if !setup.waiting.is_empty() {
            let _ = writeln!(out, "waiting a turn: {}", names(&setup.waiting));
        }
        if v.combat.is_some() {
            // What the original shows as glows: damage multipliers (a dot per stack) and
            // the guard that halves damage.
            let mut boosted: std::collections::BTreeMap<_, Vec<varia::Square>> = Default::default();
            let mut guarded = Vec::new();
            for (sq, _) in g.pieces() {
                let Some(st) = g.piece_state(sq) else { continue };
                if st.stacks > 0 {
                    boosted.entry((st.stacks, st.multiplier)).or_default().push(sq);
                }
                if st.guarded {
                    guarded.push(sq);
                }
            }
            for ((stacks, multiplier), squares) in &boosted {
                let dots = "•".repeat(*stacks as usize);
                let _ = writeln!(out, "damage ×{multiplier} {dots} ({stacks} stack(s)): {}", names(squares));
            }
            if !guarded.is_empty() {
                let _ = writeln!(out, "guarded (half damage): {}", names(&guarded));
            }
        }
        if let Some([w, b]) = g.points() {
            let _ = writeln!(out, "points: white {w}, black {b}");
        }
        if g.ply() > 0 {
            let _ = writeln!(out, "moves: {}", recent(&g.moves_san()));
        }
        if let Some(last) = g.last_action_text() {
            let _ = writeln!(out, "last move: {last}");
        }
        let castling = castling_moves(g);
        if !castling.is_empty() {
            let _ = writeln!(out, "castling: {}", castling.join(", "));
        }
        match g.outcome() {
            Some(o) => {
                let _ = writeln!(out, "game over: {}", o.describe());
            }
            None => {
                let check = crate::check_note(g);
                let _ = writeln!(out, "{} to move{check}", g.to_move());
            }
        }
    }

    /// Plays the AI's moves while it is the AI's turn.
    fn ai_turns(&mut self, out: &mut impl Write) -> Result<(), Fail> {
        let mut played = 0;
        while self.game.outcome().is_none() && !self.play_as.human(self.game.to_move()) {
            if self.play_as == PlayAs::None && self.game.ply() >= self.max_plies {
                let _ = writeln!(out, "stopped after {} plies (--max-plies)", self.max_plies);
                return Ok(());
            }
            let side = self.game.to_move();
            let t = Instant::now();
            let seed = self.seed.wrapping_add(self.game.ply() as u64);
            let r = self.game.best_action(&self.level, seed, Clock::Budget(t)).map_err(|e| Fail(e.to_string()))?;
            let text = self.game.format(&r.action);
            let san = self.game.san(&r.action);
            let events = self.game.apply(r.action)?;
            let note = returned_suffix(&self.game, &events);
            let _ = writeln!(
                out,
                "{side} ({}) plays {text}{note} ({san})   [depth {}, {} nodes, {} ms]",
                self.level,
                r.depth,
                r.nodes,
                t.elapsed().as_millis()
            );
            for e in event_lines(&self.variant, &events) {
                let _ = writeln!(out, "  {e}");
            }
            played += 1;
        }
        if played > 0 {
            self.draw(out);
        }
        Ok(())
    }

    /// Handles one line of input; returns false to quit.
    fn command(&mut self, line: &str, out: &mut impl Write) -> Result<bool, Fail> {
        let mut words = line.split_whitespace();
        let Some(word) = words.next() else { return Ok(true) };
        let arg = words.next();
        match word.to_ascii_lowercase().as_str() {
            "quit" | "exit" | "q" => return Ok(false),
            "help" | "?" => {
                let _ = writeln!(out, "{HELP}");
            }
            "board" => self.draw(out),
            "inspect" | "i" => match arg.map(|a| self.variant.geometry.parse(a)) {
                Some(Ok(sq)) => {
                    let _ = writeln!(out, "{}", inspect(&self.game, sq));
                }
                Some(Err(e)) => {
                    let _ = writeln!(out, "{e}");
                }
                None => {
                    let _ = writeln!(out, "inspect what? e.g. `inspect e4`");
                }
            },
            "moves" => {
                let list: Vec<String> = match self.game.try_legal_actions() {
                    Ok(l) => l.iter().map(|a| self.game.action_text(a)).collect(),
                    Err(e) => {
                        let _ = writeln!(out, "{e}");
                        return Ok(true);
                    }
                };
                let _ = writeln!(out, "{} legal: {}", list.len(), list.join(" "));
                let castling = castling_moves(&self.game);
                if !castling.is_empty() {
                    let _ = writeln!(out, "castling: {}", castling.join(", "));
                }
            }
            "mode" => {
                let play_as = match arg {
                    Some("ai") if self.play_as == PlayAs::Both => PlayAs::White,
                    Some("ai") => self.play_as,
                    Some("humans") => PlayAs::Both,
                    _ => {
                        let _ = writeln!(out, "mode is `ai` or `humans` (now: {})", self.play_as.mode());
                        return Ok(true);
                    }
                };
                self.play_as = play_as;
                self.restart();
                let _ = writeln!(out, "mode {} (you play {}): new game", play_as.mode(), play_as.name());
                self.draw(out);
            }
            "as" => match arg.and_then(PlayAs::parse) {
                Some(p) => {
                    self.play_as = p;
                    self.restart();
                    let _ = writeln!(out, "you play {} (mode {}): new game", p.name(), p.mode());
                    self.draw(out);
                }
                None => {
                    let _ = writeln!(out, "as: white, black, both or none (now: {})", self.play_as.name());
                }
            },
            "level" => match arg {
                Some(l) => match level_name(&self.variant, l) {
                    Ok(l) => {
                        let _ = writeln!(out, "AI level {l}: from its next move");
                        self.level = l;
                    }
                    Err(e) => {
                        let _ = writeln!(out, "{e}");
                    }
                },
                None => {
                    let _ = writeln!(out, "AI level: {}", self.level);
                }
            },
            "undo" => {
                let n = self.game.undo(4);
                let _ = writeln!(out, "took back {n} pl{}", if n == 1 { "y" } else { "ies" });
                self.draw(out);
            }
            "copy" => {
                let text = self.game.moves_text();
                let where_ = clipboard::copy(&text)?;
                let _ = writeln!(out, "copied {} moves to {where_}", self.game.ply());
            }
            "paste" => {
                let (text, from) = clipboard::paste()?;
                if text.trim().is_empty() {
                    let _ = writeln!(
                        out,
                        "paste refused: {from} holds no moves (copy a move list first); the current game is kept"
                    );
                    return Ok(true);
                }
                match self.start.then_moves(&text) {
                    Ok(g) => {
                        let n = g.ply();
                        self.game = g;
                        let _ = writeln!(out, "pasted {n} moves from {from}: the game was replaced");
                        self.draw(out);
                    }
                    Err(e) => {
                        let _ = writeln!(out, "paste refused ({e}); the current game is kept");
                    }
                }
            }
            "save" if arg.is_some_and(is_pgn) => {
                let f = PathBuf::from(arg.unwrap_or_default());
                let mut record = self.game.to_pgn(&[]);
                record.set_tag("Event", "varia play");
                let human =
                    |side| if self.play_as.human(side) { "human".to_string() } else { format!("varia {}", self.level) };
                record.set_tag("White", human(Side::White));
                record.set_tag("Black", human(Side::Black));
                match std::fs::write(&f, varia::notation::pgn::write(&record)) {
                    Ok(()) => {
                        let _ = writeln!(out, "wrote {} plies as PGN to {}", self.game.ply(), f.display());
                    }
                    Err(e) => {
                        let _ = writeln!(out, "save refused: {}: {e}", f.display());
                    }
                }
            }
            "load" if arg.is_some_and(is_pgn) => {
                let f = PathBuf::from(arg.unwrap_or_default());
                let loaded = std::fs::read_to_string(&f)
                    .map_err(|e| e.to_string())
                    .and_then(|t| Game::from_pgn_text(self.variant.clone(), &t, 1).map_err(|e| e.to_string()));
                match loaded {
                    Ok(g) => {
                        self.game = g;
                        let _ = writeln!(out, "loaded {} plies from {}", self.game.ply(), f.display());
                        self.draw(out);
                    }
                    Err(e) => {
                        let _ = writeln!(out, "load refused: {}: {e}; the current game is kept", f.display());
                    }
                }
            }
            "save" => {
                let f = self.save_file()?;
                let state = json!({
                    "panel": {"mode": self.play_as.mode(), "as": self.play_as.name(), "level": self.level, "seed": self.seed},
                    "game": self.game.snapshot(),
                });
                std::fs::create_dir_all(f.parent().unwrap()).map_err(|e| Fail(format!("{}: {e}", f.display())))?;
                std::fs::write(&f, serde_json::to_string_pretty(&state).unwrap())
                    .map_err(|e| Fail(format!("{}: {e}", f.display())))?;
                let _ = writeln!(out, "saved to {} (the one slot; saving again overwrites it)", f.display());
            }
            "load" => {
                let f = self.save_file()?;
                match load_state(&self.variant, &f) {
                    Ok((game, play_as, level)) => {
                        self.game = game;
                        self.play_as = play_as;
                        self.level = level;
                        let _ = writeln!(
                            out,
                            "loaded {} (you play {}, AI level {})",
                            f.display(),
                            self.play_as.name(),
                            self.level
                        );
                        self.draw(out);
                    }
                    Err(e) => {
                        let _ = writeln!(out, "load refused: {e}; the current game is kept");
                    }
                }
            }
            "reset" => {
                self.restart();
                let _ = writeln!(out, "new game");
                self.draw(out);
            }
            _ => {
                if !self.play_as.human(self.game.to_move()) && self.game.outcome().is_none() {
                    let _ = writeln!(out, "it is the AI's turn");
                    return Ok(true);
                }
                match self.game.play(line.trim()) {
                    Ok(events) => {
                        for e in event_lines(&self.variant, &events) {
                            let _ = writeln!(out, "  {e}");
                        }
                        self.draw(out);
                    }
                    Err(e) => {
                        let _ = writeln!(out, "{e} (type `help` for commands, `moves` for the legal moves)");
                    }
                }
            }
        }
        Ok(true)
    }
}

/// A file name for PGN (`game.pgn`), not the saved-state slot.
fn is_pgn(arg: &str) -> bool {
    arg.to_ascii_lowercase().ends_with(".pgn")
}

/// The end of a numbered SAN move list, within about 100 characters: `… 31. Nf3 Nc6`.
fn recent(moves: &str) -> String {
    const WIDTH: usize = 100;
    if moves.chars().count() <= WIDTH {
        return moves.to_string();
    }
    let words: Vec<&str> = moves.split(' ').collect();
    // The earliest move number (`31.`, `31...`) from which the rest fits.
    let mut len = 0;
    let mut start = words.len() - 1;
    for (i, w) in words.iter().enumerate().rev() {
        len += w.chars().count() + 1;
        if len > WIDTH {
            break;
        }
        if w.ends_with('.') {
            start = i;
        }
    }
    format!("… {}", words[start..].join(" "))
}

/// A piece's details: hit points, damage, auras (stacks and their sources, spent or not;
/// the king's guard), waiting or frozen.
fn inspect(g: &Game, sq: varia::Square) -> String {
    let v = g.variant();
    let Some(st) = g.piece_state(sq) else { return format!("{} is empty", v.square_name(sq)) };
    let kind = v.kind(st.piece.kind);
    let mut lines = vec![format!("{} {} on {}", st.piece.side, kind.name, v.square_name(sq))];
    if let (Some(hp), Some(max)) = (st.hp, st.max_hp) {
        let mut l = format!("  {hp}/{max} HP, damage {}", st.damage);
        if st.aoe > 0 {
            let shape = kind.stats.aoe_shape.and_then(|i| v.combat.as_ref().map(|c| c.shapes[i].name.clone()));
            l.push_str(&format!(", area {} ({})", st.aoe, shape.unwrap_or_default()));
        }
        if kind.stats.counter > 0 {
            l.push_str(&format!(", strikes back for {}", kind.stats.counter));
        }
        lines.push(l);
        if !st.sources.is_empty() {
            let srcs: Vec<String> = st
                .sources
                .iter()
                .map(|&(s, spent)| format!("{}{}", v.square_name(s), if spent { " (spent)" } else { "" }))
                .collect();
            lines.push(format!("  {} stack(s): damage ×{} (sources: {})", st.stacks, st.multiplier, srcs.join(", ")));
        }
        if st.guarded {
            let out =
                if st.outside_plies > 0 { format!(", {} ply out of range", st.outside_plies) } else { String::new() };
            lines.push(format!("  guarded: takes half damage{out}"));
        }
    }
    if st.waiting {
        lines.push("  waiting: it cannot act until its side's turn is over".into());
    }
    if st.frozen {
        lines.push("  frozen: it returns as its side's next lost piece".into());
    }
    lines.join("\n")
}

/// An action's events in words, one line each: the text of the playground's log
/// ([`Event::describe`]). The end of the game is left out: the board under it says so.
pub(crate) fn event_lines(v: &Variant, events: &[Event]) -> Vec<String> {
    events.iter().filter(|e| !matches!(e, Event::Ended { .. })).map(|e| e.describe(v)).collect()
}

/// " +N" when a frozen piece returned after this action, for the move's text.
fn returned_suffix(g: &Game, events: &[Event]) -> String {
    let v = g.variant();
    events
        .iter()
        .filter_map(|e| match e {
            Event::Returned { to, .. } => Some(format!("+{}", v.kind(*to).letter)),
            _ => None,
        })
        .collect()
}

/// The castling moves the side to move may make now, as `e1-c1 (or e1-b1)` when the
/// variant names another square for it.
fn castling_moves(g: &Game) -> Vec<String> {
    let v = g.variant();
    g.legal_actions()
        .iter()
        .filter_map(|a| match a.kind {
            varia::ActionKind::Castle(i) => {
                let c = &v.castling[i as usize];
                let also: Vec<String> =
                    c.also_to.iter().map(|&s| format!("{}-{}", v.square_name(c.king), v.square_name(s))).collect();
                let text = g.format(a);
                Some(if also.is_empty() { text } else { format!("{text} (or {})", also.join(", ")) })
            }
            _ => None,
        })
        .collect()
}

/// The AI level named `name` (in any case), as the variant spells it.
fn level_name(v: &Variant, name: &str) -> Result<String, String> {
    let config = varia::search::AiConfig::from_variant(v)
        .map_err(|p| p.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("\n"))?;
    config.level_name(name).map(str::to_string)
}

/// A saved slot: the game and the panel settings. Anything wrong is an error, and the
/// caller keeps its current game.
fn load_state(v: &Arc<Variant>, f: &PathBuf) -> Result<(Game, PlayAs, String), String> {
    let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e} (nothing saved yet?)", f.display()))?;
    let state: Value = serde_json::from_str(&text).map_err(|e| format!("{}: not valid JSON: {e}", f.display()))?;
    let panel = state.get("panel").ok_or_else(|| format!("{}: no `panel`", f.display()))?;
    let play_as = panel
        .get("as")
        .and_then(Value::as_str)
        .and_then(PlayAs::parse)
        .ok_or_else(|| format!("{}: panel.as must be white, black, both or none", f.display()))?;
    let level = panel.get("level").and_then(Value::as_str).unwrap_or("veteran");
    let level = level_name(v, level).map_err(|e| format!("{}: panel.level: {e}", f.display()))?;
    let game = Game::restore(v.clone(), state.get("game").unwrap_or(&Value::Null))
        .map_err(|e| format!("{}: {e}", f.display()))?;
    Ok((game, play_as, level))
}

pub fn run(args: PlayArgs) -> Result<(), Fail> {
    let overrides = args.set.iter().map(|s| s.parse()).collect::<Result<Vec<Override>, _>>()?;
    let variant = Variant::load_with(&args.variant, &overrides)?;
    if variant.turns == varia::variant::TurnModel::Solo {
        if args.fen.is_some() {
            return Err(Fail(format!("`{}` is a solo variant: give --board or --seed, not --fen", variant.name)));
        }
        let o = crate::play_solo::SoloOptions {
            level: args.level,
            seed: args.seed,
            board: args.board,
            raw: args.raw,
            clock: args.clock,
        };
        return crate::play_solo::run(variant, o);
    }
    if args.level.is_some() || args.board.is_some() || args.raw {
        return Err(Fail(format!(
            "--level, --board and --raw are for solo boards; `{}` is played by two sides (its AI level is --ai)",
            variant.name
        )));
    }
    let play_as = PlayAs::parse(&args.play_as)
        .ok_or_else(|| Fail(format!("--as must be white, black, both or none, not `{}`", args.play_as)))?;
    let level = level_name(&variant, &args.ai).map_err(Fail)?;
    let start = match &args.fen {
        None => Game::with_seed(variant.clone(), args.seed),
        Some(f) => Game::from_fen_seeded(variant.clone(), f, args.seed).map_err(|e| Fail(format!("bad FEN: {e}")))?,
    };
    let mut panel =
        Panel { game: start.clone(), start, variant, play_as, level, seed: args.seed, max_plies: args.max_plies };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let title = if panel.variant.title.is_empty() { panel.variant.name.clone() } else { panel.variant.title.clone() };
    let _ = writeln!(
        out,
        "{title}: you play {} (mode {}), AI level {}. Type `help` for the commands.",
        panel.play_as.name(),
        panel.play_as.mode(),
        panel.level
    );
    panel.draw(&mut out);
    panel.ai_turns(&mut out)?;
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let mut lines = stdin.lock().lines();
    loop {
        if panel.play_as == PlayAs::None {
            // Watching: the AI played until the end (or the ply limit).
            let _ = writeln!(out, "(watching; `as white` to play, `quit` to leave)");
        }
        let prompt = match panel.game.outcome() {
            Some(_) => "game over> ".to_string(),
            None => format!("{}> ", panel.game.to_move()),
        };
        let _ = write!(out, "{prompt}");
        let _ = out.flush();
        let Some(line) = lines.next() else {
            let _ = writeln!(out);
            return Ok(());
        };
        let line = line.map_err(|e| Fail(e.to_string()))?;
        if !interactive {
            // Piped input: echo it, so a transcript reads like a session.
            let _ = writeln!(out, "{line}");
        }
        if !panel.command(&line, &mut out)? {
            return Ok(());
        }
        panel.ai_turns(&mut out)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_save_slot_stays_in_the_data_folder() {
        let data = std::path::Path::new("/data/varia");
        assert_eq!(slot_path(data, "decachess").ok(), Some(data.join("decachess/save.json")));
        for hostile in ["../../x", "/tmp/x", "..", "", "a/b", "a\\b", "x\0y"] {
            assert!(slot_path(data, hostile).is_err(), "{hostile:?}");
        }
    }

    #[test]
    fn long_move_lists_are_cut_at_a_move_number() {
        assert_eq!(recent("1. e4 e5 2. Nf3"), "1. e4 e5 2. Nf3");
        let long: String = (1..=40).map(|n| format!("{n}. Nf3 Nf6 ")).collect::<String>().trim_end().to_string();
        let r = recent(&long);
        // Each full move is 12 characters: the last eight fit in 100 (8 * 12 - 1 = 95).
        assert_eq!(r, format!("… {}", (33..=40).map(|n| format!("{n}. Nf3 Nf6")).collect::<Vec<_>>().join(" ")));
    }
}
