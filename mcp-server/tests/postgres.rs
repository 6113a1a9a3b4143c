//! PostgreSQL tests against Chinook (`SQLGATE_CHINOOK_URL`, a superuser URL: the worst case).
//! Skipped with a clear message when the variable is absent, except under `CI=true`, where its
//! absence is a failure.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use serde_json::Value;
use sqlgate::{Dialect, Policy};
use sqlgate_mcp::backend::postgres::PgBackend;
use sqlgate_mcp::backend::{Database, QueryLimits};

mod common;
use common::{pg_engine, postgres_policy};

fn chinook_url() -> Option<String> {
    common::chinook_url("the PostgreSQL tests")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_on_chinook() {
    let Some(url) = chinook_url() else { return };
    let e = pg_engine(&url, 4, Duration::from_secs(10), postgres_policy(50)).await;
    assert!(
        e.backend()
            .role_warnings()
            .iter()
            .any(|w| w.contains("superuser")),
        "a superuser must be reported"
    );
    let read_only = PgBackend::connect(&url, 1, Duration::from_secs(5), true).await;
    assert!(
        read_only.is_err(),
        "--require-read-only-role refuses a superuser"
    );
    if let Err(err) = read_only {
        assert!(!err.message.contains(&url));
    }
    let tables = e.list_tables().await.expect("list");
    assert!(tables.tables.iter().any(|t| t.name == "artist"));
    let d = e.describe_table("album").expect("describe");
    assert!(!d.foreign_keys.is_empty());
    let d = e.describe_table("artist").expect("describe");
    assert!(!d.referenced_by.is_empty());
    let err = e.describe_table("artst").expect_err("unknown");
    assert!(err.hint.unwrap_or_default().contains("artist"));

    let (r, _) = e.run_query("SELECT name FROM artist ORDER BY name").await;
    let out = r.expect("run");
    assert_eq!(out.row_count, 50);
    assert!(out.truncated);
    assert!(out.executed_sql.ends_with("LIMIT 51"));
    // validate_query shows the real cap; only execution asks for the extra row.
    let v = e.validate("SELECT name FROM artist ORDER BY name");
    assert_eq!(
        v.sql.as_deref(),
        Some("SELECT name FROM artist ORDER BY name LIMIT 50")
    );
    assert_eq!(v.limit.and_then(|l| l.value), Some(50));

    let (r, _) = e.run_query("DELETE FROM artist").await;
    assert_eq!(
        r.expect_err("refused").code.as_str(),
        "statement_not_allowed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn policy_hides_tables_and_marks_protected_columns() {
    let Some(url) = chinook_url() else { return };
    let mut policy = Policy::for_dialect(Dialect::Postgres);
    policy.tables.deny = vec!["public.employee".into()];
    policy.columns.deny = vec!["customer.email".into(), "*.phone".into()];
    let e = pg_engine(&url, 1, Duration::from_secs(10), policy).await;
    let tables = e.list_tables().await.expect("list");
    let names: Vec<&str> = tables.tables.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"customer"), "{names:?}");
    assert!(!names.contains(&"employee"), "{names:?}");
    let d = e.describe_table("public.customer").expect("describe");
    let protected: Vec<&str> = d
        .columns
        .iter()
        .filter(|c| c.protected)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(protected, vec!["phone", "email"]);
    let err = e.describe_table("employee").expect_err("denied");
    assert_eq!(err.code.as_str(), "table_not_allowed");
    let (r, _) = e.run_query("SELECT email FROM customer").await;
    assert_eq!(
        r.expect_err("protected").code.as_str(),
        "column_not_allowed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_renders() {
    let Some(url) = chinook_url() else { return };
    let e = pg_engine(&url, 2, Duration::from_secs(10), postgres_policy(50)).await;
    let sql = "SELECT 1::int2 AS i2, 2::int8 AS i8, 1.5::float8 AS f, 'NaN'::float8 AS nan, \
        12345678901234567890.123::numeric AS big, 12.50::numeric AS small, true AS b, 'x'::text AS t, \
        '2024-01-02'::date AS d, '12:34:56.5'::time AS tm, '2024-01-02 03:04:05+00'::timestamptz AS ts, \
        '2024-01-02 03:04:05'::timestamp AS tsn, '1 year 2 days 3 hours'::interval AS iv, \
        '{\"a\": [1, 2]}'::jsonb AS jb, '{\"b\": null}'::json AS js, ARRAY[1, 2, 3] AS arr, \
        ARRAY[['a', 'b'], ['c', 'd']] AS arr2, E'\\\\x0102'::bytea AS by, '10.0.0.1'::inet AS ip, \
        '10.0.0.0/8'::cidr AS net, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, \
        '(1,2)'::point AS p, int4range(1, 5) AS r, B'101' AS bits, '08:00:2b:01:02:03'::macaddr AS mac, \
        '<a/>'::xml AS x, 'a b'::tsvector AS tsv, NULL::int4 AS nul, 12.34::money AS m";
    let (r, _) = e.run_query(sql).await;
    let out = r.unwrap_or_else(|err| panic!("{err:?}"));
    let row = &out.rows[0];
    let get = |k: &str| row.get(k).cloned().unwrap_or(Value::Null);
    assert_eq!(get("i2"), 1);
    assert_eq!(get("i8"), 2);
    assert_eq!(get("f"), 1.5);
    assert_eq!(get("nan"), "NaN");
    assert_eq!(get("big"), "12345678901234567890.123");
    assert_eq!(get("small"), 12.5);
    assert_eq!(get("b"), true);
    assert_eq!(get("d"), "2024-01-02");
    assert_eq!(get("tm"), "12:34:56.500");
    assert_eq!(get("ts"), "2024-01-02T03:04:05Z");
    assert_eq!(get("tsn"), "2024-01-02T03:04:05");
    assert_eq!(get("iv"), "P1Y2DT3H");
    assert_eq!(get("jb"), serde_json::json!({"a": [1, 2]}));
    assert_eq!(get("js"), serde_json::json!({"b": null}));
    assert_eq!(get("arr"), serde_json::json!([1, 2, 3]));
    assert_eq!(get("arr2"), serde_json::json!([["a", "b"], ["c", "d"]]));
    assert_eq!(get("by"), "AQI=");
    assert_eq!(get("ip"), "10.0.0.1");
    assert_eq!(get("net"), "10.0.0.0/8");
    assert_eq!(get("u"), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
    assert_eq!(get("p"), "(1,2)");
    assert_eq!(get("r"), "[1,5)");
    assert_eq!(get("bits"), "101");
    assert_eq!(get("mac"), "08:00:2b:01:02:03");
    assert_eq!(get("x"), "<a/>");
    assert!(
        get("tsv").is_string(),
        "unknown types fall back to a string"
    );
    assert_eq!(get("nul"), Value::Null);
    assert_eq!(get("m"), "12.34");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_is_query_timeout() {
    let Some(url) = chinook_url() else { return };
    let e = pg_engine(&url, 2, Duration::from_millis(500), postgres_policy(50)).await;
    let (r, _) = e
        .run_query("SELECT count(*) FROM invoice_line a, invoice_line b, track c")
        .await;
    let err = r.expect_err("timeout");
    assert_eq!(err.code.as_str(), "query_timeout");
    assert_eq!(err.sqlstate.as_deref(), Some("57014"));
    assert!(!err.retryable);
    // Cancelled in the database, not just abandoned: no backend is still running it.
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(conn);
    let still_running: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' \
             AND query LIKE '%invoice_line a, invoice_line b%' AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .expect("pg_stat_activity")
        .get(0);
    assert_eq!(still_running, 0, "the timed-out query is still running");
    // The pool still works afterwards.
    let (r, _) = e.run_query("SELECT count(*) FROM artist").await;
    assert!(r.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_url_never_leaks() {
    if chinook_url().is_none() {
        return;
    }
    let err = PgBackend::connect(
        "postgres://sqlgate:SuperSecret@127.0.0.1:1/none",
        1,
        Duration::from_secs(2),
        false,
    )
    .await
    .err()
    .expect("no server on port 1");
    assert_eq!(err.code.as_str(), "database_unavailable");
    assert!(!err.message.contains("SuperSecret"));
}

/// Mistakes only PostgreSQL sees come back with a hint the agent can act on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_errors_carry_a_hint() {
    let Some(url) = chinook_url() else { return };
    let e = pg_engine(&url, 2, Duration::from_secs(10), postgres_policy(50)).await;
    let cases = [
        (
            "SELECT artist_id FROM artist JOIN album USING (title)",
            "call describe_table",
        ),
        (
            "SELECT artist_id FROM artist JOIN album ON album.artist_id = artist.artist_id",
            "qualify it with its table or alias (t.artist_id)",
        ),
        (
            "SELECT name FROM artist WHERE name = \"AC/DC\"",
            "single quotes ('AC/DC')",
        ),
        ("SELECT round(1.5::float8, 1)", "cast the arguments"),
        (
            "SELECT name FROM artist WHERE artist_id = 'x'",
            "write numbers without quotes",
        ),
        (
            "SELECT 1 / (SELECT count(*) - count(*) FROM artist)",
            "NULLIF",
        ),
        ("SELECT name, count(*) FROM artist", "GROUP BY"),
    ];
    // The string in double quotes is told by the guard (it knows the columns), the rest by
    // the engine's SQLSTATE.
    for (sql, advice) in cases {
        let (r, _) = e.run_query(sql).await;
        let err = r.expect_err(sql);
        let hint = err.hint.unwrap_or_default();
        assert!(
            hint.contains(advice),
            "{sql}: {} {hint:?} lacks {advice:?}",
            err.message
        );
    }
}

/// The corpus folder (`$SQLGATE_CORPUS`, else `../shared/corpus` beside the repository).
fn corpus() -> std::path::PathBuf {
    std::env::var("SQLGATE_CORPUS").map_or_else(
        |_| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
        std::path::PathBuf::from,
    )
}

/// The README's example cost cap lets every Chinook gold query run and refuses a cross join of
/// the two largest tables, even under a LIMIT, before it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cost_cap_refuses_a_cross_join_and_passes_every_gold_query() {
    use sqlgate_mcp::backend::cost::CostCap;
    let Some(url) = chinook_url() else { return };
    let gold = corpus().join("chinook/chinook_gold_postgres.jsonl");
    let Ok(text) = std::fs::read_to_string(&gold) else {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true requires {}",
            gold.display()
        );
        eprintln!("skipped: no {} (corpus absent)", gold.display());
        return;
    };
    let mut e = pg_engine(&url, 2, Duration::from_secs(10), postgres_policy(100)).await;
    e.set_cost_cap(CostCap {
        max_cost: Some(100_000.0),
        max_estimated_rows: Some(1_000_000),
    });
    let mut ran = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).expect("gold line");
        let sql = v["sql"].as_str().expect("sql");
        let (r, _) = e.run_query(sql).await;
        match r {
            Ok(_) => ran += 1,
            Err(err) => assert_ne!(err.code.as_str(), "too_expensive", "{sql}: {}", err.message),
        }
    }
    assert!(ran >= 150, "only {ran} gold queries ran");
    for sql in [
        "SELECT * FROM playlist_track, track LIMIT 100",
        "SELECT count(*) FROM playlist_track CROSS JOIN track",
    ] {
        let (r, trace) = e.run_query(sql).await;
        let err = r.expect_err(sql);
        assert_eq!(err.code.as_str(), "too_expensive", "{sql}: {err:?}");
        assert!(!err.retryable);
        let hint = err.hint.unwrap_or_default();
        assert!(
            hint.contains("playlist_track and track without a join condition"),
            "{sql}: {hint}"
        );
        assert!(trace.executed_sql.is_some(), "the approved SQL is traced");
    }
    // validate_query shows the estimate, and whether run_query would refuse it.
    let cross = e
        .validate_with_estimate("SELECT * FROM playlist_track, track LIMIT 100")
        .await;
    let estimate = cross.estimate.expect("an estimate");
    assert!(cross.verdict.allowed);
    // The planner's row estimates follow the tables' statistics (other tests write to these
    // tables in rolled-back transactions, and the estimate scales with the pages they leave):
    // near the true product, never exactly pinned.
    let product = 8715.0 * 3503.0;
    assert!(
        (estimate.rows / product - 1.0).abs() < 0.25,
        "{} is not near {product}",
        estimate.rows
    );
    assert!(estimate.over_cap.is_some());
    let small = e.validate_with_estimate("SELECT name FROM artist").await;
    assert_eq!(small.estimate.expect("an estimate").over_cap, None);
    let refused = e.validate_with_estimate("DELETE FROM artist").await;
    assert_eq!(refused.estimate, None, "no estimate for a refused query");
}

