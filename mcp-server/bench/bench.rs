//! `run_query` through the MCP server versus the same queries sent directly with each engine's
//! own driver, per engine in one run: PostgreSQL, SQLite, MySQL / MariaDB and (built with
//! `--features duckdb`) DuckDB, all on Chinook. Loopback only, bounded.
//!
//! ```sh
//! E=$(scripts/pg-cluster.sh start | tail -n1); scripts/pg-cluster.sh load-chinook $(dirname $E); . $E
//! M=$(scripts/mariadb-cluster.sh start | tail -n1); scripts/mariadb-cluster.sh load-chinook $(dirname $M); . $M
//! cargo run --release -p sqlgate-mcp --features duckdb --example bench  # or: -- --iterations 2000 --seconds 10
//! scripts/mariadb-cluster.sh stop $(dirname $M); scripts/pg-cluster.sh stop $(dirname $E)
//! ```
//!
//! Engines (`bench/engines.rs`): PostgreSQL from `SQLGATE_CHINOOK_URL` (or `SQLGATE_BENCH_URL`),
//! SQLite from the corpus's `chinook/Chinook_Sqlite.sqlite` (`$SQLGATE_CORPUS`, default
//! `../shared/corpus`), MariaDB from `--mariadb-url` or `SQLGATE_MARIADB_CHINOOK_URL`, DuckDB from
//! a Chinook file built from the SQLite one in a temporary folder (`tests/common/chinook_duckdb.rs`,
//! as the DuckDB tests build it). An engine not configured is skipped with a line saying why.
//!
//! Latency, per engine: one client, the paths interleaved query by query so that machine noise
//! hits all of them alike:
//! - `direct`: the engine's driver running the guard's `approved.sql` the way the backend runs it
//!   (PostgreSQL: `BEGIN READ ONLY`, the query, `ROLLBACK`; MariaDB: `START TRANSACTION READ
//!   ONLY`, the prepared statement, `ROLLBACK`; SQLite and DuckDB: the prepared statement on a
//!   read-only connection), so the database does the same work on both sides;
//! - `guard`: `Guard::check_with_row_cap` alone (no database);
//! - `engine`: `Engine::run_query` (guard + execution + JSON rendering, no MCP);
//! - `mcp in-process`: the `run_query` tool through an rmcp client over an in-memory pipe;
//! - `mcp http`: the `run_query` tool through an rmcp client over streamable HTTP (session);
//! - the same two through a plain client (`bench/plain_client.rs`: JSON-RPC as text, each response
//!   parsed once into a `serde_json::Value`), which leaves out rmcp's client-side parsing.
//!
//! "Added" is the median of the paired differences with `direct` (same query, same round).
//!
//! The audit log goes to a file in `SQLGATE_BENCH_AUDIT_DIR` (default `/dev/shm` when present,
//! where fsync is free, like the default stderr sink); on PostgreSQL, one extra measurement
//! shows the cost of an fsynced `--audit-file` on the temp directory's disk.
//!
//! PostgreSQL only, after the latency tables:
//! - mutation: the added latency of a previewed, auto-approved (`full_access`) `run_mutation`
//!   over the same UPDATE sent directly with tokio-postgres (`bench/mutation.rs`;
//!   `--mutation-only` runs just that part, `--latency-only` skips it and the rest of this list);
//! - throughput: 1, 8 and 32 concurrent HTTP clients (one session each) for a fixed time, and
//!   the same concurrency directly with tokio-postgres (one connection per client).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::gate::Engine;
use sqlgate_mcp::tools::SqlGateServer;
use sqlgate_mcp::transport::http::{serve_http, HttpOptions};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "duckdb")]
#[path = "../tests/common/chinook_duckdb.rs"]
mod chinook_duckdb;
mod engines;
mod mutation;
mod plain_client;

use engines::{pg_connect, pg_direct, Direct, Target};
use plain_client::{PlainHttp, PlainLines};

