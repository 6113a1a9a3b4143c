//! From a database URL to a connected engine: [`Source`] is what the URL names, and [`connect`]
//! has one arm per engine.

use std::path::PathBuf;

use super::error::ConnectError;
use super::mysql::MysqlBackend;
use super::options::ConnectOptions;
use super::postgres::PgBackend;
use super::sqlite::SqliteBackend;
use super::Backend;

/// Where the data comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The embedded sample database.
    Demo,
    /// A SQLite file, opened read-only.
    Sqlite(PathBuf),
    /// A PostgreSQL URL (kept out of every message).
    Postgres(String),
    /// A MySQL / MariaDB URL, `mysql://` or `mariadb://` (kept out of every message).
    Mysql(String),
    /// A DuckDB file, opened read-only (served only when built with the feature `duckdb`).
    Duckdb(PathBuf),
}

/// Why a database URL was not understood (the URL itself is never repeated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UrlError {
    /// `sqlite:` with nothing after it.
    SqliteWithoutPath,
    /// `duckdb:` with nothing after it.
    DuckdbWithoutPath,
    /// A scheme no engine serves.
    UnknownScheme,
}

impl std::fmt::Display for UrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            UrlError::SqliteWithoutPath => "sqlite: URL has no path",
            UrlError::DuckdbWithoutPath => "duckdb: URL has no path",
            UrlError::UnknownScheme => {
                "database URL must start with postgres://, postgresql://, mysql://, mariadb://, \
                 sqlite: or duckdb:"
            }
        })
    }
}

impl std::error::Error for UrlError {}

impl Source {
    /// Parses a database URL, never echoing it in errors.
    pub fn parse(url: &str) -> Result<Source, UrlError> {
        let u = url.trim();
        if let Some(rest) = u.strip_prefix("sqlite:") {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            if path.is_empty() {
                return Err(UrlError::SqliteWithoutPath);
            }
            return Ok(Source::Sqlite(PathBuf::from(path)));
        }
        if let Some(rest) = u.strip_prefix("duckdb:") {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            if path.is_empty() {
                return Err(UrlError::DuckdbWithoutPath);
            }
            return Ok(Source::Duckdb(PathBuf::from(path)));
        }
        if u.starts_with("postgres://") || u.starts_with("postgresql://") {
            return Ok(Source::Postgres(u.to_string()));
        }
        if u.starts_with("mysql://") || u.starts_with("mariadb://") {
            return Ok(Source::Mysql(u.to_string()));
        }
        Err(UrlError::UnknownScheme)
    }
}

/// Connects the database `source` names.
pub async fn connect(source: &Source, options: &ConnectOptions) -> Result<Backend, ConnectError> {
    let writes = options.write_mode.is_some();
    Ok(match source {
        Source::Demo => Backend::Sqlite(SqliteBackend::sample(writes)?),
        Source::Sqlite(path) => {
            let backend = SqliteBackend::open(path)?;
            Backend::Sqlite(if writes {
                backend.allow_writes()
            } else {
                backend
            })
        }
        Source::Postgres(url) => Backend::Postgres(
            PgBackend::connect(
                url,
                options.pool_size,
                options.statement_timeout,
                options.require_read_only_role,
            )
            .await?,
        ),
        Source::Mysql(url) => Backend::Mysql(
            MysqlBackend::connect(url, options.pool_size, options.require_read_only_role).await?,
        ),
        Source::Duckdb(path) => duckdb(path, options)?,
    })
}

/// Opens a DuckDB file read-only, its memory bounded by `--duckdb-max-memory` or a default derived
/// from the pool and the result cap; a write mode refuses to start (DuckDB is never opened
/// writable).
#[cfg(feature = "duckdb")]
fn duckdb(path: &std::path::Path, options: &ConnectOptions) -> Result<Backend, ConnectError> {
    if let Some(mode) = options.write_mode {
        return Err(ConnectError::Setup(format!(
            "--mode {mode}: DuckDB databases are served read-only; use --mode read_only"
        )));
    }
    let mut duckdb = options.duckdb.clone();
    if duckdb.max_memory.is_none() {
        duckdb.max_memory = Some(super::options::default_duckdb_max_memory(
            options.pool_size,
            options.max_result_bytes,
        ));
    }
    let backend = super::duckdb::DuckdbBackend::open(path, &duckdb)?;
    Ok(Backend::Duckdb(backend))
}

/// Without the feature, a `duckdb:` URL says how to get a build that serves it.
#[cfg(not(feature = "duckdb"))]
fn duckdb(_path: &std::path::Path, _options: &ConnectOptions) -> Result<Backend, ConnectError> {
    Err(ConnectError::Setup(
        "this sqlgate-mcp was built without DuckDB: cargo install --path mcp-server --features duckdb"
            .into(),
    ))
}
