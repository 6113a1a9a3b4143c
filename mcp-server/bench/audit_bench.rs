//! Audit throughput: `validate_query` over streamable HTTP with 1, 8 and 32 concurrent clients
//! (one session each) on the embedded demo database, for three audit sinks in one run: stderr,
//! a file with group commit (one `fdatasync` per batch), and a file with one `fdatasync` per
//! record. The files live in `SQLGATE_BENCH_AUDIT_DIR` (default: the temp directory, a real disk
//! unlike `/dev/shm`). Each file's chain is verified afterwards.
//!
//! A first table measures the writer alone (tasks calling `Audit::record`), so the sync cost shows
//! even where the HTTP clients and server saturate the CPU first.
//!
//! ```sh
//! cargo run --release -p sqlgate-mcp --example audit_bench 2>/dev/null   # -- [SECONDS [writer|http]]
//! ```

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use sqlgate_mcp::app::demo::{demo_backend, demo_policy};
use sqlgate_mcp::audit::{Audit, AuditOptions, AuditRecord, Decision};
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::transport::http::{serve_http, HttpOptions};
use tokio_util::sync::CancellationToken;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Error = Box<dyn std::error::Error + Send + Sync>;

async fn engine() -> Result<Arc<Engine>, Error> {
    let cfg = EngineConfig {
        policy: demo_policy(),
        max_result_bytes: 1 << 20,
        statement_timeout: Duration::from_secs(5),
        mode: sqlgate_mcp::codes::Mode::ReadOnly,
        approval_timeout: Duration::from_secs(60),
    };
    Ok(Arc::new(Engine::new(demo_backend(false)?, cfg).await?))
}

async fn start(audit: Audit) -> Result<(String, CancellationToken), Error> {
    let shutdown = CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let opts = HttpOptions {
        addr: "127.0.0.1:0".into(),
        stateless: false,
        token: None,
        allowed_origins: Vec::new(),
        max_body_bytes: 1 << 20,
        oauth: None,
        tls: None,
        connections: Default::default(),
    };
    let (engine, s) = (engine().await?, shutdown.clone());
    tokio::spawn(async move {
        if let Err(e) = serve_http(engine, audit, opts, s, Some(tx)).await {
            eprintln!("audit_bench: HTTP server: {e}");
        }
    });
    Ok((format!("http://{}/mcp", rx.await?), shutdown))
}

/// Calls per second from `clients` sessions calling `validate_query` for `secs`.
async fn throughput(url: &str, clients: usize, secs: u64) -> Result<f64, Error> {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let client = ().serve(StreamableHttpClientTransport::from_uri(url.to_string())).await?;
        let (stop, done) = (stop.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let mut p = CallToolRequestParams::new("validate_query");
                if let serde_json::Value::Object(m) =
                    serde_json::json!({"sql": "SELECT name FROM products WHERE id = 1"})
                {
                    p = p.with_arguments(m);
                }
                if client.call_tool(p).await.is_err() {
                    break;
                }
                done.fetch_add(1, Ordering::Relaxed);
            }
            let _ = client.cancel().await;
        }));
    }
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::Relaxed);
    let n = done.load(Ordering::Relaxed);
    for t in tasks {
        t.await?;
    }
    Ok(n as f64 / secs as f64)
}

/// Records per second from `clients` tasks calling [`Audit::record`] directly for `secs`: the
/// writer's own ceiling, without MCP, HTTP or a database.
async fn writer_throughput(audit: Audit, clients: usize, secs: u64) -> Result<f64, Error> {
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (audit, stop, done) = (audit.clone(), stop.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let rec = AuditRecord {
                    sql: Some("SELECT name FROM products WHERE id = 1".into()),
                    ..AuditRecord::new("run_query", Decision::Allow)
                };
                if audit.record(rec).await.is_err() {
                    break;
                }
                done.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::Relaxed);
    let n = done.load(Ordering::Relaxed);
    for t in tasks {
        t.await?;
    }
    Ok(n as f64 / secs as f64)
}

fn audit_dir() -> PathBuf {
    std::env::var_os("SQLGATE_BENCH_AUDIT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir)
}

/// The sinks compared: name, to a file, one `fdatasync` per record.
const SINKS: [(&str, bool, bool); 3] = [
    ("stderr", false, false),
    ("group", true, false),
    ("record", true, true),
];

/// A sink of [`SINKS`] writing to `dir/NAME-CLIENTS.jsonl` (when `file`); returns the path too.
fn open_sink(
    dir: &Path,
    name: &str,
    clients: usize,
    file: bool,
    per_record: bool,
) -> Result<(PathBuf, Audit), Error> {
    let path = dir.join(format!("{name}-{clients}.jsonl"));
    let audit = Audit::open(AuditOptions {
        path: file.then(|| path.clone()),
        per_record_sync: per_record,
        ..AuditOptions::default()
    })?;
    Ok((path, audit))
}

/// Fails unless the chain of the file at `path` is intact.
fn verify(path: &Path) -> Result<(), Error> {
    if let Err(b) = sqlgate_mcp::audit::verify::verify_files(&[path])? {
        return Err(sqlgate_mcp::audit::verify::describe(&b).into());
    }
    Ok(())
}

/// Prints a row of the tables: one figure per sink, and group commit over sync per record.
fn print_row(clients: usize, row: &[f64]) {
    println!(
        "| {clients} | {:.0} | {:.0} | {:.0} | {:.1}x |",
        row[0],
        row[1],
        row[2],
        row[1] / row[2].max(1e-9)
    );
}

/// The writer alone, per sink, with 1, 8 and 32 tasks.
async fn writer_table(dir: &Path, secs: u64) -> Result<(), Error> {
    println!("| clients | writer alone: stderr, records/s | file, group commit | file, sync per record | group / per record |");
    println!("|---|---|---|---|---|");
    for clients in [1usize, 8, 32] {
        let mut row = Vec::new();
        for (name, file, per_record) in SINKS {
            let (path, audit) = open_sink(dir, &format!("w-{name}"), clients, file, per_record)?;
            row.push(writer_throughput(audit, clients, secs).await?);
            if file {
                verify(&path)?;
            }
        }
        print_row(clients, &row);
    }
    println!();
    Ok(())
}

/// `validate_query` over HTTP, per sink, with 1, 8 and 32 clients.
async fn http_table(dir: &Path, secs: u64) -> Result<(), Error> {
    println!("| clients | MCP over HTTP: stderr, calls/s | file, group commit | file, sync per record | group / per record |");
    println!("|---|---|---|---|---|");
    for clients in [1usize, 8, 32] {
        let mut row = Vec::new();
        for (name, file, per_record) in SINKS {
            let (path, audit) = open_sink(dir, name, clients, file, per_record)?;
            let (url, shutdown) = start(audit).await?;
            row.push(throughput(&url, clients, secs).await?);
            shutdown.cancel();
            if file {
                verify(&path)?;
            }
        }
        print_row(clients, &row);
    }
    Ok(())
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<(), Error> {
    let secs: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    // `writer`, `http` or both (default).
    let mode = std::env::args().nth(2).unwrap_or_else(|| "both".into());
    let dir = tempfile::tempdir_in(audit_dir())?;
    println!(
        "audit throughput, validate_query over HTTP, demo database, {} cores, {secs} s per cell, files in {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        audit_dir().display()
    );
    println!();
    if mode != "http" {
        writer_table(dir.path(), secs).await?;
    }
    if mode == "writer" {
        return Ok(());
    }
    http_table(dir.path(), secs).await
}
