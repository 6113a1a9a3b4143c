//! The last step of a write: every statement again in one transaction, committed only if each
//! touches what its preview touched (the same count, and for an UPDATE or DELETE the same rows'
//! content), with the record of the approval's use when a shared table is configured.

use crate::backend::{Expected, Finish, MutationRun, MutationSql};
use crate::gate::approval::ApprovalAnswer;
use crate::gate::error::GateError;
use crate::gate::Engine;

impl Engine {
    /// The commit: the batch again, committed only if each statement sees what its preview
    /// saw; last, when the approval has a nonce and a shared table is configured, the record of
    /// its use (one row, or none if another instance used it: nothing committed).
    pub(super) async fn commit(
        &self,
        batch: &[MutationSql<'_>],
        previews: &[MutationRun],
        claim: Option<&str>,
    ) -> Result<Vec<MutationRun>, GateError> {
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
                GateError::Database(e)
            })?;
        if claim_sql.is_some() {
            let recorded = runs.pop().is_some_and(|r| r.affected_rows == 1);
            if !recorded {
                return Err(GateError::NotApproved(ApprovalAnswer::StateReplayed));
            }
        }
        Ok(runs)
    }
}

/// The refusal of a commit that did not see what the preview saw.
pub(super) fn mismatch(previews: &[MutationRun], runs: &[MutationRun]) -> GateError {
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
    GateError::Mismatch { message }
}
