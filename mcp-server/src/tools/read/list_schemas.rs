//! `list_schemas`: the schemas holding tables the principal may read, with how many.

use rmcp::model::CallToolResult;

use crate::audit::{AuditRecord, Decision};
use crate::codes::BuiltinTool;
use crate::gate::{Engine, ListTablesOutput};
use crate::tools::read::schema_output::{ListSchemasOutput, SchemaEntry};
use crate::tools::result::{failure, success};

/// Lists the schemas; returns the audit record and the result.
pub async fn handle(engine: &Engine) -> (AuditRecord, CallToolResult) {
    match engine.list_tables().await {
        Ok(tables) => {
            let out = schemas(&tables);
            let rec = AuditRecord {
                row_count: Some(out.schemas.len()),
                ..AuditRecord::new(BuiltinTool::ListSchemas.as_str(), Decision::Allow)
            };
            (rec, success(&out, render(&out)))
        }
        Err(e) => {
            let rec = AuditRecord {
                code: Some(e.code),
                ..AuditRecord::new(BuiltinTool::ListSchemas.as_str(), Decision::Error)
            };
            (rec, failure(&e))
        }
    }
}

/// The readable tables counted per schema, in the order the schemas first appear.
fn schemas(tables: &ListTablesOutput) -> ListSchemasOutput {
    let mut out: Vec<SchemaEntry> = Vec::new();
    for t in &tables.tables {
        match out.iter_mut().find(|s| s.name == t.schema) {
            Some(s) => s.table_count += 1,
            None => out.push(SchemaEntry {
                name: t.schema.clone(),
                table_count: 1,
            }),
        }
    }
    ListSchemasOutput { schemas: out }
}

/// `list_schemas` as one line per schema.
pub fn render(out: &ListSchemasOutput) -> String {
    if out.schemas.is_empty() {
        return "No tables are readable under the policy.".to_string();
    }
    let mut s = String::new();
    for sc in &out.schemas {
        let name = sc
            .name
            .as_deref()
            .unwrap_or("(no schema: the engine has one namespace)");
        s.push_str(&format!("- {name}: {} tables\n", sc.table_count));
    }
    s
}
