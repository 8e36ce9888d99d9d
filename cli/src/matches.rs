//! `varia match`: a series of games between two players, each a level of varia's
//! computer player or another engine over UCI (`uci:COMMAND`), with alternating colours
//! (player A, given by `--white`, is white in games 1, 3, 5…), openings from a file
//! (each played twice, once with each colour), adjudication, and a report: a line per
//! game, each player's score, the Elo difference with its 95% error bar, and the games
//! as PGN (`--pgn FILE`, written as each game ends). `--jobs N` plays N games at once;
//! `--sprt ELO0:ELO1` stops once a sequential test decides.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use varia::notation::pgn;
use varia::rng::Rng;
use varia::search::{AiConfig, Clock, HashTable, Level, Think};
use varia::{Action, Game, GameResult, Side, Variant};

use crate::uci_client::{UciEngine, UciFailure};
use crate::{Fail, VariantArg};

#[derive(clap::Args)]
pub struct MatchArgs {
    #[command(flatten)]
    variant: VariantArg,
    /// Player A, white in games 1, 3, 5…: a level (novice, veteran, master…) or
    /// `uci:COMMAND` for another engine (`uci:/usr/games/fairy-stockfish`).
    #[arg(long)]
    white: String,
    /// Player B, black in games 1, 3, 5….
    #[arg(long)]
    black: String,
    /// An option for player A's UCI engine, NAME=VALUE (repeatable): --white-option "Skill Level=5".
    #[arg(long = "white-option", value_name = "NAME=VALUE")]
    white_options: Vec<String>,
    /// An option for player B's UCI engine (repeatable).
    #[arg(long = "black-option", value_name = "NAME=VALUE")]
    black_options: Vec<String>,
    /// The number of games.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Time per move in milliseconds, for both players (levels and engines). Without it,
    /// levels think with their own `time_ms` and engines 1000 ms.
    #[arg(long, value_name = "MS")]
    movetime: Option<u64>,
    /// With --movetime: levels still think with their own `time_ms` (the time is for
    /// the engines only).
    #[arg(long)]
    own_budgets: bool,
    /// Start positions, one a line: a FEN, or moves from the variant's setup (SAN or
    /// from-to, move numbers allowed); `#` starts a comment. Each is played twice, with
    /// colours swapped; game 2k-1 and 2k use opening k (cycling).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Start every game from this FEN instead of the variant's setup.
    #[arg(long, conflicts_with = "openings")]
    fen: Option<String>,
    /// Write the games as PGN to this file (replaced; each game is added as it ends).
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Adjudicate a win when both players' scores agree that one side is ahead by at
    /// least CP centipawns for MOVES moves each (CP:MOVES), or `off`.
    #[arg(long, default_value = "1000:4", value_name = "CP:MOVES")]
    resign: String,
    /// Adjudicate a draw from move FROM on, when both players' scores stay within CP of
    /// 0 for MOVES moves each (CP:MOVES:FROM), or `off`.
    #[arg(long, default_value = "10:10:40", value_name = "CP:MOVES:FROM")]
    draw: String,
    /// The match's seed (each game and move of a level derives its own from it).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// A game still going after this many plies is scored a draw.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Ignore the levels' time budgets (depth and node limits only: reproducible).
    #[arg(long)]
    no_clock: bool,
    /// Games played at once, each worker with its own engines (one core each is fair:
    /// every engine thinks in one thread). Games are reported in their order, and a
    /// game's moves do not depend on the worker that plays it.
    #[arg(long, default_value_t = 1, value_name = "N")]
    jobs: usize,
    /// Stop as soon as a sequential probability ratio test decides between "player A
    /// is ELO0 Elo over player B" and "… ELO1" (5% error each way); --games is then the
    /// most it plays.
    #[arg(long, value_name = "ELO0:ELO1")]
    sprt: Option<String>,
}

enum Player {
    Level { level: Level },
    Uci(Box<UciEngine>),
}

struct Seat {
    label: String,
    player: Player,
    times: Vec<f64>,
    depths: Vec<u32>,
}

/// A score above this (for the side to move) is a mate.
const MATE_SCORE: i32 = 90_000;

/// What one move of a game gave.
struct Played {
    action: Action,
    /// For white, in centipawns (mates beyond ±MATE_SCORE).
    white_score: Option<i32>,
    comment: String,
}

