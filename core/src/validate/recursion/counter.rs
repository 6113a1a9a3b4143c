//! The counter proof: a column of the CTE that each step moves by a literal (`n + 1`, `n - 2`,
//! `d + INTERVAL '7 days'`), read in the step's WHERE against a literal on the side it moves
//! toward (`n < 100` for an increasing counter). Each row of step `i` then holds
//! `start + i * step`, so the WHERE lets no row past `(bound - start) / step` iterations, whatever
//! else the step joins. The start is the anchor's literal (every anchor row's); a counter bounded
//! on both sides (`n BETWEEN 1 AND 100`) needs none.

use sqlparser::ast::{BinaryOperator, Cte, Expr, Select, SelectItem, SetExpr, TableFactor};

use super::{column_index, item_expr, Shape};
use crate::bounds::{instant, interval, number, span_rows};
use crate::dialect::Dialect;
use crate::names::fold_ident;

/// Which way a literal bounds the counter.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Limit {
    /// The counter's position among the CTE's columns.
    index: usize,
    /// The literal (a number, or a date in days).
    value: f64,
    /// True for an upper bound (`n < 100`), false for a lower one (`n > 0`).
    upper: bool,
}

/// The iterations of the CTE's chain (rows of one anchor row's chain, the anchor's included),
/// or why no counter proves it ends.
pub(super) fn iterations(shape: &Shape<'_>, dialect: Dialect) -> Result<f64, &'static str> {
    let Some(condition) = shape.step.selection.as_ref() else {
        return Err("its recursive part has no WHERE that stops it");
    };
    let limits: Vec<Limit> = conjuncts(condition)
        .into_iter()
        .flat_map(|c| limits(c, shape, dialect))
        .collect();
    if limits.is_empty() {
        return Err("its recursive part's WHERE compares no column of it with a literal");
    }
    let mut why =
        "no column it compares is moved by a literal step (`n + 1`) in its recursive part";
    let mut best: Option<f64> = None;
    let mut indexes: Vec<usize> = limits.iter().map(|l| l.index).collect();
    indexes.dedup();
    for index in indexes {
        match counted(shape, &limits, index, dialect) {
            Ok(k) => best = Some(best.map_or(k, |b| b.min(k))),
            Err(reason) => why = reason,
        }
    }
    best.ok_or(why)
}

/// The iterations the counter at `index` allows.
fn counted(
    shape: &Shape<'_>,
    limits: &[Limit],
    index: usize,
    dialect: Dialect,
) -> Result<f64, &'static str> {
    let next = shape
        .step
        .projection
        .get(index)
        .and_then(item_expr)
        .ok_or("its recursive part's columns do not line up with the counter")?;
    let step = step_of(next, index, shape, dialect).ok_or(
        "the counter it compares is not moved by a literal step (`n + 1`) in its recursive part",
    )?;
    if step == 0.0 || step.is_nan() {
        return Err("the counter's step is zero: it never reaches its bound");
    }
    let upward = step > 0.0;
    let ahead = |l: &&Limit| l.index == index && l.upper == upward;
    let behind = |l: &&Limit| l.index == index && l.upper != upward;
    // The nearest bound ahead of the counter's moves.
    let stop = limits
        .iter()
        .filter(ahead)
        .map(|l| l.value)
        .reduce(|a, b| if upward { a.min(b) } else { a.max(b) })
        .ok_or("the step moves the counter away from the bound in its WHERE")?;
    let from = match starts(shape.anchor, index, shape.siblings, dialect, 0) {
        Some(starts) if !starts.is_empty() => {
            // The start farthest from the bound gives the longest chain.
            starts
                .into_iter()
                .reduce(|a, b| if upward { a.min(b) } else { a.max(b) })
        }
        _ => None,
    };
    let from = match from {
        Some(start) => start,
        None => limits
            .iter()
            .filter(behind)
            .map(|l| l.value)
            .reduce(|a, b| if upward { a.max(b) } else { a.min(b) })
            .ok_or(
                "its counter does not start at a literal: start it at one in the anchor, or bound \
                 it on both sides in the recursive part (`n BETWEEN 1 AND 100`)",
            )?,
    };
    // Rows whose counter passes the WHERE, plus the one past it that the last of them makes.
    Ok(span_rows(from, stop, step) + 1.0)
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

/// The bounds one conjunct puts on a CTE column: `n < 10` (either way round), `n BETWEEN a AND
/// b` (two).
fn limits(expr: &Expr, shape: &Shape<'_>, dialect: Dialect) -> Vec<Limit> {
    let counter = |e: &Expr| column_index(e, shape, dialect);
    // The counter, or the counter shifted by a literal: `n + 1 < 5` bounds `n` as `n < 4` does.
    let moved = |e: &Expr| match counter(e) {
        Some(index) => Some((index, 0.0)),
        None => {
            let (shifted, by) = shifted(e)?;
            Some((counter(shifted)?, by))
        }
    };
    match expr {
        Expr::BinaryOp { left, op, right } => {
            let Some(upper) = comparison(op) else {
                return Vec::new();
            };
            let bound = if let (Some((index, by)), Some(value)) = (moved(left), literal(right)) {
                Some(Limit {
                    index,
                    value: value - by,
                    upper,
                })
            } else if let (Some((index, by)), Some(value)) = (moved(right), literal(left)) {
                Some(Limit {
                    index,
                    value: value - by,
                    upper: !upper,
                })
            } else {
                None
            };
            bound.into_iter().collect()
        }
        Expr::Between {
            expr,
            negated: false,
            low,
            high,
        } => match (counter(expr), literal(low), literal(high)) {
            (Some(index), Some(low), Some(high)) => vec![
                Limit {
                    index,
                    value: low,
                    upper: false,
                },
                Limit {
                    index,
                    value: high,
                    upper: true,
                },
            ],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// True for `<` / `<=` (an upper bound on the left side), false for `>` / `>=`.
fn comparison(op: &BinaryOperator) -> Option<bool> {
    match op {
        BinaryOperator::Lt | BinaryOperator::LtEq => Some(true),
        BinaryOperator::Gt | BinaryOperator::GtEq => Some(false),
        _ => None,
    }
}

/// `x + k`, `k + x` or `x - k` with a literal number `k` (not 0): `x` and the signed `k`.
fn shifted(expr: &Expr) -> Option<(&Expr, f64)> {
    let Expr::BinaryOp { left, op, right } = expr else {
        return match expr {
            Expr::Nested(inner) => shifted(inner),
            _ => None,
        };
    };
    let (x, by) = match op {
        BinaryOperator::Plus => match (number(left), number(right)) {
            (None, Some(k)) => (left.as_ref(), k),
            (Some(k), None) => (right.as_ref(), k),
            _ => return None,
        },
        BinaryOperator::Minus => (left.as_ref(), -number(right)?),
        _ => return None,
    };
    by.is_finite().then_some((x, by))
}

/// A literal a counter is compared with or starts at: a number, or a date in days.
fn literal(expr: &Expr) -> Option<f64> {
    number(expr).or_else(|| instant(expr))
}

/// The signed step of `counter + k`, `k + counter` or `counter - k`, where `counter` is the CTE's
/// own column at `index` and `k` a literal number or interval (in days).
fn step_of(expr: &Expr, index: usize, shape: &Shape<'_>, dialect: Dialect) -> Option<f64> {
    let Expr::BinaryOp { left, op, right } = expr else {
        return match expr {
            Expr::Nested(inner) => step_of(inner, index, shape, dialect),
            _ => None,
        };
    };
    let is_counter = |e: &Expr| column_index(e, shape, dialect) == Some(index);
    let amount = |e: &Expr| number(e).or_else(|| interval(e));
    match op {
        BinaryOperator::Plus if is_counter(left) => amount(right),
        BinaryOperator::Plus if is_counter(right) => amount(left),
        BinaryOperator::Minus if is_counter(left) => amount(right).map(|k| -k),
        _ => None,
    }
}

/// The counter's start in every row of the anchor, when each is a literal: written there, or
/// read (`SELECT * FROM y`) from another CTE of the WITH whose rows are literals.
fn starts(
    anchor: &SetExpr,
    index: usize,
    siblings: &[Cte],
    dialect: Dialect,
    depth: usize,
) -> Option<Vec<f64>> {
    match anchor {
        SetExpr::Select(select) => match select
            .projection
            .get(index)
            .and_then(item_expr)
            .and_then(literal)
        {
            Some(start) => Some(vec![start]),
            None => sibling_starts(select, index, siblings, dialect, depth),
        },
        SetExpr::Values(values) => values
            .rows
            .iter()
            .map(|row| row.content.get(index).and_then(literal))
            .collect(),
        SetExpr::SetOperation { left, right, .. } => {
            let mut all = starts(left, index, siblings, dialect, depth)?;
            all.extend(starts(right, index, siblings, dialect, depth)?);
            Some(all)
        }
        SetExpr::Query(q) => starts(&q.body, index, siblings, dialect, depth),
        _ => None,
    }
}

/// The starts `select` reads from one other CTE of the WITH: its only FROM item, read whole
/// (`SELECT *`) or by a column of its column list. A WHERE there only drops starts.
fn sibling_starts(
    select: &Select,
    index: usize,
    siblings: &[Cte],
    dialect: Dialect,
    depth: usize,
) -> Option<Vec<f64>> {
    // CTEs reading one another go round at most this deep.
    if depth >= 4 {
        return None;
    }
    let [from] = select.from.as_slice() else {
        return None;
    };
    let TableFactor::Table {
        name, args: None, ..
    } = &from.relation
    else {
        return None;
    };
    let [part] = name.0.as_slice() else {
        return None;
    };
    let read = fold_ident(part.as_ident()?, dialect);
    let cte = siblings
        .iter()
        .find(|c| fold_ident(&c.alias.name, dialect) == read)?;
    let position = match select.projection.as_slice() {
        [SelectItem::Wildcard(_)] => index,
        items => {
            let Expr::Identifier(column) = item_expr(items.get(index)?)? else {
                return None;
            };
            let column = fold_ident(column, dialect);
            cte.alias
                .columns
                .iter()
                .position(|c| fold_ident(&c.name, dialect) == column)?
        }
    };
    if !from.joins.is_empty() {
        return None;
    }
    starts(&cte.query.body, position, siblings, dialect, depth + 1)
}
