//! Where variants come from: built into the library, or folders that override and add
//! to them; names that are identifiers (they become paths); paths that do not exist.

use std::path::{Path, PathBuf};

use varia::Variant;
use varia::variant::{Origin, built_in, built_in_named, find};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("varia-origins-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn problems(r: Result<std::sync::Arc<Variant>, varia::LoadError>) -> Vec<String> {
    r.expect_err("should not load").problems().iter().map(|p| p.to_string()).collect()
}

const BODY: &str = "[board]\nfiles = 8\nranks = 8\n[setup]\nfen = \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"\n\
                    [pieces.king]\nletter = \"K\"\nroyal = true\nmoves = [{ leap = \"all\" }]\n";

const RULE: &str = "a variant's name is 1 to 64 letters, digits, `-` and `_`, starting with a letter or digit";

#[test]
fn a_name_that_could_be_a_path_is_refused_at_its_place() {
    let long = "a".repeat(65);
    for hostile in ["../../x", "/tmp/x", "a/b", "a\\\\b", "..", ".", "", "x y", "é", "-x", long.as_str()] {
        let text = format!("name = \"{hostile}\"\n{BODY}");
        let shown = hostile.replace("\\\\", "\\");
        assert_eq!(
            problems(Variant::from_toml(&text, "v.toml")),
            [format!("v.toml:1:8: `{}` is not a variant name: {RULE}", shown.escape_debug())],
            "{hostile:?}"
        );
    }
    for good in ["x", "my-variant_2", "Chess960", &"a".repeat(64)] {
        let v = Variant::from_toml(&format!("name = \"{good}\"\n{BODY}"), "v.toml").unwrap();
        assert_eq!(v.name, good);
    }
}

#[test]
fn a_folder_name_that_is_not_a_name_needs_a_name_key() {
    let dir = scratch("folder").join("my variant");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("variant.toml"), BODY).unwrap();
    let p = problems(Variant::load(dir.to_str().unwrap()));
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].ends_with(&format!(
            "my variant/variant.toml: the folder's name `my variant` is not a variant name ({RULE}): \
             rename the folder or give `name = \"...\"`"
        )),
        "{p:?}"
    );
    std::fs::write(dir.join("variant.toml"), format!("name = \"mine\"\n{BODY}")).unwrap();
    assert_eq!(Variant::load(dir.to_str().unwrap()).unwrap().name, "mine");
}

#[test]
fn a_name_set_from_the_command_line_is_checked_too() {
    let set: Vec<varia::variant::Override> = vec!["name=../../x".parse().unwrap()];
    assert_eq!(
        problems(Variant::load_with("standard", &set)),
        [format!("--set name=../../x: `../../x` is not a variant name: {RULE}")]
    );
}

/// Every file under `dir`, relative, sorted (hidden files left out, as the build does).
fn files_under(dir: &Path, prefix: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if name.starts_with('.') || name.ends_with('~') {
            continue;
        }
        if p.is_dir() {
            files_under(&p, &format!("{prefix}{name}/"), out);
        } else {
            out.push((format!("{prefix}{name}"), std::fs::read(&p).unwrap()));
        }
    }
}

#[test]
fn every_shipped_folder_is_built_in_with_all_its_files() {
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts");
    let mut shipped: Vec<String> = std::fs::read_dir(&scripts)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("variant.toml").is_file())
        .map(|p| p.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    shipped.sort();
    let names: Vec<&str> = built_in().iter().map(|b| b.name).collect();
    assert_eq!(names, shipped);
    for name in ["standard", "decachess", "chessception"] {
        assert!(names.contains(&name), "{names:?}");
    }
    for b in built_in() {
        let mut on_disk = Vec::new();
        files_under(&scripts.join(b.name), "", &mut on_disk);
        let embedded: Vec<(String, Vec<u8>)> =
            b.files.iter().map(|(p, bytes)| (p.to_string(), bytes.to_vec())).collect();
        assert_eq!(embedded, on_disk, "{}", b.name);
    }
    let cc = built_in_named("chessception").unwrap();
    assert!(cc.file("rules.lua").is_some() && cc.file("README.md").is_some());
    assert_eq!(cc.file("nothing.txt"), None);
}

#[test]
fn a_built_in_variant_loads_from_the_library_alone() {
    // The tests run in runtime/, which has no scripts folder: the name finds the
    // built-in variant.
    assert!(!Path::new("scripts").exists());
    let origin = find("chessception").unwrap();
    assert_eq!(origin, Origin::BuiltIn(built_in_named("chessception").unwrap()));
    assert_eq!(origin.to_string(), "built in");
    let v = Variant::load_origin(&origin, &[]).unwrap();
    assert_eq!((v.name.as_str(), v.dir.as_ref(), v.sources.len()), ("chessception", None, 0));
    let labels: Vec<&str> = v.scripts.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["<built-in>/chessception/rules.lua"]);
    assert!(v.hooks.is_some());
}

#[test]
fn a_cousin_extends_a_built_in_parent() {
    let v =
        Variant::from_toml("extends = \"chessception\"\nname = \"cousin\"\n[pieces.queen]\naoe = 3\n", "cousin.toml")
            .unwrap();
    assert_eq!(v.name, "cousin");
    let queen = v.kind(v.kind_named("queen").unwrap());
    assert_eq!((queen.stats.aoe, queen.stats.hp), (3, 4));
    // The parent's rules come with it, from the library.
    let labels: Vec<&str> = v.scripts.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["<built-in>/chessception/rules.lua"]);
    // A mistake in the cousin is the cousin's, at its place.
    let p = problems(Variant::from_toml("extends = \"chessception\"\n[pieces.queen]\naoe = \"x\"\n", "cousin.toml"));
    assert_eq!(p, ["cousin.toml:3:7: invalid type: string \"x\", expected u32"]);
}

#[test]
fn a_path_that_is_not_a_variant_says_so() {
    let dir = scratch("paths");
    let missing = dir.join("no/such/folder");
    assert_eq!(problems(Variant::load(missing.to_str().unwrap())), [format!("no such folder: {}", missing.display())]);
    assert_eq!(problems(Variant::load("./nowhere")), ["no such folder: ./nowhere"]);
    assert_eq!(
        problems(Variant::load(dir.to_str().unwrap())),
        [format!("{} is not a variant: a variant is a folder with a variant.toml", dir.display())]
    );
    let file = dir.join("x.toml");
    std::fs::write(&file, BODY).unwrap();
    assert_eq!(
        problems(Variant::load(file.to_str().unwrap())),
        [format!("{} is not a variant: a variant is a folder with a variant.toml", file.display())]
    );
    // Its variant.toml is a way to name a folder.
    std::fs::write(dir.join("variant.toml"), BODY).unwrap();
    let v = Variant::load(dir.join("variant.toml").to_str().unwrap()).unwrap();
    assert_eq!(v.name, dir.file_name().unwrap().to_str().unwrap());
}

#[test]
fn an_unknown_name_says_where_it_looked() {
    let e = Variant::load("standrd").unwrap_err().to_string();
    let known: Vec<String> = varia::variant::known_variants().into_iter().map(|f| f.name).collect();
    assert_eq!(
        e,
        format!(
            "unknown variant `standrd` (did you mean `standard`?); known variants: {}; looked in: {}",
            known.join(", "),
            varia::variant::looked_in().join(", ")
        )
    );
    // Without VARIA_PATH (as `cargo test` runs here), the working directory's scripts
    // folder and the library.
    if std::env::var_os("VARIA_PATH").is_none() {
        assert_eq!(varia::variant::looked_in(), ["./scripts (no such folder)", "the built-in variants"]);
    }
}
