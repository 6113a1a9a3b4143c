//! Mutations' flow on an [`Engine`]: core's `check_mutation` on each statement, a preview of
//! all of them in one transaction that is always rolled back, the policy's bound on rows, the
//! user's approval when the mode asks for it (or the question handed back, to ask by
//! `input_required`), and a commit of all of them in one transaction that happens only if each
//! statement touches the same rows again: the same count, and for an UPDATE or DELETE the same
//! rows' content (read just before it with core's `ApprovedMutation::touched_rows`). The tools over it are
//! [`super::run_mutation`] and [`super::run_mutations`].

// ToolError is the structured content of a refusal; results carry it by value on purpose.
#![allow(clippy::result_large_err)]

use std::future::Future;
use std::time::Instant;

use sqlgate::{ApprovedMutation, QueryClass};

use crate::audit::chain::sha256_hex;
use crate::audit::Decision;
use crate::backend::{Expected, Finish, MutationRun, MutationSql, QueryLimits};
use crate::codes::{MutationCode, Stage};
use crate::gate::error::ToolError;
use crate::gate::hints;
use crate::gate::Engine;
use crate::tools::approval::{ApprovalAnswer, ApprovalRequest, PlannedStatement};
use crate::tools::mutation_output::{
    decision_of, refusal_of, MutationOutcome, MutationStatus, MutationsOutput, RunMutationOutput,
    StatementOutput,
};

/// The most RETURNING rows a result (and a preview) carries.
pub const RETURNING_CAP: u64 = 20;
/// The most statements one `run_mutations` call takes.
pub const MAX_STATEMENTS: usize = 100;

/// What the audit log needs about a mutation call, success or not.
#[derive(Debug, Clone)]
pub struct MutationTrace {
    /// The decision.
    pub decision: Decision,
    /// Class found by the guard (the most privileged of a batch).
    pub query_class: Option<QueryClass>,
    /// The SQL executed, when it got that far (a batch's statements, one per line).
    pub executed_sql: Option<String>,
    /// Rows the preview touched.
    pub preview_rows: Option<u64>,
    /// Rows the commit touched.
    pub committed_rows: Option<u64>,
}

