//! `sqlgate-mcp serve`: connect the backend, build the engine, serve stdio or HTTP.

use std::sync::Arc;

use rmcp::ServiceExt;
use sqlgate::{Guard, Policy, Vars};
use tokio_util::sync::CancellationToken;

use crate::audit::{Audit, AuditOptions, ServerFacts};
use crate::backend::options::{ConnectOptions, DuckdbOptions};
use crate::backend::Backend;
use crate::cli::ServeArgs;
use crate::config::{resolve_serve, Principal, ServeConfig, Source};
use crate::demo::demo_policy;
use crate::engine::{Engine, EngineConfig};
use crate::exit;
use crate::http::{serve_http_routes, HttpOptions, HttpRoute};
use crate::mode::check_mode;
use crate::tools::SqlGateServer;

/// Runs `serve`; returns the exit code.
pub fn run_serve(args: &ServeArgs) -> i32 {
    let cfg = match resolve_serve(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sqlgate-mcp: {e}");
            return exit::USAGE;
        }
    };
    // Every principal's policy is checked before anything connects: a configuration error is a
    // usage error (exit 2) naming the principal and the field.
    if let Err(e) = preflight(&cfg) {
        eprintln!("sqlgate-mcp: {e}");
        return exit::USAGE;
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sqlgate-mcp: cannot start the runtime: {e}");
            return exit::USAGE;
        }
    };
    let code = match rt.block_on(serve(cfg)) {
        Ok(()) => exit::SUCCESS,
        Err(e) => {
            eprintln!("sqlgate-mcp: {e}");
            exit::FAILURE
        }
    };
    // The stdio transport reads stdin on a blocking thread that a signal cannot interrupt;
    // waiting for it would keep a stopped server alive until the next line arrives.
    rt.shutdown_timeout(std::time::Duration::from_millis(500));
    code
}

/// The dialect of a source, known without connecting.
fn source_dialect(source: &Source) -> sqlgate::Dialect {
    match source {
        Source::Demo | Source::Sqlite(_) => sqlgate::Dialect::Sqlite,
        Source::Postgres(_) => sqlgate::Dialect::Postgres,
        Source::Mysql(_) => sqlgate::Dialect::Mysql,
        Source::Duckdb(_) => sqlgate::Dialect::Duckdb,
    }
}

/// The server's policy as [`build_engine`] will serve it, without connecting.
fn server_policy_offline(cfg: &ServeConfig) -> Result<Policy, String> {
    let default = match cfg.source {
        Source::Demo => demo_policy(),
        ref other => Policy::for_dialect(source_dialect(other)),
    };
    let mut policy = cfg.final_policy(default).map_err(|e| e.to_string())?;
    policy.dialect = source_dialect(&cfg.source);
    Ok(policy)
}

/// Refuses a policy whose row filters need a variable `vars` lacks; `who` names its owner.
pub fn check_vars(policy: &Policy, vars: &Vars, who: &str) -> Result<(), String> {
    let guard = Guard::new(policy.clone()).map_err(|e| format!("{who}: {e}"))?;
    let missing: Vec<String> = guard
        .row_filter_variables()
        .into_iter()
        .filter(|v| vars.get(v).is_none())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{who}: vars lacks {}, which its row filters need; add e.g. `vars = {{ {} = ... }}`",
        missing
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", "),
        missing[0]
    ))
}

/// A principal's policy: the server's narrowed by its layer (core's `Policy::narrowed_by`),
/// compiled once to check it, with every variable its row filters need, under a mode it may use.
pub fn principal_policy(
    server: &Policy,
    p: &Principal,
    stateless_http: bool,
) -> Result<Policy, String> {
    let who = format!("principal `{}`", p.name);
    let policy = match &p.layer {
        Some(layer) => server
            .narrowed_by(layer)
            .map_err(|e| format!("{who}: policy.{}: {}", e.field, e.message))?,
        None => server.clone(),
    };
    Guard::new(policy.clone()).map_err(|e| format!("{who}: policy.{}: {}", e.field, e.message))?;
    check_vars(&policy, &p.vars, &who)?;
    check_mode(p.mode, &policy, stateless_http).map_err(|e| format!("{who}: mode: {e}"))?;
    Ok(policy)
}

