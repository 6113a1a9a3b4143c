//! SQLite backend: the file is opened read-only (`mode=ro`) with `PRAGMA query_only`; a query
//! runs on a blocking thread, interrupted when the timeout passes. Read connections are kept
//! between queries ([`IdleConnections`]), so that the schema is not read again for each one.
//! Every connection is bounded in memory by SQLite itself ([`bounds`]).

mod bounds;
mod error;
pub mod hints;
mod idle;
mod introspect;
mod read;
mod sample;
mod unique;
mod write;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use sqlgate::Dialect;

use self::error::map_err;
use self::idle::IdleConnections;
use crate::backend::cost::Estimate;
use crate::backend::params::Params;
use crate::backend::UniqueKey;
use crate::backend::{
    Database, DbError, DbErrorCode, Finish, MutationRun, MutationSql, QueryLimits, QueryResult,
    TableDetail,
};

/// A read-only SQLite database.
pub struct SqliteBackend {
    path: PathBuf,
    /// Opened for writes (a write mode): `mutate` may open read-write connections.
    writable: bool,
    /// Read connections between queries.
    idle: IdleConnections,
    /// Keeps a temporary database (the demo) alive as long as the backend.
    _keep: Option<Arc<dyn Send + Sync>>,
}

impl SqliteBackend {
    /// Serves the file at `path`; fails when it cannot be opened read-only.
    pub fn open(path: &Path) -> Result<Self, DbError> {
        let backend = SqliteBackend {
            path: path.to_path_buf(),
            writable: false,
            idle: IdleConnections::default(),
            _keep: None,
        };
        backend.connect()?;
        Ok(backend)
    }

    /// Serves a temporary file, kept alive by `keep`.
    pub fn open_owned(path: &Path, keep: Arc<dyn Send + Sync>) -> Result<Self, DbError> {
        let mut b = SqliteBackend::open(path)?;
        b._keep = Some(keep);
        Ok(b)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Lets `mutate` open read-write connections (only a write mode calls this).
    pub fn allow_writes(mut self) -> Self {
        self.writable = true;
        self
    }

    fn connect(&self) -> Result<Connection, DbError> {
        connect_read_only(&self.path)
    }
}

/// Opens `path` read-only with `query_only` on, under the process-wide heap limit.
pub fn connect_read_only(path: &Path) -> Result<Connection, DbError> {
    let uri = format!("file:{}?mode=ro", path.display());
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&uri, flags).map_err(|e| {
        DbError::new(
            DbErrorCode::DatabaseUnavailable,
            format!("cannot open the SQLite database read-only: {e}"),
        )
    })?;
    conn.pragma_update(None, "query_only", true)
        .map_err(map_err)?;
    bounds::bound_heap(&conn)?;
    Ok(conn)
}

impl Database for SqliteBackend {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn kind(&self) -> &'static str {
        "sqlite"
    }

    async fn execute_with(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        self.read(sql, params, limits).await
    }

    async fn mutate(
        &self,
        batch: &[MutationSql<'_>],
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<Vec<MutationRun>, DbError> {
        self.write(batch, limits, finish).await
    }

    async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        self.tables().await
    }

    async fn unique_keys(&self) -> Result<Vec<UniqueKey>, DbError> {
        self.unique().await
    }

    /// SQLite gives no cost estimate: the cost cap does not apply.
    async fn estimate(&self, _sql: &str, _timeout: Duration) -> Result<Option<Estimate>, DbError> {
        Ok(None)
    }

    fn hint(&self, error: &DbError, sql: &str) -> Option<String> {
        hints::for_error(&error.message, sql)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::Value;

    use super::*;

    fn limits(timeout: Duration) -> QueryLimits {
        QueryLimits {
            max_rows: Some(10),
            max_bytes: 1 << 20,
            timeout,
        }
    }

    /// A database file at `path` whose table `t` holds one row, `x = value`.
    fn database(path: &Path, value: i64) {
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(&format!(
            "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES ({value});"
        ))
        .unwrap();
    }

    async fn x(backend: &SqliteBackend) -> Value {
        let result = backend
            .execute("SELECT x FROM t", limits(Duration::from_secs(5)))
            .await
            .unwrap();
        result.rows[0]["x"].clone()
    }

    /// A backend on a new database in `dir` whose `x` is 1, and the database's path.
    fn served(dir: &tempfile::TempDir) -> (PathBuf, SqliteBackend) {
        let path = dir.path().join("db.sqlite");
        database(&path, 1);
        let backend = SqliteBackend::open(&path).unwrap();
        (path, backend)
    }

    fn idle(backend: &SqliteBackend) -> usize {
        backend.idle.0.lock().unwrap().len()
    }

    #[tokio::test]
    async fn a_connection_serves_the_next_query_and_sees_new_writes() {
        let dir = tempfile::tempdir().unwrap();
        let (path, backend) = served(&dir);
        assert_eq!(x(&backend).await, 1);
        assert_eq!(idle(&backend), 1);
        Connection::open(&path)
            .unwrap()
            .execute("UPDATE t SET x = 2", [])
            .unwrap();
        assert_eq!(x(&backend).await, 2);
        assert_eq!(idle(&backend), 1, "the waiting connection served the query");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_file_replaced_by_a_rename_is_read_anew() {
        let dir = tempfile::tempdir().unwrap();
        let (path, backend) = served(&dir);
        assert_eq!(x(&backend).await, 1);
        let next = dir.path().join("next.sqlite");
        database(&next, 2);
        std::fs::rename(&next, &path).unwrap();
        assert_eq!(x(&backend).await, 2);
    }

    #[tokio::test]
    async fn an_interrupted_connection_does_not_serve_again() {
        let dir = tempfile::tempdir().unwrap();
        let (_, backend) = served(&dir);
        let endless = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                       SELECT count(*) FROM n";
        let err = backend
            .execute(endless, limits(Duration::from_millis(50)))
            .await
            .unwrap_err();
        assert_eq!(err.code, DbErrorCode::QueryTimeout);
        assert_eq!(idle(&backend), 0);
        assert_eq!(x(&backend).await, 1);
    }
}
