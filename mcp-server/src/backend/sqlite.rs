//! SQLite backend: the file is opened read-only (`mode=ro`) with `PRAGMA query_only`; a query
//! runs on a blocking thread, interrupted when the timeout passes. Read connections are kept
//! between queries ([`IdleConnections`]), so that the schema is not read again for each one.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use base64::Engine;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::{
    Collector, ColumnDetail, DbError, DbErrorCode, ForeignKeyDetail, QueryLimits, QueryResult,
    TableDetail,
};

/// A read-only SQLite database.
pub struct SqliteBackend {
    pub(crate) path: PathBuf,
    /// Opened for writes (a write mode): `mutate` may open read-write connections.
    pub(crate) writable: bool,
    /// Read connections between queries.
    idle: IdleConnections,
    /// Keeps a temporary database (the demo) alive as long as the backend.
    _keep: Option<Arc<dyn Send + Sync>>,
}

/// At most this many read connections wait between queries (more run at once when needed).
const IDLE_MAX: usize = 8;

/// Read-only connections that served a query and ended cleanly, with the identity of the file
/// they opened: a connection keeps the file it opened, so when the path names another file
/// (replaced by a rename, as tools that rebuild a database do) they are all closed and the next
/// query opens the new one, as a connection per query did.
#[derive(Default)]
struct IdleConnections(Mutex<Vec<(Connection, Option<FileId>)>>);

/// A file's device and inode (`None` where the platform does not say).
type FileId = (u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

impl IdleConnections {
    /// The identity of the file now at `path`, and a waiting connection to it if there is one.
    fn take(&self, path: &Path) -> (Option<Connection>, Option<FileId>) {
        let id = file_id(path);
        let mut idle = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Without an identity there is no telling whether the file was replaced: reuse nothing.
        if id.is_none() || idle.iter().any(|(_, opened)| *opened != id) {
            idle.clear();
        }
        (idle.pop().map(|(conn, _)| conn), id)
    }

    /// Keeps `conn` for the next query, unless enough wait already.
    fn put(&self, conn: Connection, id: Option<FileId>) {
        let mut idle = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if id.is_some() && idle.len() < IDLE_MAX {
            idle.push((conn, id));
        }
    }
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

    /// Executes approved SQL under the limits, on a waiting read connection or a new one. The
    /// connection waits for the next query only if it ended cleanly: not interrupted, and no
    /// transaction left open.
    pub async fn execute(&self, sql: &str, limits: QueryLimits) -> Result<QueryResult, DbError> {
        let (waiting, id) = self.idle.take(&self.path);
        let conn = match waiting {
            Some(conn) => conn,
            None => self.connect()?,
        };
        let interrupt = conn.get_interrupt_handle();
        let sql = sql.to_string();
        let ((result, conn), interrupted) = super::interruptible_once(
            limits.timeout,
            move || interrupt.interrupt(),
            move || (run(&conn, &sql, limits), conn),
        )
        .await?;
        if !interrupted && conn.is_autocommit() {
            self.idle.put(conn, id);
        }
        result
    }

    /// Reads tables, views, columns and keys.
    pub async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        let conn = self.connect()?;
        tokio::task::spawn_blocking(move || introspect(&conn))
            .await
            .map_err(|e| DbError::new(DbErrorCode::DatabaseError, format!("worker failed: {e}")))?
    }
}

/// Opens `path` read-only with `query_only` on.
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
    Ok(conn)
}

pub(crate) fn map_err(e: rusqlite::Error) -> DbError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e {
        match f.code {
            rusqlite::ErrorCode::OperationInterrupted => {
                return DbError::new(
                    DbErrorCode::QueryTimeout,
                    "the query ran over the statement timeout and was interrupted",
                )
            }
            rusqlite::ErrorCode::DatabaseBusy
            | rusqlite::ErrorCode::DatabaseLocked
            | rusqlite::ErrorCode::CannotOpen => {
                return DbError::new(DbErrorCode::DatabaseUnavailable, e.to_string())
            }
            _ => {}
        }
        let mut err = DbError::new(DbErrorCode::DatabaseError, e.to_string());
        err.sqlstate = Some(format!("SQLITE_{}", f.extended_code));
        return err;
    }
    DbError::new(DbErrorCode::DatabaseError, e.to_string())
}

