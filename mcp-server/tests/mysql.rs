//! MySQL / MariaDB against Chinook (`SQLGATE_MARIADB_CHINOOK_URL`, set by `scripts/test.sh`: a
//! throwaway MariaDB run with `--skip-grant-tables`, so every client holds every privilege, the
//! worst case). Skipped with a clear message when the variable is absent, except under `CI=true`,
//! where its absence is a failure.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use serde_json::{json, Value};
use sqlgate::{Dialect, Policy};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::backend::mysql::MysqlBackend;
use sqlgate_mcp::backend::{Backend, Database, QueryLimits};
use sqlgate_mcp::engine::{Engine, EngineConfig};
use sqlgate_mcp::tools::SqlGateServer;

mod common;
use common::{call, serve_in_process, structured};

fn chinook_url() -> Option<String> {
    match std::env::var("SQLGATE_MARIADB_CHINOOK_URL") {
        Ok(u) if !u.trim().is_empty() => Some(u),
        _ => {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "SQLGATE_MARIADB_CHINOOK_URL not set, and CI=true requires the MariaDB tests"
                );
            }
            eprintln!(
                "skipped: SQLGATE_MARIADB_CHINOOK_URL not set (no MariaDB for the MySQL tests)"
            );
            None
        }
    }
}

/// The same URL with another database.
fn with_database(url: &str, db: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a URL with a database");
    format!("{base}/{db}")
}

async fn engine(url: &str, max_rows: u64, timeout: Duration) -> Engine {
    let backend = MysqlBackend::connect(url, 4, false).await.expect("connect");
    let policy = Policy {
        max_rows: Some(max_rows),
        ..Policy::for_dialect(Dialect::Mysql)
    };
    Engine::new(
        Backend::Mysql(backend),
        EngineConfig::read_only(policy, timeout),
    )
    .await
    .expect("engine")
}

