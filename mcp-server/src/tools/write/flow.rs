//! The gate's write path ([`crate::gate::write`]) in the shape the MCP tools answer: its
//! domain results mapped to [`MutationsOutput`] / [`RunMutationOutput`]. The tools over it are
//! [`super::run_mutation`] and [`super::run_mutations`].

// ToolError is the structured content of a refusal; results carry it by value on purpose.
#![allow(clippy::result_large_err)]

use std::future::Future;

use crate::codes::BuiltinTool;
use crate::gate::approval::{ApprovalAnswer, ApprovalRequest, Approver};
use crate::gate::write::{Committed, MutationTrace, Written};
use crate::gate::Engine;
use crate::tools::error::ToolError;
use crate::tools::write::output::{
    MutationOutcome, MutationStatus, MutationsOutput, RunMutationOutput, StatementOutput,
};

/// A committed write as `run_mutations` answers it.
pub fn output_of(c: Committed) -> MutationsOutput {
    MutationsOutput {
        status: MutationStatus::Committed,
        statement_count: c.statements.len(),
        affected_rows: c.statements.iter().map(|s| s.affected_rows).sum(),
        statements: c
            .statements
            .into_iter()
            .map(|s| StatementOutput {
                query_class: s.query_class,
                target: s.target,
                executed_sql: s.executed_sql,
                affected_rows: s.affected_rows,
                returned_rows: s.returned_rows,
                returned_truncated: s.returned_truncated,
            })
            .collect(),
        decision: c.decision,
        approval_wait_ms: c.approval_wait_ms,
        duration_ms: c.duration_ms,
    }
}

impl Engine {
    /// `run_mutation`: [`Self::run_mutations`] of one statement.
    pub async fn run_mutation<F, Fut>(
        &self,
        sql: &str,
        approve: F,
    ) -> (
        Result<MutationOutcome<RunMutationOutput>, ToolError>,
        MutationTrace,
    )
    where
        F: FnOnce(ApprovalRequest) -> Fut,
        Fut: Future<Output = ApprovalAnswer>,
    {
        let (out, trace) = self
            .run_mutations(
                BuiltinTool::RunMutation.as_str(),
                &[sql.to_string()],
                approve,
            )
            .await;
        let out = out.map(|o| match o {
            MutationOutcome::Asking(r) => MutationOutcome::Asking(r),
            MutationOutcome::Committed(batch) => {
                MutationOutcome::Committed(RunMutationOutput::of_one(batch))
            }
        });
        (out, trace)
    }

    /// [`Engine::write`] with the approval asked by `approve`, its result as the tools answer.
    pub async fn run_mutations<F, Fut>(
        &self,
        tool: &'static str,
        statements: &[String],
        approve: F,
    ) -> (
        Result<MutationOutcome<MutationsOutput>, ToolError>,
        MutationTrace,
    )
    where
        F: FnOnce(ApprovalRequest) -> Fut,
        Fut: Future<Output = ApprovalAnswer>,
    {
        self.run_mutations_claiming(tool, statements, None, approve)
            .await
    }

    /// [`Self::run_mutations`] for an approval named by `claim` (its nonce; see
    /// [`Engine::write`]).
    pub async fn run_mutations_claiming<F, Fut>(
        &self,
        tool: &'static str,
        statements: &[String],
        claim: Option<&str>,
        approve: F,
    ) -> (
        Result<MutationOutcome<MutationsOutput>, ToolError>,
        MutationTrace,
    )
    where
        F: FnOnce(ApprovalRequest) -> Fut,
        Fut: Future<Output = ApprovalAnswer>,
    {
        self.run_approved(tool, statements, claim, approve).await
    }

    /// [`Engine::write`] with the approval asked of `approver`, its result as the tools answer.
    pub async fn run_approved(
        &self,
        tool: &'static str,
        statements: &[String],
        claim: Option<&str>,
        approver: impl Approver,
    ) -> (
        Result<MutationOutcome<MutationsOutput>, ToolError>,
        MutationTrace,
    ) {
        let (written, trace) = self.write(tool, statements, claim, approver).await;
        let out = written.map_err(ToolError::from).map(|w| match w {
            Written::Asking(request) => MutationOutcome::Asking(request),
            Written::Committed(c) => MutationOutcome::Committed(output_of(c)),
        });
        (out, trace)
    }
}
