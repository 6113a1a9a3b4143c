//! Database backends: SQLite (embedded demo or a file), PostgreSQL and MySQL / MariaDB
//! (pooled) and, with the cargo feature `duckdb`, DuckDB (a file, read-only).
//!
//! A backend only executes SQL that core approved, introspects the schema, estimates a read's
//! cost, and maps database errors to stable codes. It never decides whether SQL may run, and it
//! returns domain results and typed errors, never MCP shapes.
//!
//! An engine is one folder (`postgres/`, `mysql/`, `sqlite/`, `duckdb/`: connection, read,
//! write, introspect, render, plan, hints), the only place that names its driver crate or its
//! error codes. It implements [`Database`], the contract every engine keeps; [`Backend`] is the
//! enum that dispatches to them. A new engine is one folder, one [`Backend`] variant (and one
//! line of `each_engine!`) and one arm of [`connect::connect`].

mod blocking;
pub mod collect;
pub mod connect;
pub mod cost;
#[cfg(feature = "duckdb")]
pub mod duckdb;
pub mod error;
pub mod hints;
pub mod interval;
pub mod mysql;
pub mod options;
pub mod params;
pub mod postgres;
pub mod schema;
pub mod sqlite;

use std::future::Future;
use std::time::Duration;

use sqlgate::{Dialect, QueryClass};

pub(crate) use self::blocking::{interruptible, interruptible_once};
pub use self::collect::{
    digest_limits, in_statement, unique_names, Collector, Expected, Finish, MutationRun,
    MutationSql, QueryLimits, QueryResult, Reading, ResultColumn, RowsDigest,
};
use self::cost::Estimate;
pub use self::error::{ConnectError, DbError, DbErrorCode};
pub use self::params::{Params, NO_PARAMS};
pub use self::schema::{
    link_references, to_catalog, ColumnDetail, ForeignKeyDetail, ReferencedBy, TableDetail,
    UniqueKey,
};

/// What every engine does: the written contract between the gate and a database.
///
/// Every method runs only SQL that core approved (or the engine's own catalog queries), under
/// the limits given, and fails with a [`DbError`] that never contains the connection string.
pub trait Database: Send + Sync {
    /// The dialect core should parse with.
    fn dialect(&self) -> Dialect;

    /// The kind of database, as `server_info` reports it (never the URL).
    fn kind(&self) -> &'static str;

    /// Executes an approved read under the limits: read-only, capped in rows and bytes, never
    /// committed.
    fn execute(
        &self,
        sql: &str,
        limits: QueryLimits,
    ) -> impl Future<Output = Result<QueryResult, DbError>> + Send {
        self.execute_with(sql, &NO_PARAMS, limits)
    }

