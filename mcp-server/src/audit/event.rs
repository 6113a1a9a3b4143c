//! One `tracing` event per decision the audit log records, emitted as the record is queued
//! ([`super::Audit::record`]): target `sqlgate::decision`, level info for a call allowed (or
//! approved, or waiting for its approval), warn for one refused, declined or failed. Fields:
//! `tool`, `principal`, `decision`, `code`, `class`, `rows`, `duration_ms`, `call_id`,
//! `session_id`; the SQL (`sql`, `executed_sql`) only when the target is enabled at debug.
//! This is a log line for operators; the audit record stays the record.

use super::{AuditRecord, Decision};

/// The target of decision events (`RUST_LOG=sqlgate::decision=off` silences them).
pub const TARGET: &str = "sqlgate::decision";

/// True when the call went as asked: allowed, approved, or waiting for the user's answer.
fn went_through(record: &AuditRecord) -> bool {
    record.code.is_none()
        && matches!(
            record.decision,
            Decision::Allow | Decision::NeedsApprovalAccepted | Decision::NeedsApprovalRequested
        )
}

/// Emits `record`'s decision event.
pub fn log_decision(record: &AuditRecord) {
    let with_sql = tracing::enabled!(target: TARGET, tracing::Level::DEBUG);
    let sql = record.sql.as_deref().filter(|_| with_sql);
    let executed_sql = record.executed_sql.as_deref().filter(|_| with_sql);
    macro_rules! decision_event {
        ($level:expr) => {
            tracing::event!(
                target: TARGET,
                $level,
                tool = %record.tool,
                principal = record.principal.as_deref(),
                decision = record.decision.as_str(),
                code = record.code.map(crate::codes::ToolCode::as_str),
                class = record.query_class.map(sqlgate::QueryClass::as_str),
                rows = record.row_count.map(|n| n as u64),
                duration_ms = record.duration_ms,
                call_id = record.call_id.as_deref(),
                session_id = record.session_id.as_deref(),
                sql,
                executed_sql,
                "{} {}",
                record.tool,
                record.decision.as_str()
            )
        };
    }
    if went_through(record) {
        decision_event!(tracing::Level::INFO);
    } else {
        decision_event!(tracing::Level::WARN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::ToolCode;

    #[test]
    fn decision_names_are_the_serde_names() {
        for d in <Decision as strum::VariantArray>::VARIANTS {
            let serde = serde_json::to_value(d).expect("serialize");
            assert_eq!(serde.as_str(), Some(d.as_str()));
        }
    }

    #[test]
    fn allowed_and_approved_calls_go_through_refused_ones_do_not() {
        assert!(went_through(&AuditRecord::new(
            "run_query",
            Decision::Allow
        )));
        assert!(went_through(&AuditRecord::new(
            "run_mutation",
            Decision::NeedsApprovalRequested
        )));
        assert!(!went_through(&AuditRecord::new(
            "run_query",
            Decision::Refuse
        )));
        assert!(!went_through(&AuditRecord::new(
            "run_query",
            Decision::Error
        )));
        assert!(!went_through(&AuditRecord::new(
            "run_mutation",
            Decision::NeedsApprovalDeclined
        )));
        let mut mismatch = AuditRecord::new("run_mutation", Decision::NeedsApprovalAccepted);
        mismatch.code = Some(ToolCode::Guard(sqlgate::ErrorCode::TooLarge));
        assert!(!went_through(&mismatch));
    }
}
