//! Embedding with rules in Rust: a game plugs its own hooks into a variant, without Lua.
//! Here, "capture scoring": each capture scores the capturing side the captured piece's
//! value, and the first side to reach 1000 points wins.
//!
//! Run with `cargo run -p varia --example rust_hooks`.

use varia::hooks::Removed;
use varia::{GameResult, Hook, HookGame, Hooks, Outcome, Reason, ScriptError, Variant};

struct CaptureScoring;

impl Hooks for CaptureScoring {
    fn defines(&self, hook: Hook) -> bool {
        matches!(hook, Hook::OnRemoved | Hook::CheckOutcome)
    }

    fn on_removed(&self, g: &mut HookGame<'_>, removed: &Removed) -> Result<(), ScriptError> {
        let value = g.variant().kind(removed.piece.kind).value as i64;
        let scorer = removed.piece.side.opponent();
        g.award(scorer, value, "capture").map_err(|e| ScriptError::new("on_removed", e))
    }

    fn check_outcome(&self, g: &mut HookGame<'_>) -> Result<Option<Outcome>, ScriptError> {
        for side in varia::Side::BOTH {
            if g.score(side) >= 1000 {
                return Ok(Some(Outcome { result: GameResult::Win(side), reason: Reason::Rule("1000 points".into()) }));
            }
        }
        Ok(None)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let v = Variant::load("standard")?.with_hooks(std::sync::Arc::new(CaptureScoring));
    let mut game = varia::Game::new(v.clone());
    for m in ["e2-e4", "d7-d5", "e4-d5", "d8-d5", "b1-c3", "d5-a2", "a1-a2"] {
        for e in game.play(m)? {
            println!("{m:>6}: {}", e.describe(&v));
        }
    }
    println!("scores: white {}, black {}", game.scores()[0], game.scores()[1]);
    Ok(())
}
