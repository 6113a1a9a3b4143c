//! SQLite reads: approved SQL on a read-only connection (`mode=ro`, `query_only`), refused when
//! SQLite reports the statement writes, on a blocking thread interrupted at the timeout, no
//! value longer than the result cap allows ([`bound_length`]).

use base64::Engine;
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, ToSql};
use serde_json::Value;

use super::bounds::{bound_length, explain};
use super::error::map_err;
use super::SqliteBackend;
use crate::backend::params::{ParamValue, Params};
use crate::backend::{
    interruptible_once, Collector, DbError, DbErrorCode, QueryLimits, QueryResult,
};

impl SqliteBackend {
    /// Executes approved SQL under the limits, on a waiting read connection or a new one. The
    /// connection waits for the next query only if it ended cleanly: not interrupted, and no
    /// transaction left open.
    pub(super) async fn read(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        let (waiting, id) = self.idle.take(&self.path);
        let conn = match waiting {
            Some(conn) => conn,
            None => self.connect()?,
        };
        let interrupt = conn.get_interrupt_handle();
        let sql = sql.to_string();
        let bound = named(params);
        let ((result, conn), interrupted) = interruptible_once(
            limits.timeout,
            move || interrupt.interrupt(),
            move || (run(&conn, &sql, &bound, limits), conn),
        )
        .await?;
        if !interrupted && conn.is_autocommit() {
            self.idle.put(conn, id);
        }
        result.map_err(|e| explain(e, limits.max_bytes))
    }
}

/// A value as JSON: blobs are base64, non-finite reals are text.
pub(super) fn value_of(v: ValueRef<'_>) -> Value {
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

/// The values as SQLite binds named parameters (`:name`, the published query's own spelling).
fn named(params: &Params) -> Vec<(String, SqlValue)> {
    params
        .0
        .iter()
        .map(|(name, v)| {
            let v = match v {
                ParamValue::Text(t) => SqlValue::Text(t.clone()),
                ParamValue::Int(i) => SqlValue::Integer(*i),
                ParamValue::Float(f) => SqlValue::Real(*f),
                ParamValue::Bool(b) => SqlValue::Integer(i64::from(*b)),
            };
            (format!(":{name}"), v)
        })
        .collect()
}

fn run(
    conn: &Connection,
    sql: &str,
    bound: &[(String, SqlValue)],
    limits: QueryLimits,
) -> Result<QueryResult, DbError> {
    bound_length(conn, limits.max_bytes)?;
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
    let bound: Vec<(&str, &dyn ToSql)> = bound
        .iter()
        .map(|(n, v)| (n.as_str(), v as &dyn ToSql))
        .collect();
    let mut rows = stmt.query(bound.as_slice()).map_err(map_err)?;
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
