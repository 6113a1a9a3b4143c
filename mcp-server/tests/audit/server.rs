//! The audit as the server uses and shows it: calls failing when their record cannot be written,
//! the `audit_verify` and `server_info` tools, `--tools`, oversized SQL logged as prefix, hash and
//! length, and row values never logged in any format.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{json, Value};
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::audit::{Audit, AuditFailure, AuditOptions};
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, demo_engine, serve_in_process, structured, try_call};
use crate::log_files::{intact, lines_of};

/// A full-access demo server whose audit file is rotated onto `/dev/full` (every write fails
/// with ENOSPC) while it runs.
async fn full_device_server(failure: AuditFailure) -> (SqlGateServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let opts = AuditOptions {
        path: Some(path.clone()),
        failure,
        ..AuditOptions::default()
    };
    let audit = Audit::open(opts).expect("audit");
    std::fs::remove_file(&path).expect("rm");
    std::os::unix::fs::symlink("/dev/full", &path).expect("symlink");
    audit.reopen();
    let mode = sqlgate_mcp::codes::Mode::FullAccess;
    let mut config = EngineConfig::read_only(demo_policy(), Duration::from_secs(5));
    config.mode = mode;
    let backend = demo_backend(true).expect("demo backend");
    let engine = Arc::new(Engine::new(backend, config).await.expect("engine"));
    (SqlGateServer::new(engine, audit), dir)
}

const UPDATE_7: &str = "UPDATE orders SET status = 'cancelled' WHERE id = 7";

#[cfg(unix)]
#[tokio::test]
async fn unwritable_audit_fails_calls_or_only_mutations() {
    let (server, _dir) = full_device_server(AuditFailure::Strict).await;
    let client = serve_in_process(server).await;
    let r = try_call(&client, "run_query", json!({"sql": "SELECT 1 AS n"})).await;
    let e = r.expect_err("strict: the call fails without its record");
    assert!(e.to_string().contains("audit log write failed"), "{e}");
    let r = try_call(&client, "run_mutation", json!({ "sql": UPDATE_7 })).await;
    assert!(r.is_err(), "strict: a mutation fails too: {r:?}");
    let _ = client.cancel().await;

    let (server, _dir) = full_device_server(AuditFailure::StrictMutations).await;
    let client = serve_in_process(server).await;
    let r = call(&client, "run_query", json!({"sql": "SELECT 1 AS n"})).await;
    assert_eq!(structured(&r)["rows"][0]["n"], 1, "reads continue: {r:?}");
    let r = try_call(&client, "run_mutation", json!({ "sql": UPDATE_7 })).await;
    let e = r.expect_err("strict_mutations: a mutation fails without its record");
    assert!(e.to_string().contains("audit log write failed"), "{e}");
    // A batch is a mutation too (it continued, unaudited, until the tools' kinds were declared).
    let batch = json!({ "statements": [UPDATE_7] });
    let r = try_call(&client, "run_mutations", batch).await;
    let e = r.expect_err("strict_mutations: a batch fails without its record");
    assert!(e.to_string().contains("audit log write failed"), "{e}");
    let _ = client.cancel().await;
}

#[tokio::test]
async fn audit_verify_tool_reports_the_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let server = SqlGateServer::new(demo_engine().await, Audit::file(&path).expect("audit"));
    let client = serve_in_process(server).await;
    let tools = client.list_all_tools().await.expect("tools");
    let t = tools
        .iter()
        .find(|t| t.name == "audit_verify")
        .expect("listed");
    assert_eq!(
        t.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    call(&client, "list_tables", json!({})).await;
    let r = call(&client, "audit_verify", json!({})).await;
    let v = structured(&r);
    assert_eq!(v["intact"], true, "{v}");
    assert_eq!(v["summary"]["records"], 1, "{v}");
    let _ = client.cancel().await;
    // Without an audit file the tool is not listed.
    let client = serve_in_process(SqlGateServer::new(demo_engine().await, Audit::stderr())).await;
    let tools = client.list_all_tools().await.expect("tools");
    assert!(tools.iter().all(|t| t.name != "audit_verify"));
    let _ = client.cancel().await;
}

