//! `list_tables`: the tables and views the policy allows (optionally of one schema), each with
//! its meaning (the policy's annotations merged with the database's comment) and row-filtered
//! flag, one line each.

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlgate::Policy;

use crate::audit::{AuditRecord, Decision};
use crate::codes::BuiltinTool;
use crate::gate::{Engine, TableSummary};
use crate::tools::read::meaning::{merged_description, same, table_annotation};
use crate::tools::read::schema_output::{ListTablesOutput, TableEntry};
use crate::tools::result::{failure, success};

/// Arguments of `list_tables`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
pub struct ListTablesArgs {
    /// Only the tables of this schema (as list_schemas names it); all when absent.
    #[serde(default)]
    pub schema: Option<String>,
}

/// True when `table` is in `schema` (the same name but for case).
pub fn in_schema(table: Option<&str>, schema: &str) -> bool {
    table.is_some_and(|t| same(t, schema))
}

/// Lists the tables; returns the audit record and the result.
pub async fn handle(engine: &Engine, args: &ListTablesArgs) -> (AuditRecord, CallToolResult) {
    match engine.list_tables().await {
        Ok(out) => {
            let policy = engine.guard().policy().clone();
            let out = ListTablesOutput {
                tables: out
                    .tables
                    .iter()
                    .filter(|t| match &args.schema {
                        Some(s) => in_schema(t.schema.as_deref(), s),
                        None => true,
                    })
                    .map(|t| entry(&policy, t))
                    .collect(),
            };
            let rec = AuditRecord {
                row_count: Some(out.tables.len()),
                ..AuditRecord::new(BuiltinTool::ListTables.as_str(), Decision::Allow)
            };
            (rec, success(&out, render(&out)))
        }
        Err(e) => {
            let rec = AuditRecord {
                code: Some(e.code),
                ..AuditRecord::new(BuiltinTool::ListTables.as_str(), Decision::Error)
            };
            (rec, failure(&e))
        }
    }
}

/// One table with the policy's annotations.
fn entry(policy: &Policy, t: &TableSummary) -> TableEntry {
    let a = table_annotation(policy, t.schema.as_deref(), &t.name);
    TableEntry {
        schema: t.schema.clone(),
        name: t.name.clone(),
        kind: t.kind.clone(),
        estimated_rows: t.estimated_rows,
        comment: t.comment.clone(),
        display_name: a.and_then(|a| a.display_name.clone()),
        description: merged_description(a.and_then(|a| a.description.as_ref()), t.comment.as_ref()),
        synonyms: a.map(|a| a.synonyms.clone()).unwrap_or_default(),
        row_filtered: t.row_filtered,
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
        if t.row_filtered {
            s.push_str(", row-filtered");
        }
        s.push(')');
        if let Some(d) = &t.display_name {
            s.push_str(&format!(" \"{d}\""));
        }
        if let Some(c) = &t.description {
            s.push_str(&format!(": {c}"));
        }
        if !t.synonyms.is_empty() {
            s.push_str(&format!(" [also: {}]", t.synonyms.join(", ")));
        }
        s.push('\n');
    }
    s
}
