//! `varia realm new | join | order | show | advance | chat | mayor | transfer | serve`:
//! a realm kept in a database (a SQLite file, or `postgres://…#schema`), each command
//! a thin call into `varia_realm::Service`. `--at SECONDS` pins the clock (Unix time, UTC) for scripts
//! and tests; without it the machine's clock is used.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use varia_realm::{Clock, ManualClock, RealmConfig, Service, SystemClock, open_store};

use crate::Fail;

#[derive(clap::Args)]
pub struct DbArgs {
    /// The realm's database: a file path (SQLite), or `postgres://…[#schema]`.
    #[arg(long, value_name = "PATH|URL")]
    db: String,
    /// The clock's reading, in Unix seconds (default: the machine's clock).
    #[arg(long, value_name = "SECONDS")]
    at: Option<i64>,
}

#[derive(clap::Subcommand)]
pub enum ServiceCommand {
    /// Make a realm from its config (TOML: name, variant, round_hours = 6|10|24, seed).
    New {
        #[arg(long, value_name = "REALM.toml")]
        config: PathBuf,
        #[command(flatten)]
        db: DbArgs,
    },
    /// Join a realm: three boards and a secret token, printed once. A name stays its
    /// player's for good: a player whose empire is gone (eliminated, CA-17, and past the
    /// 24 h lockout after abandoning, CA-18) starts a new one under it with `--rejoin
    /// TOKEN`, placed as a new player's, with the same token.
    Join {
        #[command(flatten)]
        db: DbArgs,
        /// Your player name (letters, digits, `-`, `_`).
        #[arg(long, required_unless_present = "rejoin", conflicts_with = "rejoin")]
        player: Option<String>,
        /// Come back under your name with your token, once your empire is gone.
        #[arg(long, value_name = "TOKEN")]
        rejoin: Option<String>,
    },
    /// Submit (or replace) your orders for the open round; a refused order says why.
    Order {
        #[command(flatten)]
        db: DbArgs,
        #[arg(long)]
        token: String,
        /// A JSON file holding the list of orders.
        #[arg(long, value_name = "ORDERS.json", conflicts_with = "order")]
        orders: Option<PathBuf>,
        /// One order as JSON (repeatable), e.g. '{"type":"pass","board":[0,0]}'.
        #[arg(long, value_name = "JSON")]
        order: Vec<String>,
        /// Refuse unless this is the open round.
        #[arg(long)]
        round: Option<u64>,
    },
    /// The world as your token may see it (JSON), or a resolved round with `--round`.
    /// Your boards taken over by new players while you were idle (CA-18) are in its
    /// `taken_over`, and told on stderr too.
    Show {
        #[command(flatten)]
        db: DbArgs,
        #[arg(long)]
        token: String,
        #[arg(long)]
        round: Option<u64>,
    },
    /// Resolve the rounds that are due by the clock (or the open one with `--now`).
    Advance {
        #[command(flatten)]
        db: DbArgs,
        /// Resolve the open round at once, due or not.
        #[arg(long)]
        now: bool,
    },
    /// Resolve rounds together with other workers on the same database (PostgreSQL: on
    /// one machine or many): plan a due round, resolve its cities one at a time (each
    /// claimed with FOR UPDATE SKIP LOCKED and committed alone), merge once all are in.
    /// The result is the one `advance` gives. Prints a line per step.
    Worker {
        #[command(flatten)]
        db: DbArgs,
        /// Plan the open round at once, due or not (as `advance --now`).
        #[arg(long)]
        now: bool,
        /// Exit once this round is resolved (default: work until stopped).
        #[arg(long, value_name = "ROUND")]
        until: Option<u64>,
        /// Milliseconds to wait when there is nothing to do.
        #[arg(long, default_value_t = 1000, value_name = "MS")]
        poll: u64,
    },
    /// Read a chat log (world, sector:SX,SY or city:NAME) with its Top-20 card, or post
    /// a line to it with `--post`.
    Chat {
        #[command(flatten)]
        db: DbArgs,
        #[arg(long)]
        token: String,
        /// The log: `world`, `sector:SX,SY` or `city:NAME`.
        #[arg(long, default_value = "world")]
        log: String,
        /// Post this line (one post per 5 seconds; the log's write rights apply).
        #[arg(long, value_name = "TEXT")]
        post: Option<String>,
    },
    /// A city's crown menu, for its mayor (CA-21..23): shows the mayor vault and the
    /// cooldowns, or renames the city, sets its message of the day, or gives pieces
    /// from the mayor vault (at most 2 to one player per round).
    Mayor {
        #[command(flatten)]
        db: DbArgs,
        #[arg(long)]
        token: String,
        /// The city, by its current name.
        #[arg(long)]
        city: String,
        /// Rename the city (the same mayor waits 7 days between renames).
        #[arg(long, value_name = "NAME", conflicts_with_all = ["motd", "donate"])]
        rename: Option<String>,
        /// Set the message of the day (once per 24 hours).
        #[arg(long, value_name = "TEXT", conflicts_with = "donate")]
        motd: Option<String>,
        /// Give pieces from the mayor vault to this player's vault.
        #[arg(long, value_name = "PLAYER")]
        donate: Option<String>,
        /// How many pieces to give (1 or 2).
        #[arg(long, default_value_t = 1, requires = "donate")]
        count: i64,
        /// The kind to give, by letter.
        #[arg(long, default_value = "Q", requires = "donate")]
        kind: String,
    },
    /// Send a queen from your home city along a road to a linked city (CA-19, CA-20:
    /// five vault queens; it arrives after the next resolution), or list your transfers.
    Transfer {
        #[command(flatten)]
        db: DbArgs,
        #[arg(long)]
        token: String,
        /// The destination city; without it, your transfers are listed.
        #[arg(long, value_name = "CITY")]
        to: Option<String>,
    },
    /// Serve the realm's HTTP/JSON API (127.0.0.1 unless told otherwise).
    Serve {
        #[arg(long, value_name = "PATH|URL")]
        db: String,
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// Seconds between checks for due rounds (0: never resolve; leave it to `advance`
        /// or the workers).
        #[arg(long, default_value_t = 10)]
        tick: u64,
        /// Connections to the database, used by calls in parallel (default: 8 for
        /// PostgreSQL, 1 for SQLite, whose writers take turns anyway).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
        connections: Option<u16>,
    },
}

