//! The shared vectors (`tests/vectors/*.jsonl`): every layer runs the same cases. Each case's
//! `check` states what a person expects; `expect` is the exact verdict all layers must produce.
//! `SQLGATE_BLESS=1` rewrites `expect` from the current verdicts, but only where `check` holds.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;

use serde_json::Value;
use sqlgate::{ErrorCode, Guard, Policy, QueryClass};

fn policy_of(case: &Value) -> Policy {
    let mut policy = case
        .get("policy")
        .cloned()
        .unwrap_or_else(|| serde_json::json!({}));
    if let (Some(obj), Some(d)) = (policy.as_object_mut(), case.get("dialect")) {
        obj.entry("dialect").or_insert(d.clone());
    }
    serde_json::from_value(policy).unwrap_or_else(|e| panic!("{}: bad policy: {e}", case["name"]))
}

/// Differences between the human `check` and the verdict.
fn check_mismatches(check: &Value, verdict: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (key, want) in check.as_object().into_iter().flatten() {
        let got = match key.as_str() {
            "code" | "hint" | "stage" => &verdict["error"][key],
            _ => &verdict[key],
        };
        if got != want {
            out.push(format!("{key}: expected {want}, got {got}"));
        }
    }
    out
}

/// What the vectors reached: they promise every refusal code a guard can produce, every class,
/// every dialect and every limit action.
#[derive(Default)]
struct Coverage {
    total: usize,
    codes: BTreeSet<String>,
    classes: BTreeSet<String>,
    dialects: BTreeSet<sqlgate::Dialect>,
    actions: BTreeSet<String>,
}

impl Coverage {
    fn record(&mut self, verdict: &Value) {
        let insert = |set: &mut BTreeSet<String>, value: &Value| {
            if let Some(text) = value.as_str() {
                set.insert(text.to_string());
            }
        };
        insert(&mut self.codes, &verdict["error"]["code"]);
        insert(&mut self.classes, &verdict["query_class"]);
        insert(&mut self.actions, &verdict["limit"]["action"]);
    }

    fn assert_complete(&self) {
        let total = self.total;
        assert!(total >= 300, "only {total} vectors");
        for code in ErrorCode::ALL {
            // Not a check's verdict: the self-check's own failure, and the front ends' codes (a
            // malformed request; a placeholder where nothing binds it, from
            // `Approved::without_parameters`, tested in tests/api.rs).
            let reachable = !matches!(
                code,
                ErrorCode::InternalRoundtrip | ErrorCode::BadRequest | ErrorCode::UnboundParameter
            );
            assert!(
                !reachable || self.codes.contains(code.as_str()),
                "no vector produces {code}"
            );
        }
        for class in QueryClass::ALL {
            assert!(
                self.classes.contains(class.as_str()),
                "no vector has class {class}"
            );
        }
        assert_eq!(
            self.dialects.len(),
            sqlgate::Dialect::ALL.len(),
            "dialects covered: {:?}",
            self.dialects
        );
        assert_eq!(
            self.actions.len(),
            4,
            "limit actions covered: {:?}",
            self.actions
        );
    }
}

/// The `.jsonl` files of `dir`, sorted.
fn vector_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/vectors")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    files
}

/// One case's verdict, by the entry point it names (`"entry": "mutation"` rows are checked by
/// the mutation entry point), in its JSON shape.
fn verdict_of(case: &Value, coverage: &mut Coverage) -> Value {
    let name = case["name"].as_str().unwrap_or_default();
    let sql = case["sql"].as_str().unwrap_or_default();
    let policy = policy_of(case);
    coverage.dialects.insert(policy.dialect);
    let guard = Guard::new(policy).unwrap_or_else(|e| panic!("{name}: {e}"));
    if case["entry"] == "mutation" {
        serde_json::to_value(guard.mutation_verdict(sql))
    } else {
        serde_json::to_value(guard.verdict(sql))
    }
    .expect("verdict serialises")
}

#[test]
fn shared_vectors() {
    let dir = common::repo_root().join("tests/vectors");
    let bless = std::env::var("SQLGATE_BLESS").is_ok_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut coverage = Coverage::default();
    for file in &vector_files(&dir) {
        let mut cases = common::read_jsonl(file);
        for case in &mut cases {
            coverage.total += 1;
            let name = case["name"].as_str().unwrap_or_default().to_string();
            let sql = case["sql"].as_str().unwrap_or_default().to_string();
            let verdict = verdict_of(case, &mut coverage);
            coverage.record(&verdict);
            let mismatches = check_mismatches(&case["check"], &verdict);
            if !mismatches.is_empty() {
                failures.push(format!(
                    "{}: {name}: {}\n    {sql}\n    got {verdict}",
                    file.display(),
                    mismatches.join("; ")
                ));
                continue;
            }
            if bless {
                case["expect"] = verdict;
            } else if case["expect"] != verdict {
                failures.push(format!(
                    "{}: {name}: verdict changed (rerun with SQLGATE_BLESS=1 if intended)\n    expected {}\n    got      {verdict}",
                    file.display(),
                    case["expect"]
                ));
            }
        }
        if bless && failures.is_empty() {
            let text: String = cases
                .iter()
                .map(|c| format!("{}\n", serde_json::to_string(c).expect("json")))
                .collect();
            std::fs::write(file, text).expect("write vectors");
        }
    }
    assert!(
        failures.is_empty(),
        "{} vector failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    coverage.assert_complete();
}
