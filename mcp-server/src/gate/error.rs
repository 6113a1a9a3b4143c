//! The gate's refusal or failure, in the gate's own words: which part refused (core's guard, the
//! database, the policy's bound, the approval, the caller's scope or quota) and what it said.
//! Each front door words it its own way (the MCP tools: `tools/error.rs`, one exhaustive
//! `From<GateError>`).

use sqlgate::{GuardError, Rejection};

use super::approval::ApprovalAnswer;
use super::quota::QuotaExceeded;
use crate::backend::DbError;
use crate::codes::{MutationCode, Stage};

/// A refusal or failure of one of the gate's operations.
#[derive(Debug, Clone, PartialEq)]
pub enum GateError {
    /// Core refused the SQL.
    Refused {
        /// Core's refusal (its message names the statement of a batch).
        rejection: Rejection,
        /// What was refused: a front door's hint may point elsewhere (a write sent as a read).
        during: Refused,
    },
    /// Core refused to show a table (`describe_table`).
    Access(GuardError),
    /// The name asked for is not a table path.
    NotATable,
    /// The table is readable but not in the catalog.
    NotInCatalog {
        /// The name asked for, trimmed.
        name: String,
    },
    /// The database failed the query, after the guard approved it.
    Database(DbError),
    /// A malformed request (no SQL was run).
    BadRequest {
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: Option<String>,
    },
    /// A write refused after the guard approved it: its bound, its approval, its commit.
    Mutation {
        /// Why.
        code: MutationCode,
        /// Where: preview, approval or commit.
        stage: Stage,
        /// What happened.
        message: String,
        /// What to do next.
        hint: String,
    },
    /// The commit did not touch what the preview touched (the data changed in between): rolled
    /// back, nothing changed.
    Mismatch {
        /// Which statement, and how it differed.
        message: String,
    },
    /// The approval of a write was not given (declined, cancelled, not askable; a retry's
    /// state for another call, used already, or for a preview that changed): nothing changed.
    NotApproved(ApprovalAnswer),
    /// The caller's credentials lack the scope a tool needs.
    InsufficientScope {
        /// The tool called.
        tool: String,
        /// The scope it needs.
        scope: String,
    },
    /// The caller is over its principal's quota.
    Quota(QuotaExceeded),
}

/// What core refused: the operation the SQL was sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A read; `writes` when the mode offers writes too.
    Read {
        /// True when the mode offers writes.
        writes: bool,
    },
    /// A write.
    Write,
}

impl GateError {
    /// A malformed request.
    pub fn bad_request(message: impl Into<String>, hint: Option<&str>) -> Self {
        GateError::BadRequest {
            message: message.into(),
            hint: hint.map(str::to_string),
        }
    }

    /// A write refused after the guard approved it.
    pub fn mutation(
        code: MutationCode,
        stage: Stage,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        GateError::Mutation {
            code,
            stage,
            message: message.into(),
            hint: hint.into(),
        }
    }
}
