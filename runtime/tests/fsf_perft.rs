//! Move generation against Fairy-Stockfish, live: seeded random walks through standard
//! chess and Capablanca chess, and at every few plies perft 3 by both engines. Needs
//! Fairy-Stockfish (`apt-get install fairy-stockfish`, or `FAIRY_STOCKFISH=path`); without
//! it the test says so and passes, except in CI (`CI=true`), where it fails.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use varia::rng::Rng;
use varia::{Game, Variant};

fn fsf_path() -> Option<String> {
    let p = std::env::var("FAIRY_STOCKFISH").unwrap_or_else(|_| "/usr/games/fairy-stockfish".into());
    Command::new(&p).stdin(Stdio::null()).stdout(Stdio::null()).spawn().ok().map(|mut c| {
        let _ = c.kill();
        let _ = c.wait();
        p
    })
}

/// The tool, or None when it may be missing here (outside CI).
fn required_tool() -> Option<String> {
    match fsf_path() {
        Some(p) => Some(p),
        None if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("Fairy-Stockfish is required in CI (apt-get install fairy-stockfish)")
        }
        None => {
            eprintln!("note: Fairy-Stockfish not found; the live perft comparison is skipped");
            None
        }
    }
}

struct Fsf {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Fsf {
    fn start(path: &str) -> Fsf {
        let mut child =
            Command::new(path).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().expect("starts Fairy-Stockfish");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Fsf { child, input, output }
    }

    fn perft(&mut self, variant: &str, fen: &str, depth: u32) -> u64 {
        writeln!(self.input, "setoption name UCI_Variant value {variant}\nposition fen {fen}\ngo perft {depth}")
            .unwrap();
        self.input.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "Fairy-Stockfish closed its output");
            if let Some(n) = line.trim().strip_prefix("Nodes searched: ") {
                return n.parse().unwrap();
            }
        }
    }
}

impl Drop for Fsf {
    fn drop(&mut self) {
        let _ = writeln!(self.input, "quit");
        let _ = self.child.wait();
    }
}

#[test]
fn perft_agrees_with_fairy_stockfish_on_random_positions() {
    let Some(path) = required_tool() else { return };
    let mut fsf = Fsf::start(&path);
    let mut compared = 0;
    for (name, peer) in [("standard", "chess"), ("capablanca", "capablanca")] {
        let v = Variant::load(name).unwrap();
        for seed in 1..=3u64 {
            let mut rng = Rng::new(seed * 1000 + name.len() as u64);
            let mut g = Game::new(v.clone());
            for ply in 0..40 {
                if ply % 8 == 4 {
                    let fen = g.fen();
                    let (ours, theirs) = (g.perft(3), fsf.perft(peer, &fen, 3));
                    assert_eq!(ours, theirs, "{name}: perft 3 of {fen}");
                    compared += 1;
                }
                let legal = g.legal_actions();
                if legal.is_empty() {
                    break;
                }
                g.apply(legal[rng.below(legal.len() as u64) as usize]).unwrap();
            }
        }
    }
    assert!(compared >= 20, "{compared}");
}
