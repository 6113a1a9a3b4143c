//! The merge of the settings file with the flags (flags win) into [`ServeConfig`], with the
//! defaults of the settings neither gives.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sqlgate::{Policy, Vars};

use super::error::ConfigError;
use super::file::FileConfig;
use super::flags::{apply_overrides, PolicyArgs, ServeArgs};
use super::oauth::resolve_oauth;
use super::principals::{resolve_principals, Principal};
use super::published::resolve_published;
use super::tls::{check_cert_principals, resolve_tls};
use super::values::load_policy_file;
use crate::codes::Mode;
use crate::gate::published::Published;
use crate::gate::quota::QuotaLimits;
use crate::gate::{DEFAULT_APPROVAL_TIMEOUT, DEFAULT_MAX_RESULT_BYTES, DEFAULT_STATEMENT_TIMEOUT};
use crate::transport::auth::jwt::OAuthSettings;
use crate::transport::connections::ConnectionLimits;
use crate::transport::identify::Credential;
use crate::transport::tls::TlsSettings;

/// Default HTTP body cap: 1 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
/// Default PostgreSQL pool size.
pub const DEFAULT_POOL_SIZE: usize = 8;
pub use crate::backend::options::DEFAULT_DUCKDB_THREADS;

pub use crate::backend::connect::Source;

/// Fully resolved `serve` settings.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The database.
    pub source: Source,
    /// The policy from file/flags; `None` means the backend's default (dialect of the backend).
    pub policy: Option<Policy>,
    /// The file `policy` was read from (`--policy`, or the config's `policy_file`), for messages.
    pub policy_path: Option<PathBuf>,
    /// Flags that override the policy (applied after the backend picks its default policy).
    pub policy_args: PolicyArgs,
    /// Row cap from the settings file.
    pub file_max_rows: Option<u64>,
    /// Per-query timeout.
    pub statement_timeout: Duration,
    /// Write mode.
    pub mode: Mode,
    /// Wait for a mutation's approval.
    pub approval_timeout: Duration,
    /// The environment variable holding the secret that seals `input_required` approvals.
    pub approval_key_env: Option<String>,
    /// The external approver and the shared record of approvals used.
    pub approval_extras: ApprovalExtras,
    /// Result size cap.
    pub max_result_bytes: usize,
    /// Pool size.
    pub pool_size: usize,
    /// The cost cap (off unless set).
    pub cost_cap: crate::backend::cost::CostCap,
    /// Refuse a writable role.
    pub require_read_only_role: bool,
    /// HTTP bind address, if HTTP.
    pub http: Option<String>,
    /// HTTP without sessions.
    pub stateless: bool,
    /// Environment variable holding the token.
    pub auth_token_env: Option<String>,
    /// Serve HTTP without a token.
    pub allow_unauthenticated: bool,
    /// Allowed browser origins.
    pub allowed_origins: Vec<String>,
    /// HTTP body cap.
    pub max_body_bytes: usize,
    /// stdio message (line) cap.
    pub max_line_bytes: usize,
    /// HTTP: the bounds on connections not yet authenticated.
    pub connections: ConnectionLimits,
    /// Audit file (stderr when `None`).
    pub audit_file: Option<PathBuf>,
    /// What a failed audit write does.
    pub audit_failure: crate::audit::AuditFailure,
    /// Audit line format.
    pub audit_format: crate::audit::AuditFormat,
    /// OTLP/HTTP collector receiving the audit records, as a logs URL (checked).
    pub otlp_endpoint: Option<String>,
    /// Tools to publish (`None`: all).
    pub enabled_tools: Option<Vec<String>>,
    /// DuckDB's `max_memory` (`None`: DuckDB's default).
    pub duckdb_max_memory: Option<String>,
    /// DuckDB's worker threads.
    pub duckdb_threads: u64,
    /// Row filter variables of the server's own policy.
    pub vars: Vars,
    /// The principals to serve: over HTTP each token selects one; over stdio only the one named
    /// by `--principal`. Empty: the server's own policy, as before principals existed.
    pub principals: Vec<Principal>,
    /// JWT access tokens (`[oauth]`), HTTP only.
    pub oauth: Option<OAuthSettings>,
    /// HTTPS and mutual TLS (`None`: plain HTTP).
    pub tls: Option<TlsSettings>,
    /// The server's own quota.
    pub quota: QuotaLimits,
    /// The published queries and prompts.
    pub published: Published,
}

