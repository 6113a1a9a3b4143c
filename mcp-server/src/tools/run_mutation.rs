//! The `run_mutation` tool: its arguments, how the user is asked (elicitation in a session, or
//! `input_required` on protocol 2026-07-28), its handler over the engine's mutation flow
//! ([`super::mutation_flow`], shared with `run_mutations`) and its text rendering.

// ToolError is the structured content of a refusal; results carry it by value on purpose.
#![allow(clippy::result_large_err)]

use std::time::Instant;

use rmcp::model::{CallToolResponse, CallToolResult, InputResponses, ProtocolVersion};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::audit::{AuditRecord, Decision};
use crate::codes::{MutationCode, ToolCode};
use crate::gate::error::ToolError;
use crate::gate::Engine;
use crate::tools::approval::{self, ApprovalAnswer, ApprovalRequest};
use crate::tools::approval_state;
use crate::tools::caller::caller_of;
use crate::tools::mutation_output::{
    MutationOutcome, MutationStatus, MutationsOutput, RunMutationOutput,
};
use crate::tools::result::{failure, success};
use crate::tools::text::push_row;

/// Arguments of `run_mutation`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MutationArgs {
    /// One INSERT, UPDATE, DELETE or MERGE on a writable table (see server_info / instructions).
    pub sql: String,
}

/// How the user is asked, when the mode wants an approval.
pub enum Asking {
    /// By `elicitation/create` in the client's session (protocol revisions before 2026-07-28).
    Elicit(Peer<RoleServer>),
    /// By `input_required` (2026-07-28): the first call previews and asks; its retry brings
    /// the sealed state and the user's answer.
    InputRequired {
        /// The retry's `requestState`.
        state: Option<String>,
        /// The retry's `inputResponses`.
        responses: Option<InputResponses>,
        /// The caller the state is bound to ([`approval_state::caller_binding`]).
        caller: String,
        /// Whether the client announced elicitation.
        can_elicit: bool,
    },
}

/// The `run_mutation` tool: runs `args.sql`, asking the user as `asking` says when the mode
/// wants an approval; returns the audit record and the result.
pub async fn handle(
    engine: &Engine,
    args: &MutationArgs,
    asking: Asking,
) -> (AuditRecord, CallToolResponse) {
    let statements = [args.sql.clone()];
    respond(engine, "run_mutation", &statements, asking, |out| {
        let one = RunMutationOutput::of_one(out);
        success(&one, render(&one))
    })
    .await
}

/// A mutation tool's call: the statements run through the engine's flow, the user asked as
/// `asking` says, the result (`committed` rendered by `committed`, the question, or the
/// refusal) and its audit record.
pub async fn respond(
    engine: &Engine,
    tool: &'static str,
    statements: &[String],
    asking: Asking,
    committed: impl FnOnce(MutationsOutput) -> CallToolResult,
) -> (AuditRecord, CallToolResponse) {
    let timeout = engine.approval_timeout();
    let mode = engine.mode().as_str();
    let (outcome, trace, caller) = match asking {
        Asking::Elicit(peer) => {
            let ask = |request: ApprovalRequest| async move {
                approval::ask(&peer, &request, timeout).await
            };
            let (outcome, trace) = engine.run_mutations(tool, statements, ask).await;
            (outcome, trace, String::new())
        }
        Asking::InputRequired {
            state,
            responses,
            caller,
            can_elicit,
        } => {
            let state = match state
                .as_deref()
                .map(|s| approval_state::open(engine.approvals(), s))
            {
                Some(Err(e)) => return refused_state(tool, statements, e),
                Some(Ok(s)) => Some(s),
                None => None,
            };
            let until = Instant::now() + timeout;
            let ledger = engine.approvals();
            let binding = (caller.as_str(), mode);
            let ask = |request: ApprovalRequest| {
                std::future::ready(match (&state, can_elicit) {
                    (Some(st), _) => approval_state::answer(
                        ledger,
                        st,
                        &request,
                        binding,
                        responses.as_ref(),
                        until,
                    ),
                    (None, true) => ApprovalAnswer::Ask,
                    (None, false) => ApprovalAnswer::Unavailable,
                })
            };
            let (outcome, trace) = engine.run_mutations(tool, statements, ask).await;
            (outcome, trace, caller)
        }
    };
    let (code, result) = match outcome {
        Ok(MutationOutcome::Committed(out)) => (None, committed(out).into()),
        Ok(MutationOutcome::Asking(request)) => {
            match approval_state::ask(engine.approvals(), &request, &caller, mode, timeout) {
                Ok(ask) => (None, ask.into()),
                Err(e) => (Some(e.code), mutation_failure(&e).into()),
            }
        }
        Err(e) => (Some(e.code), mutation_failure(&e).into()),
    };
    let rec = AuditRecord {
        code,
        sql: Some(statements.join(";\n")),
        query_class: trace.query_class,
        executed_sql: trace.executed_sql,
        preview_rows: trace.preview_rows,
        committed_rows: trace.committed_rows,
        ..AuditRecord::new(tool, trace.decision)
    };
    (rec, result)
}

