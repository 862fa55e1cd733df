//! The two native sqlx drivers (`sqlx::Sqlite`, `sqlx::Postgres`) behind the small surface the
//! store's statements use: a [`Pool`] of either backend, a [`Conn`] held for several statements
//! (a transaction or a pooled connection), a [`Query`] whose values are bound as the native
//! driver's own types when it runs ([`Arg`]), and the native rows it returns ([`DbRow`]).
//!
//! Both backends share most of the store's SQL (numbered `$n` placeholders, which both drivers
//! accept), so a statement is written once and bound once; when it runs, its values become the
//! driver's arguments (`SqliteArguments`, `PgArguments`) and its rows stay the driver's rows,
//! decoded in place by [`DbRow::try_get`]. sqlx's `Any` driver, which teu used before, copied
//! every bound value and every column of every row into its own value type first; dropping
//! that copy saved 1-2% of a page's instructions (7.06 -> 6.91 M for the `/v2` page; README,
//! "Thirty-third session").

use std::borrow::Cow;

use chrono::{DateTime, Utc};
use futures_util::TryStreamExt;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgArguments, PgConnection, PgPool, PgRow};
use sqlx::sqlite::{SqliteArguments, SqliteConnection, SqlitePool, SqliteRow};
use sqlx::{Arguments, ColumnIndex, Decode, Postgres, Sqlite, Transaction, Type};

/// A connection pool of one backend. Cheap to clone.
#[derive(Clone, Debug)]
pub enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl Pool {
    /// Begins a transaction on a connection of the pool; [`Conn::commit`] ends it (a dropped
    /// transaction rolls back).
    ///
    /// # Errors
    /// [`sqlx::Error::PoolTimedOut`] when no connection frees up within the pool's acquire
    /// timeout; the driver's error when `BEGIN` fails.
    pub async fn begin(&self) -> Result<Conn, sqlx::Error> {
        Ok(Conn(match self {
            Pool::Sqlite(p) => Held::SqliteTx(p.begin().await?),
            Pool::Postgres(p) => Held::PgTx(p.begin().await?),
        }))
    }

    /// Begins a transaction that holds SQLite's write lock from its start (`BEGIN IMMEDIATE`,
    /// SQLite manual, "BEGIN TRANSACTION"), for a writer that reads what it then writes on:
    /// another process's commit cannot come between the reads and the writes (a plain
    /// deferred transaction would fail with `SQLITE_BUSY` at its first write instead). On
    /// PostgreSQL, [`Pool::begin`].
    ///
    /// # Errors
    /// As [`Pool::begin`]; on SQLite also `SQLITE_BUSY` when another process holds the write
    /// lock past the connection's busy timeout.
    pub async fn begin_immediate(&self) -> Result<Conn, sqlx::Error> {
        Ok(Conn(match self {
            Pool::Sqlite(p) => Held::SqliteTx(p.begin_with("BEGIN IMMEDIATE").await?),
            Pool::Postgres(p) => Held::PgTx(p.begin().await?),
        }))
    }

    /// Takes a connection of the pool for several statements outside a transaction; it goes
    /// back to the pool when dropped.
    ///
    /// # Errors
    /// [`sqlx::Error::PoolTimedOut`] when no connection frees up within the pool's acquire
    /// timeout.
    pub async fn acquire(&self) -> Result<Conn, sqlx::Error> {
        Ok(Conn(match self {
            Pool::Sqlite(p) => Held::Sqlite(p.acquire().await?),
            Pool::Postgres(p) => Held::Postgres(p.acquire().await?),
        }))
    }

    /// Closes every connection of the pool: later statements fail with
    /// [`sqlx::Error::PoolClosed`].
    pub async fn close(&self) {
        match self {
            Pool::Sqlite(p) => p.close().await,
            Pool::Postgres(p) => p.close().await,
        }
    }
}

/// A connection held for several statements: a transaction ([`Pool::begin`]), a pooled
/// connection ([`Pool::acquire`]) or one of its own ([`Conn::connect`]).
pub struct Conn(Held);