fn parse_resign(s: &str) -> Result<Option<(i32, usize)>, Fail> {
    if s == "off" {
        return Ok(None);
    }
    let bad = || Fail(format!("--resign is CP:MOVES (like 1000:4) or off, not `{s}`"));
    let (cp, n) = s.split_once(':').ok_or_else(bad)?;
    Ok(Some((cp.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?)))
}

fn parse_draw(s: &str) -> Result<Option<(i32, usize, u32)>, Fail> {
    if s == "off" {
        return Ok(None);
    }
    let bad = || Fail(format!("--draw is CP:MOVES:FROM (like 10:10:40) or off, not `{s}`"));
    let parts: Vec<&str> = s.split(':').collect();
    let [cp, n, from] = parts.as_slice() else { return Err(bad()) };
    Ok(Some((cp.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?, from.parse().map_err(|_| bad())?)))
}

/// The openings of a file: each a game to start from (FEN or moves).
fn read_openings(v: &Arc<Variant>, path: &PathBuf) -> Result<Vec<Game>, Fail> {
    let text = std::fs::read_to_string(path).map_err(|e| Fail(format!("{}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |e: String| Fail(format!("{}:{}: {e}", path.display(), i + 1));
        // A FEN has a board field with `/`; a move list does not.
        let g = if line.split_whitespace().next().is_some_and(|w| w.contains('/')) {
            Game::from_fen(v.clone(), line).map_err(|e| at(format!("bad FEN: {e}")))?
        } else {
            Game::from_moves(v.clone(), line).map_err(|e| at(e.to_string()))?
        };
        if let Some(o) = g.outcome() {
            return Err(at(format!("this opening is already over ({})", o.describe())));
        }
        out.push(g);
    }
    if out.is_empty() {
        return Err(Fail(format!("{}: no openings in the file", path.display())));
    }
    Ok(out)
}

/// The Elo difference of a score fraction.
fn elo(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

/// The Elo difference for player A and its 95% interval, from wins, draws and losses:
/// the normal approximation to the mean game score (the usual way matches are
/// reported), or a one-sided bound when every game ended alike.
pub fn elo_report(w: u32, d: u32, l: u32) -> String {
    let n = (w + d + l) as f64;
    if n == 0.0 {
        return "no games".into();
    }
    let p = (w as f64 + d as f64 / 2.0) / n;
    if w == 0 && d == 0 {
        return format!("-inf (every game lost; at most {:+.0} at 95%)", elo(1.0 - 0.05f64.powf(1.0 / n)));
    }
    if l == 0 && d == 0 {
        return format!("+inf (every game won; at least {:+.0} at 95%)", elo(0.05f64.powf(1.0 / n)));
    }
    let var = (w as f64 * (1.0 - p).powi(2) + d as f64 * (0.5 - p).powi(2) + l as f64 * p.powi(2)) / n;
    let sd = (var / n).sqrt();
    let lo = (p - 1.96 * sd).max(1e-6);
    let hi = (p + 1.96 * sd).min(1.0 - 1e-6);
    let e = if p <= 0.0 || p >= 1.0 { if p <= 0.0 { f64::NEG_INFINITY } else { f64::INFINITY } } else { elo(p) };
    // (+ 0.0 turns a -0 into 0.)
    format!(
        "{:+.0} ± {:.0} (95%: {:+.0} to {:+.0})",
        e + 0.0,
        (elo(hi) - elo(lo)) / 2.0 + 0.0,
        elo(lo) + 0.0,
        elo(hi) + 0.0
    )
}

/// Today's date as PGN writes it (UTC), from the system clock (the harness's, not a
/// rule's: nothing in a game depends on it).
fn pgn_date() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    format!("{year:04}.{month:02}.{day:02}")
}

impl Seat {
    fn new(spec: &str, options: &[String], config: &AiConfig, v: &Variant) -> Result<Seat, Fail> {
        let player = match spec.strip_prefix("uci:") {
            Some(cmd) => {
                let mut e = UciEngine::start(cmd, options)?;
                e.set_variant(v)?;
                Player::Uci(Box::new(e))
            }
            None => {
                if !options.is_empty() {
                    return Err(Fail(format!("engine options are for `uci:` players, and `{spec}` is a level")));
                }
                Player::Level { level: *config.level(spec).map_err(Fail)? }
            }
        };
        let label = match &player {
            Player::Uci(e) => {
                let opts: Vec<&str> = options.iter().map(String::as_str).collect();
                if opts.is_empty() { e.name.clone() } else { format!("{} ({})", e.name, opts.join(", ")) }
            }
            Player::Level { .. } => config.level_name(spec).map_err(Fail)?.to_string(),
        };
        Ok(Seat { label, player, times: Vec::new(), depths: Vec::new() })
    }
}

struct Settings<'a> {
    config: &'a AiConfig,
    movetime: Option<Duration>,
    own_budgets: bool,
    no_clock: bool,
}

/// One move by a seat; Err(reason) when it forfeits the game.
fn play_move(
    seat: &mut Seat,
    game: &Game,
    start_fen: &str,
    seed: u64,
    table: &mut HashTable,
    s: &Settings,
) -> Result<Played, String> {
    let t = Instant::now();
    let white = game.to_move() == Side::White;
    let to_white = |x: i32| if white { x } else { -x };
    let played = match &mut seat.player {
        Player::Level { level } => {
            // With --movetime the level is given the engines' time for the move, and one
            // that deepens uses all of it; otherwise its own budget (and depth cap) hold.
            let (level, clock) = match (s.movetime, s.own_budgets, s.no_clock) {
                (_, _, true) => (*level, Clock::Off),
                (Some(m), false, false) => (level.given_time(), Clock::Deadline(t + m)),
                _ => (*level, Clock::Budget(t)),
            };
            let think = Think { seed, clock: Some(clock), table: Some(table), ..Think::default() };
            let r = game.think(s.config, &level, think).map_err(|e| format!("{} cannot move: {e}", seat.label))?;
            seat.depths.push(r.depth);
            let score = match r.mate {
                Some(m) if m > 0 => 100_000 - m,
                Some(m) => -100_000 - m,
                None => r.score,
            };
            Played {
                action: r.action,
                white_score: Some(to_white(score)),
                comment: comment(Some(score), Some(r.depth), t),
            }
        }
        Player::Uci(e) => {
            let movetime = s.movetime.unwrap_or(Duration::from_secs(1));
            match e.play(game, start_fen, movetime) {
                Ok(m) => {
                    if let Some(d) = m.depth {
                        seat.depths.push(d);
                    }
                    Played {
                        action: m.action,
                        white_score: m.score.map(to_white),
                        comment: comment(m.score, m.depth, t),
                    }
                }
                Err(UciFailure::Time) => {
                    return Err(format!(
                        "{} lost on time (no move in {} ms and more)",
                        seat.label,
                        movetime.as_millis()
                    ));
                }
                Err(UciFailure::Illegal(why)) => return Err(format!("{} played an illegal move: {why}", seat.label)),
                Err(UciFailure::Gone(why)) => return Err(format!("{} stopped ({why})", seat.label)),
            }
        }
    };
    seat.times.push(t.elapsed().as_secs_f64());
    Ok(played)
}

/// A move's comment as match tools write it: the score in pawns for the mover, the depth, the time.
fn comment(score: Option<i32>, depth: Option<u32>, t: Instant) -> String {
    let s = match score {
        Some(x) if x > MATE_SCORE => format!("+M{}", (100_000 - x + 1) / 2),
        Some(x) if x < -MATE_SCORE => format!("-M{}", (100_000 + x + 1) / 2),
        Some(x) => format!("{:+.2}", x as f64 / 100.0),
        None => "?".into(),
    };
    let d = depth.map_or(String::new(), |d| format!("/{d}"));
    format!("{s}{d} {:.2}s", t.elapsed().as_secs_f64())
}

/// Everything a game needs besides its seats and tables (shared by the workers).
struct Plan<'a> {
    openings: &'a [Game],
    settings: Settings<'a>,
    resign: Option<(i32, usize)>,
    draw: Option<(i32, usize, u32)>,
    seed: u64,
    max_plies: usize,
    movetime: Option<u64>,
    date: &'a str,
    pgn: bool,
}

