//! The MCP server: ten tools (`list_schemas`, `list_tables`, `describe_table`, `validate_query`, `run_query`,
//! `run_mutation` and `run_mutations` in a write mode, `approval_status` with an external
//! approver, `audit_verify`, `server_info`) and one per published query ([`read::published_query`])
//! over an [`Engine`], with output schemas, structured content, a text rendering and the MCP
//! hints; and [`prompts`]. Every call is audited, each tool's (`server_info` and `audit_verify`
//! included) with one record; so is a call to a tool this caller is not served, and one whose
//! arguments rmcp refused ([`call_audit`]).
//!
//! Grouped by what a reader looks for: [`read`] (the schema tools, `validate_query`,
//! `run_query`, published queries), [`write`] (`run_mutation`, `run_mutations`), [`approval`]
//! (elicitation, `input_required`, the external approver and `approval_status`); each group's
//! router is merged into the server's. One tool per file (its arguments, handler and text
//! rendering); a router holds only each tool's name, description, schema and annotations, and
//! the audit of its call. Here: the server (the router of `audit_verify` and `server_info`, the
//! engine for a caller, the audit of every call), and what every group shares: the caller
//! ([`caller`]), the error shape ([`error`]), arguments, results and text.

pub mod approval;
pub mod args;
pub mod audit_verify;
pub mod call_audit;
pub mod caller;
pub mod error;
pub mod hints;
pub mod instructions;
mod listing;
pub mod prompts;
pub mod read;
pub mod result;
pub mod server_info;
pub mod text;
pub mod write;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use futures::future::join;
use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    CallToolResponse, CallToolResult, Implementation, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};

use crate::audit::{Audit, AuditRecord, Decision};
use crate::codes::{BuiltinTool, ToolKind};
use crate::gate::error::GateError;
use crate::gate::Engine;
use crate::tools::caller::{caller_of, identity_of, Caller};
use crate::tools::error::ToolError;
pub use args::SqlArgs;
pub use instructions::instructions;
pub use read::describe_table::DescribeTableArgs;
pub use read::list_tables::ListTablesArgs;
pub use server_info::{AuditInfo, ChainInfo, ServerInfoOutput};
pub use write::run_mutation::MutationArgs;

/// The MCP server.
#[derive(Clone)]
pub struct SqlGateServer {
    engine: Arc<Engine>,
    audit: Audit,
    instructions: Arc<String>,
    tool_router: ToolRouter<SqlGateServer>,
}

fn client_of(ctx: &RequestContext<RoleServer>) -> (Option<String>, Option<String>) {
    match ctx.client_info() {
        Some(i) => (Some(i.name.clone()), Some(i.version.clone())),
        None => (None, None),
    }
}

