//! `run_query`: one read-only query, checked and run, as a Markdown table.

use rmcp::model::CallToolResult;

use crate::audit::{AuditRecord, Decision};
use crate::codes::BuiltinTool;
use crate::gate::{Engine, RunQueryOutput, RunTrace};
use crate::tools::args::SqlArgs;
use crate::tools::error::ToolError;
use crate::tools::result::{failure, success_json};
use crate::tools::text::push_row;

/// Runs `args.sql`; returns the audit record and a closure building the result (rendering a
/// large result takes a while, so it is built while the audit record is stored).
pub async fn handle(
    engine: &Engine,
    args: &SqlArgs,
) -> (AuditRecord, impl FnOnce() -> CallToolResult) {
    let (outcome, trace) = engine.run_query(&args.sql).await;
    answered(
        BuiltinTool::RunQuery.as_str(),
        args.sql.clone(),
        outcome,
        trace,
    )
}

/// A read's outcome as its audit record (`tool`, the `sql` asked, the decision, code, row count
/// and executed SQL) and a closure building the result: shared by `run_query` and the
/// published queries.
pub fn answered(
    tool: &str,
    sql: String,
    outcome: Result<RunQueryOutput, ToolError>,
    trace: RunTrace,
) -> (AuditRecord, impl FnOnce() -> CallToolResult) {
    if let Err(e) = &outcome {
        if let Some(note) = crate::tools::hints::operator_note(e.code, &e.message) {
            tracing::warn!(code = %e.code, "{note}");
        }
    }
    let (decision, code, row_count) = match &outcome {
        Ok(out) => (Decision::Allow, None, Some(out.row_count)),
        Err(e) if e.is_database_error() => (Decision::Error, Some(e.code), None),
        Err(e) => (Decision::Refuse, Some(e.code), None),
    };
    let result = move || match outcome {
        Ok(out) => {
            let rendering = render(&out);
            success_json(out.into_json(), rendering)
        }
        Err(e) => failure(&e),
    };
    let rec = AuditRecord {
        code,
        row_count,
        sql: Some(sql),
        query_class: trace.query_class,
        executed_sql: trace.executed_sql,
        ..AuditRecord::new(tool, decision)
    };
    (rec, result)
}

/// `run_query` as a Markdown table plus a summary line.
pub fn render(out: &RunQueryOutput) -> String {
    let mut s = String::with_capacity(64 + 32 * out.rows.len() * out.columns.len().max(1));
    if !out.columns.is_empty() {
        let names: Vec<&str> = out.columns.iter().map(|c| c.name.as_str()).collect();
        s.push_str(&format!("| {} |\n", names.join(" | ")));
        s.push_str(&format!("|{}\n", "---|".repeat(names.len())));
        for row in &out.rows {
            push_row(&mut s, &names, row);
        }
    }
    s.push_str(&format!(
        "\n{} row{}{} in {:.1} ms. Executed: {}",
        out.row_count,
        if out.row_count == 1 { "" } else { "s" },
        if out.truncated {
            " (truncated by the row or size cap; add a WHERE clause, aggregate, or a smaller LIMIT)"
        } else {
            ""
        },
        out.duration_ms,
        out.executed_sql
    ));
    s
}
