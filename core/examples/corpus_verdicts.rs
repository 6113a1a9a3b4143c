//! Prints one line per statement of JSONL corpus files: `id<TAB>dialect<TAB>verdict`, where the
//! verdict is `ok` or the refusal's code. Two builds' outputs, diffed, show what a change to the
//! guard approves or refuses anew: `corpus_verdicts FILE...`.
//!
//! Each row runs in its own dialect under the default policy; a sqlglot row in a dialect sqlgate
//! does not have is read as the closest one (`tsql` as mssql, `spark` as databricks, the
//! generic `sqlglot` as generic) or skipped.

// A tool: a failed unwrap is a bad argument, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use sqlgate::{Dialect, Guard, Policy};
use std::collections::BTreeMap;

/// The sqlgate dialect a corpus row's dialect is run in, if any.
fn dialect(name: &str) -> Option<Dialect> {
    let name = match name {
        "ansi" => "postgres",
        "tsql" | "fabric" => "mssql",
        "spark" | "spark2" => "databricks",
        "sqlglot" => "generic",
        other => other,
    };
    name.parse().ok()
}

fn main() {
    let mut guards: BTreeMap<Dialect, Guard> = BTreeMap::new();
    for file in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&file).expect("read the corpus file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let row: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            let Some(d) = dialect(row["dialect"].as_str().unwrap_or("postgres")) else {
                continue;
            };
            let guard = guards
                .entry(d)
                .or_insert_with(|| Guard::new(Policy::for_dialect(d)).expect("default policy"));
            let sql = row["sql"].as_str().unwrap_or_default();
            let verdict = match guard.check(sql) {
                Ok(_) => "ok".to_string(),
                Err(r) => r.error.code.to_string(),
            };
            println!("{}\t{d}\t{verdict}", row["id"].as_str().unwrap_or_default());
        }
    }
}
