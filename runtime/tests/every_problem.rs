//! Every problem of a file in one run: unknown keys and wrong types in different tables
//! of a variant or a fixture are all reported, each at its place, sorted, with the
//! semantic problems when the file still means something (only unknown keys).

use std::path::PathBuf;

use varia::Variant;
use varia::fixture::Fixture;
use varia::variant::Override;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("varia-every-problem-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn variant_problems(text: &str, set: &[&str]) -> Vec<String> {
    let overrides: Vec<Override> = set.iter().map(|s| s.parse().unwrap()).collect();
    let e = Variant::from_toml_with(text, "v.toml", &overrides).expect_err("should not load");
    e.problems().iter().map(|p| p.to_string()).collect()
}

const KING: &str = "[pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{ leap = \"all\" }]\n";

#[test]
fn four_mistakes_in_four_tables_are_four_lines() {
    let text = "title = \"Four mistakes\"\n\
                [board]\nfiles = 8\nranks = \"eight\"\n\
                [setup]\nfen = \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"\n\
                [rules]\nchek = false\n\
                [draws]\nrepetition = -3\n\
                [pieces.king]\nletter = \"K\"\nroyal = \"yes\"\nmoves = [{ leap = \"all\" }]\n";
    assert_eq!(
        variant_problems(text, &[]),
        [
            "v.toml:4:9: invalid type: string \"eight\", expected u32",
            "v.toml:8:1: unknown field `chek`, expected one of `check`, `checkmate`, `stalemate`, `royal_lost`, \
             `royals_facing`, `end`, `forced_capture`, `giving_check`, `explosion`, `pass`, `points` (did you mean `check`?)",
            "v.toml:10:14: invalid value: integer `-3`, expected u32",
            "v.toml:13:9: invalid type: string \"yes\", expected a boolean",
        ]
    );
}

#[test]
fn each_piece_and_each_move_atom_is_checked_on_its_own() {
    let text = format!(
        "[board]\nfiles = 8\nranks = 8\n[setup]\nfen = \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"\n{KING}\
         [pieces.rook]\nletter = \"R\"\nvalue = \"five\"\nmoves = [{{ slide = \"orthogonal\", rnage = 2 }}]\n\
         [pieces.bishop]\nletter = 7\nmoves = [{{ slide = \"diagonal\" }}, {{ leap = [[1, 2, 3]] }}]\n"
    );
    assert_eq!(
        variant_problems(&text, &[]),
        [
            "v.toml:12:9: invalid type: string \"five\", expected i32",
            "v.toml:13:34: unknown field `rnage`, expected one of `leap`, `slide`, `farthest`, `hop`, \
             `blockable`, `cannot_hop`, `anywhere`, `symmetry`, `distance`, `range`, `mode`, `capture`, `from`, `to`, `en_passant`, `silenced_by_adjacent_enemy`, \
             `cannot_capture` (did you mean `range`?)",
            "v.toml:15:10: invalid type: integer `7`, expected a string",
            // `[1, 2, 3]` is not a pair (serde alone would read it as [1, 2]).
            "v.toml:16:43: data did not match any variant of untagged enum VectorSpec",
        ]
    );
}

#[test]
fn with_unknown_keys_only_the_semantic_problems_come_too() {
    // `royla` means nothing, so the file is checked as written: the vector set `al`
    // and the shared letter are reported with it, in file order.
    let text = "[board]\nfiles = 8\nranks = 8\n[setup]\nfen = \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"\n\
                [pieces.king]\nletter = \"K\"\nroyla = true\nmoves = [{ leap = \"al\" }]\n\
                [pieces.knight]\nletter = \"K\"\nmoves = [{ leap = \"knight\" }]\n";
    let p = variant_problems(text, &[]);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(
        p[0].starts_with("v.toml:8:1: unknown field `royla`") && p[0].ends_with("(did you mean `royal`?)"),
        "{p:?}"
    );
    assert!(p[1].starts_with("v.toml:9:10: unknown vector set `al`"), "{p:?}");
    assert_eq!(p[2], "v.toml:11:10: pieces `king` and `knight` share the letter K");
    // A misspelt required key is one problem, not "unknown" and "missing" both.
    let p = variant_problems("[bord]\nfiles = 8\nranks = 8\n", &[]);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].starts_with("v.toml:1:2: unknown field `bord`") && p[0].ends_with("(did you mean `board`?)"), "{p:?}");
}

