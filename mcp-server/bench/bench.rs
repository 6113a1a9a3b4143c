//! `run_query` through the MCP server versus the same queries sent directly with tokio-postgres,
//! against the same PostgreSQL (Chinook) in one run. Loopback only, bounded.
//!
//! ```sh
//! E=$(scripts/pg-cluster.sh start | tail -n1); scripts/pg-cluster.sh load-chinook $(dirname $E); . $E
//! cargo run --release -p sqlgate-mcp --example bench    # or: -- --iterations 2000 --seconds 10
//! scripts/pg-cluster.sh stop $(dirname $E)
//! ```
//!
//! Latency: one client, the paths interleaved query by query so that machine noise hits all of
//! them alike:
//! - `direct`: tokio-postgres, `BEGIN READ ONLY`, the query, `ROLLBACK` (a read-only transaction
//!   too, for fairness), on one connection; it runs the guard's `approved.sql`, so the database
//!   does the same work on both sides;
//! - `guard`: `Guard::check_with_row_cap` alone (no database);
//! - `engine`: `Engine::run_query` (guard + pooled execution + JSON rendering, no MCP);
//! - `mcp in-process`: the `run_query` tool through an rmcp client over an in-memory pipe;
//! - `mcp http`: the `run_query` tool through an rmcp client over streamable HTTP (session).
//!
//! The audit log goes to a file in `SQLGATE_BENCH_AUDIT_DIR` (default `/dev/shm` when present,
//! where fsync is free, like the default stderr sink); one extra measurement shows the cost of
//! an fsynced `--audit-file` on the temp directory's disk.
//!
//! Mutation: the added latency of a previewed, auto-approved (`full_access`) `run_mutation` over
//! the same UPDATE sent directly with tokio-postgres (`bench/mutation.rs`; `--mutation-only` runs
//! just that part).
//!
//! Throughput: 1, 8 and 32 concurrent HTTP clients (one session each) for a fixed time, and the
//! same concurrency directly with tokio-postgres (one connection per client).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use sqlgate::{Dialect, Policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::postgres::PgBackend;
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::engine::{Engine, EngineConfig};
use sqlgate_mcp::http::{serve_http, HttpOptions};
use sqlgate_mcp::tools::SqlGateServer;
use tokio_util::sync::CancellationToken;

mod mutation;

// The allocator the shipped sqlgate-mcp binary uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Error = Box<dyn std::error::Error + Send + Sync>;

const QUERIES: &[(&str, &str)] = &[
    (
        "point lookup",
        "SELECT artist_id, name FROM artist WHERE artist_id = 90",
    ),
    (
        "join, 10 rows",
        "SELECT al.title, ar.name FROM album al JOIN artist ar ON ar.artist_id = al.artist_id WHERE ar.artist_id = 90 ORDER BY al.title",
    ),
    (
        "aggregate",
        "SELECT g.name, count(*) AS tracks, sum(t.milliseconds) AS ms FROM track t JOIN genre g ON g.genre_id = t.genre_id GROUP BY g.name ORDER BY tracks DESC",
    ),
    (
        "100 rows",
        "SELECT track_id, name, composer, unit_price FROM track WHERE genre_id = 1 ORDER BY track_id LIMIT 100",
    ),
];

const POLICY_MAX_ROWS: u64 = 1000;
const POOL_SIZE: usize = 8;

struct Args {
    mutation_only: bool,
    iterations: usize,
    seconds: f64,
    url: String,
}

fn args() -> Result<Args, Error> {
    let mut iterations = 1000;
    let mut seconds = 5.0;
    let mut mutation_only = false;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--iterations" => iterations = it.next().ok_or("--iterations N")?.parse()?,
            "--seconds" => seconds = it.next().ok_or("--seconds S")?.parse()?,
            "--mutation-only" => mutation_only = true,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if !(1..=100_000).contains(&iterations) || !(0.5..=120.0).contains(&seconds) {
        return Err("--iterations 1..100000, --seconds 0.5..120".into());
    }
    let url = std::env::var("SQLGATE_BENCH_URL")
        .or_else(|_| std::env::var("SQLGATE_CHINOOK_URL"))
        .map_err(|_| {
            "set SQLGATE_CHINOOK_URL (or SQLGATE_BENCH_URL) to a PostgreSQL database loaded with Chinook"
        })?;
    Ok(Args {
        mutation_only,
        iterations,
        seconds,
        url,
    })
}

