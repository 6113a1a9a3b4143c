//! `describe_table`: one table's columns with their meaning and PII marks (protected, masked and
//! blocked ones marked, never a value), primary key, relationships and row-filtered flag.

use rmcp::model::CallToolResult;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::audit::{AuditRecord, Decision};
use crate::codes::BuiltinTool;
use crate::gate::Engine;
use crate::tools::read::meaning::describe;
use crate::tools::read::schema_output::{ColumnDescription, Direction, TableDescription};
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
        Ok(t) => {
            let t = describe(&engine.guard(), &t);
            (Decision::Allow, None, success(&t, render(&t)))
        }
        Err(e) => (Decision::Refuse, Some(e.code), failure(&e)),
    };
    let rec = AuditRecord {
        code,
        table: Some(args.table.clone()),
        ..AuditRecord::new(BuiltinTool::DescribeTable.as_str(), decision)
    };
    (rec, result)
}

/// `describe_table` as a column list with keys and relationships.
pub fn render(t: &TableDescription) -> String {
    let name = match &t.schema {
        Some(s) => format!("{s}.{}", t.name),
        None => t.name.clone(),
    };
    let mut s = format!("{name} ({})", t.kind);
    if let Some(d) = &t.display_name {
        s.push_str(&format!(" \"{d}\""));
    }
    if let Some(c) = &t.description {
        s.push_str(&format!(": {c}"));
    }
    if !t.synonyms.is_empty() {
        s.push_str(&format!(" [also: {}]", t.synonyms.join(", ")));
    }
    if t.row_filtered {
        s.push_str(" [row-filtered: queries see only the rows you are allowed]");
    }
    s.push('\n');
    for c in &t.columns {
        s.push_str(&format!("- {}\n", render_column(c)));
    }
    if !t.primary_key.is_empty() {
        s.push_str(&format!("primary key: ({})\n", t.primary_key.join(", ")));
    }
    for r in &t.relationships {
        let other = match &r.other_schema {
            Some(sc) => format!("{sc}.{}", r.other_table),
            None => r.other_table.clone(),
        };
        let arrow = match r.direction {
            Direction::Outgoing => "->",
            Direction::Incoming => "<-",
        };
        let cardinality = serde_json::to_value(r.cardinality).unwrap_or_default();
        s.push_str(&format!(
            "relationship: ({}) {arrow} {other}({}) {}{}\n",
            r.columns.join(", "),
            r.other_columns.join(", "),
            cardinality.as_str().unwrap_or_default(),
            r.description
                .as_ref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default(),
        ));
    }
    s
}

/// One column line: name, type, constraints, meaning and what the policy does with it.
fn render_column(c: &ColumnDescription) -> String {
    let mut s = format!("{} {}", c.name, c.data_type);
    if !c.nullable {
        s.push_str(" NOT NULL");
    }
    if let Some(d) = &c.default {
        s.push_str(&format!(" DEFAULT {d}"));
    }
    if let Some(p) = &c.pii {
        s.push_str(&format!(" [pii: {p}]"));
    }
    if c.blocked {
        s.push_str(" [blocked: its category is refused]");
    } else if c.protected {
        s.push_str(" [protected: queries that reference it are refused]");
    } else if let Some(m) = c.mask {
        s.push_str(&format!(
            " [masked ({}): select it only as a plain column]",
            m.as_str()
        ));
    }
    if let Some(d) = &c.display_name {
        s.push_str(&format!(" \"{d}\""));
    }
    if let Some(d) = &c.description {
        s.push_str(&format!(" -- {d}"));
    }
    if !c.synonyms.is_empty() {
        s.push_str(&format!(" [also: {}]", c.synonyms.join(", ")));
    }
    s
}
