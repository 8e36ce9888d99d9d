//! The two databases behind one trait: [`Store`] opens transactions, [`Tx`] runs SQL
//! in one. SQL is written once, in the common subset of SQLite and PostgreSQL, with
//! `?1`-style parameters (rewritten to `$1` for PostgreSQL) and `BLOB` (rewritten to
//! `BYTEA`); values cross as [`Value`]. What differs is how a transaction takes its
//! locks: SQLite's write transactions are `BEGIN IMMEDIATE` (one writer at a time, the
//! lock dies with the process), PostgreSQL's take row locks (`FOR UPDATE`, `FOR
//! SHARE`, `NOWAIT` for the resolver) that also end with the connection.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use crate::error::Error;

/// A value in or out of SQL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Int(i64),
    Text(String),
    Blob(Vec<u8>),
}

impl Value {
    pub fn int(&self) -> Result<i64, Error> {
        match self {
            Value::Int(i) => Ok(*i),
            other => Err(Error::Corrupt { what: format!("expected an integer, found {other:?}") }),
        }
    }
    pub fn text(&self) -> Result<&str, Error> {
        match self {
            Value::Text(s) => Ok(s),
            other => Err(Error::Corrupt { what: format!("expected text, found {other:?}") }),
        }
    }
    pub fn blob(&self) -> Result<&[u8], Error> {
        match self {
            Value::Blob(b) => Ok(b),
            other => Err(Error::Corrupt { what: format!("expected bytes, found {other:?}") }),
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Value {
        Value::Blob(v)
    }
}

pub type Row = Vec<Value>;

/// What a transaction is for, which decides the locks it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A consistent snapshot; writes nothing.
    Read,
    /// Writes: serialised against the resolver (SQLite: `BEGIN IMMEDIATE`).
    Write,
}

/// Row locks a transaction may take on the realm's one meta row; SQLite needs none (its
/// write transactions already exclude each other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    /// Others may read, but no resolution may start or commit meanwhile.
    Share,
    /// Exclusive: joins and resolutions.
    Update,
}

/// One open transaction; dropping it without [`Tx::commit`] rolls it back.
pub trait Tx {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, Error>;
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, Error>;
    /// Locks the meta row (PostgreSQL); a no-op on SQLite.
    fn lock_meta(&mut self, lock: Lock) -> Result<(), Error>;
    /// Takes the resolver's lock row without waiting; `Err(Error::ResolverBusy)` if
    /// another transaction holds it. Released by commit, rollback or a dead process.
    fn lock_resolver(&mut self) -> Result<(), Error>;
    /// Schema text in this database's dialect.
    fn dialect(&self) -> Dialect;
    fn commit(self: Box<Self>) -> Result<(), Error>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A realm's database: SQLite (a file) or PostgreSQL (a server).
pub trait Store: Send {
    fn begin(&mut self, mode: Mode) -> Result<Box<dyn Tx + '_>, Error>;
    /// Where the realm lives, for messages.
    fn location(&self) -> String;
}

/// How long a SQLite writer waits for another writer before giving up. Order intake
/// holds the lock for milliseconds, so this only runs out behind a resolution.
pub const SQLITE_BUSY_WAIT: Duration = Duration::from_secs(3);

pub struct SqliteStore {
    conn: rusqlite::Connection,
    path: String,
}

impl SqliteStore {
    /// Opens (and with `create`, creates) the realm file. WAL with `synchronous=FULL`:
    /// a commit is on disk before it returns.
    pub fn open(path: &Path, create: bool) -> Result<SqliteStore, Error> {
        use rusqlite::OpenFlags;
        let shown = path.display().to_string();
        if create && path.exists() {
            return Err(Error::Exists { path: shown });
        }
        if !create && !path.exists() {
            return Err(Error::NoRealm { location: shown });
        }
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if create {
            flags |= OpenFlags::SQLITE_OPEN_CREATE;
        }
        let conn = rusqlite::Connection::open_with_flags(path, flags).map_err(|e| sqlite_err(&shown, e))?;
        conn.busy_timeout(SQLITE_BUSY_WAIT).map_err(|e| sqlite_err(&shown, e))?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(|e| sqlite_err(&shown, e))?;
        conn.pragma_update(None, "synchronous", "FULL").map_err(|e| sqlite_err(&shown, e))?;
        conn.pragma_update(None, "foreign_keys", "ON").map_err(|e| sqlite_err(&shown, e))?;
        Ok(SqliteStore { conn, path: shown })
    }
}

fn sqlite_err(location: &str, e: rusqlite::Error) -> Error {
    if let rusqlite::Error::SqliteFailure(f, _) = &e
        && matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    {
        return Error::Busy { location: location.to_string() };
    }
    if let rusqlite::Error::SqliteFailure(f, _) = &e
        && f.code == rusqlite::ErrorCode::NotADatabase
    {
        return Error::NoRealm { location: location.to_string() };
    }
    Error::Sqlite { location: location.to_string(), source: e }
}

struct SqliteTx<'c> {
    tx: rusqlite::Transaction<'c>,
    path: &'c str,
}

