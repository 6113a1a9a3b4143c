//! Published parameterized queries (`[[queries]]`) and prompts (`[[prompts]]`) through rmcp's
//! client: each query listed as its own read-only tool with a typed input schema, called with
//! its values bound by the driver (an injection attempt stays a value), refused with a
//! structured `bad_request` for a bad parameter, and checked by the guard under the engine's
//! policy (`sqlite`, on the demo database; `postgres` and `mysql`, on Chinook when their URLs
//! are set; `duckdb`, with the cargo feature); the start refused for a query the policy refuses
//! (`startup`, the binary); quota and audit (`accounting`); the README's configuration
//! (`readme`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod accounting;
#[path = "../common/mod.rs"]
mod common;
#[cfg(feature = "duckdb")]
mod duckdb;
mod fixture;
mod mysql;
mod postgres;
mod readme;
mod sqlite;
mod startup;
