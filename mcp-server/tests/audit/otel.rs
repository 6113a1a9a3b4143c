//! `--audit-format otel` (each line an OTLP/JSON `LogsData`, chained like JSONL) and
//! `--otlp-endpoint` (the same records exported to a collector, which never fails or holds a call).

use std::sync::Arc;

use opentelemetry_proto::tonic::common::v1::any_value::Value as V;
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use serde_json::{json, Value};
use sqlgate_mcp::audit::verify::{verify_files, Tamper};
use sqlgate_mcp::audit::{Audit, AuditOptions};
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, demo_engine, serve_in_process};
use crate::log_files::{intact, lines_of, tampered};

/// Calls `tool` with `args` and a W3C `traceparent` in the request's `_meta`.
async fn call_traced(
    client: &rmcp::service::Peer<rmcp::RoleClient>,
    tool: &'static str,
    args: Value,
    traceparent: &str,
) {
    let mut meta = serde_json::Map::new();
    meta.insert("traceparent".into(), json!(traceparent));
    let mut p = rmcp::model::CallToolRequestParams::new(tool);
    p.meta = Some(meta.into());
    if let Value::Object(m) = args {
        p = p.with_arguments(m);
    }
    client.call_tool(p).await.expect("call");
}

/// The trace of the `traceparent` of [`allowed_traced_then_refused`]'s first call.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

/// Serves the demo with `audit`: one allowed `run_query` with a `traceparent` (of [`TRACE_ID`]),
/// then one refused (a DELETE).
async fn allowed_traced_then_refused(audit: Audit) {
    let client = serve_in_process(SqlGateServer::new(demo_engine().await, audit)).await;
    let tp = format!("00-{TRACE_ID}-00f067aa0ba902b7-01");
    let sql = json!({"sql": "SELECT name FROM products WHERE id = 1"});
    call_traced(client.peer(), "run_query", sql, &tp).await;
    call(&client, "run_query", json!({"sql": "DELETE FROM products"})).await;
    let _ = client.cancel().await;
}

