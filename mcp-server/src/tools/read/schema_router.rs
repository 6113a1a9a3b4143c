//! The schema tools' routes (`list_schemas`, `list_tables`, `describe_table`): what an agent
//! calls to learn what it may query and what it means. Each tool's work is in its own module.

use std::time::Instant;

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer};

use super::{describe_table, list_schemas, list_tables, SqlGateServer};
use crate::codes::BuiltinTool;
use crate::tools::read::describe_table::DescribeTableArgs;
use crate::tools::read::list_tables::ListTablesArgs;
use crate::tools::read::schema_output::{ListSchemasOutput, ListTablesOutput, TableDescription};

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
        let (rec, result) = match self.engine_for(&ctx, BuiltinTool::ListSchemas.as_str()) {
            Ok(engine) => list_schemas::handle(&engine).await,
            Err(refused) => *refused,
        };
        self.audited(&ctx, rec, start, result).await
    }

    /// Lists the tables and views the policy allows.
    #[tool(
        name = "list_tables",
        description = "List the tables and views you may query (optionally of one `schema`): schema, name, kind, estimated rows, comment, display_name, description, synonyms, row_filtered. Start here.",
        annotations(
            title = "List tables",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = schema_for_output::<ListTablesOutput>()
    )]
    pub async fn list_tables(
        &self,
        Parameters(args): Parameters<ListTablesArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine_for(&ctx, BuiltinTool::ListTables.as_str()) {
            Ok(engine) => list_tables::handle(&engine, &args).await,
            Err(refused) => *refused,
        };
        self.audited(&ctx, rec, start, result).await
    }

    /// Describes one table.
    #[tool(
        name = "describe_table",
        description = "Describe one table: its display_name, description, synonyms, row_filtered; columns (name, type, nullable, default, description, synonyms, primary_key_ordinal, pii category, mask, blocked, protected); relationships with cardinality and direction. Protected columns cannot be queried; masked ones only selected as plain columns.",
        annotations(
            title = "Describe table",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = schema_for_output::<TableDescription>()
    )]
    pub async fn describe_table(
        &self,
        Parameters(args): Parameters<DescribeTableArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine_for(&ctx, BuiltinTool::DescribeTable.as_str()) {
            Ok(engine) => describe_table::handle(&engine, &args),
            Err(refused) => *refused,
        };
        self.audited(&ctx, rec, start, result).await
    }
}
