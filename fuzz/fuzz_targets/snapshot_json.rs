//! JSON snapshots through the `--from` reader (`Game::from_snapshot`): arbitrary bytes,
//! and real `--json` snapshots of games of every shipped two-sided variant with fuzzed
//! edits (a field replaced, removed, added, swapped with another, a history move
//! changed). A refused snapshot is an error value; one that is read gives a game whose
//! own snapshot reads back to the same game, and that plays on.
#![no_main]
use std::sync::LazyLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};
use varia::Game;
use varia_fuzz::{exercise, snapshot_round_trip, two_sided};

/// A JSON value to write into a snapshot.
#[derive(Arbitrary, Debug)]
enum Fuzzed {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    /// A square name (`a1` … `p16`), the likeliest to pass the first checks.
    Square(u8, u8),
    /// A kind, side or other word the snapshots use.
    Word(u8),
    Array(Vec<Fuzzed>),
    Object(Vec<(String, Fuzzed)>),
}

const WORDS: &[&str] = &[
    "white",
    "black",
    "pawn",
    "knight",
    "bishop",
    "rook",
    "queen",
    "king",
    "archer",
    "K",
    "Q",
    "k",
    "q",
    "draw",
    "checkmate",
    "e2-e4",
    "e7-e5",
    "start",
    "moves",
    "square",
    "kind",
    "side",
    "hp",
    "frozen",
    "waiting",
    "graveyard",
    "standard",
    "decachess",
    "chessception",
];

impl Fuzzed {
    fn json(&self, depth: u8) -> Value {
        match self {
            Fuzzed::Null => Value::Null,
            Fuzzed::Bool(b) => Value::Bool(*b),
            Fuzzed::Int(i) => Value::from(*i),
            Fuzzed::UInt(u) => Value::from(*u),
            Fuzzed::Float(f) => Number::from_f64(*f).map(Value::Number).unwrap_or(Value::Null),
            Fuzzed::Str(s) => Value::String(s.clone()),
            Fuzzed::Square(f, r) => Value::String(format!("{}{}", (b'a' + f % 16) as char, 1 + r % 16)),
            Fuzzed::Word(w) => Value::String(WORDS[*w as usize % WORDS.len()].to_string()),
            Fuzzed::Array(items) if depth < 4 => Value::Array(items.iter().map(|i| i.json(depth + 1)).collect()),
            Fuzzed::Object(items) if depth < 4 => {
                Value::Object(items.iter().map(|(k, v)| (k.clone(), v.json(depth + 1))).collect::<Map<_, _>>())
            }
            _ => Value::Null,
        }
    }
}

/// A path into the snapshot: at each object a key index, at each array an item index.
#[derive(Arbitrary, Debug)]
struct Path(Vec<u8>);

#[derive(Arbitrary, Debug)]
enum Edit {
    Replace(Path, Fuzzed),
    Remove(Path),
    Insert(Path, String, Fuzzed),
    /// Overwrites the value at the first path with a copy of the one at the second.
    Copy(Path, Path),
    /// Exchanges two items of the array (or two values of the object) at the path.
    Swap(Path, u8, u8),
    /// A history move replaced with text.
    Move(u8, String),
}

#[derive(Arbitrary, Debug)]
struct Edited {
    base: u8,
    edits: Vec<Edit>,
    picks: [u8; 3],
}

/// Games to take snapshots of: (variant, moves).
const GAMES: &[(u8, &str)] = &[
    (0, ""),
    (0, "e2-e4 d7-d5 e4-d5 g8-f6"),
    (0, "e2-e4 a7-a6 e4-e5 d7-d5"),
    (0, "e2-e4 e7-e5 g1-f3 b8-c6 f1-c4 g8-f6 e1-g1"),
    (0, "f2-f3 e7-e5 g2-g4 d8-h4"),
    (1, ""),
    (1, "e2-e4 e9-e7"),
    (2, ""),
    (2, "e2-e4 d7-d5 e4-d5"),
    (2, "g1-f3 g8-f6 f3-e5 d7-d6"),
];

