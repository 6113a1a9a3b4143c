//! run_mutation's flow on the embedded demo database, without an MCP client where none is needed
//! (the approval is a closure), and with an in-process rmcp client for what only MCP shows: the
//! tool list by mode, the approval timeout, the audit decisions.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{json, Value};
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::audit::{Audit, Decision};
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::codes::Mode;
use sqlgate_mcp::codes::{MutationCode, ToolCode};
use sqlgate_mcp::gate::approval::{ApprovalAnswer, ApprovalRequest};
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

mod common;
use common::{structured, try_call};

const UPDATE_7: &str = "UPDATE orders SET status = 'cancelled' WHERE id = 7";

async fn demo_engine(mode: Mode, approval_timeout: Duration) -> (Arc<Engine>, PathBuf) {
    let backend = demo_backend(mode.writes()).expect("demo backend");
    let path = match &backend {
        Backend::Sqlite(b) => b.path().to_path_buf(),
        _ => unreachable!("the demo is SQLite"),
    };
    let mut config = EngineConfig::read_only(demo_policy(), Duration::from_secs(5));
    config.mode = mode;
    config.approval_timeout = approval_timeout;
    let engine = Engine::new(backend, config).await.expect("engine");
    (Arc::new(engine), path)
}

/// Every row of orders and order_lines, read directly.
fn contents(path: &std::path::Path) -> Vec<String> {
    common::demo_rows(path)
}

/// An approval closure answering `answer`, counting how often it is asked.
fn answering(
    answer: ApprovalAnswer,
    asked: &Arc<AtomicUsize>,
) -> impl FnOnce(ApprovalRequest) -> std::future::Ready<ApprovalAnswer> {
    let asked = asked.clone();
    move |r: ApprovalRequest| {
        asked.fetch_add(1, Ordering::SeqCst);
        assert_eq!(r.preview_rows, 1);
        assert_eq!(r.target, "orders");
        std::future::ready(answer)
    }
}

#[tokio::test]
async fn safe_mode_commits_only_what_the_user_approves() {
    let (engine, path) = demo_engine(Mode::Safe, Duration::from_secs(60)).await;
    let before = contents(&path);
    let asked = Arc::new(AtomicUsize::new(0));
    for answer in [
        ApprovalAnswer::Declined,
        ApprovalAnswer::Cancelled,
        ApprovalAnswer::Unavailable,
    ] {
        let (out, trace) = engine
            .run_mutation(UPDATE_7, answering(answer, &asked))
            .await;
        let e = out.expect_err("not approved");
        assert!(matches!(e.code, ToolCode::Mutation(_)), "{e:?}");
        assert_eq!(trace.preview_rows, Some(1));
        assert_eq!(trace.committed_rows, None);
        assert_eq!(contents(&path), before, "{answer:?} changed the database");
    }
    let (out, trace) = engine
        .run_mutation(UPDATE_7, answering(ApprovalAnswer::Accepted, &asked))
        .await;
    let out = out.expect("not refused").committed().expect("committed");
    assert_eq!(asked.load(Ordering::SeqCst), 4);
    assert_eq!(
        (out.affected_rows, out.decision),
        (1, Decision::NeedsApprovalAccepted)
    );
    assert_eq!(trace.committed_rows, Some(1));
    let after = contents(&path);
    let changed: Vec<_> = before.iter().zip(&after).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].1.starts_with("7:") && changed[0].1.ends_with(":cancelled"));
}

#[tokio::test]
async fn too_many_rows_and_refusals_stop_before_asking_and_change_nothing() {
    let (engine, path) = demo_engine(Mode::Safe, Duration::from_secs(60)).await;
    let before = contents(&path);
    let asked = Arc::new(AtomicUsize::new(0));
    for (sql, code) in [
        (
            "UPDATE orders SET status = 'x' WHERE id > 0",
            ToolCode::Mutation(MutationCode::TooManyRows),
        ),
        (
            "UPDATE orders SET status = 'x'",
            ToolCode::Guard(sqlgate::ErrorCode::UnboundedMutation),
        ),
        (
            "UPDATE customers SET city = 'x' WHERE id = 1",
            ToolCode::Guard(sqlgate::ErrorCode::TableNotWritable),
        ),
    ] {
        let (out, trace) = engine
            .run_mutation(sql, answering(ApprovalAnswer::Accepted, &asked))
            .await;
        assert_eq!(out.expect_err(sql).code, code, "{sql}");
        assert_eq!(trace.decision, Decision::Refuse, "{sql}");
    }
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    assert_eq!(contents(&path), before);
    // A read sent to run_mutation points to run_query.
    let (out, _) = engine
        .run_mutation("SELECT 1", answering(ApprovalAnswer::Accepted, &asked))
        .await;
    assert!(out
        .unwrap_err()
        .hint
        .unwrap_or_default()
        .contains("run_query"));
}

