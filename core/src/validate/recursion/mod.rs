//! Whether a recursive CTE ends, and how much it builds: a termination proof, not a pattern.
//!
//! The CTE is `anchor UNION [ALL] step`, the step reading the CTE exactly once in its FROM. It
//! ends when one of these holds:
//! - **a counter** (`counter.rs`): a column the step moves by a literal (`n + 1`, `d - 7`,
//!   `x + INTERVAL '1 day'`) and its WHERE stops in the direction it moves (`n < 100`), from a
//!   literal start (or between two literals, whatever the start): at most K iterations;
//! - **a walk over finite data**: under `UNION` (not `ALL`), a step whose every output is a
//!   column or a literal as it is (no arithmetic, no call) can only produce rows made of values
//!   that already exist, so deduplication ends it (a hierarchy walk);
//! - **a `LIMIT` on the CTE's query**, in SQLite, which stops the recursion there (documented;
//!   PostgreSQL, MariaDB and DuckDB refuse such a LIMIT);
//! - **a `LIMIT` on the query that reads it**, in PostgreSQL, DuckDB and SQLite, which evaluate
//!   the CTE only as far as that query fetches, when it streams (`streaming.rs`) and each step
//!   yields at most one row a row it reads.
//!
//! Its rows are the anchor's times the chain: each step multiplies by what else the step reads
//! that generates (`r CROSS JOIN (VALUES (1), (2))` doubles every step: 2^K), and the values a
//! step grows (`s || 'x'` adds, `s || s` doubles) are bounded at the last step (`growth.rs`).

use sqlparser::ast::{
    Cte, Expr, LimitClause, Query, Select, SelectItem, SetExpr, SetOperator, SetQuantifier,
    TableFactor,
};

use super::query::output_columns;
use crate::bounds::number;
use crate::dialect::Dialect;
use crate::names::fold_ident;

mod counter;
mod growth;
mod streaming;

pub(super) use streaming::{outer_limit, streams};

/// What the walker counted for the CTE's two sides: the anchor's generated rows and the rows
/// the step's other sources generate per row it reads (1 when none generates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Sides {
    /// Rows of the anchor.
    pub(super) anchor: f64,
    /// Rows each step multiplies by.
    pub(super) step: f64,
}

/// The verdict on one recursive CTE.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Outcome {
    /// It ends: at most `rows` rows in all, and no value it grows passes `bytes` (0 when none
    /// grows).
    Ends {
        /// Rows of the CTE.
        rows: f64,
        /// The largest value a step grows.
        bytes: f64,
    },
    /// No proof that it ends: why, in the words of the refusal.
    Unproven(&'static str),
}

/// The CTE's parts: the rightmost operand of its top `UNION` is the recursive step, the rest the
/// anchor (one SELECT, VALUES, or several under UNION).
struct Shape<'q> {
    anchor: &'q SetExpr,
    step: &'q Select,
    /// `UNION` without `ALL`: the engine drops duplicate rows, which ends a walk over finite data.
    distinct: bool,
    /// The CTE's output names, in order.
    columns: Vec<String>,
    /// The names the step reads the CTE by (its name, and its alias there).
    names: Vec<String>,
    /// True when the CTE is the step's only FROM item (an unqualified column is then its own).
    alone: bool,
    /// The CTEs of the same WITH (an anchor may start its counter from one).
    siblings: &'q [Cte],
}

/// Proves that the recursive CTE `cte` ends, and bounds what it builds; `self_reads` is how
/// many times its definition reads it (the walker counted), `sides` the generated rows of its
/// anchor and step, `fetched` the rows the query reading it stops after ([`outer_limit`]),
/// `siblings` the CTEs of its WITH.
pub(super) fn prove(
    cte: &Cte,
    self_reads: usize,
    sides: Sides,
    fetched: Option<f64>,
    siblings: &[Cte],
    dialect: Dialect,
) -> Outcome {
    let query = &cte.query;
    // A step that multiplies its rows computes a whole iteration past the rows fetched.
    let fetched = fetched.filter(|_| sides.step <= 1.0);
    let limit = match (
        literal_limit(query).filter(|_| limit_stops_recursion(dialect)),
        fetched,
    ) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    // A LIMIT caps the rows, not what each grows: an unreadable shape stays unproven.
    let name = fold_ident(&cte.alias.name, dialect);
    let columns = column_list(&cte.alias, dialect);
    let shape = match shape(query, &name, columns.as_deref(), siblings, dialect) {
        Ok(shape) => shape,
        Err(why) => return Outcome::Unproven(why),
    };
    if self_reads != 1 || reads_in_from(&shape, dialect) != 1 {
        return Outcome::Unproven(
            "its recursive part reads it more than once, or inside a nested query",
        );
    }
    let k = match counter::iterations(&shape, dialect) {
        Ok(k) => k,
        Err(_) if shape.distinct && walks_finite_data(&shape, dialect) => {
            return finite_walk(&shape, sides)
        }
        Err(why) => match limit {
            Some(rows) => rows,
            None => return Outcome::Unproven(why),
        },
    };
    let k = limit.map_or(k, |l| k.min(l));
    let rows = sides.anchor.max(1.0) * chain(sides.step.max(1.0), k);
    let rows = limit.map_or(rows, |l| rows.min(l));
    match growth::largest(&shape, k, dialect) {
        Ok(bytes) => Outcome::Ends { rows, bytes },
        Err(why) => Outcome::Unproven(why),
    }
}

