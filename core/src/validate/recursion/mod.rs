//! The bound of a recursive CTE: a `LIMIT` on its query, or a `WHERE` in its recursive part
//! that compares one of its columns (the counter) with a literal (`WHERE n < 100`, `n BETWEEN 1
//! AND 100`, as a conjunct of the WHERE). When the anchor starts the counter at a literal and
//! the recursive part steps it by a literal (`n + 1`), the iterations are counted (and a step
//! that leads away from the bound is no bound); otherwise the bound is recognised but its count
//! unknown.

use sqlparser::ast::{
    BinaryOperator, Expr, LimitClause, Query, Select, SelectItem, SetExpr, SetOperator, TableFactor,
};

use crate::bounds::{instant, number, span_rows};
use crate::dialect::Dialect;
use crate::names::fold_ident;

/// How many iterations `query`, the definition of the recursive CTE `name` (its alias columns
/// `columns`, when given), can run: `Some(1.0)` when bounded but not counted, `None` without a
/// recognisable bound.
pub(super) fn bound(
    query: &Query,
    name: &str,
    columns: Option<&[String]>,
    dialect: Dialect,
) -> Option<f64> {
    if let Some(limit) = literal_limit(query) {
        return Some(limit);
    }
    let SetExpr::SetOperation {
        op: SetOperator::Union,
        left,
        right,
        ..
    } = query.body.as_ref()
    else {
        return None;
    };
    let (SetExpr::Select(anchor), SetExpr::Select(step)) = (left.as_ref(), right.as_ref()) else {
        return None;
    };
    let columns: Vec<String> = match columns {
        Some(c) => c.to_vec(),
        None => output_names(anchor, dialect),
    };
    let names = reference_names(step, name, dialect);
    let condition = step.selection.as_ref()?;
    conjuncts(condition)
        .into_iter()
        .filter_map(|c| comparison(c, &columns, &names, dialect))
        .find_map(|(index, limit, upward)| iterations(anchor, step, index, limit, upward))
}

/// `LIMIT n` (or MySQL's `LIMIT o, n`) on the CTE's query, when `n` is a literal.
fn literal_limit(query: &Query) -> Option<f64> {
    match query.limit_clause.as_ref()? {
        LimitClause::LimitOffset { limit, .. } => number(limit.as_ref()?),
        LimitClause::OffsetCommaLimit { limit, .. } => number(limit),
    }
}

/// The output names of the anchor (folded; empty for an expression without alias).
fn output_names(select: &Select, dialect: Dialect) -> Vec<String> {
    select
        .projection
        .iter()
        .map(|item| match item {
            SelectItem::ExprWithAlias { alias, .. } => fold_ident(alias, dialect),
            SelectItem::UnnamedExpr(Expr::Identifier(i)) => fold_ident(i, dialect),
            SelectItem::UnnamedExpr(Expr::CompoundIdentifier(v)) => {
                v.last().map(|i| fold_ident(i, dialect)).unwrap_or_default()
            }
            _ => String::new(),
        })
        .collect()
}

/// The names the recursive part reads the CTE by: its name and the aliases it gives it.
fn reference_names(step: &Select, name: &str, dialect: Dialect) -> Vec<String> {
    let mut names = vec![name.to_string()];
    let factors = step
        .from
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
    for factor in factors {
        if let TableFactor::Table {
            name: table,
            alias: Some(alias),
            ..
        } = factor
        {
            let is_cte = matches!(table.0.as_slice(), [p]
                if p.as_ident().is_some_and(|i| fold_ident(i, dialect) == name));
            if is_cte {
                names.push(fold_ident(&alias.name, dialect));
            }
        }
    }
    names
}

/// The conjuncts of a WHERE (`a AND (b AND c)`: a, b, c).
fn conjuncts(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut all = conjuncts(left);
            all.extend(conjuncts(right));
            all
        }
        Expr::Nested(inner) => conjuncts(inner),
        other => vec![other],
    }
}

/// `counter < literal` (either way round, or BETWEEN): the counter's position among the CTE's
/// columns, the literal when it is a number (else NaN), and whether the bound is above.
fn comparison(
    expr: &Expr,
    columns: &[String],
    names: &[String],
    dialect: Dialect,
) -> Option<(usize, f64, bool)> {
    let counter = |e: &Expr| column_index(e, columns, names, dialect);
    let value = |e: &Expr| literal(e);
    match expr {
        Expr::BinaryOp { left, op, right } => {
            let upward = match op {
                BinaryOperator::Lt | BinaryOperator::LtEq => true,
                BinaryOperator::Gt | BinaryOperator::GtEq => false,
                _ => return None,
            };
            if let (Some(i), Some(v)) = (counter(left), value(right)) {
                Some((i, v, upward))
            } else {
                Some((counter(right)?, value(left)?, !upward))
            }
        }
        Expr::Between {
            expr,
            negated: false,
            low,
            high,
        } => {
            let i = counter(expr)?;
            value(low)?;
            Some((i, value(high)?, true))
        }
        _ => None,
    }
}

/// A literal the bound compares with: a number, or NaN for a date or string literal.
fn literal(expr: &Expr) -> Option<f64> {
    number(expr).or_else(|| instant(expr).map(|_| f64::NAN))
}

/// The position of a CTE column read as `c` or `cte.c`.
fn column_index(
    expr: &Expr,
    columns: &[String],
    names: &[String],
    dialect: Dialect,
) -> Option<usize> {
    let column = match expr {
        Expr::Identifier(i) => i,
        Expr::CompoundIdentifier(v) => match v.as_slice() {
            [q, c] if names.contains(&fold_ident(q, dialect)) => c,
            _ => return None,
        },
        Expr::Nested(inner) => return column_index(inner, columns, names, dialect),
        _ => return None,
    };
    let folded = fold_ident(column, dialect);
    columns.iter().position(|c| *c == folded)
}

/// The iterations from the anchor's literal start to `limit` by the recursive part's literal
/// step, when both are literals; a step away from the bound (or none) is no bound.
fn iterations(
    anchor: &Select,
    step: &Select,
    index: usize,
    limit: f64,
    upward: bool,
) -> Option<f64> {
    let item = |s: &Select| match s.projection.get(index)? {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e.clone()),
        _ => None,
    };
    let Some(next) = item(step) else {
        return Some(1.0);
    };
    let Some(by) = literal_step(&next) else {
        // Not `counter ± literal`: a bound, of unknown count.
        return Some(1.0);
    };
    if (upward && by <= 0.0) || (!upward && by >= 0.0) {
        return None;
    }
    match item(anchor).as_ref().and_then(number) {
        Some(start) if !limit.is_nan() => Some(span_rows(start, limit, by)),
        _ => Some(1.0),
    }
}

/// `c + k`, `k + c` or `c - k` with a literal `k`: the signed step.
fn literal_step(expr: &Expr) -> Option<f64> {
    let Expr::BinaryOp { left, op, right } = expr else {
        return None;
    };
    let is_column = |e: &Expr| matches!(e, Expr::Identifier(_) | Expr::CompoundIdentifier(_));
    match op {
        BinaryOperator::Plus if is_column(left) => number(right),
        BinaryOperator::Plus if is_column(right) => number(left),
        BinaryOperator::Minus if is_column(left) => number(right).map(|k| -k),
        _ => None,
    }
}