/// Checks, before connecting, every policy the server would serve.
fn preflight(cfg: &ServeConfig) -> Result<(), String> {
    let server = server_policy_offline(cfg)?;
    let stateless = cfg.http.is_some() && cfg.stateless;
    if cfg.principals.is_empty() {
        return check_vars(&server, &cfg.vars, "the server's policy");
    }
    for p in &cfg.principals {
        principal_policy(&server, p, stateless)?;
    }
    Ok(())
}

/// Connects the configured backend and returns it with its default policy.
pub async fn connect(cfg: &ServeConfig) -> Result<(Backend, Policy), String> {
    let options = ConnectOptions {
        pool_size: cfg.pool_size,
        statement_timeout: cfg.statement_timeout,
        require_read_only_role: cfg.require_read_only_role,
        write_mode: cfg.mode.writes().then(|| cfg.mode.as_str()),
        duckdb: DuckdbOptions {
            max_memory: cfg.duckdb_max_memory.clone(),
            threads: cfg.duckdb_threads,
        },
    };
    let backend = crate::backend::connect::connect(&cfg.source, &options)
        .await
        .map_err(|e| e.to_string())?;
    let policy = match cfg.source {
        Source::Demo => demo_policy(),
        _ => Policy::for_dialect(backend.dialect()),
    };
    Ok((backend, policy))
}

/// Builds the engine for a resolved configuration (also used by tests).
pub async fn build_engine(cfg: &ServeConfig) -> Result<Engine, String> {
    let (backend, default_policy) = connect(cfg).await?;
    let mut policy = cfg
        .final_policy(default_policy)
        .map_err(|e| e.to_string())?;
    check_mode(cfg.mode, &policy, cfg.http.is_some() && cfg.stateless)?;
    if policy.dialect != backend.dialect() {
        eprintln!(
            "sqlgate-mcp: warning: policy dialect {} does not match the database; using {}",
            policy.dialect.as_str(),
            backend.dialect().as_str()
        );
        policy.dialect = backend.dialect();
    }
    if !cfg.mode.writes() {
        for w in backend.role_warnings() {
            eprintln!("sqlgate-mcp: WARNING: {w}. Connect with a read-only role (or pass --require-read-only-role to refuse to start).");
        }
    }
    let mut engine = Engine::new(
        backend,
        EngineConfig {
            policy,
            max_result_bytes: cfg.max_result_bytes,
            statement_timeout: cfg.statement_timeout,
            mode: cfg.mode,
            approval_timeout: cfg.approval_timeout,
        },
    )
    .await?;
    engine.set_enabled_tools(check_tools(cfg.enabled_tools.clone())?);
    engine.set_cost_cap(cfg.cost_cap);
    if cfg.cost_cap.is_set() && matches!(engine.backend(), Backend::Sqlite(_)) {
        eprintln!(
            "sqlgate-mcp: warning: {} gives no cost estimate here; --max-cost and --max-estimated-rows do not apply",
            engine.backend().kind()
        );
    }
    #[cfg(feature = "duckdb")]
    if cfg.cost_cap.max_cost.is_some() && matches!(engine.backend(), Backend::Duckdb(_)) {
        eprintln!(
            "sqlgate-mcp: warning: DuckDB estimates rows, not cost; --max-cost does not apply (--max-estimated-rows does)"
        );
    }
    check_writes(&engine).await?;
    Ok(engine)
}

