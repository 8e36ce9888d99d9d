//! `varia`: the designer's workbench on top of the runtime.
//!
//! Output contract (relied on by users and tests): results on stdout, errors and
//! progress on stderr; exit 0 on success, 1 when the input is wrong (a bad rules file,
//! an illegal move, a bad FEN), 2 for a bad command line.

mod ai;
mod bench;
mod bench_realm;
mod bench_selfplay;
mod bench_solve;
mod duel;
mod engine;
mod fixtures;
mod matches;
mod play;
mod play_solo;
mod realm;
mod realm_bench;
mod realm_service;
mod realm_sim;
mod selfplay;
mod serve;
mod solo;
mod tune;
mod uci;
mod uci_client;
mod watch;
mod xboard;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::{Parser, Subcommand};
use varia::variant::Override;
use varia::{Game, Variant};

#[derive(Parser)]
#[command(name = "varia", version, about = "A rules runtime for chess variants: variants as TOML data plus Lua hooks.")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// A variant, with overrides.
#[derive(clap::Args, Clone)]
pub(crate) struct VariantArg {
    /// A variant name (under scripts/ or VARIA_PATH) or a path to a variant folder.
    variant: String,
    /// Override any value of variant.toml for this run, type-checked like the file
    /// (repeatable): --set pieces.queen.value=950
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

impl VariantArg {
    pub(crate) fn load(&self) -> Result<Arc<Variant>, Fail> {
        let overrides = self.set.iter().map(|s| s.parse()).collect::<Result<Vec<Override>, _>>()?;
        Ok(Variant::load_with(&self.variant, &overrides)?)
    }
}

/// Where a command's game starts.
#[derive(clap::Args, Clone)]
struct Start {
    /// Start from this FEN instead of the variant's setup.
    #[arg(long, conflicts_with_all = ["from", "pgn"])]
    fen: Option<String>,
    /// Start from a JSON snapshot (as written by `--json`).
    #[arg(long, value_name = "STATE.json", conflicts_with = "pgn")]
    from: Option<PathBuf>,
    /// Start from the end of a game in a PGN file (its FEN tag and moves, checked).
    #[arg(long, value_name = "FILE.pgn")]
    pgn: Option<PathBuf>,
    /// Which game of the PGN file (from 1).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "pgn")]
    game: usize,
    /// Start from a dealt setup of a variant with `[setup] deal` (Chess960): its number
    /// (0 to 959 for chess960; 518 is chess), or `seed:S` for one drawn from seed S.
    #[arg(long, value_name = "N|seed:S", conflicts_with_all = ["fen", "from", "pgn"])]
    deal: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// List the variants (VARIA_PATH, ./scripts, built in): name, origin, summary.
    List,
    /// Load and validate variants: prints `ok`, or one `path:line:col: message` per problem.
    Check {
        /// Variant names or folders; all known variants if none.
        variants: Vec<String>,
        /// Override values while checking (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// Print every legal action (on a solo board: every target), one per line.
    Moves {
        #[command(flatten)]
        variant: VariantArg,
        #[command(flatten)]
        start: Start,
        #[command(flatten)]
        board: solo::BoardArgs,
        /// Actions to apply first (strikes on a solo board).
        moves: Vec<String>,
    },
    /// Apply moves and print the final position (or the JSON snapshot).
    Replay {
        #[command(flatten)]
        variant: VariantArg,
        #[command(flatten)]
        start: Start,
        #[command(flatten)]
        board: solo::BoardArgs,
        /// Moves such as e2-e4, or strikes such as c3 on a solo board (several may share
        /// one argument, separated by spaces).
        moves: Vec<String>,
        /// Print the JSON snapshot of the whole state instead of the board.
        #[arg(long)]
        json: bool,
        /// Before the board, list each action with its events in words (damage and its
        /// cause, splash, counters, landings, promotions…), as `varia play` and the
        /// playground's log write them.
        #[arg(long, conflicts_with = "json")]
        events: bool,
    },
    /// Count the leaves of the legal-move tree (last line of output: the count alone).
    Perft {
        #[command(flatten)]
        variant: VariantArg,
        depth: u32,
        #[arg(long)]
        fen: Option<String>,
        /// Print the count below each first move.
        #[arg(long)]
        divide: bool,
    },
    /// Decide a solo board: can it be forged (with a route), and the best-scoring route found.
    Solve(solo::SolveArgs),
    /// Measure move-generation speed, side by side with Fairy-Stockfish if installed.
    Bench(bench::BenchArgs),
    /// Run rule fixtures (fixtures/<variant>/*.toml): a line per fixture, then totals.
    Fixtures(fixtures::FixturesArgs),
    /// Re-check a variant and re-run its fixtures on every save of its files.
    Watch(watch::WatchArgs),
    /// Play in the terminal, with the control panel (AI level, undo, copy/paste, save/load…).
    Play(play::PlayArgs),
    /// A solo duel: two players (or one against the computer) on the same board, Elo ratings.
    Duel(duel::DuelArgs),
    /// The computer player's action (last line of output: the action alone).
    Move(ai::MoveArgs),
    /// A match with alternating colours between levels of the computer player or other
    /// engines over UCI (`uci:COMMAND`): a line per game, scores, Elo, PGN.
    Match(matches::MatchArgs),
    /// Self-play at scale (the balance lab): AI or random games on all cores, Ludii's
    /// metrics, sweeps of TOML values (`--sweep KEY=A,B,C`), plots.
    Selfplay(selfplay::SelfplayArgs),
    /// Tune the evaluation's `[ai]` weights (and kinds' values) on positions scored by an
    /// oracle engine (Texel's method); prints the tuned table.
    Tune(tune::TuneArgs),
    /// The engine over UCI, for every two-sided variant (for GUIs and tools).
    Uci(uci::UciArgs),
    /// The engine over the XBoard/CECP protocol, for every two-sided variant.
    Xboard(xboard::XboardArgs),
    /// A world of boards: resolve a round (`varia realm resolve`), or run a realm (`new`, `join`, `order`, `show`, `advance`, `serve`).
    Realm(realm::RealmArgs),
    /// The playground: play the variants in the browser, reloading as their files change
    /// (on 127.0.0.1 unless `--host` says otherwise).
    Serve(serve::ServeArgs),
}

/// A failure to report: message on stderr, exit code 1.
pub(crate) struct Fail(String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Output piped into a reader that stops early (`varia fixtures | head`) ends the
    // process quietly, as other command-line tools do, instead of a panic. Not for the
    // interactive commands, which write to helper programs (the clipboard) that may
    // close early: there a closed pipe is an error to report.
    #[cfg(unix)]
    if !matches!(
        cli.command,
        Command::Play(_) | Command::Duel(_) | Command::Watch(_) | Command::Uci(_) | Command::Xboard(_)
    ) {
        // SAFETY: restores the default action of SIGPIPE before any thread is started.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg)) => {
            for line in msg.lines() {
                eprintln!("error: {line}");
            }
            ExitCode::from(1)
        }
    }
}

fn start_game(variant: Arc<Variant>, start: &Start) -> Result<Game, Fail> {
    if let Some(d) = &start.deal {
        let number = match d.strip_prefix("seed:") {
            Some(s) => s.parse().ok().and_then(|s| variant.deal_number(s)),
            None => d.parse().ok(),
        };
        let Some(n) = number else {
            return Err(Fail(match variant.deal {
                None => format!("{} has no dealt setups (no `[setup] deal`)", variant.name),
                Some(_) => format!("--deal is a setup number or seed:S (a whole number), not `{d}`"),
            }));
        };
        let fen = variant.dealt_fen(n).map_err(Fail)?;
        return Game::from_fen(variant, &fen).map_err(|e| Fail(format!("bad FEN: {e}")));
    }
    if let Some(f) = &start.fen {
        return Game::from_fen(variant, f).map_err(|e| Fail(format!("bad FEN: {e}")));
    }
    if let Some(path) = &start.from {
        let text = std::fs::read_to_string(path).map_err(|e| Fail(format!("{}: {e}", path.display())))?;
        return Game::from_snapshot(variant, &text).map_err(|e| Fail(format!("{}: {e}", path.display())));
    }
    if let Some(path) = &start.pgn {
        let text = std::fs::read_to_string(path).map_err(|e| Fail(format!("{}: {e}", path.display())))?;
        return Game::from_pgn_text(variant, &text, start.game).map_err(|e| Fail(format!("{}: {e}", path.display())));
    }
    Ok(Game::new(variant))
}

/// " (in check)", or without a check rule " (king attacked)", or nothing.
pub(crate) fn check_note(game: &Game) -> &'static str {
    match (game.in_check(), game.variant().rules.check) {
        (false, _) => "",
        (true, true) => " (in check)",
        (true, false) => " (royal piece attacked)",
    }
}

