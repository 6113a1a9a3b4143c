//! Asking the user to approve one previewed mutation: an MCP `elicitation/create` in form mode
//! whose schema is a single boolean `approve`, under the approval timeout.

use std::time::Duration;

use rmcp::service::{ElicitationError, Peer, ServiceError};
use rmcp::RoleServer;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlgate::QueryClass;

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

/// The form: one boolean.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ApprovalForm {
    /// True to run the mutation.
    pub approve: bool,
}

rmcp::elicit_safe!(ApprovalForm);

/// Asks the client's user through `peer`, waiting at most `timeout`.
pub async fn ask(
    peer: &Peer<RoleServer>,
    request: &ApprovalRequest,
    timeout: Duration,
) -> ApprovalAnswer {
    let asked = peer
        .elicit_with_timeout::<ApprovalForm>(request.message(), Some(timeout))
        .await;
    match asked {
        Ok(Some(ApprovalForm { approve: true })) => ApprovalAnswer::Accepted,
        Ok(Some(ApprovalForm { approve: false })) => ApprovalAnswer::Declined,
        Err(ElicitationError::UserDeclined) => ApprovalAnswer::Declined,
        Err(ElicitationError::CapabilityNotSupported) => ApprovalAnswer::Unavailable,
        // The client refused the request itself (e.g. an older protocol without elicitation).
        Err(ElicitationError::Service(ServiceError::McpError(_))) => ApprovalAnswer::Unavailable,
        // Cancelled, timed out, no content, an answer that is not the form: not an approval.
        Ok(None) | Err(_) => ApprovalAnswer::Cancelled,
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