#[test]
fn overrides_and_extended_files_keep_their_own_places() {
    // A parent on disk with a mistake of its own, a child with two, and an override with
    // one: each is named by its own file (or `--set`), parent first, overrides last.
    let dir = scratch("chain");
    let standard = varia::variant::built_in_named("standard").unwrap().file("variant.toml").unwrap();
    let parent = format!(
        "colour = 1\n{}",
        String::from_utf8(standard.to_vec()).unwrap().replace("repetition = 3", "repetiton = 3")
    );
    std::fs::create_dir_all(dir.join("base")).unwrap();
    std::fs::write(dir.join("base/variant.toml"), &parent).unwrap();
    std::fs::create_dir_all(dir.join("child")).unwrap();
    std::fs::write(
        dir.join("child/variant.toml"),
        "extends = \"../base\"\n[pieces.queen]\nvalue = \"lots\"\n[rules]\nstalemat = \"win\"\n",
    )
    .unwrap();
    let overrides: Vec<Override> = ["pieces.rook.value=x"].iter().map(|s| s.parse().unwrap()).collect();
    let e = Variant::load_with(dir.join("child").to_str().unwrap(), &overrides).expect_err("should not load");
    let p: Vec<String> = e.problems().iter().map(|p| p.to_string()).collect();
    let parent_line = parent.lines().position(|l| l.starts_with("repetiton = 3")).unwrap() + 1;
    assert_eq!(p.len(), 5, "{p:?}");
    assert!(p[0].contains("base/variant.toml:1:1: unknown field `colour`"), "{p:?}");
    assert!(p[1].contains(&format!("base/variant.toml:{parent_line}:1: unknown field `repetiton`")), "{p:?}");
    assert!(p[2].contains("child/variant.toml:3:9: invalid type: string \"lots\", expected i32"), "{p:?}");
    assert!(p[3].contains("child/variant.toml:5:1: unknown field `stalemat`"), "{p:?}");
    assert_eq!(p[4], "--set pieces.rook.value=x: invalid type: string \"x\", expected i32");
}

/// Each caller passes its own folder name: the tests run in parallel.
fn fixture_problems(folder: &str, text: &str) -> Vec<String> {
    let dir = scratch(folder);
    let path = dir.join("f.toml");
    std::fs::write(&path, text).unwrap();
    let e = Fixture::load_as(&path, "f.toml").expect_err("should not load");
    e.problems().iter().map(|p| p.to_string()).collect()
}

#[test]
fn a_fixture_reports_every_mistake_of_every_block() {
    let text = "description = \"four mistakes\"\nvariant = \"standard\"\nmoves = [\"e2-e4\", 7]\n\
                clock = [{ after = 1, elapsed = 60 }]\n\n\
                [[expect]]\nafter = \"one\"\nto_move = \"white\"\n\n\
                [[expect]]\npieces = { e4 = \"white pawn\" }\nin_chek = false\n";
    let p = fixture_problems("every-mistake", text);
    assert_eq!(p.len(), 4, "{p:?}");
    assert_eq!(p[0], "f.toml:3:19: invalid type: integer `7`, expected a string");
    assert_eq!(p[1], "f.toml:4:33: invalid type: integer `60`, expected a string");
    assert_eq!(p[2], "f.toml:7:9: invalid type: string \"one\", expected i64");
    assert!(p[3].starts_with("f.toml:12:1: unknown field `in_chek`"), "{p:?}");
    assert!(p[3].ends_with("(did you mean `in_check`?)"), "{p:?}");
}

#[test]
fn a_fixture_with_unknown_keys_only_is_checked_as_written() {
    // `aftre` means nothing: the square e9 (off the board) and the kind `quen` are
    // reported with it; the block that lost the key is not also called empty.
    let text = "description = \"x\"\nvariant = \"standard\"\nmoves = [\"e2-e4\"]\n\
                [[expect]]\naftre = 1\n\n\
                [[expect]]\nempty = [\"e9\"]\npieces = { e4 = \"white quen\" }\n";
    let p = fixture_problems("unknown-keys", text);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(
        p[0].starts_with("f.toml:5:1: unknown field `aftre`") && p[0].ends_with("(did you mean `after`?)"),
        "{p:?}"
    );
    assert!(p[1].starts_with("f.toml:8:10: "), "{p:?}");
    assert!(p[1].contains("e9"), "{p:?}");
    assert!(p[2].starts_with("f.toml:9:17: ") && p[2].contains("quen"), "{p:?}");
}
