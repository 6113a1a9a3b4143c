//! `sqlgate-mcp`: the command line (`check`, `schema`, `demo`) and the MCP server (`serve`) around
//! the [`sqlgate`] core guard.
//!
//! Every decision about SQL lives in core: this crate loads policies, talks to databases, renders
//! results and speaks MCP. It never re-implements a check.

pub mod approval;
pub mod audit;
pub mod backend;
pub mod check;
pub mod cli;
pub mod config;
pub mod demo;
pub mod engine;
pub mod exit;
pub mod hints;
pub mod http;
pub mod mode;
pub mod mutation;
pub mod serve;
pub mod text;
pub mod tool_error;
pub mod tools;
pub mod writable;
