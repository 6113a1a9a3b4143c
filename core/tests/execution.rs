//! Execution equivalence on real engines: the approved SQL returns the same rows as the original
//! (row cap off), and with `max_rows = 5` no approved query returns more than 5 rows.
//! SQLite runs Spider dev on its own databases; PostgreSQL runs the Chinook gold queries on a
//! throwaway cluster (`SQLGATE_CHINOOK_URL`, started by scripts/test.sh).

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::{types::ValueRef, Connection, OpenFlags};
use sqlgate::{Dialect, Guard, Policy};

use common::{corpus_dir, guard, read_jsonl};

fn sqlite_rows(conn: &Connection, sql: &str) -> Result<Vec<String>, String> {
    let mut stmt = conn.prepare(sql).map_err(|e| e.to_string())?;
    let n = stmt.column_count();
    let rows = stmt
        .query_map([], |row| {
            let mut cells = Vec::with_capacity(n);
            for i in 0..n {
                cells.push(match row.get_ref(i)? {
                    ValueRef::Null => "NULL".to_string(),
                    ValueRef::Integer(v) => v.to_string(),
                    ValueRef::Real(v) => format!("{v:?}"),
                    ValueRef::Text(t) => format!("{:?}", String::from_utf8_lossy(t)),
                    ValueRef::Blob(b) => format!("{b:?}"),
                });
            }
            Ok(cells.join("|"))
        })
        .map_err(|e| e.to_string())?;
    let mut out: Vec<String> = rows.collect::<Result<_, _>>().map_err(|e| e.to_string())?;
    out.sort();
    Ok(out)
}

fn open_ro(path: &Path) -> Connection {
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    conn.execute_batch("PRAGMA query_only = 1")
        .expect("query_only");
    conn
}

#[test]
fn spider_dev_same_rows_on_sqlite() {
    let Some(dir) = corpus_dir() else { return };
    let rows = read_jsonl(&dir.join("spider/spider_dev.jsonl"));
    let uncapped = guard(Dialect::Sqlite, None);
    let capped = guard(Dialect::Sqlite, Some(5));
    let mut conns: BTreeMap<String, Option<Connection>> = BTreeMap::new();
    let (mut compared, mut failures) = (0, Vec::new());
    for row in &rows {
        let id = row["id"].as_str().unwrap_or_default();
        let sql = row["sql"].as_str().unwrap_or_default();
        let db = row["db_id"].as_str().unwrap_or_default().to_string();
        let conn = conns.entry(db.clone()).or_insert_with(|| {
            let path = dir.join(format!("spider/database/{db}/{db}.sqlite"));
            path.exists().then(|| open_ro(&path))
        });
        // wta_1's database is not in the corpus (PROVENANCE.md).
        let Some(conn) = conn else { continue };
        let Ok(original) = sqlite_rows(conn, sql) else {
            continue;
        };
        let approved = match uncapped.check(sql) {
            Ok(a) => a,
            Err(r) => {
                failures.push(format!("{id}: refused: {}", r.error));
                continue;
            }
        };
        match sqlite_rows(conn, &approved.sql) {
            Ok(rows) if rows == original => compared += 1,
            Ok(rows) => failures.push(format!(
                "{id}: {} rows vs {} originally\n    {sql}\n    {}",
                rows.len(),
                original.len(),
                approved.sql
            )),
            Err(e) => failures.push(format!(
                "{id}: approved SQL fails: {e}\n    {}",
                approved.sql
            )),
        }
        if let Ok(a) = capped.check(sql) {
            let n = sqlite_rows(conn, &a.sql).map(|r| r.len()).unwrap_or(0);
            assert!(n <= 5, "{id}: {n} rows with max_rows 5: {}", a.sql);
        }
    }
    println!("spider dev: {compared} queries returned identical rows");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compared > 900, "only {compared} queries compared");
}

fn pg_rows(client: &mut postgres::Client, sql: &str) -> Result<Vec<String>, String> {
    let messages = client.simple_query(sql).map_err(|e| e.to_string())?;
    Ok(common::text_rows(&messages))
}

