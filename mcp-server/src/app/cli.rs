//! Command-line definitions (clap derive). Parsing only: the commands live in their own modules.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::app::logging::{LogFormat, LogLevel};
use crate::config::flags::PolicyArgs;

/// sqlgate's command line and MCP server: a read-only SQL guard for AI agents.
#[derive(Debug, Parser)]
#[command(name = "sqlgate-mcp", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// Logs on stderr at this level and above (sqlgate's events; other crates' at warn). When
    /// absent, RUST_LOG is read as a full filter directive; else info.
    #[arg(long, global = true, value_enum)]
    pub log_level: Option<LogLevel>,
    /// Logs on stderr as text lines, or as one JSON object per line.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
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
    /// Write a draft policy (TOML) from a live database, for a human to review.
    Init(crate::app::init::InitArgs),
    /// Serve the MCP tools over stdio (default) or streamable HTTP.
    Serve(Box<crate::config::flags::ServeArgs>),
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
