//! Every `tools/call` leaves an audit record, whatever becomes of it. A tool's own handler
//! writes its record (see [`super::SqlGateServer`]); this module covers the calls no handler
//! records: a tool this server does not have (`tool_not_found`) or does not publish to the
//! caller (`tool_not_available`: its mode, `--tools`, no audit file), both answered with
//! JSON-RPC's "tool not found" so that the answer does not tell them apart; and a call whose
//! arguments rmcp refused before the handler ran (`bad_request`), answered as every other
//! refusal is (structured content with a code and a hint naming the arguments the tool takes)
//! instead of rmcp's bare serde text.
//!
//! Whether the handler wrote a record is tracked per call by a task-local flag: rmcp awaits the
//! handler inside [`super::SqlGateServer`]'s `call_tool`, on the same task.

use std::cell::Cell;
use std::future::Future;
use std::time::Instant;

use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, JsonObject, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use super::SqlGateServer;
use crate::audit::{AuditRecord, Decision};
use crate::codes::{AccessCode, ToolCode};
use crate::tools::error::ToolError;

/// The longest tool name a record keeps (MCP names are at most 64 characters; anything longer
/// is the caller's text, kept as a prefix).
const MAX_NAME_CHARS: usize = 128;

tokio::task_local! {
    static AUDITED: Cell<bool>;
}

impl SqlGateServer {
    /// `tools/call`: the tool's own handler (which audits the call), or, for a call no handler
    /// records (a tool not published to this caller, arguments rmcp refused), a record of its
    /// own.
    pub(super) async fn call_tool_audited(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let start = Instant::now();
        let name = request.name.to_string();
        if !self.tool_router.has_route(&name) {
            let known = Self::all_tool_names().contains(&name);
            self.audited(&context, unserved(&name, known), start, ())
                .await?;
            return Err(McpError::invalid_params("tool not found", None));
        }
        let arguments = request.arguments.clone();
        let ctx = context.clone();
        let call = ToolCallContext::new(self, request, context);
        let (outcome, recorded) = tracking(self.tool_router.call(call)).await;
        if recorded {
            return outcome;
        }
        let outcome = match outcome {
            Ok(CallToolResponse::Complete(refused)) if is_argument_error(&refused) => {
                let e = argument_error(&name, &refused, self.tool_router.get(&name));
                Ok(super::result::failure(&e).into())
            }
            other => other,
        };
        let rec = unrecorded(&name, arguments.as_ref(), &outcome);
        self.audited(&ctx, rec, start, ()).await?;
        outcome
    }
}

/// Runs one call's handling, and says whether a record of it was written.
pub async fn tracking<F: Future>(f: F) -> (F::Output, bool) {
    AUDITED
        .scope(Cell::new(false), async {
            let out = f.await;
            (out, AUDITED.with(Cell::get))
        })
        .await
}

/// Notes that the current call's record is being written.
pub fn mark_audited() {
    let _ = AUDITED.try_with(|a| a.set(true));
}

fn bounded(name: &str) -> String {
    name.chars().take(MAX_NAME_CHARS).collect()
}

/// The record of a call to `name`, which this server has (`known`) but does not publish to the
/// caller, or does not have at all.
pub fn unserved(name: &str, known: bool) -> AuditRecord {
    let code = if known {
        AccessCode::ToolNotAvailable
    } else {
        AccessCode::ToolNotFound
    };
    AuditRecord {
        code: Some(code.into()),
        ..AuditRecord::new(&bounded(name), Decision::Refuse)
    }
}

/// True for rmcp's answer to arguments it could not read into the tool's parameters: an error
/// result with text only (every handler's own error carries structured content).
fn is_argument_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true) && result.structured_content.is_none()
}

/// The refusal of a call to `name` whose arguments did not fit its input schema: rmcp's
/// message (serde's: which field is missing, unknown or of the wrong type) and a hint naming
/// the arguments `tool` takes.
fn argument_error(name: &str, refused: &CallToolResult, tool: Option<&Tool>) -> ToolError {
    let said: Vec<&str> = refused
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect();
    let said = said.join(" ");
    let said = said
        .strip_prefix("failed to deserialize parameters:")
        .unwrap_or(&said)
        .trim();
    let message = format!(
        "the arguments of `{}` are not what it takes: {said}",
        bounded(name)
    );
    let hint = tool.map(|t| expected_arguments(&t.input_schema));
    ToolError::bad_request(message, hint.as_deref())
}

