//! Move generation against Fairy-Stockfish (FSF 11.1), live: for every shipped variant FSF
//! plays (the list below), perft from the start at the depth given, then seeded random
//! walks whose moves FSF chooses (from its own legal list, which must equal ours at every
//! ply) with perft 3 compared every few plies. On a mismatch the divide of both engines is
//! printed, move by move. Needs Fairy-Stockfish (`apt-get install fairy-stockfish`, or
//! `FAIRY_STOCKFISH=path`); without it the test says so and passes, except in CI
//! (`CI=true`), where it fails. `VARIA_FSF_ONLY=kingofthehill,horde` compares only those
//! variants (to iterate on one).
//!
//! Notation is mapped here, never in the core: FSF writes long algebraic with ranks in
//! full (`b3b10` on ten ranks) and promotions as a lower-case letter (`e7e8q`), or `+` for
//! a kind FEN writes `+X` (shogi's `c7c8+`); varia writes `b3-b10`, `e7-e8=Q` and
//! `c7-c8=T`. Drops are `P@e4` in both (FSF writes black's drops upper case too).
//! A gating move is written as varia's long algebraic writes it, which is FSF's form
//! (`b1c3h`; `h1e1h` for a castling that gates on the rook's square).
//! Positions are given to FSF as `startpos moves …`, or as FEN where FSF reads the same
//! text (hands in `[…]`, shogi's promoted pieces as `+P`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;

use varia::rng::Rng;
use varia::{Action, Game, Reason, Variant};

/// Every shipped variant that FSF plays: varia's name, FSF's `UCI_Variant`, the perft depth
/// from the start. Adding a variant is one line.
const VARIANTS: &[(&str, &str, u32)] = &[
    ("standard", "chess", 4),
    ("capablanca", "capablanca", 4),
    ("xiangqi", "xiangqi", 4),
    ("minixiangqi", "minixiangqi", 4),
    ("amazon", "amazon", 4),
    ("almost", "almost", 4),
    ("chigorin", "chigorin", 4),
    ("knightmate", "knightmate", 4),
    ("embassy", "embassy", 4),
    ("janus", "janus", 4),
    ("chancellor", "chancellor", 4),
    ("gothic", "gothic", 4),
    ("crazyhouse", "crazyhouse", 4),
    ("kingofthehill", "kingofthehill", 4),
    ("antichess", "antichess", 4),
    ("giveaway", "giveaway", 4),
    ("losers", "losers", 4),
    ("extinction", "extinction", 4),
    ("horde", "horde", 4),
    ("racingkings", "racingkings", 4),
    ("shatranj", "shatranj", 4),
    ("makruk", "makruk", 4),
    ("courier", "courier", 4),
    ("3check", "3check", 4),
    ("grand", "grand", 4),
    ("minishogi", "minishogi", 4),
    ("shogi", "shogi", 4),
    ("seirawan", "seirawan", 4),
    ("janggi", "janggi", 4),
];

/// Variants whose setups are dealt (`[setup] deal`, Chess960): varia's name, FSF's
/// `UCI_Variant`, the setups compared from the start (by number: 518 is chess's), the
/// perft depth. FSF is given each setup's FEN with `UCI_Chess960` on, so castling is
/// written as the king taking its rook in both. The random walks start from seeded deals.
const DEALT: &[(&str, &str, &[u64], u32)] = &[
    ("chess960", "fischerandom", &[518, 0, 959, 100, 333, 707], 4),
    // The same game under FSF's name (`scripts/fischerandom/` extends chess960).
    ("fischerandom", "fischerandom", &[1, 42, 600, 958], 4),
];

