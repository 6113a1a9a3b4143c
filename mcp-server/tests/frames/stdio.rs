//! Over stdio: every refused line answered with a JSON-RPC error in its turn, and the
//! connection serving the next request.

use serde_json::{json, Value};

use crate::raw::{assert_error, assert_selected_one, deep_request, run_query, StdioServer};

const SELECT_ONE: &str = "SELECT 1 AS n";

#[tokio::test]
async fn each_bad_line_is_answered_and_the_next_request_served() {
    let mut s = StdioServer::start().await;
    // 100 000 levels deep: refused before parsing, under its id.
    s.send(&deep_request(1, 100_000)).await;
    assert_error(&s.recv().await, -32600, &json!(1));
    s.send(run_query(2, SELECT_ONE).to_string().as_bytes())
        .await;
    assert_selected_one(&s.recv().await, 2);
    // Deeper than serde_json parses (128), shallower than 1 000: the same answer.
    s.send(&deep_request(3, 500)).await;
    assert_error(&s.recv().await, -32600, &json!(3));
    // Malformed: parse errors, with the id when it came before the break.
    s.send(br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","#)
        .await;
    assert_error(&s.recv().await, -32700, &json!(4));
    s.send(b"hello, server").await;
    assert_error(&s.recv().await, -32700, &Value::Null);
    s.send(run_query(5, SELECT_ONE).to_string().as_bytes())
        .await;
    assert_selected_one(&s.recv().await, 5);
    // Well-formed JSON that is no request this server takes.
    s.send(br#"{"jsonrpc":"2.0","id":"six","method":"tools/call","params":"x"}"#)
        .await;
    assert_error(&s.recv().await, -32600, &json!("six"));
    s.send(b"[1,2,3]").await;
    assert_error(&s.recv().await, -32600, &Value::Null);
    s.send(run_query(7, SELECT_ONE).to_string().as_bytes())
        .await;
    assert_selected_one(&s.recv().await, 7);
    // Empty lines are no messages and get no answer.
    s.send(b"").await;
    s.send(run_query(8, SELECT_ONE).to_string().as_bytes())
        .await;
    assert_selected_one(&s.recv().await, 8);
}

#[tokio::test]
async fn a_64_mib_line_is_answered_without_being_held() {
    let mut s = StdioServer::start().await;
    s.send(run_query(1, SELECT_ONE).to_string().as_bytes())
        .await;
    assert_selected_one(&s.recv().await, 1);
    let before = s.peak_rss_kib();
    // Streamed in 1 MiB pieces; the id comes last, after 64 MiB of SQL.
    s.write(br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT '"#)
        .await;
    let piece = vec![b'x'; 1 << 20];
    for _ in 0..64 {
        s.write(&piece).await;
    }
    s.send(br#"'"}},"id":2}"#).await;
    assert_error(&s.recv().await, -32600, &json!(2));
    let grown_kib = s.peak_rss_kib().saturating_sub(before);
    // The 8 MiB bound is held (pages touched as the line fills it), nothing more than a few MiB
    // beside it; measured 6 to 9 MiB.
    assert!(
        grown_kib < 24 * 1024,
        "peak RSS grew by {grown_kib} KiB reading a 64 MiB line"
    );
    s.send(run_query(3, SELECT_ONE).to_string().as_bytes())
        .await;
    assert_selected_one(&s.recv().await, 3);
    eprintln!("peak RSS growth over a 64 MiB line: {grown_kib} KiB");
}

#[tokio::test]
async fn the_line_cap_is_the_operators() {
    // 4 KiB: a query of 5 000 bytes is over it, one of 3 000 is not.
    let mut s = StdioServer::start_with(&["--max-line-bytes", "4096"]).await;
    let long = format!("SELECT '{}' AS v", "x".repeat(5_000));
    s.send(run_query(1, &long).to_string().as_bytes()).await;
    let r = s.recv().await;
    assert_error(&r, -32600, &json!(1));
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("4096")),
        "{r}"
    );
    let short = format!("SELECT length('{}') AS n", "x".repeat(3_000));
    s.send(run_query(2, &short).to_string().as_bytes()).await;
    let r = s.recv().await;
    assert_eq!(r["id"], 2, "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["rows"][0]["n"], 3000,
        "{r}"
    );
}
