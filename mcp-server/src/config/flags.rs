//! The command-line flags of the settings (clap): the policy overrides `check` and `serve`
//! share, and every `serve` flag. The settings file is [`super::file`]; [`super::resolve`] merges
//! the two (flags win).

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use sqlgate::Policy;

use super::error::ConfigError;
use super::values::{load_policy_file, parse_dialect, parse_duration};
use crate::codes::Mode;

/// A row cap given on the command line: a number or `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxRows {
    /// Cap at this many rows.
    Rows(u64),
    /// No cap.
    Unlimited,
}

impl MaxRows {
    /// As the policy's `max_rows`.
    pub fn as_option(self) -> Option<u64> {
        match self {
            MaxRows::Rows(n) => Some(n),
            MaxRows::Unlimited => None,
        }
    }
}

/// Parses `N` or `none` for `--max-rows`.
pub fn parse_max_rows(text: &str) -> Result<MaxRows, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(MaxRows::Unlimited);
    }
    t.parse::<u64>()
        .map(MaxRows::Rows)
        .map_err(|_| format!("`{text}` is not a row count; use a number or `none`"))
}

/// Policy overrides shared by `check` and `serve`.
#[derive(Debug, Clone, Default, Args)]
pub struct PolicyArgs {
    /// SQL dialect (postgres, mysql, sqlite, mssql, duckdb, snowflake, bigquery, ...).
    #[arg(long)]
    pub dialect: Option<String>,
    /// Row cap for the outermost query: a number, or `none`.
    #[arg(long, value_parser = parse_max_rows)]
    pub max_rows: Option<MaxRows>,
    /// Allow EXPLAIN (never EXPLAIN ANALYZE) of an allowed query.
    #[arg(long)]
    pub allow_explain: bool,
    /// Policy file (.json or .toml); flags override it.
    #[arg(long)]
    pub policy: Option<PathBuf>,
}

