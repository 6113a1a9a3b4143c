//! The `run_mutation` tool: its arguments, how the user is asked (elicitation in a session, or
//! `input_required` on protocol 2026-07-28), its handler over the engine's mutation flow
//! ([`super::flow`], shared with `run_mutations`) and its text rendering.

// ToolError is the structured content of a refusal; results carry it by value on purpose.
#![allow(clippy::result_large_err)]

use std::time::Instant;

use rmcp::model::{CallToolResponse, CallToolResult, InputResponses, ProtocolVersion};
use rmcp::service::RequestContext;
use rmcp::{Peer, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::audit::{AuditRecord, Decision};
use crate::codes::BuiltinTool;
use crate::gate::approval::ApprovalRequest;
use crate::gate::write::MutationTrace;
use crate::gate::Engine;
use crate::tools::approval::elicitation;
use crate::tools::approval::external;
use crate::tools::approval::input_required;
use crate::tools::caller::identity_of;
use crate::tools::error::ToolError;
use crate::tools::result::success;
use crate::tools::text::push_row;
use crate::tools::write::output::{
    mutation_failure, MutationOutcome, MutationsOutput, RunMutationOutput,
};

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
        /// The caller the state is bound to ([`input_required::caller_binding`]).
        caller: String,
        /// Whether the client announced elicitation.
        can_elicit: bool,
    },
    /// By the external approver (`approval = { webhook = ... }`): the call previews, posts the
    /// request and answers `pending`; `approval_status` commits once approved.
    External {
        /// The caller the request is bound to.
        caller: String,
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
    respond(
        engine,
        BuiltinTool::RunMutation.as_str(),
        &statements,
        asking,
        |out| {
            let one = RunMutationOutput::of_one(out);
            success(&one, render(&one))
        },
    )
    .await
}

/// What the engine's flow gave, asked as the call's [`Asking`] said.
struct Asked {
    outcome: Result<MutationOutcome<MutationsOutput>, ToolError>,
    trace: MutationTrace,
    caller: String,
    external: bool,
}

/// Runs the statements through the engine's flow, the approval asked as `asking` says; a
/// retry whose state does not open is refused before anything runs.
async fn run_asked(
    engine: &Engine,
    tool: &'static str,
    statements: &[String],
    asking: Asking,
) -> Result<Asked, (AuditRecord, CallToolResponse)> {
    let timeout = engine.approval_timeout();
    let mode = engine.mode().as_str();
    let asked = |(outcome, trace), caller, external| Asked {
        outcome,
        trace,
        caller,
        external,
    };
    Ok(match asking {
        Asking::Elicit(peer) => {
            let ask = elicitation::Elicitation {
                peer: &peer,
                timeout,
            };
            asked(
                engine.run_approved(tool, statements, None, ask).await,
                String::new(),
                false,
            )
        }
        Asking::External { caller } => asked(
            engine
                .run_approved(tool, statements, None, external::Deferred)
                .await,
            caller,
            true,
        ),
        Asking::InputRequired {
            state,
            responses,
            caller,
            can_elicit,
        } => {
            let state = match state
                .as_deref()
                .map(|s| input_required::open(engine.approvals(), s))
            {
                Some(Err(e)) => return Err(refused_state(tool, statements, e)),
                Some(Ok(s)) => Some(s),
                None => None,
            };
            let ask = input_required::Retry {
                ledger: engine.approvals(),
                state: state.as_ref(),
                binding: (caller.as_str(), mode),
                responses: responses.as_ref(),
                until: Instant::now() + timeout,
                can_elicit,
            };
            let claim = state.as_ref().map(|s| s.nonce.as_str());
            let run = engine.run_approved(tool, statements, claim, ask);
            asked(run.await, caller, false)
        }
    })
}

/// A mutation tool's call: the statements run through the engine's flow, the user (or the
/// external approver) asked as `asking` says, the result (`committed` rendered by `committed`,
/// the question, `pending` / `rejected`, or the refusal) and its audit record.
pub async fn respond(
    engine: &Engine,
    tool: &'static str,
    statements: &[String],
    asking: Asking,
    committed: impl FnOnce(MutationsOutput) -> CallToolResult,
) -> (AuditRecord, CallToolResponse) {
    let Asked {
        outcome,
        mut trace,
        caller,
        external,
    } = match run_asked(engine, tool, statements, asking).await {
        Ok(a) => a,
        Err(refused) => return refused,
    };
    let mode = engine.mode().as_str();
    let (code, result) = match outcome {
        Ok(MutationOutcome::Committed(out)) => (None, committed(out).into()),
        Ok(MutationOutcome::Asking(request)) if external => {
            match submit(engine, tool, statements, &request, &caller).await {
                Ok((decision, result)) => {
                    trace.decision = decision;
                    (None, result.into())
                }
                Err(e) => (Some(e.code), mutation_failure(&e).into()),
            }
        }
        Ok(MutationOutcome::Asking(request)) => {
            let timeout = engine.approval_timeout();
            match input_required::ask(engine.approvals(), &request, &caller, mode, timeout) {
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

/// The external approver is asked for the first time: `pending` (also when it approves at
/// once: `approval_status` commits), or `rejected`.
async fn submit(
    engine: &Engine,
    tool: &str,
    statements: &[String],
    request: &ApprovalRequest,
    caller: &str,
) -> Result<(Decision, CallToolResult), ToolError> {
    let (id, pending) = external::seal(engine, tool, statements, request, caller)?;
    let reply = external::ask(engine, &id, &pending).await?;
    Ok(external::undecided(&id, &pending, &reply))
}

/// How this call's approval is asked: of the external approver when one is configured; else by
/// `input_required` when the request is on protocol 2026-07-28 or later (no session to send an
/// elicitation on), else by elicitation.
pub fn asking(
    ctx: &RequestContext<RoleServer>,
    state: Option<String>,
    responses: Option<InputResponses>,
    engine: &Engine,
) -> Asking {
    if engine.approvals().external().is_some() {
        return Asking::External {
            caller: caller_binding_of(ctx, engine),
        };
    }
    let stateless = ctx
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    if !stateless && state.is_none() {
        return Asking::Elicit(ctx.peer.clone());
    }
    Asking::InputRequired {
        state,
        responses,
        caller: caller_binding_of(ctx, engine),
        can_elicit: ctx
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some()),
    }
}

/// The caller an approval is bound to ([`input_required::caller_binding`]): the principal and
/// the caller's identity ([`crate::tools::caller::Caller::identity`]: how it authenticated, the
/// token's or certificate's issuer and subject, its OAuth client, the variables bound), the
/// same identity its sessions and quota windows belong to.
pub fn caller_binding_of(ctx: &RequestContext<RoleServer>, engine: &Engine) -> String {
    let identity = identity_of(ctx);
    input_required::caller_binding(&[engine.principal(), identity.as_deref()])
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