/// Whether `v` is played on a solo board (and the options fit its turn model): `Ok(true)`
/// for solo, `Ok(false)` for two sides alternating.
fn two_sided(v: &Variant, board: &solo::BoardArgs, start: &Start) -> Result<bool, Fail> {
    use varia::variant::TurnModel;
    match v.turns {
        TurnModel::Solo
            if start.fen.is_some() || start.from.is_some() || start.pgn.is_some() || start.deal.is_some() =>
        {
            Err(Fail(format!(
                "`{}` is a solo variant: it has no FEN, PGN or two-sided snapshot (use --board or --seed)",
                v.name
            )))
        }
        TurnModel::Solo => Ok(true),
        TurnModel::Alternate if board.given() => Err(Fail(format!(
            "`{}` is played by two sides alternating: --board, --seed, --level, --raw and --elapsed are for solo boards",
            v.name
        ))),
        TurnModel::Alternate => Ok(false),
        TurnModel::Simultaneous => {
            Err(Fail(format!("`{}` is played with simultaneous orders: use `varia realm resolve`", v.name)))
        }
    }
}

/// Refuses a command meant for two sides alternating on another turn model.
pub(crate) fn alternating(v: &Variant, command: &str) -> Result<(), Fail> {
    if v.turns != varia::variant::TurnModel::Alternate {
        return Err(Fail(format!(
            "`{command}` is for two sides alternating; `{}` is a {} variant",
            v.name,
            v.turns.name()
        )));
    }
    Ok(())
}