/// Every read is a read-only transaction of its own under the statement timeout, rolled back,
/// also when it fails or returns no row (its columns are still described). The backend alone
/// (its SQL is not the guard's business here), one pooled connection, so that a transaction left
/// open would show in the next read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_read_is_its_own_read_only_transaction() {
    let Some(url) = chinook_url() else { return };
    let pg = PgBackend::connect(&url, 1, Duration::from_secs(7), false)
        .await
        .expect("connect");
    let limits = QueryLimits {
        max_rows: Some(10),
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(7),
    };
    let settings = "SELECT current_setting('transaction_read_only') AS ro, \
                    current_setting('statement_timeout') AS timeout, now()::text AS started";
    let write = "CREATE TABLE sqlgate_must_not_exist (a int)";
    let mut started = Vec::new();
    for sql in [
        settings,
        "SELECT 1 / (SELECT count(*) - count(*) FROM artist)",
        settings,
        "SELECT artist_id, name FROM artist WHERE artist_id < 0",
        settings,
        write,
        settings,
    ] {
        let r = pg.execute(sql, limits).await;
        if sql == settings {
            let out = r.expect(sql);
            let row = &out.rows[0];
            assert_eq!(row["ro"], "on", "{sql}");
            assert_eq!(row["timeout"], "7s", "{sql}");
            started.push(row["started"].clone());
        } else if sql.contains("artist_id < 0") {
            let out = r.expect(sql);
            assert!(out.rows.is_empty());
            let columns: Vec<(&str, &str)> = out
                .columns
                .iter()
                .map(|c| (c.name.as_str(), c.data_type.as_str()))
                .collect();
            assert_eq!(columns, [("artist_id", "int4"), ("name", "varchar")]);
        } else if sql == write {
            // 25006: read_only_sql_transaction.
            assert_eq!(r.expect_err(sql).sqlstate.as_deref(), Some("25006"));
        } else {
            assert_eq!(r.expect_err(sql).sqlstate.as_deref(), Some("22012"));
        }
    }
    // now() is the transaction's start: four reads, four transactions.
    started.dedup();
    assert_eq!(started.len(), 4, "{started:?}");
}
