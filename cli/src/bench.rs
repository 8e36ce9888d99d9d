//! `varia bench`: speed, measured, never guessed.
//!
//! - `perft`: move generation, side by side with Fairy-Stockfish (and, with `--baseline`,
//!   with another varia binary, e.g. a build from before a change). Machines are noisy,
//!   so the engines run alternately in the same invocation; the report gives medians and
//!   ratios. Fairy-Stockfish counts leaves in bulk at depth 1, as varia's perft does.
//! - `hooks`: the cost of one Lua hook call, of a whole action with a trivial hook, and
//!   perft of the same rule as data and as a hook (`allow`, and `filter_actions`), in
//!   the same run, with the ratio.
//! - `load`: the time to load each shipped variant (TOML, tables and Lua).
//! - `ai`: the computer player's move time per level from the start position (median of
//!   the runs, with the level's own time budget), its depth and nodes per second.
//! - `selfplay`: games played to their end per second, random and novice, against
//!   python-chess's random playouts (`bench_selfplay.rs`).
//! - `memory`: the peak memory of long games whose hooks keep state (`memory.rs`).

mod memory;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use varia::{Game, Hook, HookGame, Variant};

use crate::Fail;

/// A progress line on stderr, rewritten in place (`\r`): only on a terminal, so a log or a
/// pipe gets the results alone.
macro_rules! progress {
    ($($arg:tt)*) => {
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            eprint!($($arg)*);
        }
    };
}
pub(crate) use progress;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// What to measure: perft, hooks, load, ai, selfplay, memory, realm, solve (several
    /// allowed; default perft).
    suites: Vec<String>,
    /// Runs per case; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// One depth less for every perft case (a quick look).
    #[arg(long)]
    quick: bool,
    /// The Fairy-Stockfish binary (skipped if not found).
    #[arg(long, default_value = "/usr/games/fairy-stockfish")]
    peer: String,
    /// Another varia binary to run the same perft (and memory) cases with, side by side.
    #[arg(long, value_name = "VARIA")]
    baseline: Option<String>,
    /// Only perft cases whose label contains this text (`solve`: only levels whose name
    /// contains it; `selfplay`: only the random playouts of variants whose name contains
    /// it, for profiling).
    #[arg(long)]
    pub only: Option<String>,
    /// `solve`: the solo variant.
    #[arg(long, default_value = "chessic")]
    pub solo_variant: String,
    /// `solve`: boards per level (seeds 1..N).
    #[arg(long, default_value_t = 100)]
    pub boards: u64,
    /// `solve`: the decision's time limit per board, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub board_time: f64,
    /// `solve`: a node limit per board for the decision instead of the time limit
    /// (machine-independent verdicts).
    #[arg(long)]
    pub board_nodes: Option<u64>,
    /// `solve`: the best-score search's allowance per board, in nodes.
    #[arg(long, default_value_t = 100_000)]
    pub best_nodes: u64,
    /// `solve`: a line per board.
    #[arg(long)]
    pub verbose: bool,
    /// realm: validate and order on one thread only.
    #[arg(long)]
    single_thread: bool,
}

struct Case {
    label: &'static str,
    variant: &'static str,
    fen: Option<&'static str>,
    depth: u32,
    /// Fairy-Stockfish's name for the same game, and its FEN if it differs.
    peer_variant: &'static str,
    peer_fen: Option<&'static str>,
}

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

