//! Quotas per principal, over HTTP: a principal's calls per minute, rows per hour and mutations
//! per day; a call over one is refused as `quota_exceeded`, retryable, with the wait.

use serde_json::{json, Value};

use crate::common::{call, structured};
use crate::fixture::{http_client, start_http, write_config, ACME_TOKEN, GLOBEX_TOKEN};

const QUOTAS: &str = r#"
demo = true
mode = "full_access"

[[principals]]
name = "acme"
token_env = "SQLGATE_TEST_ACME"
quota = { calls_per_minute = 3 }

[[principals]]
name = "globex"
token_env = "SQLGATE_TEST_GLOBEX"
quota = { rows_per_hour = 15, mutations_per_day = 1 }
"#;

/// The refusal of `r`: its code is `quota_exceeded`, it is retryable, and the wait is at most
/// `window_ms`. Returns the message.
fn over_quota(r: &rmcp::model::CallToolResult, window_ms: u64) -> String {
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let e: Value = structured(r);
    assert_eq!(e["code"], "quota_exceeded", "{e}");
    assert_eq!(e["retryable"], true, "{e}");
    let wait = e["retry_after_ms"].as_u64().unwrap_or_default();
    assert!(wait > 0 && wait <= window_ms, "{e}");
    e["message"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn each_principal_is_held_to_its_quota() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut child, url) = start_http(&write_config(dir.path(), QUOTAS), &[], &[]);

    let acme = http_client(&url, ACME_TOKEN).await;
    for _ in 0..3 {
        let r = call(&acme, "validate_query", json!({"sql": "SELECT 1"})).await;
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    let r = call(&acme, "validate_query", json!({"sql": "SELECT 1"})).await;
    assert!(over_quota(&r, 60_000).contains("calls_per_minute = 3"));

    // Rows: a read runs while fewer than 15 rows were returned this hour.
    let globex = http_client(&url, GLOBEX_TOKEN).await;
    let ten = json!({"sql": "SELECT id FROM orders ORDER BY id LIMIT 10"});
    for _ in 0..2 {
        let r = call(&globex, "run_query", ten.clone()).await;
        assert_eq!(structured(&r)["row_count"], 10, "{r:?}");
    }
    let r = call(&globex, "run_query", ten).await;
    assert!(over_quota(&r, 3_600_000).contains("rows_per_hour = 15"));
    // Other principals' quotas are their own; another tool still works for this one.
    let r = call(&acme, "run_query", json!({"sql": "SELECT 1 AS x"})).await;
    assert_eq!(r.is_error, Some(true), "acme is still over its calls");
    let update = json!({"sql": "UPDATE orders SET status = 'cancelled' WHERE id = 7"});
    let r = call(&globex, "run_mutation", update.clone()).await;
    assert_eq!(structured(&r)["affected_rows"], 1, "{r:?}");
    let r = call(&globex, "run_mutation", update).await;
    assert!(over_quota(&r, 86_400_000).contains("mutations_per_day = 1"));

    let _ = acme.cancel().await;
    let _ = globex.cancel().await;
    let _ = child.kill();
    let _ = child.wait();
}
