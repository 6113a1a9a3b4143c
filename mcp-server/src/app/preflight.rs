//! Checks, before anything connects, every policy the server would serve: a configuration error
//! is a usage error (exit 2) naming the principal and the field.

use sqlgate::{Guard, Policy, VarValue, Vars};

use crate::app::demo::demo_policy;
use crate::config::{Principal, ServeConfig, Source};
use crate::gate::mode::check_mode;
use crate::transport::identify::Credential;

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
pub fn principal_policy(server: &Policy, p: &Principal) -> Result<Policy, String> {
    let who = format!("principal `{}`", p.name);
    let policy = match &p.layer {
        Some(layer) => server
            .narrowed_by(layer)
            .map_err(|e| format!("{who}: policy.{}: {}", e.field, e.message))?,
        None => server.clone(),
    };
    Guard::new(policy.clone()).map_err(|e| format!("{who}: policy.{}: {}", e.field, e.message))?;
    // A variable bound from a token's claims is there in every call (or the call is refused).
    let mut vars = p.vars.clone();
    if let Credential::Claims(rule) = &p.credential {
        for cv in &rule.vars {
            vars.set(cv.var.clone(), VarValue::Null);
        }
    }
    check_vars(&policy, &vars, &who)?;
    check_mode(p.mode, &policy).map_err(|e| format!("{who}: mode: {e}"))?;
    Ok(policy)
}

/// Checks, before connecting, every policy the server would serve.
pub fn preflight(cfg: &ServeConfig) -> Result<(), String> {
    // The certificate, key and CA files are read now, so that a wrong one is a usage error.
    if let Some(tls) = &cfg.tls {
        crate::transport::tls::TlsConfig::load(tls.clone())?;
    }
    let server = server_policy_offline(cfg)?;
    if cfg.principals.is_empty() {
        let who = match &cfg.policy_path {
            Some(path) => format!("the server's policy ({})", path.display()),
            None => "the server's policy".to_string(),
        };
        return check_vars(&server, &cfg.vars, &who);
    }
    for p in &cfg.principals {
        principal_policy(&server, p)?;
    }
    Ok(())
}
