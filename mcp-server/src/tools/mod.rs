//! The MCP server: seven tools (`list_tables`, `describe_table`, `validate_query`, `run_query`,
//! `run_mutation` in a write mode, `audit_verify`, `server_info`) over an [`Engine`], with output
//! schemas, structured content, a text rendering and the MCP hints. Every call is audited.

pub mod approval;
pub mod args;
pub mod instructions;
pub mod run_mutation;
pub mod server_info;
pub mod text;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use futures::future::join;
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use serde::Serialize;

use crate::audit::{Audit, AuditRecord, Decision};
use crate::backend::TableDetail;
use crate::gate::error::ToolError;
use crate::gate::{Engine, ListTablesOutput, RunQueryOutput, ValidateOutput};
use crate::tools::run_mutation::RunMutationOutput;
use approval::ApprovalRequest;
pub use args::{DescribeTableArgs, MutationArgs, SqlArgs};
pub use instructions::instructions;
pub use server_info::{AuditInfo, ChainInfo, ServerInfoOutput};

/// The MCP server.
#[derive(Clone)]
pub struct SqlGateServer {
    engine: Arc<Engine>,
    audit: Audit,
    instructions: Arc<String>,
    tool_router: ToolRouter<SqlGateServer>,
}

fn success<T: Serialize>(value: &T, rendering: String) -> CallToolResult {
    success_json(serde_json::to_value(value).unwrap_or_default(), rendering)
}

/// A result whose structured content is already JSON (no second copy of the rows), with
/// `rendering` as its text. Built from `success` rather than rmcp's `structured`, which would
/// first print `value` as the text only for it to be replaced.
fn success_json(value: serde_json::Value, rendering: String) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(rendering)]);
    r.structured_content = Some(value);
    r
}

fn failure(e: &ToolError) -> CallToolResult {
    let v = serde_json::to_value(e).unwrap_or_default();
    let mut r = CallToolResult::error(vec![ContentBlock::text(text::error(e))]);
    r.structured_content = Some(v);
    r
}

fn client_of(ctx: &RequestContext<RoleServer>) -> (Option<String>, Option<String>) {
    match ctx.client_info() {
        Some(i) => (Some(i.name.clone()), Some(i.version.clone())),
        None => (None, None),
    }
}

/// The streamable HTTP session id, from the request's headers.
fn session_of(ctx: &RequestContext<RoleServer>) -> Option<String> {
    let parts = ctx.extensions.get::<http::request::Parts>()?;
    let id = parts.headers.get("mcp-session-id")?.to_str().ok()?;
    Some(id.to_string())
}

#[tool_router]
impl SqlGateServer {
    /// A server over `engine`, auditing to `audit`.
    pub fn new(engine: Arc<Engine>, audit: Audit) -> Self {
        let instructions = Arc::new(instructions(&engine));
        let mut tool_router = Self::tool_router();
        // run_mutation exists only in a write mode: a read-only server does not list it.
        if !engine.mode().writes() {
            tool_router.remove_route("run_mutation");
        }
        // audit_verify checks the configured file: without one there is nothing to verify.
        if audit.path().is_none() {
            tool_router.remove_route("audit_verify");
        }
        // --tools: the rest are neither listed nor callable.
        if let Some(enabled) = engine.enabled_tools() {
            for t in tool_router.list_all() {
                if !enabled.iter().any(|e| *e == t.name) {
                    tool_router.remove_route(&t.name);
                }
            }
        }
        SqlGateServer {
            engine,
            audit,
            instructions,
            tool_router,
        }
    }

    /// Every tool this server can publish.
    pub fn all_tool_names() -> Vec<String> {
        Self::tool_router()
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect()
    }

    async fn audited(
        &self,
        ctx: &RequestContext<RoleServer>,
        record: AuditRecord,
        start: Instant,
        result: CallToolResult,
    ) -> Result<CallToolResult, McpError> {
        self.audited_while(ctx, record, start, move || result).await
    }

