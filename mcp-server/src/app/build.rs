//! Builds the engines `serve` serves: the server's own over the connected backend, and one per
//! principal sharing its pool, each checked (tools, write privileges) before it serves.

use std::sync::Arc;

use sqlgate::{Policy, Vars};

use crate::app::connect::connect;
use crate::app::preflight::principal_policy;
use crate::backend::Backend;
use crate::config::ServeConfig;
use crate::gate::approvals::ApprovalLedger;
use crate::gate::mode::check_mode;
use crate::gate::{Engine, EngineConfig};
use crate::tools::SqlGateServer;
use crate::transport::approver::Webhook;
use crate::transport::identify::Credential;

/// Builds the engine for a resolved configuration (also used by tests).
pub async fn build_engine(cfg: &ServeConfig) -> Result<Engine, String> {
    let (backend, default_policy) = connect(cfg).await?;
    let mut policy = cfg
        .final_policy(default_policy)
        .map_err(|e| e.to_string())?;
    check_mode(cfg.mode, &policy)?;
    if policy.dialect != backend.dialect() {
        tracing::warn!(
            "policy dialect {} does not match the database; using {}",
            policy.dialect.as_str(),
            backend.dialect().as_str()
        );
        policy.dialect = backend.dialect();
    }
    if !cfg.mode.writes() {
        for w in backend.role_warnings() {
            tracing::warn!("{w}. Connect with a read-only role (or pass --require-read-only-role to refuse to start).");
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
        tracing::warn!(
            "{} gives no cost estimate here; --max-cost and --max-estimated-rows do not apply",
            engine.backend().kind()
        );
    }
    #[cfg(feature = "duckdb")]
    if cfg.cost_cap.max_cost.is_some() && matches!(engine.backend(), Backend::Duckdb(_)) {
        tracing::warn!(
            "DuckDB estimates rows, not cost; --max-cost does not apply (--max-estimated-rows does)"
        );
    }
    check_writes(&engine).await?;
    Ok(engine)
}

/// The engines to serve: the server's own (no principals), or one per principal sharing the
/// server engine's backend (its pool), each with its policy, vars and mode.
/// Without principals the credential is `Credential::None`: `serve` gives the server's engine
/// its token (or, with `[oauth]`, every verified token).
pub async fn build_engines(cfg: &ServeConfig) -> Result<Vec<(Credential, Arc<Engine>)>, String> {
    let server = build_engine(cfg).await?;
    let published = Arc::new(cfg.published.clone());
    let mut ledger = approval_ledger(cfg)?;
    if let Some(url) = &cfg.approval_extras.webhook {
        let webhook = Webhook::new(url).map_err(|e| format!("approval.webhook: {e}"))?;
        ledger = ledger.with_external(Arc::new(webhook));
    }
    if let Some(table) = &cfg.approval_extras.used_table {
        ledger = ledger.with_used_table(table);
    }
    let ledger = Arc::new(ledger);
    if cfg.principals.is_empty() {
        let mut server = if cfg.vars.is_empty() {
            server
        } else {
            rebind(&server, cfg, None, cfg.vars.clone(), cfg.mode, None).await?
        };
        server.set_quota(cfg.quota);
        server.set_approvals(ledger);
        server.set_published(published);
        return Ok(vec![(Credential::None, Arc::new(server))]);
    }
    let mut out = Vec::new();
    for p in &cfg.principals {
        let policy = principal_policy(server.policy(), p)?;
        let mut engine = rebind(
            &server,
            cfg,
            Some(p.name.clone()),
            p.vars.clone(),
            p.mode,
            Some(policy),
        )
        .await?;
        engine.set_quota(p.quota);
        engine.set_approvals(ledger.clone());
        engine.set_published(published.clone());
        tracing::info!(
            "principal {}: mode {}{}",
            p.name,
            p.mode.as_str(),
            if engine.guard().has_row_filters() {
                ", row filters"
            } else {
                ""
            }
        );
        out.push((p.credential.clone(), Arc::new(engine)));
    }
    Ok(out)
}

/// The secret sealing `input_required` approvals: from `approval_key_env`, else made now (good
/// on this instance only, which a stateless server behind a balancer is told).
fn approval_ledger(cfg: &ServeConfig) -> Result<ApprovalLedger, String> {
    if let Some(var) = &cfg.approval_key_env {
        let key = std::env::var(var)
            .map_err(|_| format!("approval_key_env: the environment variable {var} is not set"))?;
        return ApprovalLedger::with_key(key.into_bytes())
            .map_err(|e| format!("approval_key_env ({var}): {e}"));
    }
    let asks = cfg.mode.elicits() || cfg.principals.iter().any(|p| p.mode.elicits());
    if cfg.http.is_some() && cfg.stateless && asks {
        tracing::warn!("--stateless with approvals and no approval_key_env: this instance seals approvals with a secret of its own, so a retry that another instance receives is refused; give every instance the same approval_key_env");
    }
    Ok(ApprovalLedger::random())
}

/// An engine over `server`'s backend for a principal (or the server's own vars).
async fn rebind(
    server: &Engine,
    cfg: &ServeConfig,
    principal: Option<String>,
    vars: Vars,
    mode: crate::gate::mode::Mode,
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
    tracing::info!(
        "mode {}: run_mutation may modify {}",
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
        tracing::warn!("{w}; sqlgate lets mutations modify only the tables above, but the operator should grant the role no more than that.");
    }
    Ok(())
}
