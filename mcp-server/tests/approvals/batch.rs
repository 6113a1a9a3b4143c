//! `run_mutations` over 2026-07-28 on the real binary: one `input_required` for the whole
//! batch, its state bound to the exact list of statements; accepted, every statement commits in
//! one transaction, once; declined, nothing. And `run_mutation`'s digest of the rows it touches:
//! a swap of the matching rows between the question and the answer commits nothing.

use serde_json::Value;

use crate::client::{code, Client2026};
use crate::{accept, contents, fixture, serve, shop, status_of_7, KEY, UPDATE_7};

const DELETE_LINES_8: &str = "DELETE FROM order_lines WHERE order_id = 8";

fn state_of(asked: &Value) -> String {
    asked["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {asked}"))
        .to_string()
}

fn lines_of_8(db: &std::path::Path) -> i64 {
    let c = rusqlite::Connection::open(db).expect("open");
    c.query_row(
        "SELECT COUNT(*) FROM order_lines WHERE order_id = 8",
        [],
        |r| r.get(0),
    )
    .expect("count")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_asked_once_and_commits_whole_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (_server, url) = serve(dir.path(), &db, "safe", Some(KEY), "");
    let acme = Client2026::new(&url, fixture::ACME_TOKEN);
    let before = contents(&db);
    let lines = lines_of_8(&db);
    assert!(lines > 0);
    let batch = [UPDATE_7, DELETE_LINES_8];

    let asked = acme.run_mutations(&batch, None, None).await;
    assert_eq!(asked["result"]["resultType"], "input_required", "{asked}");
    let message = asked["result"]["inputRequests"]["approval"]["params"]["message"]
        .as_str()
        .unwrap_or_default();
    for part in [
        "2 statements in one transaction",
        "1. mutation_create on `orders`: 1 row would change",
        &format!("2. mutation_delete on `order_lines`: {lines} rows would change"),
        UPDATE_7,
        DELETE_LINES_8,
    ] {
        assert!(message.contains(part), "{part} missing from {message}");
    }
    let state = state_of(&asked);
    assert_eq!(contents(&db), before, "asking changed nothing");

    // Tampered, for another list (a statement dropped, the order changed), for run_mutation.
    let mut bytes = state.clone().into_bytes();
    let i = bytes.len() / 2;
    bytes[i] = if bytes[i] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).expect("ascii");
    let r = acme
        .run_mutations(&batch, Some(&tampered), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "approval_state_invalid", "{r}");
    assert_eq!(r["result"]["structuredContent"]["status"], "failed", "{r}");
    for other in [&batch[..1], &[DELETE_LINES_8, UPDATE_7][..]] {
        let r = acme
            .run_mutations(other, Some(&state), Some(accept(true)))
            .await;
        assert_eq!(code(&r), "approval_state_mismatch", "{r}");
    }
    let r = acme
        .run_mutation(UPDATE_7, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "approval_state_mismatch", "{r}");
    assert_eq!(contents(&db), before);

    // Accepted: both statements, each with its count; then the same state is used up.
    let r = acme
        .run_mutations(&batch, Some(&state), Some(accept(true)))
        .await;
    let out = &r["result"]["structuredContent"];
    assert_eq!(out["status"], "committed", "{r}");
    assert_eq!(out["statement_count"], 2);
    assert_eq!(out["statements"][0]["affected_rows"], 1);
    assert_eq!(out["statements"][1]["affected_rows"], lines);
    assert_eq!(out["decision"], "needs_approval_accepted");
    assert_eq!(status_of_7(&db), "cancelled");
    assert_eq!(lines_of_8(&db), 0);
    let r = acme
        .run_mutations(&batch, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "approval_state_replayed", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_batch_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (_server, url) = serve(dir.path(), &db, "safe", Some(KEY), "");
    let acme = Client2026::new(&url, fixture::ACME_TOKEN);
    let before = contents(&db);
    let batch = [UPDATE_7, DELETE_LINES_8];
    let state = state_of(&acme.run_mutations(&batch, None, None).await);
    let r = acme
        .run_mutations(&batch, Some(&state), Some(accept(false)))
        .await;
    assert_eq!(code(&r), "approval_declined", "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["status"], "rejected",
        "{r}"
    );
    assert_eq!(contents(&db), before);
    // A statement the guard refuses refuses the whole batch, naming it; nothing runs.
    let r = acme
        .run_mutations(&[UPDATE_7, "DROP TABLE orders"], None, None)
        .await;
    let message = r["result"]["structuredContent"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.starts_with("statement 2 of 2"), "{r}");
    assert_eq!(contents(&db), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swap_between_the_question_and_the_answer_commits_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = shop(dir.path());
    let (_server, url) = serve(dir.path(), &db, "safe", Some(KEY), "");
    let acme = Client2026::new(&url, fixture::ACME_TOKEN);
    let direct = rusqlite::Connection::open(&db).expect("open");
    direct
        .execute_batch("UPDATE orders SET status = 'flagged' WHERE id = 7")
        .expect("flag 7");
    let sql = "UPDATE orders SET status = 'cancelled' WHERE status = 'flagged'";
    let state = state_of(&acme.run_mutation(sql, None, None).await);
    // Another connection moves the flag to order 8: still one row, another row.
    direct
        .execute_batch(
            "UPDATE orders SET status = 'pending' WHERE id = 7; \
             UPDATE orders SET status = 'flagged' WHERE id = 8",
        )
        .expect("swap");
    let before = contents(&db);
    let r = acme
        .run_mutation(sql, Some(&state), Some(accept(true)))
        .await;
    assert_eq!(code(&r), "preview_mismatch", "{r}");
    assert_eq!(contents(&db), before, "order 8 was not the one approved");
}
