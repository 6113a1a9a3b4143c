//! Minimal MCP clients: JSON-RPC written as text and each response parsed once into a
//! `serde_json::Value`, the least any client does (a JavaScript client's `JSON.parse`). rmcp's
//! client parses a result several times over (its message types are untagged enums with
//! flattened fields, so the whole result is buffered, cloned and read again: ~0.1 ms for the
//! 21 KB result of the 100-row query), which is the client's cost, not the server's; these
//! paths time the same server calls without it.

use reqwest::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

use super::Error;

/// The protocol version this client asks for.
const PROTOCOL_VERSION: &str = "2025-06-18";

/// A JSON-RPC request (id `id`) as one line of text.
fn request(id: u64, method: &str, params: Value) -> Result<Vec<u8>, Error> {
    let mut line = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": id, "method": method, "params": params
    }))?;
    line.push(b'\n');
    Ok(line)
}

fn initialize() -> Result<Vec<u8>, Error> {
    let params = json!({
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": { "name": "sqlgate-bench-plain-client", "version": "0" }
    });
    request(0, "initialize", params)
}

const INITIALIZED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

fn run_query(id: u64, sql: &str) -> Result<Vec<u8>, Error> {
    let params = json!({ "name": "run_query", "arguments": { "sql": sql } });
    request(id, "tools/call", params)
}

/// The row count of a `run_query` response, or why it failed.
fn row_count(response: &Value) -> Result<usize, Error> {
    let result = &response["result"];
    if result.is_null() || result["isError"] == true {
        return Err(format!("run_query failed: {response}").into());
    }
    Ok(result["structuredContent"]["row_count"]
        .as_u64()
        .unwrap_or(0) as usize)
}

/// A client on a byte stream, one JSON-RPC message per line (the stdio transport's framing; the
/// bench serves it over an in-memory pipe).
pub struct PlainLines {
    write: WriteHalf<DuplexStream>,
    read: BufReader<ReadHalf<DuplexStream>>,
    line: String,
    next_id: u64,
}

impl PlainLines {
    /// Initializes a session on `stream` (the server's end is already being served).
    pub async fn connect(stream: DuplexStream) -> Result<Self, Error> {
        let (read, write) = tokio::io::split(stream);
        let mut client = PlainLines {
            write,
            read: BufReader::new(read),
            line: String::new(),
            next_id: 0,
        };
        client.send(&initialize()?).await?;
        client.response(0).await?;
        client.send(INITIALIZED).await?;
        Ok(client)
    }

    async fn send(&mut self, line: &[u8]) -> Result<(), Error> {
        self.write.write_all(line).await?;
        self.write.flush().await?;
        Ok(())
    }

    /// Reads lines until the response to `id` (notifications may come first).
    async fn response(&mut self, id: u64) -> Result<Value, Error> {
        loop {
            self.line.clear();
            if self.read.read_line(&mut self.line).await? == 0 {
                return Err("the server closed the stream".into());
            }
            let message: Value = serde_json::from_str(&self.line)?;
            if message["id"] == id {
                return Ok(message);
            }
        }
    }

    /// Calls `run_query`; returns the row count.
    pub async fn run_query(&mut self, sql: &str) -> Result<usize, Error> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&run_query(id, sql)?).await?;
        row_count(&self.response(id).await?)
    }
}

/// A client of the streamable HTTP transport with a session: each call is a POST whose answer
/// is read as an SSE stream up to the event that carries the response.
pub struct PlainHttp {
    http: reqwest::Client,
    url: String,
    session: HeaderValue,
    version: HeaderValue,
    next_id: u64,
}

impl PlainHttp {
    /// Initializes a session at `url`.
    pub async fn connect(url: &str) -> Result<Self, Error> {
        Self::connect_with(url, None).await
    }

    /// Initializes a session at `url`, sending `bearer` as the bearer token on every request.
    pub async fn connect_with(url: &str, bearer: Option<&str>) -> Result<Self, Error> {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(t) = bearer {
            headers.insert(
                reqwest::header::AUTHORIZATION,
                HeaderValue::from_str(&format!("Bearer {t}"))?,
            );
        }
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .build()?;
        Self::connect_using(http, url).await
    }

    /// Initializes a session at `url` with `http` (its TLS settings and default headers).
    pub async fn connect_using(http: reqwest::Client, url: &str) -> Result<Self, Error> {
        let response = post(&http, url, initialize()?).send().await?;
        let response = response.error_for_status()?;
        let session = response
            .headers()
            .get("mcp-session-id")
            .cloned()
            .ok_or("the server sent no Mcp-Session-Id")?;
        let init = sse_response(response, 0).await?;
        let version = init["result"]["protocolVersion"]
            .as_str()
            .unwrap_or(PROTOCOL_VERSION);
        let client = PlainHttp {
            http,
            url: url.to_string(),
            session,
            version: HeaderValue::from_str(version)?,
            next_id: 0,
        };
        client
            .post(INITIALIZED.to_vec())
            .send()
            .await?
            .error_for_status()?;
        Ok(client)
    }

    fn post(&self, body: Vec<u8>) -> reqwest::RequestBuilder {
        post(&self.http, &self.url, body)
            .header("mcp-session-id", self.session.clone())
            .header("mcp-protocol-version", self.version.clone())
    }

    /// Calls `run_query`; returns the row count.
    pub async fn run_query(&mut self, sql: &str) -> Result<usize, Error> {
        row_count(&self.run_query_response(sql).await?)
    }

    /// Calls `run_query`; returns the JSON-RPC response.
    pub async fn run_query_response(&mut self, sql: &str) -> Result<Value, Error> {
        self.next_id += 1;
        let id = self.next_id;
        let response = self.post(run_query(id, sql)?).send().await?;
        sse_response(response.error_for_status()?, id).await
    }
}

fn post(http: &reqwest::Client, url: &str, body: Vec<u8>) -> reqwest::RequestBuilder {
    http.post(url)
        .header(ACCEPT, "application/json, text/event-stream")
        .header(CONTENT_TYPE, "application/json")
        .body(body)
}

/// Reads an SSE body (or a plain JSON one) until the JSON-RPC message answering `id`: events are
/// separated by a blank line, their `data:` lines joined; events with empty data (rmcp's priming
/// event) are skipped.
async fn sse_response(mut response: reqwest::Response, id: u64) -> Result<Value, Error> {
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if is_json {
        return Ok(serde_json::from_slice(&response.bytes().await?)?);
    }
    let mut buffer: Vec<u8> = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
            let event: Vec<u8> = buffer.drain(..end + 2).collect();
            let event = std::str::from_utf8(&event)?;
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            let data = data.join("\n");
            if data.trim().is_empty() {
                continue;
            }
            let message: Value = serde_json::from_str(&data)?;
            if message["id"] == id {
                return Ok(message);
            }
        }
    }
    Err(format!("the SSE stream ended without the response to request {id}").into())
}