enum Held {
    SqliteTx(Transaction<'static, Sqlite>),
    PgTx(Transaction<'static, Postgres>),
    Sqlite(PoolConnection<Sqlite>),
    Postgres(PoolConnection<Postgres>),
    SqliteOwn(SqliteConnection),
    PgOwn(PgConnection),
}

impl Conn {
    /// A connection of its own to `url` (`sqlite:PATH`, created if missing, or `postgres://…`),
    /// outside any pool and without the store's settings or migrations: for tools and tests
    /// that look at a database from outside the store.
    ///
    /// # Errors
    /// [`sqlx::Error::Configuration`] for another scheme; the driver's error when the database
    /// cannot be opened or reached.
    pub async fn connect(url: &str) -> Result<Conn, sqlx::Error> {
        use sqlx::ConnectOptions;
        use std::str::FromStr;
        if url.starts_with("sqlite:") {
            let options =
                sqlx::sqlite::SqliteConnectOptions::from_str(url)?.create_if_missing(true);
            Ok(Conn(Held::SqliteOwn(options.connect().await?)))
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let options = sqlx::postgres::PgConnectOptions::from_str(url)?;
            Ok(Conn(Held::PgOwn(options.connect().await?)))
        } else {
            Err(sqlx::Error::Configuration(
                format!("unsupported database URL {url:?}: use sqlite:PATH or postgres://...")
                    .into(),
            ))
        }
    }

    /// Runs `sql`: any number of statements separated by semicolons, without parameters (a
    /// schema, or a database's dump).
    ///
    /// # Errors
    /// The driver's error for the first statement that fails (the earlier ones stay run unless
    /// the connection is in a transaction).
    pub async fn run_script(&mut self, sql: &str) -> Result<(), sqlx::Error> {
        match self.exec() {
            Exec::Sqlite(c) => sqlx::raw_sql(sql).execute(c).await.map(drop),
            Exec::Postgres(c) => sqlx::raw_sql(sql).execute(c).await.map(drop),
            Exec::SqlitePool(p) => sqlx::raw_sql(sql).execute(p).await.map(drop),
            Exec::PgPool(p) => sqlx::raw_sql(sql).execute(p).await.map(drop),
        }
    }

    /// Commits the transaction; a pooled connection outside a transaction just goes back.
    ///
    /// # Errors
    /// The driver's error when `COMMIT` fails (the transaction is then rolled back).
    pub async fn commit(self) -> Result<(), sqlx::Error> {
        match self.0 {
            Held::SqliteTx(tx) => tx.commit().await,
            Held::PgTx(tx) => tx.commit().await,
            Held::Sqlite(_) | Held::Postgres(_) | Held::SqliteOwn(_) | Held::PgOwn(_) => Ok(()),
        }
    }

    /// Closes a connection of its own ([`Conn::connect`]) cleanly; a pooled one goes back to its
    /// pool, and a transaction not committed rolls back.
    ///
    /// # Errors
    /// The driver's error when the connection does not close cleanly.
    pub async fn close(self) -> Result<(), sqlx::Error> {
        use sqlx::Connection;
        match self.0 {
            Held::SqliteOwn(c) => c.close().await,
            Held::PgOwn(c) => c.close().await,
            _ => Ok(()),
        }
    }

    /// The PostgreSQL connection underneath, for statements written for sqlx's PostgreSQL
    /// driver alone (the bulk `UNNEST` writes of `bulk_pg`); `None` on SQLite.
    pub fn postgres(&mut self) -> Option<&mut PgConnection> {
        match self.exec() {
            Exec::Postgres(c) => Some(c),
            _ => None,
        }
    }

    /// The connection, to run one statement on.
    pub fn exec(&mut self) -> Exec<'_> {
        match &mut self.0 {
            Held::SqliteTx(tx) => Exec::Sqlite(tx),
            Held::PgTx(tx) => Exec::Postgres(tx),
            Held::Sqlite(c) => Exec::Sqlite(c),
            Held::Postgres(c) => Exec::Postgres(c),
            Held::SqliteOwn(c) => Exec::Sqlite(c),
            Held::PgOwn(c) => Exec::Postgres(c),
        }
    }
}

/// Where one statement runs: a pool (which lends a connection for it) or a held connection.
pub enum Exec<'e> {
    SqlitePool(&'e SqlitePool),
    PgPool(&'e PgPool),
    Sqlite(&'e mut SqliteConnection),
    Postgres(&'e mut PgConnection),
}

impl<'e> From<&'e Pool> for Exec<'e> {
    fn from(pool: &'e Pool) -> Self {
        match pool {
            Pool::Sqlite(p) => Exec::SqlitePool(p),
            Pool::Postgres(p) => Exec::PgPool(p),
        }
    }
}

impl<'e> From<&'e mut Conn> for Exec<'e> {
    fn from(conn: &'e mut Conn) -> Self {
        conn.exec()
    }
}

/// The SQL type of a bound `NULL`: PostgreSQL types every parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Int,
    Float,
    Bool,
    Text,
    Bytes,
    /// A [`RecordTime`].
    RecordTime,
}

/// An id (a UUID) in any table of the store (since migrations 28 to 49: every id column but
/// a few names, `crate` documentation), bound as both backends store it: its 16 bytes (RFC
/// 9562 byte order), a `BLOB` on SQLite, `BYTEA` on PostgreSQL; read back as 16 bytes
/// (`crate::record_id`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordId(pub uuid::Uuid);

/// A time (UTC) in any table of the store (since migrations 24 to 50), to the millisecond, as
/// the backend stores it: integer milliseconds since 1970-01-01T00:00:00Z on SQLite,
/// `timestamptz` on PostgreSQL. [`DbRow::record_time`] and [`DbRow::record_time_or_null`]
/// read it back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordTime(pub DateTime<Utc>);

/// One bound value, borrowed from the caller where it can be.
#[derive(Debug, Clone)]
pub enum Arg<'q> {
    /// `BIGINT` / SQLite `INTEGER`.
    Int(i64),
    /// `DOUBLE PRECISION` / SQLite `REAL`.
    Float(f64),
    /// `BOOLEAN` / SQLite `INTEGER` 0 or 1.
    Bool(bool),
    /// `TEXT`.
    Text(Cow<'q, str>),
    /// `BYTEA` / SQLite `BLOB`.
    Bytes(Cow<'q, [u8]>),
    /// A [`RecordTime`], already cut to the millisecond: `INTEGER` milliseconds on SQLite,
    /// `timestamptz` on PostgreSQL.
    RecordTime(DateTime<Utc>),
    /// `NULL` of the given type.
    Null(Kind),
}

impl Arg<'_> {
    /// The same value, its text or bytes borrowed from `self`: for binding values gathered
    /// before a statement's text was complete (a filter's clauses, [`Query::bind_args`]) to
    /// several statements without copying them.
    pub fn borrowed(&self) -> Arg<'_> {
        match self {
            Arg::Text(t) => Arg::Text(Cow::Borrowed(t)),
            Arg::Bytes(b) => Arg::Bytes(Cow::Borrowed(b)),
            other => other.clone(),
        }
    }
}