/// Parses a database URL into a [`Source`], never echoing the URL in errors.
pub fn parse_source(url: &str) -> Result<Source, ConfigError> {
    Source::parse(url).map_err(|e| ConfigError(e.to_string()))
}

/// Merges the settings file (if any) with the flags; flags win.
pub fn resolve_serve(args: &ServeArgs) -> Result<ServeConfig, ConfigError> {
    let (file, base_dir) = read_file_config(args.config.as_deref())?;
    let source = resolve_source(args, &file)?;
    let policy_path = policy_path(args, &file, &base_dir);
    let policy = resolve_policy(args, &file, &base_dir)?;
    let statement_timeout = args
        .statement_timeout
        .or(file.statement_timeout)
        .unwrap_or(DEFAULT_STATEMENT_TIMEOUT);
    let mode = args.mode.or(file.mode).unwrap_or_default();
    let http = args.http.clone().or(file.http.clone());
    let auth_token_env = args.auth_token_env.clone().or(file.auth_token_env.clone());
    let allow_unauthenticated =
        args.allow_unauthenticated || file.allow_unauthenticated.unwrap_or(false);
    let (principals, oauth) = resolve_callers(
        args,
        &file,
        &base_dir,
        mode,
        http.is_some(),
        auth_token_env.as_deref(),
        allow_unauthenticated,
    )?;
    let tls = resolve_tls(args, &file, &base_dir, http.is_some())?;
    check_cert_principals(tls.as_ref(), &principals)?;
    let (approval_timeout, approval_key_env) = resolve_approval(args, &file);
    let cost_cap = resolve_cost_cap(args, &file)?;
    let otlp_endpoint = resolve_otlp_endpoint(args, &file)?;
    let (max_body_bytes, max_line_bytes) = message_caps(args, &file);
    let connections = resolve_connections(args, &file)?;
    Ok(ServeConfig {
        published: resolve_published(&file)?,
        vars: file.vars.clone().unwrap_or_default(),
        principals,
        oauth,
        tls,
        quota: file.quota.unwrap_or_default(),
        source,
        policy,
        policy_path,
        policy_args: args.policy.clone(),
        file_max_rows: file.max_rows,
        statement_timeout,
        mode,
        approval_key_env,
        approval_extras: resolve_extras(&file)?,
        approval_timeout,
        max_result_bytes: args
            .max_result_bytes
            .or(file.max_result_bytes)
            .unwrap_or(DEFAULT_MAX_RESULT_BYTES),
        cost_cap,
        pool_size: resolve_pool_size(args, &file),
        require_read_only_role: args.require_read_only_role
            || file.require_read_only_role.unwrap_or(false),
        http,
        stateless: args.stateless || file.stateless.unwrap_or(false),
        auth_token_env,
        allow_unauthenticated,
        allowed_origins: Some(args.allowed_origins.clone())
            .filter(|o| !o.is_empty())
            .or(file.allowed_origins)
            .unwrap_or_default(),
        max_body_bytes,
        max_line_bytes,
        connections,
        audit_file: args.audit_file.clone().or(file.audit_file),
        audit_failure: args
            .audit_failure
            .or(file.audit_failure)
            .unwrap_or_default(),
        audit_format: args.audit_format.or(file.audit_format).unwrap_or_default(),
        otlp_endpoint,
        enabled_tools: args.tools.clone().or(file.enabled_tools),
        duckdb_max_memory: args.duckdb_max_memory.clone().or(file.duckdb_max_memory),
        duckdb_threads: args
            .duckdb_threads
            .or(file.duckdb_threads)
            .unwrap_or(DEFAULT_DUCKDB_THREADS)
            .max(1),
    })
}

/// Connections per pool: the flag, the file, else the default; at least one.
/// The caps on one message: an HTTP body, a stdio line (flag, else file, else default).
fn message_caps(args: &ServeArgs, file: &FileConfig) -> (usize, usize) {
    let body = args.max_body_bytes.or(file.max_body_bytes);
    let line = args.max_line_bytes.or(file.max_line_bytes);
    (
        body.unwrap_or(DEFAULT_MAX_BODY_BYTES),
        line.unwrap_or(crate::transport::frame::DEFAULT_MAX_FRAME_BYTES),
    )
}

