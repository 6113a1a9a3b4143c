//! A published query (`[[queries]]`) as an MCP tool of its own: its input schema from the
//! parameters' types, `readOnlyHint`, `run_query`'s output schema; a call binds the arguments
//! ([`PublishedQuery::bind`]) and runs through `run_query`'s path ([`Engine::run_checked`]).

use std::sync::Arc;
use std::time::Instant;

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{json, Map, Value};

use crate::audit::AuditRecord;
use crate::gate::published::PublishedQuery;
use crate::gate::{Engine, RunQueryOutput};
use crate::tools::read::run_query::answered;
use crate::tools::{quota_key, SqlGateServer};

/// The tool describing `q`.
pub fn tool_for(q: &PublishedQuery) -> Tool {
    let properties: Map<String, Value> = q
        .params
        .iter()
        .map(|(name, spec)| {
            let mut p = json!({ "type": spec.ty.json_type() });
            if let Some(d) = &spec.description {
                p["description"] = Value::String(d.clone());
            }
            (name.clone(), p)
        })
        .collect();
    let required: Vec<&String> = q.params.keys().collect();
    let schema = json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    });
    let schema: JsonObject = match schema {
        Value::Object(o) => o,
        _ => JsonObject::new(),
    };
    let annotations = ToolAnnotations::with_title(q.name.clone())
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    Tool::new(q.name.clone(), q.description.clone(), Arc::new(schema))
        .with_raw_output_schema(schema_for_output::<RunQueryOutput>())
        .with_annotations(annotations)
}

/// Runs `q` with `args` on `engine`; returns the audit record and a closure building the
/// result, as `run_query` does. The record's `sql` is the query's text (its placeholders), the
/// values stay out of it as they stay out of the SQL.
pub async fn handle(
    engine: &Engine,
    q: &PublishedQuery,
    args: Option<&JsonObject>,
) -> (AuditRecord, impl FnOnce() -> CallToolResult) {
    let (outcome, trace) = match q.bind(args) {
        Ok(params) => {
            let cap = q.row_cap(engine.row_cap());
            engine.run_checked(&q.sql, Some(&params), cap).await
        }
        Err(e) => (Err(e.into()), Default::default()),
    };
    answered(q.name.as_str(), q.sql.clone(), outcome, trace)
}

impl SqlGateServer {
    /// Adds a tool for each published query `engine`'s principal sees.
    pub(crate) fn publish_queries(router: &mut ToolRouter<SqlGateServer>, engine: &Engine) {
        for q in &engine.published().queries {
            if !q.visible_to(engine.principal()) {
                continue;
            }
            let route =
                ToolRoute::new_dyn(tool_for(q), |ctx: ToolCallContext<'_, SqlGateServer>| {
                    let (service, name) = (ctx.service, ctx.name.to_string());
                    let (args, rc) = (ctx.arguments, ctx.request_context);
                    Box::pin(async move {
                        service
                            .call_published(&name, args.as_ref(), rc)
                            .await
                            .map(Into::into)
                    })
                });
            router.add_route(route);
        }
    }

    /// One call of the published query `name`, quota and audit as `run_query`'s.
    async fn call_published(
        &self,
        name: &str,
        args: Option<&JsonObject>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let start = Instant::now();
        let published = self.engine.published();
        let Some(q) = published.query(name) else {
            return Err(McpError::invalid_params(format!("no tool `{name}`"), None));
        };
        match self.engine_for(&ctx, name) {
            Ok(engine) => {
                let (rec, result) = handle(&engine, q, args).await;
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
