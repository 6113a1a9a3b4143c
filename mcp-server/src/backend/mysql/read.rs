//! MySQL / MariaDB reads: a prepared statement (one statement, binary protocol) in
//! `START TRANSACTION READ ONLY` under the server-side statement timeout, always rolled back.

use std::collections::HashSet;

use mysql_async::consts::ColumnType;
use mysql_async::prelude::Queryable;
use mysql_async::{Column, Conn};

use super::error::map_err;
use super::render::{render, type_name};
use super::{begin, MysqlBackend, GRACE};
use crate::backend::{Collector, DbError, QueryLimits, QueryResult, Reading};

impl MysqlBackend {
    /// Executes approved SQL: read-only transaction, server-side timeout, capped fetch, rollback.
    pub(super) async fn read(
        &self,
        sql: &str,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let id = conn.id();
        let set_timeout = self.timeout_statement(limits.timeout);
        let json = self.json_columns();
        let work = async {
            let result = async {
                begin(&mut conn, "READ ONLY", &set_timeout).await?;
                run_prepared(&mut conn, sql, limits, Reading::UpToCap, &json).await
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

/// Prepares `sql` (binary protocol: one statement) and reads its rows into a [`Collector`] as
/// `reading` says. Returns the rows kept and the affected-row count.
pub(super) async fn run_prepared(
    conn: &mut Conn,
    sql: &str,
    limits: QueryLimits,
    reading: Reading,
    json_columns: &HashSet<(String, String)>,
) -> Result<(QueryResult, u64), mysql_async::Error> {
    let stmt = conn.prep(sql).await?;
    let mut result = conn.exec_iter(&stmt, ()).await?;
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
