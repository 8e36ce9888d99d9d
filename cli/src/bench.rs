//! `varia bench`: move-generation speed, measured side by side with Fairy-Stockfish.
//!
//! Machines are noisy, so both engines run in the same invocation, alternately, and the
//! report gives medians and the ratio. Fairy-Stockfish counts leaves in bulk at depth 1,
//! as varia's perft does, so the node counts (and the work) are comparable.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

use varia::{Game, Variant};

use crate::Fail;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Runs per engine and case; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// One depth less for every case (a quick look).
    #[arg(long)]
    quick: bool,
    /// The Fairy-Stockfish binary (skipped if not found).
    #[arg(long, default_value = "/usr/games/fairy-stockfish")]
    peer: String,
    /// Only cases whose label contains this text.
    #[arg(long)]
    only: Option<String>,
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
    Case {
        label: "standard start",
        variant: "standard",
        fen: None,
        depth: 6,
        peer_variant: "chess",
        peer_fen: None,
    },
    Case {
        label: "standard kiwipete",
        variant: "standard",
        fen: Some(KIWIPETE),
        depth: 5,
        peer_variant: "chess",
        peer_fen: Some(KIWIPETE),
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
    let script = format!(
        "uci\nsetoption name UCI_Variant value {variant}\nisready\n{position}\ngo perft {depth}\nquit\n"
    );
    let t = Instant::now();
    let mut child = Command::new(peer)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take()?.write_all(script.as_bytes()).ok()?;
    let out = child.wait_with_output().ok()?;
    let secs = t.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let nodes = text
        .lines()
        .find_map(|l| l.strip_prefix("Nodes searched: "))?
        .trim()
        .parse()
        .ok()?;
    Some((nodes, secs))
}

/// Peak resident memory of this process so far, in MB (Linux; None elsewhere).
fn peak_rss_mb() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = s
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

pub fn run(args: BenchArgs) -> Result<(), Fail> {
    let runs = args.runs.max(1);
    let peer_ok = std::path::Path::new(&args.peer).exists();
    if !peer_ok {
        eprintln!(
            "note: {} not found; install it with `apt-get install fairy-stockfish` for the side-by-side figures",
            args.peer
        );
    }
    println!(
        "{:<22} {:>5} {:>12} {:>10} {:>12} {:>10} {:>7}",
        "case", "depth", "nodes", "varia s", "varia Mn/s", "peer Mn/s", "ratio"
    );
    for case in CASES.iter().filter(|c| {
        args.only
            .as_ref()
            .is_none_or(|o| c.label.contains(o.as_str()))
    }) {
        let depth = if args.quick {
            case.depth - 1
        } else {
            case.depth
        };
        let v = Variant::load(case.variant)?;
        let game = match case.fen {
            Some(f) => Game::from_fen(v, f)?,
            None => Game::new(v),
        };
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let mut nodes = 0;
        let mut peer_nodes = None;
        for i in 0..runs {
            eprint!("\r{} depth {depth}: run {}/{runs}   ", case.label, i + 1);
            let t = Instant::now();
            nodes = game.perft(depth);
            ours.push(t.elapsed().as_secs_f64());
            if peer_ok
                && let Some((n, s)) =
                    peer_perft(&args.peer, case.peer_variant, case.peer_fen, depth)
            {
                peer_nodes = Some(n);
                theirs.push(s);
            }
        }
        eprint!("\r{:60}\r", "");
        let our_s = median(ours);
        let our_rate = nodes as f64 / our_s / 1e6;
        let (peer_rate, ratio) = if theirs.is_empty() {
            ("-".to_string(), "-".to_string())
        } else {
            let r = peer_nodes.unwrap() as f64 / median(theirs) / 1e6;
            (format!("{r:.1}"), format!("{:.2}x", our_rate / r))
        };
        println!(
            "{:<22} {:>5} {:>12} {:>10.3} {:>12.1} {:>10} {:>7}",
            case.label, depth, nodes, our_s, our_rate, peer_rate, ratio
        );
        if let Some(n) = peer_nodes
            && n != nodes
        {
            println!("  warning: node counts differ: varia {nodes}, peer {n}");
        }
    }
    if let Some(mb) = peak_rss_mb() {
        println!("peak memory of this process: {mb:.1} MB");
    }
    Ok(())
}