    /// As [`Self::audited`], building the result while the audit writer stores the record (on
    /// its own thread): the result of a large read takes a while to render, and the call returns
    /// only once both are done.
    async fn audited_while(
        &self,
        ctx: &RequestContext<RoleServer>,
        mut record: AuditRecord,
        start: Instant,
        result: impl FnOnce() -> CallToolResult,
    ) -> Result<CallToolResult, McpError> {
        let (client, version) = client_of(ctx);
        record.client = client;
        record.client_version = version;
        record.principal = self.engine.principal().map(str::to_string);
        record.duration_ms = (start.elapsed().as_secs_f64() * 1e6).round() / 1e3;
        record.call_id = Some(ctx.id.to_string());
        record.session_id = session_of(ctx);
        record.traceparent = ctx
            .meta
            .get("traceparent")
            .and_then(|v| v.as_str())
            .map(str::to_string);
        record.shorten_too_large_sql();
        let tool = record.tool.clone();
        // `join` polls in order: the record is queued (on the first poll of `record`) before
        // the result is built.
        let (stored, result) = join(self.audit.record(record), async { result() }).await;
        match stored {
            Ok(()) => Ok(result),
            Err(e) if !self.audit.must_fail(&tool) => {
                eprintln!("sqlgate-mcp: audit log write failed ({e}); {tool} continues (--audit-failure strict_mutations)");
                Ok(result)
            }
            Err(e) => Err(McpError::internal_error(
                format!("audit log write failed, so the call was not completed: {e}"),
                None,
            )),
        }
    }

