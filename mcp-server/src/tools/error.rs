//! The gate's refusal or failure in the shape a tool returns it (`isError: true`): a guard
//! refusal or a database error in one shape, with the typed codes and stages of
//! [`crate::codes`]; the gate's [`GateError`] mapped in one exhaustive `match`, so that a new
//! variant fails to compile here instead of falling through.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlgate::{ErrorCode, GuardError, Location, QueryClass};

use crate::backend::{DbError, DbErrorCode};
use crate::codes::{AccessCode, MutationCode, Stage, ToolCode};
use crate::gate::approval::ApprovalAnswer;
use crate::gate::error::{GateError, Refused};
use crate::gate::quota::QuotaExceeded;
use crate::tools::hints;

/// A refusal or failure, as the tools return it (`isError: true`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolError {
    /// Stable code: one of core's error codes, or `query_timeout`, `database_unavailable`,
    /// `database_error`.
    pub code: ToolCode,
    /// Stage: core's stage, or `execute` for database errors.
    pub stage: Stage,
    /// What went wrong.
    pub message: String,
    /// True when the same call may succeed later unchanged.
    pub retryable: bool,
    /// How to fix the request in one turn.
    pub hint: Option<String>,
    /// Most privileged statement class found (refusals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_class: Option<QueryClass>,
    /// Where in the SQL, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The database's SQLSTATE (database errors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqlstate: Option<String>,
    /// How long to wait before the same call can succeed (`quota_exceeded`), in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

impl From<GateError> for ToolError {
    fn from(e: GateError) -> Self {
        match e {
            GateError::Refused { rejection, during } => {
                let class = rejection.query_class;
                let e = guard_error(&rejection.error);
                let hint = match during {
                    Refused::Read { writes } => {
                        hints::for_run_query(class, writes, e.hint.as_deref())
                    }
                    Refused::Write => hints::for_run_mutation(class, e.hint.as_deref()),
                };
                ToolError {
                    query_class: Some(class),
                    hint,
                    ..e
                }
            }
            GateError::Access(g) => guard_error(&g),
            GateError::NotATable => GateError::bad_request(
                "`table` must be a table name, optionally schema-qualified (e.g. `orders` or `public.orders`)",
                Some("call list_tables for the names"),
            )
            .into(),
            GateError::NotInCatalog { name } => GateError::bad_request(
                format!("table `{name}` is not in the catalog"),
                Some("call list_tables for the names"),
            )
            .into(),
            GateError::Database(e) => database(&e),
            GateError::BadRequest { message, hint } => ToolError {
                code: ErrorCode::BadRequest.into(),
                stage: Stage::Guard(sqlgate::Stage::Precheck),
                message,
                retryable: false,
                hint,
                ..bare()
            },
            GateError::Mutation {
                code,
                stage,
                message,
                hint,
            } => ToolError {
                code: code.into(),
                stage,
                message,
                retryable: code == MutationCode::PreviewMismatch,
                hint: Some(hint),
                ..bare()
            },
            GateError::InsufficientScope { tool, scope } => ToolError {
                code: AccessCode::InsufficientScope.into(),
                stage: Stage::Authorize,
                message: format!(
                    "{tool} needs the scope `{scope}`, which the caller's access token does not \
                     grant"
                ),
                retryable: false,
                hint: Some(format!(
                    "ask for a token with the scope `{scope}` (or use the read-only tools)"
                )),
                ..bare()
            },
            GateError::Quota(q) => quota(&q),
            GateError::NotApproved(answer) => not_approved(answer),
            GateError::Mismatch { message } => GateError::mutation(
                MutationCode::PreviewMismatch,
                Stage::Commit,
                message,
                "call run_mutation again to preview the current data",
            )
            .into(),
        }
    }
}

