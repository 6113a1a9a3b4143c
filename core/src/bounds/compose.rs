//! The size of an expression, composed bottom-up from its parts: literals are their bytes, a
//! column is data ([`Size::DATA`]), a call follows its rule (`rules.rs`) or, for the generating
//! functions measured in `mod.rs` (`space`, `randomblob`, `format`), their measure; `||` adds
//! both sides, a CASE is its largest branch. Every part on the way is compared with the bound,
//! not only the result: `length(repeat('x', 600000) || repeat('x', 600000))` is a small number
//! that builds 1.2 MB. A nested query is data here: its own expressions are bounded where the
//! walker checks it.

use sqlparser::ast::{
    BinaryOperator, CastKind, Expr, Function, FunctionArg, FunctionArgExpr, FunctionArguments,
    Value,
};

use super::rules::{self, Unbounded, FIXED};
use super::size::Size;
use super::{cut_length, kind, measure, Amount, Kind, AMPLIFY};
use crate::dialect::Dialect;
use crate::functions::FunctionUse;

/// A part whose size passes the bound: what it is (a function's name, or `||`) and how large.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Excess {
    /// It builds about this many bytes, more than `max_generated_bytes`.
    Bytes(String, f64),
    /// It multiplies a value read from the data more than [`AMPLIFY`] times.
    Amplified(String),
    /// An amount it needs is not a literal (its name, and which amount).
    NotLiteral(String, &'static str),
    /// A function whose size is not modelled is given this many bytes the query builds.
    Unsized(String, f64),
    /// Each element of a list of the data gains these bytes, more than the second number.
    PerDataElement(String, f64, f64),
}

/// The size of `expr`, with every part checked against `max_bytes`; a column, or a value the
/// model does not read (a nested query's), is `column`.
pub(crate) fn size(
    expr: &Expr,
    column: Size,
    dialect: Dialect,
    max_bytes: f64,
) -> Result<Size, Excess> {
    Composer {
        column,
        dialect,
        max_bytes,
    }
    .size(expr)
}

/// True when a call of `name` (lower case) can build a value larger than its arguments: the
/// walker composes sizes only for expressions that hold one.
pub(crate) fn grows(name: &str, dialect: Dialect) -> bool {
    match rules::rule(name, dialect) {
        Some(rule) => rule.grows(),
        None => matches!(
            kind(name, FunctionUse::Expression, dialect),
            Some(Kind::Sized(_) | Kind::Width(..) | Kind::Format(_) | Kind::ArrayFill)
        ),
    }
}

struct Composer {
    column: Size,
    dialect: Dialect,
    max_bytes: f64,
}

impl Composer {
    fn size(&self, expr: &Expr) -> Result<Size, Excess> {
        let (size, what) = match expr {
            Expr::Value(v) => return Ok(Size::fixed(literal_bytes(&v.value))),
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => return Ok(self.column),
            Expr::Nested(inner) | Expr::Collate { expr: inner, .. } => return self.size(inner),
            Expr::UnaryOp { expr: inner, .. } => return self.size(inner),
            Expr::BinaryOp { left, op, right } => {
                let (l, r) = (self.size(left)?, self.size(right)?);
                match operator(op, self.dialect) {
                    Operator::Small => return Ok(Size::fixed(FIXED)),
                    // A number's digits: at most both operands' (a product), a few more.
                    Operator::Arithmetic => return Ok(l.plus(r).plus(Size::fixed(FIXED))),
                    Operator::Power => return Ok(Size::fixed(NUMERIC_TEXT).plus(l).plus(r)),
                    Operator::Joins => (l.plus(r), "||"),
                }
            }
            Expr::Cast {
                kind,
                expr: inner,
                data_type,
                ..
            } => {
                let inner = self.size(inner)?;
                return Ok(match cut_length(data_type) {
                    Some(n) if casts_cut(self.dialect) && !is_try(kind) => Size::fixed(n * 4.0),
                    _ => inner,
                });
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                if let Some(o) = operand {
                    self.size(o)?;
                }
                let mut widest = Size::NONE;
                for branch in conditions {
                    self.size(&branch.condition)?;
                    widest = widest.max(self.size(&branch.result)?);
                }
                if let Some(e) = else_result {
                    widest = widest.max(self.size(e)?);
                }
                return Ok(widest);
            }
            Expr::Substring {
                expr: inner,
                substring_for,
                ..
            } => {
                let inner = self.size(inner)?;
                return Ok(match substring_for.as_deref().and_then(super::number) {
                    Some(n) => Size::fixed(n.max(0.0) * 4.0),
                    None => inner,
                });
            }
            Expr::Trim { expr: inner, .. } => return self.size(inner),
            // `ARRAY[a, b]`: its elements, a comma each and the brackets.
            Expr::Array(array) => {
                let mut all = Size::fixed(2.0 + array.elem.len() as f64);
                for element in &array.elem {
                    all = all.plus(self.size(element)?);
                }
                return Ok(all);
            }
            // What the lambda builds from one element (its parameters read like columns).
            Expr::Lambda(lambda) => return self.size(&lambda.body),
            Expr::Function(f) => return self.call(f),
            // Anything else (a nested query, a field of a column, a predicate): a value like a
            // column's; its own parts were bounded where the walker reached them.
            _ => return Ok(self.column),
        };
        self.check(size, what)
    }