#[tokio::test]
async fn row_values_never_reach_any_audit_format() {
    use sqlgate_mcp::audit::AuditFormat;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("planted.db");
    let planted = format!("planted-{}", uuid::Uuid::new_v4());
    {
        let c = rusqlite::Connection::open(&db).expect("db");
        c.execute_batch("CREATE TABLE secret_box (id INTEGER PRIMARY KEY, note TEXT)")
            .expect("create");
        c.execute("INSERT INTO secret_box VALUES (1, ?1)", [&planted])
            .expect("insert");
    }
    for format in [AuditFormat::Jsonl, AuditFormat::Otel] {
        let backend = sqlgate_mcp::backend::Backend::Sqlite(
            sqlgate_mcp::backend::sqlite::SqliteBackend::open(&db).expect("open"),
        );
        let cfg = EngineConfig {
            policy: sqlgate::Policy::for_dialect(sqlgate::Dialect::Sqlite),
            max_result_bytes: 1 << 20,
            statement_timeout: Duration::from_secs(5),
            mode: sqlgate_mcp::codes::Mode::ReadOnly,
            approval_timeout: Duration::from_secs(60),
        };
        let engine = Arc::new(Engine::new(backend, cfg).await.expect("engine"));
        let path = dir.path().join(format!("audit-{format:?}"));
        let opts = AuditOptions {
            path: Some(path.clone()),
            format,
            ..AuditOptions::default()
        };
        let server = SqlGateServer::new(engine, Audit::open(opts).expect("audit"));
        let client = serve_in_process(server).await;
        let sql = json!({"sql": "SELECT id, note FROM secret_box"});
        let r = call(&client, "run_query", sql).await;
        assert_eq!(structured(&r)["rows"][0]["note"], planted.as_str(), "{r:?}");
        call(&client, "describe_table", json!({"table": "secret_box"})).await;
        call(&client, "list_tables", json!({})).await;
        let _ = client.cancel().await;
        let audit = std::fs::read_to_string(&path).expect("audit");
        assert!(
            audit.contains("secret_box"),
            "{format:?}: the query is audited"
        );
        assert!(
            !audit.contains(&planted),
            "{format:?}: a row value reached the audit log"
        );
    }
}

/// Calls `tool` with `args` and a W3C `traceparent` in the request's `_meta`.
#[tokio::test]
async fn server_info_reports_the_audit_chain() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let server = SqlGateServer::new(demo_engine().await, Audit::file(&path).expect("audit"));
    let client = serve_in_process(server).await;
    call(&client, "list_tables", json!({})).await;
    let r = call(&client, "server_info", json!({})).await;
    let v = structured(&r);
    assert_eq!(v["sqlgate_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        (v["dialect"].as_str(), v["database"].as_str()),
        (Some("sqlite"), Some("sqlite"))
    );
    assert_eq!(v["mode"], "read_only");
    assert_eq!(v["audit"]["sink"], "file");
    assert_eq!(v["audit"]["format"], "jsonl");
    // Header and list_tables are written; server_info's own record comes after.
    assert_eq!(v["audit"]["chain"]["next_seq"], 2, "{v}");
    // The chain as server_info saw it ends at list_tables' line; its own record follows.
    let mut lines = lines_of(&path);
    let own: Value = serde_json::from_str(&lines.pop().expect("line")).expect("json");
    assert_eq!(own["tool"], "server_info", "{own}");
    let last = lines.pop().expect("line");
    let hash = sqlgate_mcp::audit::chain::sha256_hex(last.as_bytes());
    assert_eq!(v["audit"]["chain"]["last_hash"], hash.as_str());
    let _ = client.cancel().await;
}

#[tokio::test]
async fn tools_flag_publishes_only_the_named_tools() {
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let bin = env!("CARGO_BIN_EXE_sqlgate-mcp");
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|c| {
        c.args(["serve", "--demo", "--tools", "list_tables,server_info"]);
        c.stderr(std::process::Stdio::null());
    }))
    .expect("spawn");
    let client = ().serve(transport).await.expect("initialize");
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools")
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["list_tables", "server_info"]);
    let r = try_call(&client, "run_query", json!({"sql": "SELECT 1"})).await;
    assert!(r.is_err(), "an unpublished tool is not callable: {r:?}");
    call(&client, "list_tables", json!({})).await;
    let _ = client.cancel().await;
    let out = Command::new(bin)
        .args(["serve", "--demo", "--tools", "list_tables,drop_everything"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown tool `drop_everything`"), "{err}");
}

#[tokio::test]
async fn a_too_large_payload_is_audited_as_prefix_hash_and_length() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let opts = AuditOptions {
        path: Some(path.clone()),
        ..AuditOptions::default()
    };
    let server = SqlGateServer::new(demo_engine().await, Audit::open(opts).expect("audit"));
    let client = serve_in_process(server).await;
    // Over the demo policy's max_sql_bytes; the tail is a marker that must not be logged.
    let sql = format!("SELECT 1 /* {} */ -- tail-marker", "x".repeat(300_000));
    let r = call(&client, "run_query", json!({"sql": sql})).await;
    assert_eq!(structured(&r)["code"], "too_large", "{r:?}");
    call(&client, "run_query", json!({"sql": "SELECT 1"})).await;
    let _ = client.cancel().await;
    let lines = lines_of(&path);
    let records: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    let big = records
        .iter()
        .find(|r| r["code"] == "too_large")
        .expect("the refusal is audited");
    let kept = big["sql"].as_str().expect("a prefix is kept");
    assert_eq!(kept.len(), sqlgate_mcp::audit::TOO_LARGE_PREFIX_BYTES);
    assert!(sql.starts_with(kept));
    assert_eq!(big["sql_bytes"], sql.len());
    use sha2::Digest;
    let digest = sha2::Sha256::digest(sql.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(big["sql_sha256"], hex.as_str());
    assert!(!lines.iter().any(|l| l.contains("tail-marker")));
    // A query of ordinary size is kept whole, without a hash.
    let small = records
        .iter()
        .find(|r| r["sql"] == "SELECT 1")
        .expect("the small query is audited");
    assert!(small.get("sql_sha256").is_none(), "{small}");
    let summary = intact(&[&path]);
    assert_eq!((summary.records + summary.headers) as usize, lines.len());
}
