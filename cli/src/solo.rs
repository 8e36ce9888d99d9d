//! The command line for solo boards (DESIGN.md §8): `moves` and `replay` on a board
//! given as text or dealt from a seed, and `solve`.

use std::sync::Arc;
use std::time::Duration;

use varia::Variant;
use varia::search::solo::{self, Limits};
use varia::solo::{Forge, SoloBoard, SoloGame};

use crate::Fail;

/// Which solo board to play.
#[derive(clap::Args, Clone, Default)]
pub struct BoardArgs {
    /// Solo boards: the board as text, one stack per square a1, b1, … f6 (each the
    /// letters shown at 0, 1, 2… hits), e.g. "212 332 311 …".
    #[arg(long, conflicts_with = "seed")]
    pub board: Option<String>,
    /// Solo boards: deal the board of this seed (at --level).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Solo boards: the level (its pool when dealing, and its rules, such as Master's
    /// wildcards). Default: the variant's first level.
    #[arg(long)]
    pub level: Option<String>,
    /// Solo boards: deal the raw board of the seed, even if it cannot be forged.
    #[arg(long)]
    pub raw: bool,
    /// Solo boards: the clock reading in seconds (pauses excluded) for the time score.
    #[arg(long, value_name = "SECONDS")]
    pub elapsed: Option<String>,
}

impl BoardArgs {
    /// Whether any solo-only option was given.
    pub fn given(&self) -> bool {
        self.board.is_some() || self.seed.is_some() || self.level.is_some() || self.raw || self.elapsed.is_some()
    }
}

/// Seconds as text (`12`, `12.9`) to milliseconds.
pub fn seconds(text: &str) -> Result<u64, Fail> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && (0.0..=1e12).contains(&s) => Ok((s * 1000.0).round() as u64),
        _ => Err(Fail(format!("`{text}` is not a number of seconds (such as 12 or 12.9)"))),
    }
}

pub fn forge(v: Arc<Variant>) -> Result<Arc<Forge>, Fail> {
    Ok(Forge::new(v)?)
}

/// The board the arguments name, at its level.
pub fn game(forge: &Arc<Forge>, b: &BoardArgs) -> Result<SoloGame, Fail> {
    let level = match &b.level {
        Some(l) => forge.level(l)?,
        None => 0,
    };
    let mut g = match (&b.board, b.seed) {
        (Some(text), _) => SoloGame::new(forge.clone(), level, SoloBoard::parse(&forge.variant, text)?),
        (None, Some(seed)) => solo::deal(forge, level, seed, b.raw)?,
        (None, None) => {
            return Err(Fail(format!(
                "`{}` is a solo variant: give the board with --board \"…\" or deal one with --seed S (and --level L)",
                forge.variant.name
            )));
        }
    };
    if let Some(e) = &b.elapsed {
        g.set_elapsed(seconds(e)?);
    }
    Ok(g)
}

fn strikes(g: &SoloGame, list: &[String]) -> Result<SoloGame, Fail> {
    Ok(g.then_strikes(&list.join(" "))?)
}

pub fn moves(v: Arc<Variant>, b: &BoardArgs, list: &[String]) -> Result<(), Fail> {
    let g = strikes(&game(&forge(v)?, b)?, list)?;
    if g.status() != varia::solo::Status::Playing {
        eprintln!("the board is over: {}", g.status().name());
    }
    for t in g.targets() {
        println!("{}", g.forge().variant.square_name(t));
    }
    Ok(())
}

pub fn replay(v: Arc<Variant>, b: &BoardArgs, list: &[String], json: bool, events: bool) -> Result<(), Fail> {
    let start = game(&forge(v)?, b)?;
    let g = if events {
        // One strike at a time, each with its events in words (`varia play`'s line).
        let mut g = start;
        let list = list.iter().flat_map(|m| m.split(|c: char| c.is_whitespace() || c == ',')).filter(|m| !m.is_empty());
        for (i, m) in list.enumerate() {
            let at = |e: varia::solo::SoloError| Fail(format!("strike {} (`{m}`): {e}", i + 1));
            let sq = g.forge().square(m).map_err(at)?;
            g.strike(sq).map_err(at)?;
            let v = &g.forge().variant;
            println!("{}. {m}", i + 1);
            for e in g.last_events().iter().filter(|e| !matches!(e, varia::solo::SoloEvent::Ended { .. })) {
                println!("   {}", e.describe(v));
            }
        }
        g
    } else {
        strikes(&start, list)?
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&g.snapshot())?);
    } else {
        print!("{}", board_text(&g));
        println!("score: {}", score_line(&g));
        println!("status: {}", g.status().name());
    }
    Ok(())
}

