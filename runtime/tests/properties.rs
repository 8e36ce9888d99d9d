//! Property tests (issue 10, point 8): over seeded random games of every shipped
//! two-sided variant, each position round-trips through FEN (the same position, the same
//! legal actions) and through the JSON snapshot (`--json`, then `--from`: the same game);
//! and valid inputs mutated (bytes flipped, cut, fields swapped) are always answered with
//! `Ok` or `Err`, never a panic. The heavy lifting is the fuzz targets' (fuzz/); these
//! stay fast (a fixed seed and a few dozen cases each), and a failure is reproducible
//! from the seed that proptest prints.

use std::sync::{Arc, LazyLock};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use serde_json::Value;
use varia::rng::Rng;
use varia::variant::{Override, TurnModel};
use varia::{Game, Variant};

/// Every shipped variant, found as `varia list` finds it, loaded once.
static SHIPPED: LazyLock<Vec<Arc<Variant>>> = LazyLock::new(|| {
    varia::variant::known_variants()
        .into_iter()
        .map(|f| Variant::load_origin(&f.origin, &[]).unwrap_or_else(|e| panic!("{}: {e}", f.name)))
        .collect()
});

fn shipped(model: TurnModel) -> Vec<Arc<Variant>> {
    SHIPPED.iter().filter(|v| v.turns == model).cloned().collect()
}

static VARIANTS: LazyLock<Vec<Arc<Variant>>> = LazyLock::new(|| shipped(TurnModel::Alternate));

fn config(cases: u32) -> Config {
    Config { cases, rng_seed: RngSeed::Fixed(10), failure_persistence: None, ..Config::default() }
}

/// A game of `plies` seeded random legal actions (fewer if it ends).
fn random_game(v: &Arc<Variant>, seed: u64, plies: usize) -> Game {
    let mut rng = Rng::new(seed);
    let mut g = Game::with_seed(v.clone(), seed);
    while g.ply() < plies && g.outcome().is_none() {
        let legal = g.legal_actions();
        if legal.is_empty() {
            break;
        }
        let a = legal[rng.below(legal.len() as u64) as usize];
        g.apply(a).unwrap_or_else(|e| panic!("seed {seed}, ply {}: {e}", g.ply() + 1));
    }
    g
}

fn legal_texts(g: &Game) -> Vec<String> {
    g.try_legal_actions().unwrap().iter().map(|a| g.action_text(a)).collect()
}

/// Everything that makes two games the same game, as the public API shows it.
fn game_state(g: &Game) -> impl PartialEq + std::fmt::Debug + use<> {
    (
        g.setup(),
        g.ply(),
        g.history_text(),
        g.scores(),
        g.vars().iter().map(|v| format!("{v:?}")).collect::<Vec<_>>(),
        g.outcome().map(|o| format!("{o:?}")),
        g.hash(),
        g.in_check(),
        g.start_fen(),
    )
}

/// Plays the random game and checks both round trips at every position.
fn round_trips(v: &Arc<Variant>, seed: u64, plies: usize) -> Result<(), TestCaseError> {
    let mut rng = Rng::new(seed);
    let mut g = Game::with_seed(v.clone(), seed);
    loop {
        // FEN: the same position and the same legal actions.
        let fen = g.fen();
        let back = Game::from_fen(v.clone(), &fen).map_err(|e| TestCaseError::fail(format!("`{fen}`: {e}")))?;
        prop_assert_eq!(back.setup(), g.setup(), "FEN `{}`", fen);
        prop_assert_eq!(back.fen(), fen.clone());
        if g.outcome().is_none() {
            prop_assert_eq!(legal_texts(&back), legal_texts(&g), "FEN `{}`", fen);
        }
        // The snapshot, as text (what --json prints and --from reads).
        let text = serde_json::to_string_pretty(&g.snapshot()).unwrap();
        let restored = Game::from_snapshot(v.clone(), &text)
            .map_err(|e| TestCaseError::fail(format!("own snapshot refused: {e}\n{text}")))?;
        prop_assert_eq!(game_state(&restored), game_state(&g));
        prop_assert_eq!(restored.snapshot(), g.snapshot());
        if g.outcome().is_some() || g.ply() >= plies {
            return Ok(());
        }
        let legal = g.legal_actions();
        if legal.is_empty() {
            return Ok(());
        }
        let a = legal[rng.below(legal.len() as u64) as usize];
        g.apply(a).map_err(|e| TestCaseError::fail(format!("ply {}: {e}", g.ply() + 1)))?;
    }
}

