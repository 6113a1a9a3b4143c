//! Fault tests against a real PostgreSQL, through the MCP server over streamable HTTP:
//! - the database stopped while the server runs gives `database_unavailable` (retryable), and the
//!   server recovers when it comes back (on a throwaway cluster this test creates and destroys
//!   with `scripts/pg-cluster.sh`, never the shared one);
//! - 50 concurrent HTTP sessions each running 100 queries complete without error (Chinook).
//!
//! (The statement timeout, `query_timeout`, is tested in `postgres.rs`.)
//!
//! Needs `SQLGATE_CHINOOK_URL` (set by `scripts/test.sh`, which also means the PostgreSQL server
//! binaries are installed); skipped with a message without it, a failure under `CI=true`.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolResult;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::json;
use sqlgate_mcp::audit::Audit;

mod common;
use common::{call, open_http, pg_engine, postgres_policy, start_http, structured, try_call};

fn chinook_url() -> Option<String> {
    common::chinook_url("the fault tests")
}

/// A throwaway cluster made by `scripts/pg-cluster.sh`, removed on drop.
struct Cluster {
    dir: PathBuf,
    port: String,
    url: String,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pg-cluster.sh")
}

fn env_value(env_file: &Path, var: &str) -> Option<String> {
    let text = std::fs::read_to_string(env_file).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("export {var}=")))
        .map(str::to_string)
}

