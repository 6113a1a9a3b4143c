//! DuckDB backend (cargo feature `duckdb`), through the MCP tools: Chinook copied into a DuckDB
//! file in a temporary folder (read from the repository's SQLite file,
//! `tests/fixtures/chinook/Chinook_Sqlite.sqlite`, with rusqlite: DuckDB's sqlite extension would
//! need a download), plus a table of every DuckDB type and the tables the vectors name.
//!
//! Modules: `tools` (the tools on Chinook, the cost cap), `types` (every type rendered),
//! `attacks` (every duckdb vector and the file-reading attacks refused, nothing changed), `serve`
//! (`serve`'s options and refusals), `fixture` (the database they share).
#![cfg(feature = "duckdb")]
// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod attacks;
#[path = "../common/mod.rs"]
mod common;
mod fixture;
mod serve;
mod tools;
mod types;
