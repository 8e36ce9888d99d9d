//! The names other programs know a variant by (`[protocol]` in variant.toml): UCI's
//! `UCI_Variant` (Fairy-Stockfish's names), XBoard's `variant`, PGN's `Variant` tag.
//! Each defaults to the variant's name (PGN's to its title).
//!
//! A cousin (`extends`) does not inherit them: it is another game, and two variants
//! answering to `chess` would make engine protocols ambiguous. So only the variant's own
//! file is read for them (its keys were checked with the rest when it loaded).

use crate::variant::Variant;

/// A variant's names in engine protocols and game records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolNames {
    pub uci: String,
    pub xboard: String,
    pub pgn: String,
}

/// The `[protocol]` table of the variant's own file (not its ancestors').
fn own_table(v: &Variant) -> Option<toml::Table> {
    let protocol = |text: &str| text.parse::<toml::Table>().ok()?.get("protocol")?.as_table().cloned();
    // A built-in variant's own file is embedded, whatever its ancestors are: one of them
    // may be a folder on disk (a `standard` on VARIA_PATH under the built-in 3check), the
    // only file among the sources, which is not this variant's.
    if let Some(b) = v.builtin {
        return protocol(std::str::from_utf8(b.file("variant.toml")?).ok()?);
    }
    let own = v.sources.iter().rev().find(|p| p.extension().is_some_and(|e| e == "toml"));
    match own {
        Some(path) => protocol(&std::fs::read_to_string(path).ok()?),
        // Built from text (no files): the text is the variant's own.
        None => v.data.get("protocol")?.as_table().cloned(),
    }
}

/// The variant's names (defaults filled in).
pub fn protocol_names(v: &Variant) -> ProtocolNames {
    let t = own_table(v).unwrap_or_default();
    let get = |k: &str| t.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let title = if v.title.is_empty() { v.name.clone() } else { v.title.clone() };
    ProtocolNames {
        uci: get("uci").unwrap_or_else(|| v.name.clone()),
        xboard: get("xboard").unwrap_or_else(|| v.name.clone()),
        pgn: get("pgn").unwrap_or(title),
    }
}

/// Whether `name` (a PGN `Variant` tag, a protocol's variant name) means this variant:
/// its name, title or any of its protocol names, in any case.
pub fn answers_to(v: &Variant, name: &str) -> bool {
    let n = protocol_names(v);
    [v.name.as_str(), v.title.as_str(), &n.uci, &n.xboard, &n.pgn].iter().any(|x| x.eq_ignore_ascii_case(name.trim()))
}
