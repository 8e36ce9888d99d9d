//! `varia uci` and `varia xboard` in scripted sessions: the variants' extensions of long
//! algebraic notation (shots, graveyard promotions, `+x`, landing choices), searches
//! limited by depth, time and stop, perft, refusals of other turn models; and
//! `varia match` against Fairy-Stockfish when it is installed.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

struct Session {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Session {
    fn start(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_varia"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("runs varia");
        let input = child.stdin.take().unwrap();
        let output = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for l in BufReader::new(output).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
        Session { child, input, lines, seen: Vec::new() }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.input, "{line}").unwrap();
        self.input.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            let l = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no line starting `{prefix}`; got {got:?}, before {:?}", self.seen));
            got.push(l.clone());
            self.seen.push(l.clone());
            if l.starts_with(prefix) {
                return got;
            }
        }
    }

    /// The last line of `until(prefix)`.
    fn line(&mut self, prefix: &str) -> String {
        self.until(prefix).pop().unwrap()
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

#[test]
fn uci_handshake_lists_every_two_sided_variant_and_the_options() {
    let mut s = Session::start(&["uci"]);
    s.send("uci");
    let lines = s.until("uciok");
    let variants = lines.iter().find(|l| l.starts_with("option name UCI_Variant")).unwrap();
    assert_eq!(
        variants,
        "option name UCI_Variant type combo default chess var 3check var almost var amazon var antichess var atomic var capablanca var chancellor \
         var fischerandom var chessception var chigorin var courier var crazyhouse var decachess var embassy var extinction var giveaway var gothic \
         var grand var horde var janggi var janus var kingofthehill var knightmate var losers var makruk var minishogi var minixiangqi var racingkings \
         var seirawan var shatranj var shogi var chess var xiangqi"
    );
    assert!(lines.contains(&"option name Level type combo default master var novice var veteran var master".into()));
    assert!(lines.contains(&"option name Hash type spin default 16 min 1 max 4096".into()), "{lines:?}");
    assert!(lines[0].starts_with("id name varia "), "{lines:?}");
    s.send("isready");
    assert_eq!(s.line("readyok"), "readyok");
    // The solo variant is not among them, and is refused by name.
    s.send("setoption name UCI_Variant value chessic");
    assert_eq!(
        s.line("info string"),
        "info string error: `chessic` is a solo variant: engine protocols play two sides alternating only"
    );
    s.send("setoption name Level value grandmaster");
    assert!(s.line("info string").starts_with("info string error: unknown level `grandmaster`"));
    s.send("position startpos moves e2e4 e7e9");
    assert!(s.line("info string").starts_with("info string error: move 2 (`e7e9`): "));
    s.quit();
}

#[test]
fn uci_plays_fischerandom_from_a_chess960_fen() {
    // `fischerandom` (FSF's name) is listed once and plays Chess960: setup 0 given as
    // Shredder-FEN has 20 moves; castling is the king taking its rook (g1h1 once f1 is
    // free: the king stays on g1, the rook goes to f1).
    let mut s = Session::start(&["uci"]);
    s.send("setoption name UCI_Variant value fischerandom");
    s.send("position fen bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1");
    s.send("go perft 1");
    assert_eq!(s.line("Nodes searched"), "Nodes searched: 20");
    s.send("position fen 4k3/8/8/8/8/8/8/6KR w H - 0 1 moves g1h1");
    s.send("go perft 1");
    // Black's king on e8: d8, d7, e7 (the rook on f1 now holds f8 and f7).
    assert_eq!(s.line("Nodes searched"), "Nodes searched: 3");
    s.quit();
}

#[test]
fn uci_searches_by_depth_time_and_stop_and_counts_perft() {
    let mut s = Session::start(&["uci"]);
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    s.send("go depth 3");
    let lines = s.until("bestmove");
    assert_eq!(lines.last().unwrap(), "bestmove a1a8");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 1 ") && l.contains(" score mate 1 ") && l.ends_with(" pv a1a8")),
        "{lines:?}"
    );
    // A time per move; and an infinite search that waits for `stop`.
    s.send("position startpos moves e2e4");
    s.send("go movetime 200");
    let lines = s.until("bestmove");
    assert!(lines.iter().any(|l| l.starts_with("info depth ")), "{lines:?}");
    s.send("go infinite");
    s.until("info depth 2 ");
    s.send("stop");
    let best = s.line("bestmove");
    assert!(best.starts_with("bestmove ") && matches!(best.as_bytes()[10], b'7' | b'8'), "a black move: {best}");
    // A node budget lifts master's depth cap of 5 (as a time does): it deepens until the
    // budget is spent, and reports each depth it finished.
    s.send("position startpos");
    s.send("go nodes 300000");
    let lines = s.until("bestmove");
    let depths: Vec<u32> =
        lines.iter().filter_map(|l| l.strip_prefix("info depth ")?.split(' ').next()?.parse().ok()).collect();
    assert!(depths.iter().any(|&d| d > 5), "{lines:?}");
    // `go depth` still caps it.
    s.send("go depth 2");
    let lines = s.until("bestmove");
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 2 ")) && !lines.iter().any(|l| l.starts_with("info depth 3 "))
    );
    // perft as Fairy-Stockfish prints it: after 1. e4, black's 20 moves, each answered by
    // white's 30 (the published divide of perft 3 gives e2e4 600).
    s.send("position startpos moves e2e4");
    s.send("go perft 2");
    let lines = s.until("Nodes searched");
    assert_eq!(lines.last().unwrap(), "Nodes searched: 600");
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 21, "{lines:?}");
    // A finished game has no move.
    s.send("position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1 moves a1a8");
    s.send("go depth 2");
    assert_eq!(s.line("bestmove"), "bestmove (none)");
    s.quit();
}

