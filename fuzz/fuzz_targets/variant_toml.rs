//! A shipped variant.toml with fuzzed edits (lines replaced, removed, inserted, values
//! rewritten, bytes cut) and fuzzed `--set` overrides, through the loader `varia check`
//! uses (`Variant::from_toml_with`). Without a folder, no `rules.lua` is read (Lua only
//! comes in through `extends` of a shipped parent, under its limits). A refused file is
//! a list of problems, each with its place; a variant that loads starts a game that lists
//! its actions and plays a few.
#![no_main]
use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use varia::variant::{Override, TurnModel};
use varia::{Game, Variant};
use varia_fuzz::{VARIANT_TOMLS, exercise};

#[derive(Arbitrary, Debug)]
enum Edit {
    /// The value after `=` on a line replaced.
    Value(u16, String),
    /// The value after `=` on a line replaced with a number.
    Number(u16, i64),
    Line(u16, String),
    Delete(u16),
    Insert(u16, String),
    /// Two lines exchanged.
    Swap(u16, u16),
    /// The text cut at a byte (on a character boundary).
    Truncate(u16),
}

#[derive(Arbitrary, Debug)]
struct Input {
    base: u8,
    edits: Vec<Edit>,
    /// `--set` overrides: a key taken from the file (by line) or written out, and a value.
    sets: Vec<(Option<u16>, String, String)>,
    /// Raw `--set` texts, parsed as the command line parses them.
    raw: Vec<String>,
    picks: [u8; 3],
}

/// The dotted key of line `i` (its table header and its own key), if it has one.
fn key_of(lines: &[String], i: usize) -> Option<String> {
    let (k, _) = lines[i].split_once('=')?;
    let table = lines[..i]
        .iter()
        .rev()
        .find(|l| l.trim_start().starts_with('[') && !l.trim_start().starts_with("[["))
        .map(|l| l.trim().trim_matches(['[', ']']).to_string());
    Some(match table {
        Some(t) => format!("{t}.{}", k.trim()),
        None => k.trim().to_string(),
    })
}

fuzz_target!(|input: Input| {
    let (name, text) = VARIANT_TOMLS[input.base as usize % VARIANT_TOMLS.len()];
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut cut = None;
    for e in input.edits.iter().take(6) {
        let n = lines.len().max(1);
        match e {
            Edit::Value(i, v) | Edit::Line(i, v) | Edit::Insert(i, v) if lines.is_empty() => {
                let _ = (i, v);
                lines.push(String::new());
            }
            Edit::Value(i, v) => {
                let l = &mut lines[*i as usize % n];
                if let Some((k, _)) = l.split_once('=') {
                    *l = format!("{k}= {v}");
                }
            }
            Edit::Number(i, v) => {
                if let Some(l) = lines.get_mut(*i as usize % n)
                    && let Some((k, _)) = l.split_once('=')
                {
                    *l = format!("{k}= {v}");
                }
            }
            Edit::Line(i, v) => lines[*i as usize % n] = v.clone(),
            Edit::Delete(i) => {
                if !lines.is_empty() {
                    lines.remove(*i as usize % n);
                }
            }
            Edit::Insert(i, v) => lines.insert(*i as usize % n, v.clone()),
            Edit::Swap(i, j) => {
                if !lines.is_empty() {
                    lines.swap(*i as usize % n, *j as usize % n);
                }
            }
            Edit::Truncate(at) => cut = Some(*at as usize),
        }
    }
    let mut overrides = Vec::new();
    for (line, key, value) in input.sets.iter().take(4) {
        let key = match line {
            Some(i) if !lines.is_empty() => key_of(&lines, *i as usize % lines.len()).unwrap_or_else(|| key.clone()),
            _ => key.clone(),
        };
        if let Ok(o) = format!("{key}={value}").parse::<Override>() {
            overrides.push(o);
        }
    }
    for raw in input.raw.iter().take(2) {
        match raw.parse::<Override>() {
            Ok(o) => overrides.push(o),
            Err(e) => assert!(!e.problems().is_empty()),
        }
    }
    let mut text = lines.join("\n");
    if let Some(at) = cut {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        text.truncate(at);
    }
    let label = format!("scripts/{name}/variant.toml");
    match Variant::from_toml_with(&text, &label, &overrides) {
        Err(e) => {
            let problems = e.problems();
            assert!(!problems.is_empty(), "a refused variant names no problem: {e}");
            for p in problems {
                assert!(!p.to_string().is_empty());
            }
        }
        Ok(v) => {
            if v.turns == TurnModel::Alternate {
                let game = Game::new(v);
                exercise(&game, &input.picks);
            }
        }
    }
});
