//! The MCP server end to end: an in-process rmcp client, the binary over stdio, and HTTP with auth,
//! Origin and body-cap checks (`transports`); SQLite's own errors, timeouts and foreign keys
//! (`sqlite`). All on the embedded demo database.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
mod exercise;
mod sqlite;
mod transports;