/// Whose quota windows a call counts in: its caller's identity (one caller over stdio and
/// without authentication).
pub(crate) fn quota_key(ctx: &RequestContext<RoleServer>) -> String {
    identity_of(ctx).unwrap_or_default()
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
        let mut tool_router = Self::every_tool();
        // The mutation tools exist only in a write mode: a read-only server does not list them;
        // approval_status only with an external approver to follow.
        let external = engine.approvals().external().is_some();
        for tool in BuiltinTool::ALL {
            let served = match tool.kind() {
                ToolKind::Read | ToolKind::Server => true,
                ToolKind::Write => engine.mode().writes(),
                ToolKind::Approval => engine.mode().writes() && external,
            };
            if !served {
                tool_router.remove_route(tool.as_str());
            }
        }
        // audit_verify checks the configured file: without one there is nothing to verify.
        if audit.path().is_none() {
            tool_router.remove_route(BuiltinTool::AuditVerify.as_str());
        }
        // --tools: the rest are neither listed nor callable.
        if let Some(enabled) = engine.enabled_tools() {
            for t in tool_router.list_all() {
                if !enabled.iter().any(|e| *e == t.name) {
                    tool_router.remove_route(&t.name);
                }
            }
        }
        Self::publish_queries(&mut tool_router, &engine);
        SqlGateServer {
            engine,
            audit,
            instructions,
            tool_router,
        }
    }

    /// The routes of every built-in tool, before the mode and the flags remove some.
    fn every_tool() -> ToolRouter<Self> {
        Self::tool_router()
            + Self::schema_router()
            + Self::read_router()
            + Self::write_router()
            + Self::status_router()
    }

    /// Every tool this server can publish (built-in; published queries are not).
    pub fn all_tool_names() -> &'static [String] {
        static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        NAMES.get_or_init(|| {
            let tools = Self::every_tool().list_all();
            tools.into_iter().map(|t| t.name.to_string()).collect()
        })
    }

    /// The engine serving this call: the session's, or the one for the variables and mode the
    /// caller's verified token binds. A refusal comes back ready to audit and return.
    fn engine_for(
        &self,
        ctx: &RequestContext<RoleServer>,
        tool: &str,
    ) -> Result<Arc<Engine>, Box<(AuditRecord, CallToolResult)>> {
        let refuse = |e: ToolError| {
            let mut rec = AuditRecord::new(tool, Decision::Refuse);
            rec.code = Some(e.code);
            Box::new((rec, result::failure(&e)))
        };
        let engine = match caller_of(ctx) {
            None => self.engine.clone(),
            Some(caller) => {
                let writes = BuiltinTool::named(tool).is_some_and(BuiltinTool::writes);
                if let (Some(scope), true) = (&caller.missing_write_scope, writes) {
                    return Err(refuse(ToolError::from(GateError::InsufficientScope {
                        tool: tool.to_string(),
                        scope: scope.clone(),
                    })));
                }
                self.engine
                    .for_caller(caller.vars.as_ref(), caller.missing_write_scope.is_none())
                    .map_err(|e| refuse(e.into()))?
            }
        };
        // The principal's quota, counted per caller: every call counts, and a read or a write
        // needs room too.
        let (quota, now, who) = (engine.quota(), Instant::now(), quota_key(ctx));
        let admitted = quota
            .admit_call(&who, now)
            .and_then(|()| match BuiltinTool::named(tool) {
                Some(BuiltinTool::RunQuery) => quota.admit_rows(&who, now),
                Some(t) if t.kind() == ToolKind::Write => quota.admit_mutation(&who, now),
                _ if self.engine.published().query(tool).is_some() => quota.admit_rows(&who, now),
                _ => Ok(()),
            });
        admitted.map_err(|e| refuse(GateError::Quota(e).into()))?;
        Ok(engine)
    }

    async fn audited<T>(
        &self,
        ctx: &RequestContext<RoleServer>,
        record: AuditRecord,
        start: Instant,
        result: T,
    ) -> Result<T, McpError> {
        self.audited_while(ctx, record, start, move || result).await
    }

    /// As [`Self::audited`], building the result while the audit writer stores the record (on
    /// its own thread): the result of a large read takes a while to render, and the call returns
    /// only once both are done.
    async fn audited_while<T>(
        &self,
        ctx: &RequestContext<RoleServer>,
        mut record: AuditRecord,
        start: Instant,
        result: impl FnOnce() -> T,
    ) -> Result<T, McpError> {
        call_audit::mark_audited();
        let (client, version) = client_of(ctx);
        record.client = client;
        record.client_version = version;
        record.principal = self.engine.principal().map(str::to_string);
        if let Some(c) = caller_of(ctx) {
            let Caller {
                auth,
                issuer,
                subject,
                client_id,
                ..
            } = c;
            record.auth = Some(auth);
            record.auth_issuer = issuer;
            record.auth_subject = subject;
            record.auth_client_id = client_id;
        }
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
                tracing::error!(tool = %tool, "audit log write failed ({e}); {tool} continues (--audit-failure strict_mutations)");
                Ok(result)
            }
            Err(e) => Err(McpError::internal_error(
                format!("audit log write failed, so the call was not completed: {e}"),
                None,
            )),
        }
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
    pub async fn audit_verify(
        &self,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let (rec, outcome) = match self.engine_for(&ctx, BuiltinTool::AuditVerify.as_str()) {
            Ok(_) => {
                let outcome = audit_verify::handle(self.audit.path().map(Path::to_path_buf)).await;
                let decision = match outcome {
                    Ok(_) => Decision::Allow,
                    Err(_) => Decision::Error,
                };
                (
                    AuditRecord::new(BuiltinTool::AuditVerify.as_str(), decision),
                    outcome,
                )
            }
            Err(refused) => {
                let (rec, result) = *refused;
                (rec, Ok(result))
            }
        };
        match outcome {
            Ok(result) => self.audited(&ctx, rec, start, result).await,
            // The failed call is recorded too; the client gets the error, not the placeholder.
            Err(e) => {
                let placeholder = CallToolResult::error(Vec::new());
                self.audited(&ctx, rec, start, placeholder).await?;
                Err(e)
            }
        }
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
    pub async fn server_info(
        &self,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine_for(&ctx, BuiltinTool::ServerInfo.as_str()) {
            Ok(engine) => (
                AuditRecord::new(BuiltinTool::ServerInfo.as_str(), Decision::Allow),
                server_info::handle(&engine, &self.audit).await,
            ),
            Err(refused) => *refused,
        };
        self.audited(&ctx, rec, start, result).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SqlGateServer {
    /// The tool's own handler (which audits the call), or, for a call no handler records (a
    /// tool not published to this caller, arguments rmcp refused), a record of its own
    /// ([`call_audit`]).
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.call_tool_audited(request, context).await
    }

    /// The tools, less the mutation tools for a caller whose token lacks the write scope (a
    /// verified caller's list is private to it: [`listing`]).
    async fn list_tools(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListToolsResult, McpError> {
        Ok(listing::tools_for(self.tool_router.list_all(), &context))
    }

    async fn list_prompts(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, McpError> {
        Ok(listing::prompts_for(prompts::list(&self.engine), &context))
    }

    async fn get_prompt(
        &self,
        request: rmcp::model::GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetPromptResponse, McpError> {
        prompts::get(&self.engine, &request.name, request.arguments.as_ref())
            .await
            .map(Into::into)
    }

    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools();
        ServerConfig::new(capabilities.enable_prompts().build())
            .with_server_info(Implementation::new(
                "sqlgate-mcp",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(self.instructions.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The routers' tools are the declared built-in tools, and each one's annotations say what
    /// its kind is: the name in a `#[tool]` attribute cannot drift from [`BuiltinTool`].
    #[test]
    fn the_routes_are_the_declared_tools_with_their_kinds() {
        let mut routed: Vec<String> = SqlGateServer::all_tool_names().to_vec();
        let mut declared: Vec<String> = BuiltinTool::ALL
            .iter()
            .map(|t| t.as_str().to_string())
            .collect();
        routed.sort_unstable();
        declared.sort_unstable();
        assert_eq!(routed, declared);
        for tool in SqlGateServer::every_tool().list_all() {
            let kind = BuiltinTool::named(&tool.name).map(BuiltinTool::kind);
            let read_only = tool.annotations.and_then(|a| a.read_only_hint);
            let reads = matches!(kind, Some(ToolKind::Read | ToolKind::Server));
            assert_eq!(read_only, Some(reads), "{}", tool.name);
        }
    }
}
