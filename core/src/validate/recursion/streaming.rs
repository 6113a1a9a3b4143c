//! An outer LIMIT that stops a recursive CTE. PostgreSQL evaluates a WITH query only as far as
//! the query reading it fetches ("PostgreSQL's implementation evaluates only as many rows of a
//! WITH query as are actually fetched by the parent query", PostgreSQL 15 manual, 7.8.2.2), and
//! so do DuckDB and SQLite (each tested: `WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1
//! FROM t) SELECT * FROM t LIMIT 3` returns three rows). It holds only while the reading query
//! streams: a sort, a grouping, an aggregate, DISTINCT, a join, or a WHERE that may never match
//! reads the whole CTE first (`... ORDER BY n LIMIT 3` never ends). MariaDB materializes the CTE
//! before reading it.

use sqlparser::ast::{Expr, GroupByExpr, Query, SelectItem, SetExpr, TableFactor};

use super::literal_limit;
use crate::dialect::Dialect;
use crate::names::fold_ident;

/// The rows `outer` fetches from the CTE `cte` before its LIMIT stops it: its literal `LIMIT n
/// [OFFSET o]` (`n + o`), when `outer` only reads columns of `cte` as they are, in a dialect
/// whose engine streams a recursive CTE; `None` otherwise.
pub(in crate::validate) fn outer_limit(outer: &Query, cte: &str, dialect: Dialect) -> Option<f64> {
    if !streams(dialect) {
        return None;
    }
    if outer.order_by.is_some() || outer.fetch.is_some() {
        return None;
    }
    let SetExpr::Select(select) = outer.body.as_ref() else {
        return None;
    };
    let plain = select.selection.is_none()
        && select.having.is_none()
        && select.qualify.is_none()
        && select.distinct.is_none()
        && select.top.is_none()
        && select.prewhere.is_none()
        && select.named_window.is_empty()
        && select.cluster_by.is_empty()
        && select.distribute_by.is_empty()
        && select.sort_by.is_empty()
        && select.lateral_views.is_empty()
        && select.connect_by.is_empty()
        && select.into.is_none()
        && ungrouped(&select.group_by)
        && select.projection.iter().all(column_as_it_is);
    let [from] = select.from.as_slice() else {
        return None;
    };
    let reads_cte = from.joins.is_empty()
        && matches!(&from.relation, TableFactor::Table { name, args: None, .. }
            if name.0.len() == 1
                && name.0[0].as_ident().is_some_and(|i| fold_ident(i, dialect) == cte));
    if plain && reads_cte {
        literal_limit(outer)
    } else {
        None
    }
}

/// True when `dialect`'s engine evaluates a recursive CTE only as far as its reader fetches.
pub(in crate::validate) fn streams(dialect: Dialect) -> bool {
    matches!(
        dialect,
        Dialect::Postgres | Dialect::Duckdb | Dialect::Sqlite
    )
}

/// No GROUP BY (an empty expression list, no modifiers).
fn ungrouped(group_by: &GroupByExpr) -> bool {
    matches!(group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
}

/// `*`, `t.*`, or a column as it is (aliased or not): nothing that needs every row first.
fn column_as_it_is(item: &SelectItem) -> bool {
    match item {
        SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => true,
        SelectItem::UnnamedExpr(e)
        | SelectItem::ExprWithAlias { expr: e, .. }
        | SelectItem::ExprWithAliases { expr: e, .. } => {
            matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_))
        }
    }
}
