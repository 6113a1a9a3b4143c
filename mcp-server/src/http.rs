//! Streamable HTTP transport: bearer token (constant-time compare), Origin validation, body cap
//! (413), loopback-only without a token, optional stateless mode.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use http::{header, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use crate::audit::Audit;
use crate::engine::Engine;
use crate::tools::SqlGateServer;

/// HTTP settings.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Address to bind (`127.0.0.1:8765`; port 0 picks one).
    pub addr: String,
    /// No sessions.
    pub stateless: bool,
    /// Bearer token; `None` only with `--allow-unauthenticated` on loopback.
    pub token: Option<String>,
    /// Allowed browser origins; requests with any other `Origin` are refused (403).
    pub allowed_origins: Vec<String>,
    /// Body cap in bytes (413 above it).
    pub max_body_bytes: usize,
}

/// Why HTTP cannot start.
pub fn check_bind(addr: &SocketAddr, token: Option<&str>) -> Result<(), String> {
    if token.is_none() && !addr.ip().is_loopback() {
        return Err(format!(
            "refusing to serve {addr} without a bearer token: bind a loopback address or set --auth-token-env"
        ));
    }
    Ok(())
}

#[derive(Clone)]
struct Gate {
    token: Option<Arc<Vec<u8>>>,
    max_body_bytes: usize,
}

/// True when `header_value` is `Bearer <token>` with the expected token (constant time).
pub fn bearer_matches(header_value: Option<&str>, expected: &[u8]) -> bool {
    let Some(v) = header_value else { return false };
    let Some(given) = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))
    else {
        return false;
    };
    bool::from(given.trim().as_bytes().ct_eq(expected))
}

async fn gate(State(g): State<Gate>, req: Request, next: Next) -> Response {
    if let Some(expected) = &g.token {
        let value = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        if !bearer_matches(value, expected) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "missing or wrong bearer token\n",
            )
                .into_response();
        }
    }
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > g.max_body_bytes) {
        return (StatusCode::PAYLOAD_TOO_LARGE, "request body too large\n").into_response();
    }
    next.run(req).await
}

fn service<M: SessionManager>(
    engine: Arc<Engine>,
    audit: Audit,
    manager: M,
    config: StreamableHttpServerConfig,
) -> StreamableHttpService<SqlGateServer, M> {
    StreamableHttpService::new(
        move || Ok(SqlGateServer::new(engine.clone(), audit.clone())),
        Arc::new(manager),
        config,
    )
}

/// Serves MCP over HTTP at `/mcp` until `shutdown` is cancelled. Reports the bound address.
pub async fn serve_http(
    engine: Arc<Engine>,
    audit: Audit,
    opts: HttpOptions,
    shutdown: CancellationToken,
    bound: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
) -> Result<(), String> {
    let addr: SocketAddr = opts
        .addr
        .parse()
        .map_err(|_| format!("`{}` is not an address like 127.0.0.1:8765", opts.addr))?;
    check_bind(&addr, opts.token.as_deref())?;
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(opts.max_body_bytes)
        .with_cancellation_token(shutdown.child_token())
        .with_legacy_session_mode(!opts.stateless);
    config = if opts.allowed_origins.is_empty() {
        config.enforce_origin_validation()
    } else {
        config.with_allowed_origins(opts.allowed_origins.clone())
    };
    if !addr.ip().is_loopback() {
        // Host names for a public bind are the operator's; the bearer token protects it.
        config = config.disable_allowed_hosts();
    }
    if opts.stateless {
        config = config.with_json_response(true);
    }
    let router = if opts.stateless {
        axum::Router::new().nest_service(
            "/mcp",
            service(engine, audit, NeverSessionManager::default(), config),
        )
    } else {
        axum::Router::new().nest_service(
            "/mcp",
            service(engine, audit, LocalSessionManager::default(), config),
        )
    };
    let gate_state = Gate {
        token: opts.token.map(|t| Arc::new(t.into_bytes())),
        max_body_bytes: opts.max_body_bytes,
    };
    let router = router.layer(middleware::from_fn_with_state(gate_state, gate));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot bind {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    eprintln!("sqlgate-mcp: listening on http://{local}/mcp");
    if let Some(tx) = bound {
        let _ = tx.send(local);
    }
    axum::serve(listener, router)
        .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
        .await
        .map_err(|e| format!("HTTP server failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer() {
        assert!(bearer_matches(Some("Bearer s3cret"), b"s3cret"));
        assert!(!bearer_matches(Some("Bearer s3cre"), b"s3cret"));
        assert!(!bearer_matches(Some("s3cret"), b"s3cret"));
        assert!(!bearer_matches(None, b"s3cret"));
    }

    #[test]
    fn non_loopback_needs_a_token() {
        let public: SocketAddr = "0.0.0.0:8765"
            .parse()
            .unwrap_or(SocketAddr::from(([0, 0, 0, 0], 1)));
        assert!(check_bind(&public, None).is_err());
        assert!(check_bind(&public, Some("t")).is_ok());
        let local = SocketAddr::from(([127, 0, 0, 1], 8765));
        assert!(check_bind(&local, None).is_ok());
    }
}