/// A walk over finite data ends by deduplication; every row is made of values that exist and
/// nothing grows. Its rows are bounded by the values each column can take, of which only the
/// generated ones count (a table's rows are the data's).
fn finite_walk(shape: &Shape<'_>, sides: Sides) -> Outcome {
    let values = sides.anchor.max(1.0) + sides.step.max(1.0) - 1.0;
    let columns = i32::try_from(shape.columns.len()).unwrap_or(i32::MAX);
    Outcome::Ends {
        rows: values.powi(columns),
        bytes: 0.0,
    }
}

/// Rows of one anchor row's chain over `k` iterations when each multiplies by `m`:
/// 1 + m + m^2 + ... + m^(k-1).
fn chain(m: f64, k: f64) -> f64 {
    if m <= 1.0 {
        k.max(1.0)
    } else {
        (m.powf(k) - 1.0) / (m - 1.0)
    }
}

/// SQLite stops a recursive CTE at the LIMIT of its own query ("the recursion stops when the
/// LIMIT is reached", sqlite.org/lang_with.html). PostgreSQL ("LIMIT in a recursive query is
/// not implemented"), MariaDB ("doesn't yet support 'global ORDER_BY/LIMIT in recursive CTE
/// spec'") and DuckDB refuse it; MySQL 8 would stop, but one dialect serves both.
fn limit_stops_recursion(dialect: Dialect) -> bool {
    dialect == Dialect::Sqlite
}

/// The rows the recursion builds before `LIMIT n [OFFSET o]` (or `LIMIT o, n`) on the CTE's
/// query stops it: `n + o`, since the skipped rows are built too; `None` unless both are
/// literals. A negative LIMIT is none in SQLite.
fn literal_limit(query: &Query) -> Option<f64> {
    let (limit, offset) = match query.limit_clause.as_ref()? {
        LimitClause::LimitOffset { limit, offset, .. } => {
            (number(limit.as_ref()?)?, offset.as_ref().map(|o| &o.value))
        }
        LimitClause::OffsetCommaLimit { limit, offset } => (number(limit)?, Some(offset)),
    };
    let offset = match offset {
        Some(o) => number(o)?.max(0.0),
        None => 0.0,
    };
    (limit >= 0.0).then_some(limit + offset)
}

/// Splits the CTE into anchor and step.
fn shape<'q>(
    query: &'q Query,
    name: &str,
    columns: Option<&[String]>,
    siblings: &'q [Cte],
    dialect: Dialect,
) -> Result<Shape<'q>, &'static str> {
    let SetExpr::SetOperation {
        op: SetOperator::Union,
        set_quantifier,
        left,
        right,
    } = query.body.as_ref()
    else {
        return Err("its query is not `anchor UNION [ALL] recursive part`");
    };
    let SetExpr::Select(step) = right.as_ref() else {
        return Err("its recursive part is not a plain SELECT");
    };
    let distinct = matches!(
        set_quantifier,
        SetQuantifier::None
            | SetQuantifier::Distinct
            | SetQuantifier::DistinctByName
            | SetQuantifier::ByName
    );
    let columns = match columns {
        Some(c) => c.to_vec(),
        None => output_names(
            first_select(left).ok_or("its anchor names no columns")?,
            dialect,
        ),
    };
    let names = reference_names(step, name, dialect);
    let alone = step.from.len() == 1 && step.from.iter().all(|t| t.joins.is_empty());
    Ok(Shape {
        anchor: left,
        step,
        distinct,
        columns,
        names,
        alone,
        siblings,
    })
}

