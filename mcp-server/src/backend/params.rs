//! Parameters of a published query: typed values bound by the driver, never written into the SQL.
//!
//! A published query names its parameters `:name` in its SQL; core checks that text (a
//! placeholder is a value to the guard) and the approved SQL keeps the placeholders. Each engine
//! then binds the values over its protocol: SQLite and MySQL / MariaDB take `:name` as is (their
//! drivers bind named parameters), PostgreSQL and DuckDB take `$n`, which [`numbered`] writes in
//! place of each `:name` of the approved SQL. The values themselves only ever travel as bound
//! parameters.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The type of a parameter, as the operator declares it and the tool's input schema says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParamType {
    /// Text.
    String,
    /// A 64-bit signed integer.
    Integer,
    /// A double-precision number.
    Number,
    /// `true` or `false`.
    Boolean,
}

impl ParamType {
    /// Its JSON Schema type name.
    pub fn json_type(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Number => "number",
            ParamType::Boolean => "boolean",
        }
    }
}

/// One bound value.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// Text.
    Text(String),
    /// An integer.
    Int(i64),
    /// A number.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

/// The values of one call, by parameter name (without the colon).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(pub Vec<(String, ParamValue)>);

/// No parameter: the SQL runs as approved (`run_query`).
pub static NO_PARAMS: Params = Params(Vec::new());

impl Params {
    /// Whether there is no value to bind.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The names bound.
    pub fn names(&self) -> BTreeSet<&str> {
        self.0.iter().map(|(n, _)| n.as_str()).collect()
    }
}

/// One `:name` placeholder found in SQL: its name and byte range (colon included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    /// The name, without the colon.
    pub name: String,
    /// Byte offset of the colon.
    pub start: usize,
    /// Byte offset past the name.
    pub end: usize,
}

/// The `:name` placeholders of `sql` (regenerated SQL: literals, quoted identifiers, comments,
/// dollar-quoted strings and `::` casts are skipped). A text the scanner misreads can only fail:
/// the caller compares the names found with the names declared.
pub fn placeholders(sql: &str) -> Vec<Placeholder> {
    scan(sql).0
}

/// The positional placeholders of `sql` (`?`, `?1`, `$1`), outside literals: a published query
/// names its parameters, and a positional one would be bound to another's value.
pub fn positional(sql: &str) -> Vec<String> {
    scan(sql).1
}

/// The named and the positional placeholders of `sql`.
fn scan(sql: &str) -> (Vec<Placeholder>, Vec<String>) {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'?' | b'$' if b[i] == b'?' || b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let end = i + 1 + b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
                positional.push(sql[i..end].to_string());
                i = end;
            }
            b'\'' => {
                let escapes = i > 0 && matches!(b[i - 1], b'E' | b'e');
                i = skip_quoted(b, i, b'\'', escapes);
            }
            b'"' | b'`' => i = skip_quoted(b, i, b[i], false),
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p + 1)
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = sql[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2)
            }
            b'$' => i = skip_dollar_quoted(sql, i),
            b':' if b.get(i + 1) == Some(&b':') => i += 2,
            b':' if i == 0 || !is_ident(b[i - 1]) => {
                let end = i + 1 + b[i + 1..].iter().take_while(|&&c| is_ident(c)).count();
                let first = b.get(i + 1).copied().unwrap_or(b'0');
                if end > i + 1 && !first.is_ascii_digit() {
                    out.push(Placeholder {
                        name: sql[i + 1..end].to_string(),
                        start: i,
                        end,
                    });
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    (out, positional)
}

/// The distinct placeholder names of `sql`.
pub fn placeholder_names(sql: &str) -> BTreeSet<String> {
    placeholders(sql).into_iter().map(|p| p.name).collect()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Past the literal or quoted identifier opening at `i` (a doubled quote stays inside; with
/// `escapes`, so does a backslash-escaped character).
fn skip_quoted(b: &[u8], i: usize, quote: u8, escapes: bool) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        if escapes && b[j] == b'\\' {
            j += 2;
        } else if b[j] == quote {
            if b.get(j + 1) == Some(&quote) {
                j += 2;
            } else {
                return j + 1;
            }
        } else {
            j += 1;
        }
    }
    b.len()
}

/// Past a PostgreSQL dollar-quoted string opening at `i` (`$$...$$`, `$tag$...$tag$`); past the
/// `$` alone when none opens there (`$1`).
fn skip_dollar_quoted(sql: &str, i: usize) -> usize {
    let b = sql.as_bytes();
    let tag_len = b[i + 1..]
        .iter()
        .take_while(|&&c| c.is_ascii_alphabetic() || c == b'_')
        .count();
    if b.get(i + 1 + tag_len) != Some(&b'$') {
        return i + 1;
    }
    let tag = &sql[i..i + tag_len + 2];
    let body = i + tag.len();
    sql[body..]
        .find(tag)
        .map_or(b.len(), |p| body + p + tag.len())
}

/// `sql` with each `:name` written `$n`, `n` the position of `name` in `params` (1-based), for
/// the engines that bind by position. A name `params` does not hold is an error.
pub fn numbered(sql: &str, params: &Params) -> Result<String, String> {
    let mut out = String::with_capacity(sql.len());
    let mut last = 0;
    for p in placeholders(sql) {
        let Some(n) = params.0.iter().position(|(name, _)| *name == p.name) else {
            return Err(format!("no value for the parameter :{}", p.name));
        };
        out.push_str(&sql[last..p.start]);
        out.push_str(&format!("${}", n + 1));
        last = p.end;
    }
    out.push_str(&sql[last..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(sql: &str) -> Vec<String> {
        placeholders(sql).into_iter().map(|p| p.name).collect()
    }

    #[test]
    fn finds_placeholders_outside_literals_identifiers_and_casts() {
        assert_eq!(
            names("SELECT a FROM t WHERE a = :x AND b = :y_2"),
            ["x", "y_2"]
        );
        assert_eq!(
            names(
                "SELECT ':no', \"a:no\", `b:no`, E'\\':no', $$ :no $$, $t$ :no $t$, a::INT, :yes"
            ),
            ["yes"]
        );
        assert_eq!(names("SELECT 'it''s :no' || :v -- :no\n /* :no */"), ["v"]);
        assert_eq!(names("SELECT a:b, :1, $1"), Vec::<String>::new());
        assert_eq!(
            positional("SELECT '?', $1, ?, ?2, $$ ? $$, :a"),
            ["$1", "?", "?2"]
        );
    }

    #[test]
    fn numbers_by_the_order_of_the_values() {
        let p = Params(vec![
            ("b".into(), ParamValue::Int(1)),
            ("a".into(), ParamValue::Text("x".into())),
        ]);
        assert_eq!(
            numbered("SELECT 1 WHERE x = :a OR y = :b OR z = :a", &p).ok(),
            Some("SELECT 1 WHERE x = $2 OR y = $1 OR z = $2".to_string())
        );
        assert!(numbered("SELECT :c", &p).is_err());
    }
}
