//! `varia duel`: two players on the same solo board (A-CH11), each in turn against the
//! `[duel]` countdown, or one player against a computer opponent (greedy, search or
//! solver: `varia::search::opponent`). The higher total wins, equal totals draw, and
//! both ratings move by Elo (`varia::solo::duel`); the ratings table is kept in the
//! data folder, `<data>/<variant>/ratings.json`, next to `varia play`'s save slot.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use varia::search::opponent::{self, Strength};
use varia::solo::duel::{DuelOutcome, Ratings, check_name};
use varia::solo::{Forge, SoloGame, Status};

use crate::Fail;
use crate::play_solo::{Panel, SessionEnd, clock_source, session, start_game};
use crate::solo::score_line;

#[derive(clap::Args)]
pub struct DuelArgs {
    #[command(flatten)]
    pub variant: crate::VariantArg,
    /// The board both players get: dealt from this seed (at --level).
    #[arg(long, conflicts_with = "board")]
    pub seed: Option<u64>,
    /// ...or given as text, one stack per square a1, b1, … f6.
    #[arg(long)]
    pub board: Option<String>,
    /// The level (its pool and rules). Default: the variant's first level.
    #[arg(long)]
    pub level: Option<String>,
    /// Deal the seed's raw board, even if it cannot be forged.
    #[arg(long)]
    pub raw: bool,
    /// The players' names, in playing order, separated by a comma (with --against,
    /// only yours).
    #[arg(long, default_value = "player 1,player 2")]
    pub players: String,
    /// Play against the computer: greedy (the strike worth most now), search (a short
    /// solver search) or solver (the full search).
    #[arg(long, value_name = "STRENGTH")]
    pub against: Option<String>,
    /// Where time comes from: system, or manual (time moves only with `wait SECONDS`).
    #[arg(long, default_value = "system")]
    pub clock: String,
}

/// The ratings file of a variant: `<data>/<variant>/ratings.json`. The variant's name
/// comes from its TOML (`name = …`), so one that would leave the data folder is refused.
fn ratings_file(variant: &str) -> Result<PathBuf, Fail> {
    let plain = !variant.is_empty()
        && !variant.starts_with('.')
        && !variant.contains(['/', '\\', ':'])
        && !variant.chars().any(char::is_control);
    if !plain {
        return Err(Fail(format!("the variant's name `{variant}` cannot name a folder for its ratings")));
    }
    Ok(crate::play::data_dir().join(variant).join("ratings.json"))
}

/// The ratings table, empty if there is none yet; a damaged file is refused.
fn load_ratings(path: &Path) -> Result<Ratings, Fail> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ratings::parse(&text).map_err(|e| {
            Fail(format!(
                "{}: the ratings file cannot be read ({e}); fix or remove it. Nothing was played or changed.",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Ratings::default()),
        Err(e) => Err(Fail(format!("{}: {e}", path.display()))),
    }
}

/// Writes the table beside the file, then moves it over, so a crash never leaves half a file.
fn save_ratings(path: &Path, ratings: &Ratings) -> Result<(), Fail> {
    let fail = |e: std::io::Error| Fail(format!("{}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, ratings.to_json()).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

fn end_words(g: &SoloGame) -> &'static str {
    match g.status() {
        Status::Forged => "forged",
        Status::Cooled => "cooled",
        Status::OutOfTime => "out of time",
        Status::Playing => "unfinished",
    }
}

pub fn run(a: DuelArgs) -> Result<(), Fail> {
    let variant = a.variant.load()?;
    let forge = Forge::new(variant.clone())?;
    let rules = forge
        .rules()
        .duel
        .ok_or_else(|| Fail(format!("`{}` has no [duel]: it cannot be played as a duel", variant.name)))?;
    let against = match &a.against {
        None => None,
        Some(s) => {
            Some(Strength::parse(s).ok_or_else(|| Fail(format!("--against is greedy, search or solver, not `{s}`")))?)
        }
    };
    let mut names: Vec<String> = a.players.split(',').map(|n| n.trim().to_string()).collect();
    match against {
        Some(s) => {
            names.truncate(1);
            names.push(format!("computer ({})", s.name()));
        }
        None if names.len() != 2 => {
            return Err(Fail(format!("--players names two players, separated by a comma, not `{}`", a.players)));
        }
        None => {}
    }
    for n in &names {
        check_name(n)?;
    }
    if names[0] == names[1] {
        return Err(Fail(format!("a duel needs two different players, not `{}` twice", names[0])));
    }
    if a.seed.is_none() && a.board.is_none() {
        return Err(Fail("a duel is played on one board for both: give --seed S (or --board \"…\")".into()));
    }
    let file = ratings_file(&variant.name)?;
    let mut ratings = load_ratings(&file)?;
    let mut clock = clock_source(&a.clock)?;
    let start = start_game(&forge, a.level.as_deref(), a.seed, a.board.as_deref(), a.raw)?.into_duel()?;

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let pause = if rules.pause { "it may be paused" } else { "no pause" };
    let _ = writeln!(
        out,
        "Duel: {} against {}, on the same board. Each gets a {} s countdown; every second left is worth {} \
         points when the board ends; {pause}. The higher total wins.",
        names[0],
        names[1],
        rules.countdown_ms / 1000,
        rules.bonus_per_second
    );
    let mut results: Vec<SoloGame> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if i == 1
            && let Some(s) = against
        {
            let g = opponent::play(&start, s, rules.computer_pace_ms);
            let route: Vec<String> = g.strikes().iter().map(|&q| variant.square_name(q)).collect();
            let _ = writeln!(
                out,
                "{name}, {}, plays {} strikes at {} s each: {}",
                s.describe(),
                route.len(),
                rules.computer_pace_ms as f64 / 1000.0,
                route.join(" ")
            );
            let _ = writeln!(out, "{name}: {}; {}", end_words(&g), score_line(&g));
            results.push(g);
            continue;
        }
        let _ = writeln!(out, "— {name}: your board; the countdown starts now. Type `help` for the commands. —");
        let mut panel = Panel::new(start.clone(), a.seed, a.raw, true, clock.as_ref());
        panel.draw(&mut out);
        let prompt = format!("{name} ");
        if session(&mut panel, clock.as_mut(), &mut lines, &mut out, &prompt)? == SessionEnd::Quit {
            let _ = writeln!(out, "{name} left: the duel is abandoned, with no result; the ratings are unchanged.");
            return Ok(());
        }
        results.push(panel.game);
    }

    let totals = [results[0].total(), results[1].total()];
    let outcome = DuelOutcome::decide(totals[0], totals[1]);
    let _ = writeln!(out, "Result:");
    for (name, g) in names.iter().zip(&results) {
        let _ = writeln!(out, "  {name}: {} ({}; {})", g.total(), end_words(g), score_line(g));
    }
    let verdict = match outcome {
        DuelOutcome::FirstWins => format!("{} wins", names[0]),
        DuelOutcome::SecondWins => format!("{} wins", names[1]),
        DuelOutcome::Draw => "a draw: equal totals".into(),
    };
    let _ = writeln!(out, "  {verdict}");
    let change = ratings.record(&names[0], &names[1], outcome, &rules)?;
    save_ratings(&file, &ratings)?;
    let show = |i: usize| {
        let d = change.after[i] - change.before[i];
        format!("{} {} → {} ({d:+})", names[i], change.before[i], change.after[i])
    };
    let _ = writeln!(out, "Ratings (Elo, K = {}): {}, {}", rules.elo_k, show(0), show(1));
    Ok(())
}
