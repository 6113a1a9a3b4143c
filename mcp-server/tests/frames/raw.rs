//! The binary spoken to in raw JSON lines (over stdio) or bodies (over HTTP), so that the tests
//! can send what no MCP client would, and a small seeded PRNG for the fuzz.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The binary under test: `SQLGATE_MCP_BIN` (as the Python suite names it), else cargo's.
pub fn bin() -> String {
    std::env::var("SQLGATE_MCP_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_sqlgate-mcp").into())
}

/// How long any answer may take.
pub const ANSWER_WITHIN: Duration = Duration::from_secs(60);

/// `serve --demo` over stdio, its stdout read line by line.
pub struct StdioServer {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
}

impl StdioServer {
    /// Starts the server and completes `initialize`.
    pub async fn start() -> Self {
        Self::start_with(&[]).await
    }

    /// Starts the server with `flags` added to `serve --demo` and completes `initialize`.
    pub async fn start_with(flags: &[&str]) -> Self {
        let mut child = Command::new(bin())
            .args(["serve", "--demo"])
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let mut s = StdioServer {
            child,
            stdin: Some(stdin),
            lines,
        };
        s.send(initialize(0).to_string().as_bytes()).await;
        let r = s.recv().await;
        assert_eq!(r["id"], 0, "{r}");
        assert!(r["result"]["serverInfo"].is_object(), "{r}");
        s.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        s
    }

    fn stdin(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("stdin is here")
    }

    /// The server's stdin, for a writer of its own; [`Self::give_stdin`] returns it.
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.stdin.take().expect("stdin is here")
    }

    /// Returns the stdin [`Self::take_stdin`] took.
    pub fn give_stdin(&mut self, stdin: ChildStdin) {
        self.stdin = Some(stdin);
    }

    /// Writes `line` and its newline.
    pub async fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin();
        stdin.write_all(line).await.expect("write");
        stdin.write_all(b"\n").await.expect("write");
        stdin.flush().await.expect("flush");
    }

    /// Writes raw bytes (no newline added).
    pub async fn write(&mut self, bytes: &[u8]) {
        self.stdin().write_all(bytes).await.expect("write");
    }

    /// The next line the server writes, as JSON; a test failure after [`ANSWER_WITHIN`].
    pub async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(ANSWER_WITHIN, self.lines.next_line())
            .await
            .expect("an answer in time")
            .expect("read")
            .expect("the server is alive");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The server's peak resident memory (`VmHWM`) in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let pid = self.child.id().expect("running");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM")
    }
}

/// An `initialize` request with `id`.
pub fn initialize(id: u64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"initialize","params":{
        "protocolVersion":"2025-06-18","capabilities":{},
        "clientInfo":{"name":"frames-test","version":"0"}}})
}

/// A `run_query` call of `sql` with `id`.
pub fn run_query(id: u64, sql: &str) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
        "params":{"name":"run_query","arguments":{"sql":sql}}})
}

/// A `tools/call` whose argument nests `depth` arrays (the request id first).
pub fn deep_request(id: u64, depth: usize) -> Vec<u8> {
    let mut line = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"run_query","arguments":{{"sql":"#
    )
    .into_bytes();
    line.extend(std::iter::repeat_n(b'[', depth));
    line.extend(std::iter::repeat_n(b']', depth));
    line.extend_from_slice(b"}}}");
    line
}

/// Asserts that `r` answers `id` with a result (not an error) of `SELECT 1 AS n`.
pub fn assert_selected_one(r: &Value, id: u64) {
    assert_eq!(r["id"], id, "{r}");
    assert_eq!(r["result"]["structuredContent"]["rows"][0]["n"], 1, "{r}");
}

/// Asserts that `r` is a JSON-RPC error with `code` answering `id` (`Value::Null`: none read).
pub fn assert_error(r: &Value, code: i64, id: &Value) {
    assert_eq!(r["jsonrpc"], "2.0", "{r}");
    assert_eq!(r["error"]["code"], code, "{r}");
    assert!(r["error"]["message"].is_string(), "{r}");
    assert_eq!(r.get("id"), Some(id), "{r}");
}

/// xorshift64*: a small PRNG, seeded, so the fuzz is the same on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// `serve --demo --http` on a free loopback port, without sessions, bodies capped at
/// `max_body_bytes`.
pub struct HttpServer {
    pub child: std::process::Child,
    pub url: String,
    pub addr: String,
    client: reqwest::Client,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl HttpServer {
    pub fn start(max_body_bytes: usize) -> Self {
        use std::io::{BufRead, BufReader};
        let mut child = std::process::Command::new(bin())
            .args([
                "serve",
                "--demo",
                "--http",
                "127.0.0.1:0",
                "--allow-unauthenticated",
            ])
            .args([
                "--stateless",
                "--max-body-bytes",
                &max_body_bytes.to_string(),
            ])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let url = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|l| {
                l.split("listening on ")
                    .nth(1)
                    .map(|u| u.trim().to_string())
            })
            .expect("the server reported its address");
        // Keep draining stderr so that the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        let addr = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string();
        HttpServer {
            child,
            url,
            addr,
            // A fresh connection per request: after a 413 the server closes its connection, and
            // a pooled one could be reused before the client sees that.
            client: reqwest::Client::builder()
                .pool_max_idle_per_host(0)
                .build()
                .expect("client"),
        }
    }

    /// POSTs `body`; the status and the JSON-RPC message answering it (JSON or the first SSE
    /// event; `Null` for an empty body).
    pub async fn post(&self, body: Vec<u8>) -> (u16, Value) {
        let r = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .timeout(ANSWER_WITHIN)
            .body(body)
            .send()
            .await
            .expect("an answer");
        let status = r.status().as_u16();
        let text = r.text().await.expect("body");
        (status, message_in(&text))
    }

    /// POSTs `parts` as a chunked body (no `Content-Length`) over a raw connection, read while
    /// it is written (the server may answer before the end); the status and the message.
    pub async fn post_chunked(&self, parts: &[&[u8]]) -> (u16, Value) {
        use tokio::io::AsyncReadExt;
        let tcp = tokio::net::TcpStream::connect(&self.addr)
            .await
            .expect("connect");
        let (mut read, mut write) = tcp.into_split();
        let mut out = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\
             Connection: close\r\n\r\n",
            self.addr
        )
        .into_bytes();
        for part in parts {
            out.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
            out.extend_from_slice(part);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        // Writing stops quietly once the server has answered and closed.
        let writer = tokio::spawn(async move {
            let _ = write.write_all(&out).await;
            write
        });
        let mut answer = Vec::new();
        let _ = tokio::time::timeout(ANSWER_WITHIN, read.read_to_end(&mut answer)).await;
        writer.abort();
        let text = String::from_utf8_lossy(&answer);
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
        (status, message_in(body))
    }
}

/// The JSON-RPC message in an HTTP body: the body itself, or the first SSE `data:` holding one.
fn message_in(text: &str) -> Value {
    if let Ok(v) = serde_json::from_str(text) {
        return v;
    }
    // SSE events, or a chunked body's chunks.
    text.lines()
        .map(|l| l.strip_prefix("data:").unwrap_or(l))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("jsonrpc").is_some())
        .unwrap_or(Value::Null)
}
