//! The audit log's hash chain: `audit verify` on intact files and on each kind of tampering,
//! restart, torn last line and rotation keeping one chain, many concurrent HTTP sessions producing
//! one verifiable chain (`chain`); failure modes on a full device and what the server's tools show
//! and keep out of the log (`server`); the OpenTelemetry format and OTLP export (`otel`). All on
//! the embedded demo database.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod chain;
#[path = "../common/mod.rs"]
mod common;
mod log_files;
mod otel;
mod per_call;
mod server;