const CASES: &[Case] = &[
    Case { label: "standard start", variant: "standard", fen: None, depth: 6, peer_variant: "chess", peer_fen: None },
    Case {
        label: "standard kiwipete",
        variant: "standard",
        fen: Some(KIWIPETE),
        depth: 5,
        peer_variant: "chess",
        peer_fen: Some(KIWIPETE),
    },
    // 10×10 against Fairy-Stockfish's Grand chess (another 10×10 game): nodes per second
    // on a board of the same size, not the same rules.
    Case { label: "decachess start", variant: "decachess", fen: None, depth: 4, peer_variant: "grand", peer_fen: None },
    // HP variant: no peer plays it; nodes per second of the whole pipeline's core (hooks
    // excluded, as perft counts moves).
    Case {
        label: "chessception start",
        variant: "chessception",
        fen: None,
        depth: 4,
        peer_variant: "",
        peer_fen: None,
    },
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Runs Fairy-Stockfish's perft; returns (nodes, seconds).
fn peer_perft(peer: &str, variant: &str, fen: Option<&str>, depth: u32) -> Option<(u64, f64)> {
    let position = match fen {
        Some(f) => format!("position fen {f}"),
        None => "position startpos".to_string(),
    };
    let script =
        format!("uci\nsetoption name UCI_Variant value {variant}\nisready\n{position}\ngo perft {depth}\nquit\n");
    let t = Instant::now();
    let mut child =
        Command::new(peer).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().ok()?;
    child.stdin.take()?.write_all(script.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    let secs = t.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let nodes = text.lines().find_map(|l| l.strip_prefix("Nodes searched: "))?.trim().parse().ok()?;
    Some((nodes, secs))
}

/// Runs another varia binary's perft; returns (nodes, seconds as it reports them).
fn baseline_perft(bin: &str, case: &Case, depth: u32) -> Option<(u64, f64)> {
    let mut cmd = Command::new(bin);
    cmd.args(["perft", case.variant, &depth.to_string()]);
    if let Some(f) = case.fen {
        cmd.args(["--fen", f]);
    }
    let out = cmd.output().ok()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    // "perft 6: 119060324 nodes in 2.252 s (...)"
    let secs = stderr.split(" nodes in ").nth(1)?.split(' ').next()?.parse().ok()?;
    let nodes = String::from_utf8_lossy(&out.stdout).lines().last()?.trim().parse().ok()?;
    Some((nodes, secs))
}

/// Peak resident memory of this process so far, in MB (Linux; None elsewhere).
pub(crate) fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 =
        s.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb / 1024.0)
}

pub fn run(args: BenchArgs) -> Result<(), Fail> {
    let suites = if args.suites.is_empty() { vec!["perft".to_string()] } else { args.suites.clone() };
    for s in &suites {
        match s.as_str() {
            "perft" => perft(&args)?,
            "hooks" => hooks(&args)?,
            "load" => load(&args)?,
            "ai" => ai(&args)?,
            "selfplay" => crate::bench_selfplay::run(args.runs, args.only.as_deref())?,
            "memory" => memory::memory(&args)?,
            "realm" => crate::bench_realm::run(args.runs, args.quick, !args.single_thread)?,
            "solve" => crate::bench_solve::run(&args)?,
            other => {
                return Err(Fail(format!(
                    "unknown suite `{other}`; expected perft, hooks, load, ai, selfplay, memory, realm or solve"
                )));
            }
        }
    }
    Ok(())
}

fn perft(args: &BenchArgs) -> Result<(), Fail> {
    let runs = args.runs.max(1);
    let peer_ok = std::path::Path::new(&args.peer).exists();
    if !peer_ok {
        eprintln!(
            "note: {} not found; install it with `apt-get install fairy-stockfish` for the side-by-side figures",
            args.peer
        );
    }
    let other = if args.baseline.is_some() { "baseline" } else { "peer" };
    println!(
        "{:<22} {:>5} {:>12} {:>10} {:>12} {:>10} {:>7}",
        "case",
        "depth",
        "nodes",
        "varia s",
        "varia Mn/s",
        format!("{other} Mn/s"),
        "ratio"
    );
    for case in CASES.iter().filter(|c| args.only.as_ref().is_none_or(|o| c.label.contains(o.as_str()))) {
        let depth = if args.quick { case.depth - 1 } else { case.depth };
        // Move generation alone: hooks are measured by `selfplay`.
        let v = Variant::load(case.variant)?.without_hooks();
        let game = match case.fen {
            Some(f) => Game::from_fen(v, f)?,
            None => Game::new(v),
        };
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let mut nodes = 0;
        let mut their_nodes = None;
        for i in 0..runs {
            progress!("\r{} depth {depth}: run {}/{runs}   ", case.label, i + 1);
            let t = Instant::now();
            nodes = game.perft(depth);
            ours.push(t.elapsed().as_secs_f64());
            let r = match &args.baseline {
                Some(bin) => baseline_perft(bin, case, depth),
                None if peer_ok && !case.peer_variant.is_empty() => {
                    peer_perft(&args.peer, case.peer_variant, case.peer_fen, depth)
                }
                None => None,
            };
            if let Some((n, s)) = r {
                their_nodes = Some(n);
                theirs.push(s);
            }
        }
        progress!("\r{:60}\r", "");
        let our_s = median(ours);
        let our_rate = nodes as f64 / our_s / 1e6;
        let (their_rate, ratio) = if theirs.is_empty() {
            ("-".to_string(), "-".to_string())
        } else {
            let r = their_nodes.unwrap() as f64 / median(theirs) / 1e6;
            (format!("{r:.1}"), format!("{:.2}x", our_rate / r))
        };
        println!(
            "{:<22} {:>5} {:>12} {:>10.3} {:>12.1} {:>10} {:>7}",
            case.label, depth, nodes, our_s, our_rate, their_rate, ratio
        );
        if let Some(n) = their_nodes
            && n != nodes
            && (args.baseline.is_some() || case.peer_variant == "chess")
        {
            println!("  warning: node counts differ: varia {nodes}, {other} {n}");
        }
    }
    if let Some(mb) = peak_rss_mb() {
        println!("peak memory of this process: {mb:.1} MB");
    }
    Ok(())
}

