//! What a name can resolve to: the FROM items ([`Source`]), CTEs and select-list aliases visible
//! at each level of a query, innermost first.

use sqlparser::ast::TableAlias;

use crate::access::ResolvedTable;
use crate::dialect::Dialect;
use crate::names::fold_ident;

/// One FROM item in scope.
#[derive(Debug, Clone)]
pub(super) struct Source {
    /// The alias, when there is one (then only the alias names the source).
    pub(super) alias: Option<String>,
    pub(super) kind: SourceKind,
}

/// What a FROM item is, as far as its columns go.
#[derive(Debug, Clone)]
pub(super) enum SourceKind {
    /// A base table.
    Table(ResolvedTable),
    /// A derived table, CTE, table function or UNNEST: its output columns when known.
    Derived(Option<Vec<String>>),
}

impl Source {
    /// A derived FROM item (table function, UNNEST, ...) known by its alias and the alias's
    /// column list, if any.
    pub(super) fn derived(alias: Option<&TableAlias>, dialect: Dialect) -> Source {
        Source {
            alias: alias.map(|a| fold_ident(&a.name, dialect)),
            kind: SourceKind::Derived(alias_columns(alias, dialect)),
        }
    }

    /// True when `qualifier` (folded parts) names this source.
    pub(super) fn is_named(&self, qualifier: &[String]) -> bool {
        match (&self.alias, &self.kind) {
            (Some(alias), _) => qualifier.len() == 1 && &qualifier[0] == alias,
            // Aligned on the right, either way: `orders` names `sales.orders`, and
            // `public.customer.*` names the FROM item `customer` (found through the search path).
            (None, SourceKind::Table(t)) => {
                let n = qualifier.len().min(t.parts.len());
                n > 0 && t.parts[t.parts.len() - n..] == qualifier[qualifier.len() - n..]
            }
            (None, SourceKind::Derived(_)) => false,
        }
    }

    /// The source's column names (folded), when known.
    pub(super) fn known_columns(&self) -> Option<&[String]> {
        match &self.kind {
            SourceKind::Table(t) => t.columns.as_deref(),
            SourceKind::Derived(c) => c.as_deref(),
        }
    }

    /// The base table under this source, when it has protected columns.
    pub(super) fn protected_table(&self) -> Option<&ResolvedTable> {
        match &self.kind {
            SourceKind::Table(t) if !t.protected.is_empty() => Some(t),
            _ => None,
        }
    }

    /// The base table under this source, when it protects a column called `name`.
    pub(super) fn protecting(&self, name: &str) -> Option<&ResolvedTable> {
        self.protected_table()
            .filter(|t| t.protected.iter().any(|p| p == name))
    }

    /// The column names a user of this source may be told about: a table's open columns as the
    /// catalog spells them, a derived item's output names.
    pub(super) fn open_columns(&self) -> Vec<&str> {
        let columns = self.known_columns().unwrap_or_default();
        match &self.kind {
            SourceKind::Table(t) => columns
                .iter()
                .filter(|c| !t.protected.contains(c))
                .map(|c| t.spelling(c))
                .collect(),
            SourceKind::Derived(_) => columns.iter().map(String::as_str).collect(),
        }
    }
}

/// The folded column list of `AS alias(a, b)`, or `None` without one.
pub(super) fn alias_columns(alias: Option<&TableAlias>, dialect: Dialect) -> Option<Vec<String>> {
    let alias = alias?;
    (!alias.columns.is_empty()).then(|| {
        alias
            .columns
            .iter()
            .map(|c| fold_ident(&c.name, dialect))
            .collect()
    })
}

/// Names visible at one level: CTEs of a WITH, FROM items and select-list aliases of a SELECT.
///
/// How a bare column name resolves (the engines' rule, kept conservative where they differ):
/// levels are searched innermost first; at each level every FROM item that has the name, or
/// whose columns are unknown and so *could* have it, is a candidate, and a candidate that is a
/// protected column refuses the query. The search stops at the first level where a FROM item
/// is known to have the name (the engine binds there). Select-list aliases never stop it: which
/// clauses see them, and whether they win over a FROM column, differs by engine and clause
/// (PostgreSQL's GROUP BY uses an output name only as a last resort and may bind an outer
/// column first; ORDER BY expressions never see aliases), so an alias only proves the name
/// exists.
#[derive(Debug, Default)]
pub(super) struct Scope<'p> {
    pub(super) parent: Option<&'p Scope<'p>>,
    /// CTE names and their output columns when known, in definition order.
    pub(super) ctes: Vec<(String, Option<Vec<String>>)>,
    pub(super) sources: Vec<Source>,
    /// Select-list aliases (folded).
    pub(super) aliases: Vec<String>,
    /// How many levels above this one are visible from here only as possibilities: a FROM
    /// item that is not LATERAL, and a JOIN's ON clause, cannot see the SELECT's other FROM
    /// items in PostgreSQL and MySQL, so a name found there does not stop the search (the
    /// engine looks further out) but a protected candidate there still refuses (DuckDB makes
    /// them visible).
    pub(super) weak_levels: usize,
}

