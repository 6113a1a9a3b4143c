//! Helpers shared by the integration tests: the database servers' URLs, engines (the demo
//! database, PostgreSQL), and MCP clients connected in-process or over HTTP.

// Each test target compiles this module on its own and uses only part of it.
#![allow(dead_code)]

#[cfg(feature = "duckdb")]
pub mod chinook_duckdb;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{Peer, RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use sqlgate::{Dialect, Policy};
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::postgres::PgBackend;
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;
use sqlgate_mcp::transport::http::{serve_http, HttpOptions};
use tokio_util::sync::CancellationToken;

/// A file of the repository's Chinook fixture (`tests/fixtures/chinook`, Chinook 1.4.5, MIT):
/// always there, so the tests that read it never skip for it.
pub fn chinook_fixture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/chinook")
        .join(name)
}

/// `SQLGATE_CHINOOK_URL` (set by `scripts/test.sh`). Without it the calling test is skipped with
/// a message naming `suite`, except under `CI=true`, where its absence is a failure.
pub fn chinook_url(suite: &str) -> Option<String> {
    server_url("SQLGATE_CHINOOK_URL", "PostgreSQL", suite)
}

/// The URL in `var`, naming a database server of `engine`. Without it the calling test is skipped
/// with a message naming `suite`, except under `CI=true`, where its absence is a failure.
pub fn server_url(var: &str, engine: &str, suite: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(u) if !u.trim().is_empty() => Some(u),
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{var} not set, and CI=true requires the {engine} tests");
            }
            eprintln!("skipped: {var} not set (no {engine} for {suite})");
            None
        }
    }
}

/// An engine on the embedded demo database (SQLite), read-only, 5 s per statement, 1 MiB results.
pub async fn demo_engine() -> Arc<Engine> {
    let backend = demo_backend(false).expect("demo backend");
    let cfg = EngineConfig {
        policy: demo_policy(),
        max_result_bytes: 1 << 20,
        statement_timeout: Duration::from_secs(5),
        mode: sqlgate_mcp::codes::Mode::ReadOnly,
        approval_timeout: Duration::from_secs(60),
    };
    Arc::new(Engine::new(backend, cfg).await.expect("engine"))
}

/// PostgreSQL's default policy with a row cap.
pub fn postgres_policy(max_rows: u64) -> Policy {
    Policy {
        max_rows: Some(max_rows),
        ..Policy::for_dialect(Dialect::Postgres)
    }
}

/// An engine on PostgreSQL at `url`: `pool` connections, `timeout` per statement, 1 MiB results.
pub async fn pg_engine(url: &str, pool: usize, timeout: Duration, policy: Policy) -> Engine {
    let pg = PgBackend::connect(url, pool, timeout, false)
        .await
        .expect("connect");
    Engine::new(
        Backend::Postgres(pg),
        EngineConfig {
            policy,
            max_result_bytes: 1 << 20,
            statement_timeout: timeout,
            mode: sqlgate_mcp::codes::Mode::ReadOnly,
            approval_timeout: Duration::from_secs(60),
        },
    )
    .await
    .expect("engine")
}

/// An rmcp client talking to `server` over an in-memory pipe.
pub async fn serve_in_process(server: SqlGateServer) -> RunningService<RoleClient, ()> {
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(b).await.expect("client")
}

/// Serves `engine` over streamable HTTP on a free loopback port; returns the endpoint URL and the
/// token that stops the server. `opts.addr` is replaced by `127.0.0.1:0`.
pub async fn start_http(
    engine: Arc<Engine>,
    audit: Audit,
    opts: HttpOptions,
) -> (String, CancellationToken) {
    let shutdown = CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let opts = HttpOptions {
        addr: "127.0.0.1:0".into(),
        ..opts
    };
    let s = shutdown.clone();
    tokio::spawn(async move {
        let _ = serve_http(engine, audit, opts, s, Some(tx)).await;
    });
    let addr = rx.await.expect("bound");
    (format!("http://{addr}/mcp"), shutdown)
}

/// HTTP options without a token, origins or sessions turned off, and a 1 MiB body cap.
pub fn open_http() -> HttpOptions {
    HttpOptions {
        addr: "127.0.0.1:0".into(),
        stateless: false,
        token: None,
        allowed_origins: Vec::new(),
        max_body_bytes: 1 << 20,
        oauth: None,
        tls: None,
        connections: Default::default(),
    }
}

/// Calls `tool` with `args` (a JSON object); `Err` when the call itself failed (not a tool error).
pub async fn try_call(
    client: &Peer<RoleClient>,
    tool: &str,
    args: Value,
) -> Result<CallToolResult, ServiceError> {
    let mut p = CallToolRequestParams::new(tool.to_string());
    if let Value::Object(m) = args {
        p = p.with_arguments(m);
    }
    client.call_tool(p).await
}

/// [`try_call`], where a failed call fails the test.
pub async fn call(client: &Peer<RoleClient>, tool: &str, args: Value) -> CallToolResult {
    try_call(client, tool, args)
        .await
        .unwrap_or_else(|e| panic!("call {tool}: {e}"))
}

/// The structured content of a result (`null` when there is none).
pub fn structured(r: &CallToolResult) -> Value {
    r.structured_content.clone().unwrap_or(Value::Null)
}

/// `run_query` of `sql`, which must succeed: its structured result.
pub async fn query_ok(client: &Peer<RoleClient>, sql: &str) -> Value {
    let r = call(client, "run_query", serde_json::json!({ "sql": sql })).await;
    let out = structured(&r);
    assert_ne!(r.is_error, Some(true), "{sql}: {out}");
    out
}

/// A client whose user approves every elicitation (`{"approve": true}`), counting the requests.
#[derive(Clone, Default)]
pub struct AlwaysApprove {
    /// Elicitation requests received.
    pub asked: Arc<std::sync::atomic::AtomicUsize>,
}

impl rmcp::ClientHandler for AlwaysApprove {
    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(serde_json::json!({ "approve": true })),
        )
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder()
                .enable_elicitation()
                .build(),
            rmcp::model::Implementation::new("sqlgate-tests-always-approve", "0"),
        )
    }
}

/// An rmcp client with `handler` talking to `server` over an in-memory pipe.
pub async fn serve_in_process_with<H: rmcp::ClientHandler>(
    server: SqlGateServer,
    handler: H,
) -> RunningService<RoleClient, H> {
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    handler.serve(b).await.expect("client")
}

/// Every row of the demo's `orders` and `order_lines`, read directly from its SQLite file.
pub fn demo_rows(db: &std::path::Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).expect("open the demo database");
    let mut out = Vec::new();
    for q in [
        "SELECT id || ':' || customer_id || ':' || status FROM orders ORDER BY id",
        "SELECT order_id || ':' || line_no || ':' || quantity FROM order_lines ORDER BY 1",
    ] {
        let mut s = c.prepare(q).expect("prepare");
        let rows = s.query_map([], |r| r.get::<_, String>(0)).expect("query");
        out.extend(rows.map(|r| r.expect("row")));
    }
    out
}
