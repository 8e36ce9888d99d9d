//! The playground's errors: one enum, each variant carrying what the user needs to act
//! on it. [`Error::status`] maps each to the HTTP status the server answers with: a 4xx
//! for anything the page (or another client) did, a 5xx only for the server's own
//! trouble.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A variant name the server does not serve (it never becomes a path).
    #[error("unknown variant `{name}`; this server plays: {}", known.join(", "))]
    UnknownVariant { name: String, known: Vec<String> },
    /// A variant that this server serves but whose turn model the page does not play yet.
    #[error("`{name}` is a {model} variant: POST /api/games plays two sides alternating (solo boards: POST /api/solo)")]
    NotPlayable { name: String, model: &'static str },
    /// A solo board asked of a variant that is not one.
    #[error("`{name}` is not a solo variant (turns.model = \"{model}\"): POST /api/games plays it")]
    NotSolo { name: String, model: &'static str },
    /// `POST /api/clock/wait` on a server that reads the system clock.
    #[error("this server reads the system clock: only `varia serve --clock manual` lets time be moved by hand")]
    NotManualClock,
    /// A game id the server did not issue, or a game evicted since.
    #[error("no game `{id}` (the server keeps the {max} most recently used games; start a new one)")]
    UnknownGame { id: String, max: usize },
    #[error("bad FEN: {message}")]
    BadFen { message: String },
    #[error("`{text}` is not a square of this {files}×{ranks} board")]
    BadSquare { text: String, files: u32, ranks: u32 },
    /// A move the rules refuse; the game is unchanged.
    #[error("move `{text}`: {why}")]
    Refused { text: String, why: String },
    /// A strike the rules (or a paused clock) refuse; the board is unchanged.
    #[error("strike `{square}`: {why}")]
    Strike { square: String, why: String },
    /// A solo board's pause, resume or undo refused (`what` names it); nothing changed.
    #[error("{what}: {why}")]
    SoloRefused { what: &'static str, why: String },
    /// A new game's moves (pasted or loaded) that do not replay; no game is made.
    #[error("the moves do not replay: {why}")]
    MovesRefused { why: String },
    /// A hook failed while the legal actions were listed.
    #[error("{message}")]
    Rules { message: String },
    #[error("malformed JSON: {message}")]
    BadJson { message: String },
    #[error("{message}")]
    BadRequest { message: String },
    #[error("the request body is over {limit} bytes")]
    TooLarge { limit: usize },
    #[error("the server has issued every game id it can")]
    IdsExhausted,
    /// A variant given on the command line that does not load at start.
    #[error("variant `{name}`: {source}")]
    Load { name: String, source: varia::LoadError },
    #[error("two variants are named `{name}` ({first} and {second}); serve one of them")]
    Duplicate { name: String, first: String, second: String },
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    /// What the realm service answered (its own status kept: 401 a wrong token, …).
    #[error("{0}")]
    Realm(#[from] varia_realm::Error),
    /// A request about a piece of the realm that the map refuses (none there, not yours).
    #[error("{why}")]
    RealmRefused { why: String },
    /// A realm route on a server started without `--realm`.
    #[error(
        "no realm is open on this server: start it with `varia serve --realm FILE` (a realm made by `varia realm new`)"
    )]
    NoRealm,
}

impl Error {
    /// The HTTP status this error is answered with.
    pub fn status(&self) -> u16 {
        match self {
            Error::UnknownVariant { .. } | Error::UnknownGame { .. } => 404,
            Error::NotPlayable { .. }
            | Error::NotSolo { .. }
            | Error::NotManualClock
            | Error::Refused { .. }
            | Error::Strike { .. }
            | Error::SoloRefused { .. }
            | Error::MovesRefused { .. }
            | Error::Rules { .. }
            | Error::RealmRefused { .. } => 422,
            Error::NoRealm => 404,
            Error::Realm(e) => e.status(),
            Error::BadFen { .. } | Error::BadSquare { .. } | Error::BadJson { .. } | Error::BadRequest { .. } => 400,
            Error::TooLarge { .. } => 413,
            Error::IdsExhausted => 503,
            Error::Load { .. } | Error::Duplicate { .. } | Error::Io { .. } => 500,
        }
    }
}
