//! How large the values a recursive CTE builds grow. Each output of the step is read as
//! `fixed + copies x (a value of the CTE's previous row)`: `s || 'ab'` adds 2 bytes a step
//! (1 copy), `s || s` doubles (2 copies), `n + 1` is a number (no copy), `upper(s)` keeps the
//! size. Over K steps the largest value is then at most `start + K x fixed` with one copy, and
//! `copies^K x start + ...` with more: a value doubled from data of unknown size (a column of
//! the anchor) is refused past a small factor, one doubled from a literal is bounded by
//! `max_generated_bytes` like any generated value.

use std::ops::ControlFlow;

use sqlparser::ast::{
    visit_expressions, BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments,
    SetExpr, TableFactor, Value,
};

use super::{from_items, is_data, item_expr, Shape};
use crate::bounds::rules::{self, FIXED};
use crate::bounds::size::Size;
use crate::bounds::AMPLIFY;
use crate::dialect::Dialect;
use crate::names::fold_ident;

/// What the sizes of a step's expression read: which names are the CTE's previous row.
struct Reader<'s> {
    /// Qualifiers of FROM items whose values are data (tables, subqueries that are not
    /// LATERAL): their columns are returned as they are, not grown.
    data: Vec<String>,
    shape: &'s Shape<'s>,
    dialect: Dialect,
    /// Reading the anchor: every column is data.
    anchor: bool,
}

/// The largest value the CTE's step grows over `k` iterations, in bytes (0 when none grows),
/// or why it cannot be bounded.
pub(super) fn largest(shape: &Shape<'_>, k: f64, dialect: Dialect) -> Result<f64, &'static str> {
    let reader = Reader {
        data: data_qualifiers(shape, dialect),
        shape,
        dialect,
        anchor: false,
    };
    // What the steps add to a value that copies the previous row (`A`), the most copies one
    // makes (`R`), and the widest value that copies nothing (it does not grow).
    let (mut added, mut copies, mut flat) = (0.0_f64, 0.0_f64, 0.0_f64);
    // `*` copies each column as it is: only expressions can grow.
    for expr in shape.step.projection.iter().filter_map(item_expr) {
        let size = reader.size(expr)?;
        if size.data > 0.0 {
            added = added.max(size.bytes);
            copies = copies.max(size.data);
        } else {
            flat = flat.max(size.bytes);
        }
    }
    if copies <= 1.0 && added == 0.0 {
        // Values copied as they are, or made anew each step: nothing grows.
        return Ok(0.0);
    }
    let anchor_reader = Reader {
        data: Vec::new(),
        shape,
        dialect,
        anchor: true,
    };
    let (start, from_data) = anchor_start(shape.anchor, &anchor_reader);
    let start = start.max(flat);
    if copies <= 1.0 {
        // Each step appends: data returned as itself is not generated, what is appended is.
        return Ok(start + k * added);
    }
    let factor = copies.powf(k);
    if from_data && factor > AMPLIFY {
        return Err(
            "a value its recursive part multiplies each step (`s || s`) starts from a column, \
             whose size is not known",
        );
    }
    Ok(factor * start.max(1.0) + added * (factor - 1.0) / (copies - 1.0))
}

impl Reader<'_> {
    /// The size of one expression of the step.
    fn size(&self, expr: &Expr) -> Result<Size, &'static str> {
        Ok(match expr {
            Expr::Value(v) => Size::fixed(literal_bytes(&v.value)),
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => self.column(expr),
            Expr::Nested(inner) | Expr::UnaryOp { expr: inner, .. } => self.size(inner)?,
            Expr::Cast { expr, .. } => self.size(expr)?,
            Expr::BinaryOp { left, op, right } => match op {
                BinaryOperator::Plus
                | BinaryOperator::Minus
                | BinaryOperator::Multiply
                | BinaryOperator::Divide
                | BinaryOperator::Modulo
                | BinaryOperator::MyIntegerDivide
                | BinaryOperator::Eq
                | BinaryOperator::NotEq
                | BinaryOperator::Lt
                | BinaryOperator::LtEq
                | BinaryOperator::Gt
                | BinaryOperator::GtEq
                | BinaryOperator::And
                | BinaryOperator::Or => Size::fixed(FIXED),
                // `||` and every other operator: as large as both sides together.
                _ => self.size(left)?.plus(self.size(right)?),
            },
            Expr::Case {
                conditions,
                else_result,
                ..
            } => {
                let mut size = Size::NONE;
                for branch in conditions {
                    size = size.max(self.size(&branch.result)?);
                }
                if let Some(e) = else_result {
                    size = size.max(self.size(e)?);
                }
                size
            }
            Expr::Function(f) => self.call(f)?,
            other if !reads_columns(other) => Size::fixed(other.to_string().len() as f64),
            _ => return Err("a value of its recursive part is computed in a way whose size the guard cannot bound"),
        })
    }

    /// A column: a copy of the CTE's previous value, unless it is a data source's.
    fn column(&self, expr: &Expr) -> Size {
        let qualifier = match expr {
            Expr::CompoundIdentifier(parts) if parts.len() >= 2 => {
                Some(fold_ident(&parts[parts.len() - 2], self.dialect))
            }
            _ => None,
        };
        match qualifier {
            _ if self.anchor => Size::NONE,
            Some(q) if self.data.contains(&q) && !self.shape.names.contains(&q) => Size::NONE,
            _ => Size::DATA,
        }
    }

    /// A call: fixed-width results, results no larger than an argument, growing ones.
    fn call(&self, f: &sqlparser::ast::Function) -> Result<Size, &'static str> {
        let name = f
            .name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.to_ascii_lowercase())
            .unwrap_or_default();
        let args: Vec<&Expr> = match &f.args {
            FunctionArguments::List(list) => list
                .args
                .iter()
                .filter_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                    | FunctionArg::Named {
                        arg: FunctionArgExpr::Expr(e),
                        ..
                    }
                    | FunctionArg::ExprNamed {
                        arg: FunctionArgExpr::Expr(e),
                        ..
                    } => Some(e),
                    _ => None,
                })
                .collect(),
            FunctionArguments::None => Vec::new(),
            FunctionArguments::Subquery(_) => {
                return Err("a value of its recursive part is computed by a nested query")
            }
        };
        let sizes = args
            .iter()
            .map(|a| self.size(a))
            .collect::<Result<Vec<_>, _>>()?;
        let sum = sizes.iter().fold(Size::NONE, |a, b| a.plus(*b));
        let Some(rule) = rules::rule(&name, self.dialect) else {
            // Concatenation and anything else: as large as its arguments together.
            return Ok(sum);
        };
        let sized: Vec<(&Expr, Size)> = args.iter().copied().zip(sizes).collect();
        rules::apply(rule, &sized, self.dialect, 0.0).map_err(|_| {
            "a value of its recursive part is repeated, padded or replaced by an amount that is \
             not a literal, or replaced by a value of the data"
        })
    }
}

