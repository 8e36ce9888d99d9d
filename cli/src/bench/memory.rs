//! `varia bench memory`: the peak memory of long games whose rules keep state.
//!
//! Each case is a seeded random game of a fixed length (a move that would end it early
//! is passed over, so every game lasts its plies), replayed by a child process, `varia
//! replay <variant> <moves>`: the figure is that process's peak resident memory, as the
//! kernel counts it (`ru_maxrss`). The kernel counts a process's peak from before its
//! `exec` too, and a spawned process starts as a copy of (or shares) its parent, whose
//! peak grows as the cases run: so each one is started by a fresh, small `varia` (this
//! suite again, told by an environment variable to start the command and report), whose
//! own peak, about 3.5 MB, is below any game's. The same command exists in older builds, so `--baseline OLD` runs
//! the same games with another binary, side by side. The anchor, a game with no hooks,
//! shows what the process needs for anything at all. The last column is the time this
//! build takes to clone the finished game (history included), in this process: what
//! the copies kept per ply cost a search or a perft that clones games.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use varia::rng::Rng;
use varia::variant::Override;
use varia::{Game, Variant};

use super::{BenchArgs, median};
use crate::Fail;

/// What a case plays.
enum Rules {
    /// A shipped variant, with its own hooks.
    Shipped(&'static str),
    /// Standard chess with this `rules.lua`.
    Scripted(&'static str),
}

struct Case {
    label: &'static str,
    rules: Rules,
    plies: usize,
}

/// Keys that keep a random game going for hundreds of plies (draw rules pushed out of
/// reach); with them, only checkmate and stalemate end a game, and the walk avoids both.
const LONG_GAME: [(&str, &str); 3] =
    [("draws.no_progress_plies", "100000"), ("draws.repetition", "100000"), ("draws.turn_limit", "100000")];

const CASES: &[Case] = &[
    Case { label: "standard, no hooks (the anchor)", rules: Rules::Shipped("standard"), plies: 400 },
    Case {
        label: "a hook keeps 10 KB under a new name each ply",
        rules: Rules::Scripted(
            "function after_action(game, action)\n  local n = game:ply()\n  \
             game:set(\"log\" .. n, string.rep(string.char(97 + n % 26), 10240))\nend\n",
        ),
        plies: 400,
    },
    Case {
        label: "a hook keeps 10 KB under one name each ply",
        rules: Rules::Scripted(
            "function after_action(game, action)\n  local n = game:ply()\n  \
             game:set(\"last\", string.rep(string.char(97 + n % 26), 10240))\nend\n",
        ),
        plies: 400,
    },
    Case { label: "decachess (10×10), no hooks", rules: Rules::Shipped("decachess"), plies: 400 },
    Case { label: "chessception (hit points), its hooks", rules: Rules::Shipped("chessception"), plies: 400 },
    // The case of issue 10: it grew without bound (1.5 GB after 16 plies); it must now
    // stop at the memory limit with the script's error.
    Case {
        label: "ten 1 MB values under new names each ply",
        rules: Rules::Scripted(
            "function after_action(game, action)\n  for i = 1, 10 do\n    \
             game:set(\"big\" .. game:ply() .. \"_\" .. i, string.rep(string.char(64 + i), 1 << 20))\n  end\nend\n",
        ),
        plies: 16,
    },
];

/// A scratch folder holding a variant, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One child's run: plies it got through, its peak memory, and its error (if it failed).
struct Measured {
    plies: usize,
    peak_mb: f64,
    error: Option<String>,
}

/// Set (to the command, an argument a line) in the small process that starts a case.
const LAUNCH: &str = "VARIA_BENCH_MEMORY_LAUNCH";

pub(super) fn memory(args: &BenchArgs) -> Result<(), Fail> {
    if let Some(command) = std::env::var_os(LAUNCH) {
        return launch(&command.to_string_lossy());
    }
    let runs = args.runs.max(1);
    let me = std::env::current_exe()?;
    let bins: Vec<(String, PathBuf)> = std::iter::once(("this build".to_string(), me))
        .chain(args.baseline.as_ref().map(|b| ("baseline".to_string(), PathBuf::from(b))))
        .collect();
    let sets: Vec<String> = LONG_GAME.iter().map(|(k, v)| format!("{k}={v}")).collect();
    print!("{:<46} {:>6}", "case (peak memory of `varia replay`, MB)", "plies");
    for (name, _) in &bins {
        print!(" {name:>12}");
    }
    println!(" {:>9}", "clone µs");
    let mut notes = Vec::new();
    for (n, case) in CASES.iter().enumerate() {
        let (target, _scratch) = match case.rules {
            Rules::Shipped(name) => (name.to_string(), None),
            Rules::Scripted(lua) => {
                let dir = std::env::temp_dir().join(format!("varia-bench-memory-{}-{n}", std::process::id()));
                let scratch = Scratch(dir.clone());
                std::fs::create_dir_all(&dir)?;
                // Deterministic limits only (memory, instructions): a loaded machine must
                // not stop a hook by the clock.
                std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n[scripting]\ntime_limit_ms = 0\n")?;
                std::fs::write(dir.join("rules.lua"), lua)?;
                (dir.to_string_lossy().into_owned(), Some(scratch))
            }
        };
        let overrides: Vec<Override> = sets.iter().map(|s| s.parse()).collect::<Result<_, _>>()?;
        let v = Variant::load_with(&target, &overrides)?;
        // Hooks that only keep state do not change what is legal: the walk goes without
        // them (so a case meant to fail still gets its moves).
        let walk_variant = if matches!(case.rules, Rules::Scripted(_)) { v.without_hooks() } else { v.clone() };
        // One seed for all: the cases on standard chess play the same game.
        let moves = walk(walk_variant, case.plies, 1)?;
        print!("{:<46} {:>6}", case.label, moves.len());
        for (name, bin) in &bins {
            let mut peaks = Vec::new();
            let mut last = None;
            for _ in 0..runs {
                let m = replay(bin, &target, &sets, &moves)?;
                peaks.push(m.peak_mb);
                last = Some(m);
            }
            let m = last.expect("at least one run");
            match &m.error {
                None => print!(" {:>12.1}", median(peaks)),
                Some(e) => {
                    print!(" {:>12}", format!("{:.1} (*{})", median(peaks), notes.len() + 1));
                    notes.push(format!(
                        "*{}: {name}, {}: stopped after {} plies: {e}",
                        notes.len() + 1,
                        case.label,
                        m.plies
                    ));
                }
            }
        }
        match clone_micros(&v, &moves, runs) {
            Some(us) => println!(" {us:>9.1}"),
            None => println!(" {:>9}", "—"),
        }
    }
    for n in notes {
        println!("{n}");
    }
    Ok(())
}

/// The median time to clone the game of `moves` (None if the game cannot be played).
fn clone_micros(v: &std::sync::Arc<Variant>, moves: &[String], runs: usize) -> Option<f64> {
    const CLONES: u32 = 200;
    let mut g = Game::new(v.clone());
    for m in moves {
        g.play(m).ok()?;
    }
    let samples = (0..runs)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..CLONES {
                std::hint::black_box(g.clone());
            }
            t.elapsed().as_secs_f64() * 1e6 / CLONES as f64
        })
        .collect();
    Some(median(samples))
}

