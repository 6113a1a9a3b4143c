//! The MySQL / MariaDB planner's estimate for the cost cap: `EXPLAIN FORMAT=JSON` of approved
//! SQL (prepared like every read) in a read-only transaction, read into an [`Estimate`].

use std::time::Duration;

use mysql_async::prelude::Queryable;
use serde_json::Value;

use super::error::map_err;
use super::{begin, MysqlBackend, GRACE};
use crate::backend::cost::Estimate;
use crate::backend::DbError;

impl MysqlBackend {
    /// The planner's estimate of approved `sql` (`EXPLAIN FORMAT=JSON`, prepared like every
    /// read), in a read-only transaction under the statement timeout.
    pub(super) async fn plan(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<Estimate>, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let id = conn.id();
        let set_timeout = self.timeout_statement(timeout);
        let work = async {
            let result = async {
                begin(&mut conn, "READ ONLY", &set_timeout).await?;
                let plan: Option<String> = conn
                    .exec_first(format!("EXPLAIN FORMAT=JSON {sql}"), ())
                    .await?;
                Ok::<_, mysql_async::Error>(plan)
            }
            .await;
            let rolled_back = conn.query_drop("ROLLBACK").await.is_ok();
            (result.map_err(|e| map_err(&e)), rolled_back)
        };
        let outcome = tokio::time::timeout(timeout + GRACE, work).await;
        let plan = self
            .settle(conn, id, outcome, "EXPLAIN ran over the statement timeout")
            .await?;
        Ok(plan
            .and_then(|p| serde_json::from_str::<Value>(&p).ok())
            .and_then(|p| from_mysql_plan(&p)))
    }
}

/// MySQL / MariaDB's `EXPLAIN FORMAT=JSON`: the rows each table contributes, multiplied along the
/// join (a product of the per-table estimates, as a nested-loop join reads them); MySQL's
/// `query_cost` when present (MariaDB reports none).
pub fn from_mysql_plan(explain: &Value) -> Option<Estimate> {
    let block = explain.get("query_block")?;
    let cost = block.pointer("/cost_info/query_cost").and_then(|c| {
        c.as_str()
            .and_then(|s| s.parse().ok())
            .or_else(|| c.as_f64())
    });
    let mut tables: Vec<(String, f64, bool)> = Vec::new();
    collect_mysql_tables(block, &mut tables);
    let mut product = 1.0f64;
    for (_, rows, _) in &tables {
        product *= rows.max(1.0);
    }
    let rows = if tables.is_empty() { 0.0 } else { product };
    let unconditioned: Vec<&str> = tables
        .iter()
        .filter(|(_, _, conditioned)| !conditioned)
        .map(|(name, _, _)| name.as_str())
        .collect();
    let advice = if tables.len() >= 2 && unconditioned.len() >= 2 {
        format!(
            "a join of {} without a join condition: add one (ON or WHERE)",
            unconditioned.join(" and ")
        )
    } else {
        format!(
            "the join reads about {rows:.0} row combinations: narrow it with WHERE, a join \
             condition or an aggregate"
        )
    };
    Some(Estimate { cost, rows, advice })
}

/// Every `"table"` object below `node`: its name, its row estimate per scan, and whether an
/// index lookup or a condition ties it to the others.
fn collect_mysql_tables(node: &Value, out: &mut Vec<(String, f64, bool)>) {
    match node {
        Value::Object(map) => {
            if let Some(table) = map.get("table").and_then(Value::as_object) {
                let name = table
                    .get("table_name")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string();
                let rows = ["rows_examined_per_scan", "rows"]
                    .iter()
                    .find_map(|k| table.get(*k).and_then(Value::as_f64))
                    .unwrap_or(1.0);
                // A full scan (`ALL`, or `index`: every index entry) with no condition attached,
                // here or on the block join that holds it, is tied to nothing.
                let full_scan = matches!(
                    table.get("access_type").and_then(Value::as_str),
                    Some("ALL" | "index") | None
                );
                let conditioned = !full_scan
                    || table.contains_key("attached_condition")
                    || map.contains_key("attached_condition");
                out.push((name, rows, conditioned));
            }
            for (key, value) in map {
                if key != "table" {
                    collect_mysql_tables(value, out);
                } else if let Some(inner) = value.as_object() {
                    // A derived table's own query block.
                    for v in inner.values() {
                        collect_mysql_tables(v, out);
                    }
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_mysql_tables(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mysql_rows_multiply_along_the_join() {
        let plan = json!({"query_block": {"cost_info": {"query_cost": "3055823.50"},
            "nested_loop": [
                {"table": {"table_name": "a", "access_type": "ALL", "rows_examined_per_scan": 8715}},
                {"block-nl-join": {"table": {"table_name": "b", "access_type": "index",
                    "key": "PRIMARY", "rows_examined_per_scan": 3503}}}]}});
        let e = from_mysql_plan(&plan).expect("estimate");
        assert_eq!(e.cost, Some(3_055_823.5));
        assert_eq!(e.rows, 8715.0 * 3503.0);
        assert!(
            e.advice.contains("a and b without a join condition"),
            "{}",
            e.advice
        );
        let joined = json!({"query_block": {"nested_loop": [
            {"table": {"table_name": "a", "rows": 8715}},
            {"table": {"table_name": "b", "access_type": "eq_ref", "rows": 1, "key": "PRIMARY"}}]}});
        let e = from_mysql_plan(&joined).expect("estimate");
        assert_eq!((e.cost, e.rows), (None, 8715.0));
    }
}