/// The refusal of an answer that is not an approval, in the words of the MCP tools (an answer
/// that is one never reaches here: the gate commits, or hands the question back).
fn not_approved(answer: ApprovalAnswer) -> ToolError {
    let (code, message, hint) = match answer {
        ApprovalAnswer::Accepted | ApprovalAnswer::Ask => {
            return GateError::bad_request("the approval was not settled", None).into()
        }
        ApprovalAnswer::StateForOtherTool => (
            MutationCode::ApprovalStateMismatch,
            "the requestState approves a call of the other mutation tool (run_mutation and \
             run_mutations are approved apart); nothing was changed",
            "call this tool again without requestState to preview and ask the user",
        ),
        ApprovalAnswer::StateForOtherSql => (
            MutationCode::ApprovalStateMismatch,
            "the requestState approves other SQL than this call's; nothing was changed",
            "call run_mutation again without requestState to preview this SQL and ask the user",
        ),
        ApprovalAnswer::StateForOtherCaller => (
            MutationCode::ApprovalStateMismatch,
            "the requestState was issued to another caller or under another mode; nothing was \
             changed",
            "call run_mutation again without requestState to preview and ask the user",
        ),
        ApprovalAnswer::StateReplayed => (
            MutationCode::ApprovalStateReplayed,
            "this approval was used already (each commits at most once); nothing was changed",
            "call run_mutation again without requestState to preview and ask the user",
        ),
        ApprovalAnswer::Changed => (
            MutationCode::PreviewMismatch,
            "the preview now differs from the one the user approved (the data changed); nothing \
             was changed",
            "call run_mutation again without requestState to preview the current data and ask \
             again",
        ),
        ApprovalAnswer::Declined => (
            MutationCode::ApprovalDeclined,
            "the user declined the mutation; nothing was changed",
            "ask the user what they want changed instead; do not resend the same mutation",
        ),
        ApprovalAnswer::Cancelled => (
            MutationCode::ApprovalCancelled,
            "the approval was cancelled or not answered in time; nothing was changed",
            "ask the user whether to try again",
        ),
        ApprovalAnswer::Unavailable => (
            MutationCode::ApprovalUnavailable,
            "this mutation needs the user's approval, but the MCP client cannot ask: it did not \
             announce elicitation, or it is on a protocol revision before 2026-07-28 with a \
             stateless server (no session to ask on); nothing was changed",
            "tell the operator: use an MCP client that supports elicitation (on MCP 2026-07-28 \
             for a --stateless server), or run the server with --mode full_access for automation \
             without approval",
        ),
    };
    GateError::mutation(code, Stage::Approval, message, hint).into()
}

/// The fields every error sets, empty.
fn bare() -> ToolError {
    ToolError {
        code: ErrorCode::BadRequest.into(),
        stage: Stage::Guard(sqlgate::Stage::Precheck),
        message: String::new(),
        retryable: false,
        hint: None,
        query_class: None,
        location: None,
        sqlstate: None,
        retry_after_ms: None,
    }
}

/// From a core error, its hint pointing to the tool that helps (see [`hints`]).
fn guard_error(g: &GuardError) -> ToolError {
    ToolError {
        code: g.code.into(),
        stage: Stage::Guard(g.stage),
        message: g.message.clone(),
        retryable: g.retryable,
        hint: hints::with_tool(g.code, g.hint.as_deref()),
        location: g.location,
        ..bare()
    }
}

/// From a database error.
fn database(e: &DbError) -> ToolError {
    let hint = match e.code {
        DbErrorCode::QueryTimeout => Some(
            "the query was cancelled at the statement timeout; narrow it (WHERE, fewer joins, aggregate) and try again"
                .to_string(),
        ),
        DbErrorCode::DatabaseUnavailable => {
            Some("the database is unreachable right now; retry the same call later".to_string())
        }
        // The engine's hint for its own error (`Database::hint`), when it knows one.
        DbErrorCode::DatabaseError => e.hint.clone(),
        DbErrorCode::RoleNotReadOnly => {
            Some("the operator must connect with a read-only database role".to_string())
        }
        DbErrorCode::TooExpensive => e.hint.clone(),
        DbErrorCode::ResourceLimit => Some(
            "the query would build more than the server allows; compute less at once (smaller generated values or series, aggregate before joining, a bound on recursion)"
                .to_string(),
        ),
    };
    ToolError {
        code: e.code.into(),
        stage: Stage::Execute,
        message: e.message.clone(),
        retryable: e.retryable,
        hint,
        sqlstate: e.sqlstate.clone(),
        ..bare()
    }
}