/// A seeded random game of `plies` actions, in notation. A move that would end the game
/// before its last ply is passed over for the next one in the list.
fn walk(v: std::sync::Arc<Variant>, plies: usize, seed: u64) -> Result<Vec<String>, Fail> {
    let mut rng = Rng::new(seed);
    let mut g = Game::new(v);
    while g.ply() < plies {
        let legal = g.legal_actions();
        if legal.is_empty() {
            break;
        }
        let start = rng.below(legal.len() as u64) as usize;
        let last = g.ply() + 1 == plies;
        let chosen = (0..legal.len()).map(|k| legal[(start + k) % legal.len()]).find(|&a| match g.apply(a) {
            Ok(_) if last || g.outcome().is_none() => true,
            Ok(_) => {
                g.undo(1);
                false
            }
            Err(_) => false,
        });
        if chosen.is_none() {
            break;
        }
    }
    if g.ply() < plies {
        return Err(Fail(format!("the random walk found no way to play {plies} plies of {}", g.variant().name)));
    }
    Ok(g.history_text())
}

/// Runs `bin replay target --set … moves…` and measures its peak memory.
fn replay(bin: &Path, target: &str, sets: &[String], moves: &[String]) -> Result<Measured, Fail> {
    let mut command = vec![bin.to_string_lossy().into_owned(), "replay".into(), target.into()];
    for s in sets {
        command.extend(["--set".to_string(), s.clone()]);
    }
    command.extend(moves.iter().cloned());
    if command.iter().any(|a| a.contains('\n')) {
        return Err(Fail("an argument of the measured command holds a line break".into()));
    }
    let out = Command::new(std::env::current_exe()?)
        .args(["bench", "memory"])
        .env(LAUNCH, command.join("\n"))
        .stdin(Stdio::null())
        .output()?;
    let report = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // "<peak KB> <exit code>"
    let mut words = report.split_whitespace();
    let (Some(Ok(peak_kb)), Some(Ok(code))) =
        (words.next().map(str::parse::<i64>), words.next().map(str::parse::<i32>))
    else {
        return Err(Fail(format!("the measuring process failed: {}{stderr}", report)));
    };
    let peak_mb = peak_kb as f64 / 1024.0;
    if code == 0 {
        return Ok(Measured { plies: moves.len(), peak_mb, error: None });
    }
    let error = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("(no message)").to_string();
    // "error: move 4 (`…`): …": the plies before that move were played.
    let failed_at = error
        .strip_prefix("error: move ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1);
    let error: String = error.chars().take(220).collect();
    Ok(Measured { plies: failed_at.saturating_sub(1), peak_mb, error: Some(error) })
}

/// The small process's job: start `command` (an argument a line), wait for it, and print
/// its peak memory in KB and its exit code. Its output on stderr passes through.
fn launch(command: &str) -> Result<(), Fail> {
    let mut parts = command.split('\n');
    let bin = parts.next().unwrap_or_default();
    let child = Command::new(bin)
        .args(parts)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| Fail(format!("{bin}: {e}")))?;
    let (code, peak_kb) = wait_with_peak(child.id())?;
    println!("{peak_kb} {code}");
    Ok(())
}

/// Waits for the child `pid`; returns its exit code (-1 if a signal ended it) and its
/// peak resident memory in KB (`ru_maxrss`).
#[cfg(unix)]
fn wait_with_peak(pid: u32) -> Result<(i32, i64), Fail> {
    let mut status = 0;
    // SAFETY: rusage is plain data, written by wait4 before it is read; the child is ours
    // and not waited for elsewhere (std's handle is dropped without waiting).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    if r < 0 {
        return Err(Fail(format!("waiting for the measured process: {}", std::io::Error::last_os_error())));
    }
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { -1 };
    Ok((code, usage.ru_maxrss))
}

#[cfg(not(unix))]
fn wait_with_peak(_pid: u32) -> Result<(i32, i64), Fail> {
    Err(Fail("`varia bench memory` needs a Unix system (it reads the peak memory of a child process)".into()))
}
