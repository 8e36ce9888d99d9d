//! Bad fixtures get clear errors at their place (`file:line:col: message`), failed
//! expectations say which, where, expected against found; playthroughs are seeded.
//! Each fixture here is written to a scratch folder and loaded from there.

use std::path::PathBuf;

use varia::fixture::{Fixture, FixtureError};

/// A scratch folder unique to one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("varia-fixture-errors-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` as `<test>/<file>` and loads it, shown in messages as `file`.
fn load(test: &str, file: &str, text: &str) -> Result<Fixture, FixtureError> {
    let dir = scratch(test);
    let path = dir.join(file);
    std::fs::write(&path, text).unwrap();
    Fixture::load_as(&path, file)
}

/// The problems of a fixture that must not load, one string each.
fn problems(test: &str, text: &str) -> Vec<String> {
    match load(test, "bad.toml", text) {
        Ok(_) => panic!("the fixture loaded; expected problems:\n{text}"),
        Err(e) => e.problems().iter().map(|p| p.to_string()).collect(),
    }
}

/// The error of a fixture that loads but cannot be played to the end.
fn run_error(test: &str, text: &str) -> Vec<String> {
    let f = load(test, "bad.toml", text).unwrap_or_else(|e| panic!("does not load: {e}"));
    match f.run() {
        Ok(_) => panic!("the fixture ran; expected an error"),
        Err(e) => e.problems().iter().map(|p| p.to_string()).collect(),
    }
}

const HEAD: &str = "description = \"a test\"\nvariant = \"standard\"\n";

#[test]
fn a_toml_syntax_error_has_its_line_and_column() {
    let text = format!("{HEAD}moves = [\"e2-e4\",\n[[expect]]\n");
    assert_eq!(problems("syntax", &text), ["bad.toml:4:11: unclosed array, expected `]`"]);
}

#[test]
fn an_unknown_key_suggests_the_key_meant() {
    let text = "descripton = \"typo\"\nvariant = \"standard\"\n";
    assert_eq!(
        problems("key-top", text),
        ["bad.toml:1:1: unknown field `descripton`, expected one of `description`, `variant`, \
          `set`, `fen`, `moves`, `playthrough`, `expect`, `clock` (did you mean `description`?)"]
    );
    let text = format!("{HEAD}moves = [\"e2-e4\"]\n\n[[expect]]\nafter = 1\npeices = {{ e4 = \"white pawn\" }}\n");
    let p = problems("key-expect", &text);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with("bad.toml:7:1: unknown field `peices`, expected one of `after`,"), "{p:?}");
    assert!(p[0].ends_with("(did you mean `pieces`?)"), "{p:?}");
}

#[test]
fn missing_and_mistyped_values_are_located() {
    assert_eq!(problems("missing", "variant = \"standard\"\n"), ["bad.toml:1:1: missing field `description`"]);
    assert_eq!(
        problems("typed", &format!("{HEAD}moves = \"e2-e4\"\n")),
        ["bad.toml:3:9: invalid type: string \"e2-e4\", expected a sequence \
          (write a list, like [\"e2-e4\", \"e7-e5\"])"]
    );
    assert_eq!(
        problems("bool", &format!("{HEAD}moves = []\n[[expect]]\nin_check = \"no\"\n")),
        ["bad.toml:5:12: invalid type: string \"no\", expected a boolean"]
    );
}

#[test]
fn unknown_squares_kinds_sides_and_outcomes_are_refused_with_their_place() {
    let text = format!(
        "{HEAD}moves = [\"e2-e4\", \"z9-e5\"]\n\n[[expect]]\nafter = 1\n\
         pieces = {{ e9 = \"white pawn\", e4 = \"white pwan\", c1 = \"purple bishop\", c2 = \"empty\" }}\n\
         empty = [\"i1\"]\n\
         legal_from = {{ e2 = [\"e2-e4\", \"d2-d4\"] }}\n\
         to_move = \"red\"\n\
         outcome = \"white wins by chekmate\"\n"
    );
    assert_eq!(
        problems("names", &text),
        [
            "bad.toml:3:19: move 2 (`z9-e5`): `z9-e5` is not a move: square z9 is off the 8×8 board (expected from-to, like e2-e4)",
            "bad.toml:7:12: square e9 is off the 8×8 board",
            "bad.toml:7:36: `pwan` is not a piece kind of standard (did you mean `pawn`?); kinds: king, queen, rook, bishop, knight, pawn",
            "bad.toml:7:55: `purple bishop` is not a piece: expected a side and a kind, like \"white pawn\"",
            "bad.toml:7:77: `empty` is not a piece: expected a side and a kind, like \"white pawn\" (for an empty square, list it in `empty`)",
            "bad.toml:8:10: square i1 is off the 8×8 board",
            "bad.toml:9:31: `d2-d4` does not start on e2",
            "bad.toml:10:11: `red` is not a side: write \"white\" or \"black\"",
            "bad.toml:11:11: `white wins by chekmate` is not an outcome (did you mean `white wins by checkmate`?)",
        ]
    );
}

