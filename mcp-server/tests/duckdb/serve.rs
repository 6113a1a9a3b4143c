//! `serve --database-url duckdb:...`: write modes refused, DuckDB's options applied and locked,
//! the README's client configuration served, a missing file neither opened nor created.

use std::time::Duration;

use clap::Parser;
use serde_json::Value;
use sqlgate::Dialect;
use sqlgate_mcp::backend::duckdb::{DuckdbBackend, DuckdbOptions};
use sqlgate_mcp::backend::{Backend, DbErrorCode, QueryLimits};

use crate::fixture::repo_root;

/// The arguments of the README's DuckDB client configuration, its database replaced by `url`.
fn readme_client_args(url: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("mcp-server/README.md")).unwrap();
    let (_, after) = readme
        .split_once("DuckDB (a build with the `duckdb` feature")
        .expect("README's DuckDB client configuration");
    let block = after
        .split("```json")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let config: Value = serde_json::from_str(block).unwrap();
    let mut args: Vec<String> = vec!["sqlgate-mcp".into()];
    for a in config["mcpServers"]["sqlgate-duckdb"]["args"]
        .as_array()
        .unwrap()
    {
        let a = a.as_str().unwrap();
        args.push(if a.starts_with("duckdb:") {
            url.to_string()
        } else {
            a.to_string()
        });
    }
    assert!(args.iter().any(|a| a == url), "{args:?}");
    args
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_refuses_write_modes_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.duckdb");
    duckdb::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE t (a INTEGER)")
        .unwrap();
    let url = format!("duckdb:{}", db.display());
    let connect = |extra: &[&str]| {
        let mut args = vec!["sqlgate-mcp", "serve", "--database-url", url.as_str()];
        args.extend_from_slice(extra);
        let cli = sqlgate_mcp::app::cli::Cli::try_parse_from(args).unwrap();
        let sqlgate_mcp::app::cli::Command::Serve(a) = cli.command else {
            panic!("serve")
        };
        sqlgate_mcp::config::resolve_serve(&a).unwrap()
    };
    let cfg = connect(&["--mode", "safe"]);
    let err = sqlgate_mcp::app::connect::connect(&cfg)
        .await
        .err()
        .unwrap();
    assert!(err.contains("read-only"), "{err}");

    let cfg = connect(&["--duckdb-threads", "1", "--duckdb-max-memory", "256MB"]);
    let (backend, policy) = sqlgate_mcp::app::connect::connect(&cfg).await.unwrap();
    assert_eq!(policy.dialect, Dialect::Duckdb);
    let Backend::Duckdb(b) = &backend else {
        panic!("not DuckDB")
    };
    assert_eq!(b.setting("threads").unwrap(), "1");
    assert!(
        b.setting("max_memory").unwrap().contains("MiB"),
        "{:?}",
        b.setting("max_memory")
    );
    let limits = QueryLimits {
        max_rows: None,
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(5),
    };
    let r = backend.execute("SET threads = 8", limits).await;
    assert!(r.is_err(), "the configuration is locked");

    let args = readme_client_args(&url);
    let cli = sqlgate_mcp::app::cli::Cli::try_parse_from(&args).unwrap();
    let sqlgate_mcp::app::cli::Command::Serve(a) = cli.command else {
        panic!("serve")
    };
    let cfg = sqlgate_mcp::config::resolve_serve(&a).unwrap();
    let (backend, _) = sqlgate_mcp::app::connect::connect(&cfg).await.unwrap();
    let Backend::Duckdb(b) = &backend else {
        panic!("not DuckDB")
    };
    assert_eq!(b.setting("threads").unwrap(), "2");

    let missing = dir.path().join("missing.duckdb");
    let err = DuckdbBackend::open(&missing, &DuckdbOptions::default())
        .err()
        .unwrap();
    assert_eq!(err.code, DbErrorCode::DatabaseUnavailable);
    assert!(!missing.exists(), "opening must not create the file");
}
