//! The fourth step of a write: when the mode asks for an approval of any statement, the request
//! (the statements, the preview's count and digest) put to the front door's [`Approver`], and
//! an answer that is not an approval refused ([`GateError::NotApproved`]).

use std::time::Instant;

use super::check::Checked;
use super::{ms_since, MutationTrace};
use crate::audit::chain::sha256_hex;
use crate::backend::MutationRun;
use crate::gate::approval::{
    decision_of, ApprovalAnswer, ApprovalRequest, Approver, PlannedStatement,
};
use crate::gate::error::GateError;
use crate::gate::Engine;

/// What the approval step decided.
pub(super) enum Approval {
    /// Go on to the commit, after waiting this long (milliseconds) for the answer, if asked.
    Commit(Option<f64>),
    /// The approver deferred: the call ends here, the request handed back.
    Asking(ApprovalRequest),
}

impl Engine {
    /// Asks `approver` when the mode wants an approval of any of `checked`'s statements.
    pub(super) async fn approval(
        &self,
        tool: &'static str,
        (checked, previews): (&Checked, &[MutationRun]),
        approver: impl Approver,
        trace: &mut MutationTrace,
    ) -> Result<Approval, GateError> {
        let asks = checked
            .approved
            .iter()
            .any(|a| self.mode().needs_approval(a.query_class));
        if !asks {
            return Ok(Approval::Commit(None));
        }
        let request = approval_request(tool, checked, previews);
        let asked = Instant::now();
        let answer = approver.approve(request.clone()).await;
        let wait = Some(ms_since(asked));
        trace.decision = decision_of(answer);
        if answer == ApprovalAnswer::Ask {
            return Ok(Approval::Asking(request));
        }
        match answer {
            ApprovalAnswer::Accepted => Ok(Approval::Commit(wait)),
            refused => Err(GateError::NotApproved(refused)),
        }
    }
}

fn approval_request(
    tool: &'static str,
    checked: &Checked,
    previews: &[MutationRun],
) -> ApprovalRequest {
    // The digest of what the preview saw: per statement its count, its RETURNING rows, and the
    // digest of the rows it touches (those stay on the server).
    let shown: Vec<serde_json::Value> = previews
        .iter()
        .map(|p| {
            let touched = p.touched.map(|d| sha256_hex(&d));
            serde_json::json!([p.affected_rows, p.returning.rows, touched])
        })
        .collect();
    let shown = if shown.len() == 1 {
        // A single statement's digest is the one sealed states issued before batches carry.
        shown.into_iter().next().unwrap_or_default()
    } else {
        serde_json::Value::Array(shown)
    };
    ApprovalRequest {
        tool,
        query_class: checked.class(),
        sql: checked.sql(),
        target: checked
            .approved
            .iter()
            .map(|a| a.target.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        preview_rows: previews.iter().map(|p| p.affected_rows).sum(),
        preview_digest: sha256_hex(shown.to_string().as_bytes()),
        statements: checked
            .approved
            .iter()
            .zip(previews)
            .map(|(a, p)| PlannedStatement {
                query_class: a.query_class,
                target: a.target.clone(),
                sql: a.sql.clone(),
                rows: p.affected_rows,
            })
            .collect(),
    }
}
