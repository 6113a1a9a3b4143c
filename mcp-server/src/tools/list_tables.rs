//! `list_tables`: the tables and views the policy allows, one line each.

use rmcp::model::CallToolResult;

use crate::audit::{AuditRecord, Decision};
use crate::gate::{Engine, ListTablesOutput};
use crate::tools::result::{failure, success};

/// Lists the tables; returns the audit record and the result.
pub async fn handle(engine: &Engine) -> (AuditRecord, CallToolResult) {
    match engine.list_tables().await {
        Ok(out) => {
            let rec = AuditRecord {
                row_count: Some(out.tables.len()),
                ..AuditRecord::new("list_tables", Decision::Allow)
            };
            (rec, success(&out, render(&out)))
        }
        Err(e) => {
            let rec = AuditRecord {
                code: Some(e.code),
                ..AuditRecord::new("list_tables", Decision::Error)
            };
            (rec, failure(&e))
        }
    }
}

/// `list_tables` as one line per table.
pub fn render(out: &ListTablesOutput) -> String {
    if out.tables.is_empty() {
        return "No tables are readable under the policy.".to_string();
    }
    let mut s = format!("{} tables:\n", out.tables.len());
    for t in &out.tables {
        let name = match &t.schema {
            Some(sc) => format!("{sc}.{}", t.name),
            None => t.name.clone(),
        };
        s.push_str(&format!("- {name} ({}", t.kind));
        if let Some(n) = t.estimated_rows {
            s.push_str(&format!(", ~{n} rows"));
        }
        s.push(')');
        if let Some(c) = &t.comment {
            s.push_str(&format!(": {c}"));
        }
        s.push('\n');
    }
    s
}
