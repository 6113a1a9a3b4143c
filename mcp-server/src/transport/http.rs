//! Streamable HTTP transport: who is calling ([`super::identify`]: a static bearer token or a
//! verified JWT), the protected resource metadata (OAuth), Origin validation, body cap (413),
//! each POST body judged before rmcp reads it ([`super::http_body`]: a refused one answered with
//! a JSON-RPC error), loopback-only without a credential, optional stateless mode.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use http::{header, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::auth::challenge::Challenge;
use super::auth::check_bind;
use super::auth::jwt::{JwtVerifier, OAuthSettings};
use super::auth::metadata::{metadata_paths, metadata_url, ResourceMetadata};
use super::connections::{self, Admission, ConnectionLimits};
use super::frame::{FrameLimits, Reject};
use super::host;
use super::http_body::{answer, screen};
pub use super::identify::Credential;
use super::identify::Identify;
use super::session_guard::{session_of, Asking, SessionGuard};
use super::sessions::{opened_by, OwnedSessions, Owner, Owners};
use super::tls::listener::PeerCert;
use super::tls::TlsConfig;
use crate::audit::Audit;
use crate::gate::Engine;
use crate::tools::caller::Caller;
use crate::tools::SqlGateServer;

/// HTTP settings.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Address to bind (`127.0.0.1:8765`; port 0 picks one).
    pub addr: String,
    /// No sessions.
    pub stateless: bool,
    /// Bearer token of [`serve_http`]'s one route; `None` only with `--allow-unauthenticated`
    /// on loopback.
    pub token: Option<String>,
    /// Allowed browser origins; requests with any other `Origin` are refused (403).
    pub allowed_origins: Vec<String>,
    /// Body cap in bytes (413 above it).
    pub max_body_bytes: usize,
    /// JWT access tokens (`[oauth]`): how they are verified, and the resource metadata served.
    pub oauth: Option<OAuthSettings>,
    /// HTTPS (and mutual TLS): `None` serves plain HTTP.
    pub tls: Option<TlsConfig>,
    /// How long, and how many, connections may wait to be authenticated.
    pub connections: ConnectionLimits,
}

#[derive(Clone)]
struct Gate {
    max_body_bytes: usize,
}

/// One principal over HTTP: how its requests prove who they are, and the engine (policy, vars,
/// mode) serving them.
#[derive(Clone)]
pub struct HttpRoute {
    /// Its credential.
    pub credential: Credential,
    /// The engine serving its requests.
    pub engine: Arc<Engine>,
}

/// The services of every route, and how a request picks one.
struct Dispatch<M: SessionManager> {
    identify: Identify,
    services: Vec<StreamableHttpService<SqlGateServer, M>>,
    limits: FrameLimits,
    /// Who owns which session (`None`: `--stateless`, no sessions).
    sessions: Option<SessionGuard>,
}

/// Picks the route before rmcp sees the request, and hands it the verified caller: each
/// principal has its own service and session manager, and every session belongs to the caller
/// that opened it ([`super::sessions`]): a request naming another caller's session, of any
/// principal, gets the unknown session's 404.
async fn dispatch<M: SessionManager>(
    State(d): State<Arc<Dispatch<M>>>,
    mut req: Request,
) -> Response {
    let peer = req
        .extensions()
        .get::<ConnectInfo<PeerCert>>()
        .and_then(|c| c.0 .0.clone());
    let (index, caller) = match d.identify.route(req.headers(), peer.as_deref()).await {
        Ok(found) => found,
        Err(answer) => return closing(answer),
    };
    if let Some(admission) = req.extensions().get::<Admission>() {
        admission.authenticated();
    }
    let owner = Owner {
        route: index,
        identity: caller.as_ref().map(Caller::identity),
    };
    let method = req.method().clone();
    let session = session_of(&req).map(str::to_string);
    let asking = |session| Asking {
        method: &method,
        session,
        owner: &owner,
        caller: caller.as_ref(),
    };
    if let (Some(guard), Some(s)) = (&d.sessions, &session) {
        if let Err(answer) = guard.admit(&asking(s)).await {
            return answer;
        }
    }
    if let Some(caller) = caller.clone() {
        req.extensions_mut().insert(caller);
    }
    let (req, answering) = match screen(req, d.limits).await {
        Ok(screened) => screened,
        // A body over the cap is left partly unread.
        Err(answer) => return closing(answer),
    };
    if let (Some(guard), Some(s)) = (&d.sessions, &session) {
        if let Err(answer) = guard.admit_answer(&asking(s), &answering).await {
            return answer;
        }
    }
    match d.services.get(index) {
        Some(service) => {
            let mut response = opened_by(owner.clone(), service.handle(req))
                .await
                .into_response();
            // rmcp answers a session's end with 202; the SDKs expect 200 or 204 and log every
            // clean close as a failure otherwise. The session is gone when this returns.
            if method == http::Method::DELETE && response.status() == StatusCode::ACCEPTED {
                *response.status_mut() = StatusCode::OK;
            }
            response
        }
        None => (StatusCode::INTERNAL_SERVER_ERROR, "no such route\n").into_response(),
    }
}

/// `response` with `Connection: close`: answered before the request's body was read, so the
/// server closes the connection, and a client must not reuse it (its next request would fail).
fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, http::HeaderValue::from_static("close"));
    response
}