#[test]
fn piece_attributes_are_refused_until_the_variant_has_them() {
    // Both spellings of an attribute parse; the variant has none, so both are refused.
    let text = format!(
        "{HEAD}moves = []\n[[expect]]\n\
         pieces = {{ e1 = \"white king hp=1\", d1 = {{ piece = \"white queen\", buff = \"haste\" }} }}\n"
    );
    assert_eq!(
        problems("attributes", &text),
        [
            "bad.toml:5:17: this variant (standard) has no piece attribute `hp`",
            "bad.toml:5:41: this variant (standard) has no piece attribute `buff`",
        ]
    );
}

#[test]
fn an_action_illegal_at_its_step_names_the_step_and_the_reason() {
    let text = format!("{HEAD}moves = [\"e2-e4\", \"e7-e5\", \"e4-e5\"]\n[[expect]]\nto_move = \"black\"\n");
    assert_eq!(
        run_error("step", &text),
        ["bad.toml:3:28: move 3 (`e4-e5`): e4-e5 is illegal: a pawn on e4 cannot move to e5: \
          it goes there only when the square is empty, and the black pawn stands on e5"]
    );
    let text = format!(
        "{HEAD}moves = [\"f2-f3\", \"e7-e5\", \"g2-g4\", \"d8-h4\", \"a2-a3\"]\n[[expect]]\nafter = 4\nin_check = true\n"
    );
    assert_eq!(
        run_error("over", &text),
        ["bad.toml:3:46: move 5 (`a2-a3`): the game is over (black wins by checkmate)"]
    );
}

#[test]
fn a_fixture_must_expect_something() {
    assert_eq!(
        problems("no-expect", &format!("{HEAD}moves = [\"e2-e4\"]\n")),
        ["bad.toml:1:1: no [[expect]]: state what the rules should do (worked out by hand); \
          only a `playthrough` may go without, its trace being the check"]
    );
    assert_eq!(
        problems("empty-expect", &format!("{HEAD}moves = [\"e2-e4\"]\n[[expect]]\nafter = 1\n")),
        ["bad.toml:4:1: [[expect]] #1 checks nothing: add `pieces`, `legal`, `outcome`, …"]
    );
    assert_eq!(
        problems(
            "range",
            &format!(
                "{HEAD}moves = [\"e2-e4\"]\n[[expect]]\nafter = 2\nto_move = \"white\"\n\
                 [[expect]]\nafter = 0\nevents = [\"white pawn e2-e4\"]\n"
            )
        ),
        [
            "bad.toml:5:9: `after = 2` is out of range: this fixture has 1 moves",
            "bad.toml:9:11: `events` are those of the action just played; there is none at the start",
        ]
    );
}

#[test]
fn bad_variants_overrides_and_fens_are_located() {
    assert_eq!(
        problems("variant", "description = \"x\"\nvariant = \"standrd\"\nplaythrough = { seed = 1, plies = 1 }\n"),
        [format!(
            "bad.toml:2:11: unknown variant `standrd` (did you mean `standard`?); known variants: {}; looked in: {}",
            varia::variant::known_variants().into_iter().map(|f| f.name).collect::<Vec<_>>().join(", "),
            varia::variant::looked_in().join(", ")
        )]
    );
    assert_eq!(
        problems(
            "set",
            &format!("{HEAD}set = [\"draws.repetion=2\", \"nonsense\"]\nplaythrough = {{ seed = 1, plies = 1 }}\n")
        ),
        [
            "bad.toml:3:8: set: unknown field `repetion`, expected one of `no_progress_plies`, `repetition`, `perpetual_check`, `repetition_result`, `insufficient_material`, `turn_limit`, `royal_repeat` (did you mean `repetition`?)",
            "bad.toml:3:28: `nonsense` is not an override: expected KEY=VALUE, such as draws.repetition=2",
        ]
    );
    assert_eq!(
        problems("fen", &format!("{HEAD}fen = \"8/8/8 x\"\nplaythrough = {{ seed = 1, plies = 1 }}\n")),
        ["bad.toml:3:7: bad FEN: board field: expected 8 ranks separated by `/`, found 3"]
    );
}

