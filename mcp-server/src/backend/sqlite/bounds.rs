//! SQLite's own memory bounds, which hold whatever the guard approved: the largest string, blob
//! or row a statement may build (`SQLITE_LIMIT_LENGTH`, per connection, set before each
//! statement from the result cap) and the heap of every SQLite connection of the process
//! (`PRAGMA hard_heap_limit`: SQLite has no per-connection heap limit, this one is
//! process-wide and the pragma only ever lowers it).

use rusqlite::limits::Limit;
use rusqlite::Connection;

use super::error::map_err;
use crate::backend::{DbError, DbErrorCode};

/// The least length bound, whatever the result cap: values this large are ordinary.
const MIN_LENGTH: usize = 4 << 20;
/// SQLite's own default and ceiling for `SQLITE_LIMIT_LENGTH`.
const MAX_LENGTH: usize = 1_000_000_000;
/// How many times the result cap an intermediate value may be (`length(group_concat(...))`
/// builds a value that is never returned).
const LENGTH_PER_RESULT_BYTE: usize = 4;
/// The process-wide bound on the heap of every SQLite connection: allocations past it fail with
/// `SQLITE_NOMEM` (reported as `resource_limit`), not the server.
pub(super) const HEAP_LIMIT: i64 = 256 << 20;

/// The length bound for a result cap of `max_bytes`: four times the cap, at least 4 MiB.
pub(super) fn length_limit(max_bytes: usize) -> i32 {
    let bound = max_bytes
        .saturating_mul(LENGTH_PER_RESULT_BYTE)
        .clamp(MIN_LENGTH, MAX_LENGTH);
    i32::try_from(bound).unwrap_or(i32::MAX)
}

/// Bounds what the next statement on `conn` may build: no value or row over
/// [`length_limit`]`(max_bytes)` bytes.
pub(super) fn bound_length(conn: &Connection, max_bytes: usize) -> Result<(), DbError> {
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, length_limit(max_bytes))
        .map(drop)
        .map_err(map_err)
}

/// `err` naming the length bound when it is SQLite's `SQLITE_TOOBIG` for a result cap of
/// `max_bytes`, so that the operator knows which setting moves it.
pub(super) fn explain(mut err: DbError, max_bytes: usize) -> DbError {
    if err.code == DbErrorCode::ResourceLimit && err.sqlstate.as_deref() == Some("SQLITE_18") {
        err.message = format!(
            "{} (at most {} bytes per value or row: 4 x --max-result-bytes)",
            err.message,
            length_limit(max_bytes)
        );
    }
    err
}

/// Lowers the process-wide SQLite heap limit to [`HEAP_LIMIT`] (a no-op once it is).
pub(super) fn bound_heap(conn: &Connection) -> Result<(), DbError> {
    conn.query_row(
        &format!("PRAGMA hard_heap_limit = {HEAP_LIMIT}"),
        [],
        |_| Ok(()),
    )
    .map_err(map_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_length_bound_follows_the_result_cap_within_sqlite_s_range() {
        assert_eq!(length_limit(0), 4 << 20);
        assert_eq!(length_limit(1 << 20), 4 << 20);
        assert_eq!(length_limit(8 << 20), 32 << 20);
        assert_eq!(length_limit(usize::MAX), 1_000_000_000);
    }

    #[test]
    fn a_connection_lowers_the_process_heap_limit_and_refuses_long_values() {
        let conn = Connection::open_in_memory().unwrap();
        bound_heap(&conn).unwrap();
        let heap: i64 = conn
            .query_row("PRAGMA hard_heap_limit", [], |r| r.get(0))
            .unwrap();
        assert!(heap > 0 && heap <= HEAP_LIMIT, "{heap}");
        bound_length(&conn, 1 << 20).unwrap();
        let n: i64 = conn
            .query_row("SELECT length(randomblob(4000000))", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 4_000_000);
        for sql in [
            "SELECT length(randomblob(900000000))",
            "SELECT length(hex(randomblob(3000000)))",
            "SELECT length(zeroblob(900000000))",
        ] {
            let err = conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_err();
            let mapped = explain(map_err(err), 1 << 20);
            assert_eq!(mapped.code, DbErrorCode::ResourceLimit, "{sql}");
            assert!(mapped.message.contains("at most 4194304 bytes"), "{mapped}");
            assert!(!mapped.retryable, "{sql}");
        }
    }
}
