//! The one audit writer: a thread that owns the sink and the chain. Concurrent calls queue their
//! records; the writer takes everything queued, writes it as one batch in queue order, syncs once
//! (group commit), then answers each caller. A failed batch is cut back off the file so the chain
//! on disk stays intact.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;
use tokio::sync::{mpsc, oneshot};

use super::chain::{Break, ChainState, Header};
use super::export::Exporter;
use super::resume::{resume, Resume};
use super::{otel, AuditFormat};

/// How often the file is synced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncPolicy {
    /// One `fdatasync` per batch of queued records (the default).
    Group,
    /// One `fdatasync` per record (the old behaviour; kept for the bench).
    PerRecord,
}

/// Where lines go.
pub enum Sink {
    /// Standard error (not synced).
    Stderr,
    /// An append-only file.
    File(File),
}

/// A message to the writer.
pub enum Msg {
    /// A record's body (already JSON), and where to say whether it is durable.
    Record(serde_json::Value, oneshot::Sender<Result<(), String>>),
    /// Close and reopen the file (rotation), continuing the chain with a header.
    Reopen,
    /// Where the chain stands (after everything queued before).
    Status(oneshot::Sender<ChainState>),
    /// Write what is queued and push the exporter's batch out; answer when done.
    Flush(oneshot::Sender<()>),
}

/// The writer's state.
pub struct Writer {
    sink: Sink,
    path: Option<PathBuf>,
    chain: ChainState,
    sync: SyncPolicy,
    header: Header,
    format: AuditFormat,
    exporter: Option<Exporter>,
}

#[derive(Serialize)]
struct Chained<'a, T: Serialize> {
    seq: u64,
    prev: Option<&'a str>,
    #[serde(flatten)]
    body: &'a T,
}

#[derive(Serialize)]
struct HeaderBody<'a> {
    header: &'a Header,
}

