//! MySQL / MariaDB introspection: the tables and views of the current database, with columns,
//! keys, comments and row estimates, from information_schema; and the columns that hold JSON.

use std::collections::HashSet;
use std::sync::Arc;

use mysql_async::prelude::Queryable;
use mysql_async::Conn;

use super::error::map_err;
use super::{Flavor, MysqlBackend};
use crate::backend::{ColumnDetail, DbError, ForeignKeyDetail, TableDetail};

impl MysqlBackend {
    /// Tables and views of the current database, with columns, keys, comments and row estimates.
    pub(super) async fn tables(&self) -> Result<Vec<TableDetail>, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let tables = introspect(&mut conn, self.flavor)
            .await
            .map_err(|e| map_err(&e))?;
        let json: HashSet<(String, String)> = tables
            .iter()
            .flat_map(|t| {
                t.columns
                    .iter()
                    .filter(|c| c.data_type == "json")
                    .map(|c| (t.name.clone(), c.name.clone()))
            })
            .collect();
        match self.json_columns.write() {
            Ok(mut set) => *set = Arc::new(json),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(json),
        }
        Ok(tables)
    }
}

/// information_schema.COLUMNS: table, column, type, IS_NULLABLE, default, comment.
type ColumnRow = (
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);
/// information_schema.KEY_COLUMN_USAGE: table, constraint, column, referenced table and column.
type KeyRow = (String, String, String, Option<String>, Option<String>);

/// Tables and views of the current database with their columns and keys.
async fn introspect(
    conn: &mut Conn,
    flavor: Flavor,
) -> Result<Vec<TableDetail>, mysql_async::Error> {
    let mut tables = relations(conn).await?;
    add_columns(conn, flavor, &mut tables).await?;
    add_keys(conn, &mut tables).await?;
    Ok(tables)
}

/// The tables and views, without their columns and keys.
async fn relations(conn: &mut Conn) -> Result<Vec<TableDetail>, mysql_async::Error> {
    let tables: Vec<(String, String, Option<u64>, Option<String>)> = conn
        .query(
            "SELECT TABLE_NAME, TABLE_TYPE, TABLE_ROWS, TABLE_COMMENT \
             FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME",
        )
        .await?;
    Ok(tables
        .into_iter()
        .map(|(name, kind, rows, comment)| TableDetail {
            schema: None,
            kind: if kind.contains("VIEW") {
                "view"
            } else {
                "table"
            }
            .to_string(),
            estimated_rows: rows.and_then(|r| i64::try_from(r).ok()),
            comment: comment.filter(|c| !c.is_empty() && c != "VIEW"),
            columns: Vec::new(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
            referenced_by: Vec::new(),
            row_filtered: false,
            name,
        })
        .collect())
}

/// Adds each table's columns, in order (MariaDB's JSON columns typed `json`).
async fn add_columns(
    conn: &mut Conn,
    flavor: Flavor,
    out: &mut [TableDetail],
) -> Result<(), mysql_async::Error> {
    // MariaDB's JSON columns are LONGTEXT checked with json_valid(column): named `json` here.
    // (MySQL's JSON is a type of its own, and its CHECK_CONSTRAINTS has no TABLE_NAME.)
    let column_type = match flavor {
        Flavor::Mariadb => {
            "IF(c.DATA_TYPE = 'longtext' AND EXISTS (SELECT 1 FROM \
             information_schema.CHECK_CONSTRAINTS k WHERE k.CONSTRAINT_SCHEMA = c.TABLE_SCHEMA \
             AND k.TABLE_NAME = c.TABLE_NAME \
             AND k.CHECK_CLAUSE = CONCAT('json_valid(`', c.COLUMN_NAME, '`)')), 'json', c.COLUMN_TYPE)"
        }
        Flavor::Mysql => "c.COLUMN_TYPE",
    };
    let columns: Vec<ColumnRow> = conn
        .query(format!(
            "SELECT c.TABLE_NAME, c.COLUMN_NAME, {column_type}, c.IS_NULLABLE, c.COLUMN_DEFAULT, \
             c.COLUMN_COMMENT FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = DATABASE() \
             ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION"
        ))
        .await?;
    for (table, name, data_type, nullable, default, comment) in columns {
        if let Some(t) = out.iter_mut().find(|t| t.name == table) {
            t.columns.push(ColumnDetail {
                name,
                data_type,
                nullable: nullable == "YES",
                default,
                comment: comment.filter(|c| !c.is_empty()),
                protected: false,
            });
        }
    }
    Ok(())
}

/// Adds each table's primary key and foreign keys.
async fn add_keys(conn: &mut Conn, out: &mut [TableDetail]) -> Result<(), mysql_async::Error> {
    let keys: Vec<KeyRow> = conn
        .query(
            "SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, \
             REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE \
             WHERE TABLE_SCHEMA = DATABASE() \
             AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL) \
             ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION",
        )
        .await?;
    // Rows come ordered by table and constraint: a composite key's columns are adjacent.
    let mut last: Option<(String, String)> = None;
    for (table, constraint, column, referenced_table, referenced_column) in keys {
        let Some(t) = out.iter_mut().find(|t| t.name == table) else {
            continue;
        };
        let (Some(rt), Some(rc)) = (referenced_table, referenced_column) else {
            t.primary_key.push(column);
            continue;
        };
        let same = last.as_ref() == Some(&(table.clone(), constraint.clone()));
        match t.foreign_keys.last_mut() {
            Some(fk) if same => {
                fk.columns.push(column);
                fk.referenced_columns.push(rc);
            }
            _ => t.foreign_keys.push(ForeignKeyDetail {
                columns: vec![column],
                referenced_schema: None,
                referenced_table: rt,
                referenced_columns: vec![rc],
            }),
        }
        last = Some((table, constraint));
    }
    Ok(())
}
