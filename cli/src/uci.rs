//! `varia uci`: the engine over the Universal Chess Interface, for every two-sided
//! variant. Moves are UCI's long algebraic notation with the extensions of
//! `notation::lan` (a landing choice `c4e6@d7`, `+x` for a returning frozen piece).
//!
//! Commands: `uci`, `isready`, `setoption` (`UCI_Variant`, `VariantPath`, `Level`,
//! `Hash`, `Clear Hash`, `Seed`), `ucinewgame`, `position startpos|fen … [moves …]`,
//! `go [depth N] [nodes N] [movetime MS] [wtime/btime/winc/binc MS] [movestogo N]
//! [infinite] [perft N]`, `stop`, `ponderhit` (taken as `stop`), `quit`, and `d` (the
//! board and FEN, as Fairy-Stockfish prints them). Unknown commands get an `info string`.

use std::path::PathBuf;
use std::sync::mpsc::channel;
use std::time::Duration;

use varia::notation::lan;
use varia::search::SearchResult;
use varia::{Game, Side};

use crate::Fail;
use crate::engine::{Limits, Msg, Session, out, read_lines};

#[derive(clap::Args)]
pub struct UciArgs {
    /// The variant to start with (UCI_Variant can change it); standard chess if none.
    variant: Option<String>,
    /// More folders of variants (each a variant folder or a folder of them), like the
    /// `VariantPath` option (repeatable).
    #[arg(long = "variant-path", value_name = "DIR")]
    variant_path: Vec<PathBuf>,
}

/// A score as UCI writes it.
fn score(r: &SearchResult) -> String {
    match r.mate {
        Some(m) => format!("mate {m}"),
        None => format!("cp {}", r.score),
    }
}

fn info(game: &Game, r: &SearchResult, elapsed: Duration) -> String {
    let v = game.variant();
    let ms = elapsed.as_millis().max(1);
    let pv: Vec<String> = r.pv.iter().map(|a| lan::format(v, a)).collect();
    format!(
        "info depth {} seldepth {} score {} nodes {} nps {} time {} pv {}",
        r.depth,
        r.seldepth.max(r.depth),
        score(r),
        r.nodes,
        r.nodes as u128 * 1000 / ms,
        elapsed.as_millis(),
        pv.join(" ")
    )
}

pub fn run(args: UciArgs) -> Result<(), Fail> {
    let mut s = Session::new(Some(args.variant.as_deref().unwrap_or("standard")), &args.variant_path)?;
    let (tx, rx) = channel::<Msg>();
    read_lines(tx.clone());
    // With `go infinite`, the best move waits for `stop`.
    let mut infinite = false;
    let mut held: Option<Option<SearchResult>> = None;
    let mut quitting = false;
    for msg in rx.iter() {
        match msg {
            Msg::Eof => {
                s.stop();
                quitting = true;
                if !s.searching() {
                    break;
                }
            }
            Msg::Done(r, table) => {
                s.finished(table);
                if infinite && !quitting {
                    held = Some(r);
                } else {
                    bestmove(&s.game, r.as_ref());
                }
                if quitting {
                    break;
                }
            }
            Msg::Line(line) => {
                let words: Vec<&str> = line.split_whitespace().collect();
                let Some(&cmd) = words.first() else { continue };
                match cmd {
                    "uci" => {
                        out(&format!("id name varia {}", env!("CARGO_PKG_VERSION")));
                        out("id author the varia authors");
                        options(&s);
                        out("uciok");
                    }
                    "isready" => out("readyok"),
                    "setoption" => {
                        if let Err(e) = setoption(&mut s, &line) {
                            out(&format!("info string error: {}", e.0));
                        }
                    }
                    "ucinewgame" => {
                        s.clear_hash();
                        s.game = Game::new(s.variant.clone());
                    }
                    "position" => {
                        if let Err(e) = position(&mut s, &words[1..]) {
                            out(&format!("info string error: {}", e.0));
                        }
                    }
                    "go" => {
                        if s.searching() {
                            out("info string error: already searching (send stop first)");
                            continue;
                        }
                        match parse_go(&s.game, &words[1..]) {
                            Ok(Go::Perft(d)) => perft(&s.game, d),
                            Ok(Go::Search(limits)) => {
                                infinite = limits.infinite;
                                held = None;
                                let game = s.game.clone();
                                let report = Box::new(move |r: &SearchResult, t: Duration| out(&info(&game, r, t)));
                                if let Err(e) = s.start(limits, tx.clone(), report) {
                                    out(&format!("info string error: {}", e.0));
                                }
                            }
                            Err(e) => out(&format!("info string error: {e}")),
                        }
                    }
                    "stop" | "ponderhit" => {
                        infinite = false;
                        if s.searching() {
                            s.stop();
                        } else if let Some(r) = held.take() {
                            bestmove(&s.game, r.as_ref());
                        }
                    }
                    "quit" => {
                        quitting = true;
                        s.stop();
                        if !s.searching() {
                            break;
                        }
                    }
                    "d" => {
                        for l in s.game.board_text().lines() {
                            out(l);
                        }
                        out(&format!("Fen: {}", s.game.fen()));
                    }
                    other => out(&format!("info string error: unknown command `{other}`")),
                }
            }
        }
    }
    Ok(())
}

fn bestmove(game: &Game, r: Option<&SearchResult>) {
    let v = game.variant();
    match r {
        Some(r) => {
            let ponder = r.pv.get(1).map(|a| format!(" ponder {}", lan::format(v, a))).unwrap_or_default();
            out(&format!("bestmove {}{ponder}", lan::format(v, &r.action)));
        }
        // No legal move (the game is over): UCI's null move.
        None => out("bestmove (none)"),
    }
}

