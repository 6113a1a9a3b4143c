//! Seeded fuzz: frames of random size (up to over the cap), random nesting depth, random garbage
//! and cut requests, over stdio (all on one connection, written while the answers are read) and
//! over HTTP (one POST each). Every request with an id is answered exactly once under that id,
//! every other refused frame once under `null`, and the server still serves at the end.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::raw::{assert_selected_one, run_query, HttpServer, Rng, StdioServer};

/// What a frame should get back.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// One answer under this id (a result or an error).
    Id(u64),
    /// Over the cap: one error under this id where the whole message is scanned (stdio); over
    /// HTTP, under `null` when the id comes after what is read (or the length was declared).
    OverCap(u64),
    /// One error under `null`.
    Null,
    /// Nothing (a notification, an empty line).
    Nothing,
}

/// A frame (without newline) and what it should get back.
fn frame(rng: &mut Rng, id: u64, cap: usize) -> (Vec<u8>, Expect) {
    match rng.below(8) {
        // A valid call.
        0 => (
            run_query(id, &format!("SELECT {} AS n", rng.below(1000))).to_string().into_bytes(),
            Expect::Id(id),
        ),
        // Nested 1 to 3 000 deep (127 and less parse: the tool refuses an array for `sql`).
        1 => {
            let depth = usize::try_from(1 + rng.below(3000)).unwrap_or(1);
            let mut f = envelope(id).into_bytes();
            f.extend(std::iter::repeat_n(b'[', depth));
            f.extend(std::iter::repeat_n(b']', depth));
            f.extend_from_slice(b"}}}");
            (f, Expect::Id(id))
        }
        // Large: a little under to a little over the cap, the id first or last.
        2 => large(rng, id, cap),
        // A valid call cut short after its id.
        3 => {
            let full = format!(r#"{}"SELECT 1 AS n"}}}}}}"#, envelope(id));
            let min = format!(r#"{{"id":{id},"#).len();
            let cut = min + usize::try_from(rng.below((full.len() - min - 1) as u64)).unwrap_or(0);
            (full.as_bytes()[..cut].to_vec(), Expect::Id(id))
        }
        // Garbage: random bytes other than newline, after a byte no JSON starts with.
        4 => {
            let n = rng.below(4096);
            let mut f = vec![b'#'];
            f.extend((0..n).map(|_| match u8::try_from(rng.below(256)).unwrap_or(0) {
                b'\n' => b'{',
                b => b,
            }));
            (f, Expect::Null)
        }
        // JSON that is no request, with and without an id.
        5 => match rng.below(3) {
            0 => (json!({"id": id, "method": 5}).to_string().into_bytes(), Expect::Id(id)),
            1 => (json!([1, {"id": id}]).to_string().into_bytes(), Expect::Null),
            _ => (b"\"just a string\"".to_vec(), Expect::Null),
        },
        // A notification: no answer is due.
        6 => (
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#.to_vec(),
            Expect::Nothing,
        ),
        // A ping.
        _ => (
            json!({"jsonrpc":"2.0","id":id,"method":"ping"}).to_string().into_bytes(),
            Expect::Id(id),
        ),
    }
}

/// The `tools/call` envelope of `id` up to its `sql` argument's value.
fn envelope(id: u64) -> String {
    format!(
        r#"{{"id":{id},"jsonrpc":"2.0","method":"tools/call","params":{{"name":"run_query","arguments":{{"sql":"#
    )
}

/// A call a little under to a little over `cap` bytes, its id first or last.
fn large(rng: &mut Rng, id: u64, cap: usize) -> (Vec<u8>, Expect) {
    let size = cap - cap / 8 + usize::try_from(rng.below(cap as u64 / 4)).unwrap_or(0);
    let (head, tail) = if rng.below(2) == 0 {
        (envelope(id), r#""}}}"#.to_string())
    } else {
        (
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run_query","arguments":{"sql":"#.to_string(),
            format!(r#""}}}},"id":{id}}}"#),
        )
    };
    let mut f = head.into_bytes();
    f.push(b'"');
    f.extend(std::iter::repeat_n(
        b'x',
        size.saturating_sub(f.len() + tail.len()),
    ));
    f.extend_from_slice(tail.as_bytes());
    let e = if f.len() > cap {
        Expect::OverCap(id)
    } else {
        Expect::Id(id)
    };
    (f, e)
}

/// The frames of one run: `n` cases from `seed`, frames over `cap` kept to `large` of them.
fn cases(seed: u64, n: u64, cap: usize, large: usize) -> Vec<(Vec<u8>, Expect)> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut big = 0;
    for id in 1..=n {
        let (f, e) = frame(&mut rng, id, cap);
        if f.len() > cap / 2 {
            big += 1;
            if big > large {
                continue;
            }
        }
        out.push((f, e));
    }
    out
}

#[tokio::test]
async fn stdio_answers_every_request_exactly_once() {
    let cap = sqlgate_mcp::transport::frame::DEFAULT_MAX_FRAME_BYTES;
    let cases = cases(0x5eed_0029, 400, cap, 6);
    let mut s = StdioServer::start().await;
    let mut want: BTreeMap<String, usize> = BTreeMap::new();
    for (_, e) in &cases {
        match e {
            Expect::Id(id) | Expect::OverCap(id) => *want.entry(id.to_string()).or_default() += 1,
            Expect::Null => *want.entry("null".into()).or_default() += 1,
            Expect::Nothing => {}
        }
    }
    let total: usize = want.values().sum();
    // Written from another task while the answers are read, as a client would.
    let frames: Vec<Vec<u8>> = cases.into_iter().map(|(f, _)| f).collect();
    let mut stdin = s.take_stdin();
    let writer = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        for f in frames {
            stdin.write_all(&f).await.expect("write");
            stdin.write_all(b"\n").await.expect("write");
        }
        stdin.flush().await.expect("flush");
        stdin
    });
    let mut got: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..total {
        let r = s.recv().await;
        *got.entry(r["id"].to_string()).or_default() += 1;
    }
    s.give_stdin(writer.await.expect("writer"));
    assert_eq!(got, want, "answers per id");
    s.send(run_query(9999, "SELECT 1 AS n").to_string().as_bytes())
        .await;
    assert_selected_one(&s.recv().await, 9999);
}

#[tokio::test]
async fn http_answers_every_request_exactly_once() {
    let cap = 64 * 1024;
    let server = HttpServer::start(cap);
    let cases = cases(0x5eed_0029_4854, 300, cap, 300);
    for (i, (f, e)) in cases.into_iter().enumerate() {
        let chunked = i % 3 == 0;
        let (status, r) = if chunked {
            server
                .post_chunked(&f.chunks(4096).collect::<Vec<_>>())
                .await
        } else {
            server.post(f.clone()).await
        };
        let shown = String::from_utf8_lossy(&f[..f.len().min(200)]).to_string();
        match e {
            Expect::Id(id) => assert_eq!(r["id"], id, "case {i} ({status}): {shown} -> {r}"),
            Expect::OverCap(id) => {
                assert_eq!(status, 413, "case {i}: {shown} -> {r}");
                assert!(r["id"] == id || r["id"].is_null(), "case {i}: {r}");
                assert_eq!(r["error"]["code"], -32600, "case {i}: {r}");
            }
            Expect::Null => {
                assert_eq!(r.get("id"), Some(&Value::Null), "case {i}: {shown} -> {r}");
                assert!(status == 400 || status == 413, "case {i}: {status}");
            }
            Expect::Nothing => assert_eq!(status, 202, "case {i}: {shown} -> {r}"),
        }
    }
    let (status, r) = server
        .post(run_query(9999, "SELECT 1 AS n").to_string().into_bytes())
        .await;
    assert_eq!(status, 200);
    assert_selected_one(&r, 9999);
}
