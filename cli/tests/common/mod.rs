//! Helpers shared by the command-line tests: run `varia`, read its output, make scratch
//! folders.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs `varia` with `args` from the CLI crate's folder.
pub fn varia(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_varia"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs varia")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch folder unique to one test of one test binary.
pub fn scratch(name: &str) -> PathBuf {
    let exe = std::env::current_exe().ok().and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()));
    let dir = std::env::temp_dir().join(format!("varia-{}-{}-{name}", exe.unwrap_or_default(), std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
