//! PostgreSQL only, after the latency tables: an fsynced audit file on disk, the guard in a hot
//! loop, the latency against a pipelined direct call, throughput with 1, 8 and 32 clients, and
//! the mutation table.

use std::sync::Arc;
use std::time::Instant;

use sqlgate_mcp::audit::Audit;
use tokio_util::sync::CancellationToken;

use crate::clients::{http_client, in_process, start_http, tool};
use crate::engines::{self, pg_connect, Target};
use crate::throughput::{throughput, DirectWorker, HttpWorker, Worker};
use crate::timing::{interleaved, median, ms, percentile};
use crate::{mutation, Args, Error, HUNDRED_ROWS, POLICY_MAX_ROWS, QUERIES};

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
pub async fn postgres_extras(
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
