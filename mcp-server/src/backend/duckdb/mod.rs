//! DuckDB backend (cargo feature `duckdb`): the file is opened once with `access_mode=READ_ONLY`,
//! `enable_external_access=false` and `lock_configuration=true`, set in the configuration before
//! the database opens so that no statement can change them. Each query runs on its own connection
//! to that database, on a blocking thread, interrupted when the timeout passes.
//!
//! Results are read as Arrow batches and rendered to JSON (`render`), with a string fallback (Arrow's
//! formatter) for any type without a JSON form, so a query never fails because of a type. The
//! database also sets `arrow_lossless_conversion`: without it Arrow gets TIME WITH TIME ZONE
//! without its offset; with it, DuckDB's types Arrow has no type for arrive as extension types,
//! decoded from DuckDB's storage (`storage`).

mod introspect;
mod plan;
mod read;
mod render;
mod storage;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use duckdb::{AccessMode, Config, Connection};
use sqlgate::Dialect;

use crate::backend::cost::Estimate;
pub use crate::backend::options::DuckdbOptions;
use crate::backend::params::Params;
use crate::backend::{
    interruptible, Database, DbError, DbErrorCode, Finish, MutationRun, MutationSql, QueryLimits,
    QueryResult, TableDetail,
};

/// A DuckDB database opened read-only.
pub struct DuckdbBackend {
    path: PathBuf,
    /// The database; every query clones a connection from it (a `Connection` is not `Sync`).
    db: Mutex<Connection>,
}

impl DuckdbBackend {
    /// Opens the file at `path` read-only, without external access and with its configuration
    /// locked; fails when it does not exist or cannot be opened.
    pub fn open(path: &Path, options: &DuckdbOptions) -> Result<Self, DbError> {
        let unavailable = |e: duckdb::Error| {
            DbError::new(
                DbErrorCode::DatabaseUnavailable,
                format!("cannot open the DuckDB database read-only: {e}"),
            )
        };
        let mut config = Config::default()
            .access_mode(AccessMode::ReadOnly)
            .and_then(|c| c.enable_external_access(false))
            // Extensions would be downloaded or read from disk: neither is wanted.
            .and_then(|c| c.enable_autoload_extension(false))
            .and_then(|c| c.with("autoinstall_known_extensions", "false"))
            .and_then(|c| c.threads(i64::try_from(options.threads.max(1)).unwrap_or(i64::MAX)))
            // Arrow then carries TIMETZ with its offset (and UUID, HUGEINT, UHUGEINT, BIT,
            // BOOLEAN as extension types, decoded in `field_value`); without it the offset is lost.
            .and_then(|c| c.with("arrow_lossless_conversion", "true"))
            .map_err(unavailable)?;
        if let Some(m) = &options.max_memory {
            config = config.max_memory(m).map_err(unavailable)?;
        }
        // Last, so that the settings above are in place before they are locked.
        let config = config
            .with("lock_configuration", "true")
            .map_err(unavailable)?;
        // A missing file gets a message naming the path rather than DuckDB's.
        if !path.is_file() {
            return Err(DbError::new(
                DbErrorCode::DatabaseUnavailable,
                format!(
                    "cannot open the DuckDB database read-only: {} is not a file",
                    path.display()
                ),
            ));
        }
        let conn = Connection::open_with_flags(path, config).map_err(unavailable)?;
        Ok(DuckdbBackend {
            path: path.to_path_buf(),
            db: Mutex::new(conn),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A new connection to the database.
    fn connect(&self) -> Result<Connection, DbError> {
        let db = self.db.lock().unwrap_or_else(|e| e.into_inner());
        db.try_clone().map_err(|e| {
            DbError::new(
                DbErrorCode::DatabaseUnavailable,
                format!("cannot connect to the DuckDB database: {e}"),
            )
        })
    }

    /// The value of a setting, read on a connection of its own (not through the guard): lets the
    /// operator and the tests check that `access_mode`, `enable_external_access` and
    /// `lock_configuration` are what `open` set.
    pub fn setting(&self, name: &str) -> Result<String, DbError> {
        let conn = self.connect()?;
        // current_setting takes a constant, not a parameter.
        let sql = format!(
            "SELECT current_setting('{}')::VARCHAR",
            name.replace('\'', "''")
        );
        conn.query_row(&sql, [], |r| r.get(0))
            .map_err(|e| map_err(e, false))
    }

    /// Runs `work` on a connection of its own, on a blocking thread, interrupted at `timeout`;
    /// a DuckDB error is mapped knowing whether the timer interrupted it.
    pub(super) async fn interrupted<T: Send + 'static>(
        &self,
        timeout: Duration,
        work: impl FnOnce(&Connection, &AtomicBool) -> duckdb::Result<T> + Send + 'static,
    ) -> Result<T, DbError> {
        let conn = self.connect()?;
        let interrupt = conn.interrupt_handle();
        let timed_out = Arc::new(AtomicBool::new(false));
        let flag = timed_out.clone();
        interruptible(
            timeout,
            move || {
                flag.store(true, Ordering::SeqCst);
                interrupt.interrupt();
            },
            move || {
                work(&conn, &timed_out).map_err(|e| map_err(e, timed_out.load(Ordering::SeqCst)))
            },
        )
        .await
    }
}

/// Maps a DuckDB error; `timed_out` says the timer interrupted the statement.
pub(super) fn map_err(e: duckdb::Error, timed_out: bool) -> DbError {
    let message = e.to_string();
    if timed_out || message.contains("INTERRUPT") {
        return DbError::new(
            DbErrorCode::QueryTimeout,
            "the query ran over the statement timeout and was interrupted",
        );
    }
    if message.contains("Out of Memory") {
        // max_memory is shared by every query: it may pass when the others are done.
        return DbError::resource_limit("DuckDB's memory (max_memory)", message, true);
    }
    DbError::new(DbErrorCode::DatabaseError, message)
}

impl Database for DuckdbBackend {
    fn dialect(&self) -> Dialect {
        Dialect::Duckdb
    }

    fn kind(&self) -> &'static str {
        "duckdb"
    }

    async fn execute_with(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        self.read(sql, params, limits).await
    }

    /// Opened with access_mode=READ_ONLY: serve refuses write modes, this is the backstop.
    async fn mutate(
        &self,
        _batch: &[MutationSql<'_>],
        _limits: QueryLimits,
        _finish: Finish,
    ) -> Result<Vec<MutationRun>, DbError> {
        Err(DbError::new(
            DbErrorCode::DatabaseError,
            "DuckDB databases are served read-only: mutations are refused",
        ))
    }

    async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        self.tables().await
    }

    async fn estimate(&self, sql: &str, timeout: Duration) -> Result<Option<Estimate>, DbError> {
        self.plan(sql, timeout).await
    }
}
