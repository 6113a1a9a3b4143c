//! The audit log: one JSON line per tool call (never row values), hash-chained (see [`chain`]),
//! to stderr or to a file through one group-committing writer ([`writer`]); checked by
//! `sqlgate-mcp audit verify` ([`verify`]). Each record is also one `tracing` event ([`event`]),
//! which is a log, not the audit.

pub mod chain;
pub mod event;
pub mod export;
pub mod line;
pub mod otel;
pub mod resume;
pub mod verify;
pub mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use sqlgate::QueryClass;

use tokio::sync::{mpsc, oneshot};

use crate::codes::{AuthMethod, BuiltinTool, ToolCode, ToolKind};
use chain::Header;
pub use writer::SyncPolicy;
use writer::{Msg, Writer};

/// What became of a tool call.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Decision {
    /// The call succeeded (for `validate_query`: the query was allowed; for `run_mutation`:
    /// committed without asking, as the mode says).
    Allow,
    /// The guard (or the preview's bound) refused the request.
    Refuse,
    /// The database (or reading the catalog) failed.
    Error,
    /// `run_mutation`: the user approved; committed (or stopped at a preview mismatch).
    NeedsApprovalAccepted,
    /// `run_mutation`: the user declined; nothing committed.
    NeedsApprovalDeclined,
    /// `run_mutation`: the user cancelled or did not answer in time; nothing committed.
    NeedsApprovalCancelled,
    /// `run_mutation`: the client cannot ask the user; nothing committed.
    NeedsApprovalUnavailable,
    /// `run_mutation`: previewed, and the user asked by `input_required`; nothing committed
    /// (the retry, with the answer, is its own record).
    NeedsApprovalRequested,
}

impl Decision {
    /// The stable snake_case name (the serde name).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// One audit record.
#[derive(Debug, Clone, Serialize)]
pub struct AuditRecord {
    /// RFC 3339 time.
    pub time: String,
    /// Client name from initialize (or request metadata).
    pub client: Option<String>,
    /// Client version.
    pub client_version: Option<String>,
    /// The principal the call was served as (its name, never its token); absent when the
    /// server has no principals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// How the caller authenticated (HTTP): `static` or `jwt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthMethod>,
    /// The access token's issuer (`iss`), never the token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_issuer: Option<String>,
    /// The access token's subject (`sub`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_subject: Option<String>,
    /// The OAuth client the token was issued to (`client_id` or `azp`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_client_id: Option<String>,
    /// Tool name.
    pub tool: String,
    /// What became of the call.
    pub decision: Decision,
    /// Error code, when not allowed.
    pub code: Option<ToolCode>,
    /// Statement class, when the guard ran.
    pub query_class: Option<QueryClass>,
    /// SQL as submitted; for a payload refused as `too_large`, its first
    /// [`TOO_LARGE_PREFIX_BYTES`] bytes only (the whole text is in `sql_sha256`).
    pub sql: Option<String>,
    /// SHA-256 (hex) and length in bytes of a `too_large` payload, whose text is not kept whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sql_sha256: Option<String>,
    /// Length in bytes of a `too_large` payload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sql_bytes: Option<usize>,
    /// SQL executed.
    pub executed_sql: Option<String>,
    /// Table named in `describe_table`.
    pub table: Option<String>,
    /// Rows returned.
    pub row_count: Option<usize>,
    /// `run_mutation`: rows the rolled-back preview touched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview_rows: Option<u64>,
    /// `run_mutation`: rows the committed statement touched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed_rows: Option<u64>,
    /// Duration in milliseconds.
    pub duration_ms: f64,
    /// The JSON-RPC request id of the call (`gen_ai.tool.call.id`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The MCP session (streamable HTTP), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// A W3C `traceparent` the client sent in the call's `_meta`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
    /// The HTTP method of a request refused for the session it named (tool `mcp_session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_method: Option<String>,
}

/// How much of a `too_large` payload an audit record keeps.
pub const TOO_LARGE_PREFIX_BYTES: usize = 256;

impl AuditRecord {
    /// A payload refused for its size is kept as a prefix, its SHA-256 and its length: enough to
    /// recognise it, without letting one call write megabytes into the log.
    pub fn shorten_too_large_sql(&mut self) {
        if self.code != Some(ToolCode::Guard(sqlgate::ErrorCode::TooLarge)) {
            return;
        }
        let Some(sql) = self.sql.take() else { return };
        let mut end = TOO_LARGE_PREFIX_BYTES.min(sql.len());
        while !sql.is_char_boundary(end) {
            end -= 1;
        }
        self.sql_sha256 = Some(chain::sha256_hex(sql.as_bytes()));
        self.sql_bytes = Some(sql.len());
        self.sql = Some(sql[..end].to_string());
    }

    /// A record of a call to `tool`; [`Audit::record`] sets the time, the caller the rest.
    pub fn new(tool: &str, decision: Decision) -> Self {
        AuditRecord {
            time: String::new(),
            client: None,
            client_version: None,
            principal: None,
            auth: None,
            auth_issuer: None,
            auth_subject: None,
            auth_client_id: None,
            tool: tool.to_string(),
            decision,
            code: None,
            query_class: None,
            sql: None,
            sql_sha256: None,
            sql_bytes: None,
            executed_sql: None,
            table: None,
            row_count: None,
            preview_rows: None,
            committed_rows: None,
            duration_ms: 0.0,
            call_id: None,
            session_id: None,
            traceparent: None,
            http_method: None,
        }
    }
}

/// How each line is written.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum AuditFormat {
    /// One JSON object per line (the record's fields with `seq` and `prev`).
    #[default]
    Jsonl,
    /// One OTLP/JSON `LogsData` object per line, for the OpenTelemetry Collector.
    Otel,
}

