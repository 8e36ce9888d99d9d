//! The variants built into the library: the workspace's `scripts/` folders, embedded at
//! build time by `build.rs` (with the default `builtin` feature). Folders on disk
//! (`VARIA_PATH`, `./scripts`) override them by name; see `load.rs`.

/// A shipped variant: its folder's name and files.
#[derive(PartialEq, Eq)]
pub struct BuiltIn {
    pub name: &'static str,
    /// Paths relative to the variant's folder (`/`-separated), and contents.
    pub files: &'static [(&'static str, &'static [u8])],
}

impl std::fmt::Debug for BuiltIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files: Vec<&str> = self.files.iter().map(|(p, _)| *p).collect();
        f.debug_struct("BuiltIn").field("name", &self.name).field("files", &files).finish()
    }
}

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

impl BuiltIn {
    /// A file of the variant (`"variant.toml"`, `"rules.lua"`, `"README.md"`), if it has it.
    pub fn file(&self, path: &str) -> Option<&'static [u8]> {
        self.files.iter().find(|(p, _)| *p == path).map(|(_, bytes)| *bytes)
    }

    /// How messages name one of its files: `<built-in>/chessception/rules.lua`.
    pub fn label(&self, path: &str) -> String {
        format!("<built-in>/{}/{path}", self.name)
    }
}

/// Every built-in variant, sorted by name.
pub fn built_in() -> &'static [BuiltIn] {
    BUILT_IN
}

/// The built-in variant of this name.
pub fn built_in_named(name: &str) -> Option<&'static BuiltIn> {
    BUILT_IN.iter().find(|b| b.name == name)
}
