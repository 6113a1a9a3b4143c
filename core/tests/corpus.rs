//! Real SQL written elsewhere: every read-only query in Spider, Chinook, BIRD and TPC must be
//! allowed (but for a short, justified list), and every non-SELECT statement in PostgreSQL's
//! regression suite must be refused with the class its own parser gives it.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeMap, HashMap};

use sqlgate::{Dialect, ErrorCode, QueryClass};

use common::{corpus_dir, dialect_of, guard, read_jsonl, repo_root};

/// `id<TAB>code<TAB>reason` lines: queries of the allowed corpora that are expected to be refused.
fn expected_refusals() -> HashMap<String, (String, String)> {
    let path = repo_root().join("core/tests/expected_refusals.tsv");
    let text = std::fs::read_to_string(&path).expect("expected_refusals.tsv");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.splitn(3, '\t');
            let id = parts.next().unwrap_or_default().to_string();
            let code = parts.next().unwrap_or_default().to_string();
            let reason = parts.next().unwrap_or_default().to_string();
            assert!(
                !reason.trim().is_empty(),
                "expected refusal {id} needs a reason"
            );
            (id, (code, reason))
        })
        .collect()
}

const ALLOWED_CORPORA: [&str; 7] = [
    "spider/spider_dev.jsonl",
    "spider/spider_train.jsonl",
    "chinook/chinook_gold.jsonl",
    "chinook/chinook_gold_postgres.jsonl",
    "bird_minidev/bird_minidev.jsonl",
    "tpc/tpch.jsonl",
    "tpc/tpcds.jsonl",
];

#[test]
fn read_only_corpora_are_allowed_and_fixed_points() {
    let Some(dir) = corpus_dir() else { return };
    let expected = expected_refusals();
    let mut guards: BTreeMap<Dialect, sqlgate::Guard> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut seen_expected = 0;
    for file in ALLOWED_CORPORA {
        let rows = read_jsonl(&dir.join(file));
        assert!(!rows.is_empty(), "{file} is empty");
        let mut refused = 0;
        for row in &rows {
            let id = row["id"].as_str().unwrap_or_default().to_string();
            let sql = row["sql"].as_str().unwrap_or_default();
            let dialect = dialect_of(row);
            let g = guards
                .entry(dialect)
                .or_insert_with(|| guard(dialect, Some(1000)));
            match (g.check(sql), expected.get(&id)) {
                (Ok(approved), None) => {
                    let again = g
                        .check(&approved.sql)
                        .unwrap_or_else(|r| panic!("{id}: approved SQL refused on re-check: {r}"));
                    assert_eq!(again.sql, approved.sql, "{id}: not a fixed point");
                    assert_eq!(approved.query_class, QueryClass::Select);
                }
                (Ok(_), Some(_)) => failures.push(format!(
                    "{id}: listed as an expected refusal but allowed; remove it from expected_refusals.tsv"
                )),
                (Err(r), Some((code, _))) => {
                    refused += 1;
                    seen_expected += 1;
                    if r.error.code.as_str() != code {
                        failures.push(format!("{id}: refused with {} but {code} expected", r.error.code));
                    }
                }
                (Err(r), None) => {
                    refused += 1;
                    failures.push(format!("{id} [{dialect}]: {}: {}\n    {sql}", r.error.code, r.error.message));
                }
            }
        }
        // Under 0.5% of each corpus may be refused.
        assert!(
            refused * 200 <= rows.len(),
            "{file}: {refused} of {} refused (over 0.5%)",
            rows.len()
        );
        println!(
            "{file}: {} queries, {refused} expected refusals",
            rows.len()
        );
    }
    assert!(
        failures.is_empty(),
        "{} unexpected results:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        seen_expected,
        expected.len(),
        "expected_refusals.tsv lists ids that no corpus has"
    );
}

/// The class PostgreSQL's statement node type implies.
fn class_of_pg_node(node: &str, row: &serde_json::Value) -> Option<QueryClass> {
    use QueryClass::*;
    Some(match node {
        "SelectStmt" => {
            if row["select_into"].as_bool() == Some(true) {
                Ddl
            } else {
                // Data-modifying CTEs take the class of the DML inside (checked separately).
                return None;
            }
        }
        "InsertStmt" | "UpdateStmt" => MutationCreate,
        "DeleteStmt" | "TruncateStmt" => MutationDelete,
        // MERGE is mutation_delete when it has a DELETE action.
        "MergeStmt" => {
            let sql = row["sql"].as_str().unwrap_or_default().to_ascii_uppercase();
            if sql.contains("DELETE") {
                MutationDelete
            } else {
                MutationCreate
            }
        }
        // EXPLAIN takes the class of what it explains.
        "ExplainStmt" | "PrepareStmt" | "DeclareCursorStmt" => return None,
        "VariableSetStmt" | "VariableShowStmt" | "TransactionStmt" | "FetchStmt"
        | "DeallocateStmt" | "ClosePortalStmt" | "DiscardStmt" | "ListenStmt" | "UnlistenStmt" => {
            Session
        }
        "VacuumStmt"
        | "GrantStmt"
        | "GrantRoleStmt"
        | "CreateRoleStmt"
        | "DropRoleStmt"
        | "AlterRoleStmt"
        | "ExecuteStmt"
        | "DoStmt"
        | "CallStmt"
        | "LockStmt"
        | "LoadStmt"
        | "NotifyStmt"
        | "AlterSystemStmt"
        | "CheckPointStmt"
        | "ReindexStmt"
        | "ClusterStmt"
        | "AlterDefaultPrivilegesStmt"
        | "DropOwnedStmt"
        | "ReassignOwnedStmt" => Admin,
        "CopyStmt" => {
            let sql = row["sql"].as_str().unwrap_or_default().to_ascii_uppercase();
            if sql.contains(" FROM ") && !sql.contains(" TO ") && !sql.contains("PROGRAM") {
                MutationCreate
            } else {
                Admin
            }
        }
        _ => Ddl,
    })
}

