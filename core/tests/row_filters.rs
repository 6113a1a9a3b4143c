//! Row filters (policy section `rows`): an execution oracle on SQLite:
//! for every Chinook gold query and every escape attempt below, the guard's rewritten SQL run on
//! the whole database must return exactly the rows the original SQL returns on a copy of the
//! database from which every row outside the filters was deleted. A filter means "these are the
//! only rows of the table", so the pruned copy is its definition. (The PostgreSQL row-level
//! security oracle is core/tests/row_filters_rls.rs; the rules of the public API, binding,
//! compilation, views, mutations and printing, are core/tests/row_filters_policy.rs.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use common::{corpus_dir, read_jsonl, row_filter_policy as policy};
use sqlgate::{ErrorCode, Guard, Vars};

/// The filters of the SQLite oracle, PascalCase as in Chinook_Sqlite.
const SQLITE_ROWS: &str = r#"{
    "Invoice": "CustomerId = :tenant",
    "Customer": "CustomerId = :tenant",
    "InvoiceLine": "InvoiceId IN (SELECT InvoiceId FROM Invoice WHERE CustomerId = :tenant)",
    "Employee": "EmployeeId IN (SELECT SupportRepId FROM Customer WHERE CustomerId = :tenant)"
}"#;

/// The same filters as DELETE statements that leave only the admitted rows (order matters: each
/// reads tables already pruned, as each filter reads filtered tables).
const PRUNE: &[&str] = &[
    "DELETE FROM Invoice WHERE CustomerId IS NOT ?1",
    "DELETE FROM InvoiceLine WHERE InvoiceId NOT IN (SELECT InvoiceId FROM Invoice)",
    "DELETE FROM Employee WHERE EmployeeId NOT IN \
     (SELECT SupportRepId FROM Customer WHERE CustomerId = ?1 AND SupportRepId IS NOT NULL)",
    "DELETE FROM Customer WHERE CustomerId IS NOT ?1",
];

fn sqlite_guard() -> Guard {
    Guard::new(policy("sqlite", SQLITE_ROWS, "")).expect("filters compile")
}

