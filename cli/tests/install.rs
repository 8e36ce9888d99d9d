//! An installed `varia` works anywhere: the shipped variants are inside the binary.
//!
//! `the_binary_works_alone` (every `cargo test`): the built binary is copied into a
//! scratch `bin/`, and run through a `PATH` without the build tree, from a folder with
//! no scripts/, no `VARIA_PATH` and a scratch home.
//!
//! `cargo_install_from_a_copy_then_removed` (`cargo test -p varia-cli --test install --
//! --ignored`; a few minutes): copies the checkout, `cargo install`s from the copy into
//! a scratch root, deletes the copy, and runs the same checks, so nothing can come from
//! the folder it was built in.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh scratch folder for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("varia-install-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `varia` as a shell would find it: through `PATH` = `bin` and the system folders.
fn varia(bin: &Path, cwd: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new("varia")
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("HOME", home)
        .output()
        .expect("varia is on the PATH")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// What an installed binary must do from a folder that has nothing of the checkout.
fn check_installed(bin: &Path, scratch: &Path) {
    let cwd = scratch.join("elsewhere");
    let home = scratch.join("home");
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().canonicalize().unwrap();
    let run = |args: &[&str]| {
        let o = varia(bin, &cwd, &home, args);
        let all = text(&o);
        // Nothing printed may point into the checkout.
        assert!(!all.contains(checkout.to_str().unwrap()), "{args:?} names the checkout:\n{all}");
        o
    };

    let o = run(&["list"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    for name in ["chessception", "decachess", "standard"] {
        let line = out.lines().find(|l| l.split_whitespace().next() == Some(name)).unwrap_or_else(|| panic!("{out}"));
        assert!(line.contains("  built in  "), "{line}");
    }
    assert!(out.contains("10×10 chess with an Archer"), "{out}");

    let o = run(&["check", "decachess"]);
    assert_eq!((o.status.code(), String::from_utf8_lossy(&o.stdout).as_ref()), (Some(0), "ok\n"), "{}", text(&o));

    // e2-e5 (a triple first step), d9-d6 (black's), e5xd6: the black pawn goes to
    // black's graveyard; black to move in move 2, the capture resets the halfmove clock.
    let o = run(&["replay", "decachess", "e2-e5", "d9-d6", "e5-d6"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        out.contains("fen: ranbqkbnar/ppp1pppppp/10/10/3P6/10/10/10/PPPP1PPPPP/RANBQKBNAR b KQkq - 0 2 graveyard=p\n"),
        "{out}"
    );

    // The built-in Chessception (with its rules.lua) plays from the binary too: after
    // e2-e4 d7-d5, e4-d5 deals a pawn's 2 damage to the pawn on d5 (2 HP), which is
    // killed, and the attacker lands there with its 2 HP.
    let o = run(&["replay", "chessception", "e2-e4", "d7-d5", "e4-d5", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["variant"], "chessception");
    assert_eq!(json["fen"], "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2");
    let on = |sq: &str| json["pieces"].as_array().unwrap().iter().find(|p| p["square"] == sq).cloned();
    let d5 = on("d5").unwrap_or_else(|| panic!("{json}"));
    assert_eq!((&d5["side"], &d5["kind"], &d5["hp"]), (&"white".into(), &"pawn".into(), &2.into()), "{json}");
    assert_eq!(on("e4"), None);

    let o = run(&["check", "nothing-here"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("looked in: ./scripts (no such folder), the built-in variants"), "{}", text(&o));
}

#[test]
fn the_binary_works_alone() {
    let dir = scratch("copy");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_varia"), bin.join("varia")).unwrap();
    check_installed(&bin, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Copies what building needs (not `target/`, not version control).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

#[test]
#[ignore = "builds the binary again with cargo install (minutes); run with --ignored"]
fn cargo_install_from_a_copy_then_removed() {
    let dir = scratch("cargo-install");
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let src = dir.join("checkout");
    copy_tree(workspace, &src);
    let root = dir.join("root");
    // Its own target folder (kept between runs, so the dependencies build once), not the
    // one `cargo test` may still hold a lock on.
    let target = workspace.join("target").join("install-test");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let o = Command::new(cargo)
        .args(["install", "--path"])
        .arg(src.join("cli"))
        .arg("--root")
        .arg(&root)
        .args(["--debug", "--locked", "--offline", "--quiet"])
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .expect("runs cargo install");
    assert!(o.status.success(), "{}", text(&o));
    std::fs::remove_dir_all(&src).unwrap();
    check_installed(&root.join("bin"), &dir);
    let _ = std::fs::remove_dir_all(&dir);
}
