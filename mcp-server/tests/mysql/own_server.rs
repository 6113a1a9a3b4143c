//! Tests that need a MariaDB of their own (grant tables on, or stopped and restarted): the
//! README's read-only user, and the database stopped under a running engine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use sqlgate_mcp::backend::mysql::MysqlBackend;
use sqlgate_mcp::backend::Database;

use crate::server::{chinook_url, engine};

/// Runs `scripts/mariadb-cluster.sh start DIR` with the ports scanned from `port_base`.
fn cluster_start(dir: &Path, port_base: &str) -> Output {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::process::Command::new("bash")
        .arg(root.join("scripts/mariadb-cluster.sh"))
        .args(["start", dir.to_str().expect("path")])
        .env("SQLGATE_MARIADB_PORT_BASE", port_base)
        .output()
        .expect("mariadb-cluster.sh")
}

/// A throwaway MariaDB of this test's own, with grant tables on, stopped when dropped.
struct OwnServer {
    dir: PathBuf,
    env: BTreeMap<String, String>,
}

impl OwnServer {
    fn start() -> Self {
        let dir = tempfile::tempdir().expect("tempdir").keep().join("mariadb");
        let out = cluster_start(&dir, "33170");
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

    let restarted = cluster_start(&server.dir, &port);
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
