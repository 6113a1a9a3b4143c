//! External approvers: the real binary with `approval = { webhook = ... }` pointing at a small
//! HTTP approver inside the test. A mutation is previewed and answered `pending` (nothing
//! changes) with a stable `approval_request_id`; `approval_status` stays pending until the
//! approver decides, then commits once (approved) or answers `rejected`; an approver that never
//! decides leaves it pending, then expired; one that cannot be reached is `approver_unavailable`.

use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::client::{code, Client2026};
use crate::{contents, fixture, serve, shop, status_of_7, KEY, UPDATE_7};

/// The approver: the decision it gives every request, and every request it was sent.
#[derive(Default)]
struct Approver {
    decision: String,
    seen: Vec<Value>,
}

type Shared = Arc<Mutex<Approver>>;

async fn decide(State(approver): State<Shared>, Json(request): Json<Value>) -> Json<Value> {
    let mut a = approver.lock().expect("lock");
    a.seen.push(request);
    Json(json!({"decision": a.decision, "reference": "T-1", "reason": "test"}))
}

/// Starts the approver on a loopback port; returns it and its URL.
async fn approver(decision: &str) -> (Shared, String) {
    let shared: Shared = Arc::new(Mutex::new(Approver {
        decision: decision.into(),
        seen: Vec::new(),
    }));
    let app = Router::new()
        .route("/hook", post(decide))
        .with_state(shared.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    (shared, format!("http://{addr}/hook"))
}

fn set(approver: &Shared, decision: &str) {
    approver.lock().expect("lock").decision = decision.into();
}

fn config(url: &str, extra: &str) -> String {
    format!("approval = {{ webhook = \"{url}\" }}\n{extra}")
}

async fn status(client: &Client2026, id: &str) -> Value {
    let args = json!({ "approval_request_id": id });
    client.call("approval_status", args, None, None).await
}

fn out(r: &Value) -> &Value {
    &r["result"]["structuredContent"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_until_the_approver_approves_then_committed_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (hook, url) = approver("pending").await;
    let (_server, mcp) = serve(dir.path(), &db, "safe", Some(KEY), &config(&url, ""));
    let acme = Client2026::new(&mcp, fixture::ACME_TOKEN);
    let globex = Client2026::new(&mcp, fixture::GLOBEX_TOKEN);
    let before = contents(&db);

    let r = acme.run_mutation(UPDATE_7, None, None).await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(out(&r)["status"], "pending", "{r}");
    assert_eq!(out(&r)["approver_reference"], "T-1");
    let id = out(&r)["approval_request_id"]
        .as_str()
        .expect("id")
        .to_string();
    assert_eq!(contents(&db), before, "nothing changes while pending");
    {
        let a = hook.lock().expect("lock");
        let [sent] = &a.seen[..] else {
            panic!("one request: {:?}", a.seen)
        };
        assert_eq!(sent["approval_request_id"], id.as_str());
        assert_eq!(
            (&sent["tool"], &sent["principal"], &sent["mode"]),
            (&json!("run_mutation"), &json!("acme"), &json!("safe"))
        );
        assert_eq!(sent["query_class"], "mutation_create");
        assert_eq!(sent["target"], "orders");
        assert_eq!(sent["sql"], UPDATE_7);
        assert_eq!(sent["preview_rows"], 1);
        assert_eq!(sent["preview_digest"].as_str().map(str::len), Some(64));
    }

    // Still pending: the same id is posted again.
    let r = status(&acme, &id).await;
    assert_eq!(out(&r)["status"], "pending", "{r}");
    assert_eq!(
        hook.lock().expect("lock").seen[1]["approval_request_id"],
        id.as_str()
    );
    // Another principal cannot follow (or commit) acme's request.
    set(&hook, "approved");
    let r = status(&globex, &id).await;
    assert_eq!(code(&r), "approval_state_mismatch", "{r}");
    assert_eq!(contents(&db), before);

    let r = status(&acme, &id).await;
    assert_eq!(out(&r)["status"], "committed", "{r}");
    assert_eq!(out(&r)["affected_rows"], 1);
    assert_eq!(out(&r)["decision"], "needs_approval_accepted");
    assert_eq!(out(&r)["approval_request_id"], id.as_str());
    assert!(out(&r)["approval_wait_ms"].as_f64().is_some(), "{r}");
    assert_eq!(status_of_7(&db), "cancelled");
    let after = contents(&db);
    let r = status(&acme, &id).await;
    assert_eq!(code(&r), "approval_state_replayed", "{r}");
    assert_eq!(contents(&db), after, "committed once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejected_changed_and_expired_requests_change_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (hook, url) = approver("pending").await;
    let extra = config(&url, "approval_timeout = \"3s\"");
    let (_server, mcp) = serve(dir.path(), &db, "safe", Some(KEY), &extra);
    let acme = Client2026::new(&mcp, fixture::ACME_TOKEN);
    let batch = json!({"statements": [UPDATE_7, "DELETE FROM order_lines WHERE order_id = 8"]});
    let before = contents(&db);

    // A batch, rejected later: not an error, nothing changed.
    let r = acme.call("run_mutations", batch.clone(), None, None).await;
    assert_eq!(out(&r)["status"], "pending", "{r}");
    assert_eq!(out(&r)["statement_count"], 2);
    let id = out(&r)["approval_request_id"]
        .as_str()
        .expect("id")
        .to_string();
    set(&hook, "rejected");
    let r = status(&acme, &id).await;
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(
        (&out(&r)["status"], &out(&r)["reason"]),
        (&json!("rejected"), &json!("test"))
    );
    // Rejected at once, on the first call.
    let r = acme.call("run_mutations", batch, None, None).await;
    assert_eq!(out(&r)["status"], "rejected", "{r}");
    assert_eq!(contents(&db), before);

    // Approved, but the data changed since the preview the approver saw.
    set(&hook, "pending");
    let r = acme.run_mutation(UPDATE_7, None, None).await;
    let id = out(&r)["approval_request_id"]
        .as_str()
        .expect("id")
        .to_string();
    let direct = rusqlite::Connection::open(&db).expect("open");
    direct
        .execute_batch("UPDATE orders SET status = 'shipped' WHERE id = 7")
        .expect("change");
    let changed = contents(&db);
    set(&hook, "approved");
    let r = status(&acme, &id).await;
    assert_eq!(code(&r), "preview_mismatch", "{r}");
    assert_eq!(contents(&db), changed);

    // Never decided: pending, then expired at the approval timeout.
    set(&hook, "pending");
    let r = acme.run_mutation(UPDATE_7, None, None).await;
    let id = out(&r)["approval_request_id"]
        .as_str()
        .expect("id")
        .to_string();
    tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
    set(&hook, "approved");
    let r = status(&acme, &id).await;
    assert_eq!(code(&r), "approval_state_expired", "{r}");
    assert_eq!(contents(&db), changed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_approver_is_approver_unavailable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("port")
        .port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let (_server, mcp) = serve(dir.path(), &db, "safe", Some(KEY), &config(&url, ""));
    let acme = Client2026::new(&mcp, fixture::ACME_TOKEN);
    let before = contents(&db);
    let r = acme.run_mutation(UPDATE_7, None, None).await;
    assert_eq!(code(&r), "approver_unavailable", "{r}");
    assert_eq!(out(&r)["retryable"], true);
    assert_eq!(out(&r)["status"], "failed");
    assert_eq!(contents(&db), before);
}