/// The bounds on HTTP connections not yet authenticated (flag, else file, else default).
fn resolve_connections(
    args: &ServeArgs,
    file: &FileConfig,
) -> Result<ConnectionLimits, ConfigError> {
    let defaults = ConnectionLimits::default();
    let max_pending = args
        .max_pending_connections
        .or(file.max_pending_connections)
        .unwrap_or(defaults.max_pending);
    if max_pending == 0 {
        return Err(ConfigError(
            "max_pending_connections must be at least 1".into(),
        ));
    }
    Ok(ConnectionLimits {
        header_read_timeout: args
            .header_read_timeout
            .or(file.header_read_timeout)
            .unwrap_or(defaults.header_read_timeout),
        max_pending,
    })
}

fn resolve_pool_size(args: &ServeArgs, file: &FileConfig) -> usize {
    args.pool_size
        .or(file.pool_size)
        .unwrap_or(DEFAULT_POOL_SIZE)
        .max(1)
}

/// Who may call: the principals and `[oauth]`. Principals chosen by claims need `[oauth]`
/// (over HTTP); `[oauth]` and `--allow-unauthenticated` exclude each other.
fn resolve_callers(
    args: &ServeArgs,
    file: &FileConfig,
    base_dir: &Path,
    mode: Mode,
    http: bool,
    auth_token_env: Option<&str>,
    allow_unauthenticated: bool,
) -> Result<(Vec<Principal>, Option<OAuthSettings>), ConfigError> {
    let principals = resolve_principals(
        &file.principals,
        base_dir,
        mode,
        http,
        args.principal.as_deref(),
        auth_token_env,
        allow_unauthenticated,
        file.vars.clone().unwrap_or_default(),
        file.quota.unwrap_or_default(),
    )?;
    let oauth = resolve_oauth(file.oauth.as_ref(), base_dir)?;
    if http && oauth.is_none() {
        if let Some(p) = principals
            .iter()
            .find(|p| matches!(p.credential, Credential::Claims(_)))
        {
            return Err(ConfigError(format!(
                "principal `{}`: `match` selects it by the claims of an access token; add an [oauth] section (issuer, resource)",
                p.name
            )));
        }
    }
    if oauth.is_some() && allow_unauthenticated {
        return Err(ConfigError(
            "--allow-unauthenticated cannot serve [oauth]: tokens are verified".into(),
        ));
    }
    Ok((principals, oauth))
}

/// The settings file (empty without `--config`) and the folder its relative paths start from.
fn read_file_config(path: Option<&Path>) -> Result<(FileConfig, PathBuf), ConfigError> {
    match path {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| ConfigError(format!("cannot read config {}: {e}", p.display())))?;
            let fc: FileConfig =
                toml::from_str(&text).map_err(|e| ConfigError(format!("{}: {e}", p.display())))?;
            Ok((fc, p.parent().map(Path::to_path_buf).unwrap_or_default()))
        }
        None => Ok((FileConfig::default(), PathBuf::new())),
    }
}

/// The database: `--demo`, then `--database-url`, then the file's URL, then the file's `demo`.
fn resolve_source(args: &ServeArgs, file: &FileConfig) -> Result<Source, ConfigError> {
    if args.demo {
        Ok(Source::Demo)
    } else if let Some(url) = &args.database_url {
        parse_source(url)
    } else if let Some(url) = &file.database_url {
        parse_source(url)
    } else if file.demo == Some(true) {
        Ok(Source::Demo)
    } else {
        Err(ConfigError(
            "no database: pass --demo, --database-url, or set SQLGATE_DATABASE_URL".into(),
        ))
    }
}

/// The policy: `--policy`, then the file's `policy_file` (relative to the file), then its inline
/// `policy`; `None` leaves the backend's default.
fn resolve_policy(
    args: &ServeArgs,
    file: &FileConfig,
    base_dir: &Path,
) -> Result<Option<Policy>, ConfigError> {
    if let Some(p) = &args.policy.policy {
        Ok(Some(load_policy_file(p)?))
    } else if let Some(p) = &file.policy_file {
        Ok(Some(load_policy_file(&base_dir.join(p))?))
    } else {
        Ok(file.policy.clone())
    }
}