#[test]
fn every_turn_model_has_shipped_variants() {
    // The round trips below iterate over what is shipped: make sure that is not nothing.
    for model in [TurnModel::Alternate, TurnModel::Solo, TurnModel::Simultaneous] {
        assert!(!shipped(model).is_empty(), "no shipped variant of the {model:?} model");
    }
    assert!(VARIANTS.iter().any(|v| v.name == "standard"));
}

proptest! {
    #![proptest_config(config(12))]

    /// Every case plays one random game of every shipped two-sided variant.
    #[test]
    fn random_two_sided_games_round_trip(seed in any::<u64>(), plies in 0usize..60) {
        for v in VARIANTS.iter() {
            round_trips(v, seed, plies).map_err(|e| TestCaseError::fail(format!("{}: {e}", v.name)))?;
        }
    }

    /// Solo boards (every level of every solo variant, raw boards dealt from the seed):
    /// after each random strike, and with a random clock reading, the snapshot reads back
    /// as the same game.
    #[test]
    fn random_solo_games_round_trip(seed in any::<u64>(), strikes in 0usize..40, clock in any::<u32>()) {
        for v in shipped(TurnModel::Solo) {
            let forge = varia::solo::Forge::new(v.clone()).map_err(|e| TestCaseError::fail(format!("{}: {e}", v.name)))?;
            for level in 0..forge.rules().levels.len() {
                let mut rng = Rng::new(seed);
                let mut g = varia::solo::SoloGame::dealt(forge.clone(), level, seed);
                loop {
                    g.set_elapsed(u64::from(clock) * g.ply() as u64);
                    let text = serde_json::to_string(&g.snapshot()).unwrap();
                    let back = varia::solo::SoloGame::from_snapshot(forge.clone(), &text)
                        .map_err(|e| TestCaseError::fail(format!("{} level {level}: own snapshot refused: {e}\n{text}", v.name)))?;
                    prop_assert_eq!(back.snapshot(), g.snapshot(), "{} level {}", v.name, level);
                    prop_assert_eq!(back.total(), g.total());
                    prop_assert_eq!(back.position_key(), g.position_key());
                    let targets = g.targets();
                    if g.ply() >= strikes || targets.is_empty() {
                        break;
                    }
                    let sq = targets[rng.below(targets.len() as u64) as usize];
                    g.strike(sq).map_err(|e| TestCaseError::fail(format!("{} level {level}: {e}", v.name)))?;
                }
            }
        }
    }

    /// Realms (every simultaneous variant): a small generated world played by its bots
    /// for a few rounds; after each round the state written as JSON text reads back as
    /// the same state.
    #[test]
    fn random_realms_round_trip(seed in any::<u64>(), boards in 1usize..12, players in 1usize..5, rounds in 0usize..4) {
        use varia::world::{Realm, generate::generate, json::StateJson, resolve, state::{parse_json, world_of}};
        for v in shipped(TurnModel::Simultaneous) {
            let rules = world_of(&v).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let mut realm = generate(rules, boards, players, seed);
            for round in 0..=rounds {
                let state = realm.to_json(&v);
                let text = serde_json::to_string_pretty(&state).unwrap();
                let read: StateJson = parse_json(&text, "state.json")
                    .map_err(|e| TestCaseError::fail(format!("{}: own state refused: {e}\n{text}", v.name)))?;
                let back = Realm::from_json(&v, &read)
                    .map_err(|e| TestCaseError::fail(format!("{} round {round}: own state refused: {e}\n{text}", v.name)))?;
                prop_assert_eq!(back.to_json(&v), state, "{} round {}", v.name, round);
                if round == rounds {
                    break;
                }
                let m = varia::world::moves::Movement::new(&v, rules);
                let given = varia::world::round::bot_orders(&m, &realm, seed ^ round as u64, false);
                realm = resolve(&v, &realm, given, seed, false).map_err(|e| TestCaseError::fail(e.to_string()))?.realm;
            }
        }
    }
}

