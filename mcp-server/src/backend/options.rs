//! What `serve` asks of the database it connects: the pool, the timeouts, whether the role must
//! be read-only, whether mutations may run, and DuckDB's resource settings.

use std::time::Duration;

/// Default `--duckdb-threads`: a server shares its machine.
pub const DEFAULT_DUCKDB_THREADS: u64 = 2;

/// DuckDB's resource settings for `serve` (`--duckdb-max-memory`, `--duckdb-threads`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuckdbOptions {
    /// `max_memory` (e.g. `1GB`); DuckDB's default when `None`.
    pub max_memory: Option<String>,
    /// Worker threads of the database.
    pub threads: u64,
}

impl Default for DuckdbOptions {
    fn default() -> Self {
        DuckdbOptions {
            max_memory: None,
            threads: DEFAULT_DUCKDB_THREADS,
        }
    }
}

/// How to connect a database.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Connections in the pool (PostgreSQL, MySQL / MariaDB).
    pub pool_size: usize,
    /// Per-query timeout (also how long PostgreSQL waits for a pooled connection).
    pub statement_timeout: Duration,
    /// Refuse to start when the role can write.
    pub require_read_only_role: bool,
    /// The name of the server's write mode, when mutations may run (`None`: read-only).
    pub write_mode: Option<&'static str>,
    /// DuckDB's resource settings.
    pub duckdb: DuckdbOptions,
}
