//! Connecting the configured database: the backend (the engine is the backend's to pick) and
//! its default policy.

use sqlgate::Policy;

use crate::app::demo::demo_policy;
use crate::backend::options::{ConnectOptions, DuckdbOptions};
use crate::backend::Backend;
use crate::config::{ServeConfig, Source};

/// Connects the configured backend and returns it with its default policy.
pub async fn connect(cfg: &ServeConfig) -> Result<(Backend, Policy), String> {
    let options = ConnectOptions {
        pool_size: cfg.pool_size,
        max_result_bytes: cfg.max_result_bytes,
        statement_timeout: cfg.statement_timeout,
        require_read_only_role: cfg.require_read_only_role,
        write_mode: cfg.mode.writes().then(|| cfg.mode.as_str()),
        duckdb: DuckdbOptions {
            max_memory: cfg.duckdb_max_memory.clone(),
            threads: cfg.duckdb_threads,
        },
    };
    let backend = crate::backend::connect::connect(&cfg.source, &options)
        .await
        .map_err(|e| e.to_string())?;
    let policy = match cfg.source {
        Source::Demo => demo_policy(),
        _ => Policy::for_dialect(backend.dialect()),
    };
    Ok((backend, policy))
}