/// `send {"sql": <string>}; optional: ...`, from a tool's input schema.
fn expected_arguments(schema: &JsonObject) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(|p| p.as_object()) else {
        return String::from("send the arguments its input schema (tools/list) names");
    };
    let describe = |name: &str| {
        let kind = properties
            .get(name)
            .and_then(|p| p.get("type"))
            .map(|t| match t {
                serde_json::Value::Array(kinds) => kinds
                    .iter()
                    .filter_map(|k| k.as_str())
                    .collect::<Vec<_>>()
                    .join(" or "),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .unwrap_or_else(|| String::from("value"));
        format!("\"{name}\": <{kind}>")
    };
    let must: Vec<String> = required.iter().map(|n| describe(n)).collect();
    let may: Vec<String> = properties
        .keys()
        .filter(|k| !required.contains(&k.as_str()))
        .map(|k| describe(k))
        .collect();
    let mut hint = format!("send {{{}}}", must.join(", "));
    if !may.is_empty() {
        hint.push_str(&format!("; optional: {}", may.join(", ")));
    }
    hint.push_str(" (the tool's input schema in tools/list)");
    hint
}

/// The record of a call to `name` that its handler did not record: rmcp refused its
/// `arguments` (or failed the call) before the handler ran. The SQL it carried, if any, is
/// kept as for any call.
pub fn unrecorded(
    name: &str,
    arguments: Option<&JsonObject>,
    outcome: &Result<CallToolResponse, McpError>,
) -> AuditRecord {
    let sql = arguments
        .and_then(|a| a.get("sql"))
        .and_then(|s| s.as_str())
        .map(str::to_string);
    let decision = match outcome {
        Ok(_) => Decision::Refuse,
        Err(_) => Decision::Error,
    };
    AuditRecord {
        code: Some(ToolCode::Guard(sqlgate::ErrorCode::BadRequest)),
        sql,
        ..AuditRecord::new(&bounded(name), decision)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_flag_says_whether_the_handler_recorded() {
        let ((), written) = tracking(async { mark_audited() }).await;
        assert!(written);
        let ((), written) = tracking(async {}).await;
        assert!(!written);
        // Outside a call: nothing to note, and no panic.
        mark_audited();
    }

    #[test]
    fn an_argument_error_names_what_the_tool_takes() {
        let schema: JsonObject = serde_json::from_value(serde_json::json!({
            "type": "object",
            "properties": {"sql": {"type": "string"}, "max_rows": {"type": ["integer", "null"]}},
            "required": ["sql"],
        }))
        .unwrap_or_default();
        let tool = Tool::new("run_query", "runs a query", std::sync::Arc::new(schema));
        let refused = CallToolResult::error(vec![rmcp::model::ContentBlock::text(
            "failed to deserialize parameters: missing field `sql`",
        )]);
        assert!(is_argument_error(&refused));
        let e = argument_error("run_query", &refused, Some(&tool));
        assert_eq!(e.code, ToolCode::Guard(sqlgate::ErrorCode::BadRequest));
        assert_eq!(
            e.message,
            "the arguments of `run_query` are not what it takes: missing field `sql`"
        );
        assert_eq!(
            e.hint.as_deref(),
            Some(
                r#"send {"sql": <string>}; optional: "max_rows": <integer or null> (the tool's input schema in tools/list)"#
            )
        );
        // A handler's own refusal carries structured content: not rmcp's argument error.
        assert!(!is_argument_error(&crate::tools::result::failure(&e)));
    }

    #[test]
    fn names_are_bounded_and_coded() {
        let long = "x".repeat(10_000);
        let r = unserved(&long, false);
        assert_eq!(r.tool.chars().count(), MAX_NAME_CHARS);
        assert_eq!(r.code, Some(AccessCode::ToolNotFound.into()));
        assert_eq!(
            unserved("run_mutation", true).code,
            Some(AccessCode::ToolNotAvailable.into())
        );
    }
}