/// Positions of a dealt variant given by FEN (Shredder-FEN or X-FEN castling fields), for
/// castlings a random walk seldom meets: positions of the usual Chess960 perft suite, a
/// king that stays on g1, a king and rook that swap, a queenside rook on b1 whose
/// leaving opens c1 to a queen on a1 (illegal), and a rook between two others.
const DEALT_FENS: &[(&str, &str, &str, u32)] = &[
    ("chess960", "fischerandom", "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 4),
    ("chess960", "fischerandom", "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", 4),
    ("chess960", "fischerandom", "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9", 4),
    ("chess960", "fischerandom", "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9", 4),
    ("chess960", "fischerandom", "1nbbnrkr/p1p1ppp1/3p4/1p3P1p/3Pq2P/8/PPP1P1P1/QNBBNRKR w HFhf - 0 9", 4),
    ("chess960", "fischerandom", "r5kr/8/8/8/8/8/8/R5KR w KQkq - 0 1", 4),
    ("chess960", "fischerandom", "1r2k1r1/8/8/8/8/8/8/1R3KR1 b KQkq - 0 1", 4),
    ("chess960", "fischerandom", "4k3/8/8/8/8/8/8/qR1K3R w HB - 0 1", 4),
    ("chess960", "fischerandom", "rk5r/8/8/8/8/8/8/R1R1K2R w Ak - 0 1", 4),
];

/// Positions given by FEN for rules a random walk seldom reaches (castling written as in
/// chess): three-check one check from the end, for one side and for both, with the
/// counts as FSF writes them (`1+3`: white needs one more check).
const FENS: &[(&str, &str, &str, u32)] = &[
    ("3check", "3check", "4k3/8/8/8/8/8/8/4K2R w K - 1+3 0 1", 4),
    ("3check", "3check", "r3k2r/pppq1ppp/8/8/8/8/PPPQ1PPP/R3K2R w KQkq - 1+1 0 1", 3),
    ("3check", "3check", "4k3/8/8/8/8/8/8/4K2R b K - 0+3 0 1", 3),
    // Seirawan: castling both ways with gates open on the king's and rooks' squares; a
    // bishop pinned on its gate (gating does not free it); a king in check along its rank
    // (the piece gated behind it does not make d1 safe); one hand empty; one piece held.
    ("seirawan", "seirawan", "r3k2r/pppq1ppp/2n1bn2/2b1p3/2B1P3/2N1BN2/PPPQ1PPP/R3K2R[EHeh] w KQkq - 0 1", 3),
    ("seirawan", "seirawan", "4k3/8/8/8/8/8/8/r2BK2R[H] w KD - 0 1", 4),
    ("seirawan", "seirawan", "4k3/8/8/8/8/8/8/R3K2r[H] w QA - 0 1", 4),
    ("seirawan", "seirawan", "r3k2r/8/8/8/8/8/8/R3K2R[Eh] b KQkq - 0 1", 3),
    // Janggi: a bikjang to break (a chariot may only block; the pass ends it counted); a
    // bikjang a horse may make; a check, where no pass is legal; palaces full of chariots,
    // cannons and soldiers on their diagonal lines.
    ("janggi", "janggi", "4k4/9/9/9/9/R8/9/9/4K4/9 w - - 0 1", 4),
    ("janggi", "janggi", "4k4/9/9/9/9/4N4/9/9/4K4/9 w - - 0 1", 4),
    ("janggi", "janggi", "3k5/9/9/9/9/9/9/9/4K4/4r4 w - - 0 1", 4),
    ("janggi", "janggi", "3aka3/9/3R1P3/9/9/9/9/3cC4/4K4/3A1A3 w - - 0 1", 3),
    ("janggi", "janggi", "r2a1a2r/4k4/4c4/p1p3p1p/9/9/P1P3P1P/4C4/4K4/R2A1A2R b - - 0 1", 3),
];

/// The variants to compare: all, or those named in `VARIA_FSF_ONLY` (comma-separated),
/// to iterate on one.
fn chosen() -> impl Iterator<Item = &'static (&'static str, &'static str, u32)> {
    VARIANTS.iter().filter(|(n, _, _)| wanted(n))
}

fn wanted(name: &str) -> bool {
    std::env::var("VARIA_FSF_ONLY").ok().is_none_or(|o| o.split(',').any(|x| x == name))
}

