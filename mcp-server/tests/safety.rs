//! Safety against a real PostgreSQL, in the worst case: the MCP server connected as a superuser.
//!
//! Every PostgreSQL attack of the core suite (`tests/vectors/attacks.jsonl`), the PostgreSQL
//! vectors of `access.jsonl` and `limits.jsonl`, and attacks aimed at this test's own objects go
//! through the `run_query` tool of the MCP server (in-process rmcp client). Afterwards:
//! - every attack was seen by `run_query` (one audit record each), and every attack the suite
//!   expects refused was refused by the guard, before the database;
//! - the database's fingerprint is unchanged: row counts and checksums of every table, view and
//!   sequence, sequence values, user-settable settings (and `ALTER SYSTEM` / per-role and
//!   per-database settings), large objects, roles and memberships, privileges and comments,
//!   schemas, functions, extensions, databases;
//! - no file was written: the paths the attacks try to write (`/tmp/sqlgate-pwned*`, every
//!   absolute path in an attack) are as they were.
//!
//! The objects attacked (`users`, `t`, `u`, `s`, a sequence, a large object, a procedure ...) live
//! in a database this test creates in the cluster of `SQLGATE_CHINOOK_URL` and drops at the end.
//! Skipped with a message without `SQLGATE_CHINOOK_URL`, a failure under `CI=true`.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};
use sqlgate_mcp::audit::Audit;
use sqlgate_mcp::tools::SqlGateServer;

mod common;
use common::{pg_engine, postgres_policy, serve_in_process, structured, try_call};

fn chinook_url() -> Option<String> {
    common::chinook_url("the safety test")
}

/// The same URL with another database name.
fn with_database(url: &str, db: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
    let host_end = base[scheme_end..]
        .find('/')
        .map(|i| scheme_end + i)
        .unwrap_or(base.len());
    format!("{}/{db}{query}", &base[..host_end])
}

async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect as superuser");
    tokio::spawn(conn);
    client
}

/// The objects the attacks aim at. Runs as the test's own setup (not through sqlgate).
const SETUP: &str = r#"
CREATE TABLE users (id serial PRIMARY KEY, name text NOT NULL, admin boolean NOT NULL DEFAULT false, email text);
INSERT INTO users (name, admin, email) SELECT 'user' || g, g = 1, 'u' || g || '@example.com' FROM generate_series(1, 20) g;
CREATE TABLE t (id serial PRIMARY KEY, a int);
INSERT INTO t (a) SELECT g FROM generate_series(1, 10) g;
CREATE TABLE u (a int);
INSERT INTO u SELECT g FROM generate_series(1, 5) g;
CREATE TABLE s (a int);
INSERT INTO s SELECT g FROM generate_series(3, 8) g;
CREATE VIEW active_users AS SELECT id, name FROM users WHERE NOT admin;
CREATE MATERIALIZED VIEW t_count AS SELECT count(*) AS n FROM t;
CREATE SCHEMA my_schema;
CREATE FUNCTION my_schema.my_func(int) RETURNS int LANGUAGE sql AS 'SELECT $1';
CREATE FUNCTION wipe() RETURNS bigint LANGUAGE sql AS 'WITH d AS (DELETE FROM users RETURNING 1) SELECT count(*) FROM d';
CREATE PROCEDURE cleanup() LANGUAGE sql AS 'DELETE FROM users';
COMMENT ON TABLE users IS 'people';
SELECT lo_from_bytea(0, '\x0102'::bytea);
ANALYZE;
"#;

