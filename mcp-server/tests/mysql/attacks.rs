//! Every mysql vector of `tests/vectors` through `run_query`: the refused ones refused by the
//! guard, and nothing in the server changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mysql_async::prelude::Queryable;
use serde_json::{json, Value};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, serve_in_process, structured};
use crate::server::{admin, chinook_url, engine};

/// One vector of `tests/vectors/*.jsonl` in the mysql dialect.
struct Attack {
    sql: String,
    source: String,
    expect_refused: bool,
}

fn mysql_vectors() -> Vec<Attack> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut out = Vec::new();
    for file in [
        "attacks.jsonl",
        "functions.jsonl",
        "literals.jsonl",
        "syntax.jsonl",
        "limits.jsonl",
        "access.jsonl",
        "resolution.jsonl",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).expect("vectors");
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: Value = serde_json::from_str(line).expect("JSON");
            if v["dialect"].as_str() != Some("mysql") || v.get("entry").is_some() {
                continue;
            }
            let own_policy = v.get("policy").is_some();
            out.push(Attack {
                sql: v["sql"].as_str().expect("sql").to_string(),
                source: format!("{file}:{}", i + 1),
                expect_refused: v["expect"]["allowed"] == false && !own_policy,
            });
        }
    }
    out
}

/// Everything an attack could change: each table's checksum in every database (`mysql.*`: the
/// users and their grants; not the scratch database of `every_type_renders`, which runs beside),
/// global variables, and the files in the server's `secure_file_priv` directory.
async fn fingerprint(url: &str, files: &Path) -> BTreeMap<String, String> {
    let mut direct = admin(url).await;
    let mut out = BTreeMap::new();
    let tables: Vec<(String, String)> = direct
        .query(
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES \
             WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA NOT IN \
             ('information_schema', 'performance_schema', 'sys', 'sqlgate_types') ORDER BY 1, 2",
        )
        .await
        .expect("tables");
    for (schema, table) in tables {
        let sum: Option<(String, Option<u64>)> = direct
            .query_first(format!("CHECKSUM TABLE `{schema}`.`{table}`"))
            .await
            .expect("checksum");
        out.insert(format!("table {schema}.{table}"), format!("{sum:?}"));
    }
    let variables: Vec<(String, String)> = direct
        .query("SHOW GLOBAL VARIABLES")
        .await
        .expect("variables");
    for (name, value) in variables {
        // Counters and clocks move by themselves.
        if ![
            "timestamp",
            "gtid_binlog_state",
            "gtid_current_pos",
            "gtid_binlog_pos",
        ]
        .contains(&name.as_str())
        {
            out.insert(format!("variable {name}"), value);
        }
    }
    let mut listing: Vec<String> = std::fs::read_dir(files)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    listing.sort();
    out.insert("files".into(), listing.join(","));
    for p in ["/tmp/sqlgate-pwned", "/tmp/sqlgate-pwned-program"] {
        out.insert(format!("path {p}"), PathBuf::from(p).exists().to_string());
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_mysql_attack_through_run_query_changes_nothing() {
    let Some(url) = chinook_url() else { return };
    let files =
        PathBuf::from(std::env::var("SQLGATE_MARIADB_FILES").expect("SQLGATE_MARIADB_FILES"));
    let attacks = mysql_vectors();
    assert!(attacks.len() >= 50, "only {} mysql vectors", attacks.len());
    let before = fingerprint(&url, &files).await;
    let e = Arc::new(engine(&url, 100, Duration::from_secs(5)).await);
    let client = serve_in_process(SqlGateServer::new(e, Audit::stderr())).await;
    let mut reached_database = 0;
    for a in &attacks {
        let r = call(&client, "run_query", json!({"sql": a.sql})).await;
        let out = structured(&r);
        let refused_by_guard =
            r.is_error == Some(true) && out["stage"].as_str().is_some_and(|s| s != "execute");
        if a.expect_refused {
            assert!(
                refused_by_guard,
                "{}: {} was not refused by the guard: {out}",
                a.source, a.sql
            );
        } else {
            reached_database += 1;
        }
    }
    let after = fingerprint(&url, &files).await;
    for (key, value) in &before {
        assert_eq!(after.get(key), Some(value), "{key} changed");
    }
    assert_eq!(
        before.len(),
        after.len(),
        "objects appeared: {:?}",
        after
            .keys()
            .filter(|k| !before.contains_key(*k))
            .collect::<Vec<_>>()
    );
    eprintln!(
        "{} mysql vectors, {reached_database} approved and run on MariaDB",
        attacks.len()
    );
}
