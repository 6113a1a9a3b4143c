//! MySQL / MariaDB against Chinook (`SQLGATE_MARIADB_CHINOOK_URL`, set by `scripts/test.sh`: a
//! throwaway MariaDB run with `--skip-grant-tables`, so every client holds every privilege, the
//! worst case). Skipped with a clear message when the variable is absent, except under `CI=true`,
//! where its absence is a failure.
//!
//! Modules: `tools` (the MCP tools on Chinook, every type, the cost cap), `execution` (the
//! backend's read-only statement, the timeout, safe-mode writes), `attacks` (every mysql vector,
//! nothing changed), `own_server` (tests that start a MariaDB of their own), `server` (shared).

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod attacks;
#[path = "../common/mod.rs"]
mod common;
mod execution;
mod own_server;
mod server;
mod tools;
