//! `sqlgate-mcp`: the command line (`check`, `schema`, `demo`) and the MCP server (`serve`) around
//! the [`sqlgate`] core guard.
//!
//! Every decision about SQL lives in core: this crate loads policies, talks to databases, renders
//! results and speaks MCP. It never re-implements a check. Its folders are layers, highest first
//! (`[package.metadata.layers] order` in Cargo.toml; a module names only its own layer or lower
//! ones): [`app`] (commands), [`config`] (settings), [`transport`] (HTTP, stdio), [`tools`] (the
//! MCP tools), [`gate`] (one principal's guard, catalog and database), [`audit`], [`codes`]
//! (stable codes) and [`backend`] (the database engines).

pub mod app;
pub mod audit;
pub mod backend;
pub mod codes;
pub mod config;
pub mod gate;
pub mod tools;
pub mod transport;