/// A value [`Query::bind`] takes: integers, floats, booleans, text, bytes and `Option`s of them.
pub trait Bind<'q> {
    /// The SQL type of the value's `NULL` (for `Option::None`).
    const KIND: Kind;
    /// The value as an argument.
    fn arg(self) -> Arg<'q>;
}

macro_rules! bind_as {
    ($kind:ident, $($t:ty => |$v:ident| $e:expr),+ $(,)?) => {
        $(impl<'q> Bind<'q> for $t {
            const KIND: Kind = Kind::$kind;
            fn arg(self) -> Arg<'q> {
                let $v = self;
                $e
            }
        })+
    };
}

bind_as!(
    Int,
    i64 => |v| Arg::Int(v),
    i32 => |v| Arg::Int(i64::from(v)),
    i16 => |v| Arg::Int(i64::from(v)),
    u32 => |v| Arg::Int(i64::from(v)),
);
bind_as!(Float, f64 => |v| Arg::Float(v));
bind_as!(Bool, bool => |v| Arg::Bool(v));
bind_as!(
    Text,
    &'q str => |v| Arg::Text(Cow::Borrowed(v)),
    &'q String => |v| Arg::Text(Cow::Borrowed(v.as_str())),
    String => |v| Arg::Text(Cow::Owned(v)),
);
bind_as!(
    Bytes,
    &'q [u8] => |v| Arg::Bytes(Cow::Borrowed(v)),
    &'q Vec<u8> => |v| Arg::Bytes(Cow::Borrowed(v.as_slice())),
    Vec<u8> => |v| Arg::Bytes(Cow::Owned(v)),
);

