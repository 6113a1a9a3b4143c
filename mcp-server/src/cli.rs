//! Command-line definitions (clap derive). Parsing only: the commands live in their own modules.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config;
use crate::mode::Mode;

/// sqlgate's command line and MCP server: a read-only SQL guard for AI agents.
#[derive(Debug, Parser)]
#[command(name = "sqlgate-mcp", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check SQL and print the verdict JSON (exit 0 allowed, 1 refused, 2 usage or policy error).
    Check(CheckArgs),
    /// Print a JSON Schema.
    Schema {
        /// Which schema.
        #[arg(value_enum)]
        which: SchemaKind,
    },
    /// Play what an agent would send against an embedded sample database, and show the verdicts.
    Demo,
    /// Serve the MCP tools over stdio (default) or streamable HTTP.
    Serve(Box<ServeArgs>),
    /// Audit log tools.
    #[command(subcommand)]
    Audit(AuditCommand),
}

/// `audit` subcommands.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Check the hash chain through the files, in order (rotated files first): exit 0 and a
    /// summary when intact, 1 naming the first line that breaks it.
    Verify {
        /// The audit files, oldest first.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// Which JSON Schema `schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// The policy file.
    Policy,
    /// The verdict.
    Verdict,
    /// The verdict of `check --mutation`.
    MutationVerdict,
}

/// A row cap given on the command line: a number or `none`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaxRows {
    /// Cap at this many rows.
    Rows(u64),
    /// No cap.
    Unlimited,
}

impl MaxRows {
    /// As the policy's `max_rows`.
    pub fn as_option(self) -> Option<u64> {
        match self {
            MaxRows::Rows(n) => Some(n),
            MaxRows::Unlimited => None,
        }
    }
}

/// Parses `N` or `none` for `--max-rows`.
pub fn parse_max_rows(text: &str) -> Result<MaxRows, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(MaxRows::Unlimited);
    }
    t.parse::<u64>()
        .map(MaxRows::Rows)
        .map_err(|_| format!("`{text}` is not a row count; use a number or `none`"))
}

/// Policy overrides shared by `check` and `serve`.
#[derive(Debug, Clone, Default, Args)]
pub struct PolicyArgs {
    /// SQL dialect (postgres, mysql, sqlite, mssql, duckdb, snowflake, bigquery, ...).
    #[arg(long)]
    pub dialect: Option<String>,
    /// Row cap for the outermost query: a number, or `none`.
    #[arg(long, value_parser = parse_max_rows)]
    pub max_rows: Option<MaxRows>,
    /// Allow EXPLAIN (never EXPLAIN ANALYZE) of an allowed query.
    #[arg(long)]
    pub allow_explain: bool,
    /// Policy file (.json or .toml); flags override it.
    #[arg(long)]
    pub policy: Option<PathBuf>,
}

/// Arguments of `check`.
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// Policy settings.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Read one JSON object per stdin line (`{"sql", "id"?, "dialect"?}`), write one verdict per line.
    #[arg(long, conflicts_with = "sql")]
    pub jsonl: bool,
    /// Check a mutation (INSERT / UPDATE / DELETE / MERGE) against the policy's `writes` rules and
    /// print the mutation verdict.
    #[arg(long, conflicts_with = "jsonl")]
    pub mutation: bool,
    /// The SQL to check; all of stdin when absent.
    pub sql: Option<String>,
}

/// Arguments of `serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Serve the embedded sample SQLite database (no database server needed).
    #[arg(long, conflicts_with = "database_url")]
    pub demo: bool,
    /// `postgres://...`, `sqlite:path/to.db` or `duckdb:path/to.duckdb` (DuckDB needs a build
    /// with `--features duckdb`). Prefer the environment variable for secrets.
    #[arg(long, env = "SQLGATE_DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Settings file (TOML); flags override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Policy settings.
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Per-query timeout with a unit, e.g. `10s`, `500ms`, `2m`.
    #[arg(long, value_parser = config::parse_duration)]
    pub statement_timeout: Option<Duration>,
    /// Write mode: read_only (default), safe (every mutation approved by the user), delete_safe
    /// (deletes approved), full_access (no approval). Write modes need a policy with `writes`.
    #[arg(long, value_enum)]
    pub mode: Option<Mode>,
    /// How long to wait for the user's approval of a mutation, with a unit; default 5m.
    #[arg(long, value_parser = config::parse_duration)]
    pub approval_timeout: Option<Duration>,
    /// Result size cap in bytes (JSON of the rows); default 1 MiB.
    #[arg(long)]
    pub max_result_bytes: Option<usize>,
    /// PostgreSQL / MySQL connection pool size.
    #[arg(long)]
    pub pool_size: Option<usize>,
    /// Refuse approved reads whose planner cost is over this (PostgreSQL, MySQL; off by default).
    #[arg(long)]
    pub max_cost: Option<f64>,
    /// Refuse approved reads with a plan step estimated over this many rows (off by default).
    #[arg(long)]
    pub max_estimated_rows: Option<u64>,
    /// Refuse to start when the PostgreSQL role can write.
    #[arg(long)]
    pub require_read_only_role: bool,
    /// Serve streamable HTTP on this address (e.g. `127.0.0.1:8765`) instead of stdio.
    #[arg(long)]
    pub http: Option<String>,
    /// HTTP without sessions (for several instances behind a load balancer).
    #[arg(long)]
    pub stateless: bool,
    /// Name of the environment variable holding the HTTP bearer token.
    #[arg(long)]
    pub auth_token_env: Option<String>,
    /// stdio: serve as this principal of the config file's `[[principals]]` (its policy, vars
    /// and mode). Over HTTP the bearer token selects the principal.
    #[arg(long)]
    pub principal: Option<String>,
    /// Serve HTTP without a token (loopback only).
    #[arg(long)]
    pub allow_unauthenticated: bool,
    /// Browser origins allowed to call the HTTP endpoint (repeatable); others get 403.
    #[arg(long = "allowed-origin")]
    pub allowed_origins: Vec<String>,
    /// HTTP request body cap in bytes (413 above it); default 1 MiB.
    #[arg(long)]
    pub max_body_bytes: Option<usize>,
    /// Append the audit log (one JSON line per tool call, fsynced) to this file instead of stderr.
    #[arg(long)]
    pub audit_file: Option<PathBuf>,
    /// What a failed audit write does: strict (the call fails; default) or strict_mutations
    /// (mutations fail; reads continue with a note on stderr).
    #[arg(long, value_enum)]
    pub audit_failure: Option<crate::audit::AuditFailure>,
    /// Audit line format: jsonl (default) or otel (one OTLP/JSON LogsData object per line).
    #[arg(long, value_enum)]
    pub audit_format: Option<crate::audit::AuditFormat>,
    /// Also export every audit record to this OpenTelemetry collector over OTLP/HTTP
    /// (http://host:4318; `/v1/logs` is added), batched, without slowing tool calls.
    #[arg(long)]
    pub otlp_endpoint: Option<String>,
    /// Publish only these tools (comma-separated); the rest are neither listed nor callable.
    #[arg(long, value_delimiter = ',')]
    pub tools: Option<Vec<String>>,
    /// DuckDB's memory limit (`max_memory`), e.g. `1GB`; default DuckDB's.
    #[arg(long)]
    pub duckdb_max_memory: Option<String>,
    /// DuckDB's worker threads; default 2.
    #[arg(long)]
    pub duckdb_threads: Option<u64>,
}
