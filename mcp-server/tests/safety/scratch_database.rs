//! The database the attacks run in: created in the cluster of `SQLGATE_CHINOOK_URL` with the
//! objects they aim at, dropped afterwards whatever happened.

use crate::common;

/// The PostgreSQL cluster to work in (`None`: skip).
pub fn chinook_url() -> Option<String> {
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

/// A superuser connection to `url`.
pub async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect as superuser");
    tokio::spawn(conn);
    client
}

/// The objects the attacks aim at. Runs as the test's own setup (not through sqlgate).
pub const SETUP: &str = r#"
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

/// Creates the database `db` beside `chinook`'s, runs `setup` in it, then `run` with its URL in a
/// task of its own; drops the database, then passes on `run`'s panic, if any.
pub async fn in_scratch_database<Fut>(
    chinook: &str,
    db: &str,
    setup: &str,
    run: impl FnOnce(String) -> Fut,
) where
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let admin = connect(chinook).await;
    for sql in [
        format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"),
        format!("CREATE DATABASE {db}"),
    ] {
        admin
            .batch_execute(&sql)
            .await
            .expect("create the test database");
    }
    let url = with_database(chinook, db);
    connect(&url)
        .await
        .batch_execute(setup)
        .await
        .expect("set up the attacked objects");
    let result = tokio::spawn(run(url)).await;
    let _ = admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .await;
    match result {
        Ok(()) => {}
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => panic!("the attack run did not finish: {e}"),
    }
}
