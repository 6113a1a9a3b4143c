//! SQLite errors to the backend's typed error: an interrupt is the timeout, a busy or locked
//! file is unavailable, a value over the length bound or a full heap is `resource_limit`, and the extended result code stands in for a SQLSTATE.

use crate::backend::{DbError, DbErrorCode};

/// Maps a driver error to a stable code.
pub(super) fn map_err(e: rusqlite::Error) -> DbError {
    if let rusqlite::Error::SqliteFailure(f, _) = &e {
        match f.code {
            rusqlite::ErrorCode::OperationInterrupted => {
                return DbError::new(
                    DbErrorCode::QueryTimeout,
                    "the query ran over the statement timeout and was interrupted",
                )
            }
            rusqlite::ErrorCode::TooBig => {
                return with_code(
                    DbError::resource_limit("the length of a value or row", &e, false),
                    f.extended_code,
                )
            }
            rusqlite::ErrorCode::OutOfMemory => {
                return with_code(
                    DbError::resource_limit("SQLite's memory", &e, true),
                    f.extended_code,
                )
            }
            rusqlite::ErrorCode::DatabaseBusy
            | rusqlite::ErrorCode::DatabaseLocked
            | rusqlite::ErrorCode::CannotOpen => {
                return DbError::new(DbErrorCode::DatabaseUnavailable, e.to_string())
            }
            _ => {}
        }
        return with_code(
            DbError::new(DbErrorCode::DatabaseError, e.to_string()),
            f.extended_code,
        );
    }
    DbError::new(DbErrorCode::DatabaseError, e.to_string())
}

/// `err` with SQLite's extended result code standing in for a SQLSTATE.
fn with_code(mut err: DbError, extended_code: i32) -> DbError {
    err.sqlstate = Some(format!("SQLITE_{extended_code}"));
    err
}