fn median(v: &mut [f64]) -> f64 {
    percentile(v, 0.5)
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() - 1) as f64 * p).round() as usize;
    v[i.min(v.len() - 1)]
}

async fn pg_connect(url: &str) -> Result<tokio_postgres::Client, Error> {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    Ok(client)
}

/// The fair direct path: a read-only transaction around the query, always rolled back.
async fn direct(client: &tokio_postgres::Client, sql: &str) -> Result<usize, Error> {
    client.execute("BEGIN READ ONLY", &[]).await?;
    let rows = client.query(sql, &[]).await;
    client.execute("ROLLBACK", &[]).await?;
    Ok(rows?.len())
}

async fn tool(peer: &Peer<RoleClient>, sql: &str) -> Result<usize, Error> {
    let mut p = CallToolRequestParams::new("run_query");
    if let Value::Object(m) = json!({ "sql": sql }) {
        p = p.with_arguments(m);
    }
    let r = peer.call_tool(p).await?;
    let out = r.structured_content.unwrap_or(Value::Null);
    if r.is_error == Some(true) {
        return Err(format!("run_query failed: {out}").into());
    }
    Ok(out["row_count"].as_u64().unwrap_or(0) as usize)
}

async fn engine(url: &str) -> Result<Arc<Engine>, Error> {
    let pg = PgBackend::connect(url, POOL_SIZE, Duration::from_secs(10), false)
        .await
        .map_err(|e| e.to_string())?;
    let engine = Engine::new(
        Backend::Postgres(pg),
        EngineConfig {
            policy: Policy {
                max_rows: Some(POLICY_MAX_ROWS),
                ..Policy::for_dialect(Dialect::Postgres)
            },
            max_result_bytes: 1 << 20,
            statement_timeout: Duration::from_secs(10),
            mode: sqlgate_mcp::mode::Mode::ReadOnly,
            approval_timeout: Duration::from_secs(60),
        },
    )
    .await?;
    Ok(Arc::new(engine))
}

async fn in_process(
    engine: Arc<Engine>,
    audit: Audit,
) -> Result<RunningService<RoleClient, ()>, Error> {
    let server = SqlGateServer::new(engine, audit);
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    Ok(().serve(b).await?)
}

async fn http_client(url: &str) -> Result<RunningService<RoleClient, ()>, Error> {
    Ok(
        ().serve(StreamableHttpClientTransport::from_uri(url.to_string()))
            .await?,
    )
}

fn audit_dir() -> PathBuf {
    match std::env::var_os("SQLGATE_BENCH_AUDIT_DIR") {
        Some(d) => PathBuf::from(d),
        None if std::path::Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm"),
        None => std::env::temp_dir(),
    }
}

const PATHS: [&str; 5] = ["direct", "guard", "engine", "MCP in-process", "MCP HTTP"];
const DIRECT: usize = 0;
const GUARD: usize = 1;
const ENGINE: usize = 2;
const INPROC: usize = 3;
const HTTP: usize = 4;

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// Runs `clients` concurrent loops of `call` for `seconds`; returns calls per second.
async fn throughput<F, Fut>(clients: usize, seconds: f64, make: F) -> Result<f64, Error>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = Result<Box<dyn Worker>, Error>>,
{
    let mut workers = Vec::with_capacity(clients);
    for i in 0..clients {
        workers.push(make(i).await?);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for (i, mut w) in workers.into_iter().enumerate() {
        let stop = stop.clone();
        let done = done.clone();
        tasks.push(tokio::spawn(async move {
            let mut q = i;
            while !stop.load(Ordering::Relaxed) {
                w.call(q % QUERIES.len()).await?;
                done.fetch_add(1, Ordering::Relaxed);
                q += 1;
            }
            w.close().await;
            Ok::<(), Error>(())
        }));
    }
    tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = start.elapsed().as_secs_f64();
    let n = done.load(Ordering::Relaxed);
    for t in tasks {
        t.await??;
    }
    Ok(n as f64 / elapsed)
}

trait Worker: Send {
    fn call(
        &mut self,
        q: usize,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>> + Send + '_>>;
    fn close(self: Box<Self>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;
}

struct HttpWorker(RunningService<RoleClient, ()>);
impl Worker for HttpWorker {
    fn call(
        &mut self,
        q: usize,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>> + Send + '_>> {
        Box::pin(async move {
            tool(self.0.peer(), QUERIES[q].1).await?;
            Ok(())
        })
    }
    fn close(self: Box<Self>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async move {
            let _ = self.0.cancel().await;
        })
    }
}

struct DirectWorker(tokio_postgres::Client, Arc<Vec<String>>);
impl Worker for DirectWorker {
    fn call(
        &mut self,
        q: usize,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>> + Send + '_>> {
        Box::pin(async move {
            direct(&self.0, &self.1[q]).await?;
            Ok(())
        })
    }
    fn close(self: Box<Self>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
        Box::pin(async {})
    }
}

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("bench: {e}");
        std::process::exit(sqlgate_mcp::exit::FAILURE);
    }
}

