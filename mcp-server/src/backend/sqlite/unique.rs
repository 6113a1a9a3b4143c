//! SQLite's unique keys: each table's unique indexes (`pragma_index_list`, not partial) and
//! their columns (`pragma_index_info`; an expression has no name and drops the index).

use rusqlite::Connection;

use super::error::map_err;
use super::SqliteBackend;
use crate::backend::{DbError, DbErrorCode, UniqueKey};

impl SqliteBackend {
    /// The unique keys of every table.
    pub(super) async fn unique(&self) -> Result<Vec<UniqueKey>, DbError> {
        let conn = self.connect()?;
        tokio::task::spawn_blocking(move || unique_keys(&conn))
            .await
            .map_err(|e| DbError::new(DbErrorCode::DatabaseError, format!("worker failed: {e}")))?
    }
}

fn unique_keys(conn: &Connection) -> Result<Vec<UniqueKey>, DbError> {
    let mut stmt = conn
        .prepare(
            "SELECT t.name, i.name FROM sqlite_schema t, pragma_index_list(t.name) i \
             WHERE t.type = 'table' AND i.\"unique\" = 1 AND i.partial = 0 ORDER BY 1, 2",
        )
        .map_err(map_err)?;
    let indexes: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(map_err)?
        .filter_map(Result::ok)
        .collect();
    let mut cols = conn
        .prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")
        .map_err(map_err)?;
    let mut out = Vec::new();
    for (table, index) in indexes {
        let columns: Vec<Option<String>> = cols
            .query_map([&index], |r| r.get(0))
            .map_err(map_err)?
            .filter_map(Result::ok)
            .collect();
        if columns.iter().all(Option::is_some) && !columns.is_empty() {
            out.push(UniqueKey {
                schema: None,
                table,
                columns: columns.into_iter().flatten().collect(),
            });
        }
    }
    Ok(out)
}
