//! PostgreSQL introspection: the user tables and views the role may select, with their columns,
//! keys and comments, read from the system catalogs.

use tokio_postgres::Client;

use super::error::{map_err, pool_err};
use super::PgBackend;
use crate::backend::{ColumnDetail, DbError, ForeignKeyDetail, TableDetail};

/// The relations introspection shows: user tables, views, materialized views, foreign and
/// partitioned tables the role may select.
const FILTER: &str = "c.relkind IN ('r','p','v','m','f') \
    AND n.nspname NOT IN ('pg_catalog','information_schema') \
    AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' \
    AND has_table_privilege(c.oid, 'SELECT')";

/// The tables found so far, each with its oid (to attach columns and constraints by oid).
struct Tables {
    oids: Vec<u32>,
    tables: Vec<TableDetail>,
}

impl Tables {
    fn get_mut(&mut self, oid: u32) -> Option<&mut TableDetail> {
        let i = self.oids.iter().position(|o| *o == oid)?;
        self.tables.get_mut(i)
    }
}

impl PgBackend {
    /// Reads user tables and views the role may select, with columns, keys and comments.
    pub(super) async fn tables(&self) -> Result<Vec<TableDetail>, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let mut tables = relations(&client).await?;
        columns(&client, &mut tables).await?;
        constraints(&client, &mut tables).await?;
        Ok(tables.tables)
    }
}

/// The table kind `relkind` names.
fn kind_name(relkind: &str) -> &'static str {
    match relkind {
        "r" => "table",
        "p" => "partitioned_table",
        "v" => "view",
        "m" => "materialized_view",
        "f" => "foreign_table",
        _ => "relation",
    }
}

/// The relations, without their columns and keys.
async fn relations(client: &Client) -> Result<Tables, DbError> {
    let rows = client
        .query(
            &format!(
                "SELECT c.oid, n.nspname::text, c.relname::text, c.relkind::text, \
                 c.reltuples::float8, obj_description(c.oid, 'pg_class') \
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE {FILTER} ORDER BY 2, 3"
            ),
            &[],
        )
        .await
        .map_err(|e| map_err(&e))?;
    let mut found = Tables {
        oids: Vec::new(),
        tables: Vec::new(),
    };
    for r in rows {
        let kind: String = r.try_get(3).unwrap_or_default();
        let reltuples: f64 = r.try_get(4).unwrap_or(-1.0);
        found.oids.push(r.try_get(0).unwrap_or(0));
        found.tables.push(TableDetail {
            schema: r.try_get(1).ok(),
            name: r.try_get(2).unwrap_or_default(),
            kind: kind_name(&kind).to_string(),
            estimated_rows: (reltuples >= 0.0).then_some(reltuples as i64),
            comment: r.try_get(5).ok().flatten(),
            columns: Vec::new(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
            referenced_by: Vec::new(),
            row_filtered: false,
        });
    }
    Ok(found)
}

/// Adds each relation's columns, in order.
async fn columns(client: &Client, tables: &mut Tables) -> Result<(), DbError> {
    let cols = client
        .query(
            &format!(
                "SELECT a.attrelid, a.attname::text, format_type(a.atttypid, a.atttypmod), \
                 NOT a.attnotnull, pg_get_expr(d.adbin, d.adrelid), col_description(a.attrelid, a.attnum) \
                 FROM pg_attribute a \
                 JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
                 LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
                 WHERE a.attnum > 0 AND NOT a.attisdropped AND {FILTER} \
                 ORDER BY a.attrelid, a.attnum"
            ),
            &[],
        )
        .await
        .map_err(|e| map_err(&e))?;
    for r in cols {
        if let Some(t) = tables.get_mut(r.try_get(0).unwrap_or(0)) {
            t.columns.push(ColumnDetail {
                name: r.try_get(1).unwrap_or_default(),
                data_type: r.try_get(2).unwrap_or_default(),
                nullable: r.try_get(3).unwrap_or(true),
                default: r.try_get(4).ok().flatten(),
                comment: r.try_get(5).ok().flatten(),
                protected: false,
            });
        }
    }
    Ok(())
}

/// Adds each relation's primary key and foreign keys.
async fn constraints(client: &Client, tables: &mut Tables) -> Result<(), DbError> {
    let cons = client
        .query(
            "SELECT con.conrelid, con.contype::text, \
             ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(num, ord) \
                   JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord), \
             fn.nspname::text, fc.relname::text, \
             ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(num, ord) \
                   JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord) \
             FROM pg_constraint con \
             LEFT JOIN pg_class fc ON fc.oid = con.confrelid \
             LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace \
             WHERE con.contype IN ('p', 'f') ORDER BY con.conrelid, con.conname",
            &[],
        )
        .await
        .map_err(|e| map_err(&e))?;
    for r in cons {
        let Some(t) = tables.get_mut(r.try_get(0).unwrap_or(0)) else {
            continue;
        };
        let kind: String = r.try_get(1).unwrap_or_default();
        let columns: Vec<String> = r.try_get(2).unwrap_or_default();
        if kind == "p" {
            t.primary_key = columns;
        } else {
            t.foreign_keys.push(ForeignKeyDetail {
                columns,
                referenced_schema: r.try_get(3).ok().flatten(),
                referenced_table: r
                    .try_get::<_, Option<String>>(4)
                    .ok()
                    .flatten()
                    .unwrap_or_default(),
                referenced_columns: r.try_get(5).unwrap_or_default(),
            });
        }
    }
    Ok(())
}
