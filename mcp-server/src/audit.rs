//! The audit log: one JSON line per tool call (never row values), to stderr or a file that is
//! appended and fsynced per record. A failed write fails the call.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::Serialize;

/// One audit record.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AuditRecord {
    /// RFC 3339 time.
    pub time: String,
    /// Client name from initialize (or request metadata).
    pub client: Option<String>,
    /// Client version.
    pub client_version: Option<String>,
    /// Tool name.
    pub tool: String,
    /// `allow`, `refuse` or `error`.
    pub decision: String,
    /// Error code, when not allowed.
    pub code: Option<String>,
    /// Statement class, when the guard ran.
    pub query_class: Option<String>,
    /// SQL as submitted.
    pub sql: Option<String>,
    /// SQL executed.
    pub executed_sql: Option<String>,
    /// Table named in `describe_table`.
    pub table: Option<String>,
    /// Rows returned.
    pub row_count: Option<usize>,
    /// Duration in milliseconds.
    pub duration_ms: f64,
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
