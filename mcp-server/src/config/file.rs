//! The settings file (`--config sqlgate.toml`, serde): every `serve` setting, an inline
//! `[policy]`, its `[[principals]]`, and the published `[[queries]]` and `[[prompts]]`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use sqlgate::{Policy, PolicyLayer, VarValue, Vars};

use super::oauth::OAuthFile;
use super::values::deserialize_duration;
use crate::codes::Mode;
use crate::gate::published::{PromptDef, PublishedQuery};
use crate::gate::quota::QuotaLimits;
use crate::transport::auth::claims::ClaimType;
use crate::transport::tls::peer::CertRule;

/// The settings file (`--config sqlgate.toml`): every `serve` setting, plus an inline `[policy]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// `postgres://...`, `mysql://...`, `sqlite:path` or `duckdb:path`.
    pub database_url: Option<String>,
    /// Serve the embedded demo database.
    pub demo: Option<bool>,
    /// Path of a policy file (relative to the config file).
    pub policy_file: Option<PathBuf>,
    /// Inline policy.
    pub policy: Option<Policy>,
    /// Per-query timeout with a unit, e.g. `"10s"`.
    #[serde(default, deserialize_with = "deserialize_duration")]
    pub statement_timeout: Option<Duration>,
    /// Row cap (`max_rows` of the policy); use the policy's `max_rows` for `null`.
    pub max_rows: Option<u64>,
    /// Write mode (`read_only` when absent).
    pub mode: Option<Mode>,
    /// Wait for a mutation's approval, with a unit, e.g. `"5m"`.
    #[serde(default, deserialize_with = "deserialize_duration")]
    pub approval_timeout: Option<Duration>,
    /// The environment variable holding the secret that seals `input_required` approvals
    /// (the same on every instance behind one address).
    pub approval_key_env: Option<String>,
    /// An external approver: `approval = { webhook = "https://..." }`.
    pub approval: Option<ApprovalFile>,
    /// A table of the served database recording each approval committed (`nonce`, `used_at`),
    /// so that instances sharing the database commit each at most once.
    pub approval_used_table: Option<String>,
    /// Result size cap in bytes.
    pub max_result_bytes: Option<usize>,
    /// Pool size.
    pub pool_size: Option<usize>,
    /// Cost cap: plan cost.
    pub max_cost: Option<f64>,
    /// Cost cap: rows of the largest plan step.
    pub max_estimated_rows: Option<u64>,
    /// Refuse to start with a writable role.
    pub require_read_only_role: Option<bool>,
    /// HTTP bind address.
    pub http: Option<String>,
    /// HTTP without sessions.
    pub stateless: Option<bool>,
    /// Environment variable holding the bearer token.
    pub auth_token_env: Option<String>,
    /// Serve HTTP without a token.
    pub allow_unauthenticated: Option<bool>,
    /// Allowed browser origins.
    pub allowed_origins: Option<Vec<String>>,
    /// HTTP body cap.
    pub max_body_bytes: Option<usize>,
    /// stdio message (line) cap.
    pub max_line_bytes: Option<usize>,
    /// HTTP: time from accept to an accepted credential, and for each request's headers.
    #[serde(default, deserialize_with = "deserialize_duration")]
    pub header_read_timeout: Option<Duration>,
    /// HTTP: connections at once not yet authenticated.
    pub max_pending_connections: Option<usize>,
    /// HTTPS: the server's PEM certificate chain (relative to the config file).
    pub tls_cert_file: Option<PathBuf>,
    /// HTTPS: the certificate's PEM private key.
    pub tls_key_file: Option<PathBuf>,
    /// Mutual TLS: PEM CA certificates that sign client certificates.
    pub tls_client_ca_file: Option<PathBuf>,
    /// Mutual TLS: PEM revocation lists of the client CA.
    pub tls_client_crl_file: Option<PathBuf>,
    /// Mutual TLS: `required` (default) or `optional` client certificates.
    pub tls_client_auth: Option<crate::transport::tls::ClientAuth>,
    /// Audit file.
    pub audit_file: Option<PathBuf>,
    /// What a failed audit write does.
    pub audit_failure: Option<crate::audit::AuditFailure>,
    /// Audit line format.
    pub audit_format: Option<crate::audit::AuditFormat>,
    /// OTLP/HTTP collector receiving the audit records.
    pub otlp_endpoint: Option<String>,
    /// Tools to publish.
    pub enabled_tools: Option<Vec<String>>,
    /// DuckDB's `max_memory`, e.g. `"1GB"`.
    pub duckdb_max_memory: Option<String>,
    /// DuckDB's worker threads.
    pub duckdb_threads: Option<u64>,
    /// Row filter variables of the server's own policy (served without principals, or to the
    /// `--auth-token-env` token).
    #[serde(default)]
    pub vars: Option<Vars>,
    /// JWT access tokens from an OAuth 2.1 issuer.
    pub oauth: Option<OAuthFile>,
    /// The server's own quota (served without principals, or to the `--auth-token-env` token).
    pub quota: Option<QuotaLimits>,
    /// Principals: API keys or token claims, each with its own policy layer, variables and
    /// mode.
    #[serde(default)]
    pub principals: Vec<PrincipalFile>,
    /// Parameterized queries, each published as a tool of its own.
    #[serde(default)]
    pub queries: Vec<PublishedQuery>,
    /// Prompts offered to the client.
    #[serde(default)]
    pub prompts: Vec<PromptDef>,
}

