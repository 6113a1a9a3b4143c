//! `sqlgate-mcp serve`: resolve the settings, connect the backend, build the engines, open the
//! audit log, and serve stdio or HTTP until a signal.

use std::sync::Arc;

use sqlgate::{Policy, VarValue, Vars};
use tokio_util::sync::CancellationToken;

use crate::app::build::build_engines;
use crate::app::exit;
use crate::app::preflight::preflight;
use crate::app::signals::{reload_tls_on_hangup, reopen_on_hangup, StopSignals};
use crate::audit::{Audit, AuditOptions, ServerFacts};
use crate::config::flags::ServeArgs;
use crate::config::{resolve_serve, ServeConfig};
use crate::gate::Engine;
use crate::transport::auth::claims::{ClaimRule, ClaimType};
use crate::transport::http::{serve_http_routes, Credential, HttpOptions, HttpRoute};
use crate::transport::stdio::serve_stdio;
use crate::transport::tls::TlsConfig;

/// Runs `serve`; returns the exit code.
pub fn run_serve(args: &ServeArgs) -> i32 {
    let cfg = match resolve_serve(args) {
        Ok(c) => c,
        Err(e) => {
            tracing::error!("{e}");
            return exit::USAGE;
        }
    };
    // Every principal's policy is checked before anything connects: a configuration error is a
    // usage error (exit 2) naming the principal and the field.
    if let Err(e) = preflight(&cfg) {
        tracing::error!("{e}");
        return exit::USAGE;
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the runtime: {e}");
            return exit::USAGE;
        }
    };
    let code = match rt.block_on(serve(cfg)) {
        Ok(()) => exit::SUCCESS,
        Err(Stop::Failure(e)) => {
            tracing::error!("{e}");
            exit::FAILURE
        }
        Err(Stop::Usage(e)) => {
            tracing::error!("{e}");
            exit::USAGE
        }
    };
    // The stdio transport reads stdin on a blocking thread that a signal cannot interrupt;
    // waiting for it would keep a stopped server alive until the next line arrives.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    code
}

/// Opens the audit log (its header names the effective policy) and reopens it on SIGHUP.
/// With principals, the header's policy is `{name: policy}` of every principal served.
fn open_audit(cfg: &ServeConfig, engines: &[(Credential, Arc<Engine>)]) -> Result<Audit, String> {
    let Some((_, first)) = engines.first() else {
        return Err("no engine to serve".into());
    };
    let policy_json = if engines.iter().all(|(_, e)| e.principal().is_none()) {
        serde_json::to_string(first.policy())
    } else {
        let by_name: std::collections::BTreeMap<&str, &Policy> = engines
            .iter()
            .map(|(_, e)| (e.principal().unwrap_or_default(), e.policy()))
            .collect();
        serde_json::to_string(&by_name)
    };
    let facts = ServerFacts {
        mode: cfg.mode.as_str().to_string(),
        dialect: first.policy().dialect.as_str().to_string(),
        policy_json: policy_json.map_err(|e| e.to_string())?,
    };
    let opts = AuditOptions {
        path: cfg.audit_file.clone(),
        failure: cfg.audit_failure,
        per_record_sync: false,
        format: cfg.audit_format,
        facts,
        otlp_endpoint: cfg.otlp_endpoint.clone(),
    };
    let audit = Audit::open(opts).map_err(|e| match &cfg.audit_file {
        Some(p) => format!("cannot open the audit file {}: {e}", p.display()),
        None => format!("cannot write the audit log: {e}"),
    })?;
    reopen_on_hangup(audit.clone());
    Ok(audit)
}

/// Why `serve` stopped: a configuration the policy refuses (exit 2), or a failure (exit 1).
enum Stop {
    Usage(String),
    Failure(String),
}

impl From<String> for Stop {
    fn from(e: String) -> Self {
        Stop::Failure(e)
    }
}

