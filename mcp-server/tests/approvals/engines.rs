//! The mutation flow on SQLite, PostgreSQL and MariaDB, with a second connection acting inside
//! the approval, the tables read directly (a fingerprint) before and after: a swap of the
//! matching rows between preview and commit (same count, other rows) commits nothing; a batch
//! whose third statement fails on the engine, in the preview or only at commit, commits
//! nothing; a declined batch changes nothing; an approved batch commits every statement; an
//! approval recorded in the shared used-state table commits once.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mysql_async::prelude::Queryable;
use sqlgate::{Dialect, Policy, QueryClass, WriteRules};
use sqlgate_mcp::backend::mysql::MysqlBackend;
use sqlgate_mcp::backend::postgres::PgBackend;
use sqlgate_mcp::backend::sqlite::SqliteBackend;
use sqlgate_mcp::backend::Backend;
use sqlgate_mcp::codes::{Mode, MutationCode, ToolCode};
use sqlgate_mcp::gate::approval::{ApprovalAnswer, ApprovalRequest};
use sqlgate_mcp::gate::approvals::ApprovalLedger;
use sqlgate_mcp::gate::{Engine, EngineConfig};
use sqlgate_mcp::tools::write::output::MutationStatus;

use crate::common::server_url;

/// A database reached by a second, direct connection.
enum Db {
    Sqlite(PathBuf),
    Postgres(String),
    Maria(String),
}

const TABLES: &str = "DROP TABLE IF EXISTS sg_items; DROP TABLE IF EXISTS sg_log; \
    DROP TABLE IF EXISTS sg_used; \
    CREATE TABLE sg_items (id INT PRIMARY KEY, status VARCHAR(20) NOT NULL); \
    CREATE TABLE sg_log (id INT PRIMARY KEY, note VARCHAR(20) NOT NULL); \
    CREATE TABLE sg_used (nonce VARCHAR(64) PRIMARY KEY, used_at VARCHAR(40) NOT NULL); \
    INSERT INTO sg_items VALUES (1, 'flagged'), (2, 'open'), (3, 'open'), (4, 'open')";