/// `approval = { webhook = "https://approver.example/sqlgate" }`: approvals are asked of an
/// external approver by webhook instead of the MCP client's user.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalFile {
    /// The approver's endpoint (https; http only on a loopback host).
    pub webhook: String,
}

/// One `[[principals]]` entry of the settings file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrincipalFile {
    /// Its name, in the audit log and for `--principal`.
    pub name: String,
    /// The environment variable holding its bearer token (HTTP); or give `match` or
    /// `client_cert`.
    pub token_env: Option<String>,
    /// The names a client certificate (mutual TLS) must have to be served as this principal:
    /// `{ cn = "agent-a" }`, `{ san = "spiffe://acme/agent-a" }`, `{ subject = "CN=a,O=Acme" }`.
    pub client_cert: Option<CertRule>,
    /// The claims a verified JWT must have to be served as this principal (`[oauth]`): claim →
    /// value (or a value an array claim holds). `{}` serves every verified token.
    #[serde(rename = "match")]
    pub claims_match: Option<BTreeMap<String, serde_json::Value>>,
    /// Its row filters' variables: a value, or `{ claim = "org_id", type = "integer" }` to take
    /// it from the caller's verified token.
    #[serde(default)]
    pub vars: BTreeMap<String, VarSetting>,
    /// Its policy, laid on top of the server's (it can only narrow it), inline.
    pub policy: Option<PolicyLayer>,
    /// Its policy from a file (JSON or TOML, relative to the config file).
    pub policy_file: Option<PathBuf>,
    /// Its mode; the server's when absent, never above it.
    pub mode: Option<Mode>,
    /// Its quota: calls per minute, rows per hour, mutations per day.
    pub quota: Option<QuotaLimits>,
}

/// A principal's row-filter variable: a value, or a claim of the caller's token.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    untagged,
    expecting = "must be a value (null, a boolean, a number or a string) or { claim = \"...\", type = \"...\" }"
)]
pub enum VarSetting {
    /// From a claim of the verified token.
    Claim(ClaimSetting),
    /// A value.
    Value(VarValue),
}

/// `{ claim = "org_id", type = "integer" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSetting {
    /// The claim (a top-level name, else a dotted path).
    pub claim: String,
    /// The type it must have.
    #[serde(rename = "type")]
    pub ty: ClaimType,
}

/// The literal variables of `vars` (those bound from claims left out).
pub fn literal_vars(vars: &BTreeMap<String, VarSetting>) -> Vars {
    vars.iter()
        .filter_map(|(name, v)| match v {
            VarSetting::Value(value) => Some((name.clone(), value.clone())),
            VarSetting::Claim(_) => None,
        })
        .collect()
}
