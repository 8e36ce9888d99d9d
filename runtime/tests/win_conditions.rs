//! Win conditions as data (`[[rules.end]]`), `forced_capture` and `giving_check`: counts
//! worked out by hand on small positions, and the errors of malformed entries.

use std::sync::Arc;

use varia::{Game, Variant};

/// Two kings and a white rook on 8×8, with `extra` appended to `[rules]`-level text.
fn variant(extra: &str) -> Result<Arc<Variant>, varia::LoadError> {
    let text = format!(
        r#"
[board]
files = 8
ranks = 8
[setup]
fen = "4k3/8/8/8/8/3K4/8/8 w - - 0 1"
[regions]
hill = {{ squares = ["d4", "e4", "d5", "e5"] }}
[pieces.king]
letter = "K"
royal = true
moves = [{{ leap = "all" }}]
[pieces.rook]
letter = "R"
moves = [{{ slide = "orthogonal" }}]
{extra}
"#
    );
    Variant::from_toml(&text, "wins.toml")
}

fn problems(extra: &str) -> String {
    let e = variant(extra).expect_err("should fail");
    e.problems().iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n")
}

const HILL: &str = "[[rules.end]]\nwhen = \"reach\"\nkinds = [\"king\"]\nregion = \"hill\"\nresult = \"win\"\n";

#[test]
fn a_king_on_the_hill_ends_the_game_and_perft_counts_no_move_there() {
    // White king d3: 8 moves (c2 d2 e2 c3 e3 c4 d4 e4); black king e8: 5 (d8 f8 d7 e7 f7).
    // Without the rule: 8 × 5 = 40. With it, d4 and e4 reach the hill: 6 × 5 = 30.
    let plain = Game::new(variant("").unwrap());
    assert_eq!(plain.perft(2), 40);
    let g = Game::new(variant(HILL).unwrap());
    assert_eq!(g.perft(1), 8);
    assert_eq!(g.perft(2), 30);
    let onto: Vec<(String, u64)> = g.divide(2).into_iter().map(|(a, n)| (g.format(&a), n)).collect();
    assert!(
        onto.contains(&("d3-d4".into(), 0))
            && onto.contains(&("d3-e4".into(), 0))
            && onto.contains(&("d3-c3".into(), 5))
    );
    let after = g.then_moves("d3-e4").unwrap();
    assert_eq!(after.outcome().unwrap().describe(), "white wins by reaching the goal");
    assert!(after.legal_actions().is_empty());
}

#[test]
fn extinction_by_kind_counts_each_kind_alone_and_a_claim_needs_one_more() {
    // Black has no rook: "extinct" of rooks holds for black at once (white keeps its one).
    let v = variant("[[rules.end]]\nwhen = \"extinct\"\nkinds = [\"rook\"]\nresult = \"loss\"\n").unwrap();
    let g = Game::from_fen(v.clone(), "4k3/8/8/8/8/3K4/8/R7 w - - 0 1").unwrap();
    assert_eq!(g.outcome().unwrap().describe(), "white wins by extinction");
    assert_eq!(g.perft(1), 0);
    // opponent_at_least: black, with no rook, is out only while white has 2 rooks.
    let v =
        variant("[[rules.end]]\nwhen = \"extinct\"\nkinds = [\"rook\"]\nopponent_at_least = 2\nresult = \"loss\"\n")
            .unwrap();
    let one = Game::from_fen(v.clone(), "4k3/8/8/8/8/3K4/8/R7 w - - 0 1").unwrap();
    assert!(one.outcome().is_none());
    let two = Game::from_fen(v, "4k3/8/8/8/8/3K4/8/R6R w - - 0 1").unwrap();
    assert_eq!(two.outcome().unwrap().describe(), "white wins by extinction");
    // claim: black bare (1 piece) and to move needs white at 2 + 1 = 3 pieces.
    let v = variant(
        "[[rules.end]]\nwhen = \"extinct\"\nat_most = 1\nopponent_at_least = 2\nclaim = true\nresult = \"loss\"\nreason = \"bare_king\"\n",
    )
    .unwrap();
    let to_move = Game::from_fen(v.clone(), "4k3/8/8/8/8/3K4/8/R7 b - - 0 1").unwrap();
    assert!(to_move.outcome().is_none());
    let not_to_move = Game::from_fen(v.clone(), "4k3/8/8/8/8/3K4/8/R7 w - - 0 1").unwrap();
    assert_eq!(not_to_move.outcome().unwrap().describe(), "white wins by bare king");
    let three = Game::from_fen(v, "4k3/8/8/8/8/3K4/8/R6R b - - 0 1").unwrap();
    assert_eq!(three.outcome().unwrap().describe(), "white wins by bare king");
}