fn clock(at: Option<i64>) -> Arc<dyn Clock> {
    match at {
        Some(t) => Arc::new(ManualClock::new(t)),
        None => Arc::new(SystemClock),
    }
}

fn open(db: &DbArgs) -> Result<Service, Fail> {
    Ok(Service::open(open_store(&db.db, false)?, clock(db.at))?)
}

pub fn run(c: ServiceCommand) -> Result<(), Fail> {
    match c {
        ServiceCommand::New { config, db } => {
            let path = config.display().to_string();
            let text = std::fs::read_to_string(&config).map_err(|e| Fail(format!("{path}: {e}")))?;
            let cfg = RealmConfig::parse(&text, &path)?;
            let mut s = Service::create(open_store(&db.db, true)?, &cfg, clock(db.at))?;
            let m = s.meta()?;
            println!("realm `{}` ({}, {} h rounds) made in {}", m.name, m.variant, m.round_hours, db.db);
            println!("round 0 resolves at {}", m.deadline);
        }
        ServiceCommand::Chat { db, token, log, post } => {
            let mut s = open(&db)?;
            if let Some(text) = post {
                let seq = s.chat_post(&token, &log, &text)?;
                println!("posted to {log} as line {seq}");
                return Ok(());
            }
            let l = s.chat_read(&token, &log)?;
            println!(
                "{} ({} lines; you {} write here)",
                l.channel,
                l.lines.len(),
                if l.may_write { "may" } else { "may not" }
            );
            for line in &l.lines {
                println!("{:>4} {} {}: {}", line.seq, line.at, line.author, line.text);
            }
            println!("top {}:", l.top.len());
            for (i, t) in l.top.iter().enumerate() {
                println!(
                    "{:>3}. {}{}: {} boards, {} pieces, {} sectors, {} cities",
                    i + 1,
                    t.player,
                    if t.bot { " (bot)" } else { "" },
                    t.boards,
                    t.pieces,
                    t.sectors,
                    t.cities
                );
            }
        }
        ServiceCommand::Mayor { db, token, city, rename, motd, donate, count, kind } => {
            let mut s = open(&db)?;
            if let Some(name) = rename {
                let c = s.rename_city(&token, &city, &name)?;
                println!("{city} is now called {}", c.name);
            } else if let Some(text) = motd {
                let c = s.set_motd(&token, &city, &text)?;
                println!("message of the day of {} set at {}", c.name, c.motd_at.unwrap_or_default());
            } else if let Some(to) = donate {
                let d = s.donate(&token, &city, &to, &kind, count)?;
                println!(
                    "gave {} {} from the mayor vault of {} to {} ({} this round)",
                    d.count, d.kind, d.city, d.to, d.given_this_round
                );
            } else {
                println!("{}", serde_json::to_string_pretty(&s.crown(&token, &city)?)?);
            }
        }
        ServiceCommand::Transfer { db, token, to } => {
            let mut s = open(&db)?;
            match to {
                Some(to) => {
                    let t = s.transfer(&token, &to)?;
                    println!(
                        "transfer {}: a queen leaves {} for {}; it arrives after round {} resolves",
                        t.id, t.from, t.to, t.round
                    );
                }
                None => println!("{}", serde_json::to_string_pretty(&s.transfers(&token)?)?),
            }
        }
        ServiceCommand::Join { db, player, rejoin } => {
            let mut s = open(&db)?;
            let (j, verb) = match (&rejoin, player) {
                (Some(token), _) => (s.rejoin(token)?, "came back in"),
                (None, Some(player)) => (s.join(&player)?, "joined"),
                (None, None) => return Err(Fail("give --player NAME, or --rejoin TOKEN".into())),
            };
            let boards: Vec<String> = j.boards.iter().map(|[x, y]| format!("[{x}, {y}]")).collect();
            let region = match &j.city {
                Some(c) => format!("in the city {c}"),
                None => "on the open ground".to_string(),
            };
            println!("{} {verb} round {} on boards {} {region}", j.player, j.round, boards.join(" "));
            println!("token: {}", j.token);
            if rejoin.is_some() {
                eprintln!("your token stays the same");
            } else {
                eprintln!("keep the token: it is shown only now (the realm keeps only its hash)");
            }
        }
        ServiceCommand::Order { db, token, orders, order, round } => {
            let list: Vec<serde_json::Value> = match orders {
                Some(path) => {
                    let shown = path.display().to_string();
                    let text = std::fs::read_to_string(&path).map_err(|e| Fail(format!("{shown}: {e}")))?;
                    varia::world::state::parse_json(&text, &shown)?
                }
                None => order
                    .iter()
                    .enumerate()
                    .map(|(i, o)| varia::world::state::parse_json(o, &format!("--order {}", i + 1)))
                    .collect::<Result<_, _>>()?,
            };
            match open(&db)?.submit(&token, &list, round) {
                Ok(s) => {
                    for (i, v) in s.verdicts.iter().enumerate() {
                        println!("order {}: {}", i + 1, v.reason);
                    }
                    println!("{} orders stored for round {} (deadline {})", s.verdicts.len(), s.round, s.deadline);
                }
                Err(varia_realm::Error::OrdersRefused { given, refused, verdicts }) => {
                    for (i, v) in verdicts.iter().enumerate() {
                        let mark = if v.accepted { "ok" } else { "refused" };
                        println!("order {}: {mark}: {}", i + 1, v.reason);
                    }
                    return Err(Fail(format!("{refused} of {given} orders refused; nothing was stored")));
                }
                Err(e) => return Err(e.into()),
            }
        }
        ServiceCommand::Show { db, token, round } => {
            let mut s = open(&db)?;
            let (text, taken) = match round {
                Some(n) => (serde_json::to_string_pretty(&s.round(&token, n)?)?, Vec::new()),
                None => {
                    let v = s.view(&token)?;
                    (serde_json::to_string_pretty(&v)?, v.taken_over)
                }
            };
            println!("{text}");
            // For the person at the terminal (stdout stays the JSON): what became of
            // their boards while they were away (CA-18).
            for t in &taken {
                let [x, y] = t.board;
                eprintln!(
                    "your board [{x}, {y}] was taken over by {} in round {} (at {}); {} of your pieces on it were removed",
                    t.by, t.round, t.at, t.pieces
                );
            }
        }
        ServiceCommand::Advance { db, now } => {
            let mut s = open(&db)?;
            let done = s.advance(now)?;
            for a in &done {
                println!(
                    "round {} resolved at {}: {} events; next deadline {}",
                    a.round, a.resolved_at, a.events, a.next_deadline
                );
            }
            if done.is_empty() {
                let m = s.meta()?;
                println!("no round is due: the open round resolves at {}", m.deadline);
            }
        }
        ServiceCommand::Worker { db, now, until, poll } => {
            use varia_realm::worker::Step;
            let mut s = open(&db)?;
            loop {
                let (open_round, _) = s.progress()?;
                if let Some(r) = until
                    && open_round > r
                {
                    println!("round {r} is resolved");
                    break;
                }
                match s.work(now, until)? {
                    Step::Planned { round, parts } => println!("planned round {round}: {parts} parts"),
                    Step::Part { round, label, movers, events } => {
                        println!("resolved part {label} of round {round}: {movers} movers, {events} events")
                    }
                    Step::Merged(a) => println!(
                        "round {} resolved at {}: {} events; next deadline {}",
                        a.round, a.resolved_at, a.events, a.next_deadline
                    ),
                    Step::Waiting { .. } | Step::Idle { .. } => std::thread::sleep(Duration::from_millis(poll)),
                }
            }
        }
        ServiceCommand::Serve { db, host, port, tick, connections } => {
            let pg = db.starts_with("postgres://") || db.starts_with("postgresql://");
            let n = connections.unwrap_or(if pg { 8 } else { 1 });
            let mut pool = Vec::with_capacity(n as usize);
            for _ in 0..n {
                pool.push(Service::open(open_store(&db, false)?, Arc::new(SystemClock))?);
            }
            let ip: std::net::IpAddr = host.parse().map_err(|_| Fail(format!("--host {host}: not an IP address")))?;
            let tick = (tick > 0).then(|| Duration::from_secs(tick));
            varia_realm::server::serve_pool(pool, SocketAddr::new(ip, port), tick, |a| {
                println!("serving realm {db} on http://{a}");
            })?;
        }
    }
    Ok(())
}