#[test]
fn uci_plays_decachess_with_its_extensions() {
    let mut s = Session::start(&["uci"]);
    s.send("setoption name UCI_Variant value decachess");
    assert_eq!(s.line("info string"), "info string variant decachess (Decachess)");
    // The archer shoots the queen two squares away: written shooter-target.
    s.send("position fen 5k4/10/10/10/4q5/10/4A5/10/10/5K4 w - - 0 1");
    s.send("go depth 2");
    // (A ponder move may follow: the king's answer.)
    assert_eq!(s.line("bestmove").split(' ').nth(1), Some("e4e6"));
    // Promotion from the graveyard (`c9c10n` takes the knight out of it), then a
    // capture after which a frozen pawn returns, written with `+x`.
    s.send("position fen 10/2PP6/9k/10/10/10/10/10/10/K9 w - - 0 1 graveyard=QNPr moves c9c10n j8j7");
    s.send("d");
    let fen = s.line("Fen: ");
    assert_eq!(fen, "Fen: 2N7/3P6/10/9k/10/10/10/10/10/K9 w - - 1 2 graveyard=QPr waiting=c10");
    s.send("position fen 2P1P5/10/3r5k/10/10/3N6/7B2/10/5b4/K9 b - - 0 1 frozen=e10,c10 moves d8d5+n");
    s.send("d");
    assert_eq!(s.line("Fen: "), "Fen: 2P1N5/10/9k/10/10/3r6/7B2/10/5b4/K9 w - - 0 2 frozen=c10 waiting=e10");
    // A `+x` that does not happen is refused, and the position stays.
    s.send("position fen 2P1P5/10/3r5k/10/10/3N6/7B2/10/5b4/K9 b - - 0 1 frozen=e10,c10 moves d8d5+q");
    assert!(s.line("info string").starts_with("info string error: move 1 (`d8d5+q`): "));
    s.send("d");
    assert_eq!(s.line("Fen: "), "Fen: 2P1N5/10/9k/10/10/3r6/7B2/10/5b4/K9 w - - 0 2 frozen=c10 waiting=e10");
    s.quit();
}

#[test]
fn uci_plays_chessception_landing_choices() {
    let mut s = Session::start(&["uci", "chessception"]);
    // Two kills: the landing square is part of the move.
    s.send("position fen 8/8/2pbp3/3n4/2k5/8/8/3Q3K w - - 0 1 moves d1d5@c6");
    s.send("d");
    let fen = s.line("Fen: ");
    assert!(fen.starts_with("Fen: 8/8/2Qb4/3n4/2k5/8/8/7K b - - "), "{fen}");
    s.send("position fen 8/8/2pbp3/3n4/2k5/8/8/3Q3K w - - 0 1 moves d1d5");
    let e = s.line("info string");
    assert!(e.ends_with("`d1d5` is ambiguous here: d1d5@c6 or d1d5@e6"), "{e}");
    // The engine answers with a legal move (hooks and all).
    s.send("position startpos");
    s.send("go depth 2");
    let best = s.line("bestmove");
    assert!(best.starts_with("bestmove ") && best.len() >= 13, "{best}");
    s.quit();
}