async fn run() -> Result<(), Error> {
    let args = args()?;
    if args.mutation_only {
        return mutation::report(&args.url, args.iterations).await;
    }
    let engine = engine(&args.url).await?;
    let guard = engine.guard();
    let cap = Some(POLICY_MAX_ROWS + 1);
    // What the server executes; the direct path runs the same text.
    let mut approved: Vec<String> = Vec::new();
    for (name, sql) in QUERIES {
        let a = guard
            .check_with_row_cap(sql, cap)
            .map_err(|r| format!("{name}: refused: {}", r.error.message))?;
        approved.push(a.sql);
    }
    let approved = Arc::new(approved);

    let dir = tempfile::tempdir_in(audit_dir()).or_else(|_| tempfile::tempdir())?;
    let audit = Audit::file(&dir.path().join("audit.jsonl"))?;
    let shutdown = CancellationToken::new();
    let (tx, rx) = tokio::sync::oneshot::channel();
    {
        let engine = engine.clone();
        let audit = audit.clone();
        let s = shutdown.clone();
        let opts = HttpOptions {
            addr: "127.0.0.1:0".into(),
            stateless: false,
            token: None,
            allowed_origins: Vec::new(),
            max_body_bytes: 1 << 20,
        };
        tokio::spawn(async move {
            if let Err(e) = serve_http(engine, audit, opts, s, Some(tx)).await {
                eprintln!("bench: HTTP server: {e}");
            }
        });
    }
    let url = format!("http://{}/mcp", rx.await?);

    let direct_client = pg_connect(&args.url).await?;
    let inproc = in_process(engine.clone(), audit.clone()).await?;
    let http = http_client(&url).await?;

    // Same results on every path.
    for (i, (name, sql)) in QUERIES.iter().enumerate() {
        let d = direct(&direct_client, &approved[i]).await?;
        let h = tool(http.peer(), sql).await?;
        let p = tool(inproc.peer(), sql).await?;
        if d != h || d != p {
            return Err(format!("{name}: {d} rows direct, {h} over HTTP, {p} in-process").into());
        }
    }

    let warmup = (args.iterations / 10).max(50);
    // samples[path][query], in milliseconds; index i of every path is the same round.
    let mut s: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); QUERIES.len()]; PATHS.len()];
    for i in 0..(warmup + args.iterations * QUERIES.len()) {
        let q = i % QUERIES.len();
        let sql = QUERIES[q].1;
        let mut round = [0.0f64; 5];
        // Rotate the order so that no path always runs right after another.
        for k in 0..PATHS.len() {
            let path = (i / QUERIES.len() + k) % PATHS.len();
            let t = Instant::now();
            match path {
                DIRECT => {
                    direct(&direct_client, &approved[q]).await?;
                }
                GUARD => {
                    guard
                        .check_with_row_cap(sql, cap)
                        .map_err(|r| r.error.message)?;
                }
                ENGINE => {
                    let (r, _) = engine.run_query(sql).await;
                    r.map_err(|e| e.message)?;
                }
                INPROC => {
                    tool(inproc.peer(), sql).await?;
                }
                _ => {
                    tool(http.peer(), sql).await?;
                }
            }
            round[path] = ms(t);
        }
        if i >= warmup {
            for (path, v) in round.iter().enumerate() {
                s[path][q].push(*v);
            }
        }
    }

    // The cost of an fsynced audit file on a disk.
    let disk_dir = tempfile::tempdir()?;
    let disk_audit = Audit::file(&disk_dir.path().join("audit.jsonl"))?;
    let inproc_disk = in_process(engine.clone(), disk_audit).await?;
    let mut disk = Vec::new();
    for i in 0..(args.iterations / 2).max(100) {
        let t = Instant::now();
        tool(inproc_disk.peer(), QUERIES[i % QUERIES.len()].1).await?;
        disk.push(ms(t));
    }
    let _ = inproc_disk.cancel().await;

    let pg_version: String = direct_client
        .query_one("SELECT current_setting('server_version')", &[])
        .await?
        .try_get(0)?;
    println!(
        "sqlgate-mcp bench: PostgreSQL {pg_version} on loopback, {} cores, {} rounds per query and path, pool {POOL_SIZE}, audit file in {}",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        args.iterations,
        audit_dir().display()
    );
    println!();
    println!("Median latency, ms, one client (guard: `Guard::check_with_row_cap` alone):");
    println!();
    print!("| query |");
    for name in PATHS {
        print!(" {name} |");
    }
    println!(" added by MCP over HTTP | added by MCP in-process |");
    println!("|---|---|---|---|---|---|---|---|");
    // Added latency: the median of the paired differences (same query, same round).
    let paired = |path: usize, q: Option<usize>| -> f64 {
        let qs: Vec<usize> = match q {
            Some(q) => vec![q],
            None => (0..QUERIES.len()).collect(),
        };
        let mut d: Vec<f64> = Vec::new();
        for q in qs {
            d.extend(s[path][q].iter().zip(&s[DIRECT][q]).map(|(a, b)| a - b));
        }
        median(&mut d)
    };
    for (q, (name, _)) in QUERIES.iter().enumerate() {
        print!("| {name} |");
        for per_path in &s {
            print!(" {:.3} |", median(&mut per_path[q].clone()));
        }
        println!(
            " {:+.3} | {:+.3} |",
            paired(HTTP, Some(q)),
            paired(INPROC, Some(q))
        );
    }
    let all = |path: usize| -> Vec<f64> { s[path].iter().flatten().copied().collect() };
    print!("| all |");
    for path in 0..PATHS.len() {
        print!(" {:.3} |", median(&mut all(path)));
    }
    let added_http = paired(HTTP, None);
    let added_inproc = paired(INPROC, None);
    println!(" {added_http:+.3} | {added_inproc:+.3} |");
    let g = median(&mut all(GUARD));
    println!();
    println!("p90 / p99 ms, all queries:");
    for (path, name) in PATHS.iter().enumerate() {
        let mut v = all(path);
        println!(
            "- {name}: {:.3} / {:.3}",
            percentile(&mut v, 0.9),
            percentile(&mut v, 0.99)
        );
    }
    println!(
        "- MCP in-process with an fsynced audit file on disk: median {:.3}, p90 {:.3}, p99 {:.3}",
        median(&mut disk),
        percentile(&mut disk, 0.9),
        percentile(&mut disk, 0.99)
    );
    println!();
    println!(
        "Added median latency over HTTP: {added_http:.3} ms (target < 1 ms: {}); the guard's share: {g:.3} ms = {:.0}%. \
         In-process MCP adds {added_inproc:.3} ms (guard {:.0}%); the engine alone adds {:.3} ms.",
        if added_http < 1.0 { "met" } else { "NOT met" },
        100.0 * g / added_http.max(1e-9),
        100.0 * g / added_inproc.max(1e-9),
        paired(ENGINE, None)
    );
    print!("Guard alone in a hot loop (warm caches), median ms:");
    for (name, sql) in QUERIES {
        let mut v = Vec::with_capacity(500);
        for _ in 0..500 {
            let t = Instant::now();
            let _ = guard.check_with_row_cap(sql, cap);
            v.push(ms(t));
        }
        print!(" {name} {:.3};", median(&mut v));
    }
    println!();
    let _ = inproc.cancel().await;
    let _ = http.cancel().await;

    println!();
    println!(
        "| concurrent clients | run_query over HTTP, calls/s | direct tokio-postgres, queries/s | ratio |"
    );
    println!("|---|---|---|---|");
    for clients in [1usize, 8, 32] {
        let url = url.clone();
        let mcp = throughput(clients, args.seconds, |_| {
            let url = url.clone();
            async move { Ok(Box::new(HttpWorker(http_client(&url).await?)) as Box<dyn Worker>) }
        })
        .await?;
        let db = args.url.clone();
        let approved = approved.clone();
        let dir = throughput(clients, args.seconds, |_| {
            let db = db.clone();
            let approved = approved.clone();
            async move {
                Ok(Box::new(DirectWorker(pg_connect(&db).await?, approved)) as Box<dyn Worker>)
            }
        })
        .await?;
        println!(
            "| {clients} | {mcp:.0} | {dir:.0} | {:.2} |",
            mcp / dir.max(1e-9)
        );
    }
    shutdown.cancel();
    mutation::report(&args.url, args.iterations).await
}
