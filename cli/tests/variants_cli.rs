//! Where `varia` finds variants (built in; `./scripts` and `VARIA_PATH` override and add),
//! what `varia list` and `varia check` say, and that names from data never become paths
//! outside the data folder.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{scratch, stderr, stdout};
use varia::Variant;
use varia::variant::{Origin, built_in};

/// Runs `varia` in `dir`, with `VARIA_PATH` as given (or unset).
fn varia_in(dir: &Path, varia_path: Option<&Path>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_varia"));
    c.args(args).current_dir(dir).env_remove("VARIA_PATH");
    if let Some(p) = varia_path {
        c.env("VARIA_PATH", p);
    }
    c.output().expect("runs varia")
}

fn built_in_text(name: &str) -> String {
    let b = varia::variant::built_in_named(name).unwrap();
    String::from_utf8(b.file("variant.toml").unwrap().to_vec()).unwrap()
}

/// A variant folder `dir/name` holding `toml`.
fn folder(dir: &Path, name: &str, toml: &str) {
    std::fs::create_dir_all(dir.join(name)).unwrap();
    std::fs::write(dir.join(name).join("variant.toml"), toml).unwrap();
}

/// The line of `varia list` for a variant, split into name, origin and summary.
fn listed(out: &str, name: &str) -> (String, String) {
    let line = out.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_else(|| panic!("{out}"));
    let rest = line[name.len()..].trim_start();
    let (origin, summary) = rest.split_once("  ").unwrap_or_else(|| panic!("{line}"));
    (origin.to_string(), summary.trim_start().to_string())
}

