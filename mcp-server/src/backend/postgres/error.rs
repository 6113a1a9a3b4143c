//! PostgreSQL errors to the backend's typed error: the SQLSTATE classes that mean a timeout, a
//! resource bound or an unavailable database, and the causes of a failed connection in words an operator can act on.

use tokio_postgres::error::SqlState;

use crate::backend::{DbError, DbErrorCode};

/// Maps a driver error to a stable code; never includes connection parameters.
pub fn map_err(e: &tokio_postgres::Error) -> DbError {
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        let state = code.code().to_string();
        let (kind, retryable) = if *code == SqlState::QUERY_CANCELED {
            (DbErrorCode::QueryTimeout, false)
        } else if let Some(retryable) = resource_limit(code) {
            (DbErrorCode::ResourceLimit, retryable)
        } else if state.starts_with("08")
            || state.starts_with("53")
            || state.starts_with("57P")
            || *code == SqlState::CANNOT_CONNECT_NOW
        {
            (DbErrorCode::DatabaseUnavailable, true)
        } else {
            (
                DbErrorCode::DatabaseError,
                *code == SqlState::T_R_SERIALIZATION_FAILURE
                    || *code == SqlState::T_R_DEADLOCK_DETECTED,
            )
        };
        let mut message = db.message().to_string();
        if let Some(detail) = db.detail() {
            message.push_str(&format!(" ({detail})"));
        }
        if kind == DbErrorCode::QueryTimeout {
            message =
                format!("the query ran over the statement timeout and was cancelled: {message}");
        }
        return DbError {
            code: kind,
            message,
            sqlstate: Some(state),
            retryable,
            hint: None,
        };
    }
    DbError::new(
        DbErrorCode::DatabaseUnavailable,
        format!(
            "the connection to the database failed: {}",
            connect_cause(e)
        ),
    )
}

/// Whether `code` is a resource bound the query ran over (`temp_file_limit`, out of memory, a
/// value over PostgreSQL's 1 GB), and if so whether it may pass later (memory is shared).
fn resource_limit(code: &SqlState) -> Option<bool> {
    if *code == SqlState::OUT_OF_MEMORY {
        Some(true)
    } else if *code == SqlState::CONFIGURATION_LIMIT_EXCEEDED
        || *code == SqlState::PROGRAM_LIMIT_EXCEEDED
    {
        Some(false)
    } else {
        None
    }
}

pub(crate) fn pool_err(e: &deadpool_postgres::PoolError) -> DbError {
    use deadpool_postgres::{PoolError, TimeoutType};
    match e {
        PoolError::Backend(b) if b.as_db_error().is_some() => map_err(b),
        PoolError::Backend(b) => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            format!("cannot connect to the database: {}", connect_cause(b)),
        ),
        PoolError::Timeout(TimeoutType::Create) => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            "cannot connect to the database: timed out (no answer from the host and port)",
        ),
        PoolError::Timeout(_) => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            "no database connection became available in time",
        ),
        _ => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            "cannot connect to the database",
        ),
    }
}

/// Why a connection failed, in words an operator can act on: refused, host not found, TLS not
/// offered, timed out, or the driver's own words. Built from the error chain's kinds and texts,
/// none of which carries the connection string (host names appear, credentials never do).
fn connect_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut texts = Vec::new();
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    return "connection refused (is the server running and listening on that \
                            host and port?)"
                        .to_string()
                }
                std::io::ErrorKind::TimedOut => return "timed out".to_string(),
                _ => {}
            }
        }
        texts.push(err.to_string());
        current = err.source();
    }
    let all = texts.join(": ").to_lowercase();
    if all.contains("lookup address") || all.contains("name or service not known") {
        "host not found (check the host name in the URL)".to_string()
    } else if all.contains("does not support tls") {
        "the server does not offer TLS, which sslmode=require / verify-full needs (use \
         sslmode=disable only on a trusted network)"
            .to_string()
    } else if all.contains("timed out") || all.contains("timeout") {
        "timed out".to_string()
    } else {
        texts.last().cloned().unwrap_or_default()
    }
}
