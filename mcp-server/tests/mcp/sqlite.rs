//! SQLite-specific behaviour: foreign keys into and from denied tables hidden, SQLite's errors
//! carrying a hint, a statement interrupted at the timeout.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, demo_engine, serve_in_process, structured};

#[tokio::test]
async fn describe_table_hides_keys_into_and_from_denied_tables() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("keys.db");
    {
        let c = rusqlite::Connection::open(&db).expect("db");
        c.execute_batch(
            "CREATE TABLE vault (id INTEGER PRIMARY KEY, note_id INTEGER REFERENCES note(id));
             CREATE TABLE owner (id INTEGER PRIMARY KEY);
             CREATE TABLE note (id INTEGER PRIMARY KEY,
                                vault_id INTEGER REFERENCES vault(id),
                                owner_id INTEGER REFERENCES owner(id));",
        )
        .expect("schema");
    }
    let backend = sqlgate_mcp::backend::Backend::Sqlite(
        sqlgate_mcp::backend::sqlite::SqliteBackend::open(&db).expect("open"),
    );
    let mut policy = sqlgate::Policy::for_dialect(sqlgate::Dialect::Sqlite);
    policy.tables.deny = vec!["vault".into()];
    let engine = Engine::new(
        backend,
        EngineConfig::read_only(policy, Duration::from_secs(5)),
    )
    .await
    .expect("engine");
    let client = serve_in_process(SqlGateServer::new(Arc::new(engine), Audit::stderr())).await;
    let r = call(&client, "describe_table", json!({"table": "note"})).await;
    let note = structured(&r);
    let keys: Vec<&str> = note["foreign_keys"]
        .as_array()
        .expect("foreign_keys")
        .iter()
        .filter_map(|k| k["referenced_table"].as_str())
        .collect();
    assert_eq!(keys, ["owner"], "{note}");
    assert!(
        !note["foreign_keys"].to_string().contains("vault"),
        "{note}"
    );
    let r = call(&client, "describe_table", json!({"table": "owner"})).await;
    let owner = structured(&r);
    assert_eq!(owner["referenced_by"][0]["table"], "note", "{owner}");
    let r = call(&client, "describe_table", json!({"table": "vault"})).await;
    assert_eq!(structured(&r)["code"], "table_not_allowed");
}

/// Syntax the guard accepts but SQLite rejects, and mistakes only SQLite sees, come back with a
/// hint the agent can act on instead of a bare engine message.
#[tokio::test]
async fn sqlite_engine_errors_carry_a_hint() {
    let client = serve_in_process(SqlGateServer::new(demo_engine().await, Audit::stderr())).await;
    let cases = [
        ("SELECT ordered_at::date FROM orders", "CAST(x AS type)"),
        (
            "SELECT EXTRACT(YEAR FROM ordered_at) FROM orders",
            "strftime('%Y', d)",
        ),
        (
            "SELECT name FROM customers WHERE name ILIKE 'a%'",
            "LIKE already ignores the case",
        ),
        (
            "SELECT id FROM orders JOIN customers ON customers.id = orders.customer_id",
            "qualify it with its table or alias (t.id)",
        ),
    ];
    for (sql, advice) in cases {
        let r = call(&client, "run_query", json!({"sql": sql})).await;
        let e = structured(&r);
        assert_eq!(e["code"], "database_error", "{sql}: {e}");
        let hint = e["hint"].as_str().unwrap_or_default();
        assert!(
            hint.contains(advice),
            "{sql}: hint {hint:?} lacks {advice:?}"
        );
    }
}

/// SQLite: a statement past the timeout is interrupted in the engine (`query_timeout`), and the
/// next query runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_statement_is_interrupted_at_the_timeout() {
    let backend = demo_backend(false).expect("demo backend");
    let engine = Engine::new(
        backend,
        EngineConfig::read_only(demo_policy(), Duration::from_millis(300)),
    )
    .await
    .expect("engine");
    let start = std::time::Instant::now();
    let (r, _) = engine
        // A cross join of real tables (an unbounded recursion is refused by the guard now).
        .run_query(
            "SELECT count(*) FROM order_lines a, order_lines b, order_lines c, order_lines d",
        )
        .await;
    let err = r.expect_err("interrupted");
    assert_eq!(err.code.as_str(), "query_timeout", "{err:?}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let (r, _) = engine.run_query("SELECT count(*) AS n FROM products").await;
    assert!(r.is_ok(), "{r:?}");
}