async fn gate(State(g): State<Gate>, req: Request, next: Next) -> Response {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > g.max_body_bytes) {
        let limits = FrameLimits {
            max_bytes: g.max_body_bytes,
            ..FrameLimits::default()
        };
        return closing(answer(&Reject::too_large(limits, None)));
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

/// `/mcp` over every route, each with its own session manager from `manager` (`owners`: who
/// owns each session, when there are sessions), and the OAuth metadata.
fn router<M: SessionManager>(
    routes: Vec<HttpRoute>,
    audit: &Audit,
    config: &StreamableHttpServerConfig,
    verifier: Option<Arc<JwtVerifier>>,
    (manager, owners): (impl Fn() -> M, Option<Arc<Owners>>),
) -> axum::Router {
    let challenge = Challenge {
        resource_metadata: verifier
            .as_ref()
            .map(|v| metadata_url(&v.settings().resource)),
    };
    let credentials = routes
        .iter()
        .map(|r| (r.credential.clone(), r.engine.vars().clone()))
        .collect();
    let identify = Identify::new(credentials, verifier.clone(), challenge);
    let principals = routes
        .iter()
        .map(|r| r.engine.principal().map(str::to_string))
        .collect();
    let sessions = owners.map(|o| SessionGuard::new(o, audit.clone(), principals));
    let services = routes
        .into_iter()
        .map(|r| service(r.engine, audit.clone(), manager(), config.clone()))
        .collect();
    let limits = FrameLimits {
        max_bytes: config.max_request_body_bytes,
        ..FrameLimits::default()
    };
    let state = Arc::new(Dispatch {
        identify,
        services,
        limits,
        sessions,
    });
    let mut router =
        axum::Router::new().route("/mcp", axum::routing::any(dispatch::<M>).with_state(state));
    if let Some(v) = verifier {
        let document =
            serde_json::to_value(ResourceMetadata::new(v.settings())).unwrap_or_default();
        for path in metadata_paths(&v.settings().resource) {
            let document = document.clone();
            router = router.route(
                &path,
                axum::routing::get(move || std::future::ready(axum::Json(document.clone()))),
            );
        }
    }
    router
}

/// Serves MCP over HTTP at `/mcp` until `shutdown` is cancelled. Reports the bound address.
pub async fn serve_http(
    engine: Arc<Engine>,
    audit: Audit,
    opts: HttpOptions,
    shutdown: CancellationToken,
    bound: Option<tokio::sync::oneshot::Sender<SocketAddr>>,
) -> Result<(), String> {
    let credential = match &opts.token {
        Some(t) => Credential::Token(t.clone()),
        None => Credential::None,
    };
    let routes = vec![HttpRoute { credential, engine }];
    serve_http_routes(routes, audit, opts, shutdown, bound).await
}

/// Checks the routes: a credential each (only a lone route may go without, on loopback or
/// behind required client certificates), OAuth settings when one is chosen by a token's claims,
/// and mutual TLS when one is chosen by a client certificate.
fn check_routes(
    routes: &[HttpRoute],
    addr: &SocketAddr,
    oauth: bool,
    tls: Option<&TlsConfig>,
) -> Result<(), String> {
    let open = routes
        .iter()
        .filter(|r| r.credential == Credential::None)
        .count();
    if routes.is_empty() || (open > 0 && routes.len() > 1) {
        return Err("every principal needs a bearer token".into());
    }
    let claims = routes
        .iter()
        .any(|r| matches!(r.credential, Credential::Claims(_)));
    if claims && !oauth {
        return Err("principals chosen by token claims (`match`) need an [oauth] section".into());
    }
    let certs = routes
        .iter()
        .any(|r| matches!(r.credential, Credential::ClientCert(_)));
    if certs && !tls.is_some_and(TlsConfig::verifies_clients) {
        return Err("principals chosen by client certificate (`client_cert`) need tls_client_ca_file (mutual TLS)".into());
    }
    // Required client certificates are a credential of every connection.
    let mtls = tls.is_some_and(TlsConfig::requires_client_certificates);
    check_bind(addr, (open == 0 || mtls).then_some("credential"))
}

/// [`serve_http`] for several principals: each request's credential selects its route
/// (`opts.token` is not read).
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
    check_routes(&routes, &addr, opts.oauth.is_some(), opts.tls.as_ref())?;
    let verifier = match opts.oauth.clone() {
        Some(settings) => {
            let v = JwtVerifier::new(settings)?;
            // A configuration error shows at start; an issuer down now is retried per call.
            if let Err(e) = v.load_keys().await {
                tracing::warn!("[oauth] cannot load the issuer's keys yet: {e}");
            }
            Some(Arc::new(v))
        }
        None => None,
    };
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
        // Host names for a public bind are the operator's; the credentials protect it.
        config = config.disable_allowed_hosts();
    }
    if opts.stateless {
        config = config.with_json_response(true);
    }
    let router = if opts.stateless {
        let none = (NeverSessionManager::default, None);
        router(routes, &audit, &config, verifier, none)
    } else {
        let owners = Arc::new(Owners::default());
        let owned = owners.clone();
        let manager = move || OwnedSessions::new(LocalSessionManager::default(), owned.clone());
        router(routes, &audit, &config, verifier, (manager, Some(owners)))
    };
    let gate_state = Gate {
        max_body_bytes: opts.max_body_bytes,
    };
    let router = router
        .layer(middleware::from_fn_with_state(gate_state, gate))
        .layer(middleware::from_fn(host::check));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot bind {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let scheme = if opts.tls.is_some() { "https" } else { "http" };
    // No field after the address: scripts read the line up to its end.
    tracing::info!("listening on {scheme}://{local}/mcp");
    if opts.tls.is_none() && !local.ip().is_loopback() {
        tracing::warn!("plain HTTP on {local}: bearer tokens cross the network in clear; set tls_cert_file / tls_key_file, or keep a TLS-terminating proxy in front");
    }
    if let Some(tx) = bound {
        let _ = tx.send(local);
    }
    connections::serve(listener, router, opts.tls, opts.connections, shutdown).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::auth::{bearer_of, route_for, token_digest};
    use super::*;

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