/// The first SELECT of an anchor (its output names are the CTE's).
fn first_select(anchor: &SetExpr) -> Option<&Select> {
    match anchor {
        SetExpr::Select(s) => Some(s),
        SetExpr::SetOperation { left, .. } => first_select(left),
        SetExpr::Query(q) => first_select(&q.body),
        _ => None,
    }
}

/// The output names of the anchor's SELECT (folded; empty for an expression without alias,
/// and for every item when a wildcard makes them unknown).
fn output_names(select: &Select, dialect: Dialect) -> Vec<String> {
    output_columns(&select.projection, dialect)
        .unwrap_or_else(|| vec![String::new(); select.projection.len()])
}

/// The expression of a select-list item (`e` or `e AS a`); `None` for a wildcard.
fn item_expr(item: &SelectItem) -> Option<&Expr> {
    match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    }
}

/// The step's FROM items, joins included.
fn from_items(step: &Select) -> impl Iterator<Item = &TableFactor> {
    step.from
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
}

/// True when a FROM item is the CTE itself (`name`, with or without an alias).
fn is_self(factor: &TableFactor, name: &str, dialect: Dialect) -> bool {
    matches!(factor, TableFactor::Table { name: table, .. }
        if matches!(table.0.as_slice(), [p]
            if p.as_ident().is_some_and(|i| fold_ident(i, dialect) == name)))
}

/// The names the recursive part reads the CTE by: its name and the aliases it gives it.
fn reference_names(step: &Select, name: &str, dialect: Dialect) -> Vec<String> {
    let mut names = vec![name.to_string()];
    for factor in from_items(step) {
        if let TableFactor::Table {
            alias: Some(alias), ..
        } = factor
        {
            if is_self(factor, name, dialect) {
                names.push(fold_ident(&alias.name, dialect));
            }
        }
    }
    names
}

/// How many FROM items of the step are the CTE.
fn reads_in_from(shape: &Shape<'_>, dialect: Dialect) -> usize {
    from_items(shape.step)
        .filter(|f| is_self(f, &shape.names[0], dialect))
        .count()
}

/// A step that makes no new value: its outputs are columns or literals as they are, and what it
/// reads besides the CTE are tables (a function or a LATERAL subquery in its FROM could compute
/// from the CTE's row, a column of it a new value each step).
fn walks_finite_data(shape: &Shape<'_>, dialect: Dialect) -> bool {
    let plain = shape
        .step
        .projection
        .iter()
        .all(|item| item_expr(item).is_some_and(as_is));
    plain && from_items(shape.step).all(|f| is_self(f, &shape.names[0], dialect) || is_data(f))
}

/// A FROM item whose rows cannot depend on the CTE's row: a table (no arguments) or a subquery
/// that is not LATERAL.
pub(super) fn is_data(factor: &TableFactor) -> bool {
    match factor {
        TableFactor::Table { args: None, .. } => true,
        TableFactor::Derived { lateral, .. } => !lateral,
        _ => false,
    }
}

/// A column or a literal, nothing computed.
fn as_is(expr: &Expr) -> bool {
    match expr {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_) => true,
        Expr::Nested(inner) => as_is(inner),
        _ => false,
    }
}

/// The position of a CTE column read as `c` (when the CTE is the step's only FROM item) or as
/// `cte.c`.
fn column_index(expr: &Expr, shape: &Shape<'_>, dialect: Dialect) -> Option<usize> {
    let column = match expr {
        Expr::Identifier(i) if shape.alone => i,
        Expr::CompoundIdentifier(v) => match v.as_slice() {
            [q, c] if shape.names.contains(&fold_ident(q, dialect)) => c,
            _ => return None,
        },
        Expr::Nested(inner) => return column_index(inner, shape, dialect),
        _ => return None,
    };
    let folded = fold_ident(column, dialect);
    shape.columns.iter().position(|c| *c == folded)
}

#[cfg(test)]
mod tests;

/// The folded names of `AS t(a, b)`, when given.
fn column_list(alias: &sqlparser::ast::TableAlias, dialect: Dialect) -> Option<Vec<String>> {
    let columns: Vec<&sqlparser::ast::Ident> = alias.columns.iter().map(|c| &c.name).collect();
    (!columns.is_empty()).then(|| {
        columns
            .into_iter()
            .map(|c| fold_ident(c, dialect))
            .collect()
    })
}
