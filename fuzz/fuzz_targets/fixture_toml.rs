//! Fixture text through the fixture loader (`Fixture::parse`, as `varia fixtures` reads a
//! file), run when it loads and its sizes are small (playthroughs and random rounds of at
//! most 64, no solver budget of its own). A refused fixture is a list of problems with
//! their places; a run is a trace and failures, never a panic.
#![no_main]
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use varia::fixture::Fixture;

/// Whether running the fixture stays cheap: every `plies` and `rounds` at most 64, and
/// no key or override that raises the solver's budget.
fn small(text: &str) -> bool {
    fn walk(v: &toml::Value) -> bool {
        match v {
            toml::Value::Table(t) => t.iter().all(|(k, v)| match (k.as_str(), v) {
                ("plies" | "rounds", toml::Value::Integer(n)) => *n <= 64,
                _ => walk(v),
            }),
            toml::Value::Array(a) => a.iter().all(walk),
            _ => true,
        }
    }
    !text.contains("solver_nodes") && text.parse::<toml::Table>().is_ok_and(|t| walk(&toml::Value::Table(t)))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // Relative variant paths are found from fixtures/<variant>/ of the checkout.
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/standard"));
    match Fixture::parse(text, "fuzz.toml", dir) {
        Err(e) => {
            let problems = e.problems();
            assert!(!problems.is_empty(), "a refused fixture names no problem: {e}");
            for p in problems {
                assert!(!p.to_string().is_empty());
            }
        }
        Ok(f) => {
            if small(text) {
                match f.run() {
                    Ok(run) => {
                        let _ = run.passed();
                        for failure in &run.failures {
                            let _ = format!("{failure:?}");
                        }
                    }
                    Err(e) => assert!(!e.to_string().is_empty()),
                }
            }
        }
    }
});