// The allocator the shipped sqlgate-mcp binary uses (src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The queries, in the snake_case names of the PostgreSQL Chinook (`engines.rs` renames them for
/// the SQLite and MySQL files).
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
/// The index of "100 rows" in [`QUERIES`], the query the issue's targets name.
const HUNDRED_ROWS: usize = 3;

const POLICY_MAX_ROWS: u64 = 1000;
const POOL_SIZE: usize = 8;

struct Args {
    mutation_only: bool,
    /// Only the per-engine latency tables (no fsync, throughput or mutation runs).
    latency_only: bool,
    iterations: usize,
    seconds: f64,
    /// PostgreSQL Chinook.
    url: Option<String>,
    /// MySQL / MariaDB Chinook.
    mariadb_url: Option<String>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn args() -> Result<Args, Error> {
    let mut iterations = 1000;
    let mut seconds = 5.0;
    let mut mutation_only = false;
    let mut latency_only = false;
    let mut mariadb_url = env("SQLGATE_MARIADB_CHINOOK_URL");
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--iterations" => iterations = it.next().ok_or("--iterations N")?.parse()?,
            "--seconds" => seconds = it.next().ok_or("--seconds S")?.parse()?,
            "--mariadb-url" => mariadb_url = Some(it.next().ok_or("--mariadb-url URL")?),
            "--mutation-only" => mutation_only = true,
            "--latency-only" => latency_only = true,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if !(1..=100_000).contains(&iterations) || !(0.5..=120.0).contains(&seconds) {
        return Err("--iterations 1..100000, --seconds 0.5..120".into());
    }
    Ok(Args {
        mutation_only,
        latency_only,
        iterations,
        seconds,
        url: env("SQLGATE_BENCH_URL").or_else(|| env("SQLGATE_CHINOOK_URL")),
        mariadb_url,
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

/// The client's end of an in-memory pipe whose other end the server is serving (stdio's
/// framing: one JSON-RPC message per line).
fn serve_in_process(engine: Arc<Engine>, audit: Audit) -> tokio::io::DuplexStream {
    let server = SqlGateServer::new(engine, audit);
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    b
}

async fn in_process(
    engine: Arc<Engine>,
    audit: Audit,
) -> Result<RunningService<RoleClient, ()>, Error> {
    Ok(().serve(serve_in_process(engine, audit)).await?)
}

async fn http_client(url: &str) -> Result<RunningService<RoleClient, ()>, Error> {
    Ok(
        ().serve(StreamableHttpClientTransport::from_uri(url.to_string()))
            .await?,
    )
}

/// `engine` served over streamable HTTP on a loopback port until `shutdown`; returns its URL.
async fn start_http(
    engine: Arc<Engine>,
    audit: Audit,
    shutdown: CancellationToken,
) -> Result<String, Error> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let opts = HttpOptions {
        addr: "127.0.0.1:0".into(),
        stateless: false,
        token: None,
        allowed_origins: Vec::new(),
        max_body_bytes: 1 << 20,
    };
    tokio::spawn(async move {
        if let Err(e) = serve_http(engine, audit, opts, shutdown, Some(tx)).await {
            eprintln!("bench: HTTP server: {e}");
        }
    });
    Ok(format!("http://{}/mcp", rx.await?))
}

fn audit_dir() -> PathBuf {
    match std::env::var_os("SQLGATE_BENCH_AUDIT_DIR") {
        Some(d) => PathBuf::from(d),
        None if std::path::Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm"),
        None => std::env::temp_dir(),
    }
}

const PATHS: [&str; 7] = [
    "direct",
    "guard",
    "engine",
    "MCP in-process",
    "MCP HTTP",
    "MCP in-process, plain client",
    "MCP HTTP, plain client",
];
const DIRECT: usize = 0;
const GUARD: usize = 1;
const ENGINE: usize = 2;
const INPROC: usize = 3;
const HTTP: usize = 4;
const INPROC_PLAIN: usize = 5;
const HTTP_PLAIN: usize = 6;
/// The paths whose added latency the tables show, and the columns' names.
const ADDED: [(usize, &str); 5] = [
    (ENGINE, "added by the engine"),
    (INPROC, "added in-process"),
    (HTTP, "added over HTTP"),
    (INPROC_PLAIN, "added in-process, plain client"),
    (HTTP_PLAIN, "added over HTTP, plain client"),
];

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// One engine's latency samples.
struct Latency {
    /// The engine and its version.
    name: String,
    /// `s[path][query]`, milliseconds; index i of every path is the same round.
    s: Vec<Vec<Vec<f64>>>,
}

impl Latency {
    /// Every sample of `path`.
    fn all(&self, path: usize) -> Vec<f64> {
        self.s[path].iter().flatten().copied().collect()
    }

    /// The median of the paired differences of `path` with `direct` (same query, same round),
    /// for query `q` or all of them.
    fn added(&self, path: usize, q: Option<usize>) -> f64 {
        let qs: Vec<usize> = match q {
            Some(q) => vec![q],
            None => (0..QUERIES.len()).collect(),
        };
        let mut d: Vec<f64> = Vec::new();
        for q in qs {
            d.extend(
                self.s[path][q]
                    .iter()
                    .zip(&self.s[DIRECT][q])
                    .map(|(a, b)| a - b),
            );
        }
        median(&mut d)
    }

    /// The median table (one row per query and one for all), then p90 / p99.
    fn print(&self) {
        println!();
        println!("{}: median latency, ms, one client:", self.name);
        println!();
        print!("| query |");
        for name in PATHS {
            print!(" {name} |");
        }
        for (_, name) in ADDED {
            print!(" {name} |");
        }
        println!();
        println!("|---|{}", "---|".repeat(PATHS.len() + ADDED.len()));
        let rows = (0..QUERIES.len()).map(|q| (QUERIES[q].0, Some(q)));
        for (name, q) in rows.chain([("all", None)]) {
            print!("| {name} |");
            for path in 0..PATHS.len() {
                let mut v = match q {
                    Some(q) => self.s[path][q].clone(),
                    None => self.all(path),
                };
                print!(" {:.3} |", median(&mut v));
            }
            for (path, _) in ADDED {
                print!(" {:+.3} |", self.added(path, q));
            }
            println!();
        }
        print!("p90 / p99 ms, all queries:");
        for (path, name) in PATHS.iter().enumerate() {
            let mut v = self.all(path);
            print!(
                " {name} {:.3} / {:.3};",
                percentile(&mut v, 0.9),
                percentile(&mut v, 0.99)
            );
        }
        println!();
    }
}

/// The latency of every path on one engine: checks that every path returns the same rows,
/// then runs `iterations` rounds per query (after a warm-up), the paths interleaved in a
/// rotating order so that no path always runs right after another.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
async fn latency<D: Direct>(
    t: &mut Target<D>,
    audit: &Audit,
    iterations: usize,
) -> Result<Latency, Error> {
    let guard = t.engine.guard();
    let cap = Some(POLICY_MAX_ROWS + 1);
    // What the server executes; the direct path runs the same text.
    let mut approved: Vec<String> = Vec::new();
    for ((name, _), sql) in QUERIES.iter().zip(&t.queries) {
        let a = guard
            .check_with_row_cap(sql, cap)
            .map_err(|r| format!("{}: {name}: refused: {}", t.name, r.error.message))?;
        approved.push(a.sql);
    }
    let shutdown = CancellationToken::new();
    let url = start_http(t.engine.clone(), audit.clone(), shutdown.clone()).await?;
    let inproc = in_process(t.engine.clone(), audit.clone()).await?;
    let http = http_client(&url).await?;
    let mut inproc_plain =
        PlainLines::connect(serve_in_process(t.engine.clone(), audit.clone())).await?;
    let mut http_plain = PlainHttp::connect(&url).await?;

    // Same results on every path.
    for (q, (name, _)) in QUERIES.iter().enumerate() {
        let sql = &t.queries[q];
        let d = t.direct.run(&approved[q]).await?;
        let h = tool(http.peer(), sql).await?;
        let p = tool(inproc.peer(), sql).await?;
        let pp = inproc_plain.run_query(sql).await?;
        let hp = http_plain.run_query(sql).await?;
        if [h, p, pp, hp].iter().any(|n| *n != d) {
            let e = format!(
                "{}: {name}: {d} rows direct, {h} over HTTP, {p} in-process, {pp} in-process \
                 (plain client), {hp} over HTTP (plain client)",
                t.name
            );
            return Err(e.into());
        }
    }

    // Round r runs query r % QUERIES.len() on every path.
    let warmup = (iterations / 10).max(50);
    let rounds = iterations * QUERIES.len();
    let samples = interleaved(warmup, rounds, PATHS.len(), async |r, path| {
        let q = r % QUERIES.len();
        let sql = t.queries[q].as_str();
        match path {
            DIRECT => {
                t.direct.run(&approved[q]).await?;
            }
            GUARD => {
                guard
                    .check_with_row_cap(sql, cap)
                    .map_err(|r| r.error.message)?;
            }
            ENGINE => {
                let (r, _) = t.engine.run_query(sql).await;
                r.map_err(|e| e.message)?;
            }
            INPROC => {
                tool(inproc.peer(), sql).await?;
            }
            HTTP => {
                tool(http.peer(), sql).await?;
            }
            INPROC_PLAIN => {
                inproc_plain.run_query(sql).await?;
            }
            _ => {
                http_plain.run_query(sql).await?;
            }
        }
        Ok(())
    })
    .await?;
    let mut s: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); QUERIES.len()]; PATHS.len()];
    for (path, by_round) in samples.into_iter().enumerate() {
        for (r, v) in by_round.into_iter().enumerate() {
            s[path][r % QUERIES.len()].push(v);
        }
    }
    let _ = inproc.cancel().await;
    let _ = http.cancel().await;
    shutdown.cancel();
    let out = Latency {
        name: t.name.clone(),
        s,
    };
    out.print();
    Ok(out)
}

