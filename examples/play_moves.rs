//! Embedding the runtime: load a variant by name, play moves, read events and the result.
//!
//! Run with `cargo run -p varia --example play_moves`.

use varia::{Game, Variant};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // By name (searched under scripts/ and VARIA_PATH), by folder, or from TOML text.
    let standard = Variant::load("standard")?;
    let mut game = Game::new(standard.clone());

    for text in ["e2-e4", "e7-e5", "f1-c4", "b8-c6", "d1-h5", "g8-f6", "h5-f7"] {
        let events = game.play(text)?;
        for e in &events {
            println!("{text:>6}: {}", e.describe(&standard));
        }
    }
    print!("{}", game.board_text());
    match game.outcome() {
        Some(o) => println!("{}", o.describe()),
        None => println!("{} to move", game.to_move()),
    }

    // Illegal moves are refused with the reason, and change nothing.
    let mut fresh = Game::new(standard);
    if let Err(e) = fresh.play("e2-e5") {
        println!("refused: {e}");
    }
    println!("legal replies to 1. e4: {}", {
        fresh.play("e2-e4")?;
        fresh.legal_actions().len()
    });
    Ok(())
}
