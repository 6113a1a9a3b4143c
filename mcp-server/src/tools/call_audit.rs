//! Every `tools/call` leaves an audit record, whatever becomes of it. A tool's own handler
//! writes its record (see [`super::SqlGateServer`]); this module covers the calls no handler
//! records: a tool this server does not have (`tool_not_found`) or does not publish to the
//! caller (`tool_not_available`: its mode, `--tools`, no audit file), both answered with
//! JSON-RPC's "tool not found" so that the answer does not tell them apart; and a call whose
//! arguments rmcp refused before the handler ran (`bad_request`).
//!
//! Whether the handler wrote a record is tracked per call by a task-local flag: rmcp awaits the
//! handler inside [`super::SqlGateServer`]'s `call_tool`, on the same task.

use std::cell::Cell;
use std::future::Future;
use std::time::Instant;

use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{CallToolRequestParams, CallToolResponse, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use super::SqlGateServer;
use crate::audit::{AuditRecord, Decision};
use crate::codes::{AccessCode, ToolCode};

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
        if !recorded {
            let rec = unrecorded(&name, arguments.as_ref(), &outcome);
            self.audited(&ctx, rec, start, ()).await?;
        }
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