impl Cluster {
    fn start() -> Cluster {
        // While this cluster is stopped, nothing may take its port before it restarts. So: a
        // range no other cluster scans (they start at 54329 and take the first free port), below
        // the kernel's ephemeral ports (Linux: 32768-60999; the other test's hundreds of client
        // connections draw their source ports from there), and a base above every earlier start
        // in this process (starts scan upward).
        static STARTS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let nth = STARTS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let base = 21_000 + (std::process::id() % 1_000) * 8 + nth;
        let out = Command::new("bash")
            .arg(script())
            .arg("start")
            .env("SQLGATE_PG_PORT_BASE", base.to_string())
            .output()
            .expect("run pg-cluster.sh start");
        assert!(
            out.status.success(),
            "pg-cluster.sh start failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let env_file = PathBuf::from(stdout.lines().last().unwrap_or_default().trim());
        let dir = env_file.parent().map(Path::to_path_buf).unwrap_or_default();
        let cluster = Cluster {
            port: env_value(&env_file, "SQLGATE_PG_PORT").unwrap_or_default(),
            url: env_value(&env_file, "SQLGATE_PG_URL").unwrap_or_default(),
            dir,
        };
        assert!(
            !cluster.port.is_empty() && !cluster.url.is_empty(),
            "no port/URL in {}",
            env_file.display()
        );
        cluster
    }

    /// Fast shutdown (what `pg_ctl stop -m fast` sends: SIGINT to the postmaster), keeping the
    /// data directory; returns once the postmaster is gone.
    fn stop_server(&self) {
        let pid_file = self.dir.join("data/postmaster.pid");
        let pid = std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|t| t.lines().next().map(str::trim).map(str::to_string))
            .filter(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
            .expect("postmaster pid");
        let status = Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .expect("kill");
        assert!(status.success(), "kill -INT {pid}");
        let deadline = Instant::now() + Duration::from_secs(60);
        while Command::new("kill")
            .args(["-0", &pid])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
        {
            assert!(Instant::now() < deadline, "postmaster {pid} did not stop");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Starts the same cluster again, on the same port.
    fn restart(&self) {
        let out = Command::new("bash")
            .arg(script())
            .arg("start")
            .arg(&self.dir)
            .env("SQLGATE_PG_PORT_BASE", &self.port)
            .output()
            .expect("run pg-cluster.sh start DIR");
        assert!(
            out.status.success(),
            "pg-cluster.sh start DIR failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = env_value(&self.dir.join("env"), "SQLGATE_PG_PORT").unwrap_or_default();
        assert_eq!(
            port,
            self.port,
            "the cluster came back on another port (its port was taken meanwhile): {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.dir.join(".sqlgate-pg-cluster").exists() {
            let _ = Command::new("bash")
                .arg(script())
                .arg("stop")
                .arg(&self.dir)
                .output();
        }
    }
}

async fn run_sql(url: &str, sql: &str) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect as superuser");
    let conn = tokio::spawn(conn);
    client.batch_execute(sql).await.expect("setup SQL");
    drop(client);
    let _ = conn.await;
}

fn assert_unavailable(r: &CallToolResult, what: &str, url: &str) {
    assert_eq!(r.is_error, Some(true), "{what}: {r:?}");
    let e = structured(r);
    assert_eq!(e["code"], "database_unavailable", "{what}: {e}");
    assert_eq!(e["retryable"], true, "{what}: {e}");
    assert_eq!(e["stage"], "execute", "{what}: {e}");
    assert!(!e.to_string().contains(url), "{what}: the URL leaked: {e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn database_stopped_then_back() {
    if chinook_url().is_none() {
        return;
    }
    let cluster = tokio::task::spawn_blocking(Cluster::start)
        .await
        .expect("start cluster");
    run_sql(
        &cluster.url,
        "CREATE TABLE t AS SELECT g AS id, md5(g::text) AS v FROM generate_series(1, 1000) g; ANALYZE t;",
    )
    .await;
    let engine = Arc::new(
        pg_engine(
            &cluster.url,
            4,
            Duration::from_secs(20),
            postgres_policy(100),
        )
        .await,
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = Audit::file(&dir.path().join("audit.jsonl")).expect("audit");
    let (url, shutdown) = start_http(engine, audit, open_http()).await;
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .expect("initialize over HTTP");
    let count = json!({"sql": "SELECT count(*) AS n FROM t"});

    let r = call(&client, "run_query", count.clone()).await;
    assert_eq!(structured(&r)["rows"][0]["n"], 1000, "{r:?}");

    // A query in flight when the database shuts down.
    let in_flight = {
        let client = client.peer().clone();
        tokio::spawn(async move {
            call(
                &client,
                "run_query",
                json!({"sql": "SELECT count(*) FROM t a, t b, t c"}),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(500)).await;
    let c = Arc::new(cluster);
    let stopper = c.clone();
    tokio::task::spawn_blocking(move || stopper.stop_server())
        .await
        .expect("stop");
    let r = in_flight.await.expect("join");
    assert_unavailable(&r, "query in flight at shutdown", &c.url);

    // While it is down: every query, with pooled or new connections, is database_unavailable.
    for i in 0..3 {
        let r = call(&client, "run_query", count.clone()).await;
        assert_unavailable(&r, &format!("query {i} while down"), &c.url);
    }
    // Tools that need no database still work; list_tables falls back to the last catalog.
    let r = call(&client, "validate_query", count.clone()).await;
    assert_eq!(structured(&r)["allowed"], true);
    let r = call(&client, "list_tables", json!({})).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let r = call(&client, "describe_table", json!({"table": "t"})).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");

    // Back up: the very next call succeeds, and so do the ones after it.
    let restarter = c.clone();
    tokio::task::spawn_blocking(move || restarter.restart())
        .await
        .expect("restart");
    for i in 0..10 {
        let r = call(&client, "run_query", count.clone()).await;
        assert_ne!(r.is_error, Some(true), "query {i} after restart: {r:?}");
        assert_eq!(structured(&r)["rows"][0]["n"], 1000);
    }
    let r = call(&client, "list_tables", json!({})).await;
    assert_ne!(r.is_error, Some(true), "{r:?}");

    let _ = client.cancel().await;
    shutdown.cancel();
    // The cluster is stopped and removed when the last Arc drops.
    drop(c);
}

const SESSIONS: usize = 50;
const QUERIES: usize = 100;

/// Query `q` of session `s` and the rows it returns (`usize::MAX`: any number).
fn nth_query(s: usize, q: usize) -> (String, usize) {
    // 275 artists: ids 1..=275.
    let id = (s * QUERIES + q) % 275 + 1;
    match q % 3 {
        0 => (
            format!("SELECT artist_id, name FROM artist WHERE artist_id = {id}"),
            1,
        ),
        1 => (
            format!(
                "SELECT al.title FROM album al JOIN artist ar ON ar.artist_id = al.artist_id \
                 WHERE ar.artist_id = {id} ORDER BY al.title"
            ),
            usize::MAX,
        ),
        _ => (
            "SELECT genre_id, name FROM genre ORDER BY genre_id".to_string(),
            25,
        ),
    }
}

/// Session `s` over HTTP at `url`: its [`QUERIES`] queries; returns the failures.
async fn session(url: String, s: usize) -> Result<Vec<String>, String> {
    let client =
        ().serve(StreamableHttpClientTransport::from_uri(url))
            .await
            .map_err(|e| format!("session {s}: initialize: {e}"))?;
    let mut failures = Vec::new();
    for q in 0..QUERIES {
        let (sql, want) = nth_query(s, q);
        match try_call(&client, "run_query", json!({ "sql": sql })).await {
            Err(e) => failures.push(format!("session {s} query {q}: {e}")),
            Ok(r) if r.is_error == Some(true) => {
                failures.push(format!("session {s} query {q}: {}", structured(&r)))
            }
            Ok(r) => {
                let n = structured(&r)["row_count"].as_u64().unwrap_or(u64::MAX) as usize;
                if want != usize::MAX && n != want {
                    failures.push(format!("session {s} query {q}: {n} rows, want {want}"));
                }
            }
        }
    }
    let _ = client.cancel().await;
    Ok(failures)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_http_sessions_times_one_hundred_queries() {
    let Some(db) = chinook_url() else { return };
    let engine = Arc::new(pg_engine(&db, 8, Duration::from_secs(20), postgres_policy(100)).await);
    let dir = tempfile::tempdir().expect("tempdir");
    let audit_path = dir.path().join("audit.jsonl");
    let audit = Audit::file(&audit_path).expect("audit");
    let (url, shutdown) = start_http(engine, audit, open_http()).await;
    let start = Instant::now();
    let tasks = (0..SESSIONS).map(|s| tokio::spawn(session(url.clone(), s)));
    let all = tokio::time::timeout(Duration::from_secs(300), futures::future::join_all(tasks))
        .await
        .expect("50 x 100 queries within 5 minutes");
    let mut failures: Vec<String> = Vec::new();
    for t in all {
        match t {
            Ok(Ok(f)) => failures.extend(f),
            Ok(Err(e)) => failures.push(e),
            Err(e) => failures.push(format!("task: {e}")),
        }
    }
    let elapsed = start.elapsed();
    shutdown.cancel();
    assert!(
        failures.is_empty(),
        "{} failures, first: {:?}",
        failures.len(),
        failures.iter().take(5).collect::<Vec<_>>()
    );
    let audit = std::fs::read_to_string(&audit_path).expect("audit");
    let allowed = audit
        .lines()
        .filter(|l| l.contains("\"tool\":\"run_query\"") && l.contains("\"decision\":\"allow\""))
        .count();
    assert_eq!(allowed, SESSIONS * QUERIES, "one audit record per query");
    eprintln!(
        "{} queries in {} sessions: {:.1} s, {:.0} queries/s",
        SESSIONS * QUERIES,
        SESSIONS,
        elapsed.as_secs_f64(),
        (SESSIONS * QUERIES) as f64 / elapsed.as_secs_f64()
    );
}
