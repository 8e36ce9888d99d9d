//! `varia xboard`: the engine over the XBoard/CECP protocol (version 2), for every
//! two-sided variant. Moves are coordinates as in UCI (`e2e4`, `e7e8q`, with the
//! extensions of `notation::lan`); `usermove` and `setboard` are on.
//!
//! Commands: `xboard`, `protover`, `accepted`/`rejected`, `new`, `variant`, `setboard`,
//! `usermove`, `go`, `playother`, `force`, `?` (move now), `time`, `otim`, `level`, `st`,
//! `sd`, `ping`, `result`, `undo`, `remove`, `post`/`nopost`, `hard`/`easy`, `quit`;
//! other known words (`random`, `computer`, `name`, `rating`, `draw`…) are ignored.

use std::path::PathBuf;
use std::sync::mpsc::channel;
use std::sync::{Arc, atomic::AtomicBool, atomic::Ordering};
use std::time::Duration;

use varia::notation::lan;
use varia::search::SearchResult;
use varia::{Game, GameResult, Reason, Side};

use crate::Fail;
use crate::engine::{Limits, Msg, Session, out, play, read_lines};

#[derive(clap::Args)]
pub struct XboardArgs {
    /// The variant `new` starts (`variant` can change it); standard chess if none.
    variant: Option<String>,
    /// More folders of variants (repeatable).
    #[arg(long = "variant-path", value_name = "DIR")]
    variant_path: Vec<PathBuf>,
}

/// How the engine is told to spend time.
#[derive(Clone, Copy, Default)]
struct Control {
    /// Our clock and the opponent's.
    ours: Option<Duration>,
    /// `level MPS BASE INC`: moves per session (0: all), increment.
    moves_per_session: u32,
    increment: Duration,
    /// `st`: seconds a move.
    per_move: Option<Duration>,
    /// `sd`: a depth limit.
    depth: Option<u32>,
}

struct Xboard {
    s: Session,
    default_variant: String,
    force: bool,
    /// The side the engine plays.
    engine: Side,
    control: Control,
    post: Arc<AtomicBool>,
}

/// The result line for a finished game (`1-0 {White mates}`).
fn result_line(game: &Game) -> Option<String> {
    let o = game.outcome()?;
    let text = match o.result {
        GameResult::Win(Side::White) => "1-0",
        GameResult::Win(Side::Black) => "0-1",
        GameResult::Draw => "1/2-1/2",
    };
    let why = match (o.reason.clone(), o.result) {
        (Reason::Checkmate, GameResult::Win(Side::White)) => "White mates".to_string(),
        (Reason::Checkmate, GameResult::Win(Side::Black)) => "Black mates".to_string(),
        _ => o.describe(),
    };
    Some(format!("{text} {{{why}}}"))
}

impl Xboard {
    fn new_game(&mut self) -> Result<(), Fail> {
        let name = self.default_variant.clone();
        self.s.set_variant(&name, true)?;
        self.force = false;
        self.engine = Side::Black;
        self.control.depth = None;
        Ok(())
    }

    fn limits(&self) -> Limits {
        let mut l = Limits { depth: self.control.depth, ..Limits::default() };
        if let Some(t) = self.control.per_move {
            l.movetime = Some(t);
        } else if let Some(t) = self.control.ours {
            l.remaining = Some(t);
            l.increment = self.control.increment;
            if self.control.moves_per_session > 0 {
                let played = (self.s.game.setup().fullmove.saturating_sub(1)) % self.control.moves_per_session;
                l.moves_to_go = Some(self.control.moves_per_session - played);
            }
        } else if l.depth.is_none() {
            l.movetime = Some(Duration::from_secs(5));
        }
        l
    }

    /// Starts thinking if it is the engine's turn and the game goes on.
    fn maybe_think(&mut self, tx: &std::sync::mpsc::Sender<Msg>) {
        if self.force || self.s.searching() || self.s.game.outcome().is_some() || self.s.game.to_move() != self.engine {
            return;
        }
        let post = self.post.clone();
        let v = self.s.variant.clone();
        let report = Box::new(move |r: &SearchResult, t: Duration| {
            if post.load(Ordering::Relaxed) {
                let score = match r.mate {
                    Some(m) if m > 0 => 100_000 + m,
                    Some(m) => -100_000 + m,
                    None => r.score,
                };
                let pv: Vec<String> = r.pv.iter().map(|a| lan::format(&v, a)).collect();
                out(&format!("{} {score} {} {} {}", r.depth, t.as_millis() / 10, r.nodes, pv.join(" ")));
            }
        });
        if let Err(e) = self.s.start(self.limits(), tx.clone(), report) {
            out(&format!("Error (cannot think): {}", e.0));
        }
    }
}