#[test]
fn xboard_session() {
    let mut s = Session::start(&["xboard"]);
    s.send("xboard");
    s.send("protover 2");
    let f = s.line("feature");
    assert!(f.contains("variants=\"3check,almost,amazon,antichess,atomic,capablanca,chancellor,fischerandom,chessception,chigorin,courier,crazyhouse,decachess,embassy,extinction,giveaway,gothic,grand,horde,janggi,janus,kingofthehill,knightmate,losers,makruk,minishogi,minixiangqi,racingkings,seirawan,shatranj,shogi,normal,xiangqi\""), "{f}");
    assert!(f.contains("setboard=1") && f.contains("usermove=1") && f.ends_with("done=1"), "{f}");
    s.send("ping 3");
    assert_eq!(s.line("pong"), "pong 3");
    // Decachess: the engine, set to white in force mode, shoots when told to go.
    s.send("new");
    s.send("variant decachess");
    s.send("force");
    s.send("setboard 5k4/10/10/10/4q5/10/4A5/10/10/5K4 w - - 0 1");
    s.send("sd 2");
    s.send("go");
    assert_eq!(s.line("move"), "move e4e6");
    // Standard chess: a user move, an illegal one, and a mate that ends the game.
    s.send("new");
    s.send("force");
    s.send("usermove e2e5");
    assert!(s.line("Illegal move").ends_with(": e2e5"));
    s.send("setboard 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    s.send("st 1");
    s.send("go");
    assert_eq!(s.line("move"), "move a1a8");
    assert_eq!(s.line("1-0"), "1-0 {White mates}");
    // The engine answers a user's move on its own turn, with thinking output on.
    s.send("new");
    s.send("post");
    s.send("sd 2");
    s.send("usermove e2e4");
    let lines = s.until("move ");
    let reply = lines.last().unwrap();
    assert!(reply.as_bytes()[6] == b'7' || reply.as_bytes()[6] == b'8', "{reply}");
    assert!(lines.iter().any(|l| l.starts_with("2 ")), "thinking output: {lines:?}");
    s.send("variant chessic");
    assert!(s.line("Error").starts_with("Error (unknown variant): chessic"));
    s.quit();
}

#[test]
fn engines_refuse_other_turn_models() {
    for proto in ["uci", "xboard"] {
        let o = Command::new(env!("CARGO_BIN_EXE_varia"))
            .args([proto, "chessic"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            "error: `chessic` is a solo variant: engine protocols play two sides alternating only\n"
        );
    }
}

/// Fairy-Stockfish, or None when it may be missing here (outside CI).
fn fairy_stockfish() -> Option<String> {
    let p = std::env::var("FAIRY_STOCKFISH").unwrap_or_else(|_| "/usr/games/fairy-stockfish".into());
    if std::path::Path::new(&p).is_file() {
        return Some(p);
    }
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true"),
        "Fairy-Stockfish is required in CI (apt-get install fairy-stockfish)"
    );
    eprintln!("note: Fairy-Stockfish not found at {p}; the match test is skipped");
    None
}

#[test]
fn a_match_against_fairy_stockfish_is_played_and_recorded() {
    let Some(fsf) = fairy_stockfish() else { return };
    let dir = std::env::temp_dir().join(format!("varia-engines-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for variant in ["standard", "capablanca"] {
        let pgn = dir.join(format!("{variant}.pgn"));
        let o = Command::new(env!("CARGO_BIN_EXE_varia"))
            .args(["match", variant, "--white", "novice", "--black", &format!("uci:{fsf}")])
            .args(["--black-option", "Skill Level=0", "--games", "2", "--movetime", "20", "--max-plies", "40"])
            .arg("--pgn")
            .arg(&pgn)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
        assert!(out.lines().next().unwrap().starts_with("game   1: novice (white) vs "), "{out}");
        assert!(out.contains("\ngame   2: "), "{out}");
        // Both games are in the PGN, and each reads back as a legal game of the variant.
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(text.matches("[Event \"varia match\"]").count(), 2, "{text}");
        for game in ["1", "2"] {
            let r = Command::new(env!("CARGO_BIN_EXE_varia"))
                .args(["replay", variant, "--game", game, "--pgn"])
                .arg(&pgn)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .unwrap();
            assert!(r.status.success(), "game {game} of {text}: {}", String::from_utf8_lossy(&r.stderr));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
