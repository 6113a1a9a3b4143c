//! PostgreSQL's unique keys: unique indexes (constraints have one) over plain columns, not
//! partial, of the relations introspection shows.

use super::error::{map_err, pool_err};
use super::PgBackend;
use crate::backend::{DbError, UniqueKey};

impl PgBackend {
    /// The unique keys of user tables.
    pub(super) async fn unique(&self) -> Result<Vec<UniqueKey>, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let rows = client
            .query(
                "SELECT n.nspname::text, c.relname::text, \
                 ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(num, ord) \
                       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.num ORDER BY k.ord) \
                 FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid \
                 JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL \
                 AND n.nspname NOT IN ('pg_catalog','information_schema') \
                 AND n.nspname NOT LIKE 'pg\\_toast%' ORDER BY 1, 2",
                &[],
            )
            .await
            .map_err(|e| map_err(&e))?;
        Ok(rows
            .iter()
            .map(|r| UniqueKey {
                schema: r.try_get(0).ok(),
                table: r.try_get(1).unwrap_or_default(),
                columns: r.try_get(2).unwrap_or_default(),
            })
            .collect())
    }
}
