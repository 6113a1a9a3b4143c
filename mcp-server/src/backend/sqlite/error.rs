//! SQLite errors to the backend's typed error: an interrupt is the timeout, a busy or locked
//! file is unavailable, and the extended result code stands in for a SQLSTATE.

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
            rusqlite::ErrorCode::DatabaseBusy
            | rusqlite::ErrorCode::DatabaseLocked
            | rusqlite::ErrorCode::CannotOpen => {
                return DbError::new(DbErrorCode::DatabaseUnavailable, e.to_string())
            }
            _ => {}
        }
        let mut err = DbError::new(DbErrorCode::DatabaseError, e.to_string());
        err.sqlstate = Some(format!("SQLITE_{}", f.extended_code));
        return err;
    }
    DbError::new(DbErrorCode::DatabaseError, e.to_string())
}
