//! `server_info`: what the server serves (dialect, mode, caps) and where its audit goes; its
//! output and handler.

use rmcp::model::{CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::audit::Audit;
use crate::gate::Engine;

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

/// Describes the server `engine` and `audit` make (never the database URL).
pub async fn handle(engine: &Engine, audit: &Audit) -> CallToolResult {
    let e = engine;
    let chain = audit.chain_status().await;
    let info = ServerInfoOutput {
        sqlgate_version: env!("CARGO_PKG_VERSION").to_string(),
        dialect: e.backend().dialect().as_str().to_string(),
        database: e.backend().kind().to_string(),
        mode: e.mode().as_str().to_string(),
        row_cap: e.row_cap(),
        principal: e.principal().map(str::to_string),
        statement_timeout_ms: u64::try_from(e.statement_timeout().as_millis()).unwrap_or(u64::MAX),
        audit: AuditInfo {
            sink: if audit.path().is_some() {
                "file"
            } else {
                "stderr"
            }
            .to_string(),
            format: serde_json::to_value(audit.format())
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            chain: chain.map(|c| ChainInfo {
                next_seq: c.next_seq,
                last_hash: c.prev,
            }),
        },
    };
    let v = serde_json::to_value(&info).unwrap_or_default();
    let text = serde_json::to_string_pretty(&v).unwrap_or_default();
    let mut r = CallToolResult::structured(v);
    r.content = vec![ContentBlock::text(text)];
    r
}