#[test]
fn a_variant_given_as_a_path_is_found_from_the_fixture() {
    let dir = scratch("path");
    let standard = varia::variant::built_in_named("standard").unwrap().file("variant.toml").unwrap();
    std::fs::create_dir_all(dir.join("mini")).unwrap();
    // Standard chess with a twofold repetition rule, as a folder next to the fixture.
    let text = String::from_utf8(standard.to_vec()).unwrap().replace("repetition = 3", "repetition = 2");
    std::fs::write(dir.join("mini/variant.toml"), text).unwrap();
    let fixture = "description = \"twofold\"\nvariant = \"./mini\"\n\
                   moves = [\"g1-f3\", \"g8-f6\", \"f3-g1\", \"f6-g8\"]\n\
                   [[expect]]\noutcome = \"draw by repetition\"\n";
    std::fs::write(dir.join("twofold.toml"), fixture).unwrap();
    let run = Fixture::load_as(&dir.join("twofold.toml"), "twofold.toml").unwrap().run().unwrap();
    assert_eq!(run.failures, []);
    assert_eq!(run.plies, 4);
}

#[test]
fn failed_expectations_say_which_where_and_expected_against_found() {
    let text = format!(
        "{HEAD}moves = [\"e2-e4\", \"a7-a6\", \"e4-e5\", \"d7-d5\"]\n\n\
         [[expect]]\nafter = 4\n\
         pieces = {{ d5 = \"white queen\", d6 = \"black pawn\" }}\n\
         illegal = [\"e5-d6\", {{ move = \"e5-f6\", reason = \"zzz\" }}]\n\
         legal = [\"e5-e7\"]\n\
         legal_count = 30\n\
         fen = \"rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3\"\n\
         legal_from = {{ e5 = [\"e5-e6\"] }}\n\
         \n[[expect]]\n\
         events = [\"black pawn d7-d6\"]\n\
         outcome = \"draw by stalemate\"\n"
    );
    let run = load("failures", "bad.toml", &text).unwrap().run().unwrap();
    let lines: Vec<String> = run.failures.iter().map(|f| f.to_string()).collect();
    let at = "[[expect]] #1 after action 4 (d7-d5)";
    assert_eq!(
        lines,
        [
            format!("bad.toml:7:17: {at}: pieces.d5: expected white queen, found black pawn"),
            format!("bad.toml:7:37: {at}: pieces.d6: expected black pawn, found no piece"),
            format!("bad.toml:8:12: {at}: illegal e5-d6: expected illegal, found legal"),
            format!(
                "bad.toml:8:21: {at}: illegal e5-f6: expected a reason containing \"zzz\", \
                 found \"e5-f6 is illegal: a pawn on e5 cannot move to f6: it goes there only to capture, \
                 and f6 is empty\""
            ),
            format!(
                "bad.toml:9:10: {at}: legal e5-e7: expected legal, \
                 found e5-e7 is illegal: a pawn on e5 cannot move to e7: it moves that way only from its \
                 `pawn_start` squares"
            ),
            format!("bad.toml:10:15: {at}: legal_count: expected 30, found 31"),
            format!(
                "bad.toml:11:7: {at}: fen: expected rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3, \
                 found rnbqkbnr/1pp1pppp/p7/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3"
            ),
            format!("bad.toml:12:21: {at}: legal_from.e5: expected e5-e6, found e5-d6, e5-e6"),
            "bad.toml:15:11: [[expect]] #2 after action 4 (d7-d5): events: \
                 expected an event `black pawn d7-d6`, found `black pawn d7-d5`"
                .to_string(),
            "bad.toml:16:11: [[expect]] #2 after action 4 (d7-d5): outcome: \
                 expected draw by stalemate, found none"
                .to_string(),
        ]
    );
    assert_eq!(run.failures[0].expect, 1);
    assert_eq!(run.failures[0].after, 4);
    assert_eq!(run.failures[0].action.as_deref(), Some("d7-d5"));
}

