//! Row filters: the policy's `rows` section, one SQL predicate per table, with variables bound
//! per check. Every reference to a filtered table that a statement reads is replaced by a derived
//! table holding only the rows the predicate admits, so that no other row exists for the query
//! (the same semantics as PostgreSQL's row-level security applies to a table scan); a filtered
//! mutation target gets the predicate added to its WHERE.
//!
//! Where each part lives: `vars` (the values bound per check), `bind` (`:name` placeholders and
//! their binding to those values), `in_place` (where a filter may go in a WHERE or ON instead of
//! a derived table), `compile` (predicates parsed,
//! validated and expanded once, when the guard is built), `rewrite` (the per-check rewrite of
//! the references the walker found) and `printed` (the filters as printed pieces, which a
//! read's rewrite splices in as text).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use schemars::JsonSchema;
use serde::Serialize;
use sqlparser::ast::{Expr, Query, TableAlias, VisitMut, VisitorMut};

use crate::error::{ErrorCode, GuardError, Stage};
use crate::names::Pattern;
pub(crate) use crate::validate::FilteredRef;
use crate::validate::RowFilterLookup;

mod bind;
mod compile;
mod deserialize;
mod in_place;
mod printed;
mod rewrite;
mod vars;

pub(crate) use in_place::filter_first;
pub(crate) use rewrite::{bind_target_predicate, rewrite_reads, Form};
pub use vars::{VarValue, Vars};

/// The policy's `rows` section: `table = "predicate"` pairs, plus the views that may still be
/// read while row filters are in force.
///
/// ```toml
/// [rows]
/// invoice = "customer_id = :tenant"
/// invoice_line = "invoice_id IN (SELECT invoice_id FROM invoice WHERE customer_id = :tenant)"
/// trusted_views = ["invoice_summary"]
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RowFilterRules {
    /// Views that may be read while row filters are in force. A view reads its base tables
    /// without the filters, so every other view the catalog knows is refused.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trusted_views: Vec<String>,
    /// Table name (`table` or `schema.table`, no wildcard) to an SQL boolean expression over
    /// that table's columns. `:name` is a variable, bound per check.
    #[serde(flatten)]
    pub filters: BTreeMap<String, String>,
}

/// The alias the filtered table takes inside the derived table that replaces it; the
/// predicate's own column references are qualified with it, so that none of them can resolve
/// to a table of the enclosing query.
const INNER_ALIAS: &str = "sqlgate_filtered";

/// The row filters of a policy, compiled.
#[derive(Debug, Clone)]
pub(crate) struct RowFilters {
    filters: Vec<RowFilter>,
    trusted_views: Vec<Pattern>,
    /// `(SELECT 1) AS x`'s alias, as the parser builds it: the shape of every alias added.
    alias_prototype: TableAlias,
}

/// One compiled filter.
#[derive(Debug, Clone)]
struct RowFilter {
    /// The table as the policy names it (for the verdict and messages).
    key: String,
    pattern: Pattern,
    /// `SELECT * FROM <key> AS sqlgate_filtered WHERE <predicate>`, the predicate's columns
    /// qualified and the filtered tables it reads already replaced. The FROM item is replaced by
    /// the statement's own reference on use.
    template: Query,
    /// The template's WHERE (for a mutation's target, qualified with the target's name).
    predicate: Expr,
    /// Variables the predicate needs.
    variables: BTreeSet<String>,
    /// Columns of the table the predicate reads (folded): a mutation may not write them.
    columns: BTreeSet<String>,
    /// The other filters this one applies through the filtered tables its predicate reads,
    /// transitively (indices): a verdict lists them as applied too.
    reads: BTreeSet<usize>,
    /// The template and predicate printed, for reads (`None` while compiling, or when a print
    /// cannot be cut: then the filter is applied as a tree).
    printed: Option<printed::PrintedFilter>,
}

