//! A state brought back wrong is refused with its own code, and nothing runs: tampered, for
//! other SQL, by another principal, after the approval timeout, or after the data changed.

use serde_json::json;

use crate::client::{code, Client2026};
use crate::{accept, contents, fixture, serve, shop, KEY, UPDATE_7};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn states_brought_back_wrong_are_refused_with_their_own_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (_server, url) = serve(
        dir.path(),
        &db,
        "safe",
        Some(KEY),
        "approval_timeout = \"2s\"\n",
    );
    let acme = Client2026::new(&url, fixture::ACME_TOKEN);
    let globex = Client2026::new(&url, fixture::GLOBEX_TOKEN);
    let before = contents(&db);
    let fresh = || async {
        let asked = acme.run_mutation(UPDATE_7, None, None).await;
        asked["result"]["requestState"]
            .as_str()
            .expect("state")
            .to_string()
    };

    // One character changed in the payload.
    let state = fresh().await;
    let mut bytes = state.clone().into_bytes();
    let i = bytes.len() / 2;
    bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).expect("ascii");
    let r = acme
        .run_mutation(UPDATE_7, Some(&tampered), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "approval_state_invalid", "{r}");
    // Other SQL under the same state.
    let other = "UPDATE orders SET status = 'cancelled' WHERE id = 8";
    let r = acme
        .run_mutation(other, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "approval_state_mismatch", "{r}");
    // Another principal with acme's state.
    let r = globex
        .run_mutation(UPDATE_7, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "approval_state_mismatch", "{r}");
    assert_eq!(contents(&db), before);
    // Past the approval timeout.
    let state = fresh().await;
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let r = acme
        .run_mutation(UPDATE_7, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "approval_state_expired", "{r}");
    assert_eq!(contents(&db), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_between_the_question_and_the_answer_commits_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    // delete_safe: a DELETE is asked for, an INSERT or UPDATE is not.
    let (_server, url) = serve(dir.path(), &db, "delete_safe", Some(KEY), "");
    let acme = Client2026::new(&url, fixture::ACME_TOKEN);
    let delete = "DELETE FROM order_lines WHERE order_id = 7";
    let asked = acme.run_mutation(delete, None, None).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let state = asked["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_string();
    // Meanwhile another line is added to order 7 (no approval needed for it).
    let insert = "INSERT INTO order_lines (order_id, line_no, product_id, quantity, unit_price_cents) VALUES (7, 99, 1, 1, 100)";
    let r = acme.run_mutation(insert, None, None).await;
    assert_eq!(r["result"]["structuredContent"]["affected_rows"], 1, "{r}");
    let before = contents(&db);
    let r = acme
        .run_mutation(delete, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "preview_mismatch", "{r}");
    assert_eq!(
        contents(&db),
        before,
        "the user approved fewer lines than would go"
    );
    // Asked again, the user sees the current count and the delete goes through.
    let asked = acme.run_mutation(delete, None, None).await;
    let message = asked["result"]["inputRequests"]["approval"]["params"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let state = asked["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_string();
    let r = acme
        .run_mutation(
            delete,
            Some(&state),
            Some(json!({"approval": {"action": "accept", "content": {"approve": true}}})),
        )
        .await;
    let n = r["result"]["structuredContent"]["affected_rows"]
        .as_u64()
        .expect("committed");
    assert!(
        message.contains(&format!("{n} rows would change")),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_used_table_makes_an_approval_commit_once_across_instances() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    rusqlite::Connection::open(&db)
        .and_then(|c| {
            c.execute_batch(
                "CREATE TABLE sqlgate_approvals_used (nonce TEXT PRIMARY KEY, used_at TEXT NOT NULL)",
            )
        })
        .expect("the table");
    let shared = "approval_used_table = \"sqlgate_approvals_used\"\n";
    let (_a, url_a) = serve(dir.path(), &db, "safe", Some(KEY), shared);
    let (_b, url_b) = serve(dir.path(), &db, "safe", Some(KEY), shared);
    let (_c, url_c) = serve(dir.path(), &db, "safe", Some(KEY), "");
    let on = |url: &str| Client2026::new(url, fixture::ACME_TOKEN);
    // An INSERT previews the same way again after it committed: only a record stops a replay.
    let insert =
        "INSERT INTO orders (customer_id, ordered_at, status) VALUES (1, '2026-12-05', 'new')";
    let count = || {
        rusqlite::Connection::open(&db)
            .and_then(|c| {
                c.query_row(
                    "SELECT COUNT(*) FROM orders WHERE status = 'new'",
                    [],
                    |r| r.get::<_, i64>(0),
                )
            })
            .expect("count")
    };
    let asked = on(&url_a).run_mutation(insert, None, None).await;
    let state = asked["result"]["requestState"]
        .as_str()
        .expect("state")
        .to_string();
    let r = on(&url_a)
        .run_mutation(insert, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(
        r["result"]["structuredContent"]["status"], "committed",
        "{r}"
    );
    assert_eq!(count(), 1);
    let used: i64 = rusqlite::Connection::open(&db)
        .and_then(|c| {
            c.query_row("SELECT COUNT(*) FROM sqlgate_approvals_used", [], |r| {
                r.get(0)
            })
        })
        .expect("used");
    assert_eq!(used, 1, "the commit recorded its approval");
    // Replayed to B, which shares the table: refused, nothing inserted.
    let r = on(&url_b)
        .run_mutation(insert, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "approval_state_replayed", "{r}");
    assert_eq!(count(), 1);
    // C does not read the table: it commits the replay again (the bound the table removes).
    let r = on(&url_c)
        .run_mutation(insert, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(
        r["result"]["structuredContent"]["status"], "committed",
        "{r}"
    );
    assert_eq!(count(), 2);
}