impl<'p> Scope<'p> {
    /// An empty level under `parent`.
    pub(super) fn child(parent: Option<&'p Scope<'p>>) -> Self {
        Scope {
            parent,
            ..Scope::default()
        }
    }

    /// An empty level over `parent` through which the `levels` levels from `parent` up are
    /// only possibilities.
    pub(super) fn weak_view(parent: &'p Scope<'p>, levels: usize) -> Self {
        Scope {
            parent: Some(parent),
            weak_levels: levels,
            ..Scope::default()
        }
    }

    /// This level and every level around it, innermost first.
    pub(super) fn levels(&self) -> impl Iterator<Item = &Scope<'p>> {
        std::iter::successors(Some(self), |s| s.parent)
    }

    /// Every FROM item visible from here, innermost level first.
    pub(super) fn all_sources(&self) -> impl Iterator<Item = &Source> {
        self.levels().flat_map(|l| l.sources.iter())
    }

    /// The innermost CTE called `name`, with its output columns when known.
    pub(super) fn find_cte(&self, name: &str) -> Option<&Option<Vec<String>>> {
        self.levels()
            .find_map(|s| s.ctes.iter().rev().find(|(n, _)| n == name).map(|(_, c)| c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(parts: &[&str], protected: &[&str]) -> ResolvedTable {
        ResolvedTable {
            parts: parts.iter().map(|p| p.to_string()).collect(),
            display: parts.join("."),
            protected: protected.iter().map(|p| p.to_string()).collect(),
            pii: Vec::new(),
            columns: None,
            spelled_columns: None,
            view: false,
        }
    }

    fn names(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|p| p.to_string()).collect()
    }

    #[test]
    fn a_table_is_named_by_its_name_aligned_on_the_right() {
        let orders = Source {
            alias: None,
            kind: SourceKind::Table(table(&["sales", "orders"], &[])),
        };
        assert!(orders.is_named(&names(&["orders"])));
        assert!(orders.is_named(&names(&["sales", "orders"])));
        assert!(orders.is_named(&names(&["db", "sales", "orders"])));
        assert!(!orders.is_named(&names(&["other", "orders"])));
        assert!(!orders.is_named(&names(&["sales"])));
    }

    #[test]
    fn an_alias_is_the_only_name_of_its_source() {
        let aliased = Source {
            alias: Some("o".into()),
            kind: SourceKind::Table(table(&["orders"], &[])),
        };
        assert!(aliased.is_named(&names(&["o"])));
        assert!(!aliased.is_named(&names(&["orders"])));
        let unnamed = Source {
            alias: None,
            kind: SourceKind::Derived(None),
        };
        assert!(!unnamed.is_named(&names(&["d"])));
    }

    #[test]
    fn the_innermost_cte_of_a_name_shadows_the_outer_ones() {
        let mut outer = Scope::child(None);
        outer.ctes.push(("c".into(), Some(names(&["outer_col"]))));
        outer.ctes.push(("other".into(), None));
        let mut inner = Scope::child(Some(&outer));
        inner.ctes.push(("c".into(), Some(names(&["inner_col"]))));
        // Through a weak view too: CTEs are visible everywhere below their WITH.
        let view = Scope::weak_view(&inner, 2);
        assert_eq!(view.find_cte("c"), Some(&Some(names(&["inner_col"]))));
        assert_eq!(view.find_cte("other"), Some(&None));
        assert_eq!(view.find_cte("missing"), None);
        assert_eq!(outer.find_cte("c"), Some(&Some(names(&["outer_col"]))));
    }

    #[test]
    fn sources_of_every_level_are_visible_innermost_first() {
        let mut outer = Scope::child(None);
        outer.sources.push(Source::derived(None, Dialect::Postgres));
        outer.sources[0].alias = Some("outer".into());
        let mut inner = Scope::child(Some(&outer));
        inner.sources.push(Source {
            alias: Some("inner".into()),
            kind: SourceKind::Derived(None),
        });
        let view = Scope::weak_view(&inner, 1);
        let seen: Vec<_> = view.all_sources().filter_map(|s| s.alias.clone()).collect();
        assert_eq!(seen, ["inner", "outer"]);
        assert_eq!(view.levels().count(), 3);
    }

    #[test]
    fn only_a_table_that_protects_the_name_is_a_protected_candidate() {
        let customer = Source {
            alias: None,
            kind: SourceKind::Table(table(&["customer"], &["email"])),
        };
        assert!(customer.protecting("email").is_some());
        assert!(customer.protecting("first_name").is_none());
        let derived = Source {
            alias: None,
            kind: SourceKind::Derived(Some(names(&["email"]))),
        };
        assert!(derived.protecting("email").is_none());
        assert!(derived.protected_table().is_none());
    }
}