/// A mutation's refusal: the error, with `status` `rejected` (the user declined) or `failed`.
pub fn mutation_failure(e: &ToolError) -> CallToolResult {
    let mut r = failure(e);
    let status = if e.code == ToolCode::Mutation(MutationCode::ApprovalDeclined) {
        MutationStatus::Rejected
    } else {
        MutationStatus::Failed
    };
    if let Some(serde_json::Value::Object(o)) = r.structured_content.as_mut() {
        o.insert("status".into(), serde_json::json!(status));
    }
    r
}

/// How this call's user is asked: by `input_required` when the request is on protocol
/// 2026-07-28 or later (no session to send an elicitation on), else by elicitation.
pub fn asking(
    ctx: &RequestContext<RoleServer>,
    state: Option<String>,
    responses: Option<InputResponses>,
    engine: &Engine,
) -> Asking {
    let stateless = ctx
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if !stateless && state.is_none() {
        return Asking::Elicit(ctx.peer.clone());
    }
    let caller = caller_of(ctx);
    let vars = caller
        .as_ref()
        .and_then(|c| c.vars.as_ref())
        .map(|v| serde_json::to_string(v).unwrap_or_default());
    let auth = caller.as_ref().map(|c| c.auth.as_str());
    let issuer = caller.as_ref().and_then(|c| c.issuer.as_deref());
    let subject = caller.as_ref().and_then(|c| c.subject.as_deref());
    Asking::InputRequired {
        state,
        responses,
        caller: approval_state::caller_binding(&[
            engine.principal(),
            auth,
            issuer,
            subject,
            vars.as_deref(),
        ]),
        can_elicit: ctx
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some()),
    }
}

/// A retry whose state does not open: refused before anything runs.
fn refused_state(
    tool: &'static str,
    statements: &[String],
    e: ToolError,
) -> (AuditRecord, CallToolResponse) {
    let rec = AuditRecord {
        code: Some(e.code),
        sql: Some(statements.join(";\n")),
        ..AuditRecord::new(tool, Decision::Refuse)
    };
    (rec, mutation_failure(&e).into())
}

/// `run_mutation`'s result: the count, the decision, the RETURNING rows, the SQL.
pub fn render(out: &RunMutationOutput) -> String {
    let rows = if out.affected_rows == 1 {
        "row"
    } else {
        "rows"
    };
    let mut s = format!(
        "Committed: {} {rows} changed in {} ({}, decision {}) in {:.1} ms.\nExecuted: {}",
        out.affected_rows,
        out.target,
        out.query_class.as_str(),
        serde_json::to_value(out.decision)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        out.duration_ms,
        out.executed_sql
    );
    if let Some(first) = out.returning.first() {
        let names: Vec<&String> = first.keys().collect();
        s.push_str(&format!("\n\nReturning:\n| {} |\n", join(&names)));
        let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
        for row in &out.returning {
            push_row(&mut s, &names, row);
        }
        if out.returning_truncated {
            s.push_str("(more rows returned than shown)\n");
        }
    }
    s
}

fn join(names: &[&String]) -> String {
    names
        .iter()
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(" | ")
}