/// Arguments of `serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Serve the embedded sample SQLite database (no database server needed).
    #[arg(long, conflicts_with = "database_url")]
    pub demo: bool,
    /// `postgres://...`, `mysql://...` (MySQL / MariaDB), `sqlite:path/to.db` or
    /// `duckdb:path/to.duckdb` (DuckDB needs a build with `--features duckdb`). Prefer the
    /// environment variable for secrets.
    #[arg(long, env = "SQLGATE_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Settings file (TOML); flags override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Policy settings.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Per-query timeout with a unit, e.g. `10s`, `500ms`, `2m`.
    #[arg(long, value_parser = parse_duration)]
    pub statement_timeout: Option<Duration>,
    /// Write mode: read_only (default), safe (every mutation approved by the user), delete_safe
    /// (deletes approved), full_access (no approval). Write modes need a policy with `writes`.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// How long to wait for the user's approval of a mutation, with a unit; default 5m.
    #[arg(long, value_parser = parse_duration)]
    pub approval_timeout: Option<Duration>,
    /// Result size cap in bytes (JSON of the rows); default 1 MiB.
    #[arg(long)]
    pub max_result_bytes: Option<usize>,
    /// PostgreSQL / MySQL connection pool size.
    #[arg(long)]
    pub pool_size: Option<usize>,
    /// Refuse approved reads whose planner cost is over this (PostgreSQL, MySQL; off by default).
    #[arg(long)]
    pub max_cost: Option<f64>,
    /// Refuse approved reads with a plan step estimated over this many rows (off by default).
    #[arg(long)]
    pub max_estimated_rows: Option<u64>,
    /// Refuse to start when the PostgreSQL role can write.
    #[arg(long)]
    pub require_read_only_role: bool,
    /// Serve streamable HTTP on this address (e.g. `127.0.0.1:8765`) instead of stdio.
    #[arg(long)]
    pub http: Option<String>,
    /// HTTP without sessions (for several instances behind a load balancer).
    #[arg(long)]
    pub stateless: bool,
    /// Name of the environment variable holding the HTTP bearer token.
    #[arg(long)]
    pub auth_token_env: Option<String>,
    /// stdio: serve as this principal of the config file's `[[principals]]` (its policy, vars
    /// and mode). Over HTTP the bearer token selects the principal.
    #[arg(long)]
    pub principal: Option<String>,
    /// Serve HTTP without a token (loopback only).
    #[arg(long)]
    pub allow_unauthenticated: bool,
    /// Browser origins allowed to call the HTTP endpoint (repeatable); others get 403.
    #[arg(long = "allowed-origin")]
    pub allowed_origins: Vec<String>,
    /// HTTP request body cap in bytes (413 above it); default 1 MiB.
    #[arg(long)]
    pub max_body_bytes: Option<usize>,
    /// stdio message cap in bytes: a longer line is answered with a JSON-RPC error and dropped
    /// as it arrives; default 8 MiB.
    #[arg(long)]
    pub max_line_bytes: Option<usize>,
    /// HTTP: how long a new connection has to finish its TLS handshake and send an accepted
    /// credential, and each request its headers, with a unit; default 10s.
    #[arg(long, value_parser = parse_duration)]
    pub header_read_timeout: Option<Duration>,
    /// HTTP: connections at once that have not yet sent an accepted credential; one more
    /// closes the one waiting longest. Default 256.
    #[arg(long)]
    pub max_pending_connections: Option<usize>,
    /// The environment variable holding the secret (32 bytes or more) that seals approvals
    /// asked for by `input_required`: give every instance behind one address the same one.
    #[arg(long)]
    pub approval_key_env: Option<String>,
    /// Serve HTTPS with this PEM certificate chain (reloaded on SIGHUP).
    #[arg(long)]
    pub tls_cert_file: Option<PathBuf>,
    /// The PEM private key of --tls-cert-file.
    #[arg(long)]
    pub tls_key_file: Option<PathBuf>,
    /// Mutual TLS: verify client certificates against these PEM CA certificates.
    #[arg(long)]
    pub tls_client_ca_file: Option<PathBuf>,
    /// Mutual TLS: refuse client certificates these PEM CRLs revoke (reloaded on SIGHUP).
    #[arg(long)]
    pub tls_client_crl_file: Option<PathBuf>,
    /// Mutual TLS: every client presents a certificate (required, the default) or may come
    /// with a bearer token instead (optional).
    #[arg(long, value_enum)]
    pub tls_client_auth: Option<crate::transport::tls::ClientAuth>,
    /// Append the audit log (one JSON line per tool call, fsynced) to this file instead of stderr.
    #[arg(long)]
    pub audit_file: Option<PathBuf>,
    /// What a failed audit write does: strict (the call fails; default) or strict_mutations
    /// (mutations fail; reads continue with a note on stderr).
    #[arg(long, value_enum)]
    pub audit_failure: Option<crate::audit::AuditFailure>,
    /// Audit line format: jsonl (default) or otel (one OTLP/JSON LogsData object per line).
    #[arg(long, value_enum)]
    pub audit_format: Option<crate::audit::AuditFormat>,
    /// Also export every audit record to this OpenTelemetry collector over OTLP/HTTP
    /// (http://host:4318; `/v1/logs` is added), batched, without slowing tool calls.
    #[arg(long)]
    pub otlp_endpoint: Option<String>,
    /// Publish only these tools (comma-separated); the rest are neither listed nor callable.
    #[arg(long, value_delimiter = ',')]
    pub tools: Option<Vec<String>>,
    /// DuckDB's memory limit (`max_memory`), e.g. `1GB`; default 64 result caps per pooled
    /// query, at least 256 MB.
    #[arg(long)]
    pub duckdb_max_memory: Option<String>,
    /// DuckDB's worker threads; default 2.
    #[arg(long)]
    pub duckdb_threads: Option<u64>,
}

/// Applies `--dialect`, `--max-rows` and `--allow-explain` on top of `policy`.
pub fn apply_overrides(mut policy: Policy, args: &PolicyArgs) -> Result<Policy, ConfigError> {
    if let Some(d) = &args.dialect {
        policy.dialect = parse_dialect(d)?;
    }
    if let Some(m) = args.max_rows {
        policy.max_rows = m.as_option();
    }
    if args.allow_explain {
        policy.allow_explain = true;
    }
    Ok(policy)
}

/// The policy for `check`: the file (or the default for the dialect) with flags applied.
pub fn policy_for_check(args: &PolicyArgs) -> Result<Policy, ConfigError> {
    let base = match &args.policy {
        Some(p) => load_policy_file(p)?,
        None => Policy::default(),
    };
    apply_overrides(base, args)
}