#[test]
fn pg_regress_non_selects_are_refused_with_their_class() {
    let Some(dir) = corpus_dir() else { return };
    let rows = read_jsonl(&dir.join("pg_regress/pg_regress.jsonl"));
    let g = guard(Dialect::Postgres, Some(1000));
    let mut failures = Vec::new();
    let (mut must_refuse, mut selects, mut selects_allowed, mut parse_errors) = (0, 0, 0, 0);
    for row in &rows {
        let id = row["id"].as_str().unwrap_or_default();
        let sql = row["sql"].as_str().unwrap_or_default();
        let Some(types) = row["pg_stmt_types"].as_array() else {
            continue;
        };
        let types: Vec<&str> = types.iter().filter_map(|t| t.as_str()).collect();
        let flagged = ["data_modifying_cte", "select_locking", "select_into"]
            .iter()
            .any(|f| row[*f].as_bool() == Some(true));
        let plain_select = types.iter().all(|t| *t == "SelectStmt") && !flagged;
        let verdict = g.check(sql);
        if plain_select {
            selects += 1;
            selects_allowed += usize::from(verdict.is_ok());
            continue;
        }
        must_refuse += 1;
        let rejection = match verdict {
            Ok(a) => {
                failures.push(format!("{id}: allowed {types:?} as `{}`", a.sql));
                continue;
            }
            Err(r) => r,
        };
        // A statement sqlparser cannot read is classed by its leading keywords: the same class
        // is expected of it as of the statements it parses.
        if rejection.error.code == ErrorCode::ParseError {
            parse_errors += 1;
        }
        failures.extend(misclassified(id, sql, &types, row, &rejection));
    }
    println!(
        "pg_regress: {must_refuse} statements refused as required ({parse_errors} of them parse errors, classed by keywords); {selects_allowed} of {selects} plain SELECTs allowed"
    );
    assert!(
        must_refuse > 3000,
        "too few non-SELECT statements checked: {must_refuse}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// What is wrong with the refusal of one pg_regress statement that must be refused, if
/// anything: a class other than PostgreSQL's node type says (or a less privileged one), a
/// data-modifying CTE not classed as a mutation, a locking SELECT refused for another reason.
fn misclassified(
    id: &str,
    sql: &str,
    types: &[&str],
    row: &serde_json::Value,
    rejection: &sqlgate::Rejection,
) -> Option<String> {
    let expected = types.iter().filter_map(|t| class_of_pg_node(t, row)).max();
    let class = rejection.query_class;
    // A nested statement raises the payload's class (the most privileged one counts):
    // `WITH d AS (DELETE ...) INSERT ...` is mutation_delete, `CREATE RULE ... DO NOTIFY` admin.
    let upper = sql.to_ascii_uppercase();
    let nested = ["DELETE", "INSERT", "UPDATE", " INTO ", "NOTIFY"]
        .iter()
        .filter(|k| upper.contains(*k))
        .count()
        > 1
        || row["data_modifying_cte"].as_bool() == Some(true);
    let ok = match expected {
        Some(e) => class == e || (class > e && nested),
        None => {
            class != QueryClass::Select
                || rejection.error.code != ErrorCode::StatementNotAllowed
                || types.contains(&"ExplainStmt")
        }
    };
    if row["data_modifying_cte"].as_bool() == Some(true)
        && !matches!(
            class,
            QueryClass::MutationCreate | QueryClass::MutationDelete
        )
    {
        return Some(format!("{id}: data-modifying CTE classed {class}"));
    } else if row["select_locking"].as_bool() == Some(true)
        && rejection.error.code != ErrorCode::LockingClause
    {
        return Some(format!(
            "{id}: locking SELECT refused with {}",
            rejection.error.code
        ));
    } else if !ok {
        return Some(format!(
            "{id}: {types:?} classed {class}, expected {expected:?} ({})\n    {}",
            rejection.error.code,
            sql.lines()
                .filter(|l| !l.trim_start().starts_with("--"))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    None
}
