//! The second and third steps of a write: the preview (every statement run in one transaction
//! that is always rolled back, counted, its RETURNING rows and touched rows read) and the
//! policy's bound on the rows each touches (`writes.max_affected_rows`).

use super::check::Checked;
use super::MutationTrace;
use crate::audit::Decision;
use crate::backend::{Finish, MutationRun};
use crate::codes::{MutationCode, Stage};
use crate::gate::error::GateError;
use crate::gate::Engine;

impl Engine {
    /// The preview of `checked`, rolled back, each statement held to the policy's bound.
    pub(super) async fn preview(
        &self,
        checked: &Checked,
        trace: &mut MutationTrace,
    ) -> Result<Vec<MutationRun>, GateError> {
        trace.decision = Decision::Error;
        let previews = self
            .backend()
            .mutate(&checked.batch(), self.mutation_limits(), Finish::Rollback)
            .await
            .map_err(GateError::Database)?;
        trace.preview_rows = Some(previews.iter().map(|p| p.affected_rows).sum());
        for p in &previews {
            self.within_bound(p.affected_rows).inspect_err(|_| {
                trace.decision = Decision::Refuse;
            })?;
        }
        trace.decision = Decision::Allow;
        Ok(previews)
    }

    fn within_bound(&self, affected: u64) -> Result<(), GateError> {
        let max = self
            .policy()
            .writes
            .as_ref()
            .and_then(|w| w.max_affected_rows);
        match max {
            Some(max) if affected > max => Err(GateError::mutation(
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