/// Random walks per variant, their length, and how often perft 3 is compared on the way.
const WALKS: u64 = 5;
const WALK_PLIES: usize = 40;
const EVERY: usize = 8;

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

    /// FSF's divide at `depth` after `moves` from the start: each first move and its count
    /// (FSF counts the last ply in bulk, as varia does).
    fn divide(&mut self, variant: &str, moves: &[String], depth: u32) -> BTreeMap<String, u64> {
        self.divide_from(variant, None, moves, depth)
    }

    /// The same from a FEN of a dealt setup (with `UCI_Chess960` on) instead of the start.
    fn divide_from(&mut self, variant: &str, fen: Option<&str>, moves: &[String], depth: u32) -> BTreeMap<String, u64> {
        self.divide_fen(variant, fen, fen.is_some(), moves, depth)
    }

    /// The same from a FEN, with `UCI_Chess960` as `c960` says.
    fn divide_fen(
        &mut self,
        variant: &str,
        fen: Option<&str>,
        c960: bool,
        moves: &[String],
        depth: u32,
    ) -> BTreeMap<String, u64> {
        let moves = if moves.is_empty() { String::new() } else { format!(" moves {}", moves.join(" ")) };
        let start = match fen {
            Some(f) => format!("fen {f}"),
            None => "startpos".to_string(),
        };
        writeln!(
            self.input,
            "setoption name UCI_Chess960 value {c960}\nsetoption name UCI_Variant value {variant}\nposition {start}{moves}\ngo perft {depth}"
        )
        .unwrap();
        self.input.flush().unwrap();
        let mut out = BTreeMap::new();
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.output.read_line(&mut line).unwrap() > 0, "Fairy-Stockfish closed its output");
            let l = line.trim();
            if let Some(n) = l.strip_prefix("Nodes searched: ") {
                let total: u64 = n.parse().unwrap();
                assert_eq!(total, out.values().sum::<u64>(), "FSF's divide adds up");
                return out;
            }
            if let Some((m, n)) = l.split_once(": ")
                && let Ok(n) = n.parse()
                && !m.contains(' ')
            {
                out.insert(m.to_string(), n);
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

/// An action of ours as FSF writes it (long algebraic): `e7-e8=Q` → `e7e8q`, `b3-b10` →
/// `b3b10`, shogi's `a4-a5=T` → `a4a5+`, a gating `b1-c3/H` → `b1c3h`.
fn fsf_text(g: &Game, a: &Action) -> String {
    varia::notation::lan::format(g.variant(), a)
}

/// Our divide, keyed by FSF's move text.
fn our_divide(g: &Game, depth: u32) -> BTreeMap<String, u64> {
    g.divide(depth).into_iter().map(|(a, n)| (fsf_text(g, &a), n)).collect()
}

/// Panics with both divides, move by move where they differ.
fn compare(name: &str, moves: &[String], depth: u32, ours: &BTreeMap<String, u64>, theirs: &BTreeMap<String, u64>) {
    if ours == theirs {
        return;
    }
    let mut lines = Vec::new();
    for m in ours.keys().chain(theirs.keys()).collect::<std::collections::BTreeSet<_>>() {
        let (a, b) = (ours.get(m), theirs.get(m));
        if a != b {
            let show = |x: Option<&u64>| x.map_or("-".to_string(), |n| n.to_string());
            lines.push(format!("  {m}: varia {} fsf {}", show(a), show(b)));
        }
    }
    panic!(
        "{name}: perft {depth} differs after `{}` (varia {}, fsf {}); divide where they differ:\n{}",
        moves.join(" "),
        ours.values().sum::<u64>(),
        theirs.values().sum::<u64>(),
        lines.join("\n")
    );
}

fn load(name: &str) -> Arc<Variant> {
    Variant::load(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn perft_from_the_start_agrees_with_fairy_stockfish() {
    let Some(path) = required_tool() else { return };
    let mut fsf = Fsf::start(&path);
    for &(name, peer, depth) in chosen() {
        let g = Game::new(load(name));
        let theirs = fsf.divide(peer, &[], depth);
        compare(name, &[], depth, &our_divide(&g, depth), &theirs);
        eprintln!("{name}: perft {depth} = {} (as FSF's {peer})", theirs.values().sum::<u64>());
    }
}

#[test]
fn perft_from_dealt_setups_agrees_with_fairy_stockfish() {
    let Some(path) = required_tool() else { return };
    let mut fsf = Fsf::start(&path);
    for &(name, peer, numbers, depth) in DEALT.iter().filter(|d| wanted(d.0)) {
        let v = load(name);
        for &n in numbers {
            let fen = v.dealt_fen(n).unwrap();
            let g = Game::from_fen(v.clone(), &fen).unwrap();
            let theirs = fsf.divide_from(peer, Some(&fen), &[], depth);
            compare(&format!("{name} setup {n} ({fen})"), &[], depth, &our_divide(&g, depth), &theirs);
            eprintln!("{name} setup {n}: perft {depth} = {} (as FSF's {peer})", theirs.values().sum::<u64>());
        }
    }
    for (&(name, peer, fen, depth), c960) in DEALT_FENS.iter().zip([true; 99]).chain(FENS.iter().zip([false; 99])) {
        if !wanted(name) {
            continue;
        }
        let g = Game::from_fen(load(name), fen).unwrap();
        let theirs = fsf.divide_fen(peer, Some(fen), c960, &[], depth);
        compare(&format!("{name} ({fen})"), &[], depth, &our_divide(&g, depth), &theirs);
        eprintln!("{name} {fen}: perft {depth} = {}", theirs.values().sum::<u64>());
    }
}

#[test]
fn perft_agrees_with_fairy_stockfish_along_its_random_games() {
    let Some(path) = required_tool() else { return };
    let mut fsf = Fsf::start(&path);
    let dealt = DEALT.iter().filter(|d| wanted(d.0)).map(|&(n, p, _, d)| (n, p, d));
    for (name, peer, _) in chosen().copied().chain(dealt) {
        let v = load(name);
        let mut compared = 0;
        for walk in 1..=WALKS {
            let mut rng = Rng::new(walk * 7919 + name.len() as u64);
            // A dealt variant's walk starts from a seeded setup, given to FSF as a FEN.
            let start = v.deal.as_ref().map(|d| v.dealt_fen(rng.below(d.count)).unwrap());
            let mut g = match &start {
                Some(f) => Game::from_fen(v.clone(), f).unwrap(),
                None => Game::new(v.clone()),
            };
            let mut moves: Vec<String> = Vec::new();
            for ply in 1..=WALK_PLIES {
                // A draw by repetition (or another draw rule), or a repetition judged for a
                // side (minishogi's sennichite, a perpetual check), ends our game where FSF
                // plays on (it judges them in its search only): the walk stops. A game a
                // rule has won must have no move in FSF too.
                let drawn = |r: &Reason| {
                    matches!(
                        r,
                        Reason::NoProgress
                            | Reason::Repetition
                            | Reason::InsufficientMaterial
                            | Reason::TurnLimit
                            | Reason::RoyalRepeat
                    ) || *r == Reason::Rule("perpetual_check".into())
                };
                if g.outcome().is_some_and(|o| drawn(&o.reason)) {
                    break;
                }
                // FSF's legal moves here must be ours, and it picks the next one.
                let theirs = fsf.divide_from(peer, start.as_deref(), &moves, 1);
                let ours: BTreeMap<String, Action> =
                    g.legal_actions().into_iter().map(|a| (fsf_text(&g, &a), a)).collect();
                compare(name, &moves, 1, &ours.keys().map(|m| (m.clone(), 1)).collect(), &theirs);
                if theirs.is_empty() {
                    break;
                }
                let pick = theirs.keys().nth(rng.below(theirs.len() as u64) as usize).unwrap().clone();
                g.apply(ours[&pick]).unwrap();
                moves.push(pick);
                if ply % EVERY == 0 {
                    compare(name, &moves, 3, &our_divide(&g, 3), &fsf.divide_from(peer, start.as_deref(), &moves, 3));
                    compared += 1;
                }
            }
        }
        assert!(compared >= 20, "{name}: only {compared} positions compared (games ended early)");
        eprintln!("{name}: perft 3 equal at {compared} positions of FSF's random games");
    }
}

#[test]
#[should_panic(
    expected = "x: perft 2 differs after `e2e4` (varia 30, fsf 31); divide where they differ:\n  a7a6: varia 10 fsf 20\n  b7b6: varia 20 fsf 11"
)]
fn a_mismatch_prints_both_divides_where_they_differ() {
    let ours: BTreeMap<String, u64> = [("a7a6".into(), 10), ("b7b6".into(), 20)].into();
    let theirs: BTreeMap<String, u64> = [("a7a6".into(), 20), ("b7b6".into(), 11)].into();
    compare("x", &["e2e4".into()], 2, &ours, &theirs);
}