    /// Lists the tables and views the policy allows.
    #[tool(
        name = "list_tables",
        description = "List the tables and views you may query: schema, name, kind, estimated rows, comment. Start here.",
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
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine.list_tables().await {
            Ok(out) => {
                let rec = AuditRecord {
                    row_count: Some(out.tables.len()),
                    ..AuditRecord::new("list_tables", Decision::Allow)
                };
                (rec, success(&out, text::list_tables(&out)))
            }
            Err(e) => {
                let rec = AuditRecord {
                    code: Some(e.code),
                    ..AuditRecord::new("list_tables", Decision::Error)
                };
                (rec, failure(&e))
            }
        };
        self.audited(&ctx, rec, start, result).await
    }

    /// Describes one table.
    #[tool(
        name = "describe_table",
        description = "Describe one table: columns (name, type, nullable, default, comment, protected), primary key, foreign keys in both directions. Protected columns cannot be queried.",
        annotations(
            title = "Describe table",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        ),
        output_schema = schema_for_output::<TableDetail>()
    )]
    pub async fn describe_table(
        &self,
        Parameters(args): Parameters<DescribeTableArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let (decision, code, result) = match self.engine.describe_table(&args.table) {
            Ok(t) => (Decision::Allow, None, success(&t, text::describe_table(&t))),
            Err(e) => (Decision::Refuse, Some(e.code), failure(&e)),
        };
        let rec = AuditRecord {
            code,
            table: Some(args.table.clone()),
            ..AuditRecord::new("describe_table", decision)
        };
        self.audited(&ctx, rec, start, result).await
    }

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
        let out = self.engine.validate_with_estimate(&args.sql).await;
        let v = &out.verdict;
        let decision = if v.allowed {
            Decision::Allow
        } else {
            Decision::Refuse
        };
        let rec = AuditRecord {
            code: v.error.as_ref().map(|e| e.code.into()),
            query_class: Some(v.query_class),
            sql: Some(args.sql.clone()),
            ..AuditRecord::new("validate_query", decision)
        };
        let mut rendering = text::verdict(v);
        if let Some(e) = &out.estimate {
            rendering.push_str(&text::estimate(e));
        }
        let result = success(&out, rendering);
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
        let (outcome, trace) = self.engine.run_query(&args.sql).await;
        let (decision, code, row_count) = match &outcome {
            Ok(out) => (Decision::Allow, None, Some(out.row_count)),
            Err(e) if e.is_database_error() => (Decision::Error, Some(e.code), None),
            Err(e) => (Decision::Refuse, Some(e.code), None),
        };
        let result = move || match outcome {
            Ok(out) => {
                let rendering = text::run_query(&out);
                success_json(out.into_json(), rendering)
            }
            Err(e) => failure(&e),
        };
        let rec = AuditRecord {
            code,
            row_count,
            sql: Some(args.sql.clone()),
            query_class: trace.query_class,
            executed_sql: trace.executed_sql,
            ..AuditRecord::new("run_query", decision)
        };
        self.audited_while(&ctx, rec, start, result).await
    }

    /// Previews, (when the mode asks) gets approved, and commits one mutation.
    #[tool(
        name = "run_mutation",
        description = "Run one INSERT, UPDATE, DELETE or MERGE on a table the policy lets you modify. sqlgate checks it, runs it once in a transaction that is rolled back to count the rows it would change (refused above the policy's bound), asks the user to approve when the server's mode requires it, then runs it again and commits only if it changes the same number of rows. Returns affected_rows, returning (first rows of RETURNING), executed_sql, query_class, decision. A refusal returns isError with code, message and hint.",
        annotations(
            title = "Run mutation",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        ),
        output_schema = schema_for_output::<RunMutationOutput>()
    )]
    pub async fn run_mutation(
        &self,
        Parameters(args): Parameters<MutationArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let peer = ctx.peer.clone();
        let timeout = self.engine.approval_timeout();
        let ask =
            |request: ApprovalRequest| async move { approval::ask(&peer, &request, timeout).await };
        let (outcome, trace) = self.engine.run_mutation(&args.sql, ask).await;
        let (code, result) = match outcome {
            Ok(out) => (None, success(&out, text::run_mutation(&out))),
            Err(e) => (Some(e.code), failure(&e)),
        };
        let rec = AuditRecord {
            code,
            sql: Some(args.sql.clone()),
            query_class: trace.query_class,
            executed_sql: trace.executed_sql,
            preview_rows: trace.preview_rows,
            committed_rows: trace.committed_rows,
            ..AuditRecord::new("run_mutation", trace.decision)
        };
        self.audited(&ctx, rec, start, result).await
    }

    /// Verifies the audit file's hash chain.
    #[tool(
        name = "audit_verify",
        description = "Verify the hash chain of this server's audit file: records, time range, counts per decision and query class when intact; otherwise the first line that breaks it and how (edited, deleted, inserted, reordered, truncated).",
        annotations(
            title = "Verify audit log",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    pub async fn audit_verify(&self) -> Result<CallToolResult, McpError> {
        let Some(path) = self.audit.path().map(Path::to_path_buf) else {
            return Err(McpError::invalid_request(
                "no audit file is configured",
                None,
            ));
        };
        let outcome = tokio::task::spawn_blocking(move || crate::audit::verify::verify_live(&path))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
            .map_err(|e| McpError::internal_error(e, None))?;
        let v = match outcome {
            Ok(sum) => serde_json::json!({ "intact": true, "summary": sum }),
            Err(b) => serde_json::json!({
                "intact": false,
                "broken": b,
                "message": crate::audit::verify::describe(&b),
            }),
        };
        let text = serde_json::to_string_pretty(&v).unwrap_or_default();
        let mut r = CallToolResult::structured(v);
        r.content = vec![ContentBlock::text(text)];
        Ok(r)
    }

    /// Describes the server (never the database URL).
    #[tool(
        name = "server_info",
        description = "Describe this server: sqlgate version, SQL dialect, database kind, mode, row cap, statement timeout, audit sink, format and hash-chain position.",
        output_schema = schema_for_output::<ServerInfoOutput>(),
        annotations(
            title = "Server info",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    pub async fn server_info(&self) -> Result<CallToolResult, McpError> {
        let e = &self.engine;
        let chain = self.audit.chain_status().await;
        let info = ServerInfoOutput {
            sqlgate_version: env!("CARGO_PKG_VERSION").to_string(),
            dialect: e.backend().dialect().as_str().to_string(),
            database: e.backend().kind().to_string(),
            mode: e.mode().as_str().to_string(),
            row_cap: e.row_cap(),
            principal: e.principal().map(str::to_string),
            statement_timeout_ms: u64::try_from(e.statement_timeout().as_millis())
                .unwrap_or(u64::MAX),
            audit: AuditInfo {
                sink: if self.audit.path().is_some() {
                    "file"
                } else {
                    "stderr"
                }
                .to_string(),
                format: serde_json::to_value(self.audit.format())
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                chain: chain.map(|c| ChainInfo {
                    next_seq: c.next_seq,
                    last_hash: c.prev,
                }),
            },
        };
        let v = serde_json::to_value(&info).unwrap_or_default();
        let text = serde_json::to_string_pretty(&v).unwrap_or_default();
        let mut r = CallToolResult::structured(v);
        r.content = vec![ContentBlock::text(text)];
        Ok(r)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SqlGateServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "sqlgate-mcp",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(self.instructions.as_str())
    }
}
