//! SQLite writes: only a backend opened for a write mode opens a read-write connection; the
//! approved mutation runs in `BEGIN IMMEDIATE`, interrupted at the timeout, counting its rows.

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::bounds::{bound_heap, bound_length, explain};
use super::error::map_err;
use super::read::value_of;
use super::SqliteBackend;
use crate::backend::{
    interruptible, Collector, DbError, DbErrorCode, Finish, MutationRun, QueryLimits,
};

fn connect_read_write(backend: &SqliteBackend) -> Result<Connection, DbError> {
    if !backend.writable {
        return Err(DbError::new(
            DbErrorCode::DatabaseError,
            "the SQLite database is open read-only (the server is not in a write mode)",
        ));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&backend.path, flags).map_err(|e| {
        DbError::new(
            DbErrorCode::DatabaseUnavailable,
            format!("cannot open the SQLite database read-write: {e}"),
        )
    })?;
    conn.busy_timeout(std::time::Duration::from_secs(5))
        .map_err(map_err)?;
    bound_heap(&conn)?;
    Ok(conn)
}

/// Runs the statement inside the open transaction, keeping the first RETURNING rows.
fn run_counted(conn: &Connection, sql: &str, limits: QueryLimits) -> Result<MutationRun, DbError> {
    let mut stmt = conn.prepare(sql).map_err(map_err)?;
    let names: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
    let types = stmt
        .columns()
        .map(|c| c.decl_type().unwrap_or("").to_string())
        .collect();
    let mut collector = Collector::new(&names, types, limits);
    let n = names.len();
    let mut rows = stmt.query([]).map_err(map_err)?;
    // Every row is stepped (SQLite applies the changes as it goes); only the first are kept.
    while let Some(row) = rows.next().map_err(map_err)? {
        let values: Vec<Value> = (0..n)
            .map(|i| row.get_ref(i).map(value_of).unwrap_or(Value::Null))
            .collect();
        collector.push(values);
    }
    drop(rows);
    drop(stmt);
    Ok(MutationRun {
        affected_rows: conn.changes(),
        returning: collector.result,
        committed: false,
    })
}

fn transaction(
    conn: &Connection,
    sql: &str,
    limits: QueryLimits,
    finish: Finish,
) -> Result<MutationRun, DbError> {
    bound_length(conn, limits.max_bytes)?;
    conn.execute_batch("BEGIN IMMEDIATE").map_err(map_err)?;
    let result = run_counted(conn, sql, limits);
    let commit = matches!(&result, Ok(r) if finish.commits(r.affected_rows));
    let end = if commit { "COMMIT" } else { "ROLLBACK" };
    conn.execute_batch(end).map_err(map_err)?;
    result.map(|r| MutationRun {
        committed: commit,
        ..r
    })
}

impl SqliteBackend {
    /// Executes an approved mutation; commits only when `finish` says so for its count.
    pub(super) async fn write(
        &self,
        sql: &str,
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<MutationRun, DbError> {
        let conn = connect_read_write(self)?;
        let interrupt = conn.get_interrupt_handle();
        let sql = sql.to_string();
        interruptible(
            limits.timeout,
            move || interrupt.interrupt(),
            move || transaction(&conn, &sql, limits, finish),
        )
        .await
        .map_err(|e| explain(e, limits.max_bytes))
    }
}
