//! How each function's result size follows from its arguments' (the transfer rules of the size
//! model): one table, read by the walker for every expression that holds a generated value or
//! amplifies one, and by the recursion proof for the values a step grows. A function that is not
//! listed is taken to be no larger than its arguments together (as most are: comparisons,
//! arithmetic, casts, case changes); every function known to grow its input is listed here.

use sqlparser::ast::Expr;

use super::fold::number;
use super::size::Size;

/// Bytes of a number, a date, a boolean or another value of fixed width.
pub(crate) const FIXED: f64 = 32.0;

/// Bytes of a character at most (UTF-8).
const CHAR: f64 = 4.0;

/// How a function's result size follows from its arguments'.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rule {
    /// A value of at most this many bytes (a number, a hash, a date).
    Fixed(f64),
    /// No larger than its widest argument (`upper`, `trim`, `coalesce`, a decoder).
    Widest,
    /// Its arguments together (`concat`, `concat_ws`, `overlay`, MariaDB's `INSERT`).
    Sum,
    /// Its arguments together times a factor, plus some bytes (an encoder: `hex` doubles,
    /// `to_json` may write six bytes, `\u0001`, for one).
    Scale(f64, f64),
    /// A JSON value built from its arguments: text is escaped (six bytes, `\u0001`, for one
    /// at most), a JSON value (a builder's, an aggregate's, a cast to json) is embedded as it is.
    Json,
    /// Cut to the literal number of characters at this argument (`left(x, 10)`), else its
    /// first argument.
    Cut(usize),
    /// The first argument times the literal count in the second (`repeat`, `replicate`).
    Repeat,
    /// Padded to the literal length in the second argument, or the text if longer.
    Pad,
    /// Every match in the first argument may become the third (`replace`, `regexp_replace`).
    Replace,
}

/// The rule of the function called `name` (the last part of its name, lower case).
pub(crate) fn rule(name: &str) -> Option<Rule> {
    Some(match name {
        "length" | "char_length" | "character_length" | "octet_length" | "bit_length" | "crc32"
        | "abs" | "sign" | "round" | "trunc" | "floor" | "ceil" | "ceiling" | "mod" | "power"
        | "sqrt" | "exp" | "ln" | "log" | "log10" | "random" | "now" | "position" | "strpos"
        | "instr" | "locate" | "ascii" | "unicode" | "ord" | "date_part" | "extract"
        | "date_trunc" | "to_date" | "to_timestamp" | "julianday" | "date" | "datetime"
        | "time" | "cardinality" | "array_length" | "json_array_length" | "jsonb_array_length"
        | "count" | "sum" | "avg" | "total" | "starts_with" | "regexp_like" | "json_valid"
        | "typeof" | "pg_column_size" => Rule::Fixed(FIXED),
        "md5" | "sha1" | "sha224" | "sha256" | "sha384" | "sha512" | "sha2" | "hash" => {
            Rule::Fixed(128.0)
        }
        "lower" | "upper" | "lcase" | "ucase" | "initcap" | "trim" | "ltrim" | "rtrim"
        | "btrim" | "reverse" | "coalesce" | "ifnull" | "nvl" | "nullif" | "least" | "greatest"
        | "min" | "max" | "split_part" | "iif" | "if" | "elt" | "unhex" | "decode"
        | "from_base64" | "unbase64" | "strftime" => Rule::Widest,
        "left" | "right" => Rule::Cut(1),
        "substr" | "substring" | "mid" => Rule::Cut(2),
        "concat" | "concat_ws" | "overlay" | "insert" | "make_set" | "array_cat"
        | "array_append" | "array_prepend" | "list_concat" | "array_concat" | "list_append"
        | "list_prepend" => Rule::Sum,
        // Two characters a byte, plus a quoted form's delimiters: SQLite's `X'...'` for a blob,
        // PostgreSQL's `E'...'` when a backslash is doubled.
        "hex" | "to_hex" | "quote" | "quote_literal" | "quote_ident" | "quote_nullable" => {
            Rule::Scale(2.0, 3.0)
        }
        // `encode(x, 'escape')` writes a byte as `\ooo`; `translate` may map a one-byte
        // character to a four-byte one.
        "encode" | "translate" => Rule::Scale(CHAR, 0.0),
        // Four characters for three bytes, and MySQL's line breaks every 76.
        "to_base64" | "base64" => Rule::Scale(1.4, 4.0),
        name if builds_json(name) => Rule::Json,
        "repeat" | "replicate" => Rule::Repeat,
        "lpad" | "rpad" => Rule::Pad,
        "replace" | "regexp_replace" => Rule::Replace,
        _ => return None,
    })
}

/// Functions whose result is a JSON value built from their arguments.
fn builds_json(name: &str) -> bool {
    matches!(
        name,
        "to_json"
            | "to_jsonb"
            | "json_quote"
            | "json_object"
            | "json_array"
            | "json_build_object"
            | "json_build_array"
            | "jsonb_build_object"
            | "jsonb_build_array"
            | "row_to_json"
            | "array_to_json"
    )
}

/// True when `expr` is already a JSON value: a builder's, a JSON aggregate's, a cast to
/// `json` / `jsonb`. Embedded in another JSON value it is not escaped again.
fn is_json(expr: &Expr) -> bool {
    match expr {
        Expr::Nested(inner) => is_json(inner),
        Expr::Cast { data_type, .. } => matches!(
            data_type,
            sqlparser::ast::DataType::JSON | sqlparser::ast::DataType::JSONB
        ),
        Expr::Function(f) => f.name.0.last().and_then(|p| p.as_ident()).is_some_and(|i| {
            let name = i.value.to_ascii_lowercase();
            builds_json(&name) || super::collects(&name) && name.starts_with("json")
        }),
        _ => false,
    }
}

/// A literal count or length that does not fold: named in the refusal.
pub(crate) struct NotLiteral(pub(crate) &'static str);

/// The result size of a call under `rule`, from its positional arguments and their sizes.
pub(crate) fn apply(rule: Rule, args: &[(&Expr, Size)]) -> Result<Size, NotLiteral> {
    let size = |i: usize| args.get(i).map_or(Size::NONE, |(_, s)| *s);
    let literal = |i: usize| args.get(i).and_then(|(e, _)| number(e));
    let all = || args.iter().fold(Size::NONE, |a, (_, s)| a.plus(*s));
    Ok(match rule {
        Rule::Fixed(bytes) => Size::fixed(bytes),
        Rule::Widest => args.iter().fold(Size::NONE, |a, (_, s)| a.max(*s)),
        Rule::Sum => all(),
        Rule::Scale(factor, plus) => all().times(factor).plus(Size::fixed(plus)),
        Rule::Json => args.iter().fold(Size::fixed(2.0), |a, (e, s)| {
            a.plus(if is_json(e) { *s } else { s.times(6.0) })
        }),
        Rule::Cut(at) => match literal(at) {
            Some(n) => Size::fixed(n.max(0.0) * CHAR),
            None => size(0),
        },
        Rule::Repeat => match literal(1) {
            Some(count) => size(0).times(count.max(0.0)),
            None => return Err(NotLiteral("the repeat count")),
        },
        Rule::Pad => match literal(1) {
            Some(n) => size(0).max(Size::fixed(n.max(0.0) * CHAR)),
            None => return Err(NotLiteral("the length")),
        },
        Rule::Replace => {
            let by = size(2);
            if by.data > 0.0 {
                // The replacement is data: its size is unknown, the text's matches many.
                return Err(NotLiteral("the replacement"));
            }
            size(0).times(by.bytes.max(1.0))
        }
    })
}
