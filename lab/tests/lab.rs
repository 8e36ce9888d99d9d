//! The balance lab end to end: reproducible reports whatever the thread count, a sweep
//! that shows a known effect of a rule value, and plots written in both formats.

use varia::Variant;
use varia_lab::sweep::{self, Axis};
use varia_lab::{Batch, Ending, Player};

fn batch(games: u64, jobs: usize, player: Player, max_plies: u32) -> Batch {
    Batch { games, white: player.clone(), black: player, seed: 7, jobs, max_plies, keep_actions: false, evaluate: true }
}

fn json(name: &str, b: &Batch) -> String {
    let v = Variant::load(name).unwrap();
    let (report, played) = varia_lab::batch(&v, b, Vec::new(), &|| {}).unwrap();
    assert_eq!(played.len() as u64, b.games);
    assert!(played.iter().enumerate().all(|(i, p)| p.index == i as u64), "games out of order");
    serde_json::to_string(&report).unwrap()
}

#[test]
fn the_report_is_the_same_with_one_thread_or_three() {
    // Random play, with and without Lua hooks, and a search level.
    let cases = [
        ("standard", batch(40, 1, Player::Random, 400)),
        ("chessception", batch(16, 1, Player::Random, 300)),
        ("standard", batch(4, 1, Player::Level("novice".into()), 40)),
    ];
    for (name, one) in cases {
        let three = Batch { jobs: 3, ..one.clone() };
        let a = json(name, &one);
        assert_eq!(a, json(name, &three), "{name}: jobs 1 and jobs 3 differ");
        // And a different seed gives different games (the seed is really used).
        let other = Batch { seed: 8, ..one.clone() };
        assert_ne!(a, json(name, &other), "{name}: seed 7 and seed 8 gave the same report");
    }
}

#[test]
fn every_game_ends_by_a_rule_or_the_cap_and_the_counts_add_up() {
    let v = Variant::load("standard").unwrap();
    let b = batch(30, 2, Player::Random, 120);
    let (report, played) = varia_lab::batch(&v, &b, Vec::new(), &|| {}).unwrap();
    let r = &report.report;
    assert_eq!(r.white_wins.count + r.black_wins.count + r.draws.count + r.capped + r.turn_limit, 30);
    for p in &played {
        assert!(p.summary.plies <= 120);
        assert_eq!(p.summary.ending == Ending::Cap, p.summary.plies == 120 && p.summary.ending == Ending::Cap);
        // One evaluation per state: the start and each ply.
        assert_eq!(p.summary.evals.len(), p.summary.plies as usize + 1);
    }
    // A cap of 120 plies stops most random chess games (they last about 340 plies).
    assert!(r.capped > 15, "only {} capped", r.capped);
}

#[test]
fn a_stronger_queen_shortens_chessception_games() {
    // The queen's primary damage (pieces.queen.damage, 4 in the rules) at 1 and at 12:
    // random games, the same seeds at both points. A queen that kills what she hits
    // (most pieces have 1 to 4 HP) ends games sooner.
    let axes: Vec<Axis> = vec!["pieces.queen.damage=1,12".parse().unwrap()];
    let b = batch(80, 2, Player::Random, 400);
    let points = sweep::run("chessception", &[], &axes, &b, &|| {}).unwrap();
    assert_eq!(points.len(), 2);
    assert_eq!(points[0].at, ["pieces.queen.damage=1"]);
    let (weak, strong) = (&points[0].batch.report.length, &points[1].batch.report.length);
    assert!(
        strong.high < weak.low,
        "damage 12: {:.1} plies (95% up to {:.1}); damage 1: {:.1} (from {:.1})",
        strong.mean,
        strong.high,
        weak.mean,
        weak.low
    );
    // The point's overrides are in its report.
    assert_eq!(points[1].batch.set, ["pieces.queen.damage=12"]);
    let table = sweep::table(&points);
    assert!(table.lines().count() == 3 && table.contains("pieces.queen.damage=12"), "{table}");
}

#[test]
fn a_bad_sweep_value_is_refused_before_any_game() {
    let axes: Vec<Axis> = vec!["pieces.queen.damage=2,lots".parse().unwrap()];
    let b = batch(1000, 1, Player::Random, 400);
    let e = sweep::run("chessception", &[], &axes, &b, &|| panic!("a game was played")).unwrap_err();
    assert!(e.to_string().contains("pieces.queen.damage"), "{e}");
}