/// The board with each square's piece and hits (`B¹`: a bishop shown after one hit;
/// `..`: cleared), the top rank first, and the gold targets marked `*`.
pub fn board_text(g: &SoloGame) -> String {
    let v = &g.forge().variant;
    let geo = v.geometry;
    let targets = g.targets();
    let mut out = String::new();
    for rank in (0..geo.ranks).rev() {
        out.push_str(&format!("{:>2} ", rank + 1));
        for file in 0..geo.files {
            let sq = varia::Square(rank * geo.files + file);
            let cell = match g.shown(sq) {
                None => " .. ".to_string(),
                Some(k) => {
                    let mark = if targets.contains(&sq) { '*' } else { ' ' };
                    let hits = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸'][g.hits(sq).min(8) as usize];
                    format!("{mark}{}{hits} ", v.kind(k).letter)
                }
            };
            out.push_str(&cell);
        }
        out.push('\n');
    }
    out.push_str("   ");
    for file in 0..geo.files {
        out.push_str(&format!("  {} ", (b'a' + file) as char));
    }
    out.push('\n');
    out
}

/// `total 51.0 = strikes 1.0 + royal 0.0 + … + time 50.0`.
pub fn score_line(g: &SoloGame) -> String {
    let s = g.score_json();
    let t = |key: &str| varia::scoring::Tenths(s[key].as_i64().unwrap_or(0));
    let mut parts = vec![format!("strikes {}", t("strike_points"))];
    let v = &g.forge().variant;
    if let Some(rules) = &v.scoring {
        for name in rules.runs.iter().map(|r| &r.name).chain(rules.sequences.iter().map(|q| &q.name)) {
            parts.push(format!("{name} {}", t(name)));
        }
    }
    parts.push(format!("layers {}", t("layer")));
    parts.push(format!("time {}", t("time")));
    format!("total {} = {}", t("total"), parts.join(" + "))
}

/// `varia solve`.
#[derive(clap::Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub variant: crate::VariantArg,
    #[command(flatten)]
    pub board: BoardArgs,
    /// Strikes already made (the search starts after them).
    pub strikes: Vec<String>,
    /// Search at most this long, in seconds (default 10).
    #[arg(long, value_name = "SECONDS")]
    pub time: Option<String>,
    /// Search at most this many positions (machine-independent).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run_solve(a: SolveArgs) -> Result<(), Fail> {
    let f = forge(a.variant.load()?)?;
    let g = strikes(&game(&f, &a.board)?, &a.strikes)?;
    let time = match &a.time {
        Some(t) => Some(Duration::from_millis(seconds(t)?)),
        None if a.nodes.is_some() => None,
        None => Some(Duration::from_secs(10)),
    };
    let s = solo::solve(&g, Limits { nodes: a.nodes, time });
    let v = &f.variant;
    let names = |r: &[varia::Square]| r.iter().map(|&s| v.square_name(s)).collect::<Vec<_>>();
    if a.json {
        let out = serde_json::json!({
            "verdict": s.verdict.name(),
            "route": names(&s.route),
            "best": {"route": names(&s.best), "score": s.best_score.0, "proved": s.best_proved},
            "nodes": s.nodes,
            "ms": s.elapsed.as_millis() as u64,
            "decision": {"nodes": s.decision_nodes, "ms": s.decision_elapsed.as_millis() as u64},
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("verdict: {}", s.verdict.name());
        if !s.route.is_empty() {
            println!("route: {}", names(&s.route).join(" "));
        }
        println!("best: {} points: {}", s.best_score, names(&s.best).join(" "));
        eprintln!(
            "{} positions in {} ms (the verdict after {} positions, {} ms; the best score {})",
            s.nodes,
            s.elapsed.as_millis(),
            s.decision_nodes,
            s.decision_elapsed.as_millis(),
            if s.best_proved { "proved the most there is" } else { "the most found within the limit" }
        );
    }
    Ok(())
}