#[test]
fn forced_capture_keeps_only_captures_and_giving_check_may_be_illegal() {
    // Black rook a5 (black king h8), white rook a1, white king d3: Ra1xa5 is the one capture.
    let fen = "7k/8/8/r7/8/3K4/8/R7 w - - 0 1";
    let plain = Game::from_fen(variant("").unwrap(), fen).unwrap();
    assert!(plain.legal_actions().len() > 1);
    let forced = Game::from_fen(variant("[rules]\nforced_capture = true\n").unwrap(), fen).unwrap();
    let moves: Vec<String> = forced.legal_actions().iter().map(|a| forced.format(a)).collect();
    assert_eq!(moves, ["a1-a5"]);
    // Without a capture nothing is forced: the white rook alone, 14 rook moves + 8 king moves.
    let quiet =
        Game::from_fen(variant("[rules]\nforced_capture = true\n").unwrap(), "7k/8/8/8/8/3K4/8/R7 w - - 0 1").unwrap();
    assert_eq!(quiet.legal_actions().len(), 14 + 8);
    // giving_check = "illegal": of the rook's 14 moves, a8 and h1 check the king h8: 12 + 8.
    let no_checks =
        Game::from_fen(variant("[rules]\ngiving_check = \"illegal\"\n").unwrap(), "7k/8/8/8/8/3K4/8/R7 w - - 0 1")
            .unwrap();
    assert_eq!(no_checks.legal_actions().len(), 12 + 8);
}

#[test]
fn malformed_entries_are_errors_with_their_place() {
    let p = problems("[[rules.end]]\nwhen = \"arrive\"\nresult = \"win\"\n");
    assert!(
        p.contains("`arrive`: an end's `when` is \"reach\", \"extinct\", \"checks\", \"passes\" or \"facing\""),
        "{p}"
    );
    // Counting needs its table; `passes` takes no count.
    let p = problems("[[rules.end]]\nwhen = \"passes\"\nresult = \"points\"\n");
    assert!(p.contains("result = \"points\" needs `[rules.points]`"), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"passes\"\ncount = 2\nresult = \"draw\"\n");
    assert!(p.contains("`count` means nothing with when = \"passes\""), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"reach\"\nkinds = [\"king\"]\nresult = \"win\"\n");
    assert!(p.contains("needs `region`"), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"reach\"\nregion = \"hill\"\nresult = \"win\"\n");
    assert!(p.contains("needs `kinds`"), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"reach\"\nkinds = [\"kong\"]\nregion = \"hil\"\nresult = \"win\"\n");
    assert!(p.contains("unknown piece kind `kong`") && p.contains("unknown region `hil`"), "{p}");
    let p = problems(
        "[[rules.end]]\nwhen = \"reach\"\nkinds = [\"king\"]\nregion = \"hill\"\nat_most = 1\nresult = \"win\"\n",
    );
    assert!(p.contains("`at_most` means nothing with when = \"reach\""), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"extinct\"\nregion = \"hill\"\nresult = \"win\"\n");
    assert!(p.contains("`region` means nothing with when = \"extinct\""), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"extinct\"\nresult = \"victory\"\n");
    assert!(p.contains("`victory` is not a result"), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"extinct\"\nresult = \"win\"\nreason = \"Bare King!\"\n");
    assert!(p.contains("a reason is 1 to 40 lower-case letters"), "{p}");
    let p = problems("[[rules.end]]\nwhen = \"extinct\"\nresult = \"win\"\ncolour = 1\n");
    assert!(p.contains("unknown field `colour`"), "{p}");
    let p = problems("[rules]\ngiving_check = \"never\"\n");
    assert!(p.contains("giving_check is \"illegal\" or \"allowed\""), "{p}");
    // Every problem names the file and a line.
    assert!(p.starts_with("wins.toml:"), "{p}");
}

#[test]
fn the_computer_player_reads_an_end_rule_as_its_result_not_as_a_stalemate() {
    // White: king d3 and a rook a1; black: king h8. d3-d4 and d3-e4 reach the hill and win
    // at once, after which black has no move: read as a stalemate, that would be a draw and
    // the rook-up side would avoid it; read as the rule says, it is a win in one.
    let v = variant(HILL).unwrap();
    let g = Game::from_fen(v, "7k/8/8/8/8/3K4/8/R7 w - - 0 1").unwrap();
    for level in ["novice", "master"] {
        let r = g.best_action(level, 1, varia::search::Clock::Off).unwrap();
        let moved = g.format(&r.action);
        assert!(moved == "d3-d4" || moved == "d3-e4", "{level} played {moved}");
        let after = g.then_moves(&moved).unwrap();
        assert_eq!(after.outcome().unwrap().describe(), "white wins by reaching the goal");
    }
}
