//! Latency, per engine, one client: each path of [`PATHS`] timed on the same queries, interleaved
//! query by query, and the tables of medians and added latency.

use std::sync::Arc;

use rmcp::service::RunningService;
use rmcp::RoleClient;
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::gate::Engine;
use tokio_util::sync::CancellationToken;

use crate::clients::{http_client, in_process, serve_in_process, start_http, tool};
use crate::engines::{Direct, Target};
use crate::plain_client::{PlainHttp, PlainLines};
use crate::timing::{interleaved, median, percentile};
use crate::{Error, POLICY_MAX_ROWS, QUERIES};

/// The paths timed, in the order of the tables' columns.
pub const PATHS: [&str; 7] = [
    "direct",
    "guard",
    "engine",
    "MCP in-process",
    "MCP HTTP",
    "MCP in-process, plain client",
    "MCP HTTP, plain client",
];
pub const DIRECT: usize = 0;
pub const GUARD: usize = 1;
pub const ENGINE: usize = 2;
pub const INPROC: usize = 3;
pub const HTTP: usize = 4;
pub const INPROC_PLAIN: usize = 5;
pub const HTTP_PLAIN: usize = 6;
/// The paths whose added latency the tables show, and the columns' names.
const ADDED: [(usize, &str); 5] = [
    (ENGINE, "added by the engine"),
    (INPROC, "added in-process"),
    (HTTP, "added over HTTP"),
    (INPROC_PLAIN, "added in-process, plain client"),
    (HTTP_PLAIN, "added over HTTP, plain client"),
];

/// One engine's latency samples.
pub struct Latency {
    /// The engine and its version.
    pub name: String,
    /// `s[path][query]`, milliseconds; index i of every path is the same round.
    pub s: Vec<Vec<Vec<f64>>>,
}

impl Latency {
    /// Every sample of `path`.
    pub fn all(&self, path: usize) -> Vec<f64> {
        self.s[path].iter().flatten().copied().collect()
    }

    /// The median of the paired differences of `path` with `direct` (same query, same round),
    /// for query `q` or all of them.
    pub fn added(&self, path: usize, q: Option<usize>) -> f64 {
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

/// The four MCP clients of one engine's latency run, and the token that stops its HTTP server.
struct Clients {
    inproc: RunningService<RoleClient, ()>,
    http: RunningService<RoleClient, ()>,
    inproc_plain: PlainLines,
    http_plain: PlainHttp,
    shutdown: CancellationToken,
}

impl Clients {
    /// Serves `engine` over HTTP and in process, and connects a client of each kind.
    async fn connect(engine: &Arc<Engine>, audit: &Audit) -> Result<Self, Error> {
        let shutdown = CancellationToken::new();
        let url = start_http(engine.clone(), audit.clone(), shutdown.clone()).await?;
        Ok(Clients {
            inproc: in_process(engine.clone(), audit.clone()).await?,
            http: http_client(&url).await?,
            inproc_plain: PlainLines::connect(serve_in_process(engine.clone(), audit.clone()))
                .await?,
            http_plain: PlainHttp::connect(&url).await?,
            shutdown,
        })
    }

    /// Closes the rmcp clients and stops the HTTP server.
    async fn close(self) {
        let _ = self.inproc.cancel().await;
        let _ = self.http.cancel().await;
        self.shutdown.cancel();
    }
}

/// What the server executes for each query (the direct path runs the same text).
fn approved_sql<D: Direct>(t: &Target<D>) -> Result<Vec<String>, Error> {
    let guard = t.engine.guard();
    let cap = Some(POLICY_MAX_ROWS + 1);
    let mut approved: Vec<String> = Vec::new();
    for ((name, _), sql) in QUERIES.iter().zip(&t.queries) {
        let a = guard
            .check_with_row_cap(sql, cap)
            .map_err(|r| format!("{}: {name}: refused: {}", t.name, r.error.message))?;
        approved.push(a.sql);
    }
    Ok(approved)
}

/// Checks that every path returns the same number of rows for every query.
async fn same_rows_on_every_path<D: Direct>(
    t: &mut Target<D>,
    approved: &[String],
    c: &mut Clients,
) -> Result<(), Error> {
    for (q, (name, _)) in QUERIES.iter().enumerate() {
        let sql = &t.queries[q];
        let d = t.direct.run(&approved[q]).await?;
        let h = tool(c.http.peer(), sql).await?;
        let p = tool(c.inproc.peer(), sql).await?;
        let pp = c.inproc_plain.run_query(sql).await?;
        let hp = c.http_plain.run_query(sql).await?;
        if [h, p, pp, hp].iter().any(|n| *n != d) {
            let e = format!(
                "{}: {name}: {d} rows direct, {h} over HTTP, {p} in-process, {pp} in-process \
                 (plain client), {hp} over HTTP (plain client)",
                t.name
            );
            return Err(e.into());
        }
    }
    Ok(())
}

/// `samples[path][round]` as `s[path][query]`: round r ran query r % QUERIES.len().
fn by_query(samples: Vec<Vec<f64>>) -> Vec<Vec<Vec<f64>>> {
    let mut s: Vec<Vec<Vec<f64>>> = vec![vec![Vec::new(); QUERIES.len()]; PATHS.len()];
    for (path, by_round) in samples.into_iter().enumerate() {
        for (r, v) in by_round.into_iter().enumerate() {
            s[path][r % QUERIES.len()].push(v);
        }
    }
    s
}

/// The latency of every path on one engine: checks that every path returns the same rows,
/// then runs `iterations` rounds per query (after a warm-up), the paths interleaved in a
/// rotating order so that no path always runs right after another.
pub async fn latency<D: Direct>(
    t: &mut Target<D>,
    audit: &Audit,
    iterations: usize,
) -> Result<Latency, Error> {
    let guard = t.engine.guard();
    let cap = Some(POLICY_MAX_ROWS + 1);
    let approved = approved_sql(t)?;
    let mut c = Clients::connect(&t.engine, audit).await?;
    same_rows_on_every_path(t, &approved, &mut c).await?;

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
                tool(c.inproc.peer(), sql).await?;
            }
            HTTP => {
                tool(c.http.peer(), sql).await?;
            }
            INPROC_PLAIN => {
                c.inproc_plain.run_query(sql).await?;
            }
            _ => {
                c.http_plain.run_query(sql).await?;
            }
        }
        Ok(())
    })
    .await?;
    c.close().await;
    let out = Latency {
        name: t.name.clone(),
        s: by_query(samples),
    };
    out.print();
    Ok(out)
}