/// Times `paths` ways of doing the same thing, `rounds` rounds after `warmup` untimed ones:
/// `run(round, path)` does one (the warm-up rounds are numbered from 0 too). Within a round the
/// paths run in a rotating order, so that machine noise hits them alike and no path always runs
/// right after another. Returns `samples[path][round]`, milliseconds.
async fn interleaved(
    warmup: usize,
    rounds: usize,
    paths: usize,
    mut run: impl AsyncFnMut(usize, usize) -> Result<(), Error>,
) -> Result<Vec<Vec<f64>>, Error> {
    let mut samples = vec![Vec::with_capacity(rounds); paths];
    for i in 0..warmup + rounds {
        for k in 0..paths {
            let path = (i + k) % paths;
            let start = Instant::now();
            run(if i < warmup { i } else { i - warmup }, path).await?;
            if i >= warmup {
                samples[path].push(ms(start));
            }
        }
    }
    Ok(samples)
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
            pg_direct(&self.0, &self.1[q]).await?;
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
        std::process::exit(sqlgate_mcp::app::exit::FAILURE);
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
async fn run() -> Result<(), Error> {
    let args = args()?;
    if args.mutation_only {
        let url = args
            .url
            .as_deref()
            .ok_or("--mutation-only needs SQLGATE_CHINOOK_URL")?;
        return mutation::report(url, args.iterations).await;
    }
    println!(
        "sqlgate-mcp bench: loopback, {} cores, {} rounds per query and path, pool {POOL_SIZE} \
         (PostgreSQL, MariaDB), audit file in {}",
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(0),
        args.iterations,
        audit_dir().display()
    );
    let dir = tempfile::tempdir_in(audit_dir()).or_else(|_| tempfile::tempdir())?;
    let audit = Audit::file(&dir.path().join("audit.jsonl"))?;
    let sqlite_file = engines::chinook_sqlite();

    let mut tables: Vec<Latency> = Vec::new();
    let postgres = engines::postgres(args.url.as_deref()).await?;
    let mut pg = None;
    if let Some(mut t) = postgres {
        tables.push(latency(&mut t, &audit, args.iterations).await?);
        pg = Some(t);
    }
    if let Some(mut t) = engines::sqlite(sqlite_file.as_deref()).await? {
        tables.push(latency(&mut t, &audit, args.iterations).await?);
    }
    if let Some(mut t) = engines::mysql(args.mariadb_url.as_deref()).await? {
        tables.push(latency(&mut t, &audit, args.iterations).await?);
    }
    #[cfg(feature = "duckdb")]
    {
        let duck_dir = tempfile::tempdir()?;
        if let Some(mut t) = engines::duckdb(sqlite_file.as_deref(), duck_dir.path()).await? {
            tables.push(latency(&mut t, &audit, args.iterations).await?);
        }
    }
    #[cfg(not(feature = "duckdb"))]
    engines::duckdb_skipped();

    println!();
    println!("Added median latency of run_query over the direct driver call, ms:");
    println!();
    println!("| engine | direct, 100 rows | in-process, 100 rows | over HTTP, 100 rows | in-process, all | over HTTP, all | plain client: in-process, 100 rows | plain client: over HTTP, 100 rows |");
    println!("|---|---|---|---|---|---|---|---|");
    for l in &tables {
        println!(
            "| {} | {:.3} | {:+.3} | {:+.3} | {:+.3} | {:+.3} | {:+.3} | {:+.3} |",
            l.name,
            median(&mut l.s[DIRECT][HUNDRED_ROWS].clone()),
            l.added(INPROC, Some(HUNDRED_ROWS)),
            l.added(HTTP, Some(HUNDRED_ROWS)),
            l.added(INPROC, None),
            l.added(HTTP, None),
            l.added(INPROC_PLAIN, Some(HUNDRED_ROWS)),
            l.added(HTTP_PLAIN, Some(HUNDRED_ROWS)),
        );
    }

    let (Some(t), Some(url)) = (pg, args.url.as_deref()) else {
        println!("PostgreSQL: skipped: the fsync, guard, throughput and mutation measurements");
        return Ok(());
    };
    if let Some(l) = tables.first() {
        let verdict = |v: f64, target: f64| if v < target { "met" } else { "NOT met" };
        println!();
        for (client, inproc, http) in [
            ("rmcp's client", INPROC, HTTP),
            ("plain client", INPROC_PLAIN, HTTP_PLAIN),
        ] {
            let inproc = l.added(inproc, Some(HUNDRED_ROWS));
            let http = l.added(http, Some(HUNDRED_ROWS));
            println!(
                "{}, 100 rows, {client}: added {inproc:.3} ms in process (target < 0.3 ms: {}), {http:.3} ms over HTTP (target < 0.6 ms: {}).",
                l.name,
                verdict(inproc, 0.3),
                verdict(http, 0.6)
            );
        }
    }
    if args.latency_only {
        return Ok(());
    }
    postgres_extras(&t, url, &audit, &args).await
}

/// The 100-row query against a direct call pipelined as the backend pipelines it (one round
/// trip), interleaved with the plain direct call, the engine and the in-process tool: what
/// sqlgate's own work costs once the backend's fewer round trips are taken out.
async fn pipelined_baseline(
    t: &Target<engines::Postgres>,
    audit: &Audit,
    iterations: usize,
) -> Result<(), Error> {
    let sql = &t.queries[HUNDRED_ROWS];
    let approved = t
        .engine
        .guard()
        .check_with_row_cap(sql, Some(POLICY_MAX_ROWS + 1))
        .map_err(|r| r.error.message)?
        .sql;
    let inproc = in_process(t.engine.clone(), audit.clone()).await?;
    let s = interleaved(iterations / 10, iterations, 4, async |_, path| {
        match path {
            0 => {
                engines::pg_direct(&t.direct.0, &approved).await?;
            }
            1 => {
                engines::pg_pipelined(&t.direct.0, &approved).await?;
            }
            2 => {
                let (r, _) = t.engine.run_query(sql).await;
                r.map_err(|e| e.message)?;
            }
            _ => {
                tool(inproc.peer(), sql).await?;
            }
        }
        Ok(())
    })
    .await?;
    let _ = inproc.cancel().await;
    // Added: the median of the differences within a round, as in the latency tables.
    let added = |path: &[f64]| {
        let mut d: Vec<f64> = path.iter().zip(&s[1]).map(|(a, b)| a - b).collect();
        median(&mut d)
    };
    let (engine_added, inproc_added) = (added(&s[2]), added(&s[3]));
    let [mut direct, mut pipelined, mut engine, mut inproc]: [Vec<f64>; 4] =
        s.try_into().map_err(|_| "four paths")?;
    println!();
    println!(
        "PostgreSQL, 100 rows, against a direct call pipelined like the backend (one round trip), \
         median ms: direct {:.3}, direct pipelined {:.3}, engine {:.3} (added {engine_added:+.3}), \
         MCP in-process {:.3} (added {inproc_added:+.3})",
        median(&mut direct),
        median(&mut pipelined),
        median(&mut engine),
        median(&mut inproc),
    );
    Ok(())
}

/// PostgreSQL only: an fsynced audit file on disk, the guard in a hot loop, throughput with
/// 1, 8 and 32 clients, and the mutation table.
async fn postgres_extras(
    t: &Target<engines::Postgres>,
    url: &str,
    audit: &Audit,
    args: &Args,
) -> Result<(), Error> {
    let disk_dir = tempfile::tempdir()?;
    let disk_audit = Audit::file(&disk_dir.path().join("audit.jsonl"))?;
    let inproc_disk = in_process(t.engine.clone(), disk_audit.clone()).await?;
    let mut disk = Vec::new();
    for i in 0..(args.iterations / 2).max(100) {
        let start = Instant::now();
        tool(inproc_disk.peer(), &t.queries[i % QUERIES.len()]).await?;
        disk.push(ms(start));
    }
    let _ = inproc_disk.cancel().await;
    println!();
    println!(
        "PostgreSQL, MCP in-process with an fsynced audit file on disk: median {:.3}, p90 {:.3}, p99 {:.3} ms",
        median(&mut disk),
        percentile(&mut disk, 0.9),
        percentile(&mut disk, 0.99)
    );

    let guard = t.engine.guard();
    let cap = Some(POLICY_MAX_ROWS + 1);
    print!("Guard alone in a hot loop (warm caches), median ms:");
    let mut approved = Vec::new();
    for (name, sql) in QUERIES {
        let mut v = Vec::with_capacity(500);
        for _ in 0..500 {
            let start = Instant::now();
            let _ = guard.check_with_row_cap(sql, cap);
            v.push(ms(start));
        }
        print!(" {name} {:.3};", median(&mut v));
        let a = guard
            .check_with_row_cap(sql, cap)
            .map_err(|r| r.error.message)?;
        approved.push(a.sql);
    }
    println!();
    pipelined_baseline(t, audit, args.iterations).await?;
    let approved = Arc::new(approved);

    let shutdown = CancellationToken::new();
    let http_url = start_http(t.engine.clone(), audit.clone(), shutdown.clone()).await?;
    println!();
    println!(
        "| concurrent clients | run_query over HTTP, calls/s | direct tokio-postgres, queries/s | ratio |"
    );
    println!("|---|---|---|---|");
    for clients in [1usize, 8, 32] {
        let mcp = throughput(clients, args.seconds, |_| {
            let http_url = http_url.clone();
            async move { Ok(Box::new(HttpWorker(http_client(&http_url).await?)) as Box<dyn Worker>) }
        })
        .await?;
        let dir = throughput(clients, args.seconds, |_| {
            let approved = approved.clone();
            async move {
                Ok(Box::new(DirectWorker(pg_connect(url).await?, approved)) as Box<dyn Worker>)
            }
        })
        .await?;
        println!(
            "| {clients} | {mcp:.0} | {dir:.0} | {:.2} |",
            mcp / dir.max(1e-9)
        );
    }
    shutdown.cancel();
    mutation::report(url, args.iterations).await
}
