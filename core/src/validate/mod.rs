//! Read-only and policy validation of one query, walking every nested query and expression with
//! scopes: CTEs (which shadow tables), FROM items and their aliases, LATERAL, set operations and
//! correlated subqueries.
//!
//! Expressions are walked with sqlparser's derived [`Visitor`], so no expression kind can be
//! skipped; query structure (WITH, FROM, joins) is walked by hand so that names resolve by scope.
//! A final count compares the queries, table factors and function calls the derived visitor sees
//! in the whole statement with those this walker handled: any difference means a part of the tree
//! went unchecked, and the query is refused (fail closed).
//!
//! Where each part lives: `scope` (what a name can resolve to), `query` and `select` (query
//! structure), `from` and `relation` (FROM items, joins, table names), `columns` (column
//! references), `stars` (`*` and its forms), `expr` (the expression visitor), `calls`
//! (function calls) and `diagnostics` (every refusal's message and hint).

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use sqlparser::ast::{Expr, Query, Spanned, Statement, TableFactor, Visit, Visitor};
use sqlparser::tokenizer::Span;

use crate::access::AccessPolicy;
use crate::dialect::Dialect;
use crate::error::{GuardError, Location};
use crate::functions::FunctionPolicy;

pub use mutation::{analyze_mutation, MutationAnalysis};

mod calls;
mod columns;
mod diagnostics;
mod expr;
mod from;
mod mutation;
mod query;
mod relation;
mod scope;
mod select;
mod stars;
#[cfg(test)]
mod test_support;

/// What a checked query reads.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// Tables read (display names).
    pub tables: BTreeSet<String>,
    /// Functions called (lower-case display names).
    pub functions: BTreeSet<String>,
    /// Columns read (`table.column`), when a catalog resolved them.
    pub columns: BTreeSet<String>,
    /// References to row-filtered tables, for the rewrite (empty without row filters).
    pub filtered: Vec<crate::rows::FilteredRef>,
    /// Row filters that apply (the policy's table names), sorted.
    pub row_filters: BTreeSet<String>,
}

/// Everything the walker needs from the guard.
pub struct Context<'a> {
    /// Dialect for name folding.
    pub dialect: Dialect,
    /// Function allow/deny decisions.
    pub functions: &'a FunctionPolicy,
    /// Table and column decisions.
    pub access: &'a AccessPolicy,
    /// Row filters in force, if any.
    pub rows: Option<&'a crate::rows::RowFilters>,
}

/// Validates `statement` (a query, or the query under an EXPLAIN) and returns what it reads.
pub fn analyze(query: &Query, ctx: &Context<'_>) -> Result<Analysis, GuardError> {
    let mut walker = Walker {
        ctx,
        analysis: Analysis::default(),
        counts: Counts::default(),
    };
    walker.query(query, None)?;
    let mut expected = Counts::default();
    let _ = query.visit(&mut expected);
    if expected != walker.counts {
        return Err(diagnostics::not_understood(span_location(query.span())));
    }
    Ok(walker.analysis)
}

/// The leading keyword of a statement, for messages.
pub fn statement_keyword(statement: &Statement) -> String {
    let text = statement.to_string();
    text.split_whitespace()
        .next()
        .unwrap_or("statement")
        .to_uppercase()
}

/// Nodes seen, for the fail-closed cross-check: the walker counts what it handles, the derived
/// visitor what the tree holds.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    queries: usize,
    table_factors: usize,
    function_calls: usize,
}

impl Visitor for Counts {
    type Break = ();
    fn pre_visit_query(&mut self, _: &Query) -> ControlFlow<()> {
        self.queries += 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_table_factor(&mut self, _: &TableFactor) -> ControlFlow<()> {
        self.table_factors += 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if matches!(expr, Expr::Function(_)) {
            self.function_calls += 1;
        }
        ControlFlow::Continue(())
    }
}

/// The scope walker: its methods are spread over this module's files, one concept each.
struct Walker<'c, 'a> {
    ctx: &'c Context<'a>,
    analysis: Analysis,
    counts: Counts,
}

impl Walker<'_, '_> {
    fn dialect(&self) -> Dialect {
        self.ctx.dialect
    }
}

/// The start of `span`, when the parser recorded one.
fn span_location(span: Span) -> Option<Location> {
    (span.start.line > 0).then_some(Location {
        line: span.start.line,
        column: span.start.column,
    })
}