async fn serve(cfg: ServeConfig) -> Result<(), Stop> {
    let token = match (&cfg.http, &cfg.auth_token_env) {
        // With principals, each has its token (the --auth-token-env one is `default`).
        _ if !cfg.principals.is_empty() => None,
        // With [oauth], a verified token is enough.
        (Some(_), None) if cfg.oauth.is_some() => None,
        // A missing token is a configuration error (exit 2): nothing was served.
        (Some(_), Some(var)) => Some(
            crate::config::read_token(var, "--auth-token-env")
                .map_err(|e| Stop::Usage(e.to_string()))?,
        ),
        (Some(_), None) if !cfg.allow_unauthenticated => {
            return Err(Stop::Usage(
                "HTTP needs a bearer token: pass --auth-token-env VAR (the variable holds the token), or --allow-unauthenticated on a loopback address"
                    .into(),
            ))
        }
        _ => None,
    };
    let signals = StopSignals::install();
    let shutdown = CancellationToken::new();
    {
        let s = shutdown.clone();
        tokio::spawn(async move {
            let signal = signals.first().await;
            tracing::info!("{signal}: stopping");
            s.cancel();
        });
    }
    let mut engines = tokio::select! {
        e = build_engines(&cfg) => e?,
        _ = shutdown.cancelled() => return Ok(()),
    };
    // Every published query passes the guard under each principal who sees it, or nothing serves.
    for (credential, engine) in &engines {
        engine
            .check_published(&claim_samples(credential))
            .map_err(Stop::Usage)?;
    }
    if cfg.principals.is_empty() {
        engines = server_routes(engines, token, cfg.oauth.is_some());
    }
    let audit = open_audit(&cfg, &engines)?;
    let served = serve_transport(&cfg, engines, audit.clone(), shutdown).await;
    // Every record is on disk before its call returns; this also sends the exporter's last
    // batch to the collector, unless it does not answer in time.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), audit.flush()).await;
    Ok(served?)
}

/// A value of its type for each variable a route's tokens bind from their claims, to check the
/// published queries under the row filters those variables feed.
fn claim_samples(credential: &Credential) -> Vars {
    let mut vars = Vars::new();
    if let Credential::Claims(rule) = credential {
        for v in &rule.vars {
            let sample = match v.ty {
                ClaimType::Integer => VarValue::Int(0),
                ClaimType::Number => VarValue::Float(0.0),
                ClaimType::String => VarValue::Text("sample".into()),
                ClaimType::Boolean => VarValue::Bool(false),
            };
            vars.set(v.var.clone(), sample);
        }
    }
    vars
}

/// The server's own engine without principals: its static token, and with `[oauth]` every
/// verified token too (`None` and no `[oauth]`: `--allow-unauthenticated`, or stdio).
fn server_routes(
    engines: Vec<(Credential, Arc<Engine>)>,
    token: Option<String>,
    oauth: bool,
) -> Vec<(Credential, Arc<Engine>)> {
    let mut routes = Vec::new();
    for (_, engine) in engines {
        if let Some(t) = &token {
            routes.push((Credential::Token(t.clone()), engine.clone()));
        }
        if oauth {
            routes.push((Credential::Claims(ClaimRule::default()), engine.clone()));
        }
        if token.is_none() && !oauth {
            routes.push((Credential::None, engine));
        }
    }
    routes
}

/// Serves MCP over the configured transport until the client leaves or a signal arrives.
async fn serve_transport(
    cfg: &ServeConfig,
    engines: Vec<(Credential, Arc<Engine>)>,
    audit: Audit,
    shutdown: CancellationToken,
) -> Result<(), String> {
    match &cfg.http {
        Some(addr) => {
            let tls = match &cfg.tls {
                Some(settings) => {
                    let tls = TlsConfig::load(settings.clone())?;
                    reload_tls_on_hangup(tls.clone());
                    Some(tls)
                }
                None => None,
            };
            let opts = HttpOptions {
                addr: addr.clone(),
                stateless: cfg.stateless,
                token: None,
                allowed_origins: cfg.allowed_origins.clone(),
                max_body_bytes: cfg.max_body_bytes,
                oauth: cfg.oauth.clone(),
                tls,
                connections: cfg.connections,
            };
            let routes = engines
                .into_iter()
                .map(|(credential, engine)| HttpRoute { credential, engine })
                .collect();
            serve_http_routes(routes, audit, opts, shutdown, None).await
        }
        None => {
            // stdio serves one engine: the server's, or the --principal one (resolve_serve
            // keeps only that one).
            let Some((_, engine)) = engines.into_iter().next() else {
                return Err("no engine to serve".into());
            };
            serve_stdio(engine, audit, cfg.max_line_bytes, shutdown).await
        }
    }
}
