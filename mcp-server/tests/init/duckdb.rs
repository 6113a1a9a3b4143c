//! `init` on DuckDB's Chinook (cargo feature `duckdb`; compiled and run only with it).

use crate::{chinook_guesses, chinook_sqlite, draft};

#[test]
fn chinook_duckdb_guesses() {
    let dir = tempfile::tempdir().unwrap();
    let sqlite = chinook_sqlite(dir.path());
    let (path, conn) = crate::common::chinook_duckdb::build(dir.path(), &sqlite).unwrap();
    drop(conn);
    let (text, parsed) = draft(&["--from-db", &format!("duckdb:{}", path.display())]);
    assert!(text.contains("dialect = \"duckdb\""), "{text}");
    // Tables of the default schema `main` are written without it.
    let allow = parsed["tables"]["allow"].as_array().unwrap();
    assert!(
        allow.iter().any(|v| v.as_str() == Some("customer")),
        "{text}"
    );
    chinook_guesses(&parsed, str::to_string);
}