/// A game played: its report line, its PGN, its result and which seat was white.
struct Finished {
    line: String,
    pgn: Option<String>,
    result: GameResult,
    white: usize,
}

/// Plays game `g` (0-based) of the match between `seats` (player A, player B).
fn play_game(
    g: usize,
    seats: &mut [Seat; 2],
    tables: &mut [HashTable; 2],
    labels: &[String; 2],
    plan: &Plan,
) -> Result<Finished, Fail> {
    let white = g % 2;
    let opening = &plan.openings[(g / 2) % plan.openings.len()];
    let start_fen = opening.start_fen();
    let mut game = opening.clone();
    let book = game.ply();
    for seat in seats.iter_mut() {
        if let Player::Uci(e) = &mut seat.player {
            e.new_game()?;
        }
    }
    for t in tables.iter_mut() {
        t.clear();
    }
    let mut game_seed = Rng::new(plan.seed ^ (g as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut comments: Vec<String> = vec!["book".to_string(); book];
    let mut scores: Vec<Option<i32>> = Vec::new();
    let mut forfeit: Option<(Side, String)> = None;
    let mut adjudicated: Option<(GameResult, String)> = None;
    while game.outcome().is_none() && game.ply() - book < plan.max_plies {
        let side = game.to_move();
        let who = if side == Side::White { white } else { 1 - white };
        match play_move(&mut seats[who], &game, &start_fen, game_seed.next_u64(), &mut tables[who], &plan.settings) {
            Ok(p) => {
                game.apply(p.action)
                    .map_err(|e| Fail(format!("game {}: an illegal action slipped through: {e}", g + 1)))?;
                comments.push(p.comment);
                scores.push(p.white_score);
            }
            Err(why) => {
                forfeit = Some((side, why));
                break;
            }
        }
        if game.outcome().is_none() {
            adjudicated = adjudicate(&scores, plan.resign, plan.draw, game.setup().fullmove);
            if adjudicated.is_some() {
                break;
            }
        }
    }
    let (result, why) = match (game.outcome(), forfeit, adjudicated) {
        (Some(o), _, _) => (o.result, o.describe()),
        (None, Some((side, why)), _) => (GameResult::Win(side.opponent()), why),
        (None, None, Some(a)) => a,
        (None, None, None) => (GameResult::Draw, format!("draw by the {}-ply limit", plan.max_plies)),
    };
    let text = match result {
        GameResult::Win(Side::White) => "1-0",
        GameResult::Win(Side::Black) => "0-1",
        GameResult::Draw => "1/2-1/2",
    };
    let plies = game.ply() - book;
    let line = format!(
        "game {:>3}: {} (white) vs {} (black): {text} ({why}, {plies} plies)",
        g + 1,
        labels[white],
        labels[1 - white]
    );
    let pgn = plan.pgn.then(|| {
        let mut record = game.to_pgn(&comments);
        record.set_tag("Event", "varia match");
        record.set_tag("Site", "?");
        record.set_tag("Date", plan.date);
        record.set_tag("Round", (g + 1).to_string());
        record.set_tag("White", labels[white].clone());
        record.set_tag("Black", labels[1 - white].clone());
        record.set_tag("Result", text);
        record.result = Some(text.to_string());
        if game.outcome().is_none() {
            record.set_tag("Termination", if why.contains("lost on time") { "time forfeit" } else { "adjudication" });
            if let Some(last) = record.moves.last_mut() {
                last.comments.push(why.clone());
            }
        }
        if let Some(m) = plan.movetime {
            record.set_tag("TimeControl", format!("{}/move", m as f64 / 1000.0));
        }
        pgn::write(&record)
    });
    Ok(Finished { line, pgn, result, white })
}

pub fn run_match(args: MatchArgs) -> Result<(), Fail> {
    let v = args.variant.load()?;
    crate::alternating(&v, "match")?;
    let config = AiConfig::from_variant(&v).map_err(varia::search::AiError::Config)?;
    let resign = parse_resign(&args.resign)?;
    let draw = parse_draw(&args.draw)?;
    let sprt = args.sprt.as_deref().map(Sprt::parse).transpose()?;
    if args.jobs == 0 {
        return Err(Fail("--jobs must be at least 1".into()));
    }
    let openings = match (&args.openings, &args.fen) {
        (Some(p), _) => read_openings(&v, p)?,
        (None, Some(f)) => vec![Game::from_fen(v.clone(), f).map_err(|e| Fail(format!("bad FEN: {e}")))?],
        (None, None) => vec![Game::new(v.clone())],
    };
    // A pair of seats per worker: each plays its own games with its own engines.
    let jobs = args.jobs.min(args.games.max(1));
    let mut sets = Vec::with_capacity(jobs);
    for _ in 0..jobs {
        sets.push([
            Seat::new(&args.white, &args.white_options, &config, &v)?,
            Seat::new(&args.black, &args.black_options, &config, &v)?,
        ]);
    }
    let mut labels = [sets[0][0].label.clone(), sets[0][1].label.clone()];
    if labels[0] == labels[1] {
        labels[0].push_str(" (A)");
        labels[1].push_str(" (B)");
    }
    let mut pgn_file = match &args.pgn {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| Fail(format!("{}: {e}", p.display())))?),
        None => None,
    };
    let date = pgn_date();
    let plan = Plan {
        openings: &openings,
        settings: Settings {
            config: &config,
            movetime: args.movetime.map(Duration::from_millis),
            own_budgets: args.own_budgets,
            no_clock: args.no_clock,
        },
        resign,
        draw,
        seed: args.seed,
        max_plies: args.max_plies,
        movetime: args.movetime,
        date: &date,
        pgn: pgn_file.is_some(),
    };
    // Per seat: wins, draws, losses.
    let mut wdl = [[0u32; 3]; 2];
    let mut played = 0usize;
    let mut verdict: Option<String> = None;
    let mut failure: Option<Fail> = None;
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<(usize, Result<Finished, Fail>)>();
        for seats in sets.iter_mut() {
            let (tx, next, stop, plan, labels) = (tx.clone(), &next, &stop, &plan, &labels);
            scope.spawn(move || {
                let mut tables = [HashTable::with_megabytes(16), HashTable::with_megabytes(16)];
                while !stop.load(Ordering::Relaxed) {
                    let g = next.fetch_add(1, Ordering::Relaxed);
                    if g >= args.games {
                        break;
                    }
                    let r = play_game(g, seats, &mut tables, labels, plan);
                    let failed = r.is_err();
                    if tx.send((g, r)).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Games are reported, written and counted in their order, whatever order the
        // workers finish them in: the report is the one a single worker would give.
        let mut pending = BTreeMap::new();
        'receive: for (g, r) in rx {
            pending.insert(g, r);
            while let Some(r) = pending.remove(&played) {
                let f = match r {
                    Ok(f) => f,
                    Err(e) => {
                        failure = Some(e);
                        break 'receive;
                    }
                };
                println!("{}", f.line);
                if let (Some(file), Some(text)) = (pgn_file.as_mut(), &f.pgn) {
                    let _ = writeln!(file, "{text}");
                    let _ = file.flush();
                }
                match f.result {
                    GameResult::Draw => {
                        wdl[0][1] += 1;
                        wdl[1][1] += 1;
                    }
                    GameResult::Win(side) => {
                        let winner = if side == Side::White { f.white } else { 1 - f.white };
                        wdl[winner][0] += 1;
                        wdl[1 - winner][2] += 1;
                    }
                }
                played += 1;
                if let Some(s) = &sprt
                    && let Some(v) = s.verdict(wdl[0])
                {
                    verdict = Some(v);
                    break 'receive;
                }
            }
        }
        // Workers still playing finish their game and take no other.
        stop.store(true, Ordering::Relaxed);
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let n = played.max(1) as f64;
    println!("after {played} games ({:.0} s):", started.elapsed().as_secs_f64());
    for i in 0..2 {
        let mut t: Vec<f64> = sets.iter().flat_map(|s| s[i].times.iter().copied()).collect();
        t.sort_by(|a, b| a.total_cmp(b));
        let median = t.get(t.len() / 2).copied().unwrap_or(0.0);
        let longest = t.last().copied().unwrap_or(0.0);
        let mut d: Vec<u32> = sets.iter().flat_map(|s| s[i].depths.iter().copied()).collect();
        d.sort();
        let depth = d.get(d.len() / 2).map_or(String::new(), |d| format!(", median depth {d}"));
        let [w, dr, l] = wdl[i];
        let points = w as f64 + dr as f64 / 2.0;
        println!(
            "{:<16} {:>5.1}/{played} = {:>5.1}%  (+{w} ={dr} -{l}; median move {:.0} ms, longest {:.0} ms{depth})",
            labels[i],
            points,
            points / n * 100.0,
            median * 1e3,
            longest * 1e3
        );
    }
    let [w, d, l] = wdl[0];
    println!("Elo difference of {} over {}: {}", labels[0], labels[1], elo_report(w, d, l));
    if let Some(s) = &sprt {
        let llr = s.llr(wdl[0]);
        let (lo, hi) = Sprt::bounds();
        match &verdict {
            Some(v) => println!("SPRT: {v} (LLR {llr:.2}, bounds {lo:.2} and {hi:.2})"),
            None => println!("SPRT: undecided after {played} games (LLR {llr:.2}, bounds {lo:.2} and {hi:.2})"),
        }
    }
    if let Some(p) = &args.pgn {
        println!("PGN: {}", p.display());
    }
    Ok(())
}

/// A sequential probability ratio test of player A's Elo over player B: H0 that it is
/// `elo0`, H1 that it is `elo1`, at 5% false positives and 5% false negatives. The
/// log-likelihood ratio is the generalised SPRT's normal approximation on the game
/// scores (as fishtest and cutechess compute it from wins, draws and losses).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sprt {
    elo0: f64,
    elo1: f64,
}

impl Sprt {
    fn parse(s: &str) -> Result<Sprt, Fail> {
        let bad = || Fail(format!("--sprt is ELO0:ELO1 with ELO0 < ELO1 (like 0:10), not `{s}`"));
        let (a, b) = s.split_once(':').ok_or_else(bad)?;
        let (elo0, elo1): (f64, f64) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1 && elo0.abs() < 1000.0 && elo1.abs() < 1000.0) {
            return Err(bad());
        }
        Ok(Sprt { elo0, elo1 })
    }

    /// The log-likelihood ratio's bounds: accept H0 at or below the first, H1 at or
    /// above the second (α = β = 0.05).
    fn bounds() -> (f64, f64) {
        ((0.05f64 / 0.95).ln(), (0.95f64 / 0.05).ln())
    }

    /// The log-likelihood ratio of H1 over H0 after `w` wins, `d` draws, `l` losses.
    /// While every game has ended alike (no variance to judge by), half a game of each
    /// result is added.
    fn llr(&self, [w, d, l]: [u32; 3]) -> f64 {
        let (mut w, mut d, mut l) = (w as f64, d as f64, l as f64);
        if [w, d, l].iter().filter(|&&x| x > 0.0).count() < 2 {
            (w, d, l) = (w + 0.5, d + 0.5, l + 0.5);
        }
        let n = w + d + l;
        let m = (w + d / 2.0) / n;
        let var = (w * (1.0 - m).powi(2) + d * (0.5 - m).powi(2) + l * m.powi(2)) / n;
        let score = |elo: f64| 1.0 / (1.0 + 10f64.powf(-elo / 400.0));
        let (s0, s1) = (score(self.elo0), score(self.elo1));
        n * (s1 - s0) * (2.0 * m - s0 - s1) / (2.0 * var)
    }

    /// The test's decision, once there is one.
    fn verdict(&self, wdl: [u32; 3]) -> Option<String> {
        let llr = self.llr(wdl);
        let (lo, hi) = Self::bounds();
        if llr >= hi {
            Some(format!("H1 accepted: player A is at least {:+} Elo over player B", self.elo1))
        } else if llr <= lo {
            Some(format!("H0 accepted: player A is not {:+} Elo over player B (at most {:+})", self.elo1, self.elo0))
        } else {
            None
        }
    }
}

/// A result by adjudication, from the last plies' scores (for white): both players
/// agreeing that one side is far ahead (resign), or that the game is level (draw).
fn adjudicate(
    scores: &[Option<i32>],
    resign: Option<(i32, usize)>,
    draw: Option<(i32, usize, u32)>,
    fullmove: u32,
) -> Option<(GameResult, String)> {
    if let Some((cp, moves)) = resign {
        let n = 2 * moves;
        if scores.len() >= n {
            let last: Option<Vec<i32>> = scores[scores.len() - n..].iter().copied().collect();
            if let Some(last) = last {
                if last.iter().all(|&s| s >= cp) {
                    return Some((
                        GameResult::Win(Side::White),
                        format!("adjudicated: both players scored white {cp}+ cp ahead for {moves} moves"),
                    ));
                }
                if last.iter().all(|&s| s <= -cp) {
                    return Some((
                        GameResult::Win(Side::Black),
                        format!("adjudicated: both players scored black {cp}+ cp ahead for {moves} moves"),
                    ));
                }
            }
        }
    }
    if let Some((cp, moves, from)) = draw {
        let n = 2 * moves;
        if fullmove >= from
            && scores.len() >= n
            && scores[scores.len() - n..].iter().all(|s| s.is_some_and(|s| s.abs() <= cp))
        {
            return Some((
                GameResult::Draw,
                format!("adjudicated a draw: both players scored within {cp} cp for {moves} moves"),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_from_scores() {
        // 75% is +191 Elo: -400·log10(1/0.75 - 1) = 400·log10(3) = 190.8.
        assert!(elo_report(15, 0, 5).starts_with("+191 ± "), "{}", elo_report(15, 0, 5));
        // Even: 0 Elo; 10 wins 10 losses: sd of a game 0.5, of the mean 0.5/√20 = 0.112,
        // 95%: 0.5 ± 0.219 → 0.281 to 0.719 → -163 to +163.
        assert_eq!(elo_report(10, 0, 10), "+0 ± 163 (95%: -163 to +163)");
        // Every game won: a one-sided bound, 0.05^(1/10) = 0.7411 → +183.
        assert_eq!(elo_report(10, 0, 0), "+inf (every game won; at least +183 at 95%)");
        assert_eq!(elo_report(0, 0, 10), "-inf (every game lost; at most -183 at 95%)");
        assert_eq!(elo_report(0, 0, 0), "no games");
    }

    #[test]
    fn adjudication_needs_both_players_to_agree() {
        let s = |v: &[i32]| v.iter().map(|&x| Some(x)).collect::<Vec<_>>();
        let r = Some((500, 2));
        assert_eq!(adjudicate(&s(&[600, 700, 800, 900]), r, None, 30).map(|a| a.0), Some(GameResult::Win(Side::White)));
        assert_eq!(adjudicate(&s(&[600, 400, 800, 900]), r, None, 30), None);
        assert_eq!(
            adjudicate(&s(&[-600, -700, -800, -900]), r, None, 30).map(|a| a.0),
            Some(GameResult::Win(Side::Black))
        );
        assert_eq!(adjudicate(&[Some(600), None, Some(800), Some(900)], r, None, 30), None);
        let d = Some((10, 2, 40));
        assert_eq!(adjudicate(&s(&[5, -3, 0, 10]), None, d, 40).map(|a| a.0), Some(GameResult::Draw));
        assert_eq!(adjudicate(&s(&[5, -3, 0, 10]), None, d, 39), None);
        assert_eq!(adjudicate(&s(&[5, -3, 0, 11]), None, d, 40), None);
    }

    #[test]
    fn the_sprt_decides_on_the_log_likelihood_ratio() {
        let (lo, hi) = Sprt::bounds();
        // ln(0.05 / 0.95) = −2.944, and its opposite.
        assert!((lo + 2.944).abs() < 1e-3 && (hi - 2.944).abs() < 1e-3, "{lo} {hi}");
        let Ok(s) = Sprt::parse("0:100") else { panic!("0:100 parses") };
        // 60 wins, 20 draws, 20 losses: mean 0.7, variance (60 × 0.09 + 20 × 0.04 + 20 ×
        // 0.49) / 100 = 0.16; s0 = 0.5, s1 = 1 / (1 + 10^−0.25) = 0.640065; LLR = 100 ×
        // 0.140065 × (1.4 − 0.5 − 0.640065) / 0.32 = 11.377.
        assert!((s.llr([60, 20, 20]) - 11.377).abs() < 0.01, "{}", s.llr([60, 20, 20]));
        assert!(s.verdict([60, 20, 20]).unwrap().starts_with("H1 accepted"));
        // Even: mean 0.5 against s0 0.5 and s1 0.640: 100 × 0.140 × (−0.140) / (2 ×
        // 0.15) = −6.54 → H0.
        assert!(s.verdict([30, 40, 30]).unwrap().starts_with("H0 accepted"));
        // Two games are not enough either way.
        assert_eq!(s.verdict([1, 0, 1]), None);
        // Every game lost: half a game of each added (0.5, 0.5, 6.5): mean 0.1, variance
        // 0.55 / 7.5; 7.5 × 0.140 × (0.2 − 1.140) / (2 × 0.0733) = −6.73.
        assert!((s.llr([0, 0, 6]) + 6.73).abs() < 0.01, "{}", s.llr([0, 0, 6]));
        for bad in ["10:0", "5", "a:b", "0:inf", "0:5000"] {
            assert!(Sprt::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_are_civil() {
        let d = pgn_date();
        assert_eq!((d.len(), &d[4..5], &d[7..8]), (10, ".", "."));
        assert!(d.as_str() >= "2024.01.01", "{d}");
    }
}