/// The file the policy comes from, in the order of [`resolve_policy`].
fn policy_path(args: &ServeArgs, file: &FileConfig, base_dir: &Path) -> Option<PathBuf> {
    args.policy
        .policy
        .clone()
        .or_else(|| file.policy_file.as_ref().map(|p| base_dir.join(p)))
}

/// How long `run_mutation` waits for an approval, and the variable holding its sealing key.
fn resolve_approval(args: &ServeArgs, file: &FileConfig) -> (Duration, Option<String>) {
    let timeout = args
        .approval_timeout
        .or(file.approval_timeout)
        .unwrap_or(DEFAULT_APPROVAL_TIMEOUT);
    let key_env = args
        .approval_key_env
        .clone()
        .or(file.approval_key_env.clone());
    (timeout, key_env)
}

/// The cost cap; a `max_cost` that is not a positive number is refused.
fn resolve_cost_cap(
    args: &ServeArgs,
    file: &FileConfig,
) -> Result<crate::backend::cost::CostCap, ConfigError> {
    let max_cost = match args.max_cost.or(file.max_cost) {
        Some(c) if !(c.is_finite() && c > 0.0) => {
            return Err(ConfigError(format!(
                "max_cost must be a positive number, not {c}"
            )))
        }
        other => other,
    };
    Ok(crate::backend::cost::CostCap {
        max_cost,
        max_estimated_rows: args.max_estimated_rows.or(file.max_estimated_rows),
    })
}

/// The OTLP collector as a checked logs URL, if one is set.
/// Approval settings beyond the user's answer.
#[derive(Debug, Clone, Default)]
pub struct ApprovalExtras {
    /// The external approver's webhook (`approval = { webhook = ... }`), checked.
    pub webhook: Option<String>,
    /// The table recording the approvals committed, shared by every instance (a name checked
    /// to be a plain, optionally schema-qualified, identifier).
    pub used_table: Option<String>,
}

fn resolve_extras(file: &FileConfig) -> Result<ApprovalExtras, ConfigError> {
    Ok(ApprovalExtras {
        webhook: resolve_webhook(file)?,
        used_table: resolve_used_table(file)?,
    })
}

/// The external approver's webhook: https, or http on a loopback host (tests, a local relay).
fn resolve_webhook(file: &FileConfig) -> Result<Option<String>, ConfigError> {
    match &file.approval {
        Some(a) => crate::transport::approver::check_webhook_url(&a.webhook)
            .map(|()| Some(a.webhook.clone()))
            .map_err(|e| ConfigError(format!("approval.webhook: {e}"))),
        None => Ok(None),
    }
}

/// The used-approvals table: letters, digits, `_`, and one `.` between a schema and a table
/// (it is written into the server's own INSERT).
fn resolve_used_table(file: &FileConfig) -> Result<Option<String>, ConfigError> {
    let Some(t) = &file.approval_used_table else {
        return Ok(None);
    };
    let part = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if t.split('.').count() <= 2 && t.split('.').all(part) {
        Ok(Some(t.clone()))
    } else {
        Err(ConfigError(format!(
            "approval_used_table: `{t}` is not a table name (letters, digits, _, and schema.table)"
        )))
    }
}

fn resolve_otlp_endpoint(
    args: &ServeArgs,
    file: &FileConfig,
) -> Result<Option<String>, ConfigError> {
    match args.otlp_endpoint.clone().or(file.otlp_endpoint.clone()) {
        Some(e) => Ok(Some(
            crate::audit::export::logs_url(&e).map_err(ConfigError)?,
        )),
        None => Ok(None),
    }
}

impl ServeConfig {
    /// The final policy: the configured one (or `default` for the backend) with flags applied.
    pub fn final_policy(&self, default: Policy) -> Result<Policy, ConfigError> {
        let mut policy = self.policy.clone().unwrap_or(default);
        if let Some(m) = self.file_max_rows {
            policy.max_rows = Some(m);
        }
        let args = PolicyArgs {
            policy: None,
            ..self.policy_args.clone()
        };
        apply_overrides(policy, &args)
    }
}