/// Escape attempts: each tries to see rows outside the tenant's. Written for SQLite's Chinook.
const ESCAPES: &[&str] = &[
    "SELECT * FROM Invoice",
    "SELECT count(*) FROM Invoice",
    "SELECT sum(Total) FROM Invoice",
    "SELECT * FROM main.Invoice",
    "SELECT * FROM \"Invoice\"",
    "SELECT * FROM [Invoice]",
    "SELECT * FROM INVOICE",
    "SELECT * FROM invoice AS Customer",
    "SELECT Customer.* FROM Invoice AS Customer",
    "WITH Invoice AS (SELECT * FROM Invoice) SELECT * FROM Invoice",
    "WITH x AS (SELECT * FROM Invoice), Invoice AS (SELECT * FROM x) SELECT count(*) FROM Invoice",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) \
     SELECT count(*) FROM r, Invoice",
    "WITH c AS (SELECT CustomerId FROM Customer) SELECT count(*) FROM c",
    "SELECT (SELECT count(*) FROM Invoice) AS n",
    "SELECT (SELECT max(Total) FROM Invoice i2 WHERE i2.CustomerId <> 1) AS m",
    "SELECT a.Name, (SELECT count(*) FROM InvoiceLine) FROM Artist a LIMIT 3",
    "SELECT InvoiceId FROM Invoice UNION SELECT InvoiceId FROM InvoiceLine",
    "SELECT CustomerId FROM Customer UNION ALL SELECT CustomerId FROM Invoice",
    "SELECT CustomerId FROM Invoice EXCEPT SELECT CustomerId FROM Customer",
    "SELECT CustomerId FROM Invoice INTERSECT SELECT CustomerId FROM Customer",
    "SELECT i1.InvoiceId, i2.InvoiceId FROM Invoice i1 JOIN Invoice i2 \
     ON i1.CustomerId <> i2.CustomerId",
    "SELECT * FROM Invoice i1, Invoice i2 WHERE i1.InvoiceId < i2.InvoiceId",
    "SELECT InvoiceId, count(*) OVER () FROM Invoice",
    "SELECT InvoiceId, sum(Total) OVER (ORDER BY InvoiceId) FROM Invoice",
    "SELECT t.Name FROM Track t WHERE EXISTS (SELECT 1 FROM InvoiceLine il WHERE \
     il.TrackId = t.TrackId)",
    "SELECT t.Name FROM Track t WHERE t.TrackId IN (SELECT TrackId FROM InvoiceLine)",
    "SELECT count(*) FROM Track t WHERE NOT EXISTS (SELECT 1 FROM InvoiceLine il \
     WHERE il.TrackId = t.TrackId)",
    "SELECT t.TrackId, il.InvoiceId FROM Track t LEFT JOIN InvoiceLine il ON il.TrackId = \
     t.TrackId WHERE t.TrackId < 20",
    "SELECT t.TrackId, il.InvoiceId FROM InvoiceLine il RIGHT JOIN Track t ON il.TrackId = \
     t.TrackId WHERE t.TrackId < 20",
    "SELECT e.EmployeeId, c.CustomerId FROM Employee e FULL JOIN Customer c \
     ON c.SupportRepId = e.EmployeeId",
    "SELECT * FROM Customer NATURAL JOIN Invoice",
    "SELECT * FROM Customer JOIN Invoice USING (CustomerId)",
    "SELECT c.FirstName, i.Total FROM Customer c CROSS JOIN Invoice i",
    "SELECT * FROM (SELECT * FROM Invoice) sub",
    "SELECT * FROM (SELECT * FROM (SELECT * FROM Invoice)) AS deep",
    "SELECT * FROM (VALUES (1), (2)) v JOIN Invoice i ON i.InvoiceId = v.column1",
    "SELECT BillingCountry, count(*) FROM Invoice GROUP BY BillingCountry HAVING count(*) > 0",
    "SELECT BillingCountry FROM Invoice GROUP BY 1 HAVING (SELECT count(*) FROM Customer) > 1",
    "SELECT InvoiceId FROM Invoice ORDER BY (SELECT count(*) FROM InvoiceLine) LIMIT 5",
    "SELECT DISTINCT CustomerId FROM Invoice",
    "SELECT e.FirstName FROM Employee e",
    "SELECT m.FirstName, e.FirstName FROM Employee e LEFT JOIN Employee m ON e.ReportsTo = \
     m.EmployeeId",
    "SELECT * FROM Employee WHERE EmployeeId = 1",
    "SELECT c.Email FROM Customer c WHERE c.CustomerId = 2",
    "SELECT * FROM Customer WHERE CustomerId = 1 OR 1 = 1",
    "SELECT * FROM Invoice WHERE CustomerId = 1 OR CustomerId <> 1",
    "SELECT * FROM Customer c WHERE c.CustomerId IN (SELECT CustomerId FROM Invoice)",
    "SELECT g.Name, (SELECT count(*) FROM InvoiceLine il JOIN Track t ON t.TrackId = il.TrackId \
     WHERE t.GenreId = g.GenreId) FROM Genre g",
    "SELECT count(*) FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId",
    "SELECT count(*) FROM InvoiceLine WHERE InvoiceId NOT IN (SELECT InvoiceId FROM Invoice)",
    "SELECT total_changes(), count(*) FROM Invoice",
    "SELECT * FROM Invoice LIMIT -1",
    "SELECT * FROM Invoice LIMIT 1 OFFSET 3",
    "SELECT json_group_array(InvoiceId) FROM Invoice",
    "SELECT group_concat(FirstName) FROM Customer",
    "SELECT (SELECT group_concat(Email) FROM Customer c2) FROM Customer c1",
    "SELECT * FROM Invoice i WHERE i.Total > (SELECT avg(Total) FROM Invoice)",
    "SELECT c.CustomerId, (SELECT count(*) FROM Invoice i WHERE i.CustomerId = c.CustomerId) \
     FROM Customer c",
    "SELECT Customer.CustomerId FROM Customer, Invoice WHERE Customer.CustomerId = \
     Invoice.CustomerId",
    "SELECT x.InvoiceId FROM Invoice AS x(InvoiceId)",
    "SELECT InvoiceId FROM Invoice WHERE InvoiceId IN (SELECT InvoiceId FROM InvoiceLine \
     UNION SELECT 1)",
    "SELECT a.Title FROM Album a JOIN Track t ON t.AlbumId = a.AlbumId JOIN InvoiceLine il \
     ON il.TrackId = t.TrackId",
    "SELECT CASE WHEN (SELECT count(*) FROM Customer) > 1 THEN 'many' ELSE 'one' END",
    "SELECT coalesce((SELECT max(CustomerId) FROM Customer), 0)",
    "WITH RECURSIVE Invoice AS (SELECT * FROM Invoice) SELECT count(*) FROM Invoice",
    "WITH RECURSIVE Invoice(InvoiceId) AS (SELECT InvoiceId FROM Invoice UNION \
     SELECT InvoiceId + 1000 FROM Invoice WHERE InvoiceId < 0) SELECT count(*) FROM Invoice",
    "WITH Invoice AS MATERIALIZED (SELECT * FROM Invoice) SELECT count(*) FROM Invoice",
    "WITH a AS (WITH Invoice AS (SELECT 1 AS x) SELECT * FROM Invoice) \
     SELECT (SELECT count(*) FROM Invoice), (SELECT count(*) FROM a)",
    "SELECT * FROM temp.Invoice",
    "SELECT * FROM main.\"Invoice\" AS i WHERE i.InvoiceId > 0",
    "SELECT Invoice.InvoiceId FROM Invoice WHERE Invoice.CustomerId <> 0",
    "SELECT il.* FROM InvoiceLine il, Invoice WHERE Invoice.InvoiceId = il.InvoiceId",
];

