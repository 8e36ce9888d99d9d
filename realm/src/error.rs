//! The realm service's errors: one enum, each variant carrying what the player or the
//! operator needs to act on it. [`Error::status`] maps each to the HTTP status the
//! server answers with (a 4xx for anything a client did, a 5xx only for the server's
//! own trouble).

use thiserror::Error;

use crate::service::OrderVerdict;

#[derive(Debug, Error)]
pub enum Error {
    #[error("{path}: {message}")]
    Config { path: String, message: String },
    #[error("{path} already holds a realm; a realm is never overwritten")]
    Exists { path: String },
    #[error("{location}: no realm there (make one with `varia realm new`)")]
    NoRealm { location: String },
    #[error("`{schema}` is not a schema name (1 to 63 of a-z, 0-9 and _)")]
    BadSchema { schema: String },
    #[error("{location}: {source}")]
    Sqlite { location: String, source: rusqlite::Error },
    #[error("{location}: {source}")]
    Postgres { location: String, source: postgres::Error },
    #[error("{location}: the realm is busy (a round is being resolved); try again in a few seconds")]
    Busy { location: String },
    #[error("{location}: refused: another resolver is resolving this realm right now")]
    ResolverBusy { location: String },
    #[error("round {round} is being resolved by the realm's workers; try again when it is done")]
    Resolving { round: u64 },
    #[error("stored data is damaged: {what}")]
    Corrupt { what: String },
    #[error("the realm's schema is version {found}; this varia knows versions up to {known} (use a newer varia)")]
    SchemaTooNew { found: i64, known: i64 },
    #[error("variant: {0}")]
    Variant(#[from] varia::LoadError),
    #[error("{0}")]
    Rules(#[from] varia::world::RealmError),
    #[error("{0}")]
    Join(#[from] varia::world::state::JoinError),
    #[error("`{player}` is not a player name: use 1 to 32 letters, digits, `-` and `_`")]
    BadPlayer { player: String },
    #[error("`{player}` is already a player of this realm")]
    PlayerTaken { player: String },
    #[error(
        "`{player}` still has an empire in this realm ({boards} boards, {pieces} pieces on the map): only a player \
         whose empire is gone (no board and no piece on the map, CA-17) starts a new one"
    )]
    StillPlaying { player: String, boards: usize, pieces: usize },
    #[error("`{player}` abandoned an empire and is locked out until {until} (CA-18)")]
    LockedOut { player: String, until: i64 },
    #[error("no room for a new empire: no {want} free boards within {rings} rings of the centre")]
    NoRoom { want: u32, rings: i32 },
    #[error(
        "no room for a new empire: no city has {want} free boards, and this realm places no empire on the open \
         ground outside the cities (join_ground = false)"
    )]
    CitiesFull { want: u32 },
    #[error("unknown player or wrong token")]
    Unauthorized,
    #[error("round {round}'s deadline ({deadline}) has passed; its orders are closed until it is resolved")]
    DeadlinePassed { round: u64, deadline: i64 },
    #[error("these orders are for round {given}, but round {current} is open")]
    WrongRound { given: u64, current: u64 },
    #[error("{refused} of {given} orders refused; nothing was stored")]
    OrdersRefused { given: usize, refused: usize, verdicts: Vec<OrderVerdict> },
    #[error("at most {max} orders at once ({given} given)")]
    TooManyOrders { given: usize, max: usize },
    #[error("round {round} has not been resolved")]
    NoSuchRound { round: u64 },
    #[error("{message}")]
    NotFound { message: String },
    #[error("no round is due: round {round} resolves at {deadline} (now {now}); `--now` resolves it at once")]
    NotDue { round: u64, deadline: i64, now: i64 },
    #[error("{message}")]
    BadRequest { message: String },
    #[error("{message}")]
    Forbidden { message: String },
    #[error("one post every {pause} seconds: wait {wait} more")]
    TooSoon { pause: i64, wait: i64 },
    #[error("{what}: wait {wait} more seconds (until {until})")]
    Cooldown { what: String, wait: i64, until: i64 },
    #[error("{message}")]
    Refused { message: String },
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
}

impl Error {
    /// The HTTP status for this error.
    pub fn status(&self) -> u16 {
        match self {
            Error::Unauthorized => 401,
            Error::Forbidden { .. } => 403,
            Error::NoSuchRound { .. } | Error::NoRealm { .. } | Error::NotFound { .. } => 404,
            Error::PlayerTaken { .. }
            | Error::StillPlaying { .. }
            | Error::DeadlinePassed { .. }
            | Error::WrongRound { .. } => 409,
            Error::OrdersRefused { .. }
            | Error::Join(_)
            | Error::NoRoom { .. }
            | Error::CitiesFull { .. }
            | Error::Refused { .. }
            | Error::LockedOut { .. } => 422,
            Error::TooSoon { .. } | Error::Cooldown { .. } => 429,
            Error::BadPlayer { .. }
            | Error::BadRequest { .. }
            | Error::TooManyOrders { .. }
            | Error::Json(_)
            | Error::Rules(_) => 400,
            Error::Busy { .. } | Error::ResolverBusy { .. } | Error::Resolving { .. } => 503,
            _ => 500,
        }
    }
}