/// What a failed audit write does to the call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum AuditFailure {
    /// Every call fails when its record cannot be stored.
    #[default]
    Strict,
    /// Mutations fail; reads continue with a note on stderr.
    StrictMutations,
}

/// What the header of each file part says about the server.
#[derive(Debug, Clone)]
pub struct ServerFacts {
    /// Write mode.
    pub mode: String,
    /// SQL dialect.
    pub dialect: String,
    /// The effective policy's JSON.
    pub policy_json: String,
}

impl Default for ServerFacts {
    fn default() -> Self {
        ServerFacts {
            mode: "read_only".into(),
            dialect: "unknown".into(),
            policy_json: "null".into(),
        }
    }
}

/// How to open the audit log.
#[derive(Debug, Clone, Default)]
pub struct AuditOptions {
    /// The file (stderr when `None`).
    pub path: Option<PathBuf>,
    /// What a failed write does.
    pub failure: AuditFailure,
    /// Group commit (default) or one sync per record.
    pub per_record_sync: bool,
    /// Line format.
    pub format: AuditFormat,
    /// For the header.
    pub facts: ServerFacts,
    /// An OTLP/HTTP collector that also receives every record (`--otlp-endpoint`).
    pub otlp_endpoint: Option<String>,
}

/// Where audit records go: a handle on the one writer thread.
#[derive(Clone)]
pub struct Audit {
    tx: mpsc::UnboundedSender<Msg>,
    failure: AuditFailure,
    format: AuditFormat,
    path: Option<Arc<PathBuf>>,
}

fn header_of(facts: &ServerFacts) -> Header {
    Header {
        server: format!("sqlgate-mcp {}", env!("CARGO_PKG_VERSION")),
        mode: facts.mode.clone(),
        dialect: facts.dialect.clone(),
        policy_sha256: chain::sha256_hex(facts.policy_json.as_bytes()),
        start: String::new(),
        reason: String::new(),
        r#break: None,
    }
}

impl Audit {
    /// Records to stderr.
    pub fn stderr() -> Self {
        Self::open(AuditOptions::default()).unwrap_or_else(|_| Self::closed())
    }

    /// Records appended to `path` (created if missing), group-committed.
    pub fn file(path: &Path) -> std::io::Result<Self> {
        Self::open(AuditOptions {
            path: Some(path.to_path_buf()),
            ..AuditOptions::default()
        })
    }

    /// Opens the log, writes its header, and starts the writer thread.
    pub fn open(opts: AuditOptions) -> std::io::Result<Self> {
        let header = header_of(&opts.facts);
        let sync = if opts.per_record_sync {
            SyncPolicy::PerRecord
        } else {
            SyncPolicy::Group
        };
        // Built before the file's header is written, so that the header is exported too.
        let exporter = match &opts.otlp_endpoint {
            Some(endpoint) => Some(export::Exporter::new(endpoint).map_err(std::io::Error::other)?),
            None => None,
        };
        let writer = match &opts.path {
            Some(p) => Writer::file(p.clone(), header, sync, opts.format, exporter)?,
            None => Writer::stderr(header, sync, opts.format, exporter)?,
        };
        let (tx, rx) = mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("sqlgate-audit".into())
            .spawn(move || writer.run(rx))?;
        Ok(Audit {
            tx,
            failure: opts.failure,
            format: opts.format,
            path: opts.path.map(Arc::new),
        })
    }

    /// A handle whose writes all fail (stderr could not be set up).
    fn closed() -> Self {
        let (tx, _) = mpsc::unbounded_channel();
        Audit {
            tx,
            failure: AuditFailure::Strict,
            format: AuditFormat::Jsonl,
            path: None,
        }
    }

    /// The audit file, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref().map(PathBuf::as_path)
    }

    /// The line format.
    pub fn format(&self) -> AuditFormat {
        self.format
    }

    /// Where the chain stands: the next `seq` and the last line's hash (`None` if the writer
    /// has stopped).
    pub async fn chain_status(&self) -> Option<chain::ChainState> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(Msg::Status(reply)).ok()?;
        rx.await.ok()
    }

    /// Waits until every record queued so far is written and, with `--otlp-endpoint`, sent to
    /// the collector (at shutdown; in tests).
    pub async fn flush(&self) {
        let (reply, done) = oneshot::channel();
        if self.tx.send(Msg::Flush(reply)).is_ok() {
            let _ = done.await;
        }
    }

    /// Asks the writer to reopen its file (SIGHUP: the operator rotated it).
    pub fn reopen(&self) {
        let _ = self.tx.send(Msg::Reopen);
    }

    /// Queues one record and waits until it is durable. An error means it was not stored.
    pub async fn record(&self, mut record: AuditRecord) -> std::io::Result<()> {
        record.time = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        event::log_decision(&record);
        let body = serde_json::to_value(&record).map_err(std::io::Error::other)?;
        let (reply, done) = oneshot::channel();
        self.tx
            .send(Msg::Record(body, reply))
            .map_err(|_| std::io::Error::other("the audit writer has stopped"))?;
        done.await
            .map_err(|_| std::io::Error::other("the audit writer has stopped"))?
            .map_err(std::io::Error::other)
    }

    /// Whether a failed write of a record of `tool` must fail the call: every call under
    /// `strict`; under `strict_mutations`, every tool that can commit a mutation (`run_mutation`,
    /// `run_mutations`, and `approval_status`, which commits an approved one), as their kind says.
    pub fn must_fail(&self, tool: &str) -> bool {
        match self.failure {
            AuditFailure::Strict => true,
            AuditFailure::StrictMutations => BuiltinTool::named(tool)
                .is_some_and(|t| matches!(t.kind(), ToolKind::Write | ToolKind::Approval)),
        }
    }
}