/// The engines to serve: the server's own (no principals), or one per principal sharing the
/// server engine's backend (its pool), each with its policy, vars and mode.
pub async fn build_engines(
    cfg: &ServeConfig,
) -> Result<Vec<(Option<String>, Arc<Engine>)>, String> {
    let server = build_engine(cfg).await?;
    if cfg.principals.is_empty() {
        if cfg.vars.is_empty() {
            return Ok(vec![(None, Arc::new(server))]);
        }
        let server = rebind(&server, cfg, None, cfg.vars.clone(), cfg.mode, None).await?;
        return Ok(vec![(None, Arc::new(server))]);
    }
    let stateless = cfg.http.is_some() && cfg.stateless;
    let mut out = Vec::new();
    for p in &cfg.principals {
        let policy = principal_policy(server.policy(), p, stateless)?;
        let engine = rebind(
            &server,
            cfg,
            Some(p.name.clone()),
            p.vars.clone(),
            p.mode,
            Some(policy),
        )
        .await?;
        eprintln!(
            "sqlgate-mcp: principal {}: mode {}{}",
            p.name,
            p.mode.as_str(),
            if engine.guard().has_row_filters() {
                ", row filters"
            } else {
                ""
            }
        );
        out.push((p.token.clone(), Arc::new(engine)));
    }
    Ok(out)
}

/// An engine over `server`'s backend for a principal (or the server's own vars).
async fn rebind(
    server: &Engine,
    cfg: &ServeConfig,
    principal: Option<String>,
    vars: Vars,
    mode: crate::mode::Mode,
    policy: Option<Policy>,
) -> Result<Engine, String> {
    let mut engine = Engine::with_vars(
        server.shared_backend(),
        EngineConfig {
            policy: policy.unwrap_or_else(|| server.policy().clone()),
            max_result_bytes: cfg.max_result_bytes,
            statement_timeout: cfg.statement_timeout,
            mode,
            approval_timeout: cfg.approval_timeout,
        },
        principal,
        vars,
    )
    .await?;
    engine.set_enabled_tools(server.enabled_tools().map(<[String]>::to_vec));
    engine.set_cost_cap(server.cost_cap());
    if engine.principal().is_some() {
        check_writes(&engine).await?;
    }
    Ok(engine)
}

/// `--tools`: every name must be a tool this server has.
fn check_tools(names: Option<Vec<String>>) -> Result<Option<Vec<String>>, String> {
    let Some(names) = names else { return Ok(None) };
    let known = SqlGateServer::all_tool_names();
    let names: Vec<String> = names.iter().map(|n| n.trim().to_string()).collect();
    if let Some(bad) = names.iter().find(|n| !known.contains(n)) {
        return Err(format!(
            "--tools: unknown tool `{bad}`; tools: {}",
            known.join(", ")
        ));
    }
    Ok(Some(names))
}

/// In a write mode: say which tables run_mutation may modify; on PostgreSQL, refuse to start when
/// the role cannot write them, and warn about what it may write beyond them.
async fn check_writes(engine: &Engine) -> Result<(), String> {
    let mode = engine.mode();
    if !mode.writes() {
        return Ok(());
    }
    let tables = engine.writable_tables();
    eprintln!(
        "sqlgate-mcp: mode {}: run_mutation may modify {}",
        mode.as_str(),
        if tables.is_empty() {
            "no table (check `writes.tables`)".to_string()
        } else {
            tables.join(", ")
        }
    );
    let classes = engine
        .policy()
        .writes
        .as_ref()
        .map(|w| w.classes.clone())
        .unwrap_or_default();
    for w in engine
        .backend()
        .check_write_privileges(&tables, &classes)
        .await
        .map_err(|e| e.to_string())?
    {
        eprintln!("sqlgate-mcp: WARNING: {w}; sqlgate lets mutations modify only the tables above, but the operator should grant the role no more than that.");
    }
    Ok(())
}

