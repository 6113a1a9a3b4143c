//! Approval by an external approver (`approval = { webhook = "https://..." }`), for operators
//! who approve in another system. A mutation that needs approval is previewed, then its request
//! is POSTed to the approver and the call answers `status: "pending"` with an
//! `approval_request_id` (nothing changed). `approval_status {approval_request_id}` POSTs the
//! same request again: while the approver answers `pending` it stays pending; `rejected` ends
//! it; `approved` runs the statements again from the start (check, preview, the same rows as
//! the approver saw) and commits once. Past the approval timeout the id has expired.
//!
//! The protocol (the README's "External approvers"): the body is JSON with
//! `approval_request_id`, `tool`, `principal`, `mode`, `query_class`, `target`, `sql`,
//! `statements`, `preview_rows`, `preview_digest`, `expires_at`; the approver answers 2xx with
//! `{"decision": "pending" | "approved" | "rejected", "reference": "...", "reason": "..."}`
//! (`reference` and `reason` optional), the same decision for every later posting of the same
//! `approval_request_id`. The id is sealed with the approval key (any instance sharing it can
//! finish the approval) and binds the statements, the caller, the mode and the preview.

// ToolError is the structured content of a refusal; results carry it by value on purpose.
#![allow(clippy::result_large_err)]

use std::future::Future;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{CallToolResult, RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::audit::Decision;
use crate::codes::{MutationCode, Stage};
use crate::gate::approval::{ApprovalAnswer, ApprovalRequest, Approver};
use crate::gate::approvals::ApprovalLedger;
use crate::gate::Engine;
use crate::tools::error::ToolError;
use crate::tools::result::success;
use crate::tools::write::output::{MutationStatus, UndecidedOutput};

/// One statement as the approver is shown it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatementRequest {
    /// Its class.
    pub query_class: String,
    /// The table it modifies.
    pub target: String,
    /// The exact SQL that will run.
    pub sql: String,
    /// Rows it touched in the preview.
    pub preview_rows: u64,
}

/// What an `approval_request_id` seals. Nothing else sealed with the same key (a
/// `requestState`) reads as one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingApproval {
    /// `run_mutation` or `run_mutations`.
    pub tool: String,
    /// The statements as the caller sent them (run again at commit).
    pub statements: Vec<String>,
    /// Who asked ([`super::input_required::caller_binding`]).
    pub caller: String,
    /// The principal, for the approver.
    pub principal: Option<String>,
    /// The mode it was asked under.
    pub mode: String,
    /// The class of the batch (the most privileged).
    pub query_class: String,
    /// The tables modified.
    pub target: String,
    /// The exact SQL that will run, one statement per line.
    pub sql: String,
    /// Each statement.
    pub details: Vec<StatementRequest>,
    /// Rows the preview touched.
    pub preview_rows: u64,
    /// The preview's digest (count, RETURNING rows, the digest of the rows touched).
    pub preview_digest: String,
    /// Names this approval (single use).
    pub nonce: String,
    /// When it was asked, in milliseconds since the epoch.
    pub asked_at_ms: u64,
}

/// The approver's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Not decided yet.
    Pending,
    /// Yes: commit (after the checks and the preview run again).
    Approved,
    /// No.
    Rejected,
}

/// The approver's answer to one posting.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Reply {
    /// Its decision.
    pub decision: Verdict,
    /// Its reference for the request (a ticket), when it gives one.
    #[serde(default)]
    pub reference: Option<String>,
    /// Why, when it says.
    #[serde(default)]
    pub reason: Option<String>,
}

fn now_ms() -> u64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

/// The approval of a call when an external approver is configured: deferred
/// ([`ApprovalAnswer::Ask`]): the call previews, posts the request and answers `pending`.
pub struct Deferred;

impl Approver for Deferred {
    fn approve(self, _request: ApprovalRequest) -> impl Future<Output = ApprovalAnswer> {
        std::future::ready(ApprovalAnswer::Ask)
    }
}

fn codec(ledger: &ApprovalLedger) -> Result<RequestStateCodec, ToolError> {
    ledger
        .key()
        .map(|k| RequestStateCodec::new_unchecked(k.to_vec()))
        .ok_or_else(|| {
            refusal(
                MutationCode::ApprovalUnavailable,
                "this server has no key to seal approvals with (its random source failed at \
                 start); nothing was changed",
                "tell the operator: set approval_key_env, or restart the server",
            )
        })
}

fn refusal(code: MutationCode, message: &str, hint: &str) -> ToolError {
    ToolError::mutation(code, Stage::Approval, message, hint)
}

/// The pending approval of `request` (asked by `caller` under `engine`'s mode), sealed: the
/// `approval_request_id`.
pub fn seal(
    engine: &Engine,
    tool: &str,
    statements: &[String],
    request: &ApprovalRequest,
    caller: &str,
) -> Result<(String, PendingApproval), ToolError> {
    let pending = PendingApproval {
        tool: tool.to_string(),
        statements: statements.to_vec(),
        caller: caller.to_string(),
        principal: engine.principal().map(str::to_string),
        mode: engine.mode().as_str().to_string(),
        query_class: request.query_class.as_str().to_string(),
        target: request.target.clone(),
        sql: request.sql.clone(),
        details: request
            .statements
            .iter()
            .map(|s| StatementRequest {
                query_class: s.query_class.as_str().to_string(),
                target: s.target.clone(),
                sql: s.sql.clone(),
                preview_rows: s.rows,
            })
            .collect(),
        preview_rows: request.preview_rows,
        preview_digest: request.preview_digest.clone(),
        nonce: ApprovalLedger::nonce().ok_or_else(|| {
            ToolError::bad_request("cannot make a nonce for the approval".to_string(), None)
        })?,
        asked_at_ms: now_ms(),
    };
    let ttl = engine.approval_timeout();
    let id = codec(engine.approvals())?
        .seal_json_with(&pending, &SealOptions::new().ttl(ttl))
        .map_err(|e| ToolError::bad_request(format!("cannot seal the approval: {e}"), None))?;
    Ok((id, pending))
}

