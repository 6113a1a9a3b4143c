//! The MCP server as the benchmark serves and calls it: `run_query` through a client, the server
//! in process (an in-memory pipe) or over streamable HTTP on a loopback port.

use std::sync::Arc;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::gate::Engine;
use sqlgate_mcp::tools::SqlGateServer;
use sqlgate_mcp::transport::http::{serve_http, HttpOptions};
use tokio_util::sync::CancellationToken;

use crate::Error;

/// `run_query` of `sql` through `peer`; returns the row count.
pub async fn tool(peer: &Peer<RoleClient>, sql: &str) -> Result<usize, Error> {
    let mut p = CallToolRequestParams::new("run_query");
    if let Value::Object(m) = json!({ "sql": sql }) {
        p = p.with_arguments(m);
    }
    let r = peer.call_tool(p).await?;
    let out = r.structured_content.unwrap_or(Value::Null);
    if r.is_error == Some(true) {
        return Err(format!("run_query failed: {out}").into());
    }
    Ok(out["row_count"].as_u64().unwrap_or(0) as usize)
}

/// The client's end of an in-memory pipe whose other end the server is serving (stdio's
/// framing: one JSON-RPC message per line).
pub fn serve_in_process(engine: Arc<Engine>, audit: Audit) -> tokio::io::DuplexStream {
    let server = SqlGateServer::new(engine, audit);
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    b
}

/// An rmcp client of `engine` served in process.
pub async fn in_process(
    engine: Arc<Engine>,
    audit: Audit,
) -> Result<RunningService<RoleClient, ()>, Error> {
    Ok(().serve(serve_in_process(engine, audit)).await?)
}

/// An rmcp client of the server at `url` over streamable HTTP.
pub async fn http_client(url: &str) -> Result<RunningService<RoleClient, ()>, Error> {
    Ok(
        ().serve(StreamableHttpClientTransport::from_uri(url.to_string()))
            .await?,
    )
}

/// `engine` served over streamable HTTP on a loopback port until `shutdown`; returns its URL.
pub async fn start_http(
    engine: Arc<Engine>,
    audit: Audit,
    shutdown: CancellationToken,
) -> Result<String, Error> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let opts = HttpOptions {
        addr: "127.0.0.1:0".into(),
        stateless: false,
        token: None,
        allowed_origins: Vec::new(),
        max_body_bytes: 1 << 20,
        oauth: None,
        tls: None,
        connections: Default::default(),
    };
    tokio::spawn(async move {
        if let Err(e) = serve_http(engine, audit, opts, shutdown, Some(tx)).await {
            eprintln!("bench: HTTP server: {e}");
        }
    });
    Ok(format!("http://{}/mcp", rx.await?))
}
