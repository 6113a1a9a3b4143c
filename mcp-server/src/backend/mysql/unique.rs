//! MySQL / MariaDB's unique keys: the unique indexes of the current database's tables
//! (`information_schema.STATISTICS`), their columns in order.

use mysql_async::prelude::Queryable;

use super::error::map_err;
use super::MysqlBackend;
use crate::backend::{DbError, UniqueKey};

impl MysqlBackend {
    /// The unique keys of the current database's tables.
    pub(super) async fn unique(&self) -> Result<Vec<UniqueKey>, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let rows: Vec<(String, String, String)> = conn
            .query(
                "SELECT TABLE_NAME, INDEX_NAME, COLUMN_NAME FROM information_schema.STATISTICS \
                 WHERE TABLE_SCHEMA = DATABASE() AND NON_UNIQUE = 0 AND COLUMN_NAME IS NOT NULL \
                 ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX",
            )
            .await
            .map_err(|e| map_err(&e))?;
        let mut keys: Vec<(String, UniqueKey)> = Vec::new();
        for (table, index, column) in rows {
            match keys.last_mut() {
                Some((i, k)) if *i == index && k.table == table => k.columns.push(column),
                _ => keys.push((
                    index,
                    UniqueKey {
                        schema: None,
                        table,
                        columns: vec![column],
                    },
                )),
            }
        }
        Ok(keys.into_iter().map(|(_, k)| k).collect())
    }
}
