//! `server_info`'s output: what the server serves (dialect, mode, caps) and where its audit goes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Output of `server_info`: what the server is, never where its database is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ServerInfoOutput {
    /// sqlgate's version.
    pub sqlgate_version: String,
    /// The SQL dialect the guard parses.
    pub dialect: String,
    /// The kind of database (`sqlite`, `postgres` or `duckdb`), never its URL.
    pub database: String,
    /// `read_only`, `safe`, `delete_safe` or `full_access`.
    pub mode: String,
    /// `run_query`'s row cap; null for none.
    pub row_cap: Option<u64>,
    /// The statement timeout, in milliseconds.
    pub statement_timeout_ms: u64,
    /// The principal this session is served as; absent when the server has no principals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// The audit log.
    pub audit: AuditInfo,
}

/// Where the audit log goes and where its chain stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AuditInfo {
    /// `file` or `stderr`.
    pub sink: String,
    /// `jsonl` or `otel`.
    pub format: String,
    /// The next `seq` and the last line's hash; null when the writer has stopped.
    pub chain: Option<ChainInfo>,
}

/// The audit chain's position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChainInfo {
    /// `seq` of the next record.
    pub next_seq: u64,
    /// SHA-256 (hex) of the last line written; null before the first.
    pub last_hash: Option<String>,
}
