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
//! SQLite from the repository's `tests/fixtures/chinook/Chinook_Sqlite.sqlite`, MariaDB from
//! `--mariadb-url` or `SQLGATE_MARIADB_CHINOOK_URL`, DuckDB from a Chinook file built from the
//! SQLite one in a temporary folder (`tests/common/chinook_duckdb.rs`, as the DuckDB tests build
//! it). An engine not configured is skipped with a line saying why.
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

//!
//! Modules: `engines` (each engine and its direct driver), `latency` (the per-engine tables),
//! `postgres_extras` (the PostgreSQL-only measurements), `throughput`, `mutation`, `clients` (the
//! MCP server served and called), `plain_client`, `timing` (medians, interleaved timing).

use std::path::PathBuf;

use sqlgate_mcp::audit::Audit;

#[cfg(feature = "duckdb")]
#[path = "../tests/common/chinook_duckdb.rs"]
mod chinook_duckdb;
mod clients;
mod engines;
mod latency;
mod mutation;
mod plain_client;
mod postgres_extras;
mod throughput;
mod timing;

use engines::{Postgres, Target};
use latency::{latency, Latency, DIRECT, HTTP, HTTP_PLAIN, INPROC, INPROC_PLAIN};
use timing::median;

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

fn audit_dir() -> PathBuf {
    match std::env::var_os("SQLGATE_BENCH_AUDIT_DIR") {
        Some(d) => PathBuf::from(d),
        None if std::path::Path::new("/dev/shm").is_dir() => PathBuf::from("/dev/shm"),
        None => std::env::temp_dir(),
    }
}

#[tokio::main]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("bench: {e}");
        std::process::exit(sqlgate_mcp::app::exit::FAILURE);
    }
}

/// The latency table of every configured engine; the PostgreSQL target, when there is one, for
/// the measurements after the tables.
async fn latency_tables(
    args: &Args,
    audit: &Audit,
) -> Result<(Vec<Latency>, Option<Target<Postgres>>), Error> {
    let sqlite_file = engines::chinook_sqlite();
    let mut tables: Vec<Latency> = Vec::new();
    let postgres = engines::postgres(args.url.as_deref()).await?;
    let mut pg = None;
    if let Some(mut t) = postgres {
        tables.push(latency(&mut t, audit, args.iterations).await?);
        pg = Some(t);
    }
    let mut sqlite = engines::sqlite(&sqlite_file).await?;
    tables.push(latency(&mut sqlite, audit, args.iterations).await?);
    if let Some(mut t) = engines::mysql(args.mariadb_url.as_deref()).await? {
        tables.push(latency(&mut t, audit, args.iterations).await?);
    }
    #[cfg(feature = "duckdb")]
    {
        let duck_dir = tempfile::tempdir()?;
        let mut duck = engines::duckdb(&sqlite_file, duck_dir.path()).await?;
        tables.push(latency(&mut duck, audit, args.iterations).await?);
    }
    #[cfg(not(feature = "duckdb"))]
    engines::duckdb_skipped();
    Ok((tables, pg))
}

/// The summary table: the added median latency of each engine over its direct driver call.
fn print_added(tables: &[Latency]) {
    println!();
    println!("Added median latency of run_query over the direct driver call, ms:");
    println!();
    println!("| engine | direct, 100 rows | in-process, 100 rows | over HTTP, 100 rows | in-process, all | over HTTP, all | plain client: in-process, 100 rows | plain client: over HTTP, 100 rows |");
    println!("|---|---|---|---|---|---|---|---|");
    for l in tables {
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
}

/// The first engine's added latency on the 100-row query against the targets (< 0.3 ms in
/// process, < 0.6 ms over HTTP), for rmcp's client and the plain one.
fn print_targets(l: &Latency) {
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
    let (tables, pg) = latency_tables(&args, &audit).await?;
    print_added(&tables);

    let (Some(t), Some(url)) = (pg, args.url.as_deref()) else {
        println!("PostgreSQL: skipped: the fsync, guard, throughput and mutation measurements");
        return Ok(());
    };
    if let Some(l) = tables.first() {
        print_targets(l);
    }
    if args.latency_only {
        return Ok(());
    }
    postgres_extras::postgres_extras(&t, url, &audit, &args).await
}
