//! The cost cap: before an approved read runs, the planner's estimate of it (PostgreSQL's
//! `EXPLAIN (FORMAT JSON)`, MySQL / MariaDB's `EXPLAIN FORMAT=JSON`) is compared with the
//! operator's caps. `max_cost` bounds the plan's total cost (the planner's own unit, which
//! accounts for a LIMIT that stops early); `max_estimated_rows` bounds the largest row count of
//! any step, so that a cross join of two large tables is refused even under `LIMIT 100`.
//! SQLite has no cost estimate: the caps do not apply there.

use serde_json::Value;

/// The operator's caps (both off by default).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CostCap {
    /// The highest plan cost allowed (planner units).
    pub max_cost: Option<f64>,
    /// The most rows any step of the plan may be estimated to produce.
    pub max_estimated_rows: Option<u64>,
}

impl CostCap {
    /// True when a cap is set.
    pub fn is_set(&self) -> bool {
        self.max_cost.is_some() || self.max_estimated_rows.is_some()
    }

    /// Why `estimate` is over a cap, if it is.
    pub fn exceeded_by(&self, estimate: &Estimate) -> Option<String> {
        if let (Some(cap), Some(cost)) = (self.max_cost, estimate.cost) {
            if cost > cap {
                return Some(format!(
                    "the planner estimates a cost of {cost:.0}, over the cap of {cap:.0}"
                ));
            }
        }
        if let Some(cap) = self.max_estimated_rows {
            if estimate.rows > cap as f64 {
                return Some(format!(
                    "the planner estimates {:.0} rows at the largest step, over the cap of {cap}",
                    estimate.rows
                ));
            }
        }
        None
    }
}

/// What the planner expects of a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Total cost of the plan, where the engine reports one.
    pub cost: Option<f64>,
    /// The largest row estimate of any step.
    pub rows: f64,
    /// What to do about the largest step, in words for the agent.
    pub advice: String,
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
