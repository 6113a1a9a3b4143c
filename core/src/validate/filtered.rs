//! What the walker asks of the row filters in force, as a port that `rows::RowFilters`
//! implements: the walker records which references a filter applies to, and `rows` rewrites
//! them afterwards. Validation serves the row filters (which also validate their own
//! predicates with the walker), never the other way round.

use std::collections::BTreeSet;

/// The row filters, as the walker sees them.
pub(crate) trait RowFilterLookup: std::fmt::Debug + Sync {
    /// Indices of the filters whose table could be `parts` (folded, right-aligned).
    fn matching(&self, parts: &[String]) -> Vec<usize>;
    /// The view `parts` may be read while row filters are in force.
    fn trusts_view(&self, parts: &[String]) -> bool;
    /// The policy's table names of the filters at `indices`, for the verdict.
    fn applied_keys(&self, indices: &[usize]) -> BTreeSet<String>;
}

/// A reference to a filtered table, found by the walker: what the rewrite changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FilteredRef {
    /// The address of the reference's `ObjectName` in the tree that was walked: the rewrite
    /// finds it again there (the tree does not move between the walk and the rewrite).
    pub(crate) address: usize,
    /// The filters that apply (indices into the compiled list), in order.
    pub(crate) filters: Vec<usize>,
}