pub(crate) fn value_of(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or_else(|| Value::String(f.to_string())),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
    }
}

fn run(conn: &Connection, sql: &str, limits: QueryLimits) -> Result<QueryResult, DbError> {
    let mut stmt = conn.prepare(sql).map_err(map_err)?;
    if !stmt.readonly() {
        return Err(DbError::new(
            DbErrorCode::DatabaseError,
            "SQLite reports this statement is not read-only",
        ));
    }
    let names: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
    let types: Vec<String> = stmt
        .columns()
        .map(|c| c.decl_type().unwrap_or("").to_string())
        .collect();
    let n = names.len();
    let mut collector = Collector::new(&names, types, limits);
    let mut rows = stmt.query([]).map_err(map_err)?;
    while let Some(row) = rows.next().map_err(map_err)? {
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            values.push(row.get_ref(i).map(value_of).unwrap_or(Value::Null));
        }
        if !collector.push(values) {
            break;
        }
    }
    Ok(collector.result)
}

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
fn introspect(conn: &Connection) -> Result<Vec<TableDetail>, DbError> {
    let mut stmt = conn
        .prepare(
            "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )
        .map_err(map_err)?;
    let list: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(map_err)?
        .collect::<Result<_, _>>()
        .map_err(map_err)?;
    let mut tables = Vec::with_capacity(list.len());
    for (name, kind) in list {
        let mut cols = conn
            .prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid")
            .map_err(map_err)?;
        let mut pk: Vec<(i64, String)> = Vec::new();
        let columns: Vec<ColumnDetail> = cols
            .query_map([&name], |r| {
                let col: String = r.get(0)?;
                let pkpos: i64 = r.get(4)?;
                Ok((
                    ColumnDetail {
                        name: col.clone(),
                        data_type: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                        nullable: r.get::<_, i64>(2)? == 0,
                        default: r.get(3)?,
                        comment: None,
                        protected: false,
                    },
                    pkpos,
                ))
            })
            .map_err(map_err)?
            .filter_map(Result::ok)
            .map(|(c, p)| {
                if p > 0 {
                    pk.push((p, c.name.clone()));
                }
                c
            })
            .collect();
        pk.sort();
        let mut fks_stmt = conn
            .prepare("SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq")
            .map_err(map_err)?;
        let raw: Vec<(i64, String, String, Option<String>)> = fks_stmt
            .query_map([&name], |r| {
                Ok((r.get(0)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .map_err(map_err)?
            .filter_map(Result::ok)
            .collect();
        let mut foreign_keys: Vec<ForeignKeyDetail> = Vec::new();
        let mut last_id = None;
        for (id, table, from, to) in raw {
            if last_id != Some(id) {
                foreign_keys.push(ForeignKeyDetail {
                    columns: Vec::new(),
                    referenced_schema: None,
                    referenced_table: table,
                    referenced_columns: Vec::new(),
                });
                last_id = Some(id);
            }
            if let Some(fk) = foreign_keys.last_mut() {
                fk.columns.push(from);
                fk.referenced_columns.push(to.unwrap_or_default());
            }
        }
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        let estimated_rows: Option<i64> = if kind == "table" {
            conn.query_row(&format!("SELECT count(*) FROM {quoted}"), [], |r| r.get(0))
                .ok()
        } else {
            None
        };
        tables.push(TableDetail {
            schema: None,
            name,
            kind,
            estimated_rows,
            comment: None,
            columns,
            primary_key: pk.into_iter().map(|(_, c)| c).collect(),
            foreign_keys,
            referenced_by: Vec::new(),
            row_filtered: false,
        });
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

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