/// A mutation of a valid text: the bytes changed, and the result read as text (lossily,
/// as a command line would have refused the rest).
#[derive(Debug, Clone)]
enum Mutation {
    Flip {
        at: usize,
        bit: u8,
    },
    Set {
        at: usize,
        byte: u8,
    },
    Truncate {
        at: usize,
    },
    Delete {
        at: usize,
        len: usize,
    },
    Duplicate {
        at: usize,
        len: usize,
    },
    /// Two spans exchanged.
    Swap {
        a: usize,
        b: usize,
        len: usize,
    },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (
            any::<usize>(),
            prop_oneof![Just(b'0'), Just(b'9'), Just(b'/'), Just(b' '), Just(b'"'), Just(b'='), any::<u8>()]
        )
            .prop_map(|(at, byte)| Mutation::Set { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), 1usize..12).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), 1usize..12).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        (any::<usize>(), any::<usize>(), 1usize..8).prop_map(|(a, b, len)| Mutation::Swap { a, b, len }),
    ]
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut b = text.as_bytes().to_vec();
    for m in mutations {
        let n = b.len().max(1);
        match *m {
            Mutation::Flip { at, bit } => {
                if let Some(x) = b.get_mut(at % n) {
                    *x ^= 1 << bit;
                }
            }
            Mutation::Set { at, byte } => {
                if let Some(x) = b.get_mut(at % n) {
                    *x = byte;
                }
            }
            Mutation::Truncate { at } => b.truncate(at % (b.len() + 1)),
            Mutation::Delete { at, len } => {
                let at = at % n;
                let end = (at + len).min(b.len());
                if at < end {
                    b.drain(at..end);
                }
            }
            Mutation::Duplicate { at, len } => {
                let at = at % n;
                let end = (at + len).min(b.len());
                if at < end {
                    let span: Vec<u8> = b[at..end].to_vec();
                    b.splice(at..at, span);
                }
            }
            Mutation::Swap { a, b: other, len } => {
                let (x, y) = (a % n, other % n);
                let (x, y) = (x.min(y), x.max(y));
                if x + len <= y && y + len <= b.len() {
                    for i in 0..len {
                        b.swap(x + i, y + i);
                    }
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// Valid inputs to mutate: positions reached in play (FENs, move lists, snapshots) of
/// each shipped two-sided variant.
static GAMES: LazyLock<Vec<Game>> = LazyLock::new(|| {
    let mut out = Vec::new();
    for v in VARIANTS.iter() {
        for (seed, plies) in [(1, 0), (2, 9), (3, 24)] {
            out.push(random_game(v, seed, plies));
        }
    }
    out
});

/// What a game made from mutated input must still allow: its own text reads back.
fn usable(g: &Game) -> Result<(), TestCaseError> {
    let fen = g.fen();
    let back = Game::from_fen(g.variant().clone(), &fen);
    prop_assert!(back.is_ok(), "a game read from mutated input writes `{}`, which does not parse", fen);
    let _ = g.try_legal_actions();
    let _ = g.try_perft(1);
    Ok(())
}

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn mutated_fens_are_read_or_refused(game in 0usize..9, ms in prop::collection::vec(mutation(), 1..4)) {
        let g = &GAMES[game];
        let text = mutate(&g.fen(), &ms);
        match Game::from_fen(g.variant().clone(), &text) {
            Ok(read) => usable(&read)?,
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    #[test]
    fn mutated_move_text_is_played_or_refused(game in 0usize..9, ms in prop::collection::vec(mutation(), 1..4)) {
        let g = &GAMES[game];
        let start = Game::from_fen(g.variant().clone(), &g.start_fen()).unwrap();
        let text = mutate(&g.history_text().join(" "), &ms);
        let mut played = start.clone();
        for m in text.split([' ', ',', '\n']).filter(|m| !m.is_empty()) {
            let before = game_state(&played);
            if played.play(m).is_err() {
                prop_assert_eq!(game_state(&played), before, "a refused move `{}` changed the game", m);
                break;
            }
        }
        usable(&played)?;
        let _ = Game::from_moves(g.variant().clone(), &text);
    }

    #[test]
    fn mutated_snapshots_are_read_or_refused(game in 0usize..9, ms in prop::collection::vec(mutation(), 1..4)) {
        let g = &GAMES[game];
        let text = mutate(&serde_json::to_string_pretty(&g.snapshot()).unwrap(), &ms);
        match Game::from_snapshot(g.variant().clone(), &text) {
            Ok(read) => usable(&read)?,
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    /// Fields of a snapshot overwritten with another field's value (a swap of meaning,
    /// not of bytes): the likeliest to pass the JSON reader and reach the checks.
    #[test]
    fn snapshots_with_swapped_fields_are_read_or_refused(game in 0usize..9, a in any::<usize>(), b in any::<usize>(), drop_history in any::<bool>()) {
        let g = &GAMES[game];
        let mut snap = g.snapshot();
        let obj = snap.as_object_mut().unwrap();
        if drop_history {
            obj.remove("history");
        }
        let keys: Vec<String> = obj.keys().cloned().collect();
        let (ka, kb) = (&keys[a % keys.len()], &keys[b % keys.len()]);
        let (va, vb) = (obj[ka].clone(), obj[kb].clone());
        obj.insert(ka.clone(), vb);
        obj.insert(kb.clone(), va);
        match Game::restore(g.variant().clone(), &Value::Object(obj.clone())) {
            Ok(read) => usable(&read)?,
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

const TOMLS: [(&str, &str); 5] = [
    ("standard", include_str!("../../scripts/standard/variant.toml")),
    ("decachess", include_str!("../../scripts/decachess/variant.toml")),
    ("chessception", include_str!("../../scripts/chessception/variant.toml")),
    ("chessic", include_str!("../../scripts/chessic/variant.toml")),
    ("caissan", include_str!("../../scripts/caissan/variant.toml")),
];

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn mutated_variant_files_load_or_list_their_problems(
        file in 0usize..5,
        ms in prop::collection::vec(mutation(), 1..4),
        set in prop::option::of((0usize..400, any::<u8>())),
    ) {
        let (name, text) = TOMLS[file];
        let text = mutate(text, &ms);
        // A --set of one of the file's own keys, with a mutated value.
        let overrides: Vec<Override> = set
            .and_then(|(line, byte)| {
                let lines: Vec<&str> = text.lines().collect();
                let l = lines.get(line % lines.len().max(1))?;
                let (k, v) = l.split_once('=')?;
                format!("{}={}{}", k.trim(), v.trim(), byte as char).parse().ok()
            })
            .into_iter()
            .collect();
        match Variant::from_toml_with(&text, &format!("scripts/{name}/variant.toml"), &overrides) {
            Ok(v) => {
                if v.turns == varia::variant::TurnModel::Alternate {
                    usable(&Game::new(v))?;
                }
            }
            Err(e) => {
                let problems = e.problems();
                prop_assert!(!problems.is_empty());
                prop_assert!(problems.iter().all(|p| !p.message.is_empty()), "{}", e);
            }
        }
    }
}
