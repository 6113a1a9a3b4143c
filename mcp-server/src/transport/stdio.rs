//! MCP over stdio: one engine (the server's, or the `--principal` one) until the client leaves
//! or a signal arrives.

use std::sync::Arc;

use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

use crate::audit::Audit;
use crate::gate::Engine;
use crate::tools::SqlGateServer;

/// Serves `engine` on stdin/stdout until the client closes it or `shutdown` is cancelled.
pub async fn serve_stdio(
    engine: Arc<Engine>,
    audit: Audit,
    shutdown: CancellationToken,
) -> Result<(), String> {
    if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        eprintln!("sqlgate-mcp: waiting for an MCP client on stdin; this is meant to be started by a client, see README (Ctrl-C to stop)");
    }
    let server = SqlGateServer::new(engine, audit);
    // Until a client's `initialize` arrives, a signal must stop the wait too.
    let running = tokio::select! {
        r = server.serve(rmcp::transport::stdio()) => {
            r.map_err(|e| format!("MCP stdio failed to start: {e}"))?
        }
        _ = shutdown.cancelled() => return Ok(()),
    };
    tokio::select! {
        r = running.waiting() => r.map(|_| ()).map_err(|e| format!("MCP stdio: {e}")),
        _ = shutdown.cancelled() => Ok(()),
    }
}
