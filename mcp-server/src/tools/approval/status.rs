//! The `approval_status` tool (listed in a write mode with an external approver): follows an
//! `approval_request_id` that `run_mutation` / `run_mutations` answered `pending` with. The
//! approver is asked again ([`super::external`]): `pending` and `rejected` are answered
//! as such (not errors, nothing changed); once it has approved, the statements are checked,
//! previewed and bounded again from the start and commit only if the preview is the one the
//! approver saw, at most once. Its route is merged into the server's router
//! ([`SqlGateServer::status_router`]).

// ToolError is the structured content of a refusal; results carry it by value on purpose.
#![allow(clippy::result_large_err)]

use std::time::Instant;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::audit::chain::sha256_hex;
use crate::audit::{AuditRecord, Decision};
use crate::codes::BuiltinTool;
use crate::gate::approval::{ApprovalAnswer, ApprovalRequest};
use crate::gate::Engine;
use crate::tools::approval::external::{self, PendingApproval, Verdict};
use crate::tools::error::ToolError;
use crate::tools::result::success;
use crate::tools::write::output::{mutation_failure, MutationOutcome, RunMutationOutput};
use crate::tools::write::run_mutation::{self, caller_binding_of};
use crate::tools::write::run_mutations;
use crate::tools::{quota_key, SqlGateServer};

/// Arguments of `approval_status`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalStatusArgs {
    /// The `approval_request_id` a mutation tool answered `pending` with.
    pub approval_request_id: String,
}

#[tool_router(router = status_router, vis = "pub(crate)")]
impl SqlGateServer {
    /// Follows an external approval: pending, rejected, or committed once approved.
    #[tool(
        name = "approval_status",
        description = "Follow a mutation that is waiting for the external approver: pass the approval_request_id that run_mutation or run_mutations answered with status pending. Answers status pending (ask again later) or rejected (nothing changed), or, once the approver has approved, checks and previews the statements again and commits them (status committed, with the mutation tool's result). A refusal returns isError with code, message and hint.",
        annotations(
            title = "Approval status",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    pub async fn approval_status(
        &self,
        Parameters(args): Parameters<ApprovalStatusArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine_for(&ctx, BuiltinTool::ApprovalStatus.as_str()) {
            Ok(engine) => {
                let caller = caller_binding_of(&ctx, &engine);
                let (rec, result) = handle(&engine, &args.approval_request_id, &caller).await;
                if rec.committed_rows.is_some() {
                    engine
                        .quota()
                        .record_mutation(&quota_key(&ctx), Instant::now());
                }
                (rec, result.into())
            }
            Err(refused) => {
                let (rec, result) = *refused;
                (rec, result.into())
            }
        };
        self.audited(&ctx, rec, start, result).await
    }
}

fn record(pending: Option<&PendingApproval>, decision: Decision) -> AuditRecord {
    AuditRecord {
        sql: pending.map(|p| p.statements.join(";\n")),
        ..AuditRecord::new(BuiltinTool::ApprovalStatus.as_str(), decision)
    }
}

fn refused(pending: Option<&PendingApproval>, e: &ToolError) -> (AuditRecord, CallToolResult) {
    let rec = AuditRecord {
        code: Some(e.code),
        ..record(pending, Decision::Refuse)
    };
    (rec, mutation_failure(e))
}

/// `approval_status`: the approver asked again; pending, rejected, or committed.
pub async fn handle(engine: &Engine, id: &str, caller: &str) -> (AuditRecord, CallToolResult) {
    let pending = match external::open(engine, id, caller) {
        Ok(p) => p,
        Err(e) => return refused(None, &e),
    };
    let reply = match external::ask(engine, id, &pending).await {
        Ok(r) => r,
        Err(e) => return refused(Some(&pending), &e),
    };
    if reply.decision != Verdict::Approved {
        let (decision, result) = external::undecided(id, &pending, &reply);
        return (record(Some(&pending), decision), result);
    }
    commit(engine, id, &pending, reply.reference.as_deref()).await
}

/// The approver said yes: everything runs again, and commits only for the preview it saw, once.
async fn commit(
    engine: &Engine,
    id: &str,
    pending: &PendingApproval,
    reference: Option<&str>,
) -> (AuditRecord, CallToolResult) {
    let (tool, batch) = match BuiltinTool::named(&pending.tool) {
        Some(BuiltinTool::RunMutations) => (BuiltinTool::RunMutations.as_str(), true),
        _ => (BuiltinTool::RunMutation.as_str(), false),
    };
    let ledger = engine.approvals();
    let until = Instant::now() + engine.approval_timeout();
    let approve = |request: ApprovalRequest| {
        std::future::ready(if request.tool != pending.tool {
            ApprovalAnswer::StateForOtherTool
        } else if sha256_hex(request.sql.as_bytes()) != sha256_hex(pending.sql.as_bytes()) {
            ApprovalAnswer::StateForOtherSql
        } else if !ledger.use_once(&pending.nonce, until) {
            ApprovalAnswer::StateReplayed
        } else if request.preview_rows != pending.preview_rows
            || request.preview_digest != pending.preview_digest
        {
            ApprovalAnswer::Changed
        } else {
            ApprovalAnswer::Accepted
        })
    };
    let (outcome, trace) = engine
        .run_mutations_claiming(tool, &pending.statements, Some(&pending.nonce), approve)
        .await;
    let (code, mut result) = match outcome {
        Ok(MutationOutcome::Committed(mut out)) => {
            out.approval_wait_ms = Some(external::waited_ms(pending));
            let result = if batch {
                success(&out, run_mutations::render(&out))
            } else {
                let one = RunMutationOutput::of_one(out);
                success(&one, run_mutation::render(&one))
            };
            (None, result)
        }
        Ok(MutationOutcome::Asking(_)) => {
            let e = ToolError::bad_request("the approval was not settled", None);
            (Some(e.code), mutation_failure(&e))
        }
        Err(e) => (Some(e.code), mutation_failure(&e)),
    };
    if let Some(serde_json::Value::Object(o)) = result.structured_content.as_mut() {
        o.insert("approval_request_id".into(), json!(id));
        if let Some(r) = reference {
            o.insert("approver_reference".into(), json!(r));
        }
    }
    let rec = AuditRecord {
        code,
        query_class: trace.query_class,
        executed_sql: trace.executed_sql,
        preview_rows: trace.preview_rows,
        committed_rows: trace.committed_rows,
        ..record(Some(pending), trace.decision)
    };
    (rec, result)
}
