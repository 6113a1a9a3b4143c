//! The backend executing: one read-only statement even for SQL the guard never approved, the
//! timeout killing the query in the server, and safe mode committing only an approved mutation.

use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use sqlgate::{Dialect, Policy};
use sqlgate_mcp::backend::mysql::MysqlBackend;
use sqlgate_mcp::backend::{Backend, Database, QueryLimits};
use sqlgate_mcp::gate::{Engine, EngineConfig};

use crate::server::{admin, chinook_url, engine, with_database};

/// Defence in depth: even SQL the guard never approved cannot stack statements or write, since
/// every read is one prepared statement in a read-only transaction.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backend_itself_runs_one_read_only_statement() {
    let Some(url) = chinook_url() else { return };
    let backend = MysqlBackend::connect(&url, 2, false)
        .await
        .expect("connect");
    let limits = QueryLimits {
        max_rows: Some(10),
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(5),
    };
    let mut direct = admin(&url).await;
    let before: Option<u64> = direct
        .query_first("SELECT COUNT(*) FROM Genre")
        .await
        .expect("count");
    let stacked = backend.execute("SELECT 1; DELETE FROM Genre", limits).await;
    assert!(stacked.is_err(), "a stacked payload must not run");
    let write = backend
        .execute("DELETE FROM Genre WHERE GenreId = 1", limits)
        .await
        .expect_err("a write in a read-only transaction fails");
    assert_eq!(write.code.as_str(), "database_error", "{write:?}");
    let after: Option<u64> = direct
        .query_first("SELECT COUNT(*) FROM Genre")
        .await
        .expect("count");
    assert_eq!(before, after);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_over_the_timeout_is_killed_in_the_server() {
    let Some(url) = chinook_url() else { return };
    let e = engine(&url, 10, Duration::from_millis(500)).await;
    let start = Instant::now();
    let (r, _) = e
        .run_query("SELECT COUNT(*) FROM Track a, Track b, Track c")
        .await;
    let err = r.expect_err("times out");
    assert_eq!(err.code.as_str(), "query_timeout", "{err:?}");
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "{:?}",
        start.elapsed()
    );
    // Nothing of it is left running in the server.
    let mut direct = admin(&url).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let running: Vec<String> = direct
        .query("SELECT INFO FROM information_schema.PROCESSLIST WHERE INFO LIKE '%Track a, Track b%' AND INFO NOT LIKE '%PROCESSLIST%'")
        .await
        .expect("processlist");
    assert!(running.is_empty(), "{running:?}");
    // The pool still serves.
    let (r, _) = e.run_query("SELECT COUNT(*) AS n FROM Genre").await;
    assert_eq!(r.expect("runs").rows[0]["n"], 25);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_mode_commits_only_an_approved_mutation() {
    use sqlgate_mcp::gate::approval::{ApprovalAnswer, ApprovalRequest};
    let Some(url) = chinook_url() else { return };
    let mut direct = admin(&url).await;
    direct
        .query_drop(
            "CREATE DATABASE IF NOT EXISTS sqlgate_writes; USE sqlgate_writes; \
             DROP TABLE IF EXISTS orders; \
             CREATE TABLE orders (id INT PRIMARY KEY, status VARCHAR(20)); \
             INSERT INTO orders VALUES (1, 'open'), (2, 'open'), (3, 'open');",
        )
        .await
        .expect("setup");
    let url = with_database(&url, "sqlgate_writes");
    let backend = MysqlBackend::connect(&url, 2, false)
        .await
        .expect("connect");
    let policy = Policy {
        writes: Some(sqlgate::WriteRules::new(
            &["orders"],
            &[sqlgate::QueryClass::MutationCreate],
        )),
        ..Policy::for_dialect(Dialect::Mysql)
    };
    let mut config = EngineConfig::read_only(policy, Duration::from_secs(5));
    config.mode = sqlgate_mcp::codes::Mode::Safe;
    let e = Engine::new(Backend::Mysql(backend), config)
        .await
        .expect("engine");
    let statuses = |rows: Vec<(i32, String)>| rows.into_iter().map(|(_, s)| s).collect::<Vec<_>>();
    let sql = "UPDATE orders SET status = 'cancelled' WHERE id = 2";
    let declined = |r: ApprovalRequest| {
        assert_eq!(r.preview_rows, 1);
        std::future::ready(ApprovalAnswer::Declined)
    };
    let (out, _) = e.run_mutation(sql, declined).await;
    assert!(out.is_err(), "declined");
    let rows: Vec<(i32, String)> = direct
        .query("SELECT id, status FROM orders ORDER BY id")
        .await
        .expect("rows");
    assert_eq!(
        statuses(rows),
        ["open", "open", "open"],
        "the preview was rolled back"
    );
    let (out, _) = e
        .run_mutation(sql, |_| std::future::ready(ApprovalAnswer::Accepted))
        .await;
    let out = out.expect("not refused").committed().expect("committed");
    assert_eq!(out.affected_rows, 1);
    let rows: Vec<(i32, String)> = direct
        .query("SELECT id, status FROM orders ORDER BY id")
        .await
        .expect("rows");
    assert_eq!(statuses(rows), ["open", "cancelled", "open"]);
    direct
        .query_drop("DROP DATABASE sqlgate_writes")
        .await
        .expect("drop");
}
