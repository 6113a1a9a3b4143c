//! A verified token's claims, mapped to a principal: which principal's `match` the claims meet,
//! and the row-filter variables its `vars` take from them. A variable whose claim is missing or
//! of another type refuses the call: never a query with a filter left unbound.

use serde::Deserialize;
use serde_json::{Map, Value};
use sqlgate::{VarValue, Vars};

/// The JSON type a claim must have to become a row-filter variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ClaimType {
    /// A JSON integer (within 64 bits). A string of digits is not one.
    Integer,
    /// A JSON number.
    Number,
    /// A JSON string.
    String,
    /// `true` or `false`.
    Boolean,
}

/// One row-filter variable taken from a claim (`vars = { tenant = { claim = "org_id", type =
/// "integer" } }`).
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimVar {
    /// The variable (`:tenant` in a row filter).
    pub var: String,
    /// The claim: a top-level name (`org_id`, `https://example.com/org`), else a dotted path
    /// into nested objects (`realm_access.org`).
    pub claim: String,
    /// The type the claim must have.
    pub ty: ClaimType,
}

/// Which tokens a principal serves, and the variables their claims give it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClaimRule {
    /// Claim → required value: a claim equal to it, or an array of claims holding it. Empty:
    /// every verified token.
    pub matches: Vec<(String, Value)>,
    /// Variables bound from claims, on top of the principal's literal ones.
    pub vars: Vec<ClaimVar>,
}

/// Why a token's claims cannot bind a principal's variables.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClaimError {
    /// The claim is absent.
    #[error("the token has no claim `{claim}`, which row-filter variable `{var}` is bound to")]
    Missing {
        /// The claim.
        claim: String,
        /// The variable it binds.
        var: String,
    },
    /// The claim has another JSON type, or a value the variable cannot hold.
    #[error(
        "the token's claim `{claim}` (for row-filter variable `{var}`) is {found}, not {expected}"
    )]
    WrongType {
        /// The claim.
        claim: String,
        /// The variable it binds.
        var: String,
        /// The type configured.
        expected: &'static str,
        /// What the token holds.
        found: &'static str,
    },
}

/// The claim at `path`: the top-level name as written, else a dotted path through objects.
pub fn claim<'a>(claims: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    if let Some(v) = claims.get(path) {
        return Some(v);
    }
    let mut parts = path.split('.');
    let mut value = claims.get(parts.next()?)?;
    for part in parts {
        value = value.as_object()?.get(part)?;
    }
    Some(value)
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() => "an integer",
        Value::Number(n) if n.is_u64() => "an integer beyond 64 bits",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl ClaimType {
    /// The variable's value, when `v` has this type.
    fn value_of(self, v: &Value) -> Option<VarValue> {
        match (self, v) {
            (ClaimType::Integer, Value::Number(n)) => n.as_i64().map(VarValue::Int),
            (ClaimType::Number, Value::Number(n)) => match n.as_i64() {
                Some(i) => Some(VarValue::Int(i)),
                None => n.as_f64().filter(|f| f.is_finite()).map(VarValue::Float),
            },
            (ClaimType::String, Value::String(s)) => Some(VarValue::Text(s.clone())),
            (ClaimType::Boolean, Value::Bool(b)) => Some(VarValue::Bool(*b)),
            _ => None,
        }
    }

    fn expected(self) -> &'static str {
        match self {
            ClaimType::Integer => "an integer",
            ClaimType::Number => "a number",
            ClaimType::String => "a string",
            ClaimType::Boolean => "a boolean",
        }
    }
}

impl ClaimRule {
    /// True when the claims meet every `match` entry.
    pub fn matches(&self, claims: &Map<String, Value>) -> bool {
        self.matches
            .iter()
            .all(|(path, want)| match claim(claims, path) {
                Some(Value::Array(items)) if !want.is_array() => items.contains(want),
                Some(v) => v == want,
                None => false,
            })
    }

