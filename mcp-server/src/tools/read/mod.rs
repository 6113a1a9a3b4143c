//! The read tools, what an agent calls to learn what it may query and to query it: the schema
//! tools (`list_schemas`, `list_tables`, `describe_table`, their router in [`schema_router`]),
//! `validate_query` and `run_query` (their router below), and one tool per published query
//! ([`published_query`]). One file per tool (its arguments, handler and text rendering);
//! [`meaning`] and [`schema_output`] are what the schema tools answer; the gate's read
//! operations in the tools' error shape are in `engine.rs`.

pub mod describe_table;
mod engine;
pub mod list_schemas;
pub mod list_tables;
pub mod meaning;
pub mod published_query;
pub mod run_query;
pub mod schema_output;
mod schema_router;
pub mod validate_query;

use std::time::Instant;

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer};

use super::{quota_key, SqlGateServer};
use crate::codes::BuiltinTool;
use crate::gate::{RunQueryOutput, ValidateOutput};
use crate::tools::args::SqlArgs;

#[tool_router(router = read_router, vis = "pub(crate)")]
impl SqlGateServer {
    /// Checks SQL without running it.
    #[tool(
        name = "validate_query",
        description = "Check one SQL query without running it. Returns sqlgate's verdict: allowed, the exact SQL that would run (row cap applied), query_class, tables, functions; or the error code, message and a hint to fix it.",
        annotations(
            title = "Validate query",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = schema_for_output::<ValidateOutput>()
    )]
    pub async fn validate_query(
        &self,
        Parameters(args): Parameters<SqlArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine_for(&ctx, BuiltinTool::ValidateQuery.as_str()) {
            Ok(engine) => validate_query::handle(&engine, &args).await,
            Err(refused) => *refused,
        };
        self.audited(&ctx, rec, start, result).await
    }

    /// Checks and runs one read-only query.
    #[tool(
        name = "run_query",
        description = "Run one read-only SQL query (SELECT). sqlgate checks it first and executes only its regenerated SQL, read-only, with a row cap and a timeout. Returns columns, rows (objects keyed by column), row_count, truncated, executed_sql. A refusal returns isError with code, message and hint.",
        annotations(
            title = "Run query",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = schema_for_output::<RunQueryOutput>()
    )]
    pub async fn run_query(
        &self,
        Parameters(args): Parameters<SqlArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        match self.engine_for(&ctx, BuiltinTool::RunQuery.as_str()) {
            Ok(engine) => {
                let (rec, result) = run_query::handle(&engine, &args).await;
                if let Some(rows) = rec.row_count {
                    let rows = u64::try_from(rows).unwrap_or(u64::MAX);
                    engine
                        .quota()
                        .record_rows(&quota_key(&ctx), Instant::now(), rows);
                }
                self.audited_while(&ctx, rec, start, result).await
            }
            Err(refused) => {
                let (rec, result) = *refused;
                self.audited(&ctx, rec, start, result).await
            }
        }
    }
}
