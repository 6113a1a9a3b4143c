//! `sqlgate-mcp init --from-db`: golden drafts of Chinook on SQLite (the repository's fixture),
//! PostgreSQL (`SQLGATE_CHINOOK_URL`) and MariaDB (`SQLGATE_MARIADB_CHINOOK_URL`), and the
//! guesses on DuckDB (with the cargo feature): the expected PII guesses and no guess on a `name`
//! that is not a person's; comments as
//! descriptions and keys as relationships on databases of the test's own; `--sample`, which never
//! prints a value; `--include` / `--exclude`; and `--output`, which never replaces a file without
//! `--force`. `SQLGATE_BLESS=1` rewrites the golden files.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
#[allow(unused_imports)]
mod common;
#[cfg(feature = "duckdb")]
mod duckdb;
mod engines;
mod sqlite;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `sqlgate-mcp init ARGS`: exit code, stdout, stderr.
pub fn init(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .arg("init")
        .args(args)
        .output()
        .expect("run sqlgate-mcp init");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A draft that must be written: its text, checked to parse as TOML.
pub fn draft(args: &[&str]) -> (String, toml::Value) {
    let (code, out, err) = init(args);
    assert_eq!(code, Some(0), "init {args:?}: {err}");
    let parsed: toml::Value = toml::from_str(&out).unwrap_or_else(|e| panic!("{e}\n{out}"));
    (out, parsed)
}

/// `text` equals the golden file `name` (rewritten under `SQLGATE_BLESS=1`).
pub fn golden(name: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/init/golden")
        .join(name);
    if std::env::var("SQLGATE_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, text).expect("bless");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(text, want, "{name} differs (SQLGATE_BLESS=1 rewrites it)");
}

/// The `pii` of column `column` of table `table` in a parsed draft.
pub fn pii(draft: &toml::Value, table: &str, column: &str) -> Option<String> {
    draft
        .get("annotations")?
        .get("tables")?
        .get(table)?
        .get("columns")?
        .get(column)?
        .get("pii")?
        .as_str()
        .map(str::to_string)
}

/// Chinook's PII guesses, spelled by `n` (PascalCase or snake_case), and the names that are
/// not a person's.
pub fn chinook_guesses(draft: &toml::Value, n: impl Fn(&str) -> String) {
    for (table, column, category) in [
        ("customer", "email", "EMAIL_ADDRESS"),
        ("customer", "phone", "PHONE_NUMBER"),
        ("customer", "fax", "PHONE_NUMBER"),
        ("customer", "address", "LOCATION"),
        ("customer", "city", "LOCATION"),
        ("customer", "state", "LOCATION"),
        ("customer", "postal_code", "LOCATION"),
        ("customer", "country", "LOCATION"),
        ("customer", "first_name", "PERSON"),
        ("customer", "last_name", "PERSON"),
        ("employee", "email", "EMAIL_ADDRESS"),
        ("employee", "birth_date", "DATE_OF_BIRTH"),
        ("invoice", "billing_address", "LOCATION"),
        ("invoice", "billing_postal_code", "LOCATION"),
    ] {
        let got = pii(draft, &n(table), &n(column));
        assert_eq!(got.as_deref(), Some(category), "{table}.{column}");
    }
    for (table, column) in [
        ("track", "name"),
        ("genre", "name"),
        ("artist", "name"),
        ("media_type", "name"),
        ("playlist", "name"),
        ("album", "title"),
        ("customer", "company"),
        ("customer", "support_rep_id"),
        ("employee", "title"),
        ("employee", "hire_date"),
        ("invoice", "total"),
    ] {
        assert_eq!(pii(draft, &n(table), &n(column)), None, "{table}.{column}");
    }
}

/// `snake_case` as Chinook's SQLite and MySQL spell it (`PascalCase`).
pub fn pascal(s: &str) -> String {
    s.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// The repository's Chinook SQLite file, copied to `dir` (the fixture itself is never opened).
pub fn chinook_sqlite(dir: &Path) -> PathBuf {
    let file = common::chinook_fixture("Chinook_Sqlite.sqlite");
    let copy = dir.join("chinook.sqlite");
    std::fs::copy(&file, &copy).unwrap_or_else(|e| panic!("copy {}: {e}", file.display()));
    copy
}

/// The draft is a policy the server loads: its annotations, relationships and PII categories
/// parse as core's `Policy` (and validate against the catalog it names).
#[test]
fn the_draft_parses_as_a_policy() {
    let dir = tempfile::tempdir().unwrap();
    let db = chinook_sqlite(dir.path());
    let (text, _) = draft(&["--from-db", &format!("sqlite:{}", db.display())]);
    sqlgate_mcp::config::parse_policy(&text, true).unwrap_or_else(|e| panic!("{e}\n{text}"));
}
