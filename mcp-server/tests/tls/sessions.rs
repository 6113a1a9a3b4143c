//! A session opened with one client certificate is unknown to another certificate of the same
//! principal: the identity a session belongs to is the certificate's subject and issuer, not
//! the principal its rule selects.

use serde_json::{json, Value};

use crate::{audit_records, config, https, post_initialize, serve, server_pki};

/// One principal for every certificate whose common name is `agent-a`, whatever its
/// organization.
const ONE_RULE: &str = r#"
[[principals]]
name = "agents"
client_cert = { cn = "agent-a" }
"#;

/// POSTs `body` on `session` with `http`: the status and the body.
async fn post(http: &reqwest::Client, url: &str, session: &str, body: &Value) -> (u16, String) {
    let r = http
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", session)
        .body(body.to_string())
        .send()
        .await
        .expect("an HTTP answer");
    (r.status().as_u16(), r.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_certificate_of_the_same_principal_cannot_use_a_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ca = server_pki(dir.path());
    let (_server, url) = serve(dir.path(), &config(dir.path(), "", ONE_RULE));
    let mine = https(&ca.pem, Some(&ca.client("agent-a", "Acme", None)));
    let theirs = https(&ca.pem, Some(&ca.client("agent-a", "Acme Labs", None)));

    let opened = post_initialize(&mine, &url).await;
    assert_eq!(opened.status(), 200);
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_string();
    drop(opened);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&mine, &url, &session, &initialized).await.0, 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "run_query", "arguments": {"sql": "SELECT 1 AS one"}}});
    let foreign = post(&theirs, &url, &session, &call).await;
    let unknown = post(&theirs, &url, "no-such-session", &call).await;
    assert_eq!(foreign, (404, "Not Found: Session not found".to_string()));
    assert_eq!(foreign, unknown);
    let (status, text) = post(&mine, &url, &session, &call).await;
    assert_eq!(status, 200, "{text}");

    let records = audit_records(dir.path());
    let refused: Vec<&Value> = records
        .iter()
        .filter(|r| r["tool"] == "mcp_session")
        .collect();
    assert_eq!(refused.len(), 2, "{records:?}");
    assert_eq!(refused[0]["code"], "session_not_owned");
    assert_eq!(refused[0]["session_id"], session.as_str());
    assert_eq!(refused[0]["auth"], "mtls");
    assert_eq!(refused[0]["auth_subject"], "CN=agent-a,O=Acme Labs");
    assert_eq!(refused[1]["code"], "session_not_found");
    let calls: Vec<&Value> = records
        .iter()
        .filter(|r| r["tool"] == "run_query")
        .collect();
    assert_eq!(calls.len(), 1, "only the owner's call ran");
    assert_eq!(calls[0]["auth_subject"], "CN=agent-a,O=Acme");
}