fn options(s: &Session) {
    let current = varia::notation::names::protocol_names(&s.variant).uci;
    let vars: String = s.known.iter().map(|k| format!(" var {}", k.uci)).collect();
    out(&format!("option name UCI_Variant type combo default {current}{vars}"));
    out("option name VariantPath type string default <empty>");
    let levels: String = s.config.levels.iter().map(|(n, _)| format!(" var {n}")).collect();
    out(&format!("option name Level type combo default {}{levels}", s.level));
    out(&format!("option name Hash type spin default {} min 1 max 4096", s.hash_mb));
    out("option name Clear Hash type button");
    out("option name Seed type spin default 0 min 0 max 2147483647");
}

/// `setoption name NAME [value VALUE]` (names with spaces, values with spaces).
fn setoption(s: &mut Session, line: &str) -> Result<(), Fail> {
    let rest = line.trim().strip_prefix("setoption").unwrap_or("").trim();
    let rest = rest.strip_prefix("name").ok_or_else(|| Fail("setoption needs `name`".into()))?.trim();
    let (name, value) = match rest.split_once(" value ") {
        Some((n, v)) => (n.trim(), v.trim()),
        None => (rest.strip_suffix(" value").unwrap_or(rest).trim(), ""),
    };
    match name.to_ascii_lowercase().as_str() {
        "uci_variant" => {
            s.set_variant(value, false)?;
            out(&format!("info string variant {} ({})", s.variant.name, s.variant.title));
        }
        "variantpath" => {
            if value.is_empty() || value == "<empty>" {
                return Ok(());
            }
            for dir in std::env::split_paths(value) {
                let n = s.add_path(&dir)?;
                out(&format!("info string {n} variant(s) added from {}", dir.display()));
            }
            let vars: Vec<&str> = s.known.iter().map(|k| k.uci.as_str()).collect();
            out(&format!("info string variants: {}", vars.join(" ")));
        }
        "level" => s.set_level(value)?,
        "hash" => s.set_hash(value.parse().map_err(|_| Fail(format!("Hash is megabytes, not `{value}`")))?),
        "clear hash" => s.clear_hash(),
        "seed" => s.seed = value.parse().map_err(|_| Fail(format!("Seed is a whole number, not `{value}`")))?,
        // GUIs send these to every engine; they change nothing here.
        "ponder" | "uci_analysemode" | "uci_chess960" | "multipv" | "threads" => {}
        _ => return Err(Fail(format!("unknown option `{name}`"))),
    }
    Ok(())
}

/// `position startpos|fen FEN [moves …]`.
fn position(s: &mut Session, words: &[&str]) -> Result<(), Fail> {
    let moves_at = words.iter().position(|&w| w == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (words, &[][..]),
    };
    match head.first() {
        Some(&"startpos") => s.set_position(None, moves),
        Some(&"fen") if head.len() > 1 => s.set_position(Some(&head[1..].join(" ")), moves),
        _ => Err(Fail("position needs `startpos` or `fen FEN`".into())),
    }
}

enum Go {
    Search(Limits),
    Perft(u32),
}

fn parse_go(game: &Game, words: &[&str]) -> Result<Go, String> {
    let mut l = Limits::default();
    let mut i = 0;
    let num = |i: usize| -> Result<u64, String> {
        words
            .get(i + 1)
            .and_then(|w| w.parse::<i64>().ok())
            .map(|n| n.max(0) as u64)
            .ok_or_else(|| format!("`go {}` needs a number", words[i]))
    };
    let us = game.to_move();
    let mut any = false;
    while i < words.len() {
        let w = words[i];
        match w {
            "infinite" | "ponder" => l.infinite = true,
            "perft" => return Ok(Go::Perft(num(i)?.min(20) as u32)),
            "depth" => l.depth = Some(num(i)?.clamp(1, 64) as u32),
            "nodes" => l.nodes = Some(num(i)?.max(1)),
            "movetime" => l.movetime = Some(Duration::from_millis(num(i)?)),
            "wtime" | "btime" => {
                let t = Duration::from_millis(num(i)?);
                if (w == "wtime") == (us == Side::White) {
                    l.remaining = Some(t);
                }
            }
            "winc" | "binc" => {
                let t = Duration::from_millis(num(i)?);
                if (w == "winc") == (us == Side::White) {
                    l.increment = t;
                }
            }
            "movestogo" => l.moves_to_go = Some(num(i)?.clamp(1, 1000) as u32),
            "mate" => l.depth = Some((2 * num(i)?).clamp(1, 64) as u32),
            "searchmoves" => return Err("searchmoves is not supported".into()),
            other => return Err(format!("unknown `go` word `{other}`")),
        }
        any = true;
        i += if matches!(w, "infinite" | "ponder") { 1 } else { 2 };
    }
    // A bare `go` searches until `stop`, as in other engines.
    if !any {
        l.infinite = true;
    }
    Ok(Go::Search(l))
}

/// `go perft N`: the count below each move, then the total, as Fairy-Stockfish prints it.
fn perft(game: &Game, depth: u32) {
    let v = game.variant();
    let mut total = 0;
    for (a, n) in game.divide(depth.max(1)) {
        out(&format!("{}: {n}", lan::format(v, &a)));
        total += n;
    }
    out("");
    out(&format!("Nodes searched: {total}"));
}