    /// [`Database::execute`] with `params` bound by the driver to the `:name` placeholders of
    /// `sql` (a published query; see [`params`]).
    fn execute_with(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> impl Future<Output = Result<QueryResult, DbError>> + Send;

    /// Executes an approved mutation in a read-write transaction under the limits' timeout,
    /// counting the rows each statement of `batch` touches (and first digesting them, when its
    /// `touched` says how to read them), then commits all or none as `finish` says. An engine
    /// served read-only refuses.
    fn mutate(
        &self,
        batch: &[MutationSql<'_>],
        limits: QueryLimits,
        finish: Finish,
    ) -> impl Future<Output = Result<Vec<MutationRun>, DbError>> + Send;

    /// Reads tables, columns, keys and comments (`referenced_by` is left empty: the caller links
    /// the tables).
    fn introspect(&self) -> impl Future<Output = Result<Vec<TableDetail>, DbError>> + Send;

    /// The unique keys of the tables (unique constraints and indexes over plain columns, not
    /// partial); none by default (an engine that does not read them).
    fn unique_keys(&self) -> impl Future<Output = Result<Vec<UniqueKey>, DbError>> + Send {
        std::future::ready(Ok(Vec::new()))
    }

    /// The planner's estimate of approved `sql` (`None`: the engine gives none).
    fn estimate(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> impl Future<Output = Result<Option<Estimate>, DbError>> + Send;

    /// Warnings about the connected role (it can write); none by default.
    fn role_warnings(&self) -> &[String] {
        &[]
    }

    /// What the agent can do about `error`, which this engine raised on approved `sql`; `None`
    /// when the engine knows no rule for it.
    fn hint(&self, _error: &DbError, _sql: &str) -> Option<String> {
        None
    }

    /// Checks that the role holds what `classes` need on every table of `writable`
    /// (`schema.table`) and returns warnings about what it may write beyond them; an engine
    /// that cannot tell checks nothing.
    fn check_write_privileges(
        &self,
        _writable: &[String],
        _classes: &[QueryClass],
    ) -> impl Future<Output = Result<Vec<String>, ConnectError>> + Send {
        std::future::ready(Ok(Vec::new()))
    }
}

/// A connected database.
pub enum Backend {
    /// SQLite (read-write only in a write mode).
    Sqlite(sqlite::SqliteBackend),
    /// PostgreSQL, pooled.
    Postgres(postgres::PgBackend),
    /// MySQL or MariaDB, pooled.
    Mysql(mysql::MysqlBackend),
    /// DuckDB, always read-only.
    #[cfg(feature = "duckdb")]
    Duckdb(duckdb::DuckdbBackend),
}

/// `$body` with `$db` bound to the engine inside `$backend`, whichever it is.
macro_rules! each_engine {
    ($backend:expr, $db:ident => $body:expr) => {
        match $backend {
            Backend::Sqlite($db) => $body,
            Backend::Postgres($db) => $body,
            Backend::Mysql($db) => $body,
            #[cfg(feature = "duckdb")]
            Backend::Duckdb($db) => $body,
        }
    };
}

impl Backend {
    /// The dialect core should parse with.
    pub fn dialect(&self) -> Dialect {
        each_engine!(self, db => db.dialect())
    }

    /// Executes approved SQL under the limits. A database error carries the engine's hint.
    pub async fn execute(&self, sql: &str, limits: QueryLimits) -> Result<QueryResult, DbError> {
        self.execute_with(sql, &NO_PARAMS, limits).await
    }

    /// Executes approved SQL with `params` bound to its `:name` placeholders by the driver.
    pub async fn execute_with(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        let result = each_engine!(self, db => db.execute_with(sql, params, limits).await);
        result.map_err(|e| self.with_hint(e, sql))
    }

    /// Executes an approved mutation in a read-write transaction under the limits' timeout,
    /// counting the rows each statement of `batch` touches (digesting them first when its
    /// `touched` is given), then commits all or none as `finish` says.
    pub async fn mutate(
        &self,
        batch: &[MutationSql<'_>],
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<Vec<MutationRun>, DbError> {
        each_engine!(self, db => db.mutate(batch, limits, finish).await)
    }

    /// Reads tables, columns, keys and comments, and links the foreign keys both ways.
    pub async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        let mut tables = each_engine!(self, db => db.introspect().await)?;
        link_references(&mut tables);
        Ok(tables)
    }

    /// The unique keys of the tables (PostgreSQL, MySQL / MariaDB, SQLite; none from DuckDB).
    pub async fn unique_keys(&self) -> Result<Vec<UniqueKey>, DbError> {
        each_engine!(self, db => db.unique_keys().await)
    }

    /// The planner's estimate of approved `sql` (`None`: the engine gives none, SQLite). A
    /// database error carries the engine's hint.
    pub async fn estimate(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<Estimate>, DbError> {
        let result = each_engine!(self, db => db.estimate(sql, timeout).await);
        result.map_err(|e| self.with_hint(e, sql))
    }

    /// Warnings about the connected role (PostgreSQL, MySQL: it can write).
    pub fn role_warnings(&self) -> &[String] {
        each_engine!(self, db => db.role_warnings())
    }

    /// The kind of database, as `server_info` reports it (never the URL).
    pub fn kind(&self) -> &'static str {
        each_engine!(self, db => db.kind())
    }

    /// Checks the role's write privileges on the tables mutations may modify (PostgreSQL);
    /// returns warnings about what it may write beyond them.
    pub async fn check_write_privileges(
        &self,
        writable: &[String],
        classes: &[QueryClass],
    ) -> Result<Vec<String>, ConnectError> {
        each_engine!(self, db => db.check_write_privileges(writable, classes).await)
    }

    /// `error` with the engine's hint for it, when it is a database error without one.
    fn with_hint(&self, mut error: DbError, sql: &str) -> DbError {
        if error.code == DbErrorCode::DatabaseError && error.hint.is_none() {
            error.hint = each_engine!(self, db => db.hint(&error, sql));
        }
        error
    }
}