impl<'q> Bind<'q> for RecordId {
    const KIND: Kind = Kind::Bytes;
    fn arg(self) -> Arg<'q> {
        Arg::Bytes(Cow::Owned(self.0.as_bytes().to_vec()))
    }
}

impl<'q> Bind<'q> for RecordTime {
    const KIND: Kind = Kind::RecordTime;
    fn arg(self) -> Arg<'q> {
        // What SQLite's milliseconds keep, so that both backends store the same instant.
        Arg::RecordTime(to_millisecond(self.0))
    }
}

/// `t` cut to the millisecond (the sub-millisecond part dropped, as
/// `DateTime::timestamp_millis` and the store's text times `ts` drop it): the instant a
/// `timestamptz` column keeps of a time SQLite keeps as integer milliseconds. `t` itself for
/// the few instants whose milliseconds chrono cannot turn back into a time.
pub(crate) fn to_millisecond(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap_or(t)
}

impl<'q, T: Bind<'q>> Bind<'q> for Option<T> {
    const KIND: Kind = T::KIND;
    fn arg(self) -> Arg<'q> {
        match self {
            Some(v) => v.arg(),
            None => Arg::Null(T::KIND),
        }
    }
}

impl<'q, T> Bind<'q> for &'q Option<T>
where
    &'q T: Bind<'q>,
{
    const KIND: Kind = <&'q T as Bind<'q>>::KIND;
    fn arg(self) -> Arg<'q> {
        self.as_ref().arg()
    }
}

/// One SQL statement and its bound values ([`query`]).
#[must_use = "a query does nothing until it is executed or fetched"]
pub struct Query<'q> {
    sql: Cow<'q, str>,
    args: Vec<Arg<'q>>,
    persistent: bool,
}

/// A statement of `sql` (numbered `$n` placeholders, or anonymous `?` on SQLite), prepared once
/// per connection and kept ([`Query::persistent`]).
pub fn query(sql: &str) -> Query<'_> {
    Query {
        sql: Cow::Borrowed(sql),
        args: Vec::new(),
        persistent: true,
    }
}

/// A statement as [`query`], of text the query owns: for a statement built where its values
/// are bound by a caller's function, whose values outlive the text.
pub fn query_owned(sql: String) -> Query<'static> {
    Query {
        sql: Cow::Owned(sql),
        args: Vec::new(),
        persistent: true,
    }
}

/// What a statement that returns no rows did.
#[derive(Debug, Clone, Copy)]
pub struct Done {
    rows_affected: u64,
}

impl Done {
    /// Rows the statement inserted, updated or deleted.
    pub fn rows_affected(&self) -> u64 {
        self.rows_affected
    }
}

/// Turns the bound values into a driver's arguments: `$args` is the driver's type, `$time`
/// turns a [`RecordTime`]'s value into the backend's stored form, of type `$time_ty`.
macro_rules! native_arguments {
    ($args:ty, $values:expr, $time:expr => $time_ty:ty) => {{
        let mut out = <$args>::default();
        for value in $values {
            match value {
                Arg::RecordTime(v) => out.add::<$time_ty>($time(v)),
                Arg::Null(Kind::RecordTime) => out.add(None::<$time_ty>),
                Arg::Int(v) => out.add(v),
                Arg::Float(v) => out.add(v),
                Arg::Bool(v) => out.add(v),
                Arg::Text(Cow::Borrowed(v)) => out.add(v),
                Arg::Text(Cow::Owned(v)) => out.add(v),
                Arg::Bytes(Cow::Borrowed(v)) => out.add(v),
                Arg::Bytes(Cow::Owned(v)) => out.add(v),
                Arg::Null(Kind::Int) => out.add(None::<i64>),
                Arg::Null(Kind::Float) => out.add(None::<f64>),
                Arg::Null(Kind::Bool) => out.add(None::<bool>),
                Arg::Null(Kind::Text) => out.add(None::<String>),
                Arg::Null(Kind::Bytes) => out.add(None::<Vec<u8>>),
            }
            .map_err(sqlx::Error::Encode)?;
        }
        out
    }};
}

