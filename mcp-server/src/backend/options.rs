//! What `serve` asks of the database it connects: the pool, the timeouts, whether the role must
//! be read-only, whether mutations may run, and DuckDB's resource settings.

use std::time::Duration;

/// Default `--duckdb-threads`: a server shares its machine.
pub const DEFAULT_DUCKDB_THREADS: u64 = 2;

/// DuckDB's `max_memory` when `--duckdb-max-memory` is not given (DuckDB's own default is 80%
/// of the machine's memory): 64 result caps per query the pool runs at once, at least 32 MiB
/// per query and 256 MB in all (512 MB with the defaults), in DuckDB's syntax.
pub fn default_duckdb_max_memory(pool_size: usize, max_result_bytes: usize) -> String {
    let per_query = max_result_bytes.saturating_mul(64).max(32 << 20);
    let total = per_query.saturating_mul(pool_size.max(1)).max(256 << 20);
    format!("{}MB", total / 1_000_000)
}

/// DuckDB's resource settings for `serve` (`--duckdb-max-memory`, `--duckdb-threads`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuckdbOptions {
    /// `max_memory` (e.g. `1GB`); when `None`, [`connect`](super::connect::connect) derives it
    /// ([`default_duckdb_max_memory`]), and a DuckDB backend opened directly keeps DuckDB's own
    /// default.
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
    /// The result cap (`--max-result-bytes`), from which DuckDB's default memory is derived.
    pub max_result_bytes: usize,
    /// Per-query timeout (also how long PostgreSQL waits for a pooled connection).
    pub statement_timeout: Duration,
    /// Refuse to start when the role can write.
    pub require_read_only_role: bool,
    /// The name of the server's write mode, when mutations may run (`None`: read-only).
    pub write_mode: Option<&'static str>,
    /// DuckDB's resource settings.
    pub duckdb: DuckdbOptions,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duckdb_memory_follows_the_pool_and_the_result_cap() {
        assert_eq!(default_duckdb_max_memory(8, 1 << 20), "536MB");
        assert_eq!(default_duckdb_max_memory(1, 1 << 20), "268MB");
        assert_eq!(default_duckdb_max_memory(4, 16 << 20), "4294MB");
        assert_eq!(default_duckdb_max_memory(0, 0), "268MB");
    }
}
