//! `sqlgate-mcp init --from-db URL`: a draft policy for a human to review, read from a live
//! database (PostgreSQL, MySQL / MariaDB, SQLite, DuckDB): its tables and views (system schemas
//! are never introspected), foreign keys as relationships (one-to-one on a unique key), comments
//! as descriptions, and PII categories guessed from column names and types ([`guess`]),
//! optionally from sampled values ([`sample`], `--sample N`). Written to stdout, or to `--output FILE` (never over an existing
//! file without `--force`) as TOML ([`render`]).

pub mod guess;
pub mod render;
pub mod sample;

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::app::exit;
use crate::backend::connect::{connect, Source};
use crate::backend::options::{ConnectOptions, DuckdbOptions, DEFAULT_DUCKDB_THREADS};
use crate::backend::{Backend, TableDetail};
use render::DraftTable;

/// Arguments of `init`.
#[derive(Debug, Clone, Args)]
pub struct InitArgs {
    /// The database to read: `postgres://...`, `mysql://...`, `sqlite:path`, `duckdb:path`.
    #[arg(long = "from-db", value_name = "URL")]
    pub from_db: String,
    /// Write the draft to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace `--output` when it exists.
    #[arg(long)]
    pub force: bool,
    /// Also test this many values of each text column against PII patterns (values are never
    /// printed); 0, the default, reads no row.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub sample: u64,
    /// Only tables whose name (or `schema.name`) matches one of these globs (`*`, `?`).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Leave out tables whose name (or `schema.name`) matches one of these globs.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
}

/// Runs `init`; returns the exit code (2: usage, such as an existing output file; 1: the
/// database could not be read).
pub fn run_init(args: &InitArgs) -> i32 {
    if let Some(path) = &args.output {
        if path.exists() && !args.force {
            eprintln!(
                "sqlgate-mcp: {} exists; pass --force to replace it",
                path.display()
            );
            return exit::USAGE;
        }
    }
    let source = match Source::parse(&args.from_db) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sqlgate-mcp: --from-db: {e}");
            return exit::USAGE;
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sqlgate-mcp: cannot start the runtime: {e}");
            return exit::FAILURE;
        }
    };
    let text = match rt.block_on(draft_from(&source, args)) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("sqlgate-mcp: {e}");
            return exit::FAILURE;
        }
    };
    match &args.output {
        None => {
            print!("{text}");
            exit::SUCCESS
        }
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => {
                eprintln!("sqlgate-mcp: wrote {} (a draft: review it)", path.display());
                exit::SUCCESS
            }
            Err(e) => {
                eprintln!("sqlgate-mcp: cannot write {}: {e}", path.display());
                exit::FAILURE
            }
        },
    }
}

/// The draft for the database `source` names.
pub async fn draft_from(source: &Source, args: &InitArgs) -> Result<String, String> {
    let options = ConnectOptions {
        pool_size: 1,
        max_result_bytes: 4 << 20,
        statement_timeout: Duration::from_secs(30),
        require_read_only_role: false,
        write_mode: None,
        duckdb: DuckdbOptions {
            max_memory: None,
            threads: DEFAULT_DUCKDB_THREADS,
        },
    };
    let backend = connect(source, &options).await.map_err(|e| e.to_string())?;
    let tables = backend
        .introspect()
        .await
        .map_err(|e| format!("cannot read the schema: {e}"))?;
    let unique = backend
        .unique_keys()
        .await
        .map_err(|e| format!("cannot read the unique keys: {e}"))?;
    let default_schema = match backend.kind() {
        "postgres" => Some("public"),
        "duckdb" => Some("main"),
        _ => None,
    };
    let chosen: Vec<&TableDetail> = tables
        .iter()
        .filter(|t| wanted(t, &args.include, &args.exclude))
        .collect();
    let mut drafts = Vec::with_capacity(chosen.len());
    for t in chosen {
        let name = match (&t.schema, default_schema) {
            (Some(s), Some(d)) if s == d => t.name.clone(),
            (Some(s), _) => format!("{s}.{}", t.name),
            (None, _) => t.name.clone(),
        };
        let guesses = guesses(&backend, t, args.sample).await?;
        let unique = unique
            .iter()
            .filter(|k| k.table == t.name && k.schema == t.schema)
            .map(|k| k.columns.clone())
            .collect();
        drafts.push(DraftTable {
            table: t,
            name,
            guesses,
            unique,
        });
    }
    Ok(render::draft(
        backend.kind(),
        backend.dialect().as_str(),
        &drafts,
    ))
}

/// Each column's guess: by name and type, else (with `--sample`) by its values.
async fn guesses(
    backend: &Backend,
    t: &TableDetail,
    n: u64,
) -> Result<Vec<Option<guess::Guess>>, String> {
    let siblings: Vec<String> = t.columns.iter().map(|c| c.name.clone()).collect();
    let mut out = Vec::with_capacity(t.columns.len());
    for c in &t.columns {
        let mut g = guess::by_name(&t.name, &c.name, &c.data_type, &siblings);
        if g.is_none() && n > 0 && sample::is_text(&c.data_type) {
            g = sample::by_values(backend, t, &c.name, n)
                .await
                .map_err(|e| format!("sampling {}.{}: {e}", t.name, c.name))?;
        }
        out.push(g);
    }
    Ok(out)
}

/// Whether `t` passes `--include` (any, when given) and `--exclude` (none).
fn wanted(t: &TableDetail, include: &[String], exclude: &[String]) -> bool {
    let names = [t.name.clone(), t.qualified_name()];
    let hit = |globs: &[String]| {
        globs.iter().any(|g| {
            names
                .iter()
                .any(|n| glob_match(&g.to_lowercase(), &n.to_lowercase()))
        })
    };
    (include.is_empty() || hit(include)) && !hit(exclude)
}

/// `*` (any run) and `?` (one character) glob matching.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    let (mut pi, mut ti, mut star, mut mark) = (0, 0, None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("invoice*", "invoice_line"));
        assert!(glob_match("*.customer", "public.customer"));
        assert!(glob_match("?rack", "track"));
        assert!(!glob_match("invoice", "invoice_line"));
        assert!(!glob_match("a*b", "acbd"));
    }
}
