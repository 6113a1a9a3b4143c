//! A failed connection says why (refused, host not found, TLS not offered), never with the
//! credentials of the URL; `--require-read-only-role` refuses with its own code.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use sqlgate_mcp::backend::postgres::PgBackend;
use sqlgate_mcp::backend::DbErrorCode;

async fn connect_error(url: &str, read_only_role: bool) -> sqlgate_mcp::backend::DbError {
    match PgBackend::connect(url, 1, Duration::from_secs(5), read_only_role).await {
        Ok(_) => panic!("connecting to {url} must fail"),
        Err(e) => e,
    }
}

#[tokio::test]
async fn a_refused_port_says_connection_refused() {
    let e = connect_error("postgres://agent:s3cret-pw@127.0.0.1:1/db", false).await;
    assert_eq!(e.code, DbErrorCode::DatabaseUnavailable);
    assert!(e.message.contains("connection refused"), "{}", e.message);
    assert!(!e.message.contains("s3cret-pw"), "{}", e.message);
}

#[tokio::test]
async fn an_unknown_host_says_host_not_found() {
    let e = connect_error(
        "postgres://agent:s3cret-pw@no-such-host.invalid:5432/db",
        false,
    )
    .await;
    assert!(e.message.contains("host not found"), "{}", e.message);
    assert!(!e.message.contains("s3cret-pw"), "{}", e.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_required_against_a_server_without_tls_says_so() {
    let Some(url) = common::chinook_url("connect") else {
        return;
    };
    let sep = if url.contains('?') { '&' } else { '?' };
    let e = connect_error(&format!("{url}{sep}sslmode=require"), false).await;
    assert!(e.message.contains("does not offer TLS"), "{}", e.message);
    // A superuser with --require-read-only-role: its own code, not database_error.
    let e = connect_error(&url, true).await;
    assert_eq!(e.code, DbErrorCode::RoleNotReadOnly, "{}", e.message);
    assert_eq!(e.code.as_str(), "role_not_read_only");
}