    /// `base` (the principal's literal variables) plus those bound from the claims.
    pub fn bind(&self, base: &Vars, claims: &Map<String, Value>) -> Result<Vars, ClaimError> {
        let mut vars = base.clone();
        for cv in &self.vars {
            let Some(v) = claim(claims, &cv.claim) else {
                return Err(ClaimError::Missing {
                    claim: cv.claim.clone(),
                    var: cv.var.clone(),
                });
            };
            let value = cv.ty.value_of(v).ok_or_else(|| ClaimError::WrongType {
                claim: cv.claim.clone(),
                var: cv.var.clone(),
                expected: cv.ty.expected(),
                found: json_type(v),
            })?;
            vars.set(cv.var.clone(), value);
        }
        Ok(vars)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn claims(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn rule() -> ClaimRule {
        ClaimRule {
            matches: vec![
                ("iss".into(), json!("https://idp")),
                ("roles".into(), json!("support")),
            ],
            vars: vec![ClaimVar {
                var: "tenant".into(),
                claim: "org.id".into(),
                ty: ClaimType::Integer,
            }],
        }
    }

    #[test]
    fn matches_equal_values_and_array_members() {
        let r = rule();
        assert!(r.matches(&claims(
            json!({"iss": "https://idp", "roles": ["admin", "support"]})
        )));
        assert!(r.matches(&claims(json!({"iss": "https://idp", "roles": "support"}))));
        assert!(!r.matches(&claims(json!({"iss": "https://idp", "roles": ["admin"]}))));
        assert!(!r.matches(&claims(json!({"iss": "https://other", "roles": "support"}))));
        assert!(!r.matches(&claims(json!({"iss": "https://idp"}))));
        assert!(ClaimRule::default().matches(&claims(json!({}))));
    }

    #[test]
    fn binds_typed_claims_and_refuses_missing_or_mistyped_ones() {
        let r = rule();
        let base = Vars::new().with("region", "emea");
        let vars = r.bind(&base, &claims(json!({"org": {"id": 42}}))).unwrap();
        assert_eq!(vars.get("tenant"), Some(&VarValue::Int(42)));
        assert_eq!(vars.get("region"), Some(&VarValue::Text("emea".into())));
        // A top-level name with dots is read as written first.
        let vars = r.bind(&base, &claims(json!({"org.id": 7}))).unwrap();
        assert_eq!(vars.get("tenant"), Some(&VarValue::Int(7)));
        assert_eq!(
            r.bind(&base, &claims(json!({"org": {}}))),
            Err(ClaimError::Missing {
                claim: "org.id".into(),
                var: "tenant".into()
            })
        );
        for (bad, found) in [
            (json!("42"), "a string"),
            (json!(4.5), "a number"),
            (json!(null), "null"),
            (json!([42]), "an array"),
            (json!(u64::MAX), "an integer beyond 64 bits"),
        ] {
            let e = r
                .bind(&base, &claims(json!({"org": {"id": bad}})))
                .unwrap_err();
            assert_eq!(
                e,
                ClaimError::WrongType {
                    claim: "org.id".into(),
                    var: "tenant".into(),
                    expected: "an integer",
                    found
                }
            );
            assert!(e.to_string().contains("tenant"), "{e}");
        }
    }

    #[test]
    fn each_type_takes_only_its_own_json() {
        assert_eq!(ClaimType::String.value_of(&json!(1)), None);
        assert_eq!(
            ClaimType::String.value_of(&json!("a")),
            Some(VarValue::Text("a".into()))
        );
        assert_eq!(ClaimType::Boolean.value_of(&json!("true")), None);
        assert_eq!(
            ClaimType::Number.value_of(&json!(2.5)),
            Some(VarValue::Float(2.5))
        );
        assert_eq!(ClaimType::Integer.value_of(&json!(2.0)), None);
    }
}