    /// A call: its rule over its arguments' sizes; a generating function's measure.
    fn call(&self, f: &Function) -> Result<Size, Excess> {
        let name = f
            .name
            .0
            .last()
            .and_then(|p| p.as_ident())
            .map(|i| i.value.to_ascii_lowercase())
            .unwrap_or_default();
        let FunctionArguments::List(list) = &f.args else {
            return Ok(self.column);
        };
        let mut args = Vec::with_capacity(list.args.len());
        for arg in &list.args {
            if let Some(e) = arg_expr(arg) {
                args.push((e, self.size(e)?));
            }
        }
        let sum = args.iter().fold(Size::NONE, |a, (_, s)| a.plus(*s));
        let size = match rules::rule(&name, self.dialect) {
            Some(rule) => {
                let per_data_element = super::per_data_value(self.max_bytes);
                rules::apply(rule, &args, self.dialect, per_data_element).map_err(|u| match u {
                    Unbounded::NotLiteral(what) => Excess::NotLiteral(name.clone(), what),
                    Unbounded::Unsized(bytes) => Excess::Unsized(name.clone(), bytes),
                    Unbounded::PerDataElement(bytes) => {
                        Excess::PerDataElement(name.clone(), bytes, per_data_element)
                    }
                })?
            }
            None => match kind(&name, FunctionUse::Expression, self.dialect) {
                // `space(n)`, `randomblob(n)`: their measure; `format` and `printf` also hold
                // their arguments.
                Some(
                    k @ (Kind::Sized(_) | Kind::Width(..) | Kind::Format(_) | Kind::ArrayFill),
                ) => {
                    match measure(k, &list.args, self.dialect) {
                        Ok(Amount::Bytes(bytes)) => Size::fixed(bytes).plus(sum),
                        // `array_fill(v, ARRAY[n])`: n copies of the value. The n elements
                        // count as generated rows, each with FIXED bytes of its own; what a
                        // copy holds beyond that counts here.
                        Ok(Amount::Rows(n)) => {
                            let each = args.first().map_or(Size::NONE, |(_, s)| *s);
                            beyond_element(each).times(n).plus(sum)
                        }
                        // Refused by the walker with the argument that did not fold.
                        _ => sum,
                    }
                }
                // Not known to grow: no larger than its arguments together.
                _ => sum,
            },
        };
        self.check(size, &name)
    }

    /// Refuses a part over the bound, or one that amplifies data past [`AMPLIFY`].
    fn check(&self, size: Size, what: &str) -> Result<Size, Excess> {
        if size.gain > AMPLIFY {
            return Err(Excess::Amplified(what.to_string()));
        }
        if !super::within(size.bytes, self.max_bytes) {
            return Err(Excess::Bytes(what.to_string(), size.bytes));
        }
        Ok(size)
    }
}

/// What one generated element holds beyond the [`FIXED`] bytes its row is counted with.
fn beyond_element(each: Size) -> Size {
    Size {
        bytes: (each.bytes - FIXED).max(0.0),
        ..each
    }
}

/// True when a cast to `varchar(n)` cuts its value to `n` characters: PostgreSQL, MySQL and the
/// rest do; SQLite and DuckDB ignore the length.
pub(crate) fn casts_cut(dialect: Dialect) -> bool {
    !matches!(dialect, Dialect::Sqlite | Dialect::Duckdb)
}

/// `TRY_CAST` / `SAFE_CAST`: NULL instead of an error, no cut to rely on.
fn is_try(kind: &CastKind) -> bool {
    matches!(kind, CastKind::TryCast | CastKind::SafeCast)
}

/// The widest PostgreSQL `numeric` as text: 131 072 digits before the point, 16 383 after.
const NUMERIC_TEXT: f64 = 147_500.0;

/// What an operator's result holds.
enum Operator {
    /// A truth value or a comparison.
    Small,
    /// A number computed from both operands (`+`, `*`, ...): no more digits than both.
    Arithmetic,
    /// PostgreSQL's `^` on `numeric`: `10::numeric ^ 100000` is 100 001 digits.
    Power,
    /// Both operands (`||`, and any operator the model does not know).
    Joins,
}

fn operator(op: &BinaryOperator, dialect: Dialect) -> Operator {
    match op {
        BinaryOperator::Plus
        | BinaryOperator::Minus
        | BinaryOperator::Multiply
        | BinaryOperator::Divide
        | BinaryOperator::Modulo
        | BinaryOperator::MyIntegerDivide => Operator::Arithmetic,
        BinaryOperator::Eq
        | BinaryOperator::NotEq
        | BinaryOperator::Lt
        | BinaryOperator::LtEq
        | BinaryOperator::Gt
        | BinaryOperator::GtEq
        | BinaryOperator::Spaceship
        | BinaryOperator::And
        | BinaryOperator::Or
        | BinaryOperator::Xor => Operator::Small,
        BinaryOperator::PGExp if matches!(dialect, Dialect::Postgres | Dialect::Redshift) => {
            Operator::Power
        }
        _ => Operator::Joins,
    }
}

/// The expression of an argument, positional or named.
fn arg_expr(arg: &FunctionArg) -> Option<&Expr> {
    match arg {
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
    }
}

/// The bytes of a literal as the engine holds it.
fn literal_bytes(value: &Value) -> f64 {
    match value {
        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.len() as f64,
        Value::Null => 0.0,
        // A number as written is its text (and wider than the engine holds it).
        Value::Number(n, _) => n.len().max(1) as f64,
        _ => FIXED,
    }
}
