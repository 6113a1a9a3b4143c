//! The audit log: one JSON line per tool call (never row values), to stderr or a file that is
//! appended and fsynced per record. A failed write fails the call.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use sqlgate::QueryClass;

use crate::tool_error::ToolCode;

/// What became of a tool call.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
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
    /// Tool name.
    pub tool: String,
    /// What became of the call.
    pub decision: Decision,
    /// Error code, when not allowed.
    pub code: Option<ToolCode>,
    /// Statement class, when the guard ran.
    pub query_class: Option<QueryClass>,
    /// SQL as submitted.
    pub sql: Option<String>,
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
}

impl AuditRecord {
    /// A record of a call to `tool`; [`Audit::record`] sets the time, the caller the rest.
    pub fn new(tool: &str, decision: Decision) -> Self {
        AuditRecord {
            time: String::new(),
            client: None,
            client_version: None,
            tool: tool.to_string(),
            decision,
            code: None,
            query_class: None,
            sql: None,
            executed_sql: None,
            table: None,
            row_count: None,
            preview_rows: None,
            committed_rows: None,
            duration_ms: 0.0,
        }
    }
}

enum Sink {
    Stderr,
    File(File),
}

/// Where audit records go.
#[derive(Clone)]
pub struct Audit {
    sink: Arc<Mutex<Sink>>,
}

impl Audit {
    /// Records to stderr.
    pub fn stderr() -> Self {
        Audit {
            sink: Arc::new(Mutex::new(Sink::Stderr)),
        }
    }

    /// Records appended to `path` (created if missing).
    pub fn file(path: &Path) -> std::io::Result<Self> {
        let f = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Audit {
            sink: Arc::new(Mutex::new(Sink::File(f))),
        })
    }

    /// Writes one record (fsynced for files). An error means the record was not stored.
    pub async fn record(&self, mut record: AuditRecord) -> std::io::Result<()> {
        record.time = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut line = serde_json::to_string(&record).map_err(std::io::Error::other)?;
        line.push('\n');
        let sink = self.sink.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = sink
                .lock()
                .map_err(|_| std::io::Error::other("audit lock poisoned"))?;
            match &mut *guard {
                Sink::Stderr => {
                    let mut e = std::io::stderr().lock();
                    e.write_all(line.as_bytes())?;
                    e.flush()
                }
                Sink::File(f) => {
                    f.write_all(line.as_bytes())?;
                    f.sync_data()
                }
            }
        })
        .await
        .map_err(std::io::Error::other)?
    }
}
