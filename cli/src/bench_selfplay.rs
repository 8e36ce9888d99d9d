//! `varia bench selfplay`: how fast games are played to their end, per core.
//!
//! - random playouts (a uniformly random legal action until the game ends, the end
//!   checked every ply) on the lean path (`varia::Playout`), for every shipped two-sided
//!   variant, with its hooks and without them, and on the full path (`Game::apply` and
//!   `legal_actions`, as a tool would play) for comparison;
//! - python-chess's random playouts of standard chess in the same run
//!   (`cli/bench/python_chess_playouts.py`), alternating with varia's, and the ratio of
//!   plies per second;
//! - novice-level games (the AI against itself, no clock) per second.
//!
//! One thread throughout: the figures are per core. With `--only NAME`, only the random
//! playouts of the variants whose name contains NAME run (with python-chess beside
//! standard chess), which is what a profiler is pointed at:
//! `valgrind --tool=callgrind --toggle-collect='*bench_selfplay*lean*' varia bench selfplay
//! --runs 1 --only chessception` counts the instructions of the lean path alone.

use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use varia::rng::Rng;
use varia::search::{AiConfig, Clock};
use varia::variant::{TurnModel, known_variants};
use varia::{Game, Playout, Variant};

use crate::Fail;

/// A playout longer than this is stopped (only 10×10 and larger games get near it).
const CAP: usize = 2000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Random playouts on the lean path: (playouts, plies, seconds). Never inlined, so that
/// a profiler can count it alone.
#[inline(never)]
fn lean(v: &Arc<Variant>, playouts: u64, seed: u64) -> Result<(u64, u64, f64), Fail> {
    let mut rng = Rng::new(seed);
    let mut plies = 0u64;
    let t = Instant::now();
    for _ in 0..playouts {
        let mut p = Playout::new(Game::new(v.clone()))?;
        let mut n = 0;
        while p.outcome().is_none() && n < CAP {
            if p.play_random(&mut rng)?.is_none() {
                break;
            }
            n += 1;
        }
        plies += n as u64;
    }
    Ok((playouts, plies, t.elapsed().as_secs_f64()))
}

/// Random playouts through `Game::apply` and `legal_actions` (the full pipeline).
#[inline(never)]
fn full(v: &Arc<Variant>, playouts: u64, seed: u64) -> Result<(u64, u64, f64), Fail> {
    let mut rng = Rng::new(seed);
    let mut plies = 0u64;
    let t = Instant::now();
    for _ in 0..playouts {
        let mut g = Game::new(v.clone());
        let mut n = 0;
        while n < CAP {
            let legal = g.legal_actions();
            if legal.is_empty() {
                break;
            }
            g.apply(legal[rng.below(legal.len() as u64) as usize])?;
            n += 1;
        }
        plies += n as u64;
    }
    Ok((playouts, plies, t.elapsed().as_secs_f64()))
}

/// Novice against novice to the end (at most 200 plies): (games, plies, seconds).
fn novice(v: &Arc<Variant>, games: u64, seed: u64) -> Result<(u64, u64, f64), Fail> {
    let config = AiConfig::from_variant(v).map_err(|p| Fail(format!("{} [ai]: {} problems", v.name, p.len())))?;
    let level = config.level("novice").map_err(Fail)?;
    let mut plies = 0u64;
    let t = Instant::now();
    for g in 0..games {
        let mut p = Playout::new(Game::new(v.clone()))?;
        let mut n = 0u64;
        while p.outcome().is_none() && n < 200 && !p.legal().is_empty() {
            let r = p.game().search(&config, level, seed.wrapping_add(g * 1000 + n), Clock::Off)?;
            p.apply_action(r.action)?;
            n += 1;
        }
        plies += n;
    }
    Ok((games, plies, t.elapsed().as_secs_f64()))
}

/// python-chess's playouts: (playouts, plies, seconds), or None without python3 and chess.
fn python(playouts: u64, seed: u64, claim: bool) -> Option<(u64, u64, f64)> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/python_chess_playouts.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(playouts.to_string())
        .arg(seed.to_string())
        .arg(if claim { "claim" } else { "noclaim" })
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    Some((j["playouts"].as_u64()?, j["plies"].as_u64()?, j["seconds"].as_f64()?))
}

