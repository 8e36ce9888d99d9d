//! Arbitrary text as moves, as `varia replay` reads them (split at spaces, commas and
//! newlines), from the start of a shipped two-sided variant or from a few positions
//! reached in play. A refused move is an error value and changes nothing; the game
//! reached round-trips through FEN and the JSON snapshot.
#![no_main]
use libfuzzer_sys::fuzz_target;
use varia::Game;
use varia_fuzz::{fen_round_trip, play_all, snapshot_round_trip, two_sided};

/// Positions to start from, per variant (reached by moves, so each has a history).
const OPENINGS: [&[&str]; 3] = [
    &["", "e2-e4 d7-d5 e4-d5", "e2-e4 e7-e5 g1-f3 b8-c6 f1-c4 g8-f6 e1-g1", "e2-e4 a7-a6 e4-e5 d7-d5"],
    &["", "e2-e5", "e2-e4 e9-e7"],
    &["", "e2-e4 d7-d5 e4-d5", "g1-f3 g8-f6 f3-e5"],
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let variant = two_sided(pick % 3);
    let openings = OPENINGS[(pick % 3) as usize];
    let opening = openings[(pick / 3) as usize % openings.len()];
    let mut game = Game::new(variant.clone());
    for m in opening.split_whitespace() {
        if game.play(m).is_err() {
            // An opening that does not apply (a changed rule) starts from the start.
            game = Game::new(variant.clone());
            break;
        }
    }
    let text = String::from_utf8_lossy(rest);
    play_all(&mut game, &text, 64);
    // The same text through the other readers of move text.
    let _ = Game::from_moves(variant.clone(), &text);
    let _ = game.parse_action(&text);
    fen_round_trip(&game);
    snapshot_round_trip(&game);
});
