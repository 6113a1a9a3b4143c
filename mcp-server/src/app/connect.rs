//! Connecting the configured database: the backend and its default policy.

use sqlgate::Policy;

use crate::app::demo::{demo_backend, demo_policy};
use crate::backend::mysql::MysqlBackend;
use crate::backend::postgres::PgBackend;
use crate::backend::sqlite::SqliteBackend;
use crate::backend::Backend;
use crate::config::{ServeConfig, Source};

/// Connects the configured backend and returns it with its default policy.
pub async fn connect(cfg: &ServeConfig) -> Result<(Backend, Policy), String> {
    match &cfg.source {
        Source::Demo => Ok((demo_backend(cfg.mode.writes())?, demo_policy())),
        Source::Sqlite(path) => {
            let mut b = SqliteBackend::open(path).map_err(|e| e.to_string())?;
            if cfg.mode.writes() {
                b = b.allow_writes();
            }
            Ok((
                Backend::Sqlite(b),
                Policy::for_dialect(sqlgate::Dialect::Sqlite),
            ))
        }
        Source::Postgres(url) => {
            let pg = PgBackend::connect(
                url,
                cfg.pool_size,
                cfg.statement_timeout,
                cfg.require_read_only_role,
            )
            .await
            .map_err(|e| e.to_string())?;
            Ok((
                Backend::Postgres(pg),
                Policy::for_dialect(sqlgate::Dialect::Postgres),
            ))
        }
        Source::Mysql(url) => {
            let my = MysqlBackend::connect(url, cfg.pool_size, cfg.require_read_only_role)
                .await
                .map_err(|e| e.to_string())?;
            Ok((
                Backend::Mysql(my),
                Policy::for_dialect(sqlgate::Dialect::Mysql),
            ))
        }
        Source::Duckdb(path) => connect_duckdb(cfg, path),
    }
}

/// Opens a DuckDB file read-only; a write mode refuses to start (DuckDB is never opened writable).
#[cfg(feature = "duckdb")]
fn connect_duckdb(cfg: &ServeConfig, path: &std::path::Path) -> Result<(Backend, Policy), String> {
    use crate::backend::duckdb::{DuckdbBackend, DuckdbOptions};
    if cfg.mode.writes() {
        return Err(format!(
            "--mode {}: DuckDB databases are served read-only; use --mode read_only",
            cfg.mode.as_str()
        ));
    }
    let options = DuckdbOptions {
        max_memory: cfg.duckdb_max_memory.clone(),
        threads: cfg.duckdb_threads,
    };
    let b = DuckdbBackend::open(path, &options).map_err(|e| e.to_string())?;
    Ok((
        Backend::Duckdb(b),
        Policy::for_dialect(sqlgate::Dialect::Duckdb),
    ))
}

/// Without the feature, a `duckdb:` URL says how to get a build that serves it.
#[cfg(not(feature = "duckdb"))]
fn connect_duckdb(
    _cfg: &ServeConfig,
    _path: &std::path::Path,
) -> Result<(Backend, Policy), String> {
    Err(
        "this sqlgate-mcp was built without DuckDB: cargo install --path mcp-server --features duckdb"
            .into(),
    )
}