fn to_sqlite(v: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match v {
        Value::Null => V::Null,
        Value::Int(i) => V::Integer(*i),
        Value::Text(s) => V::Text(s.clone()),
        Value::Blob(b) => V::Blob(b.clone()),
    }
}

impl Tx for SqliteTx<'_> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, Error> {
        let p: Vec<rusqlite::types::Value> = params.iter().map(to_sqlite).collect();
        let n = self.tx.execute(sql, rusqlite::params_from_iter(p)).map_err(|e| sqlite_err(self.path, e))?;
        Ok(n as u64)
    }
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, Error> {
        use rusqlite::types::ValueRef;
        let path = self.path;
        let p: Vec<rusqlite::types::Value> = params.iter().map(to_sqlite).collect();
        let mut st = self.tx.prepare_cached(sql).map_err(|e| sqlite_err(path, e))?;
        let n = st.column_count();
        let mut rows = st.query(rusqlite::params_from_iter(p)).map_err(|e| sqlite_err(path, e))?;
        let mut out = Vec::new();
        while let Some(r) = rows.next().map_err(|e| sqlite_err(path, e))? {
            let mut row = Vec::with_capacity(n);
            for i in 0..n {
                row.push(match r.get_ref(i).map_err(|e| sqlite_err(path, e))? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(i) => Value::Int(i),
                    ValueRef::Real(f) => Value::Int(f as i64),
                    ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                    ValueRef::Blob(b) => Value::Blob(b.to_vec()),
                });
            }
            out.push(row);
        }
        Ok(out)
    }
    fn lock_meta(&mut self, _lock: Lock) -> Result<(), Error> {
        Ok(())
    }
    fn lock_resolver(&mut self) -> Result<(), Error> {
        // The write transaction is already exclusive: a second resolver could not have
        // begun it (it gets `Busy`, reported as `ResolverBusy` by the caller).
        Ok(())
    }
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }
    fn commit(self: Box<Self>) -> Result<(), Error> {
        let path = self.path;
        self.tx.commit().map_err(|e| sqlite_err(path, e))
    }
}

impl Store for SqliteStore {
    fn begin(&mut self, mode: Mode) -> Result<Box<dyn Tx + '_>, Error> {
        use rusqlite::TransactionBehavior as B;
        let behavior = match mode {
            Mode::Read => B::Deferred,
            Mode::Write => B::Immediate,
        };
        let path = self.path.as_str();
        let tx = self.conn.transaction_with_behavior(behavior).map_err(|e| sqlite_err(path, e))?;
        Ok(Box::new(SqliteTx { tx, path }))
    }
    fn location(&self) -> String {
        self.path.clone()
    }
}

/// A realm in a PostgreSQL database, in one schema of it (so one server can hold many
/// realms, and tests can each have their own).
pub struct PgStore {
    client: postgres::Client,
    location: String,
    /// Statements prepared on this connection, by their SQL: each is parsed and planned
    /// by the server once, then only bound and run (one round trip instead of two).
    statements: HashMap<String, postgres::Statement>,
}

impl PgStore {
    /// Connects to `url` and uses `schema` (created when `create`; `create` refuses a
    /// schema that already holds a realm, like SQLite refuses an existing file).
    pub fn open(url: &str, schema: &str, create: bool) -> Result<PgStore, Error> {
        let location = format!("{} (schema {schema})", redact(url));
        if !schema.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            || schema.is_empty()
            || schema.len() > 63
        {
            return Err(Error::BadSchema { schema: schema.to_string() });
        }
        let mut client = postgres::Client::connect(url, postgres::NoTls).map_err(|e| pg_err(&location, e))?;
        let exists = !client
            .query(
                "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'realm_meta'",
                &[&schema],
            )
            .map_err(|e| pg_err(&location, e))?
            .is_empty();
        if create && exists {
            return Err(Error::Exists { path: location });
        }
        if !create && !exists {
            return Err(Error::NoRealm { location });
        }
        client
            .batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}; SET search_path TO {schema}"))
            .map_err(|e| pg_err(&location, e))?;
        Ok(PgStore { client, location, statements: HashMap::new() })
    }
}

/// The URL without its password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let cred = &url[s + 3..at];
            let user = cred.split(':').next().unwrap_or_default();
            format!("{}{user}@{}", &url[..s + 3], &url[at + 1..])
        }
        _ => url.to_string(),
    }
}

fn pg_err(location: &str, e: postgres::Error) -> Error {
    if let Some(db) = e.as_db_error() {
        if *db.code() == postgres::error::SqlState::LOCK_NOT_AVAILABLE {
            return Error::ResolverBusy { location: location.to_string() };
        }
        if *db.code() == postgres::error::SqlState::T_R_SERIALIZATION_FAILURE
            || *db.code() == postgres::error::SqlState::T_R_DEADLOCK_DETECTED
        {
            return Error::Busy { location: location.to_string() };
        }
    }
    Error::Postgres { location: location.to_string(), source: e }
}

