//! What the fuzz targets share: the shipped variants, loaded once, and the invariants
//! every target checks on a game it could build.

use std::sync::{Arc, LazyLock};

use varia::variant::Override;
use varia::{Game, Setup, Variant};

/// The shipped two-sided variants, in the order the first byte of an input picks them.
pub const TWO_SIDED: [&str; 3] = ["standard", "decachess", "chessception"];

/// Loaded without the wall-clock `time_limit_ms` (a backstop that a loaded machine under
/// AddressSanitizer trips: Chessception's `on_turn_end` then fails at random, and with it
/// the round trips) so that a run depends only on its input and the instruction budget.
static LOADED: LazyLock<Vec<Arc<Variant>>> = LazyLock::new(|| {
    let no_clock: Override = "scripting.time_limit_ms=0".parse().expect("a valid override");
    TWO_SIDED
        .iter()
        .map(|n| Variant::load_with(n, std::slice::from_ref(&no_clock)).expect("a shipped variant loads"))
        .collect()
});

/// The shipped two-sided variant that `selector` picks.
pub fn two_sided(selector: u8) -> Arc<Variant> {
    LOADED[selector as usize % LOADED.len()].clone()
}

/// The texts of the shipped variant files (for mutation), embedded at build time.
pub const VARIANT_TOMLS: [(&str, &str); 5] = [
    ("standard", include_str!("../../scripts/standard/variant.toml")),
    ("decachess", include_str!("../../scripts/decachess/variant.toml")),
    ("chessception", include_str!("../../scripts/chessception/variant.toml")),
    ("chessic", include_str!("../../scripts/chessic/variant.toml")),
    ("caissan", include_str!("../../scripts/caissan/variant.toml")),
];

/// Everything a game holds that a rollback must restore, in comparable form.
#[derive(Debug, PartialEq)]
pub struct State {
    pub setup: Setup,
    pub ply: usize,
    pub history: Vec<String>,
    pub scores: [i64; 2],
    pub vars: Vec<String>,
    pub outcome: Option<String>,
    pub hash: u64,
}

pub fn state(g: &Game) -> State {
    State {
        setup: g.setup(),
        ply: g.ply(),
        history: g.history_text(),
        scores: g.scores(),
        vars: g.vars().iter().map(|v| format!("{v:?}")).collect(),
        outcome: g.outcome().map(|o| format!("{o:?}")),
        hash: g.hash(),
    }
}

/// A position's FEN parses back to the same position, and writes the same text again.
pub fn fen_round_trip(g: &Game) {
    let fen = g.fen();
    let again = match Game::from_fen(g.variant().clone(), &fen) {
        Ok(a) => a,
        Err(e) => panic!("the written FEN `{fen}` does not parse: {e}"),
    };
    assert_eq!(again.setup(), g.setup(), "FEN `{fen}` read back differs");
    assert_eq!(again.fen(), fen);
}

/// A game's `--json` snapshot reads back (`--from`) to the same game.
pub fn snapshot_round_trip(g: &Game) {
    let text = serde_json::to_string_pretty(&g.snapshot()).expect("a snapshot serialises");
    let back = match Game::from_snapshot(g.variant().clone(), &text) {
        Ok(b) => b,
        Err(e) => panic!("the game's own snapshot is refused: {e}\n{text}"),
    };
    assert_eq!(state(&back), state(g), "snapshot read back differs:\n{text}");
}

/// Plays `text` as `varia replay` does (split at spaces, commas and newlines), stopping
/// at the first refused move; a refused move leaves the game exactly as it was.
pub fn play_all(game: &mut Game, text: &str, max: usize) {
    for m in text.split([' ', ',', '\n']).filter(|m| !m.is_empty()).take(max) {
        let before = state(game);
        match game.play(m) {
            Ok(events) => {
                let _ = format!("{events:?}");
            }
            Err(e) => {
                let _ = e.to_string();
                assert_eq!(state(game), before, "refused move `{m}` ({e}) changed the game");
                break;
            }
        }
    }
}

/// Lists the legal actions and, if there are few enough, counts a depth-2 perft; applies
/// a few actions chosen by `picks` (checking the FEN round trip after each).
pub fn exercise(game: &Game, picks: &[u8]) {
    let legal = match game.try_legal_actions() {
        Ok(l) => l,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    for a in &legal {
        let _ = game.action_text(a);
    }
    let depth = if legal.len() <= 60 { 2 } else { 1 };
    if let Ok(n) = game.try_perft(depth)
        && depth == 1
        && game.outcome().is_none()
    {
        assert_eq!(n as usize, legal.len(), "perft 1 disagrees with the legal list");
    }
    let mut g = game.clone();
    for &p in picks.iter().take(4) {
        let Ok(legal) = g.try_legal_actions() else { break };
        if legal.is_empty() || g.outcome().is_some() {
            break;
        }
        let a = legal[p as usize % legal.len()];
        let before = state(&g);
        match g.apply(a) {
            Ok(_) => fen_round_trip(&g),
            Err(e) => {
                let _ = e.to_string();
                assert_eq!(state(&g), before, "a refused action changed the game");
                break;
            }
        }
    }
}
