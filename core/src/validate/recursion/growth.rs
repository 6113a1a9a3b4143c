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
use crate::bounds::{number, AMPLIFY};
use crate::dialect::Dialect;
use crate::names::fold_ident;

/// The bytes of a number or another value of fixed width.
const FIXED: f64 = 32.0;

/// One output of a step: literal bytes plus copies of the CTE's previous values.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Size {
    fixed: f64,
    copies: f64,
}

impl Size {
    const NONE: Size = Size {
        fixed: 0.0,
        copies: 0.0,
    };

    fn fixed(bytes: f64) -> Size {
        Size {
            fixed: bytes,
            copies: 0.0,
        }
    }

    fn plus(self, other: Size) -> Size {
        Size {
            fixed: self.fixed + other.fixed,
            copies: self.copies + other.copies,
        }
    }

    fn max(self, other: Size) -> Size {
        Size {
            fixed: self.fixed.max(other.fixed),
            copies: self.copies.max(other.copies),
        }
    }

    fn times(self, k: f64) -> Size {
        Size {
            fixed: self.fixed * k,
            copies: self.copies * k,
        }
    }
}

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
        if size.copies > 0.0 {
            added = added.max(size.fixed);
            copies = copies.max(size.copies);
        } else {
            flat = flat.max(size.fixed);
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
            _ => Size {
                fixed: 0.0,
                copies: 1.0,
            },
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
        let widest = sizes.iter().fold(Size::NONE, |a, b| a.max(*b));
        Ok(match name.as_str() {
            // A number, a hash, a date, a boolean: a fixed width.
            "length" | "char_length" | "character_length" | "octet_length" | "bit_length"
            | "md5" | "sha1" | "sha224" | "sha256" | "sha384" | "sha512" | "crc32" | "abs"
            | "sign" | "round" | "trunc" | "floor" | "ceil" | "ceiling" | "mod" | "power"
            | "sqrt" | "exp" | "ln" | "log" | "log10" | "random" | "now" | "position"
            | "strpos" | "instr" | "locate" | "ascii" | "unicode" | "date_part" | "extract"
            | "date_trunc" | "to_date" | "to_timestamp" | "julianday" | "strftime" | "date"
            | "datetime" | "time" | "cardinality" | "array_length" | "json_array_length" => {
                Size::fixed(FIXED)
            }
            // No larger than their widest argument.
            "lower" | "upper" | "lcase" | "ucase" | "initcap" | "trim" | "ltrim" | "rtrim"
            | "btrim" | "substr" | "substring" | "left" | "right" | "reverse" | "coalesce"
            | "ifnull" | "nvl" | "nullif" | "least" | "greatest" | "min" | "max" | "translate"
            | "split_part" | "iif" | "if" => widest,
            // Encoders: up to twice their argument (hex), or six times (JSON's \u escapes).
            "hex" | "to_hex" | "encode" | "quote" | "quote_literal" | "quote_ident"
            | "quote_nullable" | "to_base64" | "base64" => sum.times(2.0),
            "to_json" | "to_jsonb" | "json_quote" | "json_object" | "json_array"
            | "json_build_object" | "json_build_array" | "jsonb_build_object"
            | "jsonb_build_array" | "row_to_json" => sum.times(6.0),
            // A literal count of copies.
            "repeat" | "replicate" => match args.get(1).and_then(|c| number(c)) {
                Some(count) => sizes.first().copied().unwrap_or(Size::NONE).times(count.max(0.0)),
                None => return Err("a value of its recursive part is repeated a number of times that is not a literal"),
            },
            // Padded to a literal length: that many characters at most, or the text itself.
            "lpad" | "rpad" => match args.get(1).and_then(|n| number(n)) {
                Some(n) => sizes
                    .first()
                    .copied()
                    .unwrap_or(Size::NONE)
                    .max(Size::fixed(n.max(0.0) * 4.0)),
                None => return Err("a value of its recursive part is padded to a length that is not a literal"),
            },
            // Every match may become the replacement.
            "replace" | "regexp_replace" => {
                let text = sizes.first().copied().unwrap_or(Size::NONE);
                let by = sizes.get(2).copied().unwrap_or(Size::NONE);
                if by.copies > 0.0 {
                    return Err("a value of its recursive part replaces text with itself");
                }
                text.times(by.fixed.max(1.0))
            }
            // Concatenation and anything else: as large as its arguments together.
            _ => sum,
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
            Ok(size) => start = start.max(size.fixed),
            Err(_) => from_data = true,
        }
    }
    (start, from_data)
}
