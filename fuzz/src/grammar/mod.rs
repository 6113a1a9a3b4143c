//! A small SQL grammar for the `grammar` target, generated with `arbitrary`.
//!
//! The benign part renders valid PostgreSQL that the default postgres policy allows: user tables,
//! allowlisted functions, joins, derived tables, CTEs, set operations, subqueries in every clause,
//! and trivia (comments, odd whitespace, literals that contain `;`, `--` and `/*`) between tokens.
//! Dangerous parts are inserted on top, and [`Query::render`] reports whether it inserted one.

mod ast;
mod calls;
mod danger;
mod render;
mod trivia;
mod vocabulary;
mod writer;

pub use ast::{BinOp, Expr, From, JoinKind, Query, Select, SetOp};
pub use calls::{DeniedFn, Spelling, Wrap};
pub use danger::{Catalog, Danger, DangerExpr, DangerFrom, Dml, Lock, Prefix, Stacked};
pub use trivia::Sep;
