//! The values a check binds to the row filters' `:name` variables.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlparser::ast::{Expr, UnaryOperator, Value};

/// One variable's value. It becomes a typed literal in the regenerated SQL, never spliced text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, expecting = "must be null, a boolean, a number or a string")]
pub enum VarValue {
    /// `NULL` (a comparison with it is never true: no row passes).
    Null,
    /// `TRUE` / `FALSE`.
    Bool(bool),
    /// An integer literal.
    Int(i64),
    /// A numeric literal (finite values only).
    Float(f64),
    /// A string literal.
    Text(String),
}

impl VarValue {
    /// The literal, as the parser would build it from its printed form, and an atom wherever it
    /// is put (a negative number is a minus applied to a number, in parentheses; a string keeps
    /// its quotes doubled, as the guard's parser does not unescape). `None` for a float that is not finite, and for a string holding a
    /// backslash or NUL (engines read a backslash in a string differently, by dialect and
    /// setting).
    pub(crate) fn literal(&self) -> Option<Expr> {
        let number = |text: String| Expr::Value(Value::Number(text, false).into());
        // A negative number in parentheses: an atom wherever the `:name` it replaces stood
        // (`-5::int` would read as `-(5::int)`).
        let signed = |negative: bool, magnitude: String| {
            if negative {
                Expr::Nested(Box::new(Expr::UnaryOp {
                    op: UnaryOperator::Minus,
                    expr: Box::new(number(magnitude)),
                }))
            } else {
                number(magnitude)
            }
        };
        Some(match self {
            VarValue::Null => Expr::Value(Value::Null.into()),
            VarValue::Bool(b) => Expr::Value(Value::Boolean(*b).into()),
            VarValue::Int(i) => signed(*i < 0, i.unsigned_abs().to_string()),
            VarValue::Float(f) if f.is_finite() => {
                // `{:?}` always prints a decimal point or exponent, so the engine reads a
                // numeric, not an integer, and never a lossy rounding.
                signed(f.is_sign_negative(), format!("{:?}", f.abs()))
            }
            VarValue::Float(_) => return None,
            VarValue::Text(s) if s.contains(['\\', '\0']) => return None,
            VarValue::Text(s) => {
                Expr::Value(Value::SingleQuotedString(s.replace('\'', "''")).into())
            }
        })
    }
}

impl From<i64> for VarValue {
    fn from(v: i64) -> Self {
        VarValue::Int(v)
    }
}

impl From<bool> for VarValue {
    fn from(v: bool) -> Self {
        VarValue::Bool(v)
    }
}

impl From<f64> for VarValue {
    fn from(v: f64) -> Self {
        VarValue::Float(v)
    }
}

impl From<&str> for VarValue {
    fn from(v: &str) -> Self {
        VarValue::Text(v.to_string())
    }
}

impl From<String> for VarValue {
    fn from(v: String) -> Self {
        VarValue::Text(v)
    }
}

/// Variables for the row filters of one check (`Guard::check_with`): name (without the `:`) to
/// value.
///
/// ```
/// use sqlgate::Vars;
/// let vars = Vars::new().with("tenant", 42).with("region", "emea");
/// assert_eq!(vars.len(), 2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct Vars(BTreeMap<String, VarValue>);

impl Vars {
    /// No variables.
    pub fn new() -> Vars {
        Vars::default()
    }

    /// These variables and `name` = `value`.
    pub fn with(mut self, name: impl Into<String>, value: impl Into<VarValue>) -> Vars {
        self.set(name, value);
        self
    }

    /// Sets `name` to `value`, replacing an earlier value.
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<VarValue>) {
        self.0.insert(name.into(), value.into());
    }

    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&VarValue> {
        self.0.get(name)
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The variables, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &VarValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl<K: Into<String>, V: Into<VarValue>> FromIterator<(K, V)> for Vars {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Vars(
            iter.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_print_as_the_parser_reads_them() {
        let printed = |v: VarValue| v.literal().map(|e| e.to_string());
        assert_eq!(printed(VarValue::Int(42)).as_deref(), Some("42"));
        assert_eq!(
            printed(VarValue::Int(i64::MIN)).as_deref(),
            Some("(-9223372036854775808)")
        );
        assert_eq!(printed(VarValue::Float(1.0)).as_deref(), Some("1.0"));
        assert_eq!(printed(VarValue::Float(-2.5)).as_deref(), Some("(-2.5)"));
        assert_eq!(printed(VarValue::Float(1e-7)).as_deref(), Some("1e-7"));
        assert_eq!(printed(VarValue::Float(f64::NAN)), None);
        assert_eq!(
            printed(VarValue::Text("O'Hara".into())).as_deref(),
            Some("'O''Hara'")
        );
        assert_eq!(printed(VarValue::Text("a\\b".into())), None);
        assert_eq!(printed(VarValue::Null).as_deref(), Some("NULL"));
        assert_eq!(printed(VarValue::Bool(true)).as_deref(), Some("true"));
    }

    #[test]
    fn vars_read_from_json_and_toml_shapes() {
        let vars: Vars =
            serde_json::from_str(r#"{"tenant": 42, "name": "a", "on": true, "x": null, "f": 1.5}"#)
                .expect("valid vars");
        assert_eq!(vars.get("tenant"), Some(&VarValue::Int(42)));
        assert_eq!(vars.get("name"), Some(&VarValue::Text("a".into())));
        assert_eq!(vars.get("on"), Some(&VarValue::Bool(true)));
        assert_eq!(vars.get("x"), Some(&VarValue::Null));
        assert_eq!(vars.get("f"), Some(&VarValue::Float(1.5)));
        assert!(serde_json::from_str::<Vars>(r#"{"t": [1]}"#).is_err());
    }
}