#[test]
fn playthroughs_are_seeded() {
    let text = |seed: u64| format!("{HEAD}playthrough = {{ seed = {seed}, plies = 40 }}\n");
    let a = load("seed-a", "p.toml", &text(5)).unwrap().run().unwrap();
    let b = load("seed-b", "p.toml", &text(5)).unwrap().run().unwrap();
    let c = load("seed-c", "p.toml", &text(6)).unwrap().run().unwrap();
    assert_eq!(a.plies, 40);
    assert_eq!(a.trace, b.trace);
    assert_ne!(a.trace, c.trace);
    assert!(a.trace.contains("playthrough: seed 5, random legal actions, at most 40 plies\n"));
    assert!(a.trace.contains("\n40. "), "{}", a.trace);
    assert!(a.trace.ends_with("playthrough stopped at its limit of 40 plies\n"), "{}", a.trace);
    // An expectation past the end of a playthrough that ended sooner is a failure:
    // here black is stalemated from the start, so nothing is played.
    let ended = format!(
        "{HEAD}fen = \"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1\"\n\
         playthrough = {{ seed = 1, plies = 10 }}\n[[expect]]\nafter = 10\nlegal_count = 0\n"
    );
    let run = load("ended", "p.toml", &ended).unwrap().run().unwrap();
    assert_eq!(run.plies, 0);
    let lines: Vec<String> = run.failures.iter().map(|f| f.to_string()).collect();
    assert_eq!(
        lines,
        ["p.toml:6:9: [[expect]] #1 at the start: after: expected 10 actions, \
          found the game ended after 0 actions (draw by stalemate)"]
    );
}

#[test]
fn clock_readings_need_a_clock_a_time_and_a_step() {
    // Standard chess has no [clock]: a reading would change nothing.
    let text = format!(
        "{HEAD}moves = [\"e2-e4\"]\nclock = [{{ after = 1, elapsed = \"60:00\" }}]\n[[expect]]\noutcome = \"none\"\n"
    );
    assert_eq!(
        problems("clock-none", &text),
        ["bad.toml:4:10: variant `standard` has no [clock]: a clock reading changes nothing"]
    );
    let head = "description = \"a test\"\nvariant = \"chessception\"\nmoves = [\"e2-e4\"]\n";
    let text = format!(
        "{head}clock = [{{ after = 2, elapsed = \"1:00\" }}, {{ after = 1, elapsed = \"60\" }}, {{ after = 1, elapsed = \"1:75\" }}]\n\
         [[expect]]\noutcome = \"none\"\n"
    );
    assert_eq!(
        problems("clock-bad", &text),
        [
            "bad.toml:4:20: `after = 2` is out of range: this fixture has 1 moves",
            "bad.toml:4:66: `60` is not a time: write minutes and seconds, \"59:59\", or \"1:00:00\"",
            "bad.toml:4:97: `1:75` is not a time: write minutes and seconds, \"59:59\", or \"1:00:00\"",
        ]
    );
}

#[test]
fn realm_lines_in_order_are_a_subsequence_and_a_wrong_order_says_so() {
    let text = |lines: &str| {
        format!(
            "description = \"x\"\nvariant = \"caissan\"\n\n[state]\nplayers = [\"alice\", \"bob\"]\n\
             pieces = [\"alice R 0 0\", \"bob N 0 3\"]\n\n[[round]]\norders.alice = [\"move 0 0 0 3\"]\n\n\
             [round.expect]\nlines_in_order = [\n{lines}]\n"
        )
    };
    let captured = "\"slides 4: bob's knight on [0, 3] captured, into alice's vault\"";
    let moved = "\"slides 4: alice's rook [0, 0]-[0, 3]\"";
    // The order of the trace, with lines of it left out in between: no failure.
    let right = text(&format!("  \"alice 1. move [0, 0]-[0, 3]: accepted\",\n  {captured},\n  {moved},\n"));
    let run = load("in-order", "good.toml", &right).unwrap().run().unwrap();
    assert_eq!(run.failures, []);
    // Swapped, and a line the trace does not have.
    let wrong = text(&format!("  {moved},\n  {captured},\n  \"slides 9: nothing\",\n"));
    let run = load("out-of-order", "bad.toml", &wrong).unwrap().run().unwrap();
    let lines: Vec<String> = run.failures.iter().map(|f| f.to_string()).collect();
    let at = "[[expect]] #1 after action 1 (round 1): lines_in_order";
    assert_eq!(
        lines,
        [
            format!(
                "bad.toml:14:3: {at}: expected `slides 4: bob's knight on [0, 3] captured, into alice's vault` \
                 after `slides 4: alice's rook [0, 0]-[0, 3]`, found it comes only before \
                 `slides 4: alice's rook [0, 0]-[0, 3]` in the round's trace"
            ),
            format!("bad.toml:15:3: {at}: expected `slides 9: nothing`, found no such line in the round's trace"),
        ]
    );
    // An unknown key next to it is still refused, with a suggestion.
    let typo = text(&format!("  {moved},\n")).replace("lines_in_order", "lines_in_ordr");
    let p = problems("in-order-typo", &typo);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("unknown field `lines_in_ordr`") && p[0].contains("lines_in_order"), "{p:?}");
}
