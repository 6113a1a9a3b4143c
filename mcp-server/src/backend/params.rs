//! Parameters of a published query: typed values bound by the driver, never written into the SQL.
//!
//! A published query names its parameters `:name` in its SQL; core checks that text (a
//! placeholder is a value to the guard) and the approved SQL keeps the placeholders. Each engine
//! then binds the values over its protocol: SQLite and MySQL / MariaDB take `:name` as is (their
//! drivers bind named parameters), PostgreSQL and DuckDB take `$n`, which [`numbered`] writes in
//! place of each `:name` of the approved SQL (core finds them: the server reads no SQL). The values themselves only ever travel as bound
//! parameters.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlgate::Dialect;

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

/// `sql` with each `:name` written `$n`, `n` the position of `name` in `params` (1-based), for
/// the engines that bind by position: core reads the placeholders from its parse of the SQL in
/// `dialect`. A name `params` does not hold is an error.
pub fn numbered(sql: &str, dialect: Dialect, params: &Params) -> Result<String, String> {
    let order: Vec<&str> = params.0.iter().map(|(name, _)| name.as_str()).collect();
    sqlgate::number_named_placeholders(sql, dialect, &order).map_err(|e| e.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_by_the_order_of_the_values() {
        let p = Params(vec![
            ("b".into(), ParamValue::Int(1)),
            ("a".into(), ParamValue::Text("x".into())),
        ]);
        assert_eq!(
            numbered(
                "SELECT 1 WHERE x = :a OR y = :b OR z = :a",
                Dialect::Postgres,
                &p
            )
            .ok(),
            Some("SELECT 1 WHERE x = $2 OR y = $1 OR z = $2".to_string())
        );
        assert_eq!(
            numbered("SELECT :c", Dialect::Duckdb, &p),
            Err("no value for the parameter :c".to_string())
        );
    }
}
