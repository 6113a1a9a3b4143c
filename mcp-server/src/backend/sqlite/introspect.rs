//! SQLite introspection: tables and views from `sqlite_schema`, their columns, primary and
//! foreign keys from the `pragma_*` table functions, and exact row counts.

use rusqlite::Connection;

use super::error::map_err;
use super::SqliteBackend;
use crate::backend::{ColumnDetail, DbError, DbErrorCode, ForeignKeyDetail, TableDetail};

impl SqliteBackend {
    /// Reads tables, views, columns and keys.
    pub(super) async fn tables(&self) -> Result<Vec<TableDetail>, DbError> {
        let conn = self.connect()?;
        tokio::task::spawn_blocking(move || introspect(&conn))
            .await
            .map_err(|e| DbError::new(DbErrorCode::DatabaseError, format!("worker failed: {e}")))?
    }
}

/// Every table and view with its columns, keys and (tables) exact row count.
fn introspect(conn: &Connection) -> Result<Vec<TableDetail>, DbError> {
    let mut stmt = conn
        .prepare(
            "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
        )
        .map_err(map_err)?;
    let list: Vec<(String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(map_err)?
        .collect::<Result<_, _>>()
        .map_err(map_err)?;
    let mut tables = Vec::with_capacity(list.len());
    for (name, kind) in list {
        let (columns, primary_key) = columns(conn, &name)?;
        let foreign_keys = foreign_keys(conn, &name)?;
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        let estimated_rows: Option<i64> = if kind == "table" {
            conn.query_row(&format!("SELECT count(*) FROM {quoted}"), [], |r| r.get(0))
                .ok()
        } else {
            None
        };
        tables.push(TableDetail {
            schema: None,
            name,
            kind,
            estimated_rows,
            comment: None,
            columns,
            primary_key,
            foreign_keys,
            referenced_by: Vec::new(),
            row_filtered: false,
        });
    }
    Ok(tables)
}

/// The columns of table `name` in order, and its primary key's columns in key order.
fn columns(conn: &Connection, name: &str) -> Result<(Vec<ColumnDetail>, Vec<String>), DbError> {
    let mut cols = conn
        .prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid")
        .map_err(map_err)?;
    let mut pk: Vec<(i64, String)> = Vec::new();
    let columns: Vec<ColumnDetail> = cols
        .query_map([name], |r| {
            let col: String = r.get(0)?;
            let pkpos: i64 = r.get(4)?;
            Ok((
                ColumnDetail {
                    name: col.clone(),
                    data_type: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                    nullable: r.get::<_, i64>(2)? == 0,
                    default: r.get(3)?,
                    comment: None,
                    protected: false,
                },
                pkpos,
            ))
        })
        .map_err(map_err)?
        .filter_map(Result::ok)
        .map(|(c, p)| {
            if p > 0 {
                pk.push((p, c.name.clone()));
            }
            c
        })
        .collect();
    pk.sort();
    Ok((columns, pk.into_iter().map(|(_, c)| c).collect()))
}

/// The foreign keys of table `name`, a composite key's columns together.
fn foreign_keys(conn: &Connection, name: &str) -> Result<Vec<ForeignKeyDetail>, DbError> {
    let mut fks_stmt = conn
        .prepare("SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq")
        .map_err(map_err)?;
    let raw: Vec<(i64, String, String, Option<String>)> = fks_stmt
        .query_map([name], |r| Ok((r.get(0)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        .map_err(map_err)?
        .filter_map(Result::ok)
        .collect();
    let mut foreign_keys: Vec<ForeignKeyDetail> = Vec::new();
    let mut last_id = None;
    for (id, table, from, to) in raw {
        if last_id != Some(id) {
            foreign_keys.push(ForeignKeyDetail {
                columns: Vec::new(),
                referenced_schema: None,
                referenced_table: table,
                referenced_columns: Vec::new(),
            });
            last_id = Some(id);
        }
        if let Some(fk) = foreign_keys.last_mut() {
            fk.columns.push(from);
            fk.referenced_columns.push(to.unwrap_or_default());
        }
    }
    Ok(foreign_keys)
}
