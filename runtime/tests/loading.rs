//! Loading variants: `--set` overrides, `extends`, and errors that say where and why.

use std::path::PathBuf;

use varia::variant::Override;
use varia::{Game, Variant};

fn set(list: &[&str]) -> Vec<Override> {
    list.iter().map(|s| s.parse().unwrap()).collect()
}

fn problems(r: Result<std::sync::Arc<Variant>, varia::LoadError>) -> Vec<String> {
    r.expect_err("should fail").problems().iter().map(|p| p.to_string()).collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("varia-load-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn overrides_change_values_and_are_type_checked() {
    let v = Variant::load_with("standard", &set(&["pieces.queen.value=950", "draws.repetition=2"])).unwrap();
    assert_eq!(v.kind(v.kind_named("queen").unwrap()).value, 950);
    assert_eq!(v.draws.repetition, Some(2));
    // Array items by index: the pawn's double step becomes a triple step.
    let v = Variant::load_with("standard", &set(&["pieces.pawn.moves.1.range=3"])).unwrap();
    let g = Game::new(v);
    assert!(g.parse_action("e2-e5").is_ok());

    let p = problems(Variant::load_with("standard", &set(&["pieces.queen.vaule=950"])));
    assert_eq!(p.len(), 1);
    assert!(p[0].starts_with("--set pieces.queen.vaule=950: unknown field `vaule`"), "{p:?}");
    assert!(p[0].ends_with("(did you mean `value`?)"), "{p:?}");

    let p = problems(Variant::load_with("standard", &set(&["pieces.quen.value=950"])));
    assert_eq!(p, vec!["--set pieces.quen.value=950: there is no `quen` in `pieces` (did you mean `queen`?)"]);

    let p = problems(Variant::load_with("standard", &set(&["pieces.queen.value=lots"])));
    assert!(p[0].starts_with("--set pieces.queen.value=lots: invalid type: string \"lots\""), "{p:?}");

    let p = problems(Variant::load_with("standard", &set(&["pieces.pawn.moves.7.range=3"])));
    assert!(p[0].contains("`pieces.pawn.moves` has 3 entries; index 7 is out of range"), "{p:?}");

    // Semantic checks apply to overridden values too, and blame the override.
    let p = problems(Variant::load_with("standard", &set(&["pieces.pawn.promotion.zone=far"])));
    assert!(p[0].starts_with("--set pieces.pawn.promotion.zone=far: unknown region `far`"), "{p:?}");

    assert!("no-equals".parse::<Override>().is_err());
}

#[test]
fn a_variant_extends_another_with_only_what_changes() {
    let dir = scratch("cousin");
    std::fs::write(
        dir.join("variant.toml"),
        "extends = \"standard\"\ntitle = \"Chess with twofold repetition\"\n[draws]\nrepetition = 2\n",
    )
    .unwrap();
    let v = Variant::load(dir.to_str().unwrap()).unwrap();
    assert_eq!(v.name, format!("varia-load-{}-cousin", std::process::id()));
    assert_eq!(v.title, "Chess with twofold repetition");
    assert_eq!(v.draws.repetition, Some(2));
    assert_eq!(v.draws.no_progress_plies, Some(100), "inherited");
    assert_eq!(Game::new(v).perft(3), 8902);
}

#[test]
fn errors_in_an_extending_file_point_into_that_file() {
    let dir = scratch("typo");
    std::fs::write(dir.join("variant.toml"), "extends = \"standard\"\n\n[draws]\nrepetiton = 2\n").unwrap();
    let p = problems(Variant::load(dir.to_str().unwrap()));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("typo/variant.toml:4:1: unknown field `repetiton`"), "{p:?}");
    assert!(p[0].ends_with("(did you mean `repetition`?)"), "{p:?}");

    std::fs::write(dir.join("variant.toml"), "extends = \"standrad\"\n").unwrap();
    let p = problems(Variant::load(dir.to_str().unwrap()));
    assert!(p[0].contains("typo/variant.toml:1:11: extends: unknown variant `standrad`"), "{p:?}");
}

#[test]
fn extends_cycles_are_reported() {
    let a = scratch("cycle-a");
    let b = scratch("cycle-b");
    let bn = b.file_name().unwrap().to_str().unwrap().to_string();
    let an = a.file_name().unwrap().to_str().unwrap().to_string();
    std::fs::write(a.join("variant.toml"), format!("extends = \"../{bn}\"\n")).unwrap();
    std::fs::write(b.join("variant.toml"), format!("extends = \"../{an}\"\n")).unwrap();
    let p = problems(Variant::load(a.to_str().unwrap()));
    assert!(p[0].contains("`extends` makes a cycle"), "{p:?}");
}

#[test]
fn toml_syntax_errors_have_positions() {
    let p = problems(Variant::from_toml("[board]\nfiles = 8\nranks = = 8\n", "bad.toml"));
    assert!(p[0].starts_with("bad.toml:3:"), "{p:?}");
}

