//! One record per tool call, for every tool (`server_info` and `audit_verify` included): the
//! README's promise that the audit records every call.

use serde_json::{json, Value};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{demo_engine, serve_in_process, try_call};
use crate::log_files::lines_of;

#[tokio::test]
async fn every_tool_call_leaves_exactly_one_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("audit.jsonl");
    let server = SqlGateServer::new(demo_engine().await, Audit::file(&path).expect("audit"));
    let client = serve_in_process(server).await;
    let calls = [
        ("server_info", json!({}), "allow"),
        ("audit_verify", json!({}), "allow"),
        ("list_tables", json!({}), "allow"),
        ("describe_table", json!({"table": "customers"}), "allow"),
        ("validate_query", json!({"sql": "SELECT 1 AS n"}), "allow"),
        ("run_query", json!({"sql": "SELECT 1 AS n"}), "allow"),
        (
            "run_query",
            json!({"sql": "DELETE FROM customers"}),
            "refuse",
        ),
        ("server_info", json!({}), "allow"),
        ("audit_verify", json!({}), "allow"),
    ];
    let mut before = lines_of(&path).len();
    for (tool, args, decision) in calls {
        try_call(&client, tool, args).await.expect(tool);
        let lines = lines_of(&path);
        assert_eq!(lines.len(), before + 1, "{tool}: one record per call");
        before = lines.len();
        let rec: Value = serde_json::from_str(lines.last().expect("line")).expect("json");
        assert_eq!(rec["tool"], tool, "{rec}");
        assert_eq!(rec["decision"], decision, "{tool}: {rec}");
        assert!(rec["call_id"].is_string(), "{tool}: {rec}");
        assert!(rec["client"].is_string(), "{tool}: {rec}");
        assert!(rec["duration_ms"].is_number(), "{tool}: {rec}");
    }
    let _ = client.cancel().await;
    // The chain stays intact with the new records in it.
    let summary = crate::log_files::intact(&[path.as_path()]);
    assert_eq!(summary.records, 9, "{summary:?}");
}
