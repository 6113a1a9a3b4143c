//! MySQL / MariaDB reads: a prepared statement (one statement, binary protocol) in
//! `START TRANSACTION READ ONLY` under the server-side statement timeout, always rolled back.

use std::collections::HashSet;

use mysql_async::consts::ColumnType;
use mysql_async::prelude::Queryable;
use mysql_async::{Column, Conn, Params as DriverParams, Value};

use super::error::map_err;
use super::render::{render, type_name};
use super::{begin, MysqlBackend, GRACE};
use crate::backend::params::{ParamValue, Params};
use crate::backend::{Collector, DbError, QueryLimits, QueryResult, Reading};

impl MysqlBackend {
    /// Executes approved SQL: read-only transaction, server-side timeout, capped fetch, rollback.
    pub(super) async fn read(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        let bound = named(params);
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let id = conn.id();
        let set_timeout = self.timeout_statement(limits.timeout);
        let json = self.json_columns();
        let work = async {
            let result = async {
                begin(&mut conn, "READ ONLY", &set_timeout).await?;
                run_prepared(&mut conn, sql, bound, limits, Reading::UpToCap, &json).await
            }
            .await;
            let rolled_back = conn.query_drop("ROLLBACK").await.is_ok();
            (
                result.map(|(rows, _)| rows).map_err(|e| map_err(&e)),
                rolled_back,
            )
        };
        let outcome = tokio::time::timeout(limits.timeout + GRACE, work).await;
        self.settle(
            conn,
            id,
            outcome,
            "the query ran over the statement timeout and was killed",
        )
        .await
    }
}

/// The values as the driver binds named parameters (`:name`, which it reads off the prepared
/// SQL and sends as the statement's `?` values).
fn named(params: &Params) -> DriverParams {
    if params.is_empty() {
        return DriverParams::Empty;
    }
    let values = params.0.iter().map(|(name, v)| {
        let v = match v {
            ParamValue::Text(t) => Value::Bytes(t.clone().into_bytes()),
            ParamValue::Int(i) => Value::Int(*i),
            ParamValue::Float(f) => Value::Double(*f),
            ParamValue::Bool(b) => Value::Int(i64::from(*b)),
        };
        (name.clone().into_bytes(), v)
    });
    DriverParams::Named(values.collect())
}

/// Prepares `sql` (binary protocol: one statement), binds `params` and reads its rows into a
/// [`Collector`] as `reading` says. Returns the rows kept and the affected-row count.
pub(super) async fn run_prepared(
    conn: &mut Conn,
    sql: &str,
    params: DriverParams,
    limits: QueryLimits,
    reading: Reading,
    json_columns: &HashSet<(String, String)>,
) -> Result<(QueryResult, u64), mysql_async::Error> {
    let stmt = conn.prep(sql).await?;
    let mut result = conn.exec_iter(&stmt, params).await?;
    let columns: Vec<Column> = result.columns().map(|c| c.to_vec()).unwrap_or_default();
    let names: Vec<String> = columns.iter().map(|c| c.name_str().to_string()).collect();
    let is_json: Vec<bool> = columns
        .iter()
        .map(|c| {
            c.column_type() == ColumnType::MYSQL_TYPE_JSON
                || json_columns
                    .contains(&(c.org_table_str().to_string(), c.org_name_str().to_string()))
        })
        .collect();
    let types = columns
        .iter()
        .zip(&is_json)
        .map(|(c, json)| {
            if *json {
                "json".to_string()
            } else {
                type_name(c)
            }
        })
        .collect();
    let mut collector = Collector::new(&names, types, limits).read_as(reading);
    let mut keeping = true;
    while let Some(row) = result.next().await? {
        if !keeping {
            continue;
        }
        let values = columns
            .iter()
            .enumerate()
            .map(|(i, c)| render(c, row.as_ref(i), is_json.get(i).copied().unwrap_or(false)))
            .collect();
        if !collector.push(values) && !reading.reads_all() {
            // The rest of the rows are read off the wire (the protocol needs it) but not kept.
            keeping = false;
        }
    }
    let affected = result.affected_rows();
    result.drop_result().await?;
    conn.close(stmt).await?;
    Ok((collector.result, affected))
}