#[test]
fn sqlite_rewrite_equals_the_pruned_database() {
    // The gold queries are the corpus's; the database is the repository's copy.
    let Some(dir) = corpus_dir() else { return };
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/chinook/Chinook_Sqlite.sqlite");
    let guard = sqlite_guard();
    let mut queries: Vec<(String, String)> = read_jsonl(&dir.join("chinook/chinook_gold.jsonl"))
        .iter()
        .map(|row| {
            let id = row["id"].as_str().unwrap_or("?").to_string();
            (id, row["sql"].as_str().unwrap_or("").to_string())
        })
        .collect();
    queries.extend(
        ESCAPES
            .iter()
            .enumerate()
            .map(|(i, sql)| (format!("escape-{i}"), (*sql).to_string())),
    );
    let full =
        rusqlite::Connection::open_with_flags(&source, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("open Chinook");
    let (mut compared, mut refused, mut differences) = (0, BTreeMap::new(), Vec::new());
    // Customer 1 (several invoices), 12, and 60 (no such customer: every filtered table empty).
    for tenant in [1_i64, 12, 60] {
        let pruned = pruned_copy(&source, tenant);
        let vars = Vars::new().with("tenant", tenant);
        for (id, sql) in &queries {
            let approved = match guard.check_with(sql, &vars) {
                Ok(a) => a,
                Err(r) => {
                    *refused.entry(r.error.code.as_str()).or_insert(0) += 1;
                    assert!(
                        !id.starts_with("chinook-"),
                        "gold query {id} refused: {}\n{sql}",
                        r.error
                    );
                    continue;
                }
            };
            let expected = rows(&pruned, sql);
            let got = rows(&full, &approved.sql);
            if !same_rows(&expected, &got, || rows(&pruned, &without_final_limit(sql))) {
                differences.push(format!(
                    "{id} (tenant {tenant}): {sql}\n  rewritten: {}\n  expected {:?}\n  got {:?}",
                    approved.sql,
                    expected
                        .as_ref()
                        .map(|r| r.iter().take(3).collect::<Vec<_>>()),
                    got.as_ref().map(|r| r.iter().take(3).collect::<Vec<_>>()),
                ));
            }
            compared += 1;
        }
    }
    println!(
        "row filters vs pruned SQLite: {} queries x 3 tenants, {compared} compared, refused \
         {refused:?}, {} differences",
        queries.len(),
        differences.len()
    );
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    assert!(compared > 3 * 173, "too few comparisons: {compared}");
}

/// Equal results: the same rows, or both an error (the engine's message quotes the SQL it was
/// given, which differs). When a final LIMIT cuts rows tied in the ORDER BY, the engine may pick
/// other rows of the same order: then every row returned must be one of the query's rows without
/// its LIMIT (`unlimited`), and as many.
fn same_rows(
    expected: &Result<Vec<String>, String>,
    got: &Result<Vec<String>, String>,
    unlimited: impl Fn() -> Result<Vec<String>, String>,
) -> bool {
    match (expected, got) {
        (Err(_), Err(_)) => true,
        (Ok(e), Ok(g)) if e == g => true,
        (Ok(e), Ok(g)) if e.len() == g.len() => {
            unlimited().is_ok_and(|all| g.iter().all(|row| all.contains(row)))
        }
        _ => false,
    }
}

/// `sql` without a LIMIT at its very end (the text's own; none added by the guard here).
fn without_final_limit(sql: &str) -> String {
    let trimmed = sql.trim_end().trim_end_matches(';').trim_end();
    let upper = trimmed.to_ascii_uppercase();
    match upper.rfind(" LIMIT ") {
        Some(at) if trimmed[at + 7..].trim().chars().all(|c| c.is_ascii_digit()) => {
            trimmed[..at].to_string()
        }
        _ => trimmed.to_string(),
    }
}

/// A copy of the Chinook file with only the rows the filters admit for `tenant`.
fn pruned_copy(source: &std::path::Path, tenant: i64) -> rusqlite::Connection {
    let path = std::env::temp_dir().join(format!(
        "sqlgate-row-filters-{}-{tenant}.sqlite",
        std::process::id()
    ));
    std::fs::copy(source, &path).expect("copy Chinook");
    let copy = rusqlite::Connection::open(&path).expect("open the copy");
    copy.execute_batch("PRAGMA foreign_keys = OFF")
        .expect("foreign keys off");
    for statement in PRUNE {
        let params: &[i64] = if statement.contains("?1") {
            &[tenant]
        } else {
            &[]
        };
        copy.execute(statement, rusqlite::params_from_iter(params))
            .expect("prune");
    }
    // The open connection keeps the data; the name is not needed any more.
    let _ = std::fs::remove_file(&path);
    copy
}

/// The rows of `sql` as a sorted multiset of printed rows, or the error's text.
fn rows(db: &rusqlite::Connection, sql: &str) -> Result<Vec<String>, String> {
    let mut statement = db.prepare(sql).map_err(|e| e.to_string())?;
    let width = statement.column_count();
    let mut out = Vec::new();
    let mut cursor = statement.query([]).map_err(|e| e.to_string())?;
    while let Some(row) = cursor.next().map_err(|e| e.to_string())? {
        let mut line = Vec::with_capacity(width);
        for i in 0..width {
            let value: rusqlite::types::Value = row.get(i).map_err(|e| e.to_string())?;
            line.push(match value {
                rusqlite::types::Value::Real(f) => format!("{f:.6}"),
                other => format!("{other:?}"),
            });
        }
        out.push(line.join("|"));
    }
    out.sort();
    Ok(out)
}

#[test]
fn a_missing_variable_refuses_and_never_runs_unfiltered() {
    let guard = sqlite_guard();
    for sql in ["SELECT * FROM Invoice", "SELECT * FROM InvoiceLine"] {
        let refused = guard.check(sql).expect_err("no tenant bound");
        assert_eq!(refused.error.code, ErrorCode::RowFilter, "{sql}");
        assert!(
            refused.error.message.contains(":tenant"),
            "{}",
            refused.error
        );
        let other = guard
            .check_with(sql, &Vars::new().with("region", 1))
            .expect_err("another variable is not the tenant");
        assert_eq!(other.error.code, ErrorCode::RowFilter);
    }
    // A table without a filter needs no variable.
    let approved = guard
        .check("SELECT * FROM Artist")
        .expect("unfiltered table");
    assert!(approved.row_filters.is_empty());
    assert_eq!(guard.row_filter_variables(), vec!["tenant".to_string()]);
}