impl Db {
    async fn exec(&self, sql: &str) {
        match self {
            Db::Sqlite(p) => rusqlite::Connection::open(p)
                .and_then(|c| c.execute_batch(sql))
                .expect("sqlite"),
            Db::Postgres(url) => {
                let (c, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                    .await
                    .expect("connect");
                tokio::spawn(conn);
                c.batch_execute(sql).await.expect("postgres");
            }
            Db::Maria(url) => {
                let mut c = mysql_async::Conn::from_url(url.as_str())
                    .await
                    .expect("connect");
                c.query_drop(sql).await.expect("mariadb");
                let _ = c.disconnect().await;
            }
        }
    }

    /// Every row of both tables, as `table:id:value`.
    async fn fingerprint(&self) -> Vec<String> {
        let q = "SELECT CONCAT('i:', id, ':', status) FROM sg_items \
                 UNION ALL SELECT CONCAT('l:', id, ':', note) FROM sg_log ORDER BY 1";
        match self {
            Db::Sqlite(p) => {
                let c = rusqlite::Connection::open(p).expect("open");
                let q = q.replace(
                    "CONCAT('i:', id, ':', status)",
                    "'i:' || id || ':' || status",
                );
                let q = q.replace("CONCAT('l:', id, ':', note)", "'l:' || id || ':' || note");
                let mut s = c.prepare(&q).expect("prepare");
                let rows = s.query_map([], |r| r.get::<_, String>(0)).expect("query");
                rows.map(|r| r.expect("row")).collect()
            }
            Db::Postgres(url) => {
                let (c, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                    .await
                    .expect("connect");
                tokio::spawn(conn);
                let rows = c.query(q, &[]).await.expect("rows");
                rows.iter().map(|r| r.get::<_, String>(0)).collect()
            }
            Db::Maria(url) => {
                let mut c = mysql_async::Conn::from_url(url.as_str())
                    .await
                    .expect("connect");
                let rows: Vec<String> = c.query(q).await.expect("rows");
                let _ = c.disconnect().await;
                rows
            }
        }
    }
}

fn policy(dialect: Dialect) -> Policy {
    Policy {
        writes: Some(WriteRules::new(
            &["sg_items", "sg_log"],
            &[QueryClass::MutationCreate, QueryClass::MutationDelete],
        )),
        ..Policy::for_dialect(dialect)
    }
}

async fn engine(backend: Backend, dialect: Dialect) -> Engine {
    let mut config = EngineConfig::read_only(policy(dialect), Duration::from_secs(5));
    config.mode = Mode::Safe;
    let mut e = Engine::new(backend, config).await.expect("engine");
    e.set_approvals(Arc::new(
        ApprovalLedger::random().with_used_table("sg_used"),
    ));
    e
}

fn is_mismatch(code: &ToolCode) -> bool {
    *code == ToolCode::Mutation(MutationCode::PreviewMismatch)
}

/// Between preview and commit, another connection moves the mark from row 1 to row 2: the
/// count stays 1, the rows differ; refused, and only the other connection's change is there.
async fn a_swap_commits_nothing(db: &Db, e: &Engine, sql: &str) {
    db.exec(TABLES).await;
    let swapped = std::sync::Mutex::new(Vec::new());
    let (swapped_ref, db_ref) = (&swapped, db);
    let approve = |r: ApprovalRequest| async move {
        assert_eq!(r.preview_rows, 1);
        db_ref
            .exec("UPDATE sg_items SET status = 'open' WHERE id = 1; UPDATE sg_items SET status = 'flagged' WHERE id = 2")
            .await;
        *swapped_ref.lock().expect("lock") = db_ref.fingerprint().await;
        ApprovalAnswer::Accepted
    };
    let (out, trace) = e.run_mutation(sql, approve).await;
    let err = out.expect_err("a swapped row must not commit");
    assert!(is_mismatch(&err.code), "{sql}: {err:?}");
    assert!(err.message.contains("other rows"), "{}", err.message);
    assert_eq!(trace.committed_rows, None);
    let after = db.fingerprint().await;
    assert!(after.contains(&"i:2:flagged".to_string()), "{after:?}");
    assert_eq!(
        after,
        *swapped.lock().expect("lock"),
        "{sql} changed the database"
    );
    // Without the swap, the same statement commits.
    db.exec(TABLES).await;
    let (out, _) = e
        .run_mutation(sql, |_| std::future::ready(ApprovalAnswer::Accepted))
        .await;
    let out = out.expect("commits").committed().expect("committed");
    assert_eq!(out.status, MutationStatus::Committed);
    assert_eq!((out.affected_rows, out.statement_count), (1, 1));
    assert!(out.approval_wait_ms.is_some());
}

/// A batch whose third statement fails on the engine: in the preview (a duplicate key among
/// its own rows) and only at commit (another connection takes the key during the approval).
async fn a_failing_third_statement_commits_nothing(db: &Db, e: &Engine) {
    db.exec(TABLES).await;
    let before = db.fingerprint().await;
    let accept = |_| std::future::ready(ApprovalAnswer::Accepted);
    let batch = |third: &str| {
        vec![
            "INSERT INTO sg_log (id, note) VALUES (1, 'first')".to_string(),
            "UPDATE sg_items SET status = 'done' WHERE id = 3".to_string(),
            third.to_string(),
        ]
    };
    let dup = batch("INSERT INTO sg_log (id, note) VALUES (1, 'again')");
    let (out, _) = e.run_mutations("run_mutations", &dup, accept).await;
    let err = out.expect_err("the third statement fails");
    assert!(
        err.message.starts_with("statement 3 of 3"),
        "{}",
        err.message
    );
    assert_eq!(db.fingerprint().await, before);
    let later = batch("INSERT INTO sg_log (id, note) VALUES (2, 'third')");
    let taken = std::sync::Mutex::new(Vec::new());
    let (taken_ref, db_ref) = (&taken, db);
    let approve = |r: ApprovalRequest| async move {
        assert_eq!((r.statements.len(), r.preview_rows), (3, 3));
        db_ref
            .exec("INSERT INTO sg_log (id, note) VALUES (2, 'other')")
            .await;
        *taken_ref.lock().expect("lock") = db_ref.fingerprint().await;
        ApprovalAnswer::Accepted
    };
    let (out, trace) = e.run_mutations("run_mutations", &later, approve).await;
    let err = out.expect_err("the third statement fails at commit");
    assert!(
        err.message.starts_with("statement 3 of 3"),
        "{}",
        err.message
    );
    assert_eq!(trace.committed_rows, None);
    let after = db.fingerprint().await;
    assert_eq!(after, *taken.lock().expect("lock"));
    assert!(!after.contains(&"l:1:first".to_string()), "{after:?}");
}

/// Declined: nothing; accepted: every statement, each with its count.
async fn a_batch_commits_all_or_nothing(db: &Db, e: &Engine) {
    db.exec(TABLES).await;
    let before = db.fingerprint().await;
    let batch = vec![
        "INSERT INTO sg_log (id, note) VALUES (7, 'batch')".to_string(),
        "UPDATE sg_items SET status = 'done' WHERE id IN (2, 3)".to_string(),
        "DELETE FROM sg_items WHERE id = 4".to_string(),
    ];
    let (out, _) = e
        .run_mutations("run_mutations", &batch, |_| {
            std::future::ready(ApprovalAnswer::Declined)
        })
        .await;
    assert!(out.is_err(), "declined");
    assert_eq!(db.fingerprint().await, before);
    let (out, trace) = e
        .run_mutations("run_mutations", &batch, |r: ApprovalRequest| {
            assert!(r.message().contains("3 statements in one transaction"));
            std::future::ready(ApprovalAnswer::Accepted)
        })
        .await;
    let out = out.expect("commits").committed().expect("committed");
    let counts: Vec<u64> = out.statements.iter().map(|s| s.affected_rows).collect();
    assert_eq!(counts, [1, 2, 1]);
    assert_eq!((out.statement_count, out.affected_rows), (3, 4));
    assert_eq!(trace.committed_rows, Some(4));
    assert_eq!(
        db.fingerprint().await,
        ["i:1:flagged", "i:2:done", "i:3:done", "l:7:batch"]
    );
}

/// An approval named by a nonce is recorded in the shared table in the commit's transaction;
/// the same nonce again (another instance's replay) commits nothing.
async fn a_recorded_approval_commits_once(db: &Db, e: &Engine) {
    db.exec(TABLES).await;
    let nonce = "00112233445566778899aabbccddeeff";
    let insert = vec!["INSERT INTO sg_log (id, note) VALUES (5, 'once')".to_string()];
    let accept = |_| std::future::ready(ApprovalAnswer::Accepted);
    let (out, _) = e
        .run_mutations_claiming("run_mutations", &insert, Some(nonce), accept)
        .await;
    assert!(out.expect("commits").committed().is_some());
    let once = db.fingerprint().await;
    assert!(once.contains(&"l:5:once".to_string()), "{once:?}");
    let again = vec!["INSERT INTO sg_log (id, note) VALUES (6, 'twice')".to_string()];
    let (out, _) = e
        .run_mutations_claiming("run_mutations", &again, Some(nonce), accept)
        .await;
    let err = out.expect_err("the nonce was used");
    assert_eq!(
        err.code,
        ToolCode::Mutation(MutationCode::ApprovalStateReplayed)
    );
    assert_eq!(db.fingerprint().await, once);
}

async fn every_case(db: &Db, e: &Engine) {
    a_recorded_approval_commits_once(db, e).await;
    a_swap_commits_nothing(
        db,
        e,
        "UPDATE sg_items SET status = 'done' WHERE status = 'flagged'",
    )
    .await;
    a_swap_commits_nothing(db, e, "DELETE FROM sg_items WHERE status = 'flagged'").await;
    a_swap_commits_nothing(
        db,
        e,
        "INSERT INTO sg_log (id, note) SELECT id, status FROM sg_items WHERE status = 'flagged'",
    )
    .await;
    a_failing_third_statement_commits_nothing(db, e).await;
    a_batch_commits_all_or_nothing(db, e).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_refuses_swaps_and_commits_batches_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("items.db");
    let db = Db::Sqlite(path.clone());
    db.exec(TABLES).await;
    let backend = SqliteBackend::open(&path).expect("open").allow_writes();
    let e = engine(Backend::Sqlite(backend), Dialect::Sqlite).await;
    every_case(&db, &e).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_refuses_swaps_and_commits_batches_whole() {
    let Some(url) = server_url("SQLGATE_CHINOOK_URL", "PostgreSQL", "approvals") else {
        return;
    };
    let admin = Db::Postgres(url.clone());
    let (base, _) = url.rsplit_once('/').expect("a URL with a database");
    let exists = {
        let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .expect("connect");
        tokio::spawn(conn);
        c.query(
            "SELECT 1 FROM pg_database WHERE datname = 'sqlgate_approvals'",
            &[],
        )
        .await
        .expect("pg_database")
        .len()
            == 1
    };
    if !exists {
        admin.exec("CREATE DATABASE sqlgate_approvals").await;
    }
    let url = format!("{base}/sqlgate_approvals");
    let db = Db::Postgres(url.clone());
    db.exec(TABLES).await;
    let pg = PgBackend::connect(&url, 2, Duration::from_secs(5), false)
        .await
        .expect("connect");
    let e = engine(Backend::Postgres(pg), Dialect::Postgres).await;
    every_case(&db, &e).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_refuses_swaps_and_commits_batches_whole() {
    let Some(url) = server_url("SQLGATE_MARIADB_CHINOOK_URL", "MariaDB", "approvals") else {
        return;
    };
    Db::Maria(url.clone())
        .exec("CREATE DATABASE IF NOT EXISTS sqlgate_approvals")
        .await;
    let (base, _) = url.rsplit_once('/').expect("a URL with a database");
    let url = format!("{base}/sqlgate_approvals");
    let db = Db::Maria(url.clone());
    db.exec(TABLES).await;
    let backend = MysqlBackend::connect(&url, 2, false)
        .await
        .expect("connect");
    let e = engine(Backend::Mysql(backend), Dialect::Mysql).await;
    every_case(&db, &e).await;
}