static SNAPSHOTS: LazyLock<Vec<(u8, Value)>> = LazyLock::new(|| {
    GAMES
        .iter()
        .map(|(v, moves)| {
            let mut g = Game::new(two_sided(*v));
            for m in moves.split_whitespace() {
                if g.play(m).is_err() {
                    break;
                }
            }
            (*v, g.snapshot())
        })
        .collect()
});

fn at<'a>(root: &'a mut Value, path: &Path) -> &'a mut Value {
    // The JSON pointer of the value the path leads to, found without borrowing mutably.
    let mut pointer = String::new();
    let mut v: &Value = root;
    for &step in &path.0 {
        let (token, next) = match v {
            Value::Object(m) if !m.is_empty() => {
                let (k, next) = m.iter().nth(step as usize % m.len()).unwrap();
                (k.replace('~', "~0").replace('/', "~1"), next)
            }
            Value::Array(a) if !a.is_empty() => {
                let i = step as usize % a.len();
                (i.to_string(), &a[i])
            }
            _ => break,
        };
        pointer.push('/');
        pointer.push_str(&token);
        v = next;
    }
    root.pointer_mut(&pointer).unwrap()
}

fn edit(root: &mut Value, e: &Edit) {
    match e {
        Edit::Replace(p, f) => *at(root, p) = f.json(0),
        Edit::Remove(p) => {
            let (last, parent) = match p.0.split_last() {
                Some((l, rest)) => (*l, Path(rest.to_vec())),
                None => return,
            };
            match at(root, &parent) {
                Value::Object(m) if !m.is_empty() => {
                    let key = m.keys().nth(last as usize % m.len()).unwrap().clone();
                    m.remove(&key);
                }
                Value::Array(a) if !a.is_empty() => {
                    let n = a.len();
                    a.remove(last as usize % n);
                }
                _ => {}
            }
        }
        Edit::Insert(p, k, f) => match at(root, p) {
            Value::Object(m) => {
                m.insert(k.clone(), f.json(0));
            }
            Value::Array(a) => a.push(f.json(0)),
            _ => {}
        },
        Edit::Copy(to, from) => {
            let value = at(root, from).clone();
            *at(root, to) = value;
        }
        Edit::Swap(p, i, j) => match at(root, p) {
            Value::Array(a) if !a.is_empty() => {
                let n = a.len();
                a.swap(*i as usize % n, *j as usize % n);
            }
            Value::Object(m) if !m.is_empty() => {
                let n = m.len();
                let ki = m.keys().nth(*i as usize % n).unwrap().clone();
                let kj = m.keys().nth(*j as usize % n).unwrap().clone();
                let vi = m.get(&ki).cloned().unwrap();
                let vj = m.insert(kj, vi).unwrap();
                m.insert(ki, vj);
            }
            _ => {}
        },
        Edit::Move(i, text) => {
            if let Some(Value::Array(moves)) = root.pointer_mut("/history/moves") {
                if moves.is_empty() {
                    moves.push(Value::String(text.clone()));
                } else {
                    let n = moves.len();
                    moves[*i as usize % n] = Value::String(text.clone());
                }
            }
        }
    }
}

fn read(variant: u8, text: &str, picks: &[u8]) {
    match Game::from_snapshot(two_sided(variant), text) {
        Err(e) => assert!(!e.to_string().is_empty()),
        Ok(game) => {
            snapshot_round_trip(&game);
            exercise(&game, picks);
        }
    }
}

// The first byte: even, the rest is a snapshot's text for the variant it picks (so real
// snapshots seed the corpus); odd, the rest is a structured edit of a real snapshot.
fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 2 == 0 {
        read(mode / 2, &String::from_utf8_lossy(rest), &[]);
        return;
    }
    let Ok(Edited { base, edits, picks }) = Edited::arbitrary_take_rest(Unstructured::new(rest)) else { return };
    let (v, snap) = &SNAPSHOTS[base as usize % SNAPSHOTS.len()];
    let mut snap = snap.clone();
    for e in edits.iter().take(8) {
        edit(&mut snap, e);
    }
    let text = serde_json::to_string(&snap).unwrap();
    read(*v, &text, &picks);
});