/// Bytes as lowercase hex.
fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[tokio::test]
async fn otel_lines_decode_as_otlp_logs_data_and_chain() {
    use opentelemetry_proto::tonic::logs::v1::LogsData;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.otlp.jsonl");
    let audit = Audit::open(AuditOptions {
        path: Some(path.clone()),
        format: sqlgate_mcp::audit::AuditFormat::Otel,
        facts: sqlgate_mcp::audit::ServerFacts {
            dialect: "sqlite".into(),
            ..Default::default()
        },
        ..AuditOptions::default()
    })
    .expect("audit");
    allowed_traced_then_refused(audit).await;

    let s = intact(&[&path]);
    assert_eq!((s.records, s.headers), (2, 1), "{s:?}");
    assert_eq!(s.decisions.get("refuse"), Some(&1), "{s:?}");
    let lines = lines_of(&path);
    let decoded: Vec<LogsData> = lines
        .iter()
        .map(|l| serde_json::from_str(l).expect("OTLP/JSON LogsData"))
        .collect();
    let rec = |i: usize| &decoded[i].resource_logs[0].scope_logs[0].log_records[0];
    let scope = decoded[1].resource_logs[0].scope_logs[0]
        .scope
        .as_ref()
        .expect("scope");
    assert_eq!(scope.name, "sqlgate-mcp.audit");
    assert_eq!(scope.version, env!("CARGO_PKG_VERSION"));
    let attr = |i: usize, key: &str| -> Option<String> {
        rec(i).attributes.iter().find(|a| a.key == key).map(|a| {
            let v = serde_json::to_value(a.value.as_ref().expect("value")).expect("json");
            v.as_object()
                .and_then(|o| o.values().next().cloned())
                .map_or(String::new(), |x| {
                    x.as_str().map_or_else(|| x.to_string(), str::to_string)
                })
        })
    };
    let ok = 1;
    assert_eq!(
        attr(ok, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(attr(ok, "gen_ai.tool.name").as_deref(), Some("run_query"));
    assert_eq!(attr(ok, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(attr(ok, "sqlgate.decision").as_deref(), Some("allow"));
    assert_eq!(attr(ok, "sqlgate.query_class").as_deref(), Some("select"));
    assert_eq!(attr(ok, "db.system.name").as_deref(), Some("sqlite"));
    assert!(attr(ok, "db.query.text").is_some_and(|q| q.contains("products")));
    assert!(attr(ok, "gen_ai.tool.call.id").is_some());
    assert_eq!(attr(ok, "sqlgate.audit.seq").as_deref(), Some("1"));
    assert_eq!(attr(ok, "sqlgate.audit.prev").map(|p| p.len()), Some(64));
    assert_eq!(rec(ok).severity_text, "INFO");
    assert_eq!(hex(&rec(ok).trace_id), TRACE_ID);
    assert_eq!(rec(ok).span_id.len(), 8);
    let body = serde_json::to_value(rec(ok).body.as_ref().expect("body")).expect("json");
    assert_eq!(body["stringValue"], "execute_tool run_query", "{body}");
    // The refused call: ERROR with error.type; no traceparent: the session's trace.
    assert_eq!(rec(2).severity_text, "ERROR");
    assert_eq!(rec(2).severity_number, 17);
    assert!(attr(2, "error.type").is_some());
    assert_eq!(rec(2).trace_id.len(), 16);
    assert_ne!(hex(&rec(2).trace_id), TRACE_ID);
    // The chain breaks in otel files too.
    let mut edited = lines.clone();
    edited[1] = edited[1].replacen("run_query", "run_qverY", 1);
    let p = tampered(&path, "otel-edited", &edited);
    let b = verify_files(&[&p]).expect("read").expect_err("edited");
    assert_eq!((b.kind, b.line), (Tamper::Edited, 2), "{b:?}");
}

/// A small OTLP/HTTP collector: every POST body (protobuf), with its path and content type.
async fn otlp_receiver() -> (
    String,
    Arc<std::sync::Mutex<Vec<(String, String, Vec<u8>)>>>,
) {
    use axum::body::Bytes;
    use axum::extract::{OriginalUri, State};
    use axum::http::HeaderMap;
    type Seen = Arc<std::sync::Mutex<Vec<(String, String, Vec<u8>)>>>;
    let seen: Seen = Arc::default();
    async fn receive(
        State(seen): State<Seen>,
        OriginalUri(uri): OriginalUri,
        headers: HeaderMap,
        body: Bytes,
    ) -> ([(&'static str, &'static str); 1], Vec<u8>) {
        let kind = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        seen.lock()
            .expect("lock")
            .push((uri.path().to_string(), kind, body.to_vec()));
        // An empty ExportLogsServiceResponse: everything accepted.
        ([("content-type", "application/x-protobuf")], Vec::new())
    }
    let app = axum::Router::new()
        .fallback(axum::routing::post(receive))
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), seen)
}

/// The log records of every POST the collector received, each checked to be OTLP/HTTP protobuf
/// from the service `sqlgate-mcp` and the scope `sqlgate-mcp.audit`.
fn exported_records(posts: &[(String, String, Vec<u8>)]) -> Vec<LogRecord> {
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
    use prost::Message;
    let mut records = Vec::new();
    for (path, kind, body) in posts {
        assert_eq!(path, "/v1/logs");
        assert_eq!(kind, "application/x-protobuf");
        let request = ExportLogsServiceRequest::decode(body.as_slice()).expect("OTLP protobuf");
        for resource in request.resource_logs {
            let service = resource
                .resource
                .as_ref()
                .and_then(|r| r.attributes.iter().find(|a| a.key == "service.name"))
                .and_then(|a| a.value.as_ref()?.value.clone());
            assert_eq!(service, Some(V::StringValue("sqlgate-mcp".into())));
            for scope_logs in resource.scope_logs {
                let scope = scope_logs.scope.expect("scope");
                assert_eq!(scope.name, "sqlgate-mcp.audit");
                assert_eq!(scope.version, env!("CARGO_PKG_VERSION"));
                records.extend(scope_logs.log_records);
            }
        }
    }
    records
}

/// The value of attribute `key` of `r`.
fn attr(r: &LogRecord, key: &str) -> Option<V> {
    r.attributes
        .iter()
        .find(|a| a.key == key)
        .and_then(|a| a.value.as_ref()?.value.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn otlp_endpoint_exports_the_same_records_to_a_collector() {
    let (endpoint, seen) = otlp_receiver().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = Audit::open(AuditOptions {
        path: Some(path.clone()),
        otlp_endpoint: Some(endpoint),
        facts: sqlgate_mcp::audit::ServerFacts {
            dialect: "sqlite".into(),
            ..Default::default()
        },
        ..AuditOptions::default()
    })
    .expect("audit");
    allowed_traced_then_refused(audit.clone()).await;
    audit.flush().await;

    let posts = seen.lock().expect("lock").clone();
    assert!(!posts.is_empty(), "nothing reached the collector");
    let records = exported_records(&posts);
    // The header and both calls, with the file's chain fields.
    let file = lines_of(&path);
    assert_eq!(records.len(), file.len(), "one exported record per line");
    let seqs: Vec<Option<V>> = records
        .iter()
        .map(|r| attr(r, "sqlgate.audit.seq"))
        .collect();
    assert_eq!(
        seqs,
        [
            Some(V::IntValue(0)),
            Some(V::IntValue(1)),
            Some(V::IntValue(2))
        ]
    );
    let allowed = &records[1];
    assert_eq!(
        attr(allowed, "gen_ai.tool.name"),
        Some(V::StringValue("run_query".into()))
    );
    assert_eq!(
        attr(allowed, "sqlgate.decision"),
        Some(V::StringValue("allow".into()))
    );
    let second: Value = serde_json::from_str(&file[2]).expect("json");
    assert_eq!(
        attr(&records[2], "sqlgate.audit.prev"),
        second["prev"].as_str().map(|p| V::StringValue(p.into()))
    );
    assert_eq!(hex(&allowed.trace_id), TRACE_ID);
    assert_eq!(allowed.severity_text, "INFO");
    assert_eq!(records[2].severity_text, "ERROR");
    assert_eq!(
        attr(&records[2], "error.type"),
        Some(V::StringValue("statement_not_allowed".into()))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_collector_never_fails_or_holds_a_call() {
    // A port nobody listens on: the exporter's sends fail in its own thread.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let audit = Audit::open(AuditOptions {
        path: Some(path.clone()),
        otlp_endpoint: Some(format!("http://127.0.0.1:{port}")),
        ..AuditOptions::default()
    })
    .expect("audit");
    let client = serve_in_process(SqlGateServer::new(demo_engine().await, audit)).await;
    for i in 0..20 {
        let r = call(&client, "run_query", json!({"sql": format!("SELECT {i}")})).await;
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    let _ = client.cancel().await;
    assert_eq!(intact(&[&path]).records, 20);
}