#[test]
fn unknown_levels_and_solo_variants_are_refused() {
    let v = Variant::load("standard").unwrap();
    let e =
        varia_lab::batch(&v, &batch(2, 1, Player::Level("grandmaster".into()), 10), Vec::new(), &|| {}).unwrap_err();
    assert!(e.to_string().contains("grandmaster"), "{e}");
    let solo = Variant::load("chessic").unwrap();
    let e = varia_lab::batch(&solo, &batch(2, 1, Player::Random, 10), Vec::new(), &|| {}).unwrap_err();
    assert!(e.to_string().contains("solo"), "{e}");
}

#[test]
fn plots_are_written_as_png_and_svg() {
    let axes: Vec<Axis> = vec!["pieces.queen.value=800,900,1000".parse().unwrap()];
    let points = sweep::run("standard", &[], &axes, &batch(6, 1, Player::Random, 60), &|| {}).unwrap();
    let dir = std::env::temp_dir().join(format!("varia-lab-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("sweep.png");
    varia_lab::plot::write(&png, "standard", &points).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // Width and height from the IHDR chunk: 960 × 720.
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 960);
    assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 720);
    let svg = dir.join("sweep.svg");
    varia_lab::plot::write(&svg, "standard", &points).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    for label in ["white wins", "black wins", "draws", "mean plies per game", "pieces.queen.value"] {
        assert!(text.contains(label), "the SVG has no `{label}`");
    }
    // Each point's value labels the x axis.
    for value in ["800", "900", "1000"] {
        assert!(text.lines().any(|l| l.trim() == value), "the SVG has no tick label {value}");
    }
    let e = varia_lab::plot::write(&dir.join("sweep.pdf"), "standard", &points).unwrap_err();
    assert!(e.to_string().contains(".png or .svg"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn solo_boards_report_the_same_with_any_jobs_and_match_the_players() {
    use varia::search::solo;
    use varia::solo::{Forge, SoloGame, Status};
    use varia_lab::solo::{SoloBatch, run};
    let forge = Forge::new(Variant::load("chessic").unwrap()).unwrap();
    let batch = SoloBatch {
        boards: 6,
        seed: 3,
        jobs: 1,
        raw: true,
        decision_nodes: 20_000,
        best_nodes: 2_000,
        levels: vec!["apprentice".into()],
    };
    let one = run(&forge, &batch, &|| {}).unwrap();
    let three = run(&forge, &SoloBatch { jobs: 3, ..batch.clone() }, &|| {}).unwrap();
    assert_eq!(serde_json::to_string(&one).unwrap(), serde_json::to_string(&three).unwrap());
    assert_eq!(one.len(), 1);
    let r = &one[0];
    assert_eq!(r.level, "apprentice");
    assert_eq!(r.boards.iter().map(|b| b.seed).collect::<Vec<_>>(), [3, 4, 5, 6, 7, 8]);
    // Each board's greedy result is the greedy route played on the seed's raw board.
    for b in &r.boards {
        let g = SoloGame::dealt(forge.clone(), 0, b.seed);
        let (route, points) = solo::greedy(&g);
        let mut played = g.clone();
        for sq in route {
            played.strike(sq).unwrap();
        }
        assert_eq!(b.greedy.score, points.0);
        assert_eq!(b.greedy.forged, played.status() == Status::Forged);
        assert_eq!(b.greedy.cooled, played.status() == Status::Cooled);
        // Every board ends forged or cooled (no clock runs).
        assert!(b.solver.forged != b.solver.cooled && b.greedy.forged != b.greedy.cooled);
    }
    assert_eq!(r.greedy.forged.count + r.greedy.cooled.count, 6);
    assert_eq!(r.solver_better + r.solver_equal + r.solver_worse, 6);
    assert_eq!(r.solver.histogram.counts.iter().sum::<u64>(), 6);
    let e = run(&forge, &SoloBatch { levels: vec!["grandmaster".into()], ..batch }, &|| {}).unwrap_err();
    assert!(e.to_string().contains("apprentice"), "{e}");
}
