//! Precision with protected columns, on real SQL: every Spider query runs under a policy that
//! knows its database's schema (the catalog from Spider's `tables.json`) and denies every column
//! the query never names, as a role granted only the columns it uses would see it. Such a query
//! reads nothing protected, so it must be allowed, bar the forms that do read every column (a
//! star, a NATURAL join), which must be refused. This is how "Role-Conditioned Refusals" (arXiv
//! 2510.07642) turns Spider into an access-control benchmark; a false refusal here is one a user
//! with a real, correct policy would meet (`SELECT party FROM party GROUP BY party` read as a
//! whole-row reference was one).
//!
//! Only queries SQLite itself prepares on the Spider database are counted (Spider has a few
//! annotation errors), and those with a double-quoted string are left out: with a catalog the
//! guard refuses `"food"` on purpose (SQLite reads it as a string only because no column has
//! that name), with a hint to write `'food'`.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};
use sqlgate::{Guard, Policy};

use common::{corpus_dir, read_jsonl};

/// A Spider database: its tables and their columns, as written in the schema.
struct Schema {
    tables: Vec<(String, Vec<String>)>,
}

fn schemas(path: &std::path::Path) -> HashMap<String, Schema> {
    let text = std::fs::read_to_string(path).expect("tables.json");
    let dbs: Vec<Value> = serde_json::from_str(&text).expect("tables.json is JSON");
    dbs.iter()
        .map(|db| {
            let names: Vec<String> = db["table_names_original"]
                .as_array()
                .expect("table names")
                .iter()
                .map(|t| t.as_str().unwrap_or_default().to_string())
                .collect();
            let mut tables: Vec<(String, Vec<String>)> =
                names.iter().map(|n| (n.clone(), Vec::new())).collect();
            for column in db["column_names_original"].as_array().expect("columns") {
                let (Some(table), Some(name)) = (column[0].as_i64(), column[1].as_str()) else {
                    continue;
                };
                if let Some(entry) = usize::try_from(table).ok().and_then(|t| tables.get_mut(t)) {
                    entry.1.push(name.to_string());
                }
            }
            let id = db["db_id"].as_str().unwrap_or_default().to_string();
            (id, Schema { tables })
        })
        .collect()
}

/// The words of `sql`, lower-cased: a column the query names is one of them.
fn words(sql: &str) -> BTreeSet<String> {
    sql.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The policy of a role granted the columns `sql` names: every other column denied.
fn policy_for(schema: &Schema, sql: &str) -> Policy {
    let named = words(sql);
    let mut deny = Vec::new();
    let mut catalog = Vec::new();
    for (table, columns) in &schema.tables {
        for column in columns {
            if !named.contains(&column.to_lowercase()) {
                deny.push(format!("\"{table}\".\"{column}\""));
            }
        }
        let columns: Vec<Value> = columns.iter().map(|c| json!({ "name": c })).collect();
        catalog.push(json!({ "name": table, "columns": columns }));
    }
    let policy = json!({
        "dialect": "sqlite",
        "columns": { "deny": deny },
        "catalog": { "tables": catalog },
    });
    Policy::from_json(&policy.to_string()).expect("a policy for the schema")
}

/// A form that reads every column of what it names: a star (not `count(*)`) or a NATURAL join.
fn reads_every_column(sql: &str) -> bool {
    let upper = sql.to_uppercase().replace(' ', "");
    upper.replace("COUNT(*)", "").contains('*') || upper.contains("NATURALJOIN")
}

#[test]
fn spider_queries_pass_under_a_role_granted_the_columns_they_name() {
    let Some(dir) = corpus_dir() else { return };
    let schemas = schemas(&dir.join("spider/tables.json"));
    let (mut allowed, mut refused_stars, mut checked, mut invalid) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut databases: HashMap<String, Option<rusqlite::Connection>> = HashMap::new();
    for file in ["spider/spider_dev.jsonl", "spider/spider_train.jsonl"] {
        for row in read_jsonl(&dir.join(file)) {
            let id = row["id"].as_str().unwrap_or_default();
            let sql = row["sql"].as_str().unwrap_or_default();
            let db_id = row["db_id"].as_str().unwrap_or_default();
            let Some(schema) = schemas.get(db_id) else {
                continue;
            };
            if sql.contains('"') {
                continue;
            }
            let db = databases.entry(db_id.to_string()).or_insert_with(|| {
                let path = dir.join(format!("spider/database/{db_id}/{db_id}.sqlite"));
                rusqlite::Connection::open_with_flags(
                    path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                )
                .ok()
            });
            if db.as_ref().is_none_or(|db| db.prepare(sql).is_err()) {
                invalid += 1;
                continue;
            }
            let guard = Guard::new(policy_for(schema, sql)).expect("the policy compiles");
            checked += 1;
            match (guard.check(sql), reads_every_column(sql)) {
                (Ok(_), false) => allowed += 1,
                (Err(_), true) => refused_stars += 1,
                // A star over a table whose every column the query also names is fine.
                (Ok(_), true) => allowed += 1,
                (Err(r), false) => failures.push(format!(
                    "{id}: {}: {}\n    {sql}",
                    r.error.code, r.error.message
                )),
            }
        }
    }
    println!(
        "spider under granted columns: {checked} queries, {allowed} allowed, \
         {refused_stars} stars / NATURAL joins refused, {} false refusals \
         ({invalid} not prepared by SQLite, left out)",
        failures.len()
    );
    assert!(checked > 5000, "only {checked} Spider queries were checked");
    assert!(
        failures.is_empty(),
        "{} false refusals:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
