//! Over HTTP: a body over the cap, nested too deep, malformed or no JSON-RPC request gets a
//! JSON-RPC error body (413 or 400), and the server serves the next request.

use serde_json::{json, Value};

use crate::raw::{assert_error, assert_selected_one, deep_request, run_query, HttpServer};

const SELECT_ONE: &str = "SELECT 1 AS n";

#[tokio::test]
async fn each_bad_body_is_answered_and_the_next_request_served() {
    let server = HttpServer::start(1 << 20);
    let valid = |id: u64| run_query(id, SELECT_ONE).to_string().into_bytes();
    let (status, r) = server.post(valid(1)).await;
    assert_eq!(status, 200, "{r}");
    assert_selected_one(&r, 1);
    // Declared over the cap: refused before the body is read.
    let (status, r) = server.post(vec![b' '; (1 << 20) + 1]).await;
    assert_eq!(status, 413);
    assert_error(&r, -32600, &Value::Null);
    // Chunked over the cap, its id first: refused once the cap is passed, under its id.
    let head = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_query","arguments":{"sql":"SELECT '"#;
    let pad = vec![b'x'; 64 * 1024];
    let mut parts: Vec<&[u8]> = vec![head];
    parts.extend(std::iter::repeat_n(pad.as_slice(), 32));
    let (status, r) = server.post_chunked(&parts).await;
    assert_eq!(status, 413, "{r}");
    assert_error(&r, -32600, &json!(2));
    let (status, r) = server.post(valid(3)).await;
    assert_eq!(status, 200, "{r}");
    assert_selected_one(&r, 3);
    // 100 000 levels deep, and chunked at that.
    let (status, r) = server.post(deep_request(4, 100_000)).await;
    assert_eq!(status, 400);
    assert_error(&r, -32600, &json!(4));
    let deep = deep_request(5, 100_000);
    let (status, r) = server.post_chunked(&[&deep[..100], &deep[100..]]).await;
    assert_eq!(status, 400);
    assert_error(&r, -32600, &json!(5));
    // Malformed, and well-formed but no request.
    let (status, r) = server.post(br#"{"jsonrpc":"2.0","id":6,"#.to_vec()).await;
    assert_eq!(status, 400);
    assert_error(&r, -32700, &json!(6));
    let (status, r) = server
        .post(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":7}"#.to_vec())
        .await;
    assert_eq!(status, 400);
    assert_error(&r, -32600, &json!(7));
    let (status, r) = server.post(Vec::new()).await;
    assert_eq!(status, 400);
    assert_error(&r, -32700, &Value::Null);
    let (status, r) = server.post(valid(8)).await;
    assert_eq!(status, 200, "{r}");
    assert_selected_one(&r, 8);
}