/// A scratch variant folder: standard chess plus `rules`.
fn scripted(rules: &str) -> Result<std::sync::Arc<Variant>, Fail> {
    let dir = std::env::temp_dir().join(format!("varia-bench-{}-{}", std::process::id(), rules.len()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n")?;
    std::fs::write(dir.join("rules.lua"), rules)?;
    let v = Variant::load(dir.to_str().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    Ok(v?)
}

/// A scratch variant folder: standard chess with `toml` added and, if given, `rules`.
fn scratch(toml: &str, rules: Option<&str>) -> Result<std::sync::Arc<Variant>, Fail> {
    let n = NEXT_SCRATCH.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("varia-bench-{}-r{n}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("variant.toml"), format!("extends = \"standard\"\n{toml}\n"))?;
    if let Some(rules) = rules {
        std::fs::write(dir.join("rules.lua"), rules)?;
    }
    let v = Variant::load(dir.to_str().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    Ok(v?)
}

static NEXT_SCRATCH: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Position 4 of the chessprogramming wiki: promotions for both sides within a few plies.
const POSITION_4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const NO_QUEENS_DATA: &str =
    "[pieces.pawn]\npromotion = { zone = \"last_rank\", to = [\"rook\", \"bishop\", \"knight\"] }";

/// Perft of one rule written as data and as a hook, alternately in the same run: the
/// hook's price as a ratio of nodes per second (the target is within 10×).
fn hooks_perft(args: &BenchArgs) -> Result<(), Fail> {
    let runs = args.runs.max(1);
    let quick = u32::from(args.quick);
    struct Pair {
        label: &'static str,
        fen: &'static str,
        depth: u32,
        data: &'static str,
        rules: &'static str,
    }
    let pairs = [
        Pair {
            label: "no queen promotion: allow (promotions)",
            fen: POSITION_4,
            depth: 5,
            data: NO_QUEENS_DATA,
            rules: "allow_when = { promotion = true }\nfunction allow(game, a) return a.promotion ~= \"queen\" end\n",
        },
        Pair {
            label: "every action through allow (returns)",
            fen: KIWIPETE,
            depth: 4,
            data: "",
            rules: "function allow(game, a) end\n",
        },
        Pair {
            label: "every action through allow (reads two)",
            fen: KIWIPETE,
            depth: 4,
            data: "",
            rules: "function allow(game, a) local to, piece = a.to, a.piece end\n",
        },
        Pair {
            label: "each capture: allow asks game:attacked",
            fen: KIWIPETE,
            depth: 4,
            data: "",
            // Asks the core on every capture and allows it (so the counts are chess's).
            rules: "allow_when = { capture = true }\nfunction allow(game, a)\n  return game:attacked(a.to, game:to_move()) or true\nend\n",
        },
        Pair {
            label: "no queen promotion: filter_actions",
            fen: POSITION_4,
            depth: 3,
            data: NO_QUEENS_DATA,
            rules: "function filter_actions(game, actions)\n  local out = {}\n  for _, a in ipairs(actions) do\n    if not a:find(\"=Q\", 1, true) then out[#out + 1] = a end\n  end\n  return out\nend\n",
        },
    ];
    println!(
        "{:<40} {:>5} {:>10} {:>11} {:>11} {:>7}",
        "perft: a rule as data and as a hook", "depth", "nodes", "data Mn/s", "hook Mn/s", "ratio"
    );
    for p in pairs {
        let depth = p.depth.saturating_sub(quick).max(1);
        let data = Game::from_fen(scratch(p.data, None)?, p.fen)?;
        // The hooked variant is standard chess with the rule in Lua alone.
        let hooked = Game::from_fen(scratch("", Some(p.rules))?, p.fen)?;
        let (mut ds, mut hs) = (Vec::new(), Vec::new());
        let (mut dn, mut hn) = (0, 0);
        for i in 0..runs {
            progress!("\r{} depth {depth}: run {}/{runs}   ", p.label, i + 1);
            let t = Instant::now();
            dn = data.perft(depth);
            ds.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            hn = hooked.try_perft(depth).map_err(|e| Fail(e.to_string()))?;
            hs.push(t.elapsed().as_secs_f64());
        }
        progress!("\r{:60}\r", "");
        if dn != hn {
            return Err(Fail(format!("{}: the data variant counts {dn}, the hooked one {hn}", p.label)));
        }
        let (dr, hr) = (dn as f64 / median(ds) / 1e6, hn as f64 / median(hs) / 1e6);
        println!("{:<40} {:>5} {:>10} {:>11.2} {:>11.3} {:>6.1}x", p.label, depth, dn, dr, hr, dr / hr);
    }
    Ok(())
}

fn hooks(args: &BenchArgs) -> Result<(), Fail> {
    hooks_perft(args)?;
    let runs = args.runs.max(1);
    const CALLS: u32 = 200_000;
    println!("{:<46} {:>12}", "hook", "ns per call");
    let cases: [(&str, &str); 3] = [
        (
            "on_damage(game, square, amount, cause): returns",
            "function on_damage(game, sq, amount, cause) return amount end",
        ),
        (
            "on_damage, reading game:piece(square)",
            "function on_damage(game, sq, amount, cause)\n  local p = game:piece(sq)\n  return amount\nend",
        ),
        ("check_outcome(game): returns nil", "function check_outcome(game) return nil end"),
    ];
    for (label, rules) in cases {
        let v = scripted(rules)?;
        let h = v.hooks.clone().ok_or_else(|| Fail("the bench variant has no hooks".into()))?;
        let game = Game::new(v.clone());
        let sq = v.geometry.parse("e2")?;
        let mut samples = Vec::new();
        for _ in 0..runs {
            let mut view = HookGame::read_only(&game);
            let t = Instant::now();
            for _ in 0..CALLS {
                if h.defines(Hook::OnDamage) {
                    h.on_damage(&mut view, sq, 2, "primary").map_err(|e| Fail(e.to_string()))?;
                } else {
                    h.check_outcome(&mut view).map_err(|e| Fail(e.to_string()))?;
                }
            }
            samples.push(t.elapsed().as_secs_f64() * 1e9 / CALLS as f64);
        }
        println!("{label:<46} {:>12.0}", median(samples));
    }

    // Whole actions: apply and undo a move, with no hooks and with a trivial after_action.
    println!("{:<46} {:>12}", "a whole action (apply + undo)", "ns per action");
    let plain = Variant::load("standard")?;
    let hooked = scripted("function after_action(game, action) end")?;
    for (label, v) in [("no hooks", plain), ("a trivial after_action hook", hooked)] {
        let mut game = Game::new(v);
        let a = game.parse_action("g1-f3")?;
        let mut samples = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            for _ in 0..CALLS / 4 {
                game.apply(a)?;
                game.undo(1);
            }
            samples.push(t.elapsed().as_secs_f64() * 1e9 / (CALLS / 4) as f64);
        }
        println!("{label:<46} {:>12.0}", median(samples));
    }

    // Runaway hooks: how long until the action fails with the script's error (the
    // target is under 100 ms), with the shipped limits.
    println!("{:<46} {:>12}", "a runaway after_action hook", "ms to stop");
    let runaways: [(&str, &str); 4] = [
        ("endless loop (instruction budget)", "while true do end"),
        ("string.rep in a loop", "while true do local s = string.rep('x', 9000) end"),
        (
            "`..` on an 8 MB string (time limit)",
            "local s = string.rep('x', 1 << 23)\nwhile true do local t = s .. 'y' end",
        ),
        ("a backtracking pattern (refused)", "local s = string.rep('a', 5000)\nlocal i = s:find('a*a*b')"),
    ];
    for (label, body) in runaways {
        let mut samples = Vec::new();
        for _ in 0..runs {
            // A fresh Lua state each run: the last run's garbage does not count.
            let v = scripted(&format!("function after_action(game, action)\n{body}\nend\n"))?;
            let mut game = Game::new(v);
            let a = game.parse_action("g1-f3")?;
            let t = Instant::now();
            match game.apply(a) {
                Ok(_) => return Err(Fail(format!("the runaway hook `{label}` was not stopped"))),
                Err(e) if std::env::var_os("VARIA_BENCH_VERBOSE").is_some() => eprintln!("{label}: {e}"),
                Err(_) => {}
            }
            samples.push(t.elapsed().as_secs_f64() * 1e3);
        }
        println!("{label:<46} {:>12.1}", median(samples));
    }
    Ok(())
}

fn load(args: &BenchArgs) -> Result<(), Fail> {
    let runs = args.runs.max(5);
    println!("{:<22} {:>12}", "variant", "load ms");
    for found in varia::variant::known_variants() {
        let name = found.name;
        let mut samples = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            Variant::load_origin(&found.origin, &[])?;
            samples.push(t.elapsed().as_secs_f64() * 1e3);
        }
        println!("{name:<22} {:>12.2}", median(samples));
    }
    Ok(())
}

/// Positions for the `ai` suite: the start of each shipped two-sided game, and a busy
/// middlegame for the search's speed. Chessception has hooks: the slow back end.
const AI_CASES: &[(&str, &str, Option<&str>)] = &[
    ("standard start", "standard", None),
    ("standard kiwipete", "standard", Some(KIWIPETE)),
    ("decachess start", "decachess", None),
    ("chessception start", "chessception", None),
];

fn ai(args: &BenchArgs) -> Result<(), Fail> {
    use varia::search::{AiConfig, Clock};
    let runs = args.runs.max(5);
    println!(
        "{:<20} {:<8} {:<5} {:>5} {:>10} {:>10} {:>9}  move",
        "case", "level", "back", "depth", "nodes", "median ms", "Mnodes/s"
    );
    for &(label, variant, fen) in
        AI_CASES.iter().filter(|c| args.only.as_ref().is_none_or(|o| c.0.contains(o.as_str())))
    {
        let v = match Variant::load(variant) {
            Ok(v) => v,
            Err(e) => {
                println!("{label:<20} skipped: {}", e.to_string().lines().next().unwrap_or_default());
                continue;
            }
        };
        let game = match fen {
            Some(f) => Game::from_fen(v, f)?,
            None => Game::new(v),
        };
        let config = AiConfig::from_variant(game.variant()).map_err(varia::search::AiError::Config)?;
        for (name, level) in &config.levels {
            let mut secs = Vec::new();
            let mut last = None;
            for i in 0..runs {
                progress!("\r{label} {name}: run {}/{runs}   ", i + 1);
                let t = Instant::now();
                let r = game.search(&config, level, 0, Clock::Budget(t))?;
                secs.push(t.elapsed().as_secs_f64());
                last = Some(r);
            }
            progress!("\r{:60}\r", "");
            let r = last.expect("at least one run");
            let s = median(secs);
            println!(
                "{:<20} {:<8} {:<5} {:>5} {:>10} {:>10.1} {:>9.2}  {}{}",
                label,
                name,
                r.backend.name(),
                r.depth,
                r.nodes,
                s * 1e3,
                r.nodes as f64 / s.max(1e-9) / 1e6,
                game.format(&r.action),
                if r.stopped { " (time budget spent)" } else { "" }
            );
        }
    }
    Ok(())
}
