//! The added latency of a previewed, auto-approved (`full_access`) mutation over the same
//! statement sent directly with tokio-postgres. The statement sets a genre's name to itself, so
//! every commit leaves Chinook as it was.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::service::Peer;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use sqlgate::{Dialect, Policy, QueryClass, WriteRules};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::postgres::PgBackend;
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::codes::Mode;
use sqlgate_mcp::gate::approval::ApprovalAnswer;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

use crate::engines::pg_connect;
use crate::timing::{median, ms};
use crate::{audit_dir, Error};

const MUTATION: &str = "UPDATE genre SET name = name WHERE genre_id = 1";

async fn full_access_engine(url: &str) -> Result<Arc<Engine>, Error> {
    let pg = PgBackend::connect(url, 2, Duration::from_secs(10), false)
        .await
        .map_err(|e| e.to_string())?;
    let mut config = EngineConfig::read_only(
        Policy {
            writes: Some(WriteRules::new(&["genre"], &[QueryClass::MutationCreate])),
            ..Policy::for_dialect(Dialect::Postgres)
        },
        Duration::from_secs(10),
    );
    config.mode = Mode::FullAccess;
    Ok(Arc::new(Engine::new(Backend::Postgres(pg), config).await?))
}

/// The direct path: the extended protocol in a read-write transaction, committed.
async fn direct(client: &tokio_postgres::Client, sql: &str) -> Result<u64, Error> {
    client.execute("BEGIN READ WRITE", &[]).await?;
    let n = client.execute(sql, &[]).await;
    client.execute("COMMIT", &[]).await?;
    Ok(n?)
}

async fn tool(peer: &Peer<RoleClient>) -> Result<u64, Error> {
    let mut p = CallToolRequestParams::new("run_mutation");
    if let Value::Object(m) = json!({ "sql": MUTATION }) {
        p = p.with_arguments(m);
    }
    let r = peer.call_tool(p).await?;
    let out = r.structured_content.unwrap_or(Value::Null);
    if r.is_error == Some(true) {
        return Err(format!("run_mutation failed: {out}").into());
    }
    Ok(out["affected_rows"].as_u64().unwrap_or(0))
}

/// Prints the median latency of the three paths, interleaved, and what run_mutation adds.
pub async fn report(url: &str, iterations: usize) -> Result<(), Error> {
    let engine = full_access_engine(url).await?;
    let sql = engine
        .guard()
        .check_mutation(MUTATION)
        .map_err(|r| r.error.message)?
        .sql;
    let client = pg_connect(url).await?;
    // The audit file where fsync is free (/dev/shm), as for the read paths.
    let dir = tempfile::tempdir_in(audit_dir()).or_else(|_| tempfile::tempdir())?;
    let server = SqlGateServer::new(
        engine.clone(),
        Audit::file(&dir.path().join("audit.jsonl"))?,
    );
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(a).await {
            let _ = running.waiting().await;
        }
    });
    let mcp = ().serve(b).await?;
    let mut times: [Vec<f64>; 3] = Default::default();
    for _ in 0..iterations {
        let t = Instant::now();
        direct(&client, &sql).await?;
        times[0].push(ms(t));
        let t = Instant::now();
        let (out, _) = engine
            .run_mutation(MUTATION, |_| std::future::ready(ApprovalAnswer::Cancelled))
            .await;
        out.map_err(|e| e.message)?;
        times[1].push(ms(t));
        let t = Instant::now();
        tool(&mcp).await?;
        times[2].push(ms(t));
    }
    let _ = mcp.cancel().await;
    let [d, e, m] = times.map(|mut v| median(&mut v));
    println!();
    println!("Mutation, median ms, one client ({MUTATION}; committed each time):");
    println!();
    println!("| direct tokio-postgres (BEGIN, UPDATE, COMMIT) | engine run_mutation (full_access) | MCP in-process run_mutation | added by the engine | added by MCP in-process |");
    println!("|---|---|---|---|---|");
    println!(
        "| {d:.3} | {e:.3} | {m:.3} | {:+.3} | {:+.3} |",
        e - d,
        m - d
    );
    println!();
    println!("run_mutation executes the statement twice (the rolled-back preview, then the commit), so most of what it adds is one more round of BEGIN / statement / ROLLBACK.");
    Ok(())
}
