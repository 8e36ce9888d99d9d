//! Perft suites: every `tests/perft/*.perft` file, each position to each listed depth,
//! against published node counts.

use std::path::Path;

use varia::{Game, Variant};

struct Case {
    id: String,
    fen: String,
    depths: Vec<(u32, u64)>,
}

fn read_suite(path: &Path) -> (String, Vec<Case>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut variant = None;
    let mut cases: Vec<Case> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "variant" => variant = Some(rest.to_string()),
            "id" => cases.push(Case { id: rest.into(), fen: String::new(), depths: vec![] }),
            "epd" => cases.last_mut().expect("`epd` before `id`").fen = rest.into(),
            "perft" => {
                let (d, nodes) = rest.split_once(' ').unwrap();
                cases.last_mut().unwrap().depths.push((d.parse().unwrap(), nodes.parse().unwrap()));
            }
            _ => panic!("{}:{}: unknown line `{line}`", path.display(), n + 1),
        }
    }
    (variant.expect("a suite names its variant"), cases)
}

#[test]
fn perft_suites_match_published_counts() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/perft");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "perft")) {
        let (name, cases) = read_suite(file);
        let variant = Variant::load(&name).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for case in cases {
            let game = Game::from_fen(variant.clone(), &case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.id));
            for &(depth, expected) in &case.depths {
                let got = game.perft(depth);
                checked += 1;
                if got != expected {
                    failures.push(format!("{name} / {}: perft {depth} = {got}, expected {expected}", case.id));
                }
            }
        }
    }
    assert!(checked > 0, "no perft cases found in {}", dir.display());
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
}
