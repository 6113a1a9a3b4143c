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

use super::rules::{self, Rule, FIXED};
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
    match rules::rule(name) {
        Some(Rule::Scale(..) | Rule::Json | Rule::Repeat | Rule::Pad | Rule::Replace) => true,
        Some(_) => false,
        None => matches!(
            kind(name, FunctionUse::Expression, dialect),
            Some(Kind::Sized(_) | Kind::Format(_))
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
                if !joins_values(op) {
                    return Ok(Size::fixed(FIXED));
                }
                (l.plus(r), "||")
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
        let size = match rules::rule(&name) {
            Some(rule) => {
                rules::apply(rule, &args).map_err(|n| Excess::NotLiteral(name.clone(), n.0))?
            }
            None => match kind(&name, FunctionUse::Expression, self.dialect) {
                // `space(n)`, `randomblob(n)`: their measure; `format` and `printf` also hold
                // their arguments.
                Some(k @ (Kind::Sized(_) | Kind::Format(_))) => {
                    match measure(k, &list.args, self.dialect) {
                        Ok(Amount::Bytes(bytes)) => Size::fixed(bytes).plus(sum),
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

/// True when a cast to `varchar(n)` cuts its value to `n` characters: PostgreSQL, MySQL and the
/// rest do; SQLite and DuckDB ignore the length.
pub(crate) fn casts_cut(dialect: Dialect) -> bool {
    !matches!(dialect, Dialect::Sqlite | Dialect::Duckdb)
}

/// `TRY_CAST` / `SAFE_CAST`: NULL instead of an error, no cut to rely on.
fn is_try(kind: &CastKind) -> bool {
    matches!(kind, CastKind::TryCast | CastKind::SafeCast)
}

/// True for an operator whose result holds both operands (`||`, and any operator the model
/// does not know); arithmetic, comparisons and logic give a small value.
fn joins_values(op: &BinaryOperator) -> bool {
    !matches!(
        op,
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
            | BinaryOperator::Spaceship
            | BinaryOperator::And
            | BinaryOperator::Or
            | BinaryOperator::Xor
    )
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
        _ => FIXED,
    }
}
