//! The DuckDB planner's estimate for the cost cap: `EXPLAIN (FORMAT json)` of approved SQL,
//! interrupted at the timeout as a query is, read into an [`Estimate`].

use std::time::Duration;

use serde_json::Value;

use super::DuckdbBackend;
use crate::backend::cost::Estimate;
use crate::backend::{DbError, DbErrorCode};

impl DuckdbBackend {
    /// The planner's estimate of approved `sql` (`EXPLAIN (FORMAT json)`), interrupted at
    /// `timeout` as a query is.
    pub(super) async fn plan(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<Estimate>, DbError> {
        let explain = format!("EXPLAIN (FORMAT json) {sql}");
        let text: String = self
            .interrupted(timeout, move |conn, _| {
                conn.query_row(&explain, [], |r| r.get(1))
            })
            .await?;
        let plan: Value = serde_json::from_str(&text).map_err(|e| {
            DbError::new(
                DbErrorCode::DatabaseError,
                format!("DuckDB's EXPLAIN output is not JSON: {e}"),
            )
        })?;
        Ok(from_duckdb_plan(&plan))
    }
}

/// DuckDB's `EXPLAIN (FORMAT json)`: an array of plan nodes (`name`, `children`, `extra_info`
/// with `"Estimated Cardinality": "5000"` as text). DuckDB gives no cost, and no estimate for a
/// `CROSS_PRODUCT`: its rows are the product of its children's. The estimate is the largest
/// step's.
pub fn from_duckdb_plan(explain: &Value) -> Option<Estimate> {
    let roots = explain.as_array()?;
    let mut biggest: Option<(f64, &Value)> = None;
    for root in roots {
        duckdb_rows(root, &mut biggest);
    }
    let (rows, node) = biggest?;
    Some(Estimate {
        cost: None,
        rows,
        advice: duckdb_advice(node, rows),
    })
}

/// The rows of `node` (estimated, or the product of a cross product's children), recording the
/// largest step met in `biggest`.
fn duckdb_rows<'a>(node: &'a Value, biggest: &mut Option<(f64, &'a Value)>) -> f64 {
    let children: Vec<f64> = node
        .get("children")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|child| duckdb_rows(child, biggest))
        .collect();
    let estimated = node
        .pointer("/extra_info/Estimated Cardinality")
        .and_then(|v| {
            v.as_str()
                .and_then(|s| s.parse().ok())
                .or_else(|| v.as_f64())
        });
    let rows = match estimated {
        Some(rows) => rows,
        None if is_duckdb_cross_join(node) => children.iter().map(|r| r.max(1.0)).product(),
        None => children.iter().copied().fold(0.0, f64::max),
    };
    if biggest.is_none_or(|(max, _)| rows > max) {
        *biggest = Some((rows, node));
    }
    rows
}

fn is_duckdb_cross_join(node: &Value) -> bool {
    matches!(
        node.get("name").and_then(Value::as_str),
        Some("CROSS_PRODUCT" | "POSITIONAL_SCAN")
    ) || (node.get("name").and_then(Value::as_str) == Some("NESTED_LOOP_JOIN")
        && node.pointer("/extra_info/Conditions").is_none())
}

/// The tables below a DuckDB plan node (`memory.main.track` → `track`).
fn duckdb_tables(node: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if let Some(t) = n.pointer("/extra_info/Table").and_then(Value::as_str) {
            let name = t.rsplit('.').next().unwrap_or(t).to_string();
            if !out.contains(&name) {
                out.push(name);
            }
        }
        stack.extend(
            n.get("children")
                .and_then(Value::as_array)
                .into_iter()
                .flatten(),
        );
    }
    out.sort();
    out
}

fn duckdb_advice(node: &Value, rows: f64) -> String {
    let tables = duckdb_tables(node);
    if is_duckdb_cross_join(node) && tables.len() >= 2 {
        return format!(
            "a cross product of {} without a join condition: add one (ON or WHERE)",
            tables.join(" and ")
        );
    }
    let kind = node.get("name").and_then(Value::as_str).unwrap_or("step");
    let on = if tables.is_empty() {
        String::new()
    } else {
        format!(" over {}", tables.join(", "))
    };
    format!(
        "the largest step is a {kind}{on} of about {rows:.0} rows: narrow it with WHERE, a join \
         condition or an aggregate"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Plans as DuckDB 2.0.1 prints them (`EXPLAIN (FORMAT json)`): a cross product carries no
    /// estimate of its own.
    #[test]
    fn duckdb_cross_products_multiply_their_children() {
        let scan = |table: &str, rows: &str| {
            json!({"name": "SEQ_SCAN", "children": [], "extra_info": {
                "Table": format!("memory.main.{table}"), "Estimated Cardinality": rows}})
        };
        let cross = json!([{"name": "UNGROUPED_AGGREGATE", "extra_info": {
                "Aggregates": "count_star()", "Estimated Cardinality": "1"},
            "children": [{"name": "CROSS_PRODUCT", "extra_info": {},
                "children": [scan("playlist_track", "8715"), scan("track", "3503")]}]}]);
        let e = from_duckdb_plan(&cross).expect("estimate");
        assert_eq!((e.cost, e.rows), (None, 8715.0 * 3503.0));
        assert_eq!(
            e.advice,
            "a cross product of playlist_track and track without a join condition: add one (ON or WHERE)"
        );
        let joined = json!([{"name": "PROJECTION", "extra_info": {"Estimated Cardinality": "5000"},
            "children": [{"name": "HASH_JOIN", "extra_info": {"Join Type": "INNER",
                "Conditions": "x = y", "Estimated Cardinality": "5000"},
                "children": [scan("a", "100000"), scan("b", "5000")]}]}]);
        let e = from_duckdb_plan(&joined).expect("estimate");
        assert_eq!(e.rows, 100_000.0);
        assert!(
            e.advice.contains("SEQ_SCAN over a of about 100000 rows"),
            "{}",
            e.advice
        );
        assert_eq!(from_duckdb_plan(&json!({"not": "a plan"})), None);
    }
}