fn ms_since(start: Instant) -> f64 {
    (start.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// The statements as run: approved SQL, and the SELECT of the rows each touches.
struct Checked {
    approved: Vec<ApprovedMutation>,
    touched: Vec<Option<String>>,
}

impl Checked {
    fn batch(&self) -> Vec<MutationSql<'_>> {
        self.approved
            .iter()
            .zip(&self.touched)
            .map(|(a, t)| MutationSql {
                sql: &a.sql,
                touched: t.as_deref(),
            })
            .collect()
    }

    fn sql(&self) -> String {
        let sql: Vec<&str> = self.approved.iter().map(|a| a.sql.as_str()).collect();
        sql.join(";\n")
    }

    fn class(&self) -> QueryClass {
        let delete = self
            .approved
            .iter()
            .any(|a| a.query_class == QueryClass::MutationDelete);
        match (delete, self.approved.first()) {
            (true, _) => QueryClass::MutationDelete,
            (false, Some(a)) => a.query_class,
            (false, None) => QueryClass::MutationCreate,
        }
    }
}

/// Where the preview and commit got to.
enum Step {
    Committed(Vec<MutationRun>, Option<f64>),
    Asking(ApprovalRequest),
}

impl Engine {
    fn mutation_limits(&self) -> QueryLimits {
        QueryLimits {
            max_rows: Some(RETURNING_CAP),
            max_bytes: self.max_result_bytes(),
            timeout: self.statement_timeout(),
        }
    }

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
            .run_mutations("run_mutation", &[sql.to_string()], approve)
            .await;
        let out = out.map(|o| match o {
            MutationOutcome::Asking(r) => MutationOutcome::Asking(r),
            MutationOutcome::Committed(batch) => {
                MutationOutcome::Committed(RunMutationOutput::of_one(batch))
            }
        });
        (out, trace)
    }

    /// Mutations as one: each statement checked, all previewed in one rolled-back transaction,
    /// bounded, approved once through `approve` (when the mode asks for any of them), then all
    /// committed in one transaction or none. Nothing is committed unless every step agrees; an
    /// approver answering [`ApprovalAnswer::Ask`] ends the call after the preview.
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

    /// [`Self::run_mutations`] for an approval named by `claim` (its nonce): with a shared
    /// used-state table ([`crate::gate::approvals::ApprovalLedger::with_used_table`]), the
    /// commit's transaction records it there too, and commits nothing when another instance
    /// already did (`approval_state_replayed`).
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
        let start = Instant::now();
        let mut trace = MutationTrace {
            decision: Decision::Refuse,
            query_class: None,
            executed_sql: None,
            preview_rows: None,
            committed_rows: None,
        };
        let checked = match self.check_all(statements) {
            Ok(c) => c,
            Err((class, e)) => {
                trace.query_class = class;
                return (Err(e), trace);
            }
        };
        trace.query_class = Some(checked.class());
        trace.executed_sql = Some(checked.sql());
        let result = self
            .preview_and_commit(tool, &checked, (claim, approve), &mut trace)
            .await;
        let out = result.map(|step| match step {
            Step::Asking(request) => MutationOutcome::Asking(request),
            Step::Committed(runs, wait) => MutationOutcome::Committed(MutationsOutput {
                status: MutationStatus::Committed,
                statement_count: runs.len(),
                affected_rows: runs.iter().map(|r| r.affected_rows).sum(),
                statements: checked
                    .approved
                    .iter()
                    .zip(runs)
                    .map(|(a, run)| StatementOutput {
                        query_class: a.query_class,
                        target: a.target.clone(),
                        executed_sql: a.sql.clone(),
                        affected_rows: run.affected_rows,
                        returned_rows: run.returning.rows,
                        returned_truncated: run.returning.truncated,
                    })
                    .collect(),
                decision: trace.decision,
                approval_wait_ms: wait,
                duration_ms: ms_since(start),
            }),
        });
        (out, trace)
    }

    /// Core's mutation check of each statement; a refusal names the statement of a batch, and
    /// its hint the tool that helps.
    fn check_all(&self, statements: &[String]) -> Result<Checked, (Option<QueryClass>, ToolError)> {
        if statements.is_empty() || statements.len() > MAX_STATEMENTS {
            return Err((
                None,
                ToolError::bad_request(
                    format!(
                        "{} statements: a batch takes 1 to {MAX_STATEMENTS}",
                        statements.len()
                    ),
                    Some("send each mutation as one string of `statements`"),
                ),
            ));
        }
        let mut checked = Checked {
            approved: Vec::new(),
            touched: Vec::new(),
        };
        for (i, sql) in statements.iter().enumerate() {
            let approved = self
                .guard()
                .check_mutation_with(sql, self.vars())
                .and_then(ApprovedMutation::without_parameters)
                .map_err(|r| {
                    let mut e = ToolError::from_rejection(&r);
                    e.hint = hints::for_run_mutation(r.query_class, e.hint.as_deref());
                    if statements.len() > 1 {
                        e.message =
                            format!("statement {} of {}: {}", i + 1, statements.len(), e.message);
                    }
                    (Some(r.query_class), e)
                })?;
            checked.touched.push(approved.touched_rows.clone());
            checked.approved.push(approved);
        }
        Ok(checked)
    }

    async fn preview_and_commit<F, Fut>(
        &self,
        tool: &'static str,
        checked: &Checked,
        (claim, approve): (Option<&str>, F),
        trace: &mut MutationTrace,
    ) -> Result<Step, ToolError>
    where
        F: FnOnce(ApprovalRequest) -> Fut,
        Fut: Future<Output = ApprovalAnswer>,
    {
        let limits = self.mutation_limits();
        let batch = checked.batch();
        trace.decision = Decision::Error;
        let previews = self
            .backend()
            .mutate(&batch, limits, Finish::Rollback)
            .await
            .map_err(|e| ToolError::from_db(&e))?;
        trace.preview_rows = Some(previews.iter().map(|p| p.affected_rows).sum());
        for p in &previews {
            self.within_bound(p.affected_rows).inspect_err(|_| {
                trace.decision = Decision::Refuse;
            })?;
        }
        trace.decision = Decision::Allow;
        let mut wait = None;
        let asks = checked
            .approved
            .iter()
            .any(|a| self.mode().needs_approval(a.query_class));
        if asks {
            let request = approval_request(tool, checked, &previews);
            let asked = Instant::now();
            let answer = approve(request.clone()).await;
            wait = Some(ms_since(asked));
            trace.decision = decision_of(answer);
            if answer == ApprovalAnswer::Ask {
                return Ok(Step::Asking(request));
            }
            refusal_of(answer).map_or(Ok(()), Err)?;
        }
        let runs = self.commit(&batch, &previews, claim).await?;
        let committed = runs.first().is_some_and(|r| r.committed);
        trace.committed_rows = committed.then(|| runs.iter().map(|r| r.affected_rows).sum());
        if !committed {
            return Err(mismatch(&previews, &runs));
        }
        Ok(Step::Committed(runs, wait))
    }

    /// The commit: the batch again, committed only if each statement sees what its preview
    /// saw; last, when the approval has a nonce and a shared table is configured, the record of
    /// its use (one row, or none if another instance used it: nothing committed).
    async fn commit(
        &self,
        batch: &[MutationSql<'_>],
        previews: &[MutationRun],
        claim: Option<&str>,
    ) -> Result<Vec<MutationRun>, ToolError> {
        let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let claim_sql = claim.and_then(|n| self.approvals().claim_sql(n, &now));
        let mut full = batch.to_vec();
        let mut expected: Vec<Expected> = previews.iter().map(MutationRun::expected).collect();
        if let Some(sql) = &claim_sql {
            full.push(MutationSql { sql, touched: None });
            expected.push(Expected {
                rows: 1,
                touched: None,
            });
        }
        let mut runs = self
            .backend()
            .mutate(
                &full,
                self.mutation_limits(),
                Finish::CommitIfSame(expected),
            )
            .await
            .map_err(|mut e| {
                // The record is the server's own statement: an error names the caller's.
                if claim_sql.is_some() {
                    let n = batch.len();
                    e.message = match n {
                        1 => e.message.replacen("statement 1 of 2: ", "", 1),
                        _ => e.message.replacen(
                            &format!(" of {}: ", n + 1),
                            &format!(" of {n}: "),
                            1,
                        ),
                    };
                }
                ToolError::from_db(&e)
            })?;
        if claim_sql.is_some() {
            let recorded = runs.pop().is_some_and(|r| r.affected_rows == 1);
            if !recorded {
                return Err(
                    refusal_of(ApprovalAnswer::StateReplayed).unwrap_or_else(|| {
                        ToolError::bad_request("the approval was used already", None)
                    }),
                );
            }
        }
        Ok(runs)
    }

    fn within_bound(&self, affected: u64) -> Result<(), ToolError> {
        let max = self
            .policy()
            .writes
            .as_ref()
            .and_then(|w| w.max_affected_rows);
        match max {
            Some(max) if affected > max => Err(ToolError::mutation(
                MutationCode::TooManyRows,
                Stage::Preview,
                format!(
                    "the preview (rolled back) touched {affected} rows; the policy allows at most \
                     {max} per mutation (writes.max_affected_rows)"
                ),
                "narrow the WHERE clause so that fewer rows match, or split the change into \
                 several smaller mutations",
            )),
            _ => Ok(()),
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

/// The refusal of a commit that did not see what the preview saw.
fn mismatch(previews: &[MutationRun], runs: &[MutationRun]) -> ToolError {
    let count = previews.len();
    let differs = previews
        .iter()
        .zip(runs)
        .enumerate()
        .find(|(_, (p, r))| p.expected() != r.expected());
    let which = |i: usize| {
        if count > 1 {
            format!("statement {} of {count} ", i + 1)
        } else {
            "the mutation ".to_string()
        }
    };
    let message = match differs {
        Some((i, (p, r))) if p.affected_rows != r.affected_rows => format!(
            "{}touched {} rows at commit but {} in the preview: the data changed in between; \
             rolled back, nothing was changed",
            which(i),
            r.affected_rows,
            p.affected_rows
        ),
        Some((i, _)) => format!(
            "{}touches other rows at commit than in the preview (the same count, other rows or \
             other values): the data changed in between; rolled back, nothing was changed",
            which(i)
        ),
        None => "the commit did not complete; rolled back, nothing was changed".to_string(),
    };
    ToolError::mutation(
        MutationCode::PreviewMismatch,
        Stage::Commit,
        message,
        "call run_mutation again to preview the current data",
    )
}
