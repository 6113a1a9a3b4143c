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
//! The pipeline ([`Guard::check`]): pre-checks on the raw text, parsing with a depth limit and a
//! token-level statement count, classification ([`classify`]), read-only and policy validation,
//! the row cap, regeneration and a self-check: the regenerated SQL must pass the pre-checks and
//! parse back into the very tree that was checked, so that it is a fixed point of the whole
//! pipeline. ARCHITECTURE.md ("Pipeline", "Where each concept lives") maps each step to its
//! module; the modules are private, and everything a caller needs is re-exported here.

#![forbid(unsafe_code)]

mod access;
mod bounds;
mod catalog;
mod class;
mod dialect;
mod error;
mod functions;
mod guard;
mod limit;
mod mask;
mod names;
// `parse` and `precheck` stay public for one function each (`parse::tokenize`,
// `precheck::check_token_count`): core/examples/worst_case.rs measures the token limit on its own.
pub mod parse;
mod policy;
pub mod precheck;
mod rows;
mod sql_dialect;
mod stable_names;
mod validate;
mod verdict;
mod writes;

pub use catalog::{Catalog, CatalogColumn, CatalogTable, ForeignKey};
pub use class::QueryClass;
pub use dialect::Dialect;
pub use error::{ErrorCode, GuardError, Location, Stage};
pub use guard::{classify, number_named_placeholders, Guard, ReadAccess};
pub use names::split_dotted;
pub use parse::is_table_path;
pub use policy::{
    Annotations, Cardinality, ColumnAnnotation, ColumnRefs, ColumnRules, FunctionRules, MaskKind,
    PiiRules, Policy, PolicyError, PolicyLayer, Relationship, TableAnnotation, TableRules,
    WriteLayer, WriteRules, DEFAULT_MAX_AFFECTED_ROWS, DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_GENERATED_BYTES, DEFAULT_MAX_GENERATED_ROWS, DEFAULT_MAX_ROWS,
    DEFAULT_MAX_SQL_BYTES, DEFAULT_MAX_TOKENS,
};
pub use rows::{RowFilterRules, VarValue, Vars};
pub use verdict::{
    Approved, ApprovedMutation, LimitAction, LimitInfo, MutationVerdict, Rejection, Verdict,
};

/// The README's Rust example runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