#[test]
fn list_shows_the_built_in_variants_from_anywhere() {
    let dir = scratch("anywhere");
    let o = varia_in(&dir, None, &["list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), built_in().len(), "{out}");
    for b in built_in() {
        let v = Variant::load_origin(&Origin::BuiltIn(b), &[]).unwrap();
        assert_eq!(listed(&out, b.name), ("built in".to_string(), v.summary.clone()), "{out}");
    }
    assert_eq!(
        listed(&out, "standard").1,
        "Orthodox chess on 8×8, with castling, en passant, promotion and the usual draws."
    );
}

#[test]
fn folders_override_and_add_to_the_built_in_variants() {
    let dir = scratch("override");
    let scripts = dir.join("scripts");
    let mine = built_in_text("standard").replace(
        "summary = \"Orthodox chess on 8×8, with castling, en passant, promotion and the usual draws.\"",
        "summary = \"Standard, from ./scripts\"",
    );
    folder(&scripts, "standard", &mine);
    folder(&scripts, "cousin", "extends = \"chessception\"\nsummary = \"A cousin\"\n[pieces.queen]\naoe = 3\n");
    let o = varia_in(&dir, None, &["list"]);
    let out = stdout(&o);
    assert_eq!(listed(&out, "standard"), ("scripts/standard".to_string(), "Standard, from ./scripts".to_string()));
    assert_eq!(listed(&out, "cousin"), ("scripts/cousin".to_string(), "A cousin".to_string()));
    assert_eq!(listed(&out, "decachess").0, "built in");
    // The cousin's parent is the built-in Chessception: the game plays with its hooks.
    let o = varia_in(&dir, None, &["check", "cousin"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(0), "ok\n"), "{}", stderr(&o));
    let o = varia_in(&dir, None, &["replay", "cousin", "e2-e4", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"variant\": \"cousin\""), "{}", stdout(&o));

    // VARIA_PATH comes before ./scripts.
    let extra = dir.join("extra");
    folder(&extra, "standard", &mine.replace("Standard, from ./scripts", "Standard, from VARIA_PATH"));
    let o = varia_in(&dir, Some(&extra), &["list"]);
    let (origin, summary) = listed(&stdout(&o), "standard");
    assert!(origin.ends_with("extra/standard"), "{origin}");
    assert_eq!(summary, "Standard, from VARIA_PATH");

    // A broken override is the override's problem, at its place.
    folder(&scripts, "standard", &mine.replace("files = 8", "files = \"8\""));
    let o = varia_in(&dir, None, &["check", "standard"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with("scripts/standard/variant.toml:6:9: invalid type: string \"8\", expected u32"),
        "{}",
        stdout(&o)
    );
    let o = varia_in(&dir, None, &["list"]);
    assert_eq!(
        listed(&stdout(&o), "standard"),
        ("scripts/standard".to_string(), "(does not load: run `varia check standard`)".to_string())
    );
}

#[test]
fn an_unknown_variant_says_where_it_looked() {
    let dir = scratch("unknown");
    let nowhere = dir.join("nowhere");
    let o = varia_in(&dir, Some(&nowhere), &["moves", "chesss"]);
    assert_eq!(o.status.code(), Some(1));
    let names: Vec<&str> = built_in().iter().map(|b| b.name).collect();
    assert_eq!(
        stderr(&o),
        format!(
            "error: unknown variant `chesss` (did you mean `chessic`?); known variants: {}; looked in: {} (VARIA_PATH, no such folder), \
             ./scripts (no such folder), the built-in variants\n",
            names.join(", "),
            nowhere.display()
        )
    );
}

#[test]
fn a_missing_folder_is_no_such_folder() {
    let dir = scratch("missing");
    let o = varia_in(&dir, None, &["check", "./gone"]);
    assert_eq!((o.status.code(), stdout(&o).as_str()), (Some(1), "no such folder: ./gone\n"));
    let o = varia_in(&dir, None, &["moves", "../gone/variant.toml"]);
    assert_eq!((o.status.code(), stderr(&o).as_str()), (Some(1), "error: no such folder: ../gone/variant.toml\n"));
    let o = varia_in(&dir, None, &["check", "."]);
    assert_eq!(
        (o.status.code(), stdout(&o).as_str()),
        (Some(1), ". is not a variant: a variant is a folder with a variant.toml\n")
    );
}

#[test]
fn check_reports_four_mistakes_in_four_tables_in_one_run() {
    let dir = scratch("four");
    folder(
        &dir,
        "four",
        "[board]\nfiles = 8\nranks = \"eight\"\n[setup]\nfen = \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"\n\
         [rules]\nchek = false\n[draws]\nrepetition = -3\n\
         [pieces.king]\nletter = \"K\"\nroyal = \"yes\"\nmoves = [{ leap = \"all\" }]\n",
    );
    let o = varia_in(&dir, None, &["check", "./four"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "four/variant.toml:3:9: invalid type: string \"eight\", expected u32");
    assert!(lines[1].starts_with("four/variant.toml:7:1: unknown field `chek`"), "{out}");
    assert_eq!(lines[2], "four/variant.toml:9:14: invalid value: integer `-3`, expected u32");
    assert_eq!(lines[3], "four/variant.toml:12:9: invalid type: string \"yes\", expected a boolean");
}

#[test]
fn a_name_from_data_never_decides_where_files_go() {
    let dir = scratch("hostile");
    let data = dir.join("data");
    let body = built_in_text("standard");
    for (i, hostile) in ["../../escape", "/tmp/varia-escape", "a/../../b"].iter().enumerate() {
        let v = format!("v{i}");
        folder(&dir, &v, &format!("name = \"{hostile}\"\n{body}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_varia"))
            .args(["play", &format!("./{v}"), "--as", "both"])
            .current_dir(&dir)
            .env("VARIA_DATA_DIR", &data)
            .env("VARIA_CLIPBOARD", "file")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        let _ = child.stdin.take().unwrap().write_all(b"e2-e4\nsave\ncopy\nquit\n");
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(1), "{hostile}");
        assert_eq!(
            stderr(&o),
            format!(
                "error: {v}/variant.toml:1:8: `{hostile}` is not a variant name: a variant's name is 1 to 64 \
                 letters, digits, `-` and `_`, starting with a letter or digit\n"
            )
        );
    }
    // Nothing was written anywhere: not in the data folder, not beside or above it.
    assert!(!data.exists());
    assert!(!dir.join("escape").exists() && !dir.parent().unwrap().join("escape").exists());
    assert!(!Path::new("/tmp/varia-escape").exists());
    let entries: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    let mut entries = entries;
    entries.sort();
    assert_eq!(entries, ["v0", "v1", "v2"]);
}

#[test]
fn watching_a_built_in_variant_says_there_is_no_file() {
    let dir = scratch("watch");
    let o = varia_in(&dir, None, &["watch", "standard", "--changes", "0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("standard is built in: no files to watch (copy its folder under ./scripts to edit it)"),
        "{}",
        stdout(&o)
    );
    // With a bad override there is no save to wait for: the error, and exit 1.
    let o = varia_in(&dir, None, &["watch", "standard", "--set", "board.files=x", "--changes", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("error: --set board.files=x: invalid type: string \"x\", expected u32"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_standard_on_the_path_leaves_its_built_in_cousins_their_protocol_names() {
    // A copy of standard on VARIA_PATH: the built-in 3check extends it by name (its only
    // file on disk), yet still answers to its own UCI name, `3check`, and `chess` still
    // means standard — not 3check, whose games would then be judged by the wrong rules.
    let dir = scratch("protocol-names");
    let path = dir.join("path");
    folder(&path, "standard", &built_in_text("standard"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_varia"))
        .arg("uci")
        .current_dir(&dir)
        .env("VARIA_PATH", &path)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("runs varia uci");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"uci\nsetoption name UCI_Variant value chess\nsetoption name UCI_Variant value 3check\nquit\n")
            .unwrap();
    }
    let o = child.wait_with_output().unwrap();
    let out = stdout(&o);
    let variants: Vec<&str> = out.lines().filter(|l| l.starts_with("info string variant ")).collect();
    assert_eq!(
        variants,
        ["info string variant standard (Standard chess)", "info string variant 3check (Three-check)"],
        "{out}"
    );
    let option = out.lines().find(|l| l.starts_with("option name UCI_Variant")).unwrap();
    assert!(option.contains(" var 3check "), "{option}");
}
