//! `describe_table`: one table's columns (protected ones marked), keys and references.

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::audit::{AuditRecord, Decision};
use crate::backend::TableDetail;
use crate::gate::Engine;
use crate::tools::result::{failure, success};

/// Arguments of `describe_table`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DescribeTableArgs {
    /// Table name as listed by list_tables, optionally schema-qualified (`orders`, `public.orders`).
    pub table: String,
}

/// Describes `args.table`; returns the audit record and the result.
pub fn handle(engine: &Engine, args: &DescribeTableArgs) -> (AuditRecord, CallToolResult) {
    let (decision, code, result) = match engine.describe_table(&args.table) {
        Ok(t) => (Decision::Allow, None, success(&t, render(&t))),
        Err(e) => (Decision::Refuse, Some(e.code), failure(&e)),
    };
    let rec = AuditRecord {
        code,
        table: Some(args.table.clone()),
        ..AuditRecord::new("describe_table", decision)
    };
    (rec, result)
}

/// `describe_table` as a column list with keys.
pub fn render(t: &TableDetail) -> String {
    let mut s = format!("{} ({})", t.qualified_name(), t.kind);
    if let Some(c) = &t.comment {
        s.push_str(&format!(": {c}"));
    }
    s.push('\n');
    for c in &t.columns {
        s.push_str(&format!(
            "- {} {}{}{}{}{}\n",
            c.name,
            c.data_type,
            if c.nullable { "" } else { " NOT NULL" },
            c.default
                .as_ref()
                .map(|d| format!(" DEFAULT {d}"))
                .unwrap_or_default(),
            if c.protected {
                " [protected: queries that reference it are refused]"
            } else {
                ""
            },
            c.comment
                .as_ref()
                .map(|d| format!(" -- {d}"))
                .unwrap_or_default(),
        ));
    }
    if !t.primary_key.is_empty() {
        s.push_str(&format!("primary key: ({})\n", t.primary_key.join(", ")));
    }
    for fk in &t.foreign_keys {
        s.push_str(&format!(
            "foreign key: ({}) -> {}({})\n",
            fk.columns.join(", "),
            fk.referenced_table,
            fk.referenced_columns.join(", ")
        ));
    }
    for r in &t.referenced_by {
        s.push_str(&format!(
            "referenced by: {}({}) -> ({})\n",
            r.table,
            r.columns.join(", "),
            r.referenced_columns.join(", ")
        ));
    }
    s
}
