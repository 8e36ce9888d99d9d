//! Fixtures of solo boards: bad files get clear errors at their place, failed
//! expectations say which, where, expected against found, and clock readings with
//! pauses reach the game.

use varia::fixture::{Fixture, FixtureError};

fn load(text: &str) -> Result<Fixture, FixtureError> {
    Fixture::parse(text, "solo.toml", std::path::Path::new("."))
}

fn problems(text: &str) -> Vec<String> {
    match load(text) {
        Ok(_) => panic!("the fixture loaded; expected problems:\n{text}"),
        Err(e) => e.problems().iter().map(|p| p.to_string()).collect(),
    }
}

const HEAD: &str = "description = \"a test\"\nvariant = \"chessic\"\nlevel = \"apprentice\"\n";

fn ones() -> String {
    format!("board = \"{}\"\n", vec!["111"; 36].join(" "))
}

#[test]
fn a_solo_fixture_checks_targets_hits_and_score() {
    let text = format!(
        "{HEAD}{}strikes = [\"a1\", \"b1\"]\n[[expect]]\ntargets = [\"a1\", \"c1\", \"a2\", \"b2\", \"c2\"]\nhits = {{ a1 = 1 }}\nscore = {{ total = 521 }}\npoints = {{ strike_points = 2.1 }}\n",
        ones()
    );
    let run = load(&text).unwrap().run().unwrap();
    assert!(run.passed(), "{:?}", run.failures);
    assert_eq!(run.plies, 2);
    assert!(run.trace.contains("2. b1  (one of 3 targets)\n"), "{}", run.trace);
}

#[test]
fn failed_expectations_say_what_was_expected_and_found() {
    let text = format!(
        "{HEAD}{}strikes = [\"a1\"]\n[[expect]]\ntargets = [\"b1\"]\nscore = {{ strike_points = 11 }}\nstatus = \"forged\"\npiece = {{ a1 = \"two\" }}\n",
        ones()
    );
    let run = load(&text).unwrap().run().unwrap();
    let f: Vec<String> = run.failures.iter().map(|f| f.to_string()).collect();
    assert_eq!(
        f,
        [
            "solo.toml:7:11: [[expect]] #1 after action 1 (a1): targets: expected b1, found b1 a2 b2",
            "solo.toml:8:27: [[expect]] #1 after action 1 (a1): score.strike_points: expected 11 (1.1), found 10 (1.0)",
            "solo.toml:9:10: [[expect]] #1 after action 1 (a1): status: expected forged, found playing",
            "solo.toml:10:16: [[expect]] #1 after action 1 (a1): piece.a1: expected two, found one",
        ]
    );
}

#[test]
fn bad_keys_and_values_are_refused_with_their_place() {
    // An unknown key means nothing: the file's other problems are listed with it.
    let p = problems(&format!("{HEAD}{}strikez = []\n", ones()));
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].starts_with("solo.toml:1:1: no [[expect]]"), "{p:?}");
    assert!(p[1].starts_with("solo.toml:5:1: unknown field `strikez`"), "{p:?}");
    assert!(p[1].contains("did you mean `strikes`?"), "{p:?}");
    let p = problems(&format!(
        "{HEAD}{}strikes = [\"z9\"]\n[[expect]]\nscore = {{ royal_runs = 1 }}\nstatus = \"done\"\npiece = {{ a1 = \"pawn\" }}\n",
        ones()
    ));
    assert_eq!(p.len(), 4, "{p:?}");
    assert!(p[0].starts_with("solo.toml:5:12: strike 1 (`z9`): `z9` is not a square of the 6×6 board"), "{p:?}");
    assert!(p[1].starts_with("solo.toml:7:11: `royal_runs` is not a part of the score; parts: strike_points, royal, perfect, layer, time, total, royal_run"), "{p:?}");
    assert!(p[2].starts_with("solo.toml:8:10: `done` is not a status"), "{p:?}");
    assert!(p[3].starts_with("solo.toml:9:16: `pawn` is not a piece kind"), "{p:?}");
    // Unknown keys and wrong types in different tables, all in one run.
    let p = problems(&format!("{HEAD}{}strikez = []\n[[expect]]\nstatus = 3\n[[expect]]\ntargetz = []\n", ones()));
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p[0].starts_with("solo.toml:5:1: unknown field `strikez`"), "{p:?}");
    assert!(p[1].starts_with("solo.toml:7:10: invalid type: integer `3`, expected a string"), "{p:?}");
    assert!(p[2].starts_with("solo.toml:9:1: unknown field `targetz`"), "{p:?}");
    let p = problems("description = \"x\"\nvariant = \"chessic\"\nstrikes = []\n[[expect]]\nstatus = \"playing\"\n");
    assert_eq!(p, ["solo.toml:2:11: a solo fixture needs `board = \"…\"` or `seed = N` (with `level`)"]);
    let p = problems(&format!("{HEAD}board = \"111 11\"\n[[expect]]\nstatus = \"playing\"\n"));
    assert_eq!(p, ["solo.toml:4:9: a board has 36 stacks (one per square, a1, b1, … in order), not 2"]);
    let p = problems(&format!("{HEAD}{}strikes = []\n", ones()));
    assert!(p[0].contains("no [[expect]]"), "{p:?}");
}

#[test]
fn a_strike_refused_at_its_step_or_while_paused_stops_the_fixture() {
    let f = load(&format!("{HEAD}{}strikes = [\"a1\", \"c3\"]\n[[expect]]\nstatus = \"playing\"\n", ones())).unwrap();
    let e = f.run().unwrap_err().to_string();
    assert_eq!(e, "solo.toml:5:18: strike 2 (`c3`): c3 cannot be struck: the one struck on a1 reaches only b1, a2, b2");
    let f = load(&format!(
        "{HEAD}{}strikes = [\"a1\", \"b1\"]\nclock = [{{ after = 1, at = 3, do = \"pause\" }}]\n[[expect]]\nstatus = \"playing\"\n",
        ones()
    ))
    .unwrap();
    let e = f.run().unwrap_err().to_string();
    assert_eq!(e, "solo.toml:5:18: strike 2 (`b1`) while the clock is paused: resume it first");
    // A pause the fixture says must be refused, but which the rules allow.
    let f = load(&format!(
        "{HEAD}{}strikes = []\nclock = [{{ after = 0, at = 3, do = \"pause\", refused = \"cannot\" }}]\n[[expect]]\nstatus = \"playing\"\n",
        ones()
    ))
    .unwrap();
    let e = f.run().unwrap_err().to_string();
    assert!(e.starts_with("solo.toml:6:10: clock at 3.0 s: the pause was expected to be refused"), "{e}");
    let p = problems(&format!(
        "{HEAD}{}strikes = []\nclock = [{{ after = 2, at = -1 }}]\n[[expect]]\nstatus = \"playing\"\n",
        ones()
    ));
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p[0].contains("`after = 2` is out of range: this fixture has 0 strikes"), "{p:?}");
}

#[test]
fn a_solo_fixture_runs_the_same_twice() {
    let text = format!("{HEAD}seed = 3\nraw = true\nplaythrough = {{ seed = 9, strikes = 40 }}\n");
    let a = load(&text).unwrap().run().unwrap();
    let b = load(&text).unwrap().run().unwrap();
    assert_eq!(a.trace, b.trace);
    assert!(a.plies > 0);
    assert!(a.trace.contains("playthrough: seed 9, random targets, at most 40 strikes"), "{}", a.trace);
}