#[test]
fn a_reloader_swaps_in_good_rules_and_keeps_the_last_good_ones() {
    use varia::variant::Reloader;
    let root = scratch("reload");
    // A parent on disk (a copy of the built-in standard) is watched with the child.
    std::fs::create_dir_all(root.join("base")).unwrap();
    let standard = varia::variant::built_in_named("standard").unwrap().file("variant.toml").unwrap();
    std::fs::write(root.join("base/variant.toml"), standard).unwrap();
    let dir = root.join("child");
    std::fs::create_dir_all(&dir).unwrap();
    let toml = |value: &str| format!("extends = \"../base\"\n[pieces.queen]\nvalue = {value}\n");
    std::fs::write(dir.join("variant.toml"), toml("900")).unwrap();
    let mut r = Reloader::new(dir.to_str().unwrap(), &[]).unwrap();
    let queen = |v: &Variant| v.kind(v.kind_named("queen").unwrap()).value;
    assert_eq!(queen(&r.current()), 900);
    assert!(r.poll().is_none(), "nothing changed yet");
    assert!(r.files().iter().any(|f| f.ends_with("base/variant.toml")), "the parent is watched too");

    // Files may keep their modification time within a second: change the size as well.
    std::fs::write(dir.join("variant.toml"), toml("1000")).unwrap();
    let v = r.poll().expect("a change is seen").unwrap();
    assert_eq!(queen(&v), 1000);

    // A broken save: the error is reported once, the last good rules stay.
    std::fs::write(dir.join("variant.toml"), toml("\"lots\"")).unwrap();
    let e = r.poll().expect("a change is seen").unwrap_err();
    assert!(e.to_string().contains("variant.toml:3:9: invalid type"), "{e}");
    assert_eq!(queen(&r.current()), 1000);
    assert!(r.last_error().is_some());
    assert!(r.poll().is_none(), "the same broken save is not reported again");

    // A game moves to the new rules by replaying its history.
    let mut g = Game::new(r.current());
    g.play("e2-e4").unwrap();
    std::fs::write(dir.join("variant.toml"), "extends = \"../base\"\n[pieces.queen]\nvalue = 1100\n\n").unwrap();
    let v = r.poll().unwrap().unwrap();
    let moved = g.with_variant(v.clone()).unwrap();
    assert_eq!((moved.ply(), moved.fen()), (1, g.fen()));
    assert_eq!(queen(moved.variant()), 1100);
    // Rules under which the history is illegal are refused, naming the action.
    let no_double_step = Variant::load_with("standard", &set(&["pieces.pawn.moves.1.range=1"])).unwrap();
    let e = g.with_variant(no_double_step).unwrap_err().to_string();
    assert!(e.starts_with("move 1 (`e2-e4`): under the new rules: e2-e4 is illegal"), "{e}");
}

#[test]
fn the_turn_model_is_named_in_turns_and_only_alternate_needs_a_setup() {
    use varia::variant::TurnModel;
    let base =
        "[board]\nfiles = 6\nranks = 6\n[pieces.rook]\nletter = \"R\"\nmoves = [{ farthest = \"orthogonal\" }]\n";
    let solo = "[wear]\nstrikes = 2\n[levels.only]\nweights = { rook = 1 }\n";
    let v = Variant::from_toml(&format!("[turns]\nmodel = \"solo\"\n{base}{solo}"), "solo.toml").unwrap();
    assert_eq!(v.turns, TurnModel::Solo);
    assert_eq!(v.setup, "6/6/6/6/6/6 w - - 0 1");
    assert_eq!(v.solo.as_ref().unwrap().strikes, 2);
    // A solo board wears down; the other models do not.
    let p = problems(Variant::from_toml(&format!("[turns]\nmodel = \"solo\"\n{base}"), "nowear.toml"));
    assert_eq!(p, vec!["nowear.toml: a solo board needs `[wear]` with `strikes` (how many strikes clear a square)"]);
    let p = problems(Variant::from_toml(&format!("[turns]\nmodel = \"simultaneous\"\n{base}{solo}"), "w.toml"));
    assert_eq!(p, vec!["w.toml:9:1: `[wear]` is for solo boards: it needs turns.model = \"solo\""]);
    let v = Variant::from_toml(&format!("[turns]\nmodel = \"simultaneous\"\n{base}"), "sim.toml").unwrap();
    assert_eq!(v.turns, TurnModel::Simultaneous);
    // Two sides alternating start from a FEN.
    let p = problems(Variant::from_toml(base, "alt.toml"));
    assert_eq!(p, vec!["alt.toml: `[setup]` with a `fen` is required (two sides alternating start from a position)"]);
    let p = problems(Variant::from_toml(&format!("[turns]\nmodel = \"solitaire\"\n{base}"), "bad.toml"));
    assert!(p[0].starts_with("bad.toml:2:9: unknown turn model `solitaire`"), "{p:?}");
    assert_eq!(Variant::load("standard").unwrap().turns, TurnModel::Alternate);
}

#[test]
fn a_vector_is_two_numbers_and_a_shape_offset_stays_near_the_board() {
    // serde alone reads [1, 2, 3] as [1, 2]; the loader refuses it.
    let p = problems(Variant::load_with("chessception", &set(&["shapes.cone.orthogonal=[[1, 2, 3]]"])));
    assert_eq!(p, ["--set shapes.cone.orthogonal=[[1, 2, 3]]: invalid length 3, expected a pair [dx, dy]"]);
    // Offsets were clamped to ±15 without a word; now each is refused at its place.
    let p = problems(Variant::load_with("chessception", &set(&["shapes.cone.any=[[1, 0], [20, -1]]"])));
    assert_eq!(p, ["--set shapes.cone.any=[[1, 0], [20, -1]]: shape `cone`: offset [20, -1] must be within -15..15"]);
    let v = Variant::load_with("chessception", &set(&["shapes.cone.any=[[15, -15]]"])).unwrap();
    let cone = &v.combat.as_ref().unwrap().shapes.iter().find(|s| s.name == "cone").unwrap().any;
    assert_eq!(cone, &[(15, -15)]);
}