pub fn run(args: XboardArgs) -> Result<(), Fail> {
    let first = args.variant.clone().unwrap_or_else(|| "standard".into());
    let s = Session::new(Some(&first), &args.variant_path)?;
    let default_variant = varia::notation::names::protocol_names(&s.variant).xboard;
    let mut x = Xboard {
        s,
        default_variant,
        force: false,
        engine: Side::Black,
        control: Control::default(),
        post: Arc::new(AtomicBool::new(false)),
    };
    let (tx, rx) = channel::<Msg>();
    read_lines(tx.clone());
    let mut quitting = false;
    // A search whose move is not wanted (after `force`, `undo`, a new position).
    let mut discard = false;
    for msg in rx.iter() {
        match msg {
            Msg::Eof => {
                quitting = true;
                x.s.stop();
                if !x.s.searching() {
                    break;
                }
            }
            Msg::Done(r, table) => {
                x.s.finished(table);
                if quitting {
                    break;
                }
                if std::mem::take(&mut discard) {
                    continue;
                }
                if let Some(r) = r {
                    let text = lan::format(x.s.variant.as_ref(), &r.action);
                    if x.s.game.apply(r.action).is_ok() {
                        out(&format!("move {text}"));
                        if let Some(l) = result_line(&x.s.game) {
                            out(&l);
                        }
                    }
                }
            }
            Msg::Line(line) => {
                let words: Vec<&str> = line.split_whitespace().collect();
                let Some(&cmd) = words.first() else { continue };
                let arg = words.get(1).copied().unwrap_or("");
                // Commands that change the game wait for no search: a running one is
                // stopped and its move dropped.
                let changes =
                    matches!(cmd, "new" | "variant" | "setboard" | "force" | "undo" | "remove" | "result" | "usermove");
                if changes && x.s.searching() {
                    x.s.stop();
                    discard = true;
                }
                match cmd {
                    "xboard" | "accepted" | "rejected" | "random" | "computer" | "name" | "rating" | "ics" | "draw"
                    | "hard" | "easy" | "otim" | "nps" | "cores" | "memory" | "egtpath" | "option" | "bk" | "hint"
                    | "." | "exit" | "analyze" => {}
                    "protover" => {
                        let vars: Vec<&str> = x.s.known.iter().map(|k| k.xboard.as_str()).collect();
                        out(&format!(
                            "feature myname=\"varia {}\" variants=\"{}\" setboard=1 usermove=1 ping=1 sigint=0 sigterm=0 colors=0 time=1 reuse=1 analyze=0 san=0 done=1",
                            env!("CARGO_PKG_VERSION"),
                            vars.join(",")
                        ));
                    }
                    "new" => {
                        if let Err(e) = x.new_game() {
                            out(&format!("Error (new): {}", e.0));
                        }
                    }
                    "variant" => {
                        if let Err(e) = x.s.set_variant(arg, true) {
                            out(&format!("Error (unknown variant): {arg} ({})", e.0));
                        }
                    }
                    "setboard" => {
                        let fen = line.trim()["setboard".len()..].trim().to_string();
                        if let Err(e) = x.s.set_position(Some(&fen), &[]) {
                            out(&format!("tellusererror Illegal position: {}", e.0));
                        }
                    }
                    "force" => x.force = true,
                    "result" => x.force = true,
                    "go" => {
                        x.force = false;
                        x.engine = x.s.game.to_move();
                        x.maybe_think(&tx);
                    }
                    "playother" => {
                        x.force = false;
                        x.engine = x.s.game.to_move().opponent();
                    }
                    "?" => x.s.stop(),
                    "usermove" => match play(&mut x.s.game, arg) {
                        Ok(()) => {
                            if let Some(l) = result_line(&x.s.game) {
                                out(&l);
                            } else {
                                x.maybe_think(&tx);
                            }
                        }
                        Err(e) => out(&format!("Illegal move ({e}): {arg}")),
                    },
                    "undo" => {
                        x.s.game.undo(1);
                    }
                    "remove" => {
                        x.s.game.undo(2);
                    }
                    "time" => {
                        if let Ok(cs) = arg.parse::<u64>() {
                            x.control.ours = Some(Duration::from_millis(cs * 10));
                        }
                    }
                    "level" => match parse_level(&words[1..]) {
                        Some((mps, inc)) => {
                            x.control.moves_per_session = mps;
                            x.control.increment = inc;
                            x.control.per_move = None;
                        }
                        None => out(&format!("Error (bad level): {line}")),
                    },
                    "st" => match arg.parse::<f64>() {
                        Ok(secs) if secs > 0.0 => x.control.per_move = Some(Duration::from_secs_f64(secs)),
                        _ => out(&format!("Error (bad st): {line}")),
                    },
                    "sd" => match arg.parse::<u32>() {
                        Ok(d) if d > 0 => x.control.depth = Some(d.min(64)),
                        _ => out(&format!("Error (bad sd): {line}")),
                    },
                    "ping" => out(&format!("pong {arg}")),
                    "post" => x.post.store(true, Ordering::Relaxed),
                    "nopost" => x.post.store(false, Ordering::Relaxed),
                    "quit" => {
                        quitting = true;
                        x.s.stop();
                        if !x.s.searching() {
                            break;
                        }
                    }
                    _ => {
                        // Protocol version 1 GUIs send bare moves.
                        if words.len() == 1 && play(&mut x.s.game, cmd).is_ok() {
                            if let Some(l) = result_line(&x.s.game) {
                                out(&l);
                            } else {
                                x.maybe_think(&tx);
                            }
                        } else {
                            out(&format!("Error (unknown command): {cmd}"));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// `level MPS BASE INC` (BASE in minutes or minutes:seconds): moves per session and the
/// increment.
fn parse_level(words: &[&str]) -> Option<(u32, Duration)> {
    let [mps, base, inc] = words else { return None };
    let mps = mps.parse().ok()?;
    let _base = match base.split_once(':') {
        Some((m, s)) => m.parse::<u64>().ok()? * 60 + s.parse::<u64>().ok()?,
        None => base.parse::<u64>().ok()? * 60,
    };
    let inc: f64 = inc.parse().ok()?;
    Some((mps, Duration::from_secs_f64(inc.max(0.0))))
}