/// The bytes of a literal as the engine prints it.
fn literal_bytes(value: &Value) -> f64 {
    match value {
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.len() as f64,
        other => other.to_string().len() as f64,
    }
}

/// True when an expression reads a column anywhere inside it.
fn reads_columns(expr: &Expr) -> bool {
    visit_expressions(expr, |e| match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => ControlFlow::Break(()),
        _ => ControlFlow::Continue(()),
    })
    .is_break()
}

/// The qualifiers of the step's FROM items whose rows cannot depend on the CTE's row.
fn data_qualifiers(shape: &Shape<'_>, dialect: Dialect) -> Vec<String> {
    from_items(shape.step)
        .filter(|f| is_data(f))
        .filter_map(|f| match f {
            TableFactor::Table { alias: Some(a), .. }
            | TableFactor::Derived { alias: Some(a), .. } => Some(fold_ident(&a.name, dialect)),
            TableFactor::Table {
                name, alias: None, ..
            } => name
                .0
                .last()
                .and_then(|p| p.as_ident())
                .map(|i| fold_ident(i, dialect)),
            _ => None,
        })
        .collect()
}

/// The anchor's largest value in bytes as far as literals make it, and whether any of its values
/// reads data (a column, whose size is not known).
fn anchor_start(anchor: &SetExpr, reader: &Reader<'_>) -> (f64, bool) {
    let exprs: Vec<&Expr> = match anchor {
        // `*`: columns of data.
        SetExpr::Select(s) => match s.projection.iter().map(item_expr).collect() {
            Some(exprs) => exprs,
            None => return (0.0, true),
        },
        SetExpr::Values(v) => v.rows.iter().flat_map(|r| r.content.iter()).collect(),
        SetExpr::SetOperation { left, right, .. } => {
            let (a, da) = anchor_start(left, reader);
            let (b, db) = anchor_start(right, reader);
            return (a.max(b), da || db);
        }
        SetExpr::Query(q) => return anchor_start(&q.body, reader),
        _ => return (0.0, true),
    };
    let mut start = 0.0_f64;
    let mut from_data = false;
    for e in exprs {
        from_data |= reads_columns(e);
        match reader.size(e) {
            Ok(size) => start = start.max(size.bytes),
            Err(_) => from_data = true,
        }
    }
    (start, from_data)
}
