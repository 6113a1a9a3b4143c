//! Every duckdb vector of `tests/vectors` under its own policy, and attacks reading a secret file
//! or writing, refused by the guard and failing on the backend too; the settings stay locked and
//! the database file unchanged.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use sqlgate::{Dialect, Policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::{Backend, DbErrorCode, QueryLimits};
use sqlgate_mcp::gate::Engine;
use sqlgate_mcp::tools::SqlGateServer;

use crate::common::{call, serve_in_process, structured};
use crate::fixture::{engine, fixture, repo_root};

/// The SHA-256 of the file at `path`.
fn sha256(path: &Path) -> String {
    sqlgate_mcp::audit::chain::sha256_hex(&std::fs::read(path).unwrap())
}

/// Refused before the database.
fn is_refused(r: &CallToolResult) -> bool {
    r.is_error == Some(true) && structured(r)["stage"] != "execute"
}

/// The DuckDB rows of `tests/vectors/*.jsonl`: (name, sql, policy, expected refused).
fn duckdb_vectors() -> Vec<(String, String, Policy, bool)> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo_root().join("tests/vectors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    for file in files {
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["dialect"] != "duckdb" {
                continue;
            }
            let mut policy = v.get("policy").cloned().unwrap_or_else(|| json!({}));
            policy["dialect"] = json!("duckdb");
            let policy: Policy = serde_json::from_value(policy).unwrap();
            out.push((
                v["name"].as_str().unwrap_or_default().to_string(),
                v["sql"].as_str().unwrap().to_string(),
                policy,
                v["expect"]["allowed"] == false,
            ));
        }
    }
    out
}

/// Settings of the served database, read through a connection of its own.
fn locked_settings(e: &Engine) -> Vec<String> {
    let Backend::Duckdb(b) = e.backend() else {
        panic!("not DuckDB")
    };
    [
        "access_mode",
        "enable_external_access",
        "lock_configuration",
        "autoload_known_extensions",
        "threads",
        "arrow_lossless_conversion",
    ]
    .iter()
    .map(|s| format!("{s}={}", b.setting(s).unwrap()))
    .collect()
}

/// Attacks beside the vectors: reading the secret file `s` every way DuckDB offers, writing into
/// the database's folder `dir`, unlocking the configuration, writing to the database.
fn extra_attacks(s: &str, dir: &Path) -> Vec<String> {
    vec![
        format!("SELECT * FROM read_text('{s}')"),
        format!("SELECT * FROM read_csv('{s}')"),
        format!("SELECT * FROM '{s}'"),
        format!("SELECT * FROM \"{s}\""),
        format!("ATTACH '{s}' AS x"),
        format!("COPY (SELECT 1) TO '{}/out.csv'", dir.display()),
        "SET enable_external_access = true".to_string(),
        "SET lock_configuration = false".to_string(),
        // Would drop TIMETZ offsets from the results again.
        "SET arrow_lossless_conversion = false".to_string(),
        "PRAGMA enable_external_access".to_string(),
        "INSERT INTO t VALUES (1)".to_string(),
        "CREATE TABLE pwned (a INTEGER)".to_string(),
        "CHECKPOINT".to_string(),
    ]
}

/// The settings of a fresh engine on `db`, checked locked: read-only, no external access, the
/// configuration locked, lossless Arrow.
async fn locked_settings_of(db: &Path) -> Vec<String> {
    let expected = locked_settings(
        &*engine(
            db,
            Policy::for_dialect(Dialect::Duckdb),
            Duration::from_secs(5),
        )
        .await,
    );
    assert!(
        expected.contains(&"access_mode=read_only".to_string()),
        "{expected:?}"
    );
    assert!(
        expected.contains(&"enable_external_access=false".to_string()),
        "{expected:?}"
    );
    assert!(
        expected.contains(&"lock_configuration=true".to_string()),
        "{expected:?}"
    );
    assert!(
        expected.contains(&"arrow_lossless_conversion=true".to_string()),
        "{expected:?}"
    );
    expected
}

/// Under the guard, DuckDB itself: every extra attack fails on the backend of `e`, without the
/// secret in its message. CHECKPOINT succeeds as a no-op on a read-only database (the test's
/// checksum shows it).
async fn backend_refuses(e: &Engine, extra: &[String], secret_text: &str) {
    for sql in extra.iter().filter(|s| *s != "CHECKPOINT") {
        let limits = QueryLimits {
            max_rows: Some(10),
            max_bytes: 1 << 20,
            timeout: Duration::from_secs(5),
        };
        let r = e.backend().execute(sql, limits).await;
        let err = r.expect_err(sql);
        assert_eq!(err.code, DbErrorCode::DatabaseError, "{sql}: {err}");
        assert!(!err.message.contains(secret_text), "{sql}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attacks_are_refused_and_change_nothing() {
    let f = fixture();
    // A secret outside the database's folder, which every file-reading attack aims at.
    let secret_dir = tempfile::tempdir().unwrap();
    let secret = secret_dir.path().join("secret.csv");
    let secret_text = "sqlgate-duckdb-secret-5f1c";
    std::fs::write(&secret, format!("k\n{secret_text}\n")).unwrap();
    let s = secret.display().to_string();
    let before = sha256(&f.db);

    let vectors = duckdb_vectors();
    assert!(
        vectors.iter().filter(|v| v.3).count() >= 100,
        "{} vectors",
        vectors.len()
    );
    let mut policies: Vec<Policy> = Vec::new();
    for v in &vectors {
        if !policies.contains(&v.2) {
            policies.push(v.2.clone());
        }
    }
    let extra = extra_attacks(&s, f.dir.path());
    let expected = locked_settings_of(&f.db).await;

    let mut ran = 0;
    for policy in policies {
        let e = engine(&f.db, policy.clone(), Duration::from_secs(5)).await;
        let client = serve_in_process(SqlGateServer::new(e.clone(), Audit::stderr())).await;
        let mine = vectors.iter().filter(|v| v.2 == policy);
        let extras = extra.iter().map(|sql| ("extra", sql, true));
        for (name, sql, refused) in mine.map(|v| (v.0.as_str(), &v.1, v.3)).chain(extras) {
            let r = call(&client, "run_query", json!({ "sql": sql })).await;
            let text = serde_json::to_string(&r).unwrap();
            assert!(
                !text.contains(secret_text),
                "{name}: the secret leaked: {text}"
            );
            if refused {
                assert!(is_refused(&r), "{name}: `{sql}` was not refused: {text}");
            } else {
                ran += 1;
            }
        }
        backend_refuses(&e, &extra, secret_text).await;
        assert_eq!(locked_settings(&e), expected);
        client.cancel().await.ok();
    }
    assert!(ran >= 20, "only {ran} approved vectors ran");
    assert!(!f.dir.path().join("out.csv").exists());
    assert_eq!(sha256(&f.db), before, "the database file changed");
}
