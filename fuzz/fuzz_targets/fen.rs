//! Arbitrary text as a FEN of a shipped two-sided variant (the first byte picks it),
//! as `varia moves --fen` and `varia perft --fen` read it; a FEN that parses writes
//! back to one that parses to the same position, and the legal actions, a depth-2
//! perft and a few actions from it never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use varia::Game;
use varia_fuzz::{exercise, fen_round_trip, two_sided};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    // The last bytes choose the actions to play; the rest is the FEN.
    let split = rest.len().saturating_sub(4);
    let (text, picks) = rest.split_at(split);
    let text = String::from_utf8_lossy(text);
    let variant = two_sided(pick);
    match Game::from_fen(variant, &text) {
        Err(e) => {
            assert!(!e.to_string().is_empty());
        }
        Ok(game) => {
            fen_round_trip(&game);
            exercise(&game, picks);
        }
    }
});
