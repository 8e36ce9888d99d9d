//! `varia bench solve`: the solo solver on raw boards dealt from seeds 1..N at every
//! level (kept apart from the other suites: it runs for minutes, not seconds).
//!
//! Per level: the share of boards forged, proved impossible and left undecided within
//! the time limit per board; the median, 95th percentile and longest decision time; and
//! the mean score (time score excluded) of the best route found against the greedy
//! route (always the strike worth most now, ties to the lowest square), with the ratio.
//! The best-score search gets a node allowance per board, so its figures do not depend
//! on the machine; only the times do.

use std::time::{Duration, Instant};

use varia::Variant;
use varia::search::solo::{self, Limits, Verdict};
use varia::solo::{Forge, SoloGame};

use crate::Fail;
use crate::bench::BenchArgs;
use crate::bench::progress;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

pub fn run(args: &BenchArgs) -> Result<(), Fail> {
    let forge = Forge::new(Variant::load(&args.solo_variant)?)?;
    let limit = Duration::from_secs_f64(args.board_time.max(0.001));
    let best_nodes = args.best_nodes;
    println!(
        "{} raw boards per level (seeds 1..{}), decision limit {:.0} s per board, best-score search {} nodes",
        args.boards,
        args.boards,
        limit.as_secs_f64(),
        best_nodes
    );
    println!(
        "{:<11} {:>7} {:>10} {:>10} {:>8} {:>8} {:>8} {:>11} {:>9} {:>6}",
        "level", "forged", "impossible", "undecided", "med ms", "p95 ms", "max ms", "greedy mean", "best mean", "ratio"
    );
    let rules = forge.rules();
    for (li, level) in rules.levels.iter().enumerate() {
        if args.only.as_ref().is_some_and(|o| !level.name.contains(o.as_str())) {
            continue;
        }
        let (mut forged, mut impossible, mut undecided) = (0, 0, 0);
        let mut times = Vec::new();
        let (mut greedy_sum, mut best_sum) = (0i64, 0i64);
        let mut slowest = (0.0, 0u64);
        let mut node_counts = Vec::new();
        for seed in 1..=args.boards {
            progress!("\r{} seed {seed}/{}   ", level.name, args.boards);
            let g = SoloGame::dealt(forge.clone(), li, seed);
            let decision = match args.board_nodes {
                Some(n) => Limits { nodes: Some(n), time: None },
                None => Limits { nodes: None, time: Some(limit) },
            };
            let s = solo::solve_in(&g, decision, Limits { nodes: Some(best_nodes), time: None });
            node_counts.push(s.decision_nodes);
            let secs = s.decision_elapsed.as_secs_f64();
            let greedy = solo::greedy(&g).1;
            match s.verdict {
                Verdict::Forged => forged += 1,
                Verdict::Impossible => impossible += 1,
                Verdict::Undecided => undecided += 1,
            }
            if secs > slowest.0 {
                slowest = (secs, seed);
            }
            times.push(secs * 1000.0);
            greedy_sum += greedy.0;
            best_sum += s.best_score.0;
            if args.verbose {
                progress!("\r");
                eprintln!(
                    "{} seed {seed}: {} in {:.1} ms ({} nodes); best {} ({} nodes in all), greedy {}",
                    level.name,
                    s.verdict.name(),
                    secs * 1000.0,
                    s.decision_nodes,
                    s.best_score,
                    s.nodes,
                    greedy
                );
            }
        }
        progress!("\r                                   \r");
        times.sort_by(|a, b| a.total_cmp(b));
        let n = args.boards.max(1) as f64;
        let pct = |c: i32| format!("{:.0}%", c as f64 * 100.0 / n);
        let greedy_mean = greedy_sum as f64 / n / 10.0;
        let best_mean = best_sum as f64 / n / 10.0;
        println!(
            "{:<11} {:>7} {:>10} {:>10} {:>8.1} {:>8.1} {:>8.1} {:>11.1} {:>9.1} {:>5.2}×",
            level.name,
            pct(forged),
            pct(impossible),
            pct(undecided),
            percentile(&times, 0.5),
            percentile(&times, 0.95),
            times.last().copied().unwrap_or(0.0),
            greedy_mean,
            best_mean,
            if greedy_mean > 0.0 { best_mean / greedy_mean } else { 0.0 }
        );
        if node_counts.is_empty() {
            continue;
        }
        node_counts.sort_unstable();
        let nodes_at =
            |q: f64| node_counts[((node_counts.len() as f64 * q).ceil() as usize).clamp(1, node_counts.len()) - 1];
        println!(
            "{:<11} decision nodes: median {}, p95 {}, max {}; slowest board: seed {} ({:.1} ms)",
            "",
            nodes_at(0.5),
            nodes_at(0.95),
            node_counts.last().copied().unwrap_or(0),
            slowest.1,
            slowest.0 * 1000.0
        );
        // What `varia play` waits for: a forgeable board of the same seeds, dealt within
        // `[generation] solver_nodes` per drawn board.
        let mut deals = Vec::new();
        for seed in 1..=args.boards {
            progress!("\r{} dealing seed {seed}/{}   ", level.name, args.boards);
            let t = Instant::now();
            solo::deal(&forge, li, seed, false)?;
            deals.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        progress!("\r                                   \r");
        deals.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{:<11} dealing a forgeable board: median {:.1} ms, p95 {:.1} ms, max {:.1} ms",
            "",
            percentile(&deals, 0.5),
            percentile(&deals, 0.95),
            deals.last().copied().unwrap_or(0.0)
        );
    }
    Ok(())
}
