//! DuckDB introspection: the tables and views of the open database (not DuckDB's internal
//! ones), with their columns, primary and foreign keys, and estimated row counts.

use duckdb::Connection;

use super::{map_err, DuckdbBackend};
use crate::backend::{ColumnDetail, DbError, DbErrorCode, ForeignKeyDetail, TableDetail};

impl DuckdbBackend {
    /// Reads tables, views, columns, keys and estimated row counts.
    pub(super) async fn tables(&self) -> Result<Vec<TableDetail>, DbError> {
        let conn = self.connect()?;
        tokio::task::spawn_blocking(move || introspect(&conn).map_err(|e| map_err(e, false)))
            .await
            .map_err(|e| DbError::new(DbErrorCode::DatabaseError, format!("worker failed: {e}")))?
    }
}

/// The strings of a `VARCHAR[]` value.
fn strings(v: duckdb::types::Value) -> Vec<String> {
    match v {
        duckdb::types::Value::List(items) | duckdb::types::Value::Array(items) => items
            .into_iter()
            .filter_map(|i| match i {
                duckdb::types::Value::Text(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Tables and views of the open database (not DuckDB's internal ones), with their columns,
/// primary and foreign keys, and `duckdb_tables()`'s estimated row count.
fn introspect(conn: &Connection) -> duckdb::Result<Vec<TableDetail>> {
    let mut tables = relations(conn)?;
    add_columns(conn, &mut tables)?;
    add_keys(conn, &mut tables)?;
    Ok(tables)
}

/// The table `schema.name` among `tables`.
fn find<'t>(
    tables: &'t mut [TableDetail],
    schema: &str,
    name: &str,
) -> Option<&'t mut TableDetail> {
    tables
        .iter_mut()
        .find(|t| t.name == name && t.schema.as_deref() == Some(schema))
}

/// The tables and views, without their columns and keys.
fn relations(conn: &Connection) -> duckdb::Result<Vec<TableDetail>> {
    let mut stmt = conn.prepare(
        "SELECT schema_name, table_name, 'table', estimated_size, comment FROM duckdb_tables() \
         WHERE database_name = current_database() AND NOT internal AND NOT temporary \
         UNION ALL \
         SELECT schema_name, view_name, 'view', NULL, comment FROM duckdb_views() \
         WHERE database_name = current_database() AND NOT internal AND NOT temporary \
         ORDER BY 1, 2",
    )?;
    let tables: Vec<TableDetail> = stmt
        .query_map([], |r| {
            Ok(TableDetail {
                schema: Some(r.get(0)?),
                name: r.get(1)?,
                kind: r.get(2)?,
                estimated_rows: r.get(3)?,
                comment: r.get(4)?,
                columns: Vec::new(),
                primary_key: Vec::new(),
                foreign_keys: Vec::new(),
                referenced_by: Vec::new(),
                row_filtered: false,
            })
        })?
        .collect::<duckdb::Result<_>>()?;
    Ok(tables)
}

/// Adds each table's columns, in order.
fn add_columns(conn: &Connection, tables: &mut [TableDetail]) -> duckdb::Result<()> {
    let mut stmt = conn.prepare(
        "SELECT schema_name, table_name, column_name, data_type, is_nullable, column_default, \
         comment FROM duckdb_columns() \
         WHERE database_name = current_database() AND NOT internal \
         ORDER BY schema_name, table_name, column_index",
    )?;
    let columns = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            ColumnDetail {
                name: r.get(2)?,
                data_type: r.get(3)?,
                nullable: r.get(4)?,
                default: r.get(5)?,
                comment: r.get(6)?,
                protected: false,
            },
        ))
    })?;
    for c in columns {
        let (schema, table, column) = c?;
        if let Some(t) = find(tables, &schema, &table) {
            t.columns.push(column);
        }
    }
    Ok(())
}

/// Adds each table's primary key and foreign keys.
fn add_keys(conn: &Connection, tables: &mut [TableDetail]) -> duckdb::Result<()> {
    let mut stmt = conn.prepare(
        "SELECT schema_name, table_name, constraint_type, constraint_column_names, \
         referenced_table, referenced_column_names FROM duckdb_constraints() \
         WHERE database_name = current_database() \
         AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY') \
         ORDER BY schema_name, table_name, constraint_index",
    )?;
    let keys = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            strings(r.get(3)?),
            r.get::<_, Option<String>>(4)?,
            strings(r.get(5)?),
        ))
    })?;
    for k in keys {
        let (schema, table, kind, columns, referenced_table, referenced_columns) = k?;
        let Some(t) = find(tables, &schema, &table) else {
            continue;
        };
        if kind == "PRIMARY KEY" {
            t.primary_key = columns;
        } else if let Some(referenced_table) = referenced_table {
            // DuckDB's foreign keys stay within the schema of the referencing table.
            t.foreign_keys.push(ForeignKeyDetail {
                columns,
                referenced_schema: Some(schema),
                referenced_table,
                referenced_columns,
            });
        }
    }
    Ok(())
}
