//! The approval of a previewed mutation, as the gate sees it: what the user (or an approver) is
//! asked about ([`ApprovalRequest`], one [`PlannedStatement`] per statement), the answer
//! ([`ApprovalAnswer`]), and the port a front door implements to ask ([`Approver`]): the MCP
//! tools by elicitation, `input_required` or an external webhook approver; a test or the demo
//! by a closure.

use std::future::Future;

use sqlgate::QueryClass;

use crate::audit::Decision;

/// What the user is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalRequest {
    /// The tool asking (`run_mutation`).
    pub tool: &'static str,
    /// The mutation's class.
    pub query_class: QueryClass,
    /// The exact SQL that will run.
    pub sql: String,
    /// The table it modifies.
    pub target: String,
    /// Rows the rolled-back preview touched.
    pub preview_rows: u64,
    /// SHA-256 (hex) of the preview: per statement its row count, the rows its RETURNING
    /// list gave, and the digest of the rows it touches.
    pub preview_digest: String,
    /// Each statement of a batch (`run_mutations`), in order; one for `run_mutation`.
    pub statements: Vec<PlannedStatement>,
}

/// One statement of the mutation asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedStatement {
    /// Its class.
    pub query_class: QueryClass,
    /// The table it modifies.
    pub target: String,
    /// The exact SQL.
    pub sql: String,
    /// Rows it touched in the preview.
    pub rows: u64,
}

impl ApprovalRequest {
    /// The message shown to the user: tool, class, target, the preview's count and the SQL;
    /// for a batch, each statement's.
    pub fn message(&self) -> String {
        if self.statements.len() > 1 {
            return self.batch_message();
        }
        let rows = rows_would_change(self.preview_rows);
        format!(
            "The agent's {} call asks to run a {} on `{}`.\nPreview (run and rolled back): {rows}.\n\
             The exact SQL that will run:\n\n{}\n\nIt commits only if it changes the same rows \
             again. Approve?",
            self.tool,
            self.query_class.as_str(),
            self.target,
            self.sql
        )
    }

    fn batch_message(&self) -> String {
        let mut s = format!(
            "The agent's {} call asks to run {} statements in one transaction (all or none).\n\
             Preview (run and rolled back):\n",
            self.tool,
            self.statements.len()
        );
        for (i, st) in self.statements.iter().enumerate() {
            s.push_str(&format!(
                "{}. {} on `{}`: {}.\n   {}\n",
                i + 1,
                st.query_class.as_str(),
                st.target,
                rows_would_change(st.rows),
                st.sql
            ));
        }
        s.push_str("They commit only if each changes the same rows again. Approve all of them?");
        s
    }
}

fn rows_would_change(n: u64) -> String {
    match n {
        1 => "1 row would change".to_string(),
        n => format!("{n} rows would change"),
    }
}

/// The user's answer (or why there is none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalAnswer {
    /// Approved: commit.
    Accepted,
    /// The user said no (declined, or accepted the form with `approve: false`).
    Declined,
    /// The user dismissed the request, or did not answer in time.
    Cancelled,
    /// The client cannot ask the user (no elicitation capability).
    Unavailable,
    /// Ask by `input_required` (MCP 2026-07-28): the call ends here, unchanged, and its retry
    /// carries the answer.
    Ask,
    /// The retry's state was issued for a call of another tool.
    StateForOtherTool,
    /// The retry's state was issued for other SQL.
    StateForOtherSql,
    /// The retry's state was issued to another caller, or under another mode.
    StateForOtherCaller,
    /// The retry's state was used already.
    StateReplayed,
    /// The preview differs from the one the user approved (the data changed).
    Changed,
}

/// The port through which the gate asks for an approval: the front door asks its user (or its
/// approver) about `request` and answers; [`ApprovalAnswer::Ask`] defers (the gate ends the call
/// after the preview and hands the request back). A closure from the request to a future of the
/// answer is one.
pub trait Approver {
    /// The answer to `request`.
    fn approve(self, request: ApprovalRequest) -> impl Future<Output = ApprovalAnswer>;
}

impl<F, Fut> Approver for F
where
    F: FnOnce(ApprovalRequest) -> Fut,
    Fut: Future<Output = ApprovalAnswer>,
{
    fn approve(self, request: ApprovalRequest) -> impl Future<Output = ApprovalAnswer> {
        self(request)
    }
}

/// The audit decision of an approval's answer.
pub fn decision_of(answer: ApprovalAnswer) -> Decision {
    match answer {
        ApprovalAnswer::Accepted | ApprovalAnswer::Changed => Decision::NeedsApprovalAccepted,
        ApprovalAnswer::Declined => Decision::NeedsApprovalDeclined,
        ApprovalAnswer::Cancelled => Decision::NeedsApprovalCancelled,
        ApprovalAnswer::Unavailable => Decision::NeedsApprovalUnavailable,
        ApprovalAnswer::Ask => Decision::NeedsApprovalRequested,
        ApprovalAnswer::StateForOtherTool
        | ApprovalAnswer::StateForOtherSql
        | ApprovalAnswer::StateForOtherCaller
        | ApprovalAnswer::StateReplayed => Decision::Refuse,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_tool_class_target_count_and_sql() {
        let r = ApprovalRequest {
            tool: "run_mutation",
            query_class: QueryClass::MutationCreate,
            sql: "UPDATE orders SET status = 'cancelled' WHERE id = 7".into(),
            target: "orders".into(),
            preview_rows: 1,
            preview_digest: String::new(),
            statements: Vec::new(),
        };
        let m = r.message();
        for part in [
            "run_mutation",
            "mutation_create",
            "`orders`",
            "1 row would change",
            &r.sql,
        ] {
            assert!(m.contains(part), "{part} missing from {m}");
        }
        let r = ApprovalRequest {
            preview_rows: 3,
            ..r
        };
        assert!(r.message().contains("3 rows would change"));
    }
}
