//! Streamable HTTP transport: bearer token (constant-time compare), Origin validation, body cap
//! (413), loopback-only without a token, optional stateless mode.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use http::{header, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::auth::{bearer_of, check_bind, route_for, token_digest, unauthorized};
use crate::audit::Audit;
use crate::gate::Engine;
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

#[derive(Clone)]
struct Gate {
    max_body_bytes: usize,
}

/// One principal over HTTP: its bearer token and the engine (policy, vars, mode) serving it.
#[derive(Clone)]
pub struct HttpRoute {
    /// Bearer token; `None` only for one route, with `--allow-unauthenticated` on loopback.
    pub token: Option<String>,
    /// The engine serving requests carrying this token.
    pub engine: Arc<Engine>,
}

/// The services of every route, and their tokens' digests (`None`: no token, one route).
struct Dispatch<M: SessionManager> {
    digests: Option<Vec<[u8; 32]>>,
    services: Vec<StreamableHttpService<SqlGateServer, M>>,
}

/// Picks the route from the bearer token before rmcp sees the request: each principal has its
/// own service and session manager, so a session id is known only to the principal that opened
/// it (another principal's token on it gets rmcp's 404 "session not found").
async fn dispatch<M: SessionManager>(State(d): State<Arc<Dispatch<M>>>, req: Request) -> Response {
    let index = match &d.digests {
        None => Some(0),
        Some(digests) => {
            let value = req
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok());
            route_for(bearer_of(value), digests)
        }
    };
    match index.and_then(|i| d.services.get(i)) {
        Some(service) => service.handle(req).await.into_response(),
        None => unauthorized(),
    }
}

async fn gate(State(g): State<Gate>, req: Request, next: Next) -> Response {
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

fn router<M: SessionManager + Default>(
    routes: Vec<HttpRoute>,
    audit: &Audit,
    config: &StreamableHttpServerConfig,
) -> axum::Router {
    let digests = routes
        .iter()
        .map(|r| r.token.as_ref().map(|t| token_digest(t.as_bytes())))
        .collect::<Option<Vec<_>>>();
    let services = routes
        .into_iter()
        .map(|r| service(r.engine, audit.clone(), M::default(), config.clone()))
        .collect();
    let state = Arc::new(Dispatch { digests, services });
    axum::Router::new().route("/mcp", axum::routing::any(dispatch::<M>).with_state(state))
}

/// Serves MCP over HTTP at `/mcp` until `shutdown` is cancelled. Reports the bound address.
pub async fn serve_http(
    engine: Arc<Engine>,
    audit: Audit,
    opts: HttpOptions,
    shutdown: CancellationToken,
    bound: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
) -> Result<(), String> {
    let routes = vec![HttpRoute {
        token: opts.token.clone(),
        engine,
    }];
    serve_http_routes(routes, audit, opts, shutdown, bound).await
}

/// [`serve_http`] for several principals: the bearer token of each request selects its route
/// (`opts.token` is not read). Every route needs a token, unless there is exactly one.
pub async fn serve_http_routes(
    routes: Vec<HttpRoute>,
    audit: Audit,
    opts: HttpOptions,
    shutdown: CancellationToken,
    bound: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
) -> Result<(), String> {
    let addr: SocketAddr = opts
        .addr
        .parse()
        .map_err(|_| format!("`{}` is not an address like 127.0.0.1:8765", opts.addr))?;
    let tokenless = routes.iter().filter(|r| r.token.is_none()).count();
    if routes.is_empty() || (tokenless > 0 && routes.len() > 1) {
        return Err("every principal needs a bearer token".into());
    }
    check_bind(&addr, routes.first().and_then(|r| r.token.as_deref()))?;
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
        router::<NeverSessionManager>(routes, &audit, &config)
    } else {
        router::<LocalSessionManager>(routes, &audit, &config)
    };
    let gate_state = Gate {
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
    axum::serve(no_delay(listener), router)
        .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
        .await
        .map_err(|e| format!("HTTP server failed: {e}"))
}

/// `listener` with TCP_NODELAY set on every connection it accepts. A response leaves in several
/// writes (SSE events, then the end of the chunked body); with Nagle's algorithm a later one
/// waits for the client's delayed ACK (up to 40 ms on Linux: measured, a minimal HTTP client's
/// `run_query` took 44 ms instead of 1).
fn no_delay(
    listener: tokio::net::TcpListener,
) -> impl axum::serve::Listener<Io = tokio::net::TcpStream, Addr = std::net::SocketAddr> {
    listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            eprintln!("sqlgate-mcp: cannot set TCP_NODELAY on a connection: {e}");
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_send_without_delay() {
        use axum::serve::Listener;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut listener = no_delay(listener);
        let client = tokio::spawn(tokio::net::TcpStream::connect(addr));
        let (accepted, _) = listener.accept().await;
        assert!(accepted.nodelay().unwrap());
        client.await.unwrap().unwrap();
    }

    #[test]
    fn bearer() {
        let digests = [token_digest(b"s3cret")];
        let route = |header: Option<&str>| route_for(bearer_of(header), &digests);
        assert_eq!(route(Some("Bearer s3cret")), Some(0));
        assert_eq!(route(Some("bearer s3cret")), Some(0));
        assert_eq!(route(Some("Bearer s3cre")), None);
        assert_eq!(route(Some("s3cret")), None);
        assert_eq!(route(None), None);
    }

    #[test]
    fn routes_by_token() {
        let digests: Vec<[u8; 32]> = ["alpha", "beta", "gamma"]
            .iter()
            .map(|t| token_digest(t.as_bytes()))
            .collect();
        assert_eq!(route_for(Some("alpha"), &digests), Some(0));
        assert_eq!(route_for(Some("gamma"), &digests), Some(2));
        assert_eq!(route_for(Some("gamm"), &digests), None);
        assert_eq!(route_for(Some(""), &digests), None);
        assert_eq!(route_for(None, &digests), None);
        assert_eq!(bearer_of(Some("Bearer  beta ")), Some("beta"));
        assert_eq!(bearer_of(Some("Basic beta")), None);
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