/// A [`RecordTime`] as SQLite stores it: milliseconds since the epoch.
fn sqlite_time(t: DateTime<Utc>) -> i64 {
    t.timestamp_millis()
}

/// A [`RecordTime`] as PostgreSQL stores it: the instant itself (`timestamptz`).
fn pg_time(t: DateTime<Utc>) -> DateTime<Utc> {
    t
}

/// Builds the driver's own query from `$q` for the executor of `$exec` and evaluates `$body`
/// with it as `$query`, the executor as `$e`, and as `$row` the function that wraps the
/// driver's row in a [`DbRow`]: one arm per executor, so each use compiles its body four times.
macro_rules! with_native {
    ($q:expr, $exec:expr, |$query:ident, $e:ident, $row:ident| $body:expr) => {{
        let Query {
            sql,
            args,
            persistent,
        } = $q;
        match $exec {
            Exec::SqlitePool($e) => {
                let args = native_arguments!(SqliteArguments<'_>, args, sqlite_time => i64);
                let $query = sqlx::query_with(&sql, args).persistent(persistent);
                let $row = DbRow::Sqlite;
                $body
            }
            Exec::Sqlite($e) => {
                let args = native_arguments!(SqliteArguments<'_>, args, sqlite_time => i64);
                let $query = sqlx::query_with(&sql, args).persistent(persistent);
                let $row = DbRow::Sqlite;
                $body
            }
            Exec::PgPool($e) => {
                let args = native_arguments!(PgArguments, args, pg_time => DateTime<Utc>);
                let $query = sqlx::query_with(&sql, args).persistent(persistent);
                let $row = DbRow::Postgres;
                $body
            }
            Exec::Postgres($e) => {
                let args = native_arguments!(PgArguments, args, pg_time => DateTime<Utc>);
                let $query = sqlx::query_with(&sql, args).persistent(persistent);
                let $row = DbRow::Postgres;
                $body
            }
        }
    }};
}

impl<'q> Query<'q> {
    /// Binds the next parameter (`$1` first).
    pub fn bind(mut self, value: impl Bind<'q>) -> Self {
        self.args.push(value.arg());
        self
    }

    /// Binds `args` next, in order: values already in their bound form ([`Bind::arg`]), such as
    /// a filter's, gathered while its clauses were written.
    pub fn bind_args(mut self, args: impl IntoIterator<Item = Arg<'q>>) -> Self {
        self.args.extend(args);
        self
    }

    /// Whether the connection keeps the prepared statement for the next run of the same SQL
    /// (the default); `false` for a statement whose text is seldom repeated.
    pub fn persistent(mut self, value: bool) -> Self {
        self.persistent = value;
        self
    }

    /// Runs the statement; what it did.
    ///
    /// # Errors
    /// The driver's error.
    pub async fn execute<'e>(self, exec: impl Into<Exec<'e>>) -> Result<Done, sqlx::Error> {
        let rows_affected = with_native!(self, exec.into(), |q, e, _row| q
            .execute(e)
            .await?
            .rows_affected());
        Ok(Done { rows_affected })
    }

    /// Runs the statement; every row it returns.
    ///
    /// # Errors
    /// The driver's error.
    pub async fn fetch_all<'e>(self, exec: impl Into<Exec<'e>>) -> Result<Vec<DbRow>, sqlx::Error> {
        Ok(with_native!(self, exec.into(), |q, e, row| q
            .fetch_all(e)
            .await?
            .into_iter()
            .map(row)
            .collect()))
    }

    /// Runs the statement and maps each row with `f` as the driver hands it over, so that only
    /// the mapped values are held, never all the rows: for statements that return many large
    /// rows (a derivation's events). On SQLite a row's values are copies SQLite allocated
    /// (`sqlite3_value_dup`) on its worker thread, and holding tens of thousands of them at
    /// once grew that allocator's memory by about 100 MiB at 5,000 containers.
    ///
    /// # Errors
    /// The driver's error, or the first error of `f` (the statement is then abandoned).
    pub async fn fetch_map<'e, T, E>(
        self,
        exec: impl Into<Exec<'e>>,
        mut f: impl FnMut(DbRow) -> Result<T, E>,
    ) -> Result<Vec<T>, E>
    where
        E: From<sqlx::Error>,
    {
        let mut out = Vec::new();
        with_native!(self, exec.into(), |q, e, row| {
            let mut rows = q.fetch(e);
            while let Some(r) = rows.try_next().await? {
                out.push(f(row(r))?);
            }
        });
        Ok(out)
    }

    /// Runs the statement; its first row, if any.
    ///
    /// # Errors
    /// The driver's error.
    pub async fn fetch_optional<'e>(
        self,
        exec: impl Into<Exec<'e>>,
    ) -> Result<Option<DbRow>, sqlx::Error> {
        Ok(with_native!(self, exec.into(), |q, e, row| q
            .fetch_optional(e)
            .await?
            .map(row)))
    }

    /// Runs the statement; its first row.
    ///
    /// # Errors
    /// [`sqlx::Error::RowNotFound`] when it returns none; the driver's error.
    pub async fn fetch_one<'e>(self, exec: impl Into<Exec<'e>>) -> Result<DbRow, sqlx::Error> {
        self.fetch_optional(exec)
            .await?
            .ok_or(sqlx::Error::RowNotFound)
    }
}