/// What a line holds.
enum Item<'a> {
    Header(&'a Header),
    Record(&'a serde_json::Value),
}

/// Encodes `item` as the chain's next line (with its newline) in `format`, and advances the chain.
fn encode(
    chain: &mut ChainState,
    item: Item<'_>,
    format: AuditFormat,
    dialect: &str,
) -> Result<Vec<u8>, String> {
    let (seq, prev) = (chain.next_seq, chain.prev.as_deref());
    let line = match (format, item) {
        (AuditFormat::Jsonl, Item::Header(h)) => serde_json::to_vec(&Chained {
            seq,
            prev,
            body: &HeaderBody { header: h },
        }),
        (AuditFormat::Jsonl, Item::Record(body)) => {
            serde_json::to_vec(&Chained { seq, prev, body })
        }
        (AuditFormat::Otel, Item::Header(h)) => serde_json::to_vec(&otel::header(h, seq, prev)),
        (AuditFormat::Otel, Item::Record(b)) => {
            serde_json::to_vec(&otel::record(b, seq, prev, dialect))
        }
    };
    let mut line = line.map_err(|e| e.to_string())?;
    chain.advance(&line);
    line.push(b'\n');
    Ok(line)
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Writer {
    /// A writer to stderr; writes its header.
    pub fn stderr(
        header: Header,
        sync: SyncPolicy,
        format: AuditFormat,
        exporter: Option<Exporter>,
    ) -> std::io::Result<Self> {
        let mut w = Writer {
            sink: Sink::Stderr,
            path: None,
            chain: ChainState::default(),
            sync,
            header,
            format,
            exporter,
        };
        w.write_header("start", None)?;
        Ok(w)
    }

    /// A writer appending to `path`, continuing the chain the file ends with; writes its header.
    pub fn file(
        path: PathBuf,
        header: Header,
        sync: SyncPolicy,
        format: AuditFormat,
        exporter: Option<Exporter>,
    ) -> std::io::Result<Self> {
        let mut w = Writer {
            sink: Sink::Stderr,
            path: Some(path),
            chain: ChainState::default(),
            sync,
            header,
            format,
            exporter,
        };
        w.open("start")?;
        Ok(w)
    }

    /// Opens the path (again) and writes the header that links it to the chain so far.
    fn open(&mut self, fresh_reason: &str) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut f = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)?;
        let (reason, brk) = match resume(&mut f)? {
            Resume::Empty => (fresh_reason, None),
            Resume::Continue(state) => {
                self.chain = state;
                // The same file again: a restart, or a SIGHUP without a rotation.
                (
                    if fresh_reason == "start" {
                        "restart"
                    } else {
                        "reopen"
                    },
                    None,
                )
            }
            Resume::Torn(state, brk) => {
                tracing::warn!(
                    "audit file {}: {} at byte {}; the chain continues from a header that names the break",
                    path.display(),
                    brk.reason,
                    brk.offset
                );
                // End a torn fragment (no newline) so the header starts its own line.
                if brk.offset + brk.bytes == f.metadata()?.len() {
                    f.write_all(b"\n")?;
                }
                self.chain = state;
                ("torn", Some(brk))
            }
        };
        self.sink = Sink::File(f);
        self.write_header(reason, brk)
    }

    fn write_header(&mut self, reason: &str, brk: Option<Break>) -> std::io::Result<()> {
        let header = Header {
            start: now(),
            reason: reason.to_string(),
            r#break: brk,
            ..self.header.clone()
        };
        let mut chain = self.chain.clone();
        let (seq, prev) = (chain.next_seq, chain.prev.clone());
        let line = encode(&mut chain, Item::Header(&header), self.format, "")
            .map_err(std::io::Error::other)?;
        self.durable(&line)?;
        self.chain = chain;
        if let Some(exporter) = &self.exporter {
            exporter.emit(&otel::header(&header, seq, prev.as_deref()));
        }
        Ok(())
    }

    /// Writes `bytes` and syncs; on failure cuts the file back to where it was.
    fn durable(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match &mut self.sink {
            Sink::Stderr => {
                let mut e = std::io::stderr().lock();
                e.write_all(bytes)?;
                e.flush()
            }
            Sink::File(f) => {
                let before = f.metadata()?.len();
                let r = f.write_all(bytes).and_then(|_| f.sync_data());
                if r.is_err() {
                    let _ = f.set_len(before);
                }
                r
            }
        }
    }

    /// Serves messages until every sender is gone.
    pub fn run(mut self, mut rx: mpsc::UnboundedReceiver<Msg>) {
        let mut batch = Vec::new();
        while let Some(first) = rx.blocking_recv() {
            let mut next = Some(first);
            while let Some(msg) = next {
                match msg {
                    Msg::Record(body, reply) => batch.push((body, reply)),
                    Msg::Reopen => {
                        self.flush(&mut batch);
                        self.reopen();
                    }
                    Msg::Status(reply) => {
                        self.flush(&mut batch);
                        let _ = reply.send(self.chain.clone());
                    }
                    Msg::Flush(reply) => {
                        self.flush(&mut batch);
                        if let Some(exporter) = &self.exporter {
                            exporter.flush();
                        }
                        let _ = reply.send(());
                    }
                }
                next = rx.try_recv().ok();
            }
            self.flush(&mut batch);
        }
    }

    fn reopen(&mut self) {
        if let Err(e) = self.open("rotation") {
            tracing::error!("audit file reopen failed: {e}");
        }
    }

    /// Writes the queued records: one sync for all, or one each.
    fn flush(&mut self, batch: &mut Vec<(serde_json::Value, oneshot::Sender<Result<(), String>>)>) {
        if batch.is_empty() {
            return;
        }
        match self.sync {
            SyncPolicy::Group => {
                let (bodies, replies): (Vec<_>, Vec<_>) = std::mem::take(batch).into_iter().unzip();
                let r = self.commit(&bodies);
                for reply in replies {
                    let _ = reply.send(r.clone());
                }
            }
            SyncPolicy::PerRecord => {
                for (body, reply) in std::mem::take(batch) {
                    let _ = reply.send(self.commit(std::slice::from_ref(&body)));
                }
            }
        }
    }

    /// Encodes and durably writes `bodies` in order; the chain advances only when they are stored.
    fn commit(&mut self, bodies: &[serde_json::Value]) -> Result<(), String> {
        let mut chain = self.chain.clone();
        let mut buf = Vec::new();
        let mut links = Vec::with_capacity(bodies.len());
        for b in bodies {
            links.push((chain.next_seq, chain.prev.clone()));
            buf.extend(encode(
                &mut chain,
                Item::Record(b),
                self.format,
                &self.header.dialect,
            )?);
        }
        self.durable(&buf).map_err(|e| e.to_string())?;
        self.chain = chain;
        // Exported once stored, with the same chain fields as the file's lines.
        if let Some(exporter) = &self.exporter {
            for (b, (seq, prev)) in bodies.iter().zip(links) {
                exporter.emit(&otel::record(b, seq, prev.as_deref(), &self.header.dialect));
            }
        }
        Ok(())
    }
}
