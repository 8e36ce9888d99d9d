//! `varia bench realm`: a generated world of boards (10k, 100k and 1M boards, one player
//! per five boards), every player ordering on every board through the bots, validated
//! and resolved in memory. Reports the split (world generation, the round's sight of
//! attacks and guards, bot orders, validation, resolution), the round (all but the
//! generation), the total, its growth per board, and peak memory.

use std::time::Instant;

use varia::Variant;
use varia::world::generate::generate;
use varia::world::moves::Movement;
use varia::world::round;
use varia::world::sight::Sight;

use crate::Fail;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn run(runs: usize, quick: bool, threads: bool) -> Result<(), Fail> {
    let v = Variant::load("caissan")?;
    let rules = v.world.as_deref().ok_or_else(|| Fail("caissan has no [world]".into()))?;
    let m = Movement::new(&v, rules);
    let sizes: &[usize] = if quick { &[10_000, 100_000] } else { &[10_000, 100_000, 1_000_000] };
    println!(
        "realm round: every player orders on every board through the bots (medians of {runs}; {})",
        if threads { "bot orders, validation and resolution on all cores" } else { "one thread" }
    );
    println!(
        "{:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>11} {:>9}",
        "boards",
        "players",
        "orders",
        "gen s",
        "sight s",
        "bots s",
        "valid s",
        "resolve s",
        "round s",
        "total s",
        "µs/board",
        "peak MB"
    );
    for &boards in sizes {
        let players = boards / 5;
        let mut t = [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()];
        let mut orders = 0;
        for r in 0..runs.max(1) {
            let t0 = Instant::now();
            let realm = generate(rules, boards, players, 1 + r as u64);
            let t1 = Instant::now();
            // The start position's attacks and guards, once for the bots and the validation.
            let sight = Sight::new(&m, &realm.cells, threads);
            let ts = Instant::now();
            let given = round::bot_orders_seen(&m, &realm, &sight, 7, threads);
            orders = given.iter().flatten().map(Vec::len).sum::<usize>();
            let t2 = Instant::now();
            let (plans, bots, gave) = round::validate_all_seen(&m, &realm, &sight, given, 7, threads);
            drop(sight);
            let t3 = Instant::now();
            // The world is resolved in place, as a service holding it in memory would;
            // independent groups of boards on all cores (the same result as one thread).
            let res = round::execute_in(&m, realm, plans, bots, &gave, threads);
            let t4 = Instant::now();
            std::hint::black_box(&res.events);
            drop(res);
            for (i, d) in [t1 - t0, ts - t1, t2 - ts, t3 - t2, t4 - t3, t4 - t1].iter().enumerate() {
                t[i].push(d.as_secs_f64());
            }
        }
        let [g, si, b, va, re, round] = t.map(median);
        let total = g + si + b + va + re;
        let peak = crate::bench::peak_rss_mb().map_or("?".into(), |m| format!("{m:.0}"));
        println!(
            "{boards:>10} {players:>9} {orders:>9} {g:>9.3} {si:>9.3} {b:>9.3} {va:>9.3} {re:>9.3} {round:>9.3} {total:>10.3} {:>11.2} {peak:>9}",
            total * 1e6 / boards as f64
        );
    }
    Ok(())
}