/// A row as its driver returned it.
pub enum DbRow {
    Sqlite(SqliteRow),
    Postgres(PgRow),
}

impl DbRow {
    /// Column `column` as a [`RecordTime`] stores it (integer milliseconds since the epoch on
    /// SQLite, `timestamptz` on PostgreSQL), in UTC.
    ///
    /// # Errors
    /// [`sqlx::Error::ColumnNotFound`], or [`sqlx::Error::ColumnDecode`] naming the column when
    /// it is `NULL`, its value is of another type or SQLite's milliseconds are outside the
    /// times `chrono` represents.
    pub fn record_time(&self, column: &str) -> Result<DateTime<Utc>, sqlx::Error> {
        self.record_time_or_null(column)?
            .ok_or_else(|| sqlx::Error::ColumnDecode {
                index: column.to_string(),
                source: "NULL where a time was expected".into(),
            })
    }

    /// Column `column` as [`DbRow::record_time`] reads it, `None` when it is `NULL` (an
    /// optional time: `shipments.pod_eta_at`, `leg_tracks.ended_at`, …).
    ///
    /// # Errors
    /// As [`DbRow::record_time`], a `NULL` aside.
    pub fn record_time_or_null(&self, column: &str) -> Result<Option<DateTime<Utc>>, sqlx::Error> {
        match self {
            DbRow::Sqlite(r) => {
                let Some(ms) = sqlx::Row::try_get::<Option<i64>, _>(r, column)? else {
                    return Ok(None);
                };
                DateTime::from_timestamp_millis(ms)
                    .map(Some)
                    .ok_or_else(|| sqlx::Error::ColumnDecode {
                        index: column.to_string(),
                        source: format!("{ms} ms since the epoch is not a time chrono represents")
                            .into(),
                    })
            }
            DbRow::Postgres(r) => sqlx::Row::try_get(r, column),
        }
    }

    /// Column `index` (a name or a position) decoded by the row's driver as `T`.
    ///
    /// # Errors
    /// [`sqlx::Error::ColumnNotFound`], or [`sqlx::Error::ColumnDecode`] when the stored value's
    /// type is not one `T` reads (SQLite types a value by what it holds, PostgreSQL by the
    /// column's type: a PostgreSQL `INTEGER` is read as `i32`, not `i64`).
    pub fn try_get<'r, T, I>(&'r self, index: I) -> Result<T, sqlx::Error>
    where
        I: ColumnIndex<SqliteRow> + ColumnIndex<PgRow>,
        T: Decode<'r, Sqlite> + Type<Sqlite> + Decode<'r, Postgres> + Type<Postgres>,
    {
        match self {
            DbRow::Sqlite(r) => sqlx::Row::try_get(r, index),
            DbRow::Postgres(r) => sqlx::Row::try_get(r, index),
        }
    }
}