/// Calls `f` on every expression of `tree` after its children, with `true` for the expressions
/// at `own` query depth (the predicate's own level, outside its sub-queries; the depth counts
/// the queries around an expression inside `tree`).
fn visit_levels<T: VisitMut>(tree: &mut T, own: usize, f: impl FnMut(&mut Expr, bool)) {
    struct Levels<F> {
        depth: usize,
        own: usize,
        f: F,
    }
    impl<F: FnMut(&mut Expr, bool)> VisitorMut for Levels<F> {
        type Break = ();
        fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth += 1;
            ControlFlow::Continue(())
        }
        fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
            self.depth = self.depth.saturating_sub(1);
            ControlFlow::Continue(())
        }
        fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            (self.f)(expr, self.depth == self.own);
            ControlFlow::Continue(())
        }
    }
    let _ = tree.visit(&mut Levels { depth: 0, own, f });
}

/// The walker asks the row filters through its port (`validate/filtered.rs`).
impl RowFilterLookup for RowFilters {
    fn matching(&self, parts: &[String]) -> Vec<usize> {
        RowFilters::matching(self, parts)
    }

    fn trusts_view(&self, parts: &[String]) -> bool {
        RowFilters::trusts_view(self, parts)
    }

    fn applied_keys(&self, indices: &[usize]) -> BTreeSet<String> {
        RowFilters::applied_keys(self, indices)
    }
}

impl RowFilters {
    /// Indices of the filters whose table could be `parts` (folded, right-aligned; a
    /// qualifier the name does not spell matches, as for `tables.deny`).
    pub(crate) fn matching(&self, parts: &[String]) -> Vec<usize> {
        self.filters
            .iter()
            .enumerate()
            .filter(|(_, f)| f.pattern.matches_conservatively(parts))
            .map(|(i, _)| i)
            .collect()
    }

    /// True when `parts` (folded) is a view listed in `trusted_views`.
    pub(crate) fn trusts_view(&self, parts: &[String]) -> bool {
        self.trusted_views
            .iter()
            .any(|p| p.matches_conservatively(parts))
    }

    /// The (folded) columns filter `index` reads.
    pub(crate) fn filter_columns(&self, index: usize) -> impl Iterator<Item = &String> {
        self.filters
            .get(index)
            .into_iter()
            .flat_map(|f| f.columns.iter())
    }

    /// Every variable any filter needs (without the `:`).
    pub(crate) fn variables(&self) -> BTreeSet<String> {
        self.filters
            .iter()
            .flat_map(|f| f.variables.iter().cloned())
            .collect()
    }

    /// The policy's names of filters `indices` and of the filters they apply in turn.
    pub(crate) fn applied_keys(&self, indices: &[usize]) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for &i in indices {
            if let Some(filter) = self.filters.get(i) {
                out.insert(filter.key.clone());
                out.extend(filter.reads.iter().map(|&j| self.key(j).to_string()));
            }
        }
        out
    }

    /// Filter `index`'s name and printed pieces, when it has them.
    fn printed(&self, index: usize) -> Option<(&str, &printed::PrintedFilter)> {
        let filter = self.filters.get(index)?;
        Some((filter.key.as_str(), filter.printed.as_ref()?))
    }

    /// How many filters have printed pieces (the rest are rewritten as trees).
    #[cfg(test)]
    pub(crate) fn printed_count(&self) -> usize {
        self.filters.iter().filter(|f| f.printed.is_some()).count()
    }

    /// The policy's name for filter `index`.
    pub(crate) fn key(&self, index: usize) -> &str {
        self.filters.get(index).map_or("", |f| f.key.as_str())
    }
}

/// A mutation whose target is row-filtered and whose rows the filter cannot bound.
pub(crate) fn write_out_of_row_filter(table: &str, what: &str) -> GuardError {
    GuardError::new(
        ErrorCode::RowFilter,
        Stage::Validate,
        format!("`{table}` is row-filtered, and {what}"),
    )
    .with_hint(
        "change rows of this table with UPDATE or DELETE ... WHERE, leaving the columns its filter reads unchanged",
    )
}

#[cfg(test)]
mod tests;