fn run(cmd: Command) -> Result<(), Fail> {
    match cmd {
        Command::List => {
            let known = varia::variant::known_variants();
            if known.is_empty() {
                eprintln!("no variants found; looked in: {}", varia::variant::looked_in().join(", "));
            }
            let rows: Vec<(String, String, String)> = known
                .into_iter()
                .map(|found| {
                    let about = match Variant::load_origin(&found.origin, &[]) {
                        Ok(v) if !v.summary.is_empty() => v.summary.clone(),
                        Ok(v) => v.title.clone(),
                        Err(_) => format!("(does not load: run `varia check {}`)", found.name),
                    };
                    (found.name, found.origin.to_string(), about)
                })
                .collect();
            let name_w = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
            let from_w = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
            for (name, from, about) in rows {
                println!("{name:<name_w$}  {from:<from_w$}  {about}");
            }
            Ok(())
        }
        Command::Check { variants, set } => {
            let overrides = set.iter().map(|s| s.parse()).collect::<Result<Vec<Override>, _>>()?;
            let names: Vec<String> = if variants.is_empty() {
                varia::variant::known_variants().into_iter().map(|f| f.name).collect()
            } else {
                variants
            };
            let several = names.len() > 1;
            let mut bad = false;
            for name in &names {
                match Variant::load_with(name, &overrides) {
                    Ok(_) if several => println!("{name}: ok"),
                    Ok(_) => println!("ok"),
                    Err(e) => {
                        bad = true;
                        for p in e.problems() {
                            println!("{p}");
                        }
                    }
                }
            }
            if bad { Err(Fail("the rules have problems (listed above)".into())) } else { Ok(()) }
        }
        Command::Moves { variant, start, board, moves } => {
            let v = variant.load()?;
            if two_sided(&v, &board, &start)? {
                return solo::moves(v, &board, &moves);
            }
            let mut game = start_game(v, &start)?;
            for (i, m) in moves.iter().flat_map(|m| m.split_whitespace()).enumerate() {
                game.play(m).map_err(|e| Fail(format!("move {} (`{m}`): {e}", i + 1)))?;
            }
            if let Some(o) = game.outcome() {
                eprintln!("the game is over: {}", o.describe());
            }
            // A failing filter_actions hook is an error (exit 1), not an empty list.
            for a in game.try_legal_actions()? {
                println!("{}", game.action_text(&a));
            }
            Ok(())
        }
        Command::Replay { variant, start, board, moves, json, events } => {
            let v = variant.load()?;
            if two_sided(&v, &board, &start)? {
                return solo::replay(v, &board, &moves, json, events);
            }
            let mut game = start_game(v, &start)?;
            let moves: Vec<&str> =
                moves.iter().flat_map(|m| m.split([' ', ',', '\n'])).filter(|m| !m.is_empty()).collect();
            for (i, m) in moves.iter().enumerate() {
                let side = game.to_move();
                let done = game.play(m).map_err(|e| Fail(format!("move {} (`{m}`): {e}", i + 1)))?;
                if events {
                    let text = game.last_action_text().unwrap_or_default();
                    println!("{}. {side}: {text}", i + 1);
                    for line in play::event_lines(game.variant(), &done) {
                        println!("   {line}");
                    }
                }
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&game.snapshot())?);
            } else {
                print!("{}", game.board_text());
                if game.ply() > 0 {
                    println!("moves: {}", game.moves_san());
                }
                println!("fen: {}", game.fen());
                if let Some([w, b]) = game.points() {
                    println!("points: white {w}, black {b}");
                }
                match game.outcome() {
                    Some(o) => println!("outcome: {}", o.describe()),
                    None => println!("to move: {}{}", game.to_move(), check_note(&game)),
                }
            }
            Ok(())
        }
        Command::Perft { variant, depth, fen, divide } => {
            let v = variant.load()?;
            alternating(&v, "perft")?;
            let game = match &fen {
                Some(f) => Game::from_fen(v, f).map_err(|e| Fail(format!("bad FEN: {e}")))?,
                None => Game::new(v),
            };
            let t = Instant::now();
            let total = if divide {
                let mut total = 0u64;
                for (a, n) in game.try_divide(depth)? {
                    println!("{}: {n}", game.action_text(&a));
                    total = total.saturating_add(n);
                }
                total
            } else {
                game.try_perft(depth)?
            };
            let secs = t.elapsed().as_secs_f64();
            eprintln!(
                "perft {depth}: {total} nodes in {secs:.3} s ({:.1} M nodes/s)",
                total as f64 / secs.max(1e-9) / 1e6
            );
            println!("{total}");
            Ok(())
        }
        Command::Solve(args) => solo::run_solve(args),
        Command::Bench(args) => bench::run(args),
        Command::Fixtures(args) => fixtures::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Play(args) => play::run(args),
        Command::Duel(args) => duel::run(args),
        Command::Move(args) => ai::run_move(args),
        Command::Match(args) => matches::run_match(args),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Uci(args) => uci::run(args),
        Command::Xboard(args) => xboard::run(args),
        Command::Realm(args) => realm::run(args),
        Command::Serve(args) => serve::run(args),
    }
}
