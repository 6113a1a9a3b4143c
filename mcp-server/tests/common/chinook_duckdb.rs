//! Chinook as a DuckDB file, copied from the repository's SQLite Chinook with rusqlite and
//! DuckDB's appender (DuckDB's sqlite extension would need a download). Tables and columns get the
//! snake_case names of the PostgreSQL Chinook (`CustomerId` -> `customer_id`), which the vectors
//! and the benchmark's queries use; primary and foreign keys are kept (self references left out:
//! DuckDB checks them per row).
//!
//! Shared by the DuckDB tests (`tests/duckdb/`, through `tests/common`) and the benchmark
//! (`bench/bench.rs` includes this file by path), so both query the same database.

use std::path::{Path, PathBuf};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// `CustomerId` -> `customer_id`: the names of the PostgreSQL Chinook.
pub fn snake(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower = i > 0 && chars[i - 1].is_lowercase();
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || next_lower) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(*c);
        }
    }
    out
}

/// The DuckDB type for a column type of the SQLite Chinook.
fn duck_type(sqlite_type: &str) -> String {
    let t = sqlite_type.to_ascii_uppercase();
    if t.starts_with("NVARCHAR") || t.starts_with("VARCHAR") {
        "VARCHAR".into()
    } else if let Some(rest) = t.strip_prefix("NUMERIC") {
        format!("DECIMAL{rest}")
    } else if t == "DATETIME" {
        "TIMESTAMP".into()
    } else {
        t
    }
}

/// Copies one SQLite table (its columns, primary key, foreign keys other than to itself, and
/// rows) into `dst` under its snake_case name.
fn copy_table(
    src: &rusqlite::Connection,
    dst: &duckdb::Connection,
    table: &str,
    fks: &[(String, String, String)],
) -> Result<(), Error> {
    let cols: Vec<(String, String, bool, i64)> = src
        .prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1) ORDER BY cid")?
        .query_map([table], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    let mut defs: Vec<String> = cols
        .iter()
        .map(|(n, ty, not_null, _)| {
            let null = if *not_null { " NOT NULL" } else { "" };
            format!("{} {}{null}", snake(n), duck_type(ty))
        })
        .collect();
    let mut pk: Vec<(i64, String)> = cols
        .iter()
        .filter(|c| c.3 > 0)
        .map(|c| (c.3, snake(&c.0)))
        .collect();
    pk.sort();
    let pk: Vec<String> = pk.into_iter().map(|p| p.1).collect();
    defs.push(format!("PRIMARY KEY ({})", pk.join(", ")));
    for (target, from, to) in fks.iter().filter(|f| f.0 != table) {
        defs.push(format!(
            "FOREIGN KEY ({}) REFERENCES {} ({})",
            snake(from),
            snake(target),
            snake(to)
        ));
    }
    dst.execute_batch(&format!(
        "CREATE TABLE {} ({})",
        snake(table),
        defs.join(", ")
    ))?;
    let mut stmt = src.prepare(&format!("SELECT * FROM \"{table}\""))?;
    let n = stmt.column_count();
    let mut rows = stmt.query([])?;
    let mut app = dst.appender(&snake(table))?;
    while let Some(row) = rows.next()? {
        let mut values: Vec<duckdb::types::Value> = Vec::with_capacity(n);
        for i in 0..n {
            use duckdb::types::Value as D;
            use rusqlite::types::ValueRef as S;
            values.push(match row.get_ref(i)? {
                S::Null => D::Null,
                S::Integer(v) => D::BigInt(v),
                S::Real(v) => D::Double(v),
                S::Text(v) => D::Text(String::from_utf8_lossy(v).into_owned()),
                S::Blob(v) => D::Blob(v.to_vec()),
            });
        }
        app.append_row(duckdb::appender_params_from_iter(values))?;
    }
    app.flush()?;
    Ok(())
}

/// Creates `dir/chinook.duckdb` holding every table of the SQLite Chinook at `sqlite`, and
/// returns its path with the DuckDB connection still open (to add more before closing it).
pub fn build(dir: &Path, sqlite: &Path) -> Result<(PathBuf, duckdb::Connection), Error> {
    let path = dir.join("chinook.duckdb");
    let src =
        rusqlite::Connection::open_with_flags(sqlite, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let dst = duckdb::Connection::open(&path)?;
    let mut names: Vec<String> = src
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%'")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    // Referenced tables first (DuckDB checks that a foreign key's target exists).
    let mut created: Vec<String> = Vec::new();
    while !names.is_empty() {
        let before = names.len();
        let mut waiting = Vec::new();
        for table in std::mem::take(&mut names) {
            let fks: Vec<(String, String, String)> = src
                .prepare("SELECT \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1)")?
                .query_map([&table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()?;
            let ready = fks
                .iter()
                .all(|(target, _, _)| *target == table || created.contains(target));
            if ready {
                copy_table(&src, &dst, &table, &fks)?;
                created.push(table);
            } else {
                waiting.push(table);
            }
        }
        if waiting.len() == before {
            return Err(format!("foreign keys in a cycle: {waiting:?}").into());
        }
        names = waiting;
    }
    Ok((path, dst))
}