/// Opens the audit log (its header names the effective policy) and reopens it on SIGHUP.
/// With principals, the header's policy is `{name: policy}` of every principal served.
fn open_audit(
    cfg: &ServeConfig,
    engines: &[(Option<String>, Arc<Engine>)],
) -> Result<Audit, String> {
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

#[cfg(unix)]
fn reopen_on_hangup(audit: Audit) {
    use tokio::signal::unix::{signal, SignalKind};
    let Ok(mut hup) = signal(SignalKind::hangup()) else {
        eprintln!("sqlgate-mcp: warning: cannot listen for SIGHUP; audit rotation needs a restart");
        return;
    };
    tokio::spawn(async move {
        while hup.recv().await.is_some() {
            audit.reopen();
        }
    });
}

#[cfg(not(unix))]
fn reopen_on_hangup(_audit: Audit) {}

async fn serve(cfg: ServeConfig) -> Result<(), String> {
    let token = match (&cfg.http, &cfg.auth_token_env) {
        // With principals, each has its token (the --auth-token-env one is `default`).
        _ if !cfg.principals.is_empty() => None,
        (Some(_), Some(var)) => Some(
            crate::config::read_token(var, "--auth-token-env").map_err(|e| e.to_string())?,
        ),
        (Some(_), None) if !cfg.allow_unauthenticated => {
            return Err(
                "HTTP needs a bearer token: pass --auth-token-env VAR (the variable holds the token), or --allow-unauthenticated on a loopback address"
                    .into(),
            )
        }
        _ => None,
    };
    let signals = StopSignals::install();
    let shutdown = CancellationToken::new();
    {
        let s = shutdown.clone();
        tokio::spawn(async move {
            let signal = signals.first().await;
            eprintln!("sqlgate-mcp: {signal}: stopping");
            s.cancel();
        });
    }
    let mut engines = tokio::select! {
        e = build_engines(&cfg) => e?,
        _ = shutdown.cancelled() => return Ok(()),
    };
    if cfg.principals.is_empty() {
        for e in engines.iter_mut() {
            e.0 = token.clone();
        }
    }
    let audit = open_audit(&cfg, &engines)?;
    let served = serve_transport(&cfg, engines, audit.clone(), shutdown).await;
    // Every record is on disk before its call returns; this also sends the exporter's last
    // batch to the collector, unless it does not answer in time.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), audit.flush()).await;
    served
}

/// Serves MCP over the configured transport until the client leaves or a signal arrives.
async fn serve_transport(
    cfg: &ServeConfig,
    engines: Vec<(Option<String>, Arc<Engine>)>,
    audit: Audit,
    shutdown: CancellationToken,
) -> Result<(), String> {
    match &cfg.http {
        Some(addr) => {
            let opts = HttpOptions {
                addr: addr.clone(),
                stateless: cfg.stateless,
                token: None,
                allowed_origins: cfg.allowed_origins.clone(),
                max_body_bytes: cfg.max_body_bytes,
            };
            let routes = engines
                .into_iter()
                .map(|(token, engine)| HttpRoute { token, engine })
                .collect();
            serve_http_routes(routes, audit, opts, shutdown, None).await
        }
        None => {
            // stdio serves one engine: the server's, or the --principal one (resolve_serve
            // keeps only that one).
            let Some((_, engine)) = engines.into_iter().next() else {
                return Err("no engine to serve".into());
            };
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
    }
}

/// SIGINT (Ctrl-C) and SIGTERM, listened to from the moment this is built: a signal that
/// arrives while the server starts is not lost (nor does it kill the process half-way).
struct StopSignals {
    #[cfg(unix)]
    unix: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl StopSignals {
    fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let unix = match (
                signal(SignalKind::interrupt()),
                signal(SignalKind::terminate()),
            ) {
                (Ok(int), Ok(term)) => Some((int, term)),
                _ => None,
            };
            StopSignals { unix }
        }
        #[cfg(not(unix))]
        StopSignals {}
    }

    /// Waits for the first signal; returns its name.
    async fn first(self) -> &'static str {
        #[cfg(unix)]
        if let Some((mut int, mut term)) = self.unix {
            return tokio::select! {
                _ = int.recv() => "SIGINT",
                _ = term.recv() => "SIGTERM",
            };
        }
        let _ = tokio::signal::ctrl_c().await;
        "SIGINT"
    }
}
