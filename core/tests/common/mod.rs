//! Helpers shared by the integration tests: where the corpus is, reading JSONL, guards.
#![allow(dead_code)]

use std::path::PathBuf;

use sqlgate::{Dialect, Guard, Policy};

/// True when running in CI, where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The shared corpus folder (`$SQLGATE_CORPUS`, else `../shared/corpus` beside the repo).
/// `None` (with a message) when it is absent outside CI; a panic when it is absent in CI.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SQLGATE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    if dir.is_dir() {
        return Some(dir);
    }
    if in_ci() {
        panic!("corpus folder {} is missing; CI requires it", dir.display());
    }
    eprintln!(
        "SKIPPED: corpus folder {} not found (set SQLGATE_CORPUS); corpus tests did not run",
        dir.display()
    );
    None
}

/// One JSON object per line.
pub fn read_jsonl(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("{}:{}: bad JSON: {e}", path.display(), i + 1))
        })
        .collect()
}

/// The corpus's dialect name as a sqlgate dialect (`ansi` TPC texts are run as postgres).
pub fn dialect_of(row: &serde_json::Value) -> Dialect {
    match row["dialect"].as_str().unwrap_or("postgres") {
        "ansi" => Dialect::Postgres,
        other => other
            .parse()
            .unwrap_or_else(|e| panic!("row {}: {e}", row["id"])),
    }
}

/// A default guard for `dialect`, with an optional row cap.
pub fn guard(dialect: Dialect, max_rows: Option<u64>) -> Guard {
    Guard::new(Policy {
        max_rows,
        ..Policy::for_dialect(dialect)
    })
    .expect("default policy compiles")
}

/// A policy for `dialect` with no row cap, the row filters `rows` (a JSON object) and `extra`
/// (more JSON fields, each after a comma).
pub fn row_filter_policy(dialect: &str, rows: &str, extra: &str) -> Policy {
    let text = format!(r#"{{"dialect": "{dialect}", "max_rows": null, "rows": {rows}{extra}}}"#);
    Policy::from_json(&text).expect("test policy parses")
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A superuser connection to the Chinook database of the throwaway cluster
/// (`SQLGATE_CHINOOK_URL`, started by scripts/test.sh), or `None` with a message saying that
/// `what` did not run; a panic in CI, where nothing may be skipped.
pub fn chinook_client(what: &str) -> Option<postgres::Client> {
    let Ok(url) = std::env::var("SQLGATE_CHINOOK_URL") else {
        assert!(
            !in_ci(),
            "SQLGATE_CHINOOK_URL is not set; CI requires the PostgreSQL tests"
        );
        eprintln!(
            "SKIPPED: SQLGATE_CHINOOK_URL not set (scripts/test.sh starts a cluster); {what} did not run"
        );
        return None;
    };
    Some(postgres::Client::connect(&url, postgres::NoTls).expect("connect to SQLGATE_CHINOOK_URL"))
}

/// The rows of a simple-query response as sorted `a|b|c` lines (`NULL` for null).
pub fn text_rows(messages: &[postgres::SimpleQueryMessage]) -> Vec<String> {
    let mut out: Vec<String> = messages
        .iter()
        .filter_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => Some(
                (0..r.len())
                    .map(|i| r.get(i).unwrap_or("NULL").to_string())
                    .collect::<Vec<_>>()
                    .join("|"),
            ),
            _ => None,
        })
        .collect();
    out.sort();
    out
}