/// A call over its principal's quota: retryable once the window has room.
fn quota(e: &QuotaExceeded) -> ToolError {
    let wait = e.retry_after.as_secs().max(1);
    ToolError {
        code: AccessCode::QuotaExceeded.into(),
        stage: Stage::Authorize,
        message: format!(
            "this caller reached its principal's quota `{} = {}` (counted per caller); the \
             same call can succeed in {wait} s",
            e.kind.setting(),
            e.limit
        ),
        retryable: true,
        hint: Some(format!(
            "wait {wait} s (retry_after_ms), or ask the operator for a larger `{}`",
            e.kind.setting()
        )),
        retry_after_ms: Some(u64::try_from(e.retry_after.as_millis()).unwrap_or(u64::MAX)),
        ..bare()
    }
}

impl ToolError {
    /// A malformed request ([`GateError::BadRequest`]).
    pub fn bad_request(message: impl Into<String>, hint: Option<&str>) -> Self {
        GateError::bad_request(message, hint).into()
    }

    /// A refusal of a mutation after the guard approved it ([`GateError::Mutation`]).
    pub fn mutation(
        code: MutationCode,
        stage: Stage,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        GateError::mutation(code, stage, message, hint).into()
    }

    /// True when the database failed the query (after the guard approved it).
    pub fn is_database_error(&self) -> bool {
        self.stage == Stage::Execute
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn every_stage() -> Vec<Stage> {
        let mut all = vec![
            Stage::Execute,
            Stage::Preview,
            Stage::Approval,
            Stage::Commit,
            Stage::Authorize,
        ];
        all.extend(sqlgate::Stage::ALL.iter().map(|s| Stage::Guard(*s)));
        all
    }

    fn every_code() -> Vec<ToolCode> {
        let guard = ErrorCode::ALL.iter().map(|c| ToolCode::Guard(*c));
        let db = DbErrorCode::ALL.iter().map(|c| ToolCode::Database(*c));
        let mutation = MutationCode::ALL.iter().map(|c| ToolCode::Mutation(*c));
        let access = AccessCode::ALL.iter().map(|c| ToolCode::Access(*c));
        guard.chain(db).chain(mutation).chain(access).collect()
    }

    #[test]
    fn names_are_the_serde_names_and_round_trip() {
        for stage in every_stage() {
            let v = serde_json::to_value(stage).ok();
            assert_eq!(v, Some(Value::from(stage.as_str())));
            assert_eq!(
                serde_json::from_value::<Stage>(json!(stage.as_str())).ok(),
                Some(stage)
            );
        }
        for code in every_code() {
            let v = serde_json::to_value(code).ok();
            assert_eq!(v, Some(Value::from(code.as_str())));
            assert_eq!(
                serde_json::from_value::<ToolCode>(json!(code.as_str())).ok(),
                Some(code)
            );
        }
    }

    #[test]
    fn no_name_is_both_a_guard_and_a_server_name() {
        let stages: Vec<&str> = every_stage().iter().map(|s| s.as_str()).collect();
        let codes: Vec<&str> = every_code().iter().map(|c| c.as_str()).collect();
        for names in [stages, codes] {
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{names:?}");
        }
    }

    #[test]
    fn database_error_json_is_unchanged() {
        let mut db = DbError::new(DbErrorCode::DatabaseError, "boom");
        db.sqlstate = Some("42P01".into());
        let json =
            serde_json::to_string(&ToolError::from(GateError::Database(db))).unwrap_or_default();
        assert_eq!(
            json,
            r#"{"code":"database_error","stage":"execute","message":"boom","retryable":false,"hint":null,"sqlstate":"42P01"}"#
        );
    }
}