fn row(label: &str, samples: &[(u64, u64, f64)]) -> (f64, f64) {
    let games = median(samples.iter().map(|s| s.0 as f64 / s.2).collect());
    let plies = median(samples.iter().map(|s| s.1 as f64 / s.2).collect());
    let mean_len = samples.iter().map(|s| s.1 as f64 / s.0 as f64).sum::<f64>() / samples.len() as f64;
    println!("{label:<44} {games:>12.1} {plies:>14.0} {mean_len:>10.0}");
    (games, plies)
}

pub fn run(runs: usize, only: Option<&str>) -> Result<(), Fail> {
    let runs = runs.max(1);
    let chosen = |name: &str| only.is_none_or(|o| name.contains(o));
    println!("{:<44} {:>12} {:>14} {:>10}", "random playouts (one core)", "games/s", "plies/s", "plies/game");
    // Standard chess against python-chess first, alternating in the same run.
    let standard = Variant::load("standard")?;
    let (mut ours, mut claim, mut noclaim) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..runs as u64 * u64::from(chosen(&standard.name)) {
        ours.push(lean(&standard, 300, r + 1)?);
        if let Some(s) = python(8, r + 1, true) {
            claim.push(s);
        }
        if let Some(s) = python(20, r + 1, false) {
            noclaim.push(s);
        }
    }
    let varia_plies = if ours.is_empty() { 0.0 } else { row("standard, varia (lean path)", &ours).1 };
    for (label, samples) in
        [("standard, python-chess (same end rules)", &claim), ("standard, python-chess (is_game_over())", &noclaim)]
    {
        if ours.is_empty() {
            continue;
        }
        if samples.is_empty() {
            println!("{label:<44} (skipped: python3 with the chess package not found)");
            continue;
        }
        let (_, theirs) = row(label, samples);
        println!(
            "{:<44} {:>12} {:>14}",
            "  varia's plies/s over python-chess's",
            "",
            format!("{:.0}×", varia_plies / theirs)
        );
    }
    let mut hooked = Vec::new();
    for found in known_variants() {
        let v = Variant::load_origin(&found.origin, &[])?;
        if v.turns != TurnModel::Alternate || !chosen(&v.name) {
            continue;
        }
        let mut cases = vec![("", v.clone())];
        if v.hooks.is_some() {
            cases = vec![(" with its Lua", v.clone()), (" without its Lua", v.without_hooks())];
        }
        let mut rates = Vec::new();
        for (what, case) in cases {
            let n = if what == " with its Lua" { 20 } else { 100 };
            let lean_s = (0..runs as u64).map(|r| lean(&case, n, r + 1)).collect::<Result<Vec<_>, _>>()?;
            let full_s = (0..runs as u64).map(|r| full(&case, n / 2, r + 1)).collect::<Result<Vec<_>, _>>()?;
            let (_, l) = row(&format!("{}{what}, lean path", v.name), &lean_s);
            let (_, f) = row(&format!("{}{what}, full path", v.name), &full_s);
            println!("{:<44} {:>12} {:>14}", "  lean over full", "", format!("{:.1}×", l / f));
            rates.push(l);
        }
        if rates.len() == 2 {
            hooked.push((v.name.clone(), rates[1] / rates[0]));
        }
    }
    for (name, r) in hooked {
        println!("{name}: the hooked lean path is {r:.1}× slower than the unhooked one (target: at most 2×)");
    }
    if only.is_some() {
        return Ok(());
    }
    println!();
    println!(
        "{:<44} {:>12} {:>14} {:>10}",
        "novice against novice (one core, ≤200 plies)", "games/s", "plies/s", "plies/game"
    );
    for found in known_variants() {
        let v = Variant::load_origin(&found.origin, &[])?;
        if v.turns != TurnModel::Alternate {
            continue;
        }
        let s = (0..runs as u64).map(|r| novice(&v, 2, r + 1)).collect::<Result<Vec<_>, _>>()?;
        row(&v.name, &s);
    }
    Ok(())
}