/// Attacks aimed at the objects of [`SETUP`] and at the server's files and settings.
const EXTRA_ATTACKS: &[&str] = &[
    "SELECT wipe()",
    "SELECT * FROM users, wipe()",
    "SELECT public.wipe()",
    "CALL cleanup()",
    "SELECT my_schema.my_func(1)",
    "SELECT setval('users_id_seq', 1000)",
    "SELECT nextval('t_id_seq')",
    "SELECT nextval(pg_get_serial_sequence('users', 'id'))",
    "SELECT lo_unlink(oid) FROM pg_largeobject_metadata",
    "SELECT lo_create(0)",
    "SELECT lo_from_bytea(0, '\\x00')",
    "SELECT lo_export(lo_import('/etc/hostname'), '/tmp/sqlgate-pwned-lo')",
    "SELECT pg_file_write('/tmp/sqlgate-pwned-fw', 'x', false)",
    "COPY users TO '/tmp/sqlgate-pwned-copy.csv'",
    "COPY (SELECT * FROM users) TO '/tmp/sqlgate-pwned-query.csv'",
    "COPY users TO PROGRAM 'touch /tmp/sqlgate-pwned-program'",
    "SELECT 1; COPY users TO '/tmp/sqlgate-pwned-stacked'",
    "ALTER SYSTEM SET work_mem = '77MB'",
    "SELECT pg_reload_conf()",
    "ALTER ROLE CURRENT_USER SET work_mem = '77MB'",
    "ALTER DATABASE CURRENT SET work_mem = '77MB'",
    "ALTER ROLE CURRENT_USER NOSUPERUSER",
    "CREATE ROLE sqlgate_pwned SUPERUSER LOGIN",
    "SELECT set_config('default_transaction_read_only', 'off', false)",
    "SELECT set_config('work_mem', '77MB', false)",
    "REFRESH MATERIALIZED VIEW t_count",
    "CREATE TEMP TABLE sqlgate_pwned AS SELECT 1",
    "SELECT * INTO sqlgate_pwned FROM users",
    "SELECT * FROM users FOR UPDATE",
    "WITH x AS (UPDATE users SET admin = true RETURNING 1) SELECT count(*) FROM x",
    "SELECT query_to_xml('UPDATE users SET admin = true RETURNING 1', true, true, '')",
    "SELECT dblink_exec('dbname=postgres', 'CREATE ROLE sqlgate_pwned SUPERUSER')",
    "SELECT pg_stat_reset()",
    "SELECT pg_logical_emit_message(true, 'x', 'y')",
    "SELECT pg_create_restore_point('sqlgate')",
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
    "SELECT pg_advisory_lock(1)",
    "SELECT txid_current()",
    "DO $$ BEGIN DELETE FROM users; END $$",
    "SELECT 1; DROP TABLE users",
    "COMMIT; DROP TABLE users",
    "EXPLAIN ANALYZE DELETE FROM users",
    "SELECT name, (SELECT wipe()) FROM users",
    "SELECT * FROM users WHERE id = (SELECT setval('users_id_seq', 1))",
];

struct Attack {
    sql: String,
    source: &'static str,
    /// The suite expects a refusal under the default policy (so: before the database).
    expect_refused: bool,
}

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

/// The PostgreSQL vectors of one file; every line must parse.
fn postgres_vectors(file: &'static str, all_are_attacks: bool) -> Vec<Attack> {
    let path = vectors_dir().join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{file}:{}: not JSON: {e}", i + 1));
        if v["dialect"].as_str() != Some("postgres") {
            continue;
        }
        let sql = v["sql"]
            .as_str()
            .unwrap_or_else(|| panic!("{file}:{}: no `sql`", i + 1));
        let expected_refused = v["expect"]["allowed"].as_bool() == Some(false);
        // Vectors with their own policy may be allowed under the server's default one.
        let own_policy = v.get("policy").is_some();
        if all_are_attacks && !own_policy {
            assert!(
                expected_refused,
                "{file}:{}: an attack the suite allows",
                i + 1
            );
        }
        out.push(Attack {
            sql: sql.to_string(),
            source: file,
            expect_refused: expected_refused && !own_policy && all_are_attacks,
        });
    }
    out
}

/// Absolute paths named in the attacks, plus every `/tmp/sqlgate-pwned*` entry.
fn watched_paths(attacks: &[Attack]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for a in attacks {
        for (i, part) in a.sql.split('\'').enumerate() {
            if i % 2 == 1 && part.starts_with('/') && !part.contains(char::is_whitespace) {
                paths.push(PathBuf::from(part));
            }
        }
    }
    for p in ["/tmp/sqlgate-pwned", "/tmp/sqlgate-pwned-program"] {
        paths.push(PathBuf::from(p));
    }
    paths.sort();
    paths.dedup();
    paths
}

type FileState = BTreeMap<PathBuf, Option<(u64, SystemTime)>>;

