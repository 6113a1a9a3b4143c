//! DuckDB reads: approved SQL on a connection of its own, its result types from `DESCRIBE`, its
//! rows streamed as Arrow batches into the [`Collector`].

use std::sync::atomic::{AtomicBool, Ordering};

use duckdb::types::Value;
use duckdb::{params_from_iter, Connection};

use super::render::{field_value, Decoder};
use super::DuckdbBackend;
use crate::backend::params::{self, ParamValue, Params};
use crate::backend::{Collector, DbError, DbErrorCode, QueryLimits, QueryResult};
use sqlgate::Dialect;

impl DuckdbBackend {
    /// Executes approved SQL under the limits.
    pub(super) async fn read(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        // DuckDB binds by position here: each `:name` becomes `$n` (the SQL is unchanged when
        // there is no parameter).
        let sql = if params.is_empty() {
            sql.to_string()
        } else {
            params::numbered(sql, Dialect::Duckdb, params)
                .map_err(|m| DbError::new(DbErrorCode::DatabaseError, m))?
        };
        let values: Vec<Value> = params
            .0
            .iter()
            .map(|(_, v)| match v {
                ParamValue::Text(t) => Value::Text(t.clone()),
                ParamValue::Int(i) => Value::BigInt(*i),
                ParamValue::Float(f) => Value::Double(*f),
                ParamValue::Bool(b) => Value::Boolean(*b),
            })
            .collect();
        self.interrupted(limits.timeout, move |conn, timed_out| {
            run(conn, &sql, &values, limits, timed_out)
        })
        .await
    }
}

/// The DuckDB type names of the result (`DESCRIBE` binds the query without running it): Arrow's
/// types name the storage (`FixedSizeBinary(16)` for a HUGEINT), not the type.
fn result_types(conn: &Connection, sql: &str, values: &[Value]) -> duckdb::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("DESCRIBE {sql}"))?;
    let rows = stmt.query_map(params_from_iter(values), |r| r.get::<_, String>(1))?;
    rows.collect()
}

fn run(
    conn: &Connection,
    sql: &str,
    values: &[Value],
    limits: QueryLimits,
    timed_out: &AtomicBool,
) -> duckdb::Result<QueryResult> {
    // Only a query can be described; anything else gets Arrow's type names, and DuckDB's own
    // answer to the statement itself (read-only, no external access) rather than DESCRIBE's.
    let types = result_types(conn, sql, values).unwrap_or_default();
    if timed_out.load(Ordering::SeqCst) {
        // The interrupt hit DESCRIBE, not the statement: do not start it.
        return Err(duckdb::Error::InvalidQuery);
    }
    let mut stmt = conn.prepare(sql)?;
    let stream = stmt.stream_arrow(params_from_iter(values))?;
    let schema = stream.get_schema();
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let decoders: Vec<Decoder> = schema.fields().iter().map(|f| Decoder::of(f)).collect();
    let n = names.len();
    // DESCRIBE and the statement agree; should they not, Arrow's names are the fallback.
    let types: Vec<String> = (0..n)
        .map(|i| {
            types
                .get(i)
                .cloned()
                .unwrap_or_else(|| schema.field(i).data_type().to_string())
        })
        .collect();
    let mut collector = Collector::new(&names, types.clone(), limits);
    'batches: for batch in stream {
        let batch = batch?;
        for row in 0..batch.num_rows() {
            let values = batch
                .columns()
                .iter()
                .zip(&decoders)
                .map(|(col, decoder)| field_value(col.as_ref(), row, decoder))
                .collect();
            if !collector.push(values) {
                break 'batches;
            }
        }
    }
    Ok(collector.result)
}
