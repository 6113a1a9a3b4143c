//! The resolver's state: the FROM levels in scope (one frame per level, its items and the columns
//! each certainly has), the CTEs in scope and the problems found so far, and the lookups over it.

use sqlgate::Dialect;

use super::fixture::PROTECTED_COLUMNS;

/// A FROM item: customer or not, the names that qualify it, the columns it certainly has.
#[derive(Clone, Debug, Default)]
pub(super) struct Item {
    pub(super) customer: bool,
    /// Names that qualify its columns (alias; for customer also `customer`).
    pub(super) names: Vec<String>,
    /// Columns it certainly has.
    pub(super) columns: Vec<String>,
}

/// One FROM level: the items of a SELECT (derived tables see the ones to their left).
#[derive(Clone, Debug, Default)]
pub(super) struct Frame {
    pub(super) items: Vec<Item>,
}

/// The output column names of a query (`?column?` for an expression without a name).
#[derive(Clone, Debug, Default)]
pub(super) struct Output {
    pub(super) columns: Vec<String>,
}

/// The conservative resolver: the dialect (how names fold), the CTEs in scope, the problems found.
pub(super) struct Resolver {
    pub(super) dialect: Dialect,
    /// CTEs in scope: name, output columns.
    pub(super) ctes: Vec<(String, Vec<String>)>,
    pub(super) problems: Vec<String>,
}

impl Resolver {
    pub(super) fn norm(&self, id: &sqlparser::ast::Ident) -> String {
        if self.dialect == Dialect::Postgres && id.quote_style.is_some() {
            id.value.clone()
        } else {
            id.value.to_ascii_lowercase()
        }
    }

    pub(super) fn protected(&self, id: &sqlparser::ast::Ident) -> Option<&'static str> {
        let n = self.norm(id);
        PROTECTED_COLUMNS.iter().copied().find(|c| *c == n)
    }

    pub(super) fn flag(&mut self, what: String) {
        self.problems.push(what);
    }

    pub(super) fn frame_has_customer(env: &[Frame]) -> bool {
        env.last()
            .is_some_and(|f| f.items.iter().any(|i| i.customer))
    }

    pub(super) fn push_item(env: &mut [Frame], item: Item) {
        if let Some(f) = env.last_mut() {
            f.items.push(item);
        }
    }

    /// The FROM item a qualifier names: at the innermost level that has one of that name.
    pub(super) fn lookup_qualifier(
        &self,
        parts: &[sqlparser::ast::Ident],
        env: &[Frame],
    ) -> Option<Item> {
        let q = self.norm(parts.last()?);
        for frame in env.iter().rev() {
            let matching: Vec<&Item> = frame
                .items
                .iter()
                .filter(|i| i.names.contains(&q))
                .collect();
            if let Some(c) = matching.iter().find(|i| i.customer) {
                return Some((*c).clone());
            }
            if let Some(first) = matching.first() {
                return Some((*first).clone());
            }
        }
        // Not in scope at all: an error in every engine, not a read.
        None
    }
}
