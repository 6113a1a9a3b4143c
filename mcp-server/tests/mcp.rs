//! The MCP server end to end: an in-process rmcp client, the binary over stdio, and HTTP with auth,
//! Origin and body-cap checks. All on the embedded demo database.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;
use sqlgate_mcp::transport::http::HttpOptions;
use tokio_util::sync::CancellationToken;

mod common;
use common::{call, open_http, serve_in_process, start_http, structured};

async fn engine() -> Arc<Engine> {
    let backend = demo_backend(false).expect("demo backend");
    Arc::new(
        Engine::new(
            backend,
            EngineConfig {
                policy: demo_policy(),
                max_result_bytes: 1 << 20,
                statement_timeout: Duration::from_secs(5),
                mode: sqlgate_mcp::codes::Mode::ReadOnly,
                approval_timeout: Duration::from_secs(60),
            },
        )
        .await
        .expect("engine"),
    )
}

/// Every tool and error path, through any connected client.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
async fn exercise(client: &RunningService<RoleClient, ()>) {
    let tools = client.list_all_tools().await.expect("list tools");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    for n in [
        "list_tables",
        "describe_table",
        "validate_query",
        "run_query",
    ] {
        let t = tools
            .iter()
            .find(|t| t.name == n)
            .unwrap_or_else(|| panic!("{n} in {names:?}"));
        assert!(t.output_schema.is_some(), "{n} has an output schema");
        let a = t.annotations.clone().expect("annotations");
        assert_eq!(a.read_only_hint, Some(true));
        assert_eq!(a.destructive_hint, Some(false));
        assert_eq!(a.idempotent_hint, Some(true));
        assert_eq!(a.open_world_hint, Some(false));
    }

    let r = call(client, "list_tables", json!({})).await;
    assert_ne!(r.is_error, Some(true));
    let tables = structured(&r)["tables"].clone();
    let listed: Vec<&str> = tables
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        listed,
        vec!["customers", "order_lines", "orders", "products"]
    );

    let r = call(client, "describe_table", json!({"table": "customers"})).await;
    let d = structured(&r);
    let email = d["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .find(|c| c["name"] == "email")
        .cloned();
    assert_eq!(email.expect("email column")["protected"], true);
    assert_eq!(d["primary_key"], json!(["id"]));
    assert!(d["referenced_by"].as_array().is_some_and(|a| !a.is_empty()));
    let r = call(client, "describe_table", json!({"table": "order_lines"})).await;
    assert_eq!(
        structured(&r)["foreign_keys"].as_array().map(Vec::len),
        Some(2)
    );

    let r = call(client, "describe_table", json!({"table": "custmers"})).await;
    assert_eq!(r.is_error, Some(true));
    let e = structured(&r);
    assert_eq!(e["code"], "unknown_table");
    assert!(e["hint"].as_str().is_some_and(|h| h.contains("customers")));
    // The guard checked an internal `SELECT 1 FROM ...`: no position in it is shown.
    assert!(e["location"].is_null(), "{e}");
    // Hints of unknown names end by naming the tool that shows what exists (the server adds it).
    let r = call(client, "describe_table", json!({"table": "zzqqxx"})).await;
    let e = structured(&r);
    assert_eq!(e["code"], "unknown_table");
    assert!(
        e["hint"]
            .as_str()
            .is_some_and(|h| h.contains("list_tables")),
        "{e}"
    );
    let unknown_column = json!({"sql": "SELECT zzqqxx FROM customers"});
    let r = call(client, "run_query", unknown_column.clone()).await;
    let e = structured(&r);
    assert_eq!(e["code"], "unknown_column");
    assert!(
        e["hint"]
            .as_str()
            .is_some_and(|h| h.contains("describe_table")),
        "{e}"
    );
    let r = call(client, "validate_query", unknown_column).await;
    let e = structured(&r)["error"].clone();
    assert_eq!(e["code"], "unknown_column");
    assert!(
        e["hint"]
            .as_str()
            .is_some_and(|h| h.contains("describe_table")),
        "{e}"
    );
    let r = call(
        client,
        "describe_table",
        json!({"table": "x; DROP TABLE orders"}),
    )
    .await;
    assert_eq!(structured(&r)["code"], "bad_request");
    let r = call(client, "describe_table", json!({"table": "sqlite_master"})).await;
    assert_eq!(r.is_error, Some(true));

    let r = call(
        client,
        "validate_query",
        json!({"sql": "SELECT name FROM products"}),
    )
    .await;
    let v = structured(&r);
    assert_eq!(v["allowed"], true);
    // validate_query reports the real cap; only execution fetches one row more.
    assert_eq!(v["sql"], "SELECT name FROM products LIMIT 100");
    assert_eq!(v["limit"]["value"], 100);
    let r = call(
        client,
        "validate_query",
        json!({"sql": "DELETE FROM orders"}),
    )
    .await;
    let v = structured(&r);
    assert_eq!(v["allowed"], false);
    assert_eq!(v["query_class"], "mutation_delete");

    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT id, name, price_cents FROM products ORDER BY id"}),
    )
    .await;
    assert_ne!(r.is_error, Some(true));
    let out = structured(&r);
    assert_eq!(out["row_count"], 24);
    assert_eq!(out["truncated"], false);
    assert_eq!(out["rows"][0]["name"], "Espresso beans 1kg");
    assert_eq!(out["columns"][2]["name"], "price_cents");
    assert_eq!(out["query_class"], "select");
    assert!(r
        .content
        .first()
        .and_then(|c| c.as_text())
        .is_some_and(|t| t.text.contains("Espresso")));

    // Row cap: 100 returned, truncated.
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT order_id, line_no FROM order_lines"}),
    )
    .await;
    let out = structured(&r);
    assert_eq!(out["row_count"], 100);
    assert_eq!(out["truncated"], true);
    // executed_sql is what ran: the cap plus the one row that detects truncation.
    assert_eq!(
        out["executed_sql"],
        "SELECT order_id, line_no FROM order_lines LIMIT 101"
    );
    // A caller's own LIMIT at the cap is kept: exactly 100 rows, not truncated.
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT order_id, line_no FROM order_lines LIMIT 100"}),
    )
    .await;
    let out = structured(&r);
    assert_eq!(out["row_count"], 100);
    assert_eq!(out["truncated"], false);

    // Duplicate column names are disambiguated.
    let r = call(client, "run_query", json!({"sql": "SELECT o.id, c.id FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id LIMIT 1"})).await;
    let row = structured(&r)["rows"][0].clone();
    assert!(
        row.get("id").is_some() && row.get("id_2").is_some(),
        "{row}"
    );

    for (sql, code) in [
        ("SELECT 1; DROP TABLE orders", "multiple_statements"),
        ("SELECT name, phone FROM customers", "column_not_allowed"),
        ("SELECT load_extension('x')", "function_not_allowed"),
        ("UPDATE orders SET status = 'x'", "statement_not_allowed"),
        ("SELECT * FROM custmers", "unknown_table"),
        ("", "empty"),
    ] {
        let r = call(client, "run_query", json!({ "sql": sql })).await;
        assert_eq!(r.is_error, Some(true), "{sql}");
        let e = structured(&r);
        assert_eq!(e["code"], code, "{sql}: {e}");
        assert!(
            e.get("stage").is_some() && e.get("retryable").is_some() && e.get("message").is_some()
        );
    }
    // A database error (not a guard refusal) carries database_error.
    let r = call(
        client,
        "run_query",
        json!({"sql": "SELECT no_such_column FROM products"}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    let code = structured(&r)["code"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        code == "unknown_column" || code == "database_error",
        "{code}"
    );
}

#[tokio::test]
async fn in_process_client_every_tool() {
    let engine = engine().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let audit_path = dir.path().join("audit.jsonl");
    let server = SqlGateServer::new(engine, Audit::file(&audit_path).expect("audit"));
    let client = serve_in_process(server).await;
    exercise(&client).await;
    let _ = client.cancel().await;
    let audit = std::fs::read_to_string(&audit_path).expect("audit file");
    let records: Vec<Value> = audit
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert!(records.len() > 10);
    let refused = records
        .iter()
        .find(|r| r["code"] == "multiple_statements")
        .expect("refusal audited");
    assert_eq!(refused["decision"], "refuse");
    assert_eq!(refused["tool"], "run_query");
    assert!(refused["time"].as_str().is_some_and(|t| t.contains('T')));
    // Row values never reach the audit log.
    assert!(!audit.contains("Espresso beans"));
}

#[tokio::test]
async fn binary_over_stdio() {
    let bin = env!("CARGO_BIN_EXE_sqlgate-mcp");
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|c| {
        c.args(["serve", "--demo"]);
        c.stderr(std::process::Stdio::null());
    }))
    .expect("spawn");
    let client = ().serve(transport).await.expect("initialize");
    let info = client.peer_info().expect("server info");
    assert!(info
        .instructions
        .as_deref()
        .is_some_and(|i| i.contains("sqlgate")));
    exercise(&client).await;
    let _ = client.cancel().await;
}

