//! `catalogFromDatabase(db)`: core's catalog read from a better-sqlite3 database.
//!
//! Trusted code reading the schema (fixed queries on SQLite's own catalog, never agent SQL). Every
//! value is selected as text so that a database in `safeIntegers` mode (BigInt) reads the same.

use std::collections::BTreeMap;

use napi::bindgen_prelude::{FromNapiValue, Function, JsObjectValue, Object, Unknown};
use napi::{Env, Result, ValueType};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use sqlgate::{Catalog, CatalogColumn, CatalogTable, ForeignKey};

use crate::convert::{self, Keys};
use crate::error::Failure;

/// One row per column of every table and view, SQLite's internal tables (`sqlite_%`) left out.
/// `sqlite_master`, not its alias `sqlite_schema`, which needs SQLite 3.33.
const COLUMNS: &str = "SELECT m.name AS tbl, m.type AS kind, p.name AS col, p.type AS type, \
     CAST(p.\"notnull\" AS TEXT) AS not_null, CAST(p.pk AS TEXT) AS pk \
     FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p \
     WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
     ORDER BY m.name, p.cid";

/// One row per column pair of every foreign key, in key order.
const FOREIGN_KEYS: &str =
    "SELECT m.name AS tbl, CAST(f.id AS TEXT) AS id, f.\"table\" AS referenced, \
     f.\"from\" AS col, f.\"to\" AS referenced_col \
     FROM sqlite_master AS m JOIN pragma_foreign_key_list(m.name) AS f \
     WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
     ORDER BY m.name, f.id, f.seq";

#[derive(Deserialize)]
struct ColumnRow {
    tbl: String,
    kind: String,
    col: String,
    #[serde(rename = "type")]
    data_type: Option<String>,
    not_null: String,
    pk: String,
}

#[derive(Deserialize)]
struct KeyRow {
    tbl: String,
    id: String,
    referenced: String,
    col: String,
    referenced_col: Option<String>,
}

/// The argument is not a better-sqlite3 database (or its query failed).
pub(crate) fn bad_db(message: impl Into<String>) -> Failure {
    Failure::argument("db", message)
}

/// `db.prepare(sql).all()` read into rows of `T`.
fn rows<T: DeserializeOwned>(db: &Object<'_>, sql: &str) -> std::result::Result<Vec<T>, Failure> {
    let expected =
        || bad_db("expected a better-sqlite3 Database (an object with prepare(sql).all())");
    let prepare: Unknown = db.get_named_property("prepare").map_err(|_| expected())?;
    if prepare.get_type().map_err(|_| expected())? != ValueType::Function {
        return Err(expected());
    }
    let prepare = Function::<&str, Object>::from_unknown(prepare).map_err(|_| expected())?;
    let statement = prepare
        .apply(db, sql)
        .map_err(|e| bad_db(format!("reading the schema failed: {}", e.reason)))?;
    let all: Function<(), Unknown> = statement
        .get_named_property("all")
        .map_err(|_| expected())?;
    let found = all
        .apply(statement, ())
        .map_err(|e| bad_db(format!("reading the schema failed: {}", e.reason)))?;
    let json = convert::js_to_json(found, Keys::Snake, "", 0)
        .map_err(|e| bad_db(format!("unexpected schema row: {}", e.message)))?;
    serde_json::from_value(json).map_err(|e| bad_db(format!("unexpected schema row: {e}")))
}

/// The tables and views of `db` with their columns, primary keys and foreign keys.
pub(crate) fn from_database(db: &Object<'_>) -> std::result::Result<Catalog, Failure> {
    let mut tables: BTreeMap<String, CatalogTable> = BTreeMap::new();
    let mut keys: BTreeMap<String, Vec<(u32, String)>> = BTreeMap::new();
    for row in rows::<ColumnRow>(db, COLUMNS)? {
        let is_table = row.kind == "table";
        let table = tables
            .entry(row.tbl.clone())
            .or_insert_with(|| CatalogTable {
                name: row.tbl.clone(),
                kind: Some(row.kind.clone()),
                ..CatalogTable::default()
            });
        table.columns.push(CatalogColumn {
            name: row.col.clone(),
            data_type: row.data_type.filter(|t| !t.is_empty()),
            // A view's columns carry no NOT NULL: unknown, so left out.
            nullable: is_table.then_some(row.not_null == "0"),
        });
        match row.pk.parse::<u32>() {
            Ok(position) if position > 0 => {
                keys.entry(row.tbl).or_default().push((position, row.col));
            }
            _ => {}
        }
    }
    for (name, mut columns) in keys {
        columns.sort();
        if let Some(table) = tables.get_mut(&name) {
            table.primary_key = columns.into_iter().map(|(_, c)| c).collect();
        }
    }
    let mut last: Option<(String, String)> = None;
    for row in rows::<KeyRow>(db, FOREIGN_KEYS)? {
        // `to` is NULL when the key references the parent's primary key.
        let position = match &last {
            Some((t, id)) if *t == row.tbl && *id == row.id => tables
                .get(&row.tbl)
                .and_then(|t| t.foreign_keys.last())
                .map_or(0, |fk| fk.columns.len()),
            _ => 0,
        };
        let target = row.referenced_col.clone().unwrap_or_else(|| {
            tables
                .get(&row.referenced)
                .and_then(|p| p.primary_key.get(position).cloned())
                .unwrap_or_else(|| row.col.clone())
        });
        let Some(table) = tables.get_mut(&row.tbl) else {
            continue;
        };
        if position == 0 {
            table.foreign_keys.push(ForeignKey {
                columns: Vec::new(),
                referenced_schema: None,
                referenced_table: row.referenced.clone(),
                referenced_columns: Vec::new(),
            });
        }
        if let Some(fk) = table.foreign_keys.last_mut() {
            fk.columns.push(row.col);
            fk.referenced_columns.push(target);
        }
        last = Some((row.tbl, row.id));
    }
    Ok(Catalog {
        tables: tables.into_values().collect(),
    })
}

/// The catalog as the JavaScript object `new Guard({ catalog })` takes (camelCase keys).
pub(crate) fn to_js<'e>(env: &'e Env, catalog: &Catalog) -> Result<Unknown<'e>> {
    convert::to_js_camel(env, catalog)
}