async fn admin(url: &str) -> mysql_async::Conn {
    mysql_async::Conn::new(mysql_async::Opts::from_url(url).expect("url"))
        .await
        .expect("connect directly")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_on_chinook() {
    let Some(url) = chinook_url() else { return };
    let e = Arc::new(engine(&url, 50, Duration::from_secs(10)).await);
    assert!(
        !e.backend().role_warnings().is_empty(),
        "a user with every privilege must be reported"
    );
    let refused = MysqlBackend::connect(&url, 1, true).await;
    let err = refused
        .err()
        .expect("--require-read-only-role refuses this user");
    assert_eq!(err.code.as_str(), "role_not_read_only");
    let client = serve_in_process(SqlGateServer::new(e.clone(), Audit::stderr())).await;

    let tables = structured(&call(&client, "list_tables", json!({})).await);
    let names: Vec<&str> = tables["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"Album") && names.contains(&"Track"),
        "{names:?}"
    );
    let album = structured(&call(&client, "describe_table", json!({"table": "Album"})).await);
    assert_eq!(album["primary_key"], json!(["AlbumId"]));
    assert_eq!(
        album["foreign_keys"][0]["referenced_table"], "Artist",
        "{album}"
    );
    let artist = structured(&call(&client, "describe_table", json!({"table": "Artist"})).await);
    assert_eq!(artist["referenced_by"][0]["table"], "Album", "{artist}");

    let r = structured(
        &call(
            &client,
            "run_query",
            json!({"sql": "SELECT Name, UnitPrice FROM Track ORDER BY TrackId"}),
        )
        .await,
    );
    assert_eq!(r["row_count"], 50);
    assert_eq!(r["truncated"], true);
    assert!(r["executed_sql"]
        .as_str()
        .is_some_and(|s| s.ends_with("LIMIT 51")));
    assert_eq!(r["rows"][0]["UnitPrice"], "0.99", "DECIMAL is exact: {r}");
    let refused =
        structured(&call(&client, "run_query", json!({"sql": "DELETE FROM Album"})).await);
    assert_eq!(refused["code"], "statement_not_allowed");
    let info = structured(&call(&client, "server_info", json!({})).await);
    assert_eq!(info["database"], "mariadb");
    assert_eq!(info["dialect"], "mysql");
}

/// Defence in depth: even SQL the guard never approved cannot stack statements or write, since
/// every read is one prepared statement in a read-only transaction.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_backend_itself_runs_one_read_only_statement() {
    let Some(url) = chinook_url() else { return };
    let backend = MysqlBackend::connect(&url, 2, false)
        .await
        .expect("connect");
    let limits = QueryLimits {
        max_rows: Some(10),
        max_bytes: 1 << 20,
        timeout: Duration::from_secs(5),
    };
    let mut direct = admin(&url).await;
    let before: Option<u64> = direct
        .query_first("SELECT COUNT(*) FROM Genre")
        .await
        .expect("count");
    let stacked = backend.execute("SELECT 1; DELETE FROM Genre", limits).await;
    assert!(stacked.is_err(), "a stacked payload must not run");
    let write = backend
        .execute("DELETE FROM Genre WHERE GenreId = 1", limits)
        .await
        .expect_err("a write in a read-only transaction fails");
    assert_eq!(write.code.as_str(), "database_error", "{write:?}");
    let after: Option<u64> = direct
        .query_first("SELECT COUNT(*) FROM Genre")
        .await
        .expect("count");
    assert_eq!(before, after);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_query_over_the_timeout_is_killed_in_the_server() {
    let Some(url) = chinook_url() else { return };
    let e = engine(&url, 10, Duration::from_millis(500)).await;
    let start = Instant::now();
    let (r, _) = e
        .run_query("SELECT COUNT(*) FROM Track a, Track b, Track c")
        .await;
    let err = r.expect_err("times out");
    assert_eq!(err.code.as_str(), "query_timeout", "{err:?}");
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "{:?}",
        start.elapsed()
    );
    // Nothing of it is left running in the server.
    let mut direct = admin(&url).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let running: Vec<String> = direct
        .query("SELECT INFO FROM information_schema.PROCESSLIST WHERE INFO LIKE '%Track a, Track b%' AND INFO NOT LIKE '%PROCESSLIST%'")
        .await
        .expect("processlist");
    assert!(running.is_empty(), "{running:?}");
    // The pool still serves.
    let (r, _) = e.run_query("SELECT COUNT(*) AS n FROM Genre").await;
    assert_eq!(r.expect("runs").rows[0]["n"], 25);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_renders() {
    let Some(url) = chinook_url() else { return };
    let mut direct = admin(&url).await;
    direct
        .query_drop(
            "CREATE DATABASE IF NOT EXISTS sqlgate_types; USE sqlgate_types; \
             DROP TABLE IF EXISTS every_type; \
             CREATE TABLE every_type (
               ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT, ubi BIGINT UNSIGNED,
               de DECIMAL(30,10), f FLOAT, d DOUBLE, b BIT(10), y YEAR, dt DATE,
               dtt DATETIME(6), ts TIMESTAMP NULL, tm TIME(3), ch CHAR(3), vc VARCHAR(20),
               tx TEXT, bl BLOB, vb VARBINARY(8), j JSON, e ENUM('a','b'), s SET('x','y'),
               g GEOMETRY, n INT);
             INSERT INTO every_type VALUES (-128, -32768, -8388608, -2147483648,
               -9223372036854775808, 18446744073709551615, 12345678901234567890.0123456789,
               1.5, 2.25, b'1010101010', 2024, '2024-02-29', '2024-02-29 13:14:15.123456',
               '2024-02-29 13:14:15', '-838:59:58.5', 'abc', 'héllo', 'text', x'00ff10',
               x'cafe', '{\"a\": [1, 2]}', 'b', 'x,y', POINT(1, 2), NULL);",
        )
        .await
        .expect("create the table");
    let e = engine(
        &with_database(&url, "sqlgate_types"),
        10,
        Duration::from_secs(10),
    )
    .await;
    let (r, _) = e.run_query("SELECT * FROM every_type").await;
    let out = r.expect("every type renders");
    let row = &out.rows[0];
    let expected = json!({
        "ti": -128, "si": -32768, "mi": -8388608, "i": -2147483648_i64,
        "bi": "-9223372036854775808", "ubi": "18446744073709551615",
        "de": "12345678901234567890.0123456789", "f": 1.5, "d": 2.25, "b": 682, "y": 2024,
        "dt": "2024-02-29", "dtt": "2024-02-29 13:14:15.123456", "ts": "2024-02-29 13:14:15",
        "tm": "-838:59:58.500000", "ch": "abc", "vc": "héllo", "tx": "text", "bl": "AP8Q",
        "vb": "yv4=", "j": {"a": [1, 2]}, "e": "b", "s": "x,y", "n": null
    });
    for (key, want) in expected.as_object().expect("object") {
        assert_eq!(&row[key], want, "column {key}: {row:?}");
    }
    assert!(
        row["g"].as_str().is_some_and(|g| g.starts_with("wkb:")),
        "{row:?}"
    );
    let types: BTreeMap<&str, &str> = out
        .columns
        .iter()
        .map(|c| (c.name.as_str(), c.data_type.as_str()))
        .collect();
    assert_eq!(types["ubi"], "bigint unsigned");
    assert_eq!(types["de"], "decimal");
    direct
        .query_drop("DROP DATABASE sqlgate_types")
        .await
        .expect("drop");
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn safe_mode_commits_only_an_approved_mutation() {
    use sqlgate_mcp::approval::{ApprovalAnswer, ApprovalRequest};
    let Some(url) = chinook_url() else { return };
    let mut direct = admin(&url).await;
    direct
        .query_drop(
            "CREATE DATABASE IF NOT EXISTS sqlgate_writes; USE sqlgate_writes; \
             DROP TABLE IF EXISTS orders; \
             CREATE TABLE orders (id INT PRIMARY KEY, status VARCHAR(20)); \
             INSERT INTO orders VALUES (1, 'open'), (2, 'open'), (3, 'open');",
        )
        .await
        .expect("setup");
    let url = with_database(&url, "sqlgate_writes");
    let backend = MysqlBackend::connect(&url, 2, false)
        .await
        .expect("connect");
    let policy = Policy {
        writes: Some(sqlgate::WriteRules::new(
            &["orders"],
            &[sqlgate::QueryClass::MutationCreate],
        )),
        ..Policy::for_dialect(Dialect::Mysql)
    };
    let mut config = EngineConfig::read_only(policy, Duration::from_secs(5));
    config.mode = sqlgate_mcp::mode::Mode::Safe;
    let e = Engine::new(Backend::Mysql(backend), config)
        .await
        .expect("engine");
    let statuses = |rows: Vec<(i32, String)>| rows.into_iter().map(|(_, s)| s).collect::<Vec<_>>();
    let sql = "UPDATE orders SET status = 'cancelled' WHERE id = 2";
    let declined = |r: ApprovalRequest| {
        assert_eq!(r.preview_rows, 1);
        std::future::ready(ApprovalAnswer::Declined)
    };
    let (out, _) = e.run_mutation(sql, declined).await;
    assert!(out.is_err(), "declined");
    let rows: Vec<(i32, String)> = direct
        .query("SELECT id, status FROM orders ORDER BY id")
        .await
        .expect("rows");
    assert_eq!(
        statuses(rows),
        ["open", "open", "open"],
        "the preview was rolled back"
    );
    let (out, _) = e
        .run_mutation(sql, |_| std::future::ready(ApprovalAnswer::Accepted))
        .await;
    assert_eq!(out.expect("committed").affected_rows, 1);
    let rows: Vec<(i32, String)> = direct
        .query("SELECT id, status FROM orders ORDER BY id")
        .await
        .expect("rows");
    assert_eq!(statuses(rows), ["open", "cancelled", "open"]);
    direct
        .query_drop("DROP DATABASE sqlgate_writes")
        .await
        .expect("drop");
}

/// A throwaway MariaDB of this test's own, with grant tables on, stopped when dropped.
struct OwnServer {
    dir: PathBuf,
    env: BTreeMap<String, String>,
}

impl OwnServer {
    fn start() -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let dir = tempfile::tempdir().expect("tempdir").keep().join("mariadb");
        let out = std::process::Command::new("bash")
            .arg(root.join("scripts/mariadb-cluster.sh"))
            .args(["start", dir.to_str().expect("path")])
            .env("SQLGATE_MARIADB_PORT_BASE", "33170")
            .output()
            .expect("mariadb-cluster.sh");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let env = std::fs::read_to_string(dir.join("env"))
            .expect("env file")
            .lines()
            .filter_map(|l| l.strip_prefix("export ")?.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        OwnServer { dir, env }
    }

    /// Runs `sql` as root through the server's socket (the `mariadb` client).
    fn run(&self, sql: &str) {
        let mut child = std::process::Command::new("mariadb")
            .args(["--no-defaults", "--user=root"])
            .arg(format!("--socket={}", self.env["SQLGATE_MARIADB_SOCKET"]))
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("mariadb client");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(sql.as_bytes())
            .expect("write");
        assert!(child.wait().expect("wait").success(), "{sql}");
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let _ = std::process::Command::new("bash")
            .arg(root.join("scripts/mariadb-cluster.sh"))
            .args(["stop", self.dir.to_str().unwrap_or_default()])
            .output();
    }
}

/// The README's read-only user (mcp-server/README.md, "MySQL and MariaDB") starts with
/// `--require-read-only-role`; a user with more privileges does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_read_only_user_passes_require_read_only_role() {
    if chinook_url().is_none() {
        return;
    }
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let section = readme
        .split("## MySQL and MariaDB")
        .nth(1)
        .expect("the section");
    let sql = section
        .split("```sql\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("the README's SQL block");
    let server = OwnServer::start();
    // Grant tables on (the suite's servers run without them), a database, then the README's SQL.
    server.run(&format!(
        "FLUSH PRIVILEGES; CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY); \
         CREATE USER 'writer'@'%' IDENTIFIED BY 'w'; GRANT SELECT, INSERT ON shop.* TO 'writer'@'%'; {sql}"
    ));
    let port = &server.env["SQLGATE_MARIADB_PORT"];
    let reader = format!("mysql://sqlgate_reader:CHANGE-ME@127.0.0.1:{port}/shop");
    let backend = MysqlBackend::connect(&reader, 1, true)
        .await
        .expect("the README's user is read-only");
    assert!(
        backend.role_warnings().is_empty(),
        "{:?}",
        backend.role_warnings()
    );
    let writer = format!("mysql://writer:w@127.0.0.1:{port}/shop");
    let refused = MysqlBackend::connect(&writer, 1, true)
        .await
        .err()
        .expect("refused");
    assert!(refused.message.contains("INSERT"), "{}", refused.message);
    assert!(
        !refused.message.contains("w@"),
        "no credentials in {}",
        refused.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cost_cap_refuses_a_cross_join_before_it_runs() {
    use sqlgate_mcp::backend::cost::CostCap;
    let Some(url) = chinook_url() else { return };
    let mut e = engine(&url, 100, Duration::from_secs(10)).await;
    e.set_cost_cap(CostCap {
        max_cost: None,
        max_estimated_rows: Some(1_000_000),
    });
    let (r, _) = e
        .run_query("SELECT * FROM PlaylistTrack, Track LIMIT 100")
        .await;
    let err = r.expect_err("refused");
    assert_eq!(err.code.as_str(), "too_expensive", "{err:?}");
    let hint = err.hint.unwrap_or_default();
    assert!(hint.contains("without a join condition"), "{hint}");
    let (r, _) = e
        .run_query(
            "SELECT t.Name, COUNT(*) AS n FROM PlaylistTrack pt JOIN Track t ON t.TrackId = pt.TrackId GROUP BY t.Name",
        )
        .await;
    assert!(r.is_ok(), "a joined query passes: {r:?}");
}

/// The server stops under a running engine: calls fail as `database_unavailable` (retryable),
/// never hang; once it is back, the pool serves again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_database_stopped_and_back() {
    if chinook_url().is_none() {
        return;
    }
    let server = OwnServer::start();
    server.run("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY); INSERT INTO shop.t VALUES (1), (2);");
    let port = server.env["SQLGATE_MARIADB_PORT"].clone();
    let e = engine(
        &format!("mysql://root@127.0.0.1:{port}/shop"),
        10,
        Duration::from_secs(5),
    )
    .await;
    let (r, _) = e.run_query("SELECT COUNT(*) AS n FROM t").await;
    assert_eq!(r.expect("runs").rows[0]["n"], 2);

    let pid = std::fs::read_to_string(server.dir.join("mariadbd.pid")).expect("pid");
    let killed = std::process::Command::new("kill")
        .arg(pid.trim())
        .status()
        .expect("kill");
    assert!(killed.success());
    let down = Instant::now();
    loop {
        let (r, _) = e.run_query("SELECT COUNT(*) AS n FROM t").await;
        match r {
            Err(err) if err.code.as_str() == "database_unavailable" => {
                assert!(err.retryable, "{err:?}");
                break;
            }
            other => assert!(down.elapsed() < Duration::from_secs(30), "still {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let restarted = std::process::Command::new("bash")
        .arg(root.join("scripts/mariadb-cluster.sh"))
        .args(["start", server.dir.to_str().expect("path")])
        .env("SQLGATE_MARIADB_PORT_BASE", &port)
        .output()
        .expect("restart");
    assert!(
        restarted.status.success(),
        "{}",
        String::from_utf8_lossy(&restarted.stderr)
    );
    let back = Instant::now();
    loop {
        let (r, _) = e.run_query("SELECT COUNT(*) AS n FROM t").await;
        match r {
            Ok(out) => {
                assert_eq!(out.rows[0]["n"], 2);
                break;
            }
            Err(err) => assert!(
                back.elapsed() < Duration::from_secs(30),
                "not back: {err:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