/// The demo engine over HTTP, allowing the origin `http://localhost:3000`, with a 64 KiB body cap.
async fn start_demo_http(token: Option<&str>, stateless: bool) -> (String, CancellationToken) {
    let opts = HttpOptions {
        stateless,
        token: token.map(str::to_string),
        allowed_origins: vec!["http://localhost:3000".into()],
        max_body_bytes: 64 * 1024,
        ..open_http()
    };
    start_http(engine().await, Audit::stderr(), opts).await
}

fn init_body() -> Value {
    json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"raw-test","version":"0"}}})
}

#[tokio::test]
async fn http_auth_origin_and_body_cap() {
    let (url, shutdown) = start_demo_http(Some("t0ken"), false).await;
    let http = reqwest::Client::new();
    let post = |auth: Option<&str>, origin: Option<&str>, body: String| {
        let mut r = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body);
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        r.send()
    };
    let body = init_body().to_string();
    assert_eq!(
        post(None, None, body.clone()).await.expect("send").status(),
        401
    );
    assert_eq!(
        post(Some("Bearer wrong"), None, body.clone())
            .await
            .expect("send")
            .status(),
        401
    );
    assert_eq!(
        post(Some("Bearer t0ken"), None, body.clone())
            .await
            .expect("send")
            .status(),
        200
    );
    assert_eq!(
        post(
            Some("Bearer t0ken"),
            Some("http://evil.example"),
            body.clone()
        )
        .await
        .expect("send")
        .status(),
        403
    );
    assert_eq!(
        post(
            Some("Bearer t0ken"),
            Some("http://localhost:3000"),
            body.clone()
        )
        .await
        .expect("send")
        .status(),
        200
    );
    let big = format!("{{\"pad\":\"{}\"}}", "x".repeat(100 * 1024));
    assert_eq!(
        post(Some("Bearer t0ken"), None, big)
            .await
            .expect("send")
            .status(),
        413
    );
    shutdown.cancel();
}

#[tokio::test]
async fn http_client_every_tool_stateful_and_stateless() {
    for stateless in [false, true] {
        let (url, shutdown) = start_demo_http(None, stateless).await;
        let transport = StreamableHttpClientTransport::from_uri(url);
        let client = ().serve(transport).await.expect("initialize over HTTP");
        exercise(&client).await;
        let _ = client.cancel().await;
        shutdown.cancel();
    }
}

#[tokio::test]
async fn serve_refuses_public_bind_without_token() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .args([
            "serve",
            "--demo",
            "--http",
            "0.0.0.0:0",
            "--allow-unauthenticated",
        ])
        .output()
        .expect("run");
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("without a bearer token"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .args(["serve", "--demo", "--http", "127.0.0.1:0"])
        .output()
        .expect("run");
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bearer token"));
}

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
    let client = serve_in_process(SqlGateServer::new(engine().await, Audit::stderr())).await;
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
        .run_query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
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