/// Size and mtime of each path (`None`: absent). Directories (`pg_ls_dir('/')`) count by
/// existence only: other processes add entries to them.
fn file_state(paths: &[PathBuf]) -> FileState {
    let mut state: FileState = BTreeMap::new();
    for p in paths {
        let meta = std::fs::symlink_metadata(p).ok();
        state.insert(
            p.clone(),
            meta.map(|m| {
                if m.is_dir() {
                    (0, SystemTime::UNIX_EPOCH)
                } else {
                    (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH))
                }
            }),
        );
    }
    if let Ok(entries) = std::fs::read_dir("/tmp") {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("sqlgate-pwned") {
                let m = e.metadata().ok();
                state.insert(
                    e.path(),
                    m.map(|m| (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH))),
                );
            }
        }
    }
    state
}

/// What an attack could change, as text, one entry per aspect.
#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
async fn fingerprint(url: &str) -> BTreeMap<String, String> {
    let client = connect(url).await;
    let mut fp = BTreeMap::new();
    let relations = client
        .query(
            "SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname), c.relkind = 'S' FROM pg_class c \
             JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r','p','v','m','S','f') \
             AND n.nspname NOT IN ('pg_catalog','information_schema') AND n.nspname NOT LIKE 'pg\\_toast%' \
             AND n.nspname NOT LIKE 'pg\\_temp%' ORDER BY 1",
            &[],
        )
        .await
        .expect("relations");
    for r in relations {
        let name: String = r.get(0);
        let sequence: bool = r.get(1);
        // Row count and checksum of the rows; a sequence's state.
        let sql = if sequence {
            format!("SELECT concat_ws(':', last_value, log_cnt, is_called) FROM {name}")
        } else {
            format!(
                "SELECT count(*)::text || ':' || coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '') FROM {name} x"
            )
        };
        let row = client
            .query_one(&sql, &[])
            .await
            .unwrap_or_else(|e| panic!("checksum of {name}: {e:?}"));
        fp.insert(format!("rows {name}"), row.get::<_, String>(0));
    }
    for (what, q) in [
        (
            "sequences",
            "SELECT string_agg(schemaname || '.' || sequencename || '=' || coalesce(last_value::text, 'null'), ',' ORDER BY schemaname, sequencename) FROM pg_sequences",
        ),
        (
            "user-settable settings",
            "SELECT string_agg(name || '=' || coalesce(setting, '') || ':' || source, ',' ORDER BY name) FROM pg_settings WHERE context IN ('user', 'superuser')",
        ),
        (
            "configuration files (ALTER SYSTEM)",
            "SELECT string_agg(coalesce(sourcefile, '') || ':' || name || '=' || coalesce(setting, ''), ',' ORDER BY sourcefile, seqno) FROM pg_file_settings",
        ),
        (
            "role and database settings",
            "SELECT string_agg(setdatabase::text || '/' || setrole::text || '=' || array_to_string(setconfig, ';'), ',' ORDER BY setdatabase, setrole) FROM pg_db_role_setting",
        ),
        (
            "large objects",
            "SELECT count(*)::text || ':' || coalesce(string_agg(oid::text, ',' ORDER BY oid), '') FROM pg_largeobject_metadata",
        ),
        (
            "roles",
            "SELECT string_agg(concat_ws(':', rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin, rolreplication, rolbypassrls, rolconnlimit, md5(coalesce(rolpassword, '')), rolvaliduntil), ',' ORDER BY rolname) FROM pg_authid",
        ),
        (
            "role memberships",
            "SELECT coalesce(string_agg(roleid::regrole::text || '>' || member::regrole::text, ',' ORDER BY roleid, member), '') FROM pg_auth_members",
        ),
        (
            "privileges and comments",
            "SELECT string_agg(c.oid::regclass::text || ':' || coalesce(c.relacl::text, '') || ':' || coalesce(obj_description(c.oid, 'pg_class'), ''), ',' ORDER BY c.oid) \
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'",
        ),
        (
            "schemas",
            "SELECT string_agg(nspname || ':' || coalesce(nspacl::text, ''), ',' ORDER BY nspname) FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_temp%' AND nspname NOT LIKE 'pg\\_toast\\_temp%'",
        ),
        (
            "functions",
            "SELECT count(*)::text || ':' || md5(string_agg(p.oid::regprocedure::text || coalesce(p.proacl::text, ''), ',' ORDER BY p.oid)) FROM pg_proc p",
        ),
        (
            "triggers, rules, policies",
            "SELECT (SELECT count(*) FROM pg_trigger)::text || ':' || (SELECT count(*) FROM pg_rewrite)::text || ':' || (SELECT count(*) FROM pg_policy)::text",
        ),
        (
            "extensions",
            "SELECT string_agg(extname || ' ' || extversion, ',' ORDER BY extname) FROM pg_extension",
        ),
        (
            "databases",
            "SELECT string_agg(datname || ':' || datallowconn::text || ':' || coalesce(datacl::text, ''), ',' ORDER BY datname) FROM pg_database WHERE datname NOT LIKE 'sqlgate\\_safety\\_%' OR datname = current_database()",
        ),
    ] {
        let row = client
            .query_one(q, &[])
            .await
            .unwrap_or_else(|e| panic!("fingerprint {what}: {e:?}"));
        fp.insert(what.to_string(), row.get::<_, Option<String>>(0).unwrap_or_default());
    }
    fp
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_attack_through_run_query_as_superuser_changes_nothing() {
    let Some(chinook) = chinook_url() else { return };
    let db = format!("sqlgate_safety_{}", std::process::id());
    let admin = connect(&chinook).await;
    for sql in [
        format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
        format!("CREATE DATABASE {db}"),
    ] {
        admin
            .batch_execute(&sql)
            .await
            .expect("create the test database");
    }
    let url = with_database(&chinook, &db);
    connect(&url)
        .await
        .batch_execute(SETUP)
        .await
        .expect("set up the attacked objects");

    let result = tokio::spawn(run_attacks(url)).await;
    let _ = admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .await;
    match result {
        Ok(()) => {}
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => panic!("the attack run did not finish: {e}"),
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
async fn run_attacks(url: String) {
    let mut attacks = postgres_vectors("attacks.jsonl", true);
    let suite = attacks.len();
    assert!(
        suite >= 100,
        "only {suite} PostgreSQL attacks in attacks.jsonl"
    );
    attacks.extend(postgres_vectors("access.jsonl", false));
    attacks.extend(postgres_vectors("limits.jsonl", false));
    attacks.extend(EXTRA_ATTACKS.iter().map(|s| Attack {
        sql: s.to_string(),
        source: "extra",
        expect_refused: true,
    }));
    let paths = watched_paths(&attacks);
    let files_before = file_state(&paths);
    let before = fingerprint(&url).await;

    let engine = pg_engine(&url, 2, Duration::from_secs(5), postgres_policy(50)).await;
    assert!(
        engine
            .backend()
            .role_warnings()
            .iter()
            .any(|w| w.contains("superuser")),
        "the test must run as a superuser (the worst case)"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let audit_path = dir.path().join("audit.jsonl");
    let server = SqlGateServer::new(Arc::new(engine), Audit::file(&audit_path).expect("audit"));
    let client = serve_in_process(server).await;

    let mut problems: Vec<String> = Vec::new();
    for a in &attacks {
        let r = match try_call(&client, "run_query", json!({ "sql": a.sql })).await {
            Ok(r) => r,
            Err(e) => {
                problems.push(format!("[{}] {:?}: call failed: {e}", a.source, a.sql));
                continue;
            }
        };
        let out = structured(&r);
        if r.is_error == Some(true) {
            if a.expect_refused && out["stage"] == "execute" {
                problems.push(format!(
                    "[{}] {:?}: reached the database: {out}",
                    a.source, a.sql
                ));
            }
        } else {
            if a.expect_refused {
                problems.push(format!("[{}] {:?}: allowed: {out}", a.source, a.sql));
            }
            if out["query_class"] != "select" {
                problems.push(format!("[{}] {:?}: ran as {out}", a.source, a.sql));
            }
        }
    }
    let _ = client.cancel().await;

    // Every attack went through run_query: one audit record each, with the SQL as sent.
    let audit = std::fs::read_to_string(&audit_path).expect("audit file");
    let records: Vec<Value> = audit
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r.get("header").is_none())
        .collect();
    assert_eq!(records.len(), attacks.len(), "one audit record per attack");
    for (rec, a) in records.iter().zip(&attacks) {
        assert_eq!(rec["tool"], "run_query");
        assert_eq!(rec["sql"].as_str(), Some(a.sql.as_str()));
    }

    let after = fingerprint(&url).await;
    let files_after = file_state(&paths);
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    let changed: Vec<String> = before
        .iter()
        .filter(|(k, v)| after.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}: {v} -> {:?}", after.get(k)))
        .chain(
            after
                .keys()
                .filter(|k| !before.contains_key(*k))
                .map(|k| format!("new: {k}")),
        )
        .collect();
    assert!(changed.is_empty(), "the database changed: {changed:#?}");
    assert_eq!(files_before, files_after, "a watched file changed");
    eprintln!(
        "{} attacks ({suite} from attacks.jsonl) through run_query; {} aspects and {} paths unchanged",
        attacks.len(),
        before.len(),
        paths.len()
    );
}

/// The tables the mutation vectors (`tests/vectors/mutations.jsonl`) aim at, as in the engines
/// suite's fixture, plus `order_lines`.
const WRITE_SETUP: &str = r#"
CREATE TABLE customer (customer_id int PRIMARY KEY, first_name text, last_name text, email text, phone text, country text, support_rep_id int);
INSERT INTO customer SELECT g, 'first' || g, 'last' || g, 'c' || g || '@example.com', '+1-555-' || g, 'C' || (g % 3), 1 FROM generate_series(1, 10) g;
CREATE TABLE employee (employee_id int PRIMARY KEY, first_name text, last_name text, email text, salary int);
INSERT INTO employee SELECT g, 'e' || g, 'l' || g, 'e' || g || '@example.com', 1000 * g FROM generate_series(1, 3) g;
CREATE TABLE invoice (invoice_id int PRIMARY KEY, customer_id int, total numeric(10,2), billing_country text);
INSERT INTO invoice SELECT g, 1 + g % 10, g * 1.5, 'C' || (g % 3) FROM generate_series(1, 20) g;
CREATE TABLE orders (id int PRIMARY KEY, status text, customer_id int, ssn text);
INSERT INTO orders SELECT g, 'new', 1 + g % 10, 'secret-ssn-' || g FROM generate_series(1, 20) g;
CREATE TABLE order_lines (order_id int, line_no int, product_id int, quantity int, PRIMARY KEY (order_id, line_no));
INSERT INTO order_lines SELECT 1 + g % 20, g, 1 + g % 5, g FROM generate_series(1, 30) g;
CREATE TABLE product (id int PRIMARY KEY, name text, price int);
INSERT INTO product SELECT g, 'p' || g, g % 7 FROM generate_series(1, 20) g;
ANALYZE;
"#;

/// The policy of most mutation vectors: writes to orders, order_lines and customer (create and
/// delete), employee denied, contact columns and `*.ssn` protected.
fn write_policy() -> sqlgate::Policy {
    let mut p = postgres_policy(50);
    p.tables.deny = vec!["employee".into()];
    p.columns.deny = vec![
        "customer.email".into(),
        "customer.phone".into(),
        "*.ssn".into(),
    ];
    p.writes = Some(sqlgate::WriteRules::new(
        &["orders", "order_lines", "customer"],
        &[
            sqlgate::QueryClass::MutationCreate,
            sqlgate::QueryClass::MutationDelete,
        ],
    ));
    p
}

/// The PostgreSQL rows of `mutations.jsonl` (`"entry": "mutation"`), as attacks on run_query too.
fn postgres_mutation_vectors() -> Vec<Attack> {
    let mut out = postgres_vectors("mutations.jsonl", false);
    for a in out.iter_mut() {
        a.source = "mutations.jsonl";
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_safe_mode_only_allowed_mutations_change_anything() {
    let Some(chinook) = chinook_url() else { return };
    let db = format!("sqlgate_safety_{}_writes", std::process::id());
    let admin = connect(&chinook).await;
    for sql in [
        format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
        format!("CREATE DATABASE {db}"),
    ] {
        admin
            .batch_execute(&sql)
            .await
            .expect("create the test database");
    }
    let url = with_database(&chinook, &db);
    let setup = format!("{SETUP}\n{WRITE_SETUP}");
    connect(&url)
        .await
        .batch_execute(&setup)
        .await
        .expect("set up the attacked objects");
    let result = tokio::spawn(run_attacks_in_safe_mode(url)).await;
    let _ = admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .await;
    match result {
        Ok(()) => {}
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => panic!("the attack run did not finish: {e}"),
    }
}

/// Sends `a` to `tool`; returns the committed mutation's target, and pushes what went wrong.
async fn send(
    client: &rmcp::service::Peer<rmcp::RoleClient>,
    tool: &str,
    a: &Attack,
    problems: &mut Vec<String>,
) -> Option<String> {
    let r = match try_call(client, tool, json!({ "sql": a.sql })).await {
        Ok(r) => r,
        Err(e) => {
            problems.push(format!(
                "[{}] {tool} {:?}: call failed: {e}",
                a.source, a.sql
            ));
            return None;
        }
    };
    let out = structured(&r);
    if r.is_error == Some(true) {
        return None;
    }
    match tool {
        "run_query" if out["query_class"] != "select" => {
            problems.push(format!("[{}] run_query {:?} ran as {out}", a.source, a.sql));
            None
        }
        "run_mutation" if a.source != "mutations.jsonl" => {
            problems.push(format!(
                "[{}] an attack committed: {:?}: {out}",
                a.source, a.sql
            ));
            None
        }
        "run_mutation" => out["target"].as_str().map(str::to_string),
        _ => None,
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
async fn run_attacks_in_safe_mode(url: String) {
    let mut attacks = postgres_vectors("attacks.jsonl", true);
    attacks.extend(EXTRA_ATTACKS.iter().map(|s| Attack {
        sql: s.to_string(),
        source: "extra",
        expect_refused: true,
    }));
    let mutations = postgres_mutation_vectors();
    assert!(
        mutations.len() >= 100,
        "only {} mutation vectors",
        mutations.len()
    );
    attacks.extend(mutations);
    let paths = watched_paths(&attacks);
    let files_before = file_state(&paths);
    let before = fingerprint(&url).await;

    let mut engine_config =
        sqlgate_mcp::gate::EngineConfig::read_only(write_policy(), Duration::from_secs(5));
    engine_config.mode = sqlgate_mcp::codes::Mode::Safe;
    let pg =
        sqlgate_mcp::backend::postgres::PgBackend::connect(&url, 2, Duration::from_secs(5), false)
            .await
            .expect("connect");
    let engine =
        sqlgate_mcp::gate::Engine::new(sqlgate_mcp::backend::Backend::Postgres(pg), engine_config)
            .await
            .expect("engine");
    let dir = tempfile::tempdir().expect("tempdir");
    let server = SqlGateServer::new(
        Arc::new(engine),
        Audit::file(&dir.path().join("a.jsonl")).expect("audit"),
    );
    let approver = common::AlwaysApprove::default();
    let client = common::serve_in_process_with(server, approver.clone()).await;

    let mut problems: Vec<String> = Vec::new();
    let mut targets: Vec<String> = Vec::new();
    let mut committed = 0;
    for a in &attacks {
        send(&client, "run_query", a, &mut problems).await;
        if let Some(t) = send(&client, "run_mutation", a, &mut problems).await {
            committed += 1;
            targets.push(t);
        }
    }
    let _ = client.cancel().await;
    let after = fingerprint(&url).await;
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        committed > 0,
        "no allowed mutation vector committed: the test would prove nothing"
    );
    let asked = approver.asked.load(std::sync::atomic::Ordering::SeqCst);
    assert!(
        asked >= committed,
        "{committed} commits but only {asked} approvals asked"
    );
    // Only the committed vectors' targets may differ (none of them has a sequence to advance).
    let allowed: Vec<String> = targets
        .iter()
        .map(|t| format!("rows public.{}", t.rsplit('.').next().unwrap_or(t)))
        .collect();
    let changed: Vec<String> = before
        .iter()
        .filter(|(k, v)| after.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .chain(after.keys().filter(|k| !before.contains_key(*k)).cloned())
        .filter(|k| !allowed.contains(k))
        .collect();
    assert!(
        changed.is_empty(),
        "changed outside the allowed mutations' targets: {changed:#?}"
    );
    assert_eq!(files_before, file_state(&paths), "a watched file changed");
    eprintln!(
        "{} payloads through run_query and run_mutation in safe mode; {committed} allowed mutations committed (targets {:?}); nothing else changed",
        attacks.len(),
        { let mut t = targets.clone(); t.sort(); t.dedup(); t }
    );
}
