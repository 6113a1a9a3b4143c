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

//!
//! Modules: `read_only` and `safe_mode` (the two runs), `attacks` (what is sent), `fingerprint`
//! (what must not change), `scratch_database` (the database they run in).

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod attacks;
#[path = "../common/mod.rs"]
mod common;
mod fingerprint;
mod read_only;
mod safe_mode;
mod scratch_database;