#[tokio::test]
async fn delete_safe_asks_for_deletes_only_and_full_access_never() {
    let asked = Arc::new(AtomicUsize::new(0));
    let (engine, _) = demo_engine(Mode::DeleteSafe, Duration::from_secs(60)).await;
    let (out, _) = engine
        .run_mutation(UPDATE_7, answering(ApprovalAnswer::Declined, &asked))
        .await;
    assert_eq!(
        out.unwrap().committed().map(|o| o.decision),
        Some(Decision::Allow)
    );
    assert_eq!(asked.load(Ordering::SeqCst), 0);
    let delete = "DELETE FROM order_lines WHERE order_id = 7";
    let (out, trace) = engine
        .run_mutation(delete, |_| std::future::ready(ApprovalAnswer::Declined))
        .await;
    assert_eq!(
        out.unwrap_err().code,
        ToolCode::Mutation(MutationCode::ApprovalDeclined)
    );
    assert_eq!(trace.decision, Decision::NeedsApprovalDeclined);
    let (engine, path) = demo_engine(Mode::FullAccess, Duration::from_secs(60)).await;
    let n = contents(&path).len();
    let (out, _) = engine
        .run_mutation(delete, |_| async { panic!("full_access never asks") })
        .await;
    let out = out.unwrap().committed().expect("committed");
    assert_eq!(out.decision, Decision::Allow);
    assert_eq!(contents(&path).len() as u64, n as u64 - out.affected_rows);
}

#[tokio::test]
async fn writable_tables_and_instructions_follow_the_mode() {
    let (ro, _) = demo_engine(Mode::ReadOnly, Duration::from_secs(60)).await;
    assert!(ro.writable_tables().is_empty());
    let text = sqlgate_mcp::tools::instructions(&ro);
    assert!(text.contains("Mode: read_only"), "{text}");
    let (safe, _) = demo_engine(Mode::Safe, Duration::from_secs(60)).await;
    assert_eq!(*safe.writable_tables(), vec!["order_lines", "orders"]);
    let text = sqlgate_mcp::tools::instructions(&safe);
    assert!(
        text.contains("Mode: safe") && text.contains("order_lines, orders"),
        "{text}"
    );
    // run_query refuses writes in every mode; in a write mode its hint names run_mutation.
    let (out, _) = safe.run_query(UPDATE_7).await;
    assert!(out
        .unwrap_err()
        .hint
        .unwrap_or_default()
        .contains("run_mutation"));
    let (out, _) = ro.run_query(UPDATE_7).await;
    assert!(!out
        .unwrap_err()
        .hint
        .unwrap_or_default()
        .contains("run_mutation"));
}

/// A client that announces elicitation and never answers in time.
#[derive(Clone)]
struct SlowUser;

impl rmcp::ClientHandler for SlowUser {
    async fn create_elicitation(
        &self,
        _request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        tokio::time::sleep(Duration::from_secs(3)).await;
        Ok(
            rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept)
                .with_content(json!({ "approve": true })),
        )
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        common::AlwaysApprove::default().get_info()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_mcp_tools_by_mode_approval_timeout_and_audit() {
    let dir = tempfile::tempdir().unwrap();
    let audit_path = dir.path().join("audit.jsonl");
    let (ro, _) = demo_engine(Mode::ReadOnly, Duration::from_secs(60)).await;
    let client = common::serve_in_process(SqlGateServer::new(ro, Audit::stderr())).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().all(|t| t.name != "run_mutation"));
    let _ = client.cancel().await;

    let (engine, path) = demo_engine(Mode::Safe, Duration::from_millis(500)).await;
    let before = contents(&path);
    let server = SqlGateServer::new(engine, Audit::file(&audit_path).unwrap());
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    let client = SlowUser.serve(b).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    let t = tools.iter().find(|t| t.name == "run_mutation").unwrap();
    let a = t.annotations.clone().unwrap();
    assert_eq!(a.read_only_hint, Some(false));
    assert_eq!(a.destructive_hint, Some(true));
    assert_eq!(a.idempotent_hint, Some(false));
    assert_eq!(a.open_world_hint, Some(false));
    assert!(t.output_schema.is_some());
    let r = try_call(&client, "run_mutation", json!({ "sql": UPDATE_7 }))
        .await
        .unwrap();
    assert_eq!(structured(&r)["code"], "approval_cancelled");
    assert_eq!(contents(&path), before);
    let _ = client.cancel().await;
    let audit = std::fs::read_to_string(&audit_path).unwrap();
    let rec: Value = serde_json::from_str(audit.lines().last().unwrap()).unwrap();
    assert_eq!(rec["decision"], "needs_approval_cancelled");
    assert_eq!(rec["preview_rows"], 1);
    assert!(rec.get("committed_rows").is_none());
}
