//! `varia realm resolve`: the pure round resolver of a world of boards (DESIGN.md §8).
//! Reads STATE and ORDERS as JSON files, prints the new state, every order's verdict
//! and the events: as JSON with `--json` (byte-identical for the same input), else as
//! readable lines. The other `varia realm` commands run a realm kept in a database,
//! as thin calls into the `varia-realm` crate (realm_service.rs).

use std::collections::BTreeMap;
use std::path::PathBuf;

use varia::Variant;
use varia::variant::Override;
use varia::world::json::StateJson;
use varia::world::state::parse_json;

use crate::Fail;

#[derive(clap::Args)]
pub struct RealmArgs {
    #[command(subcommand)]
    command: RealmCommand,
}

#[derive(clap::Subcommand)]
enum RealmCommand {
    /// Resolve one round: the new state, every order's verdict (with the reason of each
    /// refusal), and what happened.
    Resolve {
        /// The variant (a world of boards).
        #[arg(long, default_value = "caissan")]
        variant: String,
        /// Override values of variant.toml (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// The state before the round.
        #[arg(long, value_name = "STATE.json")]
        state: PathBuf,
        /// The orders: {player: [order, …]}.
        #[arg(long, value_name = "ORDERS.json")]
        orders: PathBuf,
        /// The seed of the bots that order for idle players.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print the contract's JSON.
        #[arg(long)]
        json: bool,
    },
    /// Bots play every player of a fresh realm for N rounds (in memory): boards held per
    /// player over the rounds, eliminations, conquests and vault use.
    Simulate(crate::realm_sim::SimArgs),
    /// Time a stored round of a generated world on each store: load, bots, resolution,
    /// write-back.
    BenchStore(crate::realm_bench::BenchArgs),
    /// Order intake over loopback: concurrent clients submit orders to `serve` on each
    /// store given; accepted orders per second and latency percentiles.
    BenchIntake(crate::realm_bench::IntakeArgs),
    /// Recovery: `serve` killed with SIGKILL during order intake and `advance` during a
    /// resolution, then restarted; orders and state checked against what was
    /// acknowledged.
    BenchRecovery(crate::realm_bench::RecoveryArgs),
    #[command(flatten)]
    Service(crate::realm_service::ServiceCommand),
}

fn read(path: &PathBuf) -> Result<String, Fail> {
    std::fs::read_to_string(path).map_err(|e| Fail(format!("{}: {e}", path.display())))
}

pub fn run(args: RealmArgs) -> Result<(), Fail> {
    match args.command {
        RealmCommand::Resolve { variant, set, state, orders, seed, json } => {
            let overrides = set.iter().map(|s| s.parse()).collect::<Result<Vec<Override>, _>>()?;
            let v = Variant::load_with(&variant, &overrides)?;
            let s: StateJson = parse_json(&read(&state)?, &state.display().to_string())?;
            let o: BTreeMap<String, Vec<serde_json::Value>> =
                parse_json(&read(&orders)?, &orders.display().to_string())?;
            let out = varia::world::resolve_json(&v, &s, &o, seed)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&out)?);
                return Ok(());
            }
            for (player, verdicts) in &out.validation {
                for (i, r) in verdicts.results.iter().enumerate() {
                    let mark = if r.accepted { "ok" } else { "refused" };
                    println!(
                        "{player} order {}: {mark}{}",
                        i + 1,
                        if r.accepted { String::new() } else { format!(": {}", r.reason) }
                    );
                }
                for f in &verdicts.forced_flees {
                    println!("{player}: forced flee {:?}-{:?}", f.from, f.to);
                }
                for p in &verdicts.placements {
                    let how = if p.automatic { "automatic" } else { "ordered" };
                    println!("{player}: king placed on {:?} ({how})", p.to);
                }
            }
            for e in &out.events {
                let fields: Vec<String> = e.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                println!("{} {}: {} {}", e.phase, e.microstep, e.kind, fields.join(" "));
            }
            println!(
                "round {}: {} pieces, {} boards owned",
                out.state.round,
                out.state.pieces.len(),
                out.state.boards.len()
            );
            Ok(())
        }
        RealmCommand::Simulate(a) => crate::realm_sim::run(a),
        RealmCommand::BenchStore(a) => crate::realm_bench::run(a),
        RealmCommand::BenchIntake(a) => crate::realm_bench::intake(a),
        RealmCommand::BenchRecovery(a) => crate::realm_bench::recovery(a),
        RealmCommand::Service(c) => crate::realm_service::run(c),
    }
}
