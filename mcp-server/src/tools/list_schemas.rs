//! `list_schemas`: the schemas holding tables the principal may read, with how many; the tool
//! is registered by its own router ([`SqlGateServer::schema_router`]).

use std::time::Instant;

use rmcp::handler::server::common::schema_for_output;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer};

use super::SqlGateServer;
use crate::audit::{AuditRecord, Decision};
use crate::gate::{Engine, ListTablesOutput};
use crate::tools::result::{failure, success};
use crate::tools::schema_output::{ListSchemasOutput, SchemaEntry};

#[tool_router(router = schema_router, vis = "pub(crate)")]
impl SqlGateServer {
    /// Lists the schemas with tables the principal may read.
    #[tool(
        name = "list_schemas",
        description = "List the schemas holding tables you may query, with how many tables each (name null for an engine without schemas, such as SQLite). Pass one to list_tables as `schema`.",
        annotations(
            title = "List schemas",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = schema_for_output::<ListSchemasOutput>()
    )]
    pub async fn list_schemas(
        &self,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine_for(&ctx, "list_schemas") {
            Ok(engine) => handle(&engine).await,
            Err(refused) => *refused,
        };
        self.audited(&ctx, rec, start, result).await
    }
}

/// Lists the schemas; returns the audit record and the result.
pub async fn handle(engine: &Engine) -> (AuditRecord, CallToolResult) {
    match engine.list_tables().await {
        Ok(tables) => {
            let out = schemas(&tables);
            let rec = AuditRecord {
                row_count: Some(out.schemas.len()),
                ..AuditRecord::new("list_schemas", Decision::Allow)
            };
            (rec, success(&out, render(&out)))
        }
        Err(e) => {
            let rec = AuditRecord {
                code: Some(e.code),
                ..AuditRecord::new("list_schemas", Decision::Error)
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
