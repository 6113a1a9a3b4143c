//! Formatting functions whose output grows with a width or precision written in the format
//! string (`printf('%1000000000d', 1)`, PostgreSQL's `format('%*s', 1000000000, 'x')`, DuckDB's
//! `format('{:>1000000000}', 1)`): the bytes a literal format string can produce, its widths
//! and precisions summed. A width taken from an argument must fold from literals; a format
//! string that is not a literal cannot be bounded.

use sqlparser::ast::{Expr, Value};

use super::fold::number;
use super::Unfolded;

/// How a dialect's formatting function reads its format string.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// C's printf (SQLite's `printf` / `format`, DuckDB's `printf`, Spark's `format_string`,
    /// BigQuery's `FORMAT`): `%[flags][width][.precision]type`, `*` for an argument.
    Printf,
    /// PostgreSQL's `format`: `%[n$][flags][width]type`, width `*` or `*n$` for an argument.
    Postgres,
    /// The fmt library's (DuckDB's and ClickHouse's `format`): `{[arg][:[fill]align...width
    /// [.precision]type]}`; a width from an argument (`{:{}}`) is not read.
    Fmt,
}

const FORMAT: Unfolded = Unfolded("the format string");
const WIDTH: Unfolded = Unfolded("a width or precision given by an argument");

/// The bytes a call with `args` (the format string first) can produce: the format's own length
/// plus every width and precision (4 bytes a character for `%c`, which SQLite repeats by its
/// precision). Arguments' own values are not counted: their sizes are bounded where they are
/// built.
pub(crate) fn bytes(style: Style, args: &[&Expr]) -> Result<f64, Unfolded> {
    let Some(Expr::Value(v)) = args.first() else {
        return Err(FORMAT);
    };
    let (Value::SingleQuotedString(format) | Value::DoubleQuotedString(format)) = &v.value else {
        return Err(FORMAT);
    };
    let argument = |i: usize| args.get(i).and_then(|e| number(e)).ok_or(WIDTH);
    let widths = match style {
        Style::Printf => printf_widths(format, argument)?,
        Style::Postgres => postgres_widths(format, argument)?,
        Style::Fmt => fmt_widths(format)?,
    };
    Ok(format.len() as f64 + widths)
}

/// The digits at `chars[*at..]`, as a number (0 when there are none); moves `at` past them.
fn digits(chars: &[char], at: &mut usize) -> f64 {
    let mut n = 0.0;
    while let Some(d) = chars.get(*at).and_then(|c| c.to_digit(10)) {
        n = n * 10.0 + f64::from(d);
        *at += 1;
    }
    n
}

/// C printf: each `%` directive's width and precision; `*` takes the next argument.
fn printf_widths(
    format: &str,
    argument: impl Fn(usize) -> Result<f64, Unfolded>,
) -> Result<f64, Unfolded> {
    let chars: Vec<char> = format.chars().collect();
    let (mut at, mut next_arg, mut total) = (0, 1, 0.0);
    while at < chars.len() {
        if chars[at] != '%' {
            at += 1;
            continue;
        }
        at += 1;
        while matches!(chars.get(at), Some('-' | '+' | ' ' | '#' | '0' | '!' | ',')) {
            at += 1;
        }
        let mut take = |at: &mut usize| -> Result<f64, Unfolded> {
            if chars.get(*at) == Some(&'*') {
                *at += 1;
                next_arg += 1;
                argument(next_arg - 1).map(f64::abs)
            } else {
                Ok(digits(&chars, at))
            }
        };
        let width = take(&mut at)?;
        let precision = if chars.get(at) == Some(&'.') {
            at += 1;
            take(&mut at)?
        } else {
            0.0
        };
        while matches!(chars.get(at), Some('l' | 'h')) {
            at += 1;
        }
        let per_char = if chars.get(at) == Some(&'c') {
            4.0
        } else {
            1.0
        };
        if !matches!(chars.get(at), Some('%') | None) {
            next_arg += 1;
        }
        at += 1;
        total += width + precision * per_char;
    }
    Ok(total)
}

/// PostgreSQL's format: `%[n$][-][width]type`, where width is digits, `*` (the next argument)
/// or `*n$` (argument n).
fn postgres_widths(
    format: &str,
    argument: impl Fn(usize) -> Result<f64, Unfolded>,
) -> Result<f64, Unfolded> {
    let chars: Vec<char> = format.chars().collect();
    let (mut at, mut next_arg, mut total) = (0, 1, 0.0);
    while at < chars.len() {
        if chars[at] != '%' {
            at += 1;
            continue;
        }
        at += 1;
        if chars.get(at) == Some(&'%') {
            at += 1;
            continue;
        }
        // An explicit position `n$` sets where the value (and the next `*`) is read.
        let start = at;
        let position = digits(&chars, &mut at);
        if chars.get(at) == Some(&'$') && position > 0.0 {
            at += 1;
            next_arg = position as usize;
        } else {
            at = start;
        }
        while chars.get(at) == Some(&'-') {
            at += 1;
        }
        let width = if chars.get(at) == Some(&'*') {
            at += 1;
            let start = at;
            let n = digits(&chars, &mut at);
            let index = if chars.get(at) == Some(&'$') && n > 0.0 {
                at += 1;
                n as usize
            } else {
                at = start;
                next_arg += 1;
                next_arg - 1
            };
            argument(index)?.abs()
        } else {
            digits(&chars, &mut at)
        };
        next_arg += 1;
        at += 1;
        total += width;
    }
    Ok(total)
}

/// fmt: inside each `{...}`, the numbers after `:` (width and precision); a nested `{` (a width
/// from an argument) cannot be read.
fn fmt_widths(format: &str) -> Result<f64, Unfolded> {
    let chars: Vec<char> = format.chars().collect();
    let (mut at, mut total) = (0, 0.0);
    while at < chars.len() {
        if chars[at] != '{' {
            at += 1;
            continue;
        }
        at += 1;
        if chars.get(at) == Some(&'{') {
            at += 1;
            continue;
        }
        while at < chars.len() && chars[at] != ':' && chars[at] != '}' {
            at += 1;
        }
        while at < chars.len() && chars[at] != '}' {
            match chars[at] {
                '{' => return Err(WIDTH),
                c if c.is_ascii_digit() => total += digits(&chars, &mut at),
                _ => at += 1,
            }
        }
        at += 1;
    }
    Ok(total)
}
