//! The coverage check (core/src/validate/coverage.rs) refuses a statement holding a name the
//! walker did not resolve. It must cost no false refusal: every statement of every corpus and
//! every vector, in its dialect, read as a query and as a mutation, is never refused by it. A
//! refusal by it here means the walker fails to model syntax real SQL uses: model it.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use sqlgate::{Dialect, Guard, GuardError, Policy};

use common::{corpus_dir, read_jsonl, repo_root};

/// Every corpus file, read-only ones and the mixed ones (pg_regress, sqlglot).
const CORPORA: [&str; 9] = [
    "spider/spider_dev.jsonl",
    "spider/spider_train.jsonl",
    "chinook/chinook_gold.jsonl",
    "chinook/chinook_gold_postgres.jsonl",
    "bird_minidev/bird_minidev.jsonl",
    "tpc/tpch.jsonl",
    "tpc/tpcds.jsonl",
    "pg_regress/pg_regress.jsonl",
    "sqlglot/sqlglot.jsonl",
];

/// The sqlgate dialect a row's dialect is run in (sqlglot's names mapped to the closest), if any.
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

/// The refusals the coverage check gives (a name not resolved, a node not counted).
fn by_coverage(error: &GuardError) -> bool {
    error
        .message
        .contains("construct the validator does not model")
        || error.message.contains("not understood by the validator")
}

/// Guards per dialect: the default policy for reads, and one that lets every table be written,
/// unbounded, so that a mutation reaches the walker.
struct Guards(BTreeMap<Dialect, (Guard, Guard)>);

impl Guards {
    fn get(&mut self, d: Dialect) -> &(Guard, Guard) {
        self.0.entry(d).or_insert_with(|| {
            let read = Guard::new(Policy::for_dialect(d)).unwrap();
            let writes = format!(
                r#"{{"dialect": "{d}", "writes": {{"tables": ["*"],
                    "classes": ["mutation_create", "mutation_delete"], "allow_unbounded": true}}}}"#
            );
            let write = Guard::new(Policy::from_json(&writes).unwrap()).unwrap();
            (read, write)
        })
    }

    /// A description of the coverage refusal of `sql`, read as a query and as a mutation.
    fn refusal(&mut self, d: Dialect, sql: &str) -> Option<String> {
        let (read, write) = self.get(d);
        let as_read = read.check(sql).err().map(|r| r.error);
        let as_write = write.check_mutation(sql).err().map(|r| r.error);
        [as_read, as_write]
            .into_iter()
            .flatten()
            .find(by_coverage)
            .map(|e| format!("{}: {}", e.code, e.message))
    }
}

#[test]
fn no_corpus_statement_is_refused_by_the_coverage_check() {
    let Some(dir) = corpus_dir() else { return };
    let mut guards = Guards(BTreeMap::new());
    let (mut checked, mut failures) = (0, Vec::new());
    for file in CORPORA {
        for row in read_jsonl(&dir.join(file)) {
            let Some(d) = dialect(row["dialect"].as_str().unwrap_or("postgres")) else {
                continue;
            };
            let sql = row["sql"].as_str().unwrap_or_default();
            checked += 1;
            if let Some(refusal) = guards.refusal(d, sql) {
                failures.push(format!("{} [{d}] {refusal}\n    {sql}", row["id"]));
            }
        }
    }
    println!(
        "coverage: {checked} corpus statements, {} refused by it",
        failures.len()
    );
    assert!(
        checked > 35_000,
        "only {checked} corpus statements were read"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn no_vector_is_refused_by_the_coverage_check() {
    let mut guards = Guards(BTreeMap::new());
    let mut failures = Vec::new();
    let mut checked = 0;
    let vectors = std::fs::read_dir(repo_root().join("tests/vectors")).unwrap();
    for path in vectors.map(|e| e.unwrap().path()) {
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        for row in read_jsonl(&path) {
            let Some(d) = dialect(row["dialect"].as_str().unwrap_or("postgres")) else {
                continue;
            };
            let Some(sql) = row["sql"].as_str() else {
                continue;
            };
            checked += 1;
            if let Some(refusal) = guards.refusal(d, sql) {
                failures.push(format!(
                    "{}: {} [{d}] {refusal}",
                    path.display(),
                    row["name"]
                ));
            }
        }
    }
    assert!(checked > 1000, "only {checked} vectors were read");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
