//! MySQL / MariaDB errors to the backend's typed error: the server codes that mean a timeout or
//! a resource bound,
//! and the causes of a failed connection in words that never include the URL.

use crate::backend::{DbError, DbErrorCode};

/// Maps a driver error to a stable code; a message never carries the URL.
pub fn map_err(e: &mysql_async::Error) -> DbError {
    match e {
        mysql_async::Error::Server(s) => {
            let code = match s.code {
                // MySQL's max_execution_time, MariaDB's max_statement_time, KILL QUERY.
                3024 | 1969 | 1317 => DbErrorCode::QueryTimeout,
                // Out of memory, sort memory or resources; a temporary table over
                // tmp_disk_table_size ("table is full"); over max_join_size; the range
                // optimizer's memory.
                1037 | 1038 | 1041 | 1114 | 1104 | 3170 => DbErrorCode::ResourceLimit,
                _ => DbErrorCode::DatabaseError,
            };
            let mut err = DbError::new(code, s.message.clone());
            err.sqlstate = Some(s.state.clone());
            err
        }
        mysql_async::Error::Io(_) | mysql_async::Error::Driver(_) => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            format!("the database connection failed: {}", connection_cause(e)),
        ),
        other => DbError::new(DbErrorCode::DatabaseError, other.to_string()),
    }
}

/// Why a connection failed, in words that never include the URL.
fn connection_cause(e: &mysql_async::Error) -> String {
    let text = e.to_string();
    let lower = text.to_ascii_lowercase();
    if lower.contains("refused") {
        "connection refused".into()
    } else if lower.contains("lookup")
        || lower.contains("resolve")
        || lower.contains("name or service")
    {
        "host not found".into()
    } else if lower.contains("timed out") {
        "timed out".into()
    } else if lower.contains("ssl") || lower.contains("tls") {
        "TLS failed (check ssl-mode and the server's certificate)".into()
    } else {
        text
    }
}
