//! SQLite writes: only a backend opened for a write mode opens a read-write connection; the
//! approved mutations of a batch run in one `BEGIN IMMEDIATE`, interrupted at the timeout,
//! counting their rows (each after the digest of the rows it touches, when given).

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::bounds::{bound_heap, bound_length, explain};
use super::error::map_err;
use super::read::value_of;
use super::SqliteBackend;
use crate::backend::{
    digest_limits, in_statement, interruptible, Collector, DbError, DbErrorCode, Finish,
    MutationRun, MutationSql, QueryLimits, QueryResult, Reading,
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

/// Runs `sql` inside the open transaction, reading its rows as `reading` says; returns them
/// and the count of rows it changed.
fn run_rows(
    conn: &Connection,
    sql: &str,
    limits: QueryLimits,
    reading: Reading,
) -> Result<(QueryResult, u64), DbError> {
    let mut stmt = conn.prepare(sql).map_err(map_err)?;
    let names: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
    let types = stmt
        .columns()
        .map(|c| c.decl_type().unwrap_or("").to_string())
        .collect();
    let mut collector = Collector::new(&names, types, limits).read_as(reading);
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
    Ok((collector.result, conn.changes()))
}

/// One statement of a batch, owned (it runs on a blocking thread).
type Owned = (String, Option<String>);

/// Runs every statement in the open transaction, each after the digest of the rows it touches.
fn run_batch(
    conn: &Connection,
    batch: &[Owned],
    limits: QueryLimits,
) -> Result<Vec<MutationRun>, DbError> {
    let mut runs = Vec::with_capacity(batch.len());
    for (i, (sql, touched)) in batch.iter().enumerate() {
        let step = || {
            let touched = match touched {
                Some(select) => run_rows(conn, select, digest_limits(limits), Reading::Digest)?
                    .0
                    .rows_digest(),
                None => None,
            };
            let (returning, affected_rows) = run_rows(conn, sql, limits, Reading::All)?;
            Ok(MutationRun {
                affected_rows,
                returning,
                committed: false,
                touched,
            })
        };
        runs.push(step().map_err(|e| in_statement(e, i, batch.len()))?);
    }
    Ok(runs)
}

fn transaction(
    conn: &Connection,
    batch: &[Owned],
    limits: QueryLimits,
    finish: &Finish,
) -> Result<Vec<MutationRun>, DbError> {
    bound_length(conn, limits.max_bytes)?;
    conn.execute_batch("BEGIN IMMEDIATE").map_err(map_err)?;
    let result = run_batch(conn, batch, limits);
    let commit = matches!(&result, Ok(runs) if finish.commits(runs));
    let end = if commit { "COMMIT" } else { "ROLLBACK" };
    conn.execute_batch(end).map_err(map_err)?;
    result.map(|runs| {
        runs.into_iter()
            .map(|r| MutationRun {
                committed: commit,
                ..r
            })
            .collect()
    })
}

impl SqliteBackend {
    /// Executes the approved mutations of `batch` in one transaction; commits only when
    /// `finish` says so for what they touched.
    pub(super) async fn write(
        &self,
        batch: &[MutationSql<'_>],
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<Vec<MutationRun>, DbError> {
        let conn = connect_read_write(self)?;
        let interrupt = conn.get_interrupt_handle();
        let batch: Vec<Owned> = batch
            .iter()
            .map(|m| (m.sql.to_string(), m.touched.map(str::to_string)))
            .collect();
        interruptible(
            limits.timeout * u32::try_from(batch.len().max(1)).unwrap_or(u32::MAX),
            move || interrupt.interrupt(),
            move || transaction(&conn, &batch, limits, &finish),
        )
        .await
        .map_err(|e| explain(e, limits.max_bytes))
    }
}
