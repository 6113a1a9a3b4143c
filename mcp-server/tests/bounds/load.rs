//! The load itself: the binary started over HTTP on a free loopback port, 8 attacking clients and
//! one plain reader for the run's duration, and what the server answered and how much memory it
//! held at its peak.

use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::common::{structured, try_call};

/// Clients sending attacks at once (the default pool size).
const ATTACKERS: usize = 8;

/// An engine to serve and what to send it.
pub struct Engine {
    /// Its name in messages.
    pub name: &'static str,
    /// `serve` arguments naming the database.
    pub args: Vec<String>,
    /// Attacks, sent round-robin by each attacking client.
    pub attacks: &'static [&'static str],
    /// A plain read that must keep succeeding.
    pub plain: &'static str,
}

/// What a run saw.
#[derive(Debug, Default)]
pub struct Report {
    /// Attacks answered with a refusal or a bound's error.
    pub attacks_refused: usize,
    /// Attacks that ran to a result (within the engine's bounds).
    pub attacks_succeeded: usize,
    /// Plain reads that succeeded.
    pub plain_reads: usize,
    /// Plain reads refused as retryable (a bound shared with the attacks: DuckDB's memory).
    pub plain_retryable: usize,
    /// The server's peak resident memory (`VmHWM`), MiB.
    pub peak_rss_mib: u64,
}

/// The run's length: `SQLGATE_BOUNDS_SECS`, 10 s by default.
fn duration() -> Duration {
    let secs = std::env::var("SQLGATE_BOUNDS_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    Duration::from_secs(secs)
}

/// The server's peak resident memory in MiB, from `/proc/<pid>/status` (0 where there is none).
fn peak_rss_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}

/// Starts `sqlgate-mcp serve` for `engine` over HTTP; returns the child and the endpoint URL.
async fn start(engine: &Engine) -> (tokio::process::Child, String) {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_sqlgate-mcp"))
        .arg("serve")
        .args(&engine.args)
        .args(["--http", "127.0.0.1:0", "--statement-timeout", "3s"])
        .args(["--pool-size", "12", "--allow-unauthenticated"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn sqlgate-mcp");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server did not start in 30 s")
            .expect("read stderr")
            .unwrap_or_else(|| panic!("{}: the server exited before listening", engine.name));
        if let Some(rest) = line.split("listening on ").nth(1) {
            break rest.trim().to_string();
        }
    };
    // The rest of stderr is drained, so that the server never blocks on it.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, url)
}

/// Whether a refusal of an attack is one the bounds explain: the guard's (any stage before
/// execution), or the engine's resource bound or statement timeout.
fn explained(out: &serde_json::Value) -> bool {
    out["stage"] != "execute"
        || matches!(
            out["code"].as_str(),
            Some("resource_limit" | "query_timeout")
        )
}

/// One client sending `sqls` round-robin from `start` until `until`: (refused, succeeded).
async fn client_loop(
    client: RunningService<RoleClient, ()>,
    name: &str,
    sqls: Vec<&'static str>,
    until: Instant,
    must_succeed: bool,
) -> (usize, usize) {
    let (mut refused, mut succeeded) = (0, 0);
    for sql in sqls.iter().cycle() {
        if Instant::now() >= until {
            break;
        }
        let r = try_call(&client, "run_query", json!({ "sql": sql }))
            .await
            .unwrap_or_else(|e| panic!("{name}: the connection failed on {sql}: {e}"));
        let out = structured(&r);
        if r.is_error == Some(true) {
            let shared_bound = out["retryable"] == true && out["code"] == "resource_limit";
            assert!(
                !must_succeed || shared_bound,
                "{name}: a plain read failed: {out}"
            );
            assert!(explained(&out), "{name}: {sql} failed unexplained: {out}");
            refused += 1;
        } else {
            succeeded += 1;
        }
    }
    let _ = client.cancel().await;
    (refused, succeeded)
}

/// Serves `engine` and runs the load; panics on a lost connection, an unexplained error or a
/// failed plain read.
pub async fn run_load(engine: &Engine) -> Report {
    let (mut child, url) = start(engine).await;
    let until = Instant::now() + duration();
    let mut tasks = Vec::new();
    for i in 0..=ATTACKERS {
        let transport = StreamableHttpClientTransport::from_uri(url.clone());
        let client = ().serve(transport).await.expect("initialize over HTTP");
        let (sqls, plain) = if i == ATTACKERS {
            (vec![engine.plain], true)
        } else {
            let n = engine.attacks.len();
            ((0..n).map(|k| engine.attacks[(i + k) % n]).collect(), false)
        };
        let name = engine.name;
        tasks.push(tokio::spawn(async move {
            (plain, client_loop(client, name, sqls, until, plain).await)
        }));
    }
    let mut report = Report::default();
    for task in tasks {
        let (plain, (refused, succeeded)) = task.await.expect("client task");
        if plain {
            report.plain_reads += succeeded;
            report.plain_retryable += refused;
        } else {
            report.attacks_refused += refused;
            report.attacks_succeeded += succeeded;
        }
    }
    report.peak_rss_mib = child.id().map_or(0, peak_rss_mib);
    let _ = child.kill().await;
    eprintln!("{}: {report:?}", engine.name);
    assert!(
        report.plain_reads > 0,
        "{}: no plain read: {report:?}",
        engine.name
    );
    assert!(
        report.attacks_refused + report.attacks_succeeded >= ATTACKERS,
        "{}: {report:?}",
        engine.name
    );
    report
}
