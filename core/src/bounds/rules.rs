//! How each function's result size follows from its arguments' (the transfer rules of the size
//! model). Which rule a function follows is data, one table per dialect beside its allowlist
//! (`table.rs`); the walker reads it for every expression that holds a generated value or
//! amplifies one, and the recursion proof for the values a step grows.

use sqlparser::ast::Expr;

use super::decision::Decision;
pub(crate) use super::decision::{Rule, FIXED, UNSIZED_INPUT};
use super::fold::number;
use super::size::Size;
use super::table;
use crate::dialect::Dialect;

/// Bytes of a character at most (UTF-8).
const CHAR: f64 = 4.0;

/// The rule of the function called `name` (the last part of its name, lower case) in
/// `dialect`: `None` when the table sizes it otherwise (a generator, a collecting aggregate, a
/// split) or, in a dialect without an allowlist, does not list it (no larger than its
/// arguments). A function the policy adds to an allowlist (a user-defined one) is not in the
/// table: its size is not modelled.
pub(crate) fn rule(name: &str, dialect: Dialect) -> Option<Rule> {
    match table::decision(name, dialect) {
        Some(Decision::Rule(rule)) => Some(rule),
        Some(Decision::Generates | Decision::Collects | Decision::Splits) => None,
        None if table::complete(dialect) => Some(Rule::Unsized),
        None => None,
    }
}

/// True when `expr` is already a JSON value: a builder's, a JSON aggregate's, a cast to
/// `json` / `jsonb`. Embedded in another JSON value it is not escaped again.
fn is_json(expr: &Expr, dialect: Dialect) -> bool {
    match expr {
        Expr::Nested(inner) => is_json(inner, dialect),
        Expr::Cast { data_type, .. } => matches!(
            data_type,
            sqlparser::ast::DataType::JSON | sqlparser::ast::DataType::JSONB
        ),
        Expr::Function(f) => f.name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| {
            let name = i.value.to_ascii_lowercase();
            rule(&name, dialect) == Some(Rule::Json)
                || super::collects(&name) && name.starts_with("json")
        }),
        _ => false,
    }
}

/// Why a call's size has no bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Unbounded {
    /// A count or length that is not a literal (named in the refusal).
    NotLiteral(&'static str),
    /// A function whose size is not modelled is given this many built bytes.
    Unsized(f64),
    /// Each element of a list of the data (whose number is the data's) gains this many bytes.
    PerDataElement(f64),
}

/// The result size of a call under `rule`, from its positional arguments and their sizes.
pub(crate) fn apply(
    rule: Rule,
    args: &[(&Expr, Size)],
    dialect: Dialect,
    per_data_element: f64,
) -> Result<Size, Unbounded> {
    let size = |i: usize| args.get(i).map_or(Size::NONE, |(_, s)| *s);
    let literal = |i: usize| args.get(i).and_then(|(e, _)| number(e));
    let all = || args.iter().fold(Size::NONE, |a, (_, s)| a.plus(*s));
    // The arguments after the first (the paths, the separators).
    let rest = || args.iter().skip(1).fold(Size::NONE, |a, (_, s)| a.plus(*s));
    Ok(match rule {
        Rule::Fixed(bytes) => Size::fixed(bytes),
        Rule::Widest => args.iter().fold(Size::NONE, |a, (_, s)| a.max(*s)),
        Rule::Sum | Rule::Within => all(),
        Rule::Scale(factor, plus) => all().times(factor).plus(Size::fixed(plus)),
        Rule::Json => args.iter().fold(Size::fixed(2.0), |a, (e, s)| {
            a.plus(if is_json(e, dialect) {
                *s
            } else {
                s.times(6.0)
            })
        }),
        Rule::Cut(at) => match literal(at) {
            Some(n) => Size::fixed(n.max(0.0) * CHAR),
            None => size(0),
        },
        Rule::Repeat => match literal(1) {
            Some(count) => size(0).times(count.max(0.0)),
            None => return Err(Unbounded::NotLiteral("the repeat count")),
        },
        Rule::Pad => match literal(1) {
            Some(n) => size(0).max(Size::fixed(n.max(0.0) * CHAR)),
            None => return Err(Unbounded::NotLiteral("the length")),
        },
        Rule::Replace => {
            let by = size(2);
            if by.data > 0.0 {
                // The replacement is data: its size is unknown, the text's matches many.
                return Err(Unbounded::NotLiteral("the replacement"));
            }
            size(0).times(by.bytes.max(1.0))
        }
        Rule::Copies => {
            // Several copies come back as a JSON array: a comma each, and the brackets.
            let copies = args.len().saturating_sub(1).max(1) as f64;
            size(0)
                .times(copies)
                .plus(rest())
                .plus(Size::fixed(copies + 2.0))
        }
        Rule::Join => per_element(args, size(0), rest(), per_data_element, dialect)?,
        Rule::Map => {
            let each = size(1);
            let list = size(0).times(each.data.max(1.0));
            per_element(
                args,
                list,
                Size::fixed(each.bytes),
                per_data_element,
                dialect,
            )?
        }
        Rule::Unsized => {
            let given = all();
            if given.bytes > UNSIZED_INPUT {
                return Err(Unbounded::Unsized(given.bytes));
            }
            Size {
                bytes: 0.0,
                data: 1.0,
                gain: given.gain.max(1.0),
            }
        }
    })
}

/// A list (the first argument, of size `list`) with `extra` added to each element (a
/// separator, what a lambda builds). A generated list (`range(n)`) has its elements counted,
/// each with its own bytes (which its row was counted with); a list the query builds may have
/// one a byte. A list of the data has as many as the data: like a row a collecting aggregate
/// reads, each may gain only `per_data_element` generated bytes, and the result is the data's.
fn per_element(
    args: &[(&Expr, Size)],
    list: Size,
    extra: Size,
    per_data_element: f64,
    dialect: Dialect,
) -> Result<Size, Unbounded> {
    if let Some((n, element)) = args
        .first()
        .and_then(|(e, _)| super::list_elements(e, dialect))
    {
        let copies = Size {
            bytes: n * (element + extra.bytes),
            ..extra.times(n)
        };
        return Ok(list.plus(copies));
    }
    if list.data > 0.0 && extra.bytes > per_data_element {
        return Err(Unbounded::PerDataElement(extra.bytes));
    }
    // Built bytes may each be an element; a data value's elements are the data's.
    let built = Size {
        data: extra.data * list.bytes,
        gain: extra.gain * list.bytes,
        ..extra.times(list.bytes)
    };
    Ok(list.plus(built).plus(Size {
        bytes: 0.0,
        ..extra
    }))
}
