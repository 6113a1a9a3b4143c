//! # sqlgate
//!
//! A read-only SQL guard for AI agents. Give it the SQL an agent wrote; it answers, in
//! microseconds and without touching a database, whether this is exactly one read-only query,
//! what class of statement it really is, and the SQL to execute in its place: regenerated from the
//! checked syntax tree with the row cap applied.
//!
//! ```
//! use sqlgate::{Guard, Policy, Dialect, ErrorCode, QueryClass};
//!
//! let guard = Guard::new(Policy { max_rows: Some(100), ..Policy::for_dialect(Dialect::Postgres) })?;
//!
//! let approved = guard.check("SELECT name FROM artist ORDER BY name")?;
//! assert_eq!(approved.sql, "SELECT name FROM artist ORDER BY name LIMIT 100");
//!
//! let refused = guard.check("SELECT 1; DROP TABLE artist").unwrap_err();
//! assert_eq!(refused.error.code, ErrorCode::MultipleStatements);
//! assert_eq!(refused.query_class, QueryClass::Ddl);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Callers execute [`Approved::sql`], never the submitted text: whatever a database would read
//! differently from sqlparser (a comment, an escape, a quote) is gone from the regenerated SQL.
//!
//! The pipeline ([`Guard::check`]): [`precheck`] on the raw text, [`parse`] with a depth limit and a
//! token-level statement count, [`class`]ification, read-only and policy validation ([`validate`],
//! [`access`]), the row cap ([`limit`]), regeneration and a self-check: the regenerated SQL must
//! pass the pre-checks and parse back into the very tree that was checked, so that it is a fixed
//! point of the whole pipeline.

#![forbid(unsafe_code)]

pub mod access;
pub mod catalog;
pub mod class;
pub mod dialect;
pub mod error;
pub mod functions;
pub mod guard;
pub mod limit;
pub mod names;
pub mod parse;
pub mod policy;
pub mod precheck;
pub mod sql_dialect;
pub mod validate;
pub mod verdict;

pub use catalog::{Catalog, CatalogColumn, CatalogTable, ForeignKey};
pub use class::QueryClass;
pub use dialect::Dialect;
pub use error::{ErrorCode, GuardError, Location, Stage};
pub use guard::{classify, Guard};
pub use policy::{ColumnRules, FunctionRules, Policy, PolicyError, TableRules};
pub use verdict::{Approved, LimitAction, LimitInfo, Rejection, Verdict};

/// The README's Rust example runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
