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

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
fn shared_vectors() {
    let dir = common::repo_root().join("tests/vectors");
    let bless = std::env::var("SQLGATE_BLESS").is_ok_and(|v| v == "1");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/vectors")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no vectors in {}", dir.display());
    let mut failures = Vec::new();
    let (mut total, mut codes, mut classes, mut dialects, mut actions) = (
        0,
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
        BTreeSet::new(),
    );
    for file in &files {
        let mut cases = common::read_jsonl(file);
        for case in &mut cases {
            total += 1;
            let name = case["name"].as_str().unwrap_or_default().to_string();
            let sql = case["sql"].as_str().unwrap_or_default();
            let policy = policy_of(case);
            dialects.insert(policy.dialect);
            let guard = Guard::new(policy).unwrap_or_else(|e| panic!("{name}: {e}"));
            // `"entry": "mutation"` rows are checked by the mutation entry point.
            let verdict = if case["entry"] == "mutation" {
                serde_json::to_value(guard.mutation_verdict(sql))
            } else {
                serde_json::to_value(guard.verdict(sql))
            }
            .expect("verdict serialises");
            if let Some(code) = verdict["error"]["code"].as_str() {
                codes.insert(code.to_string());
            }
            if let Some(class) = verdict["query_class"].as_str() {
                classes.insert(class.to_string());
            }
            if let Some(action) = verdict["limit"]["action"].as_str() {
                actions.insert(action.to_string());
            }
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
    assert!(total >= 300, "only {total} vectors");
    // Coverage the vectors promise: every refusal code a guard can produce, every class,
    // every dialect, every limit action.
    for code in ErrorCode::ALL {
        let reachable = !matches!(code, ErrorCode::InternalRoundtrip | ErrorCode::BadRequest);
        assert!(
            !reachable || codes.contains(code.as_str()),
            "no vector produces {code}"
        );
    }
    for class in QueryClass::ALL {
        assert!(
            classes.contains(class.as_str()),
            "no vector has class {class}"
        );
    }
    assert_eq!(
        dialects.len(),
        sqlgate::Dialect::ALL.len(),
        "dialects covered: {dialects:?}"
    );
    assert_eq!(actions.len(), 4, "limit actions covered: {actions:?}");
}
