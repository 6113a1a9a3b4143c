//! The same checks through each transport: an in-process client, the binary over stdio, HTTP
//! (stateful and stateless); HTTP's bearer token, Origin and body cap; no public bind without a
//! token.

use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::{json, Value};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::tools::SqlGateServer;
use sqlgate_mcp::transport::http::HttpOptions;
use tokio_util::sync::CancellationToken;

use crate::common::{demo_engine, open_http, serve_in_process, start_http};
use crate::exercise::exercise;

#[tokio::test]
async fn in_process_client_every_tool() {
    let engine = demo_engine().await;
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
    start_http(demo_engine().await, Audit::stderr(), opts).await
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
