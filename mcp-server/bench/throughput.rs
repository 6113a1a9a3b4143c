//! Throughput: concurrent clients calling in a loop for a fixed time, over MCP (HTTP) or directly
//! with tokio-postgres.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::service::RunningService;
use rmcp::RoleClient;

use crate::clients::tool;
use crate::engines::pg_direct;
use crate::{Error, QUERIES};

/// Runs `clients` concurrent loops of `call` for `seconds`; returns calls per second.
pub async fn throughput<F, Fut>(clients: usize, seconds: f64, make: F) -> Result<f64, Error>
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

/// One client of a throughput run: calls query `q` of [`QUERIES`], then closes.
pub trait Worker: Send {
    fn call(
        &mut self,
        q: usize,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>> + Send + '_>>;
    fn close(self: Box<Self>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;
}

/// An rmcp client over HTTP.
pub struct HttpWorker(pub RunningService<RoleClient, ()>);
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

/// A tokio-postgres connection running the approved SQL of each query.
pub struct DirectWorker(pub tokio_postgres::Client, pub Arc<Vec<String>>);
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