struct PgTx<'c> {
    tx: postgres::Transaction<'c>,
    location: &'c str,
    statements: &'c mut HashMap<String, postgres::Statement>,
}

impl PgTx<'_> {
    /// The prepared statement for `sql` (in the common dialect), prepared now if new.
    fn statement(&mut self, sql: &str) -> Result<postgres::Statement, Error> {
        if let Some(st) = self.statements.get(sql) {
            return Ok(st.clone());
        }
        let st = self.tx.prepare(&pg_sql(sql)).map_err(|e| pg_err(self.location, e))?;
        self.statements.insert(sql.to_string(), st.clone());
        Ok(st)
    }
}

fn pg_sql(sql: &str) -> String {
    sql.replace('?', "$").replace("BLOB", "BYTEA")
}

fn pg_params(params: &[Value]) -> Vec<Box<dyn postgres::types::ToSql + Sync>> {
    params
        .iter()
        .map(|v| -> Box<dyn postgres::types::ToSql + Sync> {
            match v {
                Value::Null => Box::new(Option::<i64>::None),
                Value::Int(i) => Box::new(*i),
                Value::Text(s) => Box::new(s.clone()),
                Value::Blob(b) => Box::new(b.clone()),
            }
        })
        .collect()
}

impl Tx for PgTx<'_> {
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, Error> {
        let p = pg_params(params);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = p.iter().map(|b| b.as_ref()).collect();
        let st = self.statement(sql)?;
        self.tx.execute(&st, &refs).map_err(|e| pg_err(self.location, e))
    }
    fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, Error> {
        use postgres::types::Type;
        let p = pg_params(params);
        let refs: Vec<&(dyn postgres::types::ToSql + Sync)> = p.iter().map(|b| b.as_ref()).collect();
        let st = self.statement(sql)?;
        let rows = self.tx.query(&st, &refs).map_err(|e| pg_err(self.location, e))?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let mut row = Vec::with_capacity(r.len());
            for (i, c) in r.columns().iter().enumerate() {
                let get = |e| pg_err(self.location, e);
                let t = c.type_();
                let v = if *t == Type::INT8 {
                    r.try_get::<_, Option<i64>>(i).map_err(get)?.map(Value::Int)
                } else if *t == Type::INT4 {
                    r.try_get::<_, Option<i32>>(i).map_err(get)?.map(|x| Value::Int(x.into()))
                } else if *t == Type::BYTEA {
                    r.try_get::<_, Option<Vec<u8>>>(i).map_err(get)?.map(Value::Blob)
                } else {
                    r.try_get::<_, Option<String>>(i).map_err(get)?.map(Value::Text)
                };
                row.push(v.unwrap_or(Value::Null));
            }
            out.push(row);
        }
        Ok(out)
    }
    fn lock_meta(&mut self, lock: Lock) -> Result<(), Error> {
        let sql = match lock {
            Lock::Share => "SELECT id FROM realm_meta WHERE id = 1 FOR SHARE",
            Lock::Update => "SELECT id FROM realm_meta WHERE id = 1 FOR UPDATE",
        };
        let st = self.statement(sql)?;
        self.tx.query(&st, &[]).map_err(|e| pg_err(self.location, e))?;
        Ok(())
    }
    fn lock_resolver(&mut self) -> Result<(), Error> {
        let st = self.statement("SELECT id FROM resolver_lock WHERE id = 1 FOR UPDATE NOWAIT")?;
        self.tx.query(&st, &[]).map_err(|e| pg_err(self.location, e))?;
        Ok(())
    }
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }
    fn commit(self: Box<Self>) -> Result<(), Error> {
        let location = self.location;
        self.tx.commit().map_err(|e| pg_err(location, e))
    }
}

impl Store for PgStore {
    fn begin(&mut self, mode: Mode) -> Result<Box<dyn Tx + '_>, Error> {
        let location = self.location.as_str();
        let mut b = self.client.build_transaction();
        if mode == Mode::Read {
            b = b.isolation_level(postgres::IsolationLevel::RepeatableRead).read_only(true);
        }
        let tx = b.start().map_err(|e| pg_err(location, e))?;
        Ok(Box::new(PgTx { tx, location, statements: &mut self.statements }))
    }
    fn location(&self) -> String {
        self.location.clone()
    }
}

/// Opens a realm's store from the command line's `--db`: a `postgres://` URL (with
/// `#schema` at its end to choose the schema, `public` by default) or a file path.
pub fn open_store(db: &str, create: bool) -> Result<Box<dyn Store>, Error> {
    if db.starts_with("postgres://") || db.starts_with("postgresql://") {
        let (url, schema) = match db.rsplit_once('#') {
            Some((u, s)) => (u, s),
            None => (db, "public"),
        };
        return Ok(Box::new(PgStore::open(url, schema, create)?));
    }
    Ok(Box::new(SqliteStore::open(Path::new(db), create)?))
}