/// Opens an `approval_request_id`: sealed here (or by an instance sharing the key), not
/// expired, asked by `caller` under the engine's mode.
pub fn open(engine: &Engine, id: &str, caller: &str) -> Result<PendingApproval, ToolError> {
    let pending = codec(engine.approvals())?
        .open_json::<PendingApproval>(id)
        .map_err(|e| match e {
            RequestStateError::Expired => refusal(
                MutationCode::ApprovalStateExpired,
                "the approval request expired: the approver did not approve it within the \
                 approval timeout; nothing was changed",
                "call the mutation tool again to preview and ask the approver again",
            ),
            _ => refusal(
                MutationCode::ApprovalStateInvalid,
                "the approval_request_id is not one this server issued, or was altered; nothing \
                 was changed",
                "send the approval_request_id exactly as received",
            ),
        })?;
    if pending.caller != caller || pending.mode != engine.mode().as_str() {
        return Err(refusal(
            MutationCode::ApprovalStateMismatch,
            "the approval request was issued to another caller or under another mode; nothing \
             was changed",
            "only the caller that asked can follow its approval request",
        ));
    }
    Ok(pending)
}

/// Posts the request to the approver and reads its answer.
pub async fn ask(engine: &Engine, id: &str, pending: &PendingApproval) -> Result<Reply, ToolError> {
    let Some(approver) = engine.approvals().external() else {
        return Err(refusal(
            MutationCode::ApprovalUnavailable,
            "this server has no external approver configured; nothing was changed",
            "tell the operator: set approval = { webhook = \"https://...\" } in the config",
        ));
    };
    let expires = pending.asked_at_ms / 1000 + engine.approval_timeout().as_secs();
    let body = json!({
        "approval_request_id": id,
        "tool": pending.tool,
        "principal": pending.principal,
        "mode": pending.mode,
        "query_class": pending.query_class,
        "target": pending.target,
        "sql": pending.sql,
        "statements": pending.details,
        "preview_rows": pending.preview_rows,
        "preview_digest": pending.preview_digest,
        "expires_at": expires,
    });
    let unavailable = |why: String| {
        let mut e = refusal(
            MutationCode::ApproverUnavailable,
            &format!("the external approver could not be asked ({why}); nothing was changed"),
            "try again later (approval_status with the same approval_request_id), or tell the \
             operator",
        );
        e.retryable = true;
        e
    };
    let reply = approver.post(body).await.map_err(unavailable)?;
    serde_json::from_value::<Reply>(reply).map_err(|e| {
        unavailable(format!(
            "its answer is not {{\"decision\": \"pending\" | \"approved\" | \"rejected\"}}: {e}"
        ))
    })
}

/// How long the approval took, for the committed result.
pub fn waited_ms(pending: &PendingApproval) -> f64 {
    Duration::from_millis(now_ms().saturating_sub(pending.asked_at_ms)).as_secs_f64() * 1e3
}

/// The answer while the approver has not decided (`pending`) or said no (`rejected`): not an
/// error, nothing changed. Returns it with the audit decision.
pub fn undecided(id: &str, pending: &PendingApproval, reply: &Reply) -> (Decision, CallToolResult) {
    let (status, decision, text) = match reply.decision {
        Verdict::Rejected => (
            MutationStatus::Rejected,
            Decision::NeedsApprovalDeclined,
            "The external approver rejected the mutation; nothing was changed. Do not resend it \
             unchanged.",
        ),
        _ => (
            MutationStatus::Pending,
            Decision::NeedsApprovalRequested,
            "Waiting for the external approver; nothing was changed yet. Call approval_status \
             with this approval_request_id to follow it (it commits once approved).",
        ),
    };
    let value = UndecidedOutput {
        status,
        approval_request_id: id.to_string(),
        tool: pending.tool.clone(),
        statement_count: pending.statements.len(),
        preview_rows: pending.preview_rows,
        approver_reference: reply.reference.clone(),
        reason: reply.reason.clone(),
    };
    let mut text = format!("{text}\napproval_request_id: {id}");
    if let Some(r) = &reply.reference {
        text.push_str(&format!("\napprover reference: {r}"));
    }
    (decision, success(&value, text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn replies_read_the_three_decisions() {
        let read = |v: Value| serde_json::from_value::<Reply>(v).ok();
        assert_eq!(
            read(json!({"decision": "approved", "reference": "T-1"})),
            Some(Reply {
                decision: Verdict::Approved,
                reference: Some("T-1".into()),
                reason: None
            })
        );
        assert_eq!(
            read(json!({"decision": "rejected", "reason": "no"})).map(|r| r.decision),
            Some(Verdict::Rejected)
        );
        assert_eq!(
            read(json!({"decision": "pending"})).map(|r| r.decision),
            Some(Verdict::Pending)
        );
        assert_eq!(read(json!({"decision": "yes"})), None);
        assert_eq!(read(json!({})), None);
    }
}
