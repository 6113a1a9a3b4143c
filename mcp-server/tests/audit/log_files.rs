//! Audit log files for the tests: records written, the chain verified (by the library and by the
//! binary's `audit verify`), lines read, tampered copies written.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sqlgate_mcp::audit::verify::{verify_files, Summary};
use sqlgate_mcp::audit::{Audit, AuditRecord, Decision};

/// Writes `n` allowed `run_query` records (`SELECT 0` ...).
pub async fn write_records(audit: &Audit, n: usize) {
    for i in 0..n {
        let rec = AuditRecord {
            sql: Some(format!("SELECT {i}")),
            ..AuditRecord::new("run_query", Decision::Allow)
        };
        audit.record(rec).await.expect("record");
    }
}

/// Runs the binary's `audit verify`; returns the exit code and stdout as JSON.
/// Runs the binary's `audit verify`; returns the exit code and stdout as JSON.
pub fn cli_verify(files: &[&Path]) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .args(["audit", "verify"])
        .args(files)
        .output()
        .expect("run");
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v)
}

/// The summary of an intact chain over `files`; a broken one fails the test.
pub fn intact(files: &[&Path]) -> Summary {
    match verify_files(files).expect("read") {
        Ok(s) => s,
        Err(b) => panic!("chain broken: {b:?}"),
    }
}

/// The lines of the file at `path`.
pub fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .map(str::to_string)
        .collect()
}

/// Writes `lines` (each with its newline) to a copy next to `path`.
pub fn tampered(path: &Path, name: &str, lines: &[String]) -> PathBuf {
    let p = path.with_file_name(name);
    std::fs::write(
        &p,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .expect("write");
    p
}
