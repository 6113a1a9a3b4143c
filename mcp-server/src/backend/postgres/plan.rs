//! The PostgreSQL planner's estimate for the cost cap: `EXPLAIN (FORMAT JSON)` of approved SQL
//! (which plans without running) in a read-only transaction, read into an [`Estimate`].

use std::time::Duration;

use futures::{pin_mut, TryStreamExt};
use serde_json::Value;

use super::error::{map_err, pool_err};
use super::read::{in_read_only_transaction, no_params, settle, GRACE};
use super::PgBackend;
use crate::backend::cost::Estimate;
use crate::backend::DbError;

/// The first column of the first row of approved `explain` (an `EXPLAIN (FORMAT JSON)`), as
/// JSON; `None` without a row.
async fn plan_json(
    client: &tokio_postgres::Client,
    explain: &str,
) -> Result<Option<serde_json::Value>, DbError> {
    let stream = client
        .query_typed_raw(explain, no_params())
        .await
        .map_err(|e| map_err(&e))?;
    pin_mut!(stream);
    match stream.try_next().await.map_err(|e| map_err(&e))? {
        Some(row) => row.try_get(0).map(Some).map_err(|e| map_err(&e)),
        None => Ok(None),
    }
}

impl PgBackend {
    /// The planner's estimate of approved `sql` (`EXPLAIN (FORMAT JSON)`, which plans without
    /// running), in a read-only transaction under the statement timeout.
    pub(super) async fn plan(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<Estimate>, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let explain = format!("EXPLAIN (FORMAT JSON) {sql}");
        let plan = async {
            let plan = plan_json(&client, &explain).await?;
            Ok(plan.and_then(|p| from_postgres_plan(&p)))
        };
        let setup = self.bounds.begin_sql("BEGIN READ ONLY", timeout);
        let work = in_read_only_transaction(&client, &setup, plan);
        let outcome = tokio::time::timeout(timeout + GRACE, work).await;
        settle(client, outcome, "EXPLAIN ran over the statement timeout").await
    }
}

/// PostgreSQL's `EXPLAIN (FORMAT JSON)` output: `[{"Plan": {...}}]`.
pub fn from_postgres_plan(explain: &Value) -> Option<Estimate> {
    let root = explain.get(0)?.get("Plan")?;
    let cost = root.get("Total Cost").and_then(Value::as_f64);
    let mut biggest = root;
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if rows_of(node) > rows_of(biggest) {
            biggest = node;
        }
        stack.extend(
            node.get("Plans")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    }
    Some(Estimate {
        cost,
        rows: rows_of(biggest),
        advice: postgres_advice(biggest),
    })
}

fn rows_of(node: &Value) -> f64 {
    node.get("Plan Rows").and_then(Value::as_f64).unwrap_or(0.0)
}

/// The tables a plan node reads, itself or below it.
fn relations(node: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if let Some(r) = n.get("Relation Name").and_then(Value::as_str) {
            if !out.iter().any(|o| o == r) {
                out.push(r.to_string());
            }
        }
        stack.extend(
            n.get("Plans")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    }
    out.sort();
    out
}

fn postgres_advice(node: &Value) -> String {
    let kind = node
        .get("Node Type")
        .and_then(Value::as_str)
        .unwrap_or("a step");
    let tables = relations(node);
    let joins_without_condition = kind == "Nested Loop"
        && node.get("Join Filter").is_none()
        && !node
            .get("Plans")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|child| child.get("Index Cond").is_some() || child.get("Recheck Cond").is_some());
    if joins_without_condition && tables.len() >= 2 {
        return format!(
            "a nested loop joining {} without a join condition: add one (ON or WHERE)",
            tables.join(" and ")
        );
    }
    let on = if tables.is_empty() {
        String::new()
    } else {
        format!(" over {}", tables.join(", "))
    };
    format!(
        "the largest step is a {kind}{on} of about {:.0} rows: narrow it with WHERE, a join \
         condition or an aggregate",
        rows_of(node)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cost::CostCap;
    use serde_json::json;

    #[test]
    fn a_cross_join_under_a_limit_is_caught_by_its_largest_step() {
        let plan = json!([{"Plan": {"Node Type": "Limit", "Total Cost": 1.25, "Plan Rows": 100,
            "Plans": [{"Node Type": "Nested Loop", "Total Cost": 381_000.0, "Plan Rows": 30_528_645,
                "Plans": [{"Node Type": "Seq Scan", "Relation Name": "playlist_track", "Plan Rows": 8715},
                          {"Node Type": "Materialize", "Plan Rows": 3503,
                           "Plans": [{"Node Type": "Seq Scan", "Relation Name": "track", "Plan Rows": 3503}]}]}]}}]);
        let e = from_postgres_plan(&plan).expect("estimate");
        assert_eq!(e.cost, Some(1.25));
        assert_eq!(e.rows, 30_528_645.0);
        assert_eq!(
            e.advice,
            "a nested loop joining playlist_track and track without a join condition: add one (ON or WHERE)"
        );
        let cap = CostCap {
            max_cost: Some(100_000.0),
            max_estimated_rows: Some(1_000_000),
        };
        assert!(cap
            .exceeded_by(&e)
            .is_some_and(|m| m.contains("30528645 rows")));
        assert_eq!(CostCap::default().exceeded_by(&e), None);
    }
}
