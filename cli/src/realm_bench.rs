//! `varia realm bench-store`: a stored round of a generated world (issue 13 point 6(b)),
//! timed in its parts on each store given: the load (the world's STATE row read in a
//! write transaction and parsed into the rules' realm), the bots' orders for every
//! player, validation and resolution, and the write-back (the new state serialised,
//! written and committed). The world read back after the commit must equal the
//! resolution's state, or the bench fails.

use std::time::Instant;

use varia::Variant;
use varia::world::generate::generate;
use varia::world::json::StateJson;
use varia::world::moves::Movement;
use varia::world::round;
use varia::world::state::Realm;
use varia_realm::db::Mode;
use varia_realm::{open_store, store};

use crate::Fail;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// A store to time, made for the bench (it must not exist yet): a SQLite file, or
    /// `postgres://user@host:port/database#schema` (a new schema). Repeatable.
    #[arg(long, required = true)]
    db: Vec<String>,
    /// Boards of the generated world (one player per five boards).
    #[arg(long, default_value_t = 1_000_000)]
    boards: usize,
    /// Rounds to time per store (each one resolves the state the last one wrote); the
    /// figures are their medians.
    #[arg(long, default_value_t = 1)]
    runs: usize,
    /// Bots, validation and resolution on one thread.
    #[arg(long)]
    single_thread: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn run(a: BenchArgs) -> Result<(), Fail> {
    let v = Variant::load("caissan")?;
    let rules = v.world.as_deref().ok_or_else(|| Fail("caissan has no [world]".into()))?;
    let m = Movement::new(&v, rules);
    let threads = !a.single_thread;
    let players = (a.boards / 5).max(1);
    let world = generate(rules, a.boards, players, 1).to_json(&v);
    let text = serde_json::to_string(&world)?;
    println!(
        "stored round: {} boards, {players} players, {} pieces, a {:.1} MB STATE row (medians of {})",
        world.boards.len(),
        world.pieces.len(),
        text.len() as f64 / 1e6,
        a.runs.max(1)
    );
    println!(
        "{:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "store", "load s", "bots s", "resolve s", "write s", "total s", "MB out"
    );
    for db in &a.db {
        let mut s = open_store(db, true)?;
        {
            let mut tx = s.begin(Mode::Write)?;
            store::migrate(tx.as_mut())?;
            store::insert_meta(
                tx.as_mut(),
                &store::Meta {
                    name: "bench".into(),
                    variant: "caissan".into(),
                    round_hours: 24,
                    seed: 1,
                    created_at: 0,
                    deadline: 86_400,
                    sector_boards: 10,
                    resolving: None,
                },
            )?;
            store::put_world(tx.as_mut(), 0, &text)?;
            tx.commit()?;
        }
        let mut t: [Vec<f64>; 4] = Default::default();
        let mut out_len = 0;
        for r in 0..a.runs.max(1) {
            let t0 = Instant::now();
            let mut tx = s.begin(Mode::Write)?;
            let (round, stored) = store::world(tx.as_mut())?;
            let state: StateJson = serde_json::from_str(&stored)?;
            let realm = Realm::from_json(&v, &state)?;
            drop((stored, state));
            let t1 = Instant::now();
            let seed = 7 + r as u64;
            let given = round::bot_orders(&m, &realm, seed, threads);
            let t2 = Instant::now();
            let (plans, bots, gave) = round::validate_all(&m, &realm, given, seed, threads);
            let res = round::execute_in(&m, realm, plans, bots, &gave, threads);
            let t3 = Instant::now();
            let after = res.realm.to_json(&v);
            let written = serde_json::to_string(&after)?;
            store::put_world(tx.as_mut(), round + 1, &written)?;
            tx.commit()?;
            let t4 = Instant::now();
            out_len = written.len();
            let mut check = s.begin(Mode::Read)?;
            let (back_round, back) = store::world(check.as_mut())?;
            if back_round != round + 1 || back != written {
                return Err(Fail(format!("{db}: the world read back is not the one written (round {back_round})")));
            }
            for (i, d) in [t1 - t0, t2 - t1, t3 - t2, t4 - t3].iter().enumerate() {
                t[i].push(d.as_secs_f64());
            }
        }
        let [l, b, re, w] = t.map(median);
        let kind = if db.starts_with("postgres") { "postgresql" } else { "sqlite" };
        println!(
            "{kind:<10} {l:>9.3} {b:>9.3} {re:>9.3} {w:>9.3} {:>9.3} {:>9.1}",
            l + b + re + w,
            out_len as f64 / 1e6
        );
    }
    Ok(())
}