#[test]
fn chinook_gold_same_rows_on_postgres() {
    let Some(dir) = corpus_dir() else { return };
    let Some(mut client) = common::chinook_client("PostgreSQL tests") else {
        return;
    };
    let rows = read_jsonl(&dir.join("chinook/chinook_gold_postgres.jsonl"));
    let uncapped = guard(Dialect::Postgres, None);
    let capped = guard(Dialect::Postgres, Some(5));
    let (mut compared, mut failures) = (0, Vec::new());
    for row in &rows {
        let id = row["id"].as_str().unwrap_or_default();
        let sql = row["sql"].as_str().unwrap_or_default();
        let Ok(original) = pg_rows(&mut client, sql) else {
            continue;
        };
        let approved = match uncapped.check(sql) {
            Ok(a) => a,
            Err(r) => {
                failures.push(format!("{id}: refused: {}", r.error));
                continue;
            }
        };
        match pg_rows(&mut client, &approved.sql) {
            Ok(rows) if rows == original => compared += 1,
            Ok(rows) => failures.push(format!(
                "{id}: {} rows vs {}: {}",
                rows.len(),
                original.len(),
                approved.sql
            )),
            Err(e) => failures.push(format!("{id}: approved SQL fails: {e}: {}", approved.sql)),
        }
        if let Ok(a) = capped.check(sql) {
            let n = pg_rows(&mut client, &a.sql).map(|r| r.len()).unwrap_or(0);
            assert!(n <= 5, "{id}: {n} rows with max_rows 5: {}", a.sql);
        }
    }
    println!("chinook on postgres: {compared} queries returned identical rows");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(compared > 150, "only {compared} queries compared");
}

/// Issue 3 against PostgreSQL's own privilege checks: a role without SELECT on `employee` and on
/// `customer.email` / `customer.phone` is the oracle. A query PostgreSQL refuses that role must be
/// refused by the guard; a query it runs must be allowed and return the same rows.
#[test]
fn chinook_access_policy_matches_postgres_privileges() {
    let Some(dir) = corpus_dir() else { return };
    let Some(mut client) = common::chinook_client("PostgreSQL tests") else {
        return;
    };
    client
        .batch_execute(
            "DO $$ BEGIN
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'sqlgate_restricted') THEN
                 CREATE ROLE sqlgate_restricted;
               END IF;
             END $$;
             GRANT SELECT ON ALL TABLES IN SCHEMA public TO sqlgate_restricted;
             REVOKE SELECT ON employee, customer FROM sqlgate_restricted;
             GRANT SELECT (customer_id, first_name, last_name, company, address, city, state,
                           country, postal_code, fax, support_rep_id)
               ON customer TO sqlgate_restricted;",
        )
        .expect("restricted role");
    let policy = Policy {
        max_rows: None,
        tables: sqlgate::TableRules {
            allow: vec![],
            deny: vec!["employee".into()],
        },
        columns: sqlgate::ColumnRules {
            deny: vec!["customer.email".into(), "customer.phone".into()],
        },
        ..Policy::for_dialect(Dialect::Postgres)
    };
    let guard = Guard::new(policy).expect("policy");
    let rows = read_jsonl(&dir.join("chinook/chinook_gold_postgres.jsonl"));
    let (mut touched, mut untouched, mut failures) = (0, 0, Vec::new());
    for row in &rows {
        let id = row["id"].as_str().unwrap_or_default();
        let sql = row["sql"].as_str().unwrap_or_default();
        let Ok(full) = pg_rows(&mut client, sql) else {
            continue;
        };
        let restricted = pg_rows(
            &mut client,
            &format!("BEGIN; SET LOCAL ROLE sqlgate_restricted; {sql}; ROLLBACK"),
        );
        let _ = client.batch_execute("ROLLBACK");
        let verdict = guard.check(sql);
        match (restricted, verdict) {
            (Err(e), Ok(a)) if e.contains("permission denied") => {
                failures.push(format!(
                    "{id}: PostgreSQL denies it but the guard allowed `{}`",
                    a.sql
                ));
            }
            (Err(_), Err(_)) => touched += 1,
            (Ok(_), Ok(a)) => {
                untouched += 1;
                match pg_rows(&mut client, &a.sql) {
                    Ok(r) if r == full => {}
                    other => failures.push(format!("{id}: different rows: {other:?}")),
                }
            }
            (Ok(_), Err(r)) => failures.push(format!(
                "{id}: PostgreSQL allows it but the guard refused: {}",
                r.error
            )),
            (Err(e), Ok(_)) => failures.push(format!("{id}: restricted run failed: {e}")),
        }
    }
    println!("access policy: {touched} queries touch protected data and were refused; {untouched} allowed with identical rows");
    assert!(
        touched > 10 && untouched > 100,
        "touched {touched}, untouched {untouched}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
