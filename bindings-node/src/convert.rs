//! Conversions between JavaScript values and core's serde types.
//!
//! Options and policies arrive as JavaScript values and are read into JSON (strictly: no silent
//! `NaN`, `undefined` members are left out) so that core's serde `Policy`, with its defaults and
//! `deny_unknown_fields`, makes every decision about them. Results leave as core serialises them;
//! the only change is one generic rule, key case (`max_rows` <-> `maxRows`), for the camelCase API.
//! A value core refuses is an [`OptionError`], the field at fault spelled as the caller spells it.

use napi::bindgen_prelude::{FromNapiValue, JsObjectValue, Object, Unknown};
use napi::{Env, Error, JsValue, Result, ValueType};
use serde::Serialize;
use serde_json::{Map, Number, Value};

/// A bad option or policy: the field at fault (as the caller spelled it) and what is wrong.
pub(crate) struct OptionError {
    pub field: String,
    pub message: String,
}

impl OptionError {
    pub(crate) fn new(field: &str, message: impl Into<String>) -> Self {
        OptionError {
            field: if field.is_empty() {
                String::from("options")
            } else {
                field.to_string()
            },
            message: message.into(),
        }
    }
}

/// Deepest JavaScript value accepted as options or policy (a policy is at most 5 levels deep).
const MAX_DEPTH: usize = 32;
/// Largest integer a JavaScript number holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// How option names are spelled on the JavaScript side.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keys {
    /// `new Guard({ maxRows })`: camelCase, converted to core's snake_case.
    Camel,
    /// `Guard.fromPolicy({ max_rows })`: core's JSON as is.
    Snake,
}

/// `maxRows` -> `max_rows`.
pub(crate) fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `max_rows` -> `maxRows`; `tables.allow[2]` is left as is.
pub(crate) fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// Reads a JavaScript options / policy value into JSON, renaming keys per `keys`.
pub(crate) fn js_to_json(
    value: Unknown<'_>,
    keys: Keys,
    path: &str,
    depth: usize,
) -> std::result::Result<Value, OptionError> {
    let js = |e: Error| OptionError::new(path, e.reason.clone());
    if depth > MAX_DEPTH {
        return Err(OptionError::new(path, "nested too deeply"));
    }
    match value.get_type().map_err(js)? {
        ValueType::Null => Ok(Value::Null),
        ValueType::Boolean => Ok(Value::Bool(
            <bool as FromNapiValue>::from_unknown(value).map_err(js)?,
        )),
        ValueType::String => Ok(Value::String(
            <String as FromNapiValue>::from_unknown(value).map_err(js)?,
        )),
        ValueType::Number => {
            let n = <f64 as FromNapiValue>::from_unknown(value).map_err(js)?;
            number_json(n)
                .ok_or_else(|| OptionError::new(path, format!("expected a number, got {n}")))
        }
        ValueType::Object => {
            if value.is_array().map_err(js)? {
                let array = <Object as FromNapiValue>::from_unknown(value).map_err(js)?;
                let len = array.get_array_length().map_err(js)?;
                let mut items = Vec::with_capacity(len as usize);
                for i in 0..len {
                    let item: Unknown = array.get_element(i).map_err(js)?;
                    let item_path = format!("{path}[{i}]");
                    items.push(js_to_json(item, keys, &item_path, depth + 1)?);
                }
                Ok(Value::Array(items))
            } else {
                let object = <Object as FromNapiValue>::from_unknown(value).map_err(js)?;
                let mut map = Map::new();
                for key in Object::keys(&object).map_err(js)? {
                    let item: Unknown = object.get_named_property(&key).map_err(js)?;
                    if item.get_type().map_err(js)? == ValueType::Undefined {
                        continue;
                    }
                    let item_path = join(path, &key);
                    let item = js_to_json(item, keys, &item_path, depth + 1)?;
                    let name = match keys {
                        // `rows` maps table names (kept as written) to predicates.
                        Keys::Camel if path == "rows" && key != "trustedViews" => key,
                        Keys::Camel => snake_case(&key),
                        Keys::Snake => key,
                    };
                    map.insert(name, item);
                }
                Ok(Value::Object(map))
            }
        }
        other => Err(OptionError::new(
            path,
            format!("expected JSON-like data, got a {other}"),
        )),
    }
}

/// A JavaScript number as JSON: integers stay integers (so core's `u64` fields read them).
pub(crate) fn number_json(n: f64) -> Option<Value> {
    if !n.is_finite() {
        return None;
    }
    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
        // Exact: an integral value within 2^53 converts to i64 without loss.
        return Some(Value::Number(Number::from(n as i64)));
    }
    Number::from_f64(n).map(Value::Number)
}

/// Deserialises core's `Policy` from JSON, naming the field at fault as the caller spells it.
pub(crate) fn policy_from_json(
    value: Value,
    keys: Keys,
) -> std::result::Result<sqlgate::Policy, OptionError> {
    serde_path_to_error::deserialize::<_, sqlgate::Policy>(value).map_err(|e| {
        let field = spell_path(&e.path().to_string(), keys);
        let inner = e.into_inner().to_string();
        let message = match keys {
            Keys::Camel if inner.starts_with("unknown field") => camel_backticks(&inner),
            _ => inner,
        };
        OptionError::new(&field, message)
    })
}

/// What `checkWithRowCap`'s row cap takes (a policy's `maxRows` is read by core, which says
/// what it takes itself).
pub(crate) const ROW_CAP_EXPECTED: &str = "must be an integer or null";

/// A core field path (`tables.allow[2]`, `max_rows`) as the caller spells it.
pub(crate) fn spell_path(path: &str, keys: Keys) -> String {
    let path = if path == "." { "" } else { path };
    match keys {
        Keys::Camel => camel_case(path),
        Keys::Snake => path.to_string(),
    }
}

/// serde's "unknown field `x`, expected one of `max_rows`, ..." with the names in camelCase.
fn camel_backticks(message: &str) -> String {
    message
        .split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                camel_case(part)
            } else {
                part.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// Parses JSON text with the engine's `JSON.parse`, so the object has exactly core's keys, in
/// core's order.
pub(crate) fn json_parse<'e>(env: &'e Env, text: &str) -> Result<Unknown<'e>> {
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let parse: napi::bindgen_prelude::Function<&str, Unknown> = json.get_named_property("parse")?;
    parse.apply(json, text)
}

/// Saturating `usize`/`u64` -> `u32` for counts.
pub(crate) fn u32_of<T: TryInto<u32>>(n: T) -> u32 {
    n.try_into().unwrap_or(u32::MAX)
}

/// A core value as JSON text with every object key in camelCase, members in core's order.
pub(crate) fn camel_json<T: Serialize>(value: &T) -> Result<String> {
    let mut out = Vec::with_capacity(256);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, CamelKeys::default());
    value
        .serialize(&mut serializer)
        .map_err(|e| Error::from_reason(e.to_string()))?;
    String::from_utf8(out).map_err(|e| Error::from_reason(e.to_string()))
}

/// A core value as a JavaScript value, every object key in camelCase, in core's order.
pub(crate) fn to_js_camel<'e, T: Serialize>(env: &'e Env, value: &T) -> Result<Unknown<'e>> {
    json_parse(env, &camel_json(value)?)
}

/// serde_json's compact output, with object keys written in camelCase: the one place where core's
/// snake_case names become the JavaScript API's (the key case rule of [`camel_case`]).
#[derive(Default)]
struct CamelKeys {
    in_key: bool,
}

impl serde_json::ser::Formatter for CamelKeys {
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.in_key = true;
        if first {
            Ok(())
        } else {
            writer.write_all(b",")
        }
    }

    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.in_key = false;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        if self.in_key {
            writer.write_all(camel_case(fragment).as_bytes())
        } else {
            writer.write_all(fragment.as_bytes())
        }
    }
}

/// Core's approved query as the JavaScript object (the TypeScript `Approved`): core's fields in
/// camelCase, `columns` always present (core's JSON leaves it out when empty).
pub(crate) fn approved<'e>(env: &'e Env, a: &sqlgate::Approved) -> Result<Unknown<'e>> {
    let mut object = Object::from_unknown(to_js_camel(env, a)?)?;
    if a.columns.is_empty() {
        object.set_named_property("columns", Vec::<String>::new())?;
    }
    Ok(object.to_unknown())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What core says a policy's row cap takes (its `#[serde(expecting)]`).
    const POLICY_ROW_CAP: &str = r#"must be an integer, or null or "none" for no cap"#;

    #[test]
    fn names_convert_both_ways() {
        assert_eq!(snake_case("maxRows"), "max_rows");
        assert_eq!(snake_case("allowSystemCatalogs"), "allow_system_catalogs");
        assert_eq!(snake_case("dialect"), "dialect");
        assert_eq!(camel_case("max_sql_bytes"), "maxSqlBytes");
        assert_eq!(
            camel_case("catalog.tables[0].primary_key"),
            "catalog.tables[0].primaryKey"
        );
    }

    #[test]
    fn output_keys_are_camel_case_in_core_order() {
        let limit = sqlgate::LimitInfo {
            action: sqlgate::LimitAction::Injected,
            value: Some(5),
            original: None,
        };
        assert_eq!(
            camel_json(&serde_json::json!({"max_rows": {"query_class": "a_b"}})).ok(),
            Some(String::from(r#"{"maxRows":{"queryClass":"a_b"}}"#))
        );
        assert_eq!(
            camel_json(&limit).ok(),
            Some(String::from(
                r#"{"action":"injected","value":5,"original":null}"#
            ))
        );
    }

    #[test]
    fn numbers_stay_integral() {
        assert_eq!(number_json(100.0), Some(Value::from(100)));
        assert_eq!(number_json(5e9), Some(Value::from(5_000_000_000_i64)));
        assert_eq!(number_json(f64::NAN), None);
        assert_eq!(number_json(f64::INFINITY), None);
        assert!(matches!(number_json(1.5), Some(Value::Number(_))));
    }

    #[test]
    fn policy_errors_name_the_field() {
        let bad = serde_json::json!({"max_rows": "ten"});
        let err = policy_from_json(bad.clone(), Keys::Camel).err();
        assert_eq!(err.map(|e| e.field), Some(String::from("maxRows")));
        let err = policy_from_json(bad, Keys::Snake).err();
        assert_eq!(err.map(|e| e.field), Some(String::from("max_rows")));
        let unknown = serde_json::json!({"max_rowz": 1});
        let err = policy_from_json(unknown, Keys::Camel).err();
        assert!(err.is_some_and(|e| e.message.contains("`maxRowz`")));
        let word = serde_json::json!({"max_rows": "10"});
        let err = policy_from_json(word, Keys::Camel).err();
        assert_eq!(
            err.map(|e| (e.field, e.message)),
            Some((String::from("maxRows"), String::from(POLICY_ROW_CAP)))
        );
        let nested = serde_json::json!({"writes": {"tables": [], "max_affected_rows": -1}});
        let err = policy_from_json(nested, Keys::Snake).err();
        assert_eq!(
            err.map(|e| (e.field, e.message)),
            Some((
                String::from("writes.max_affected_rows"),
                String::from(POLICY_ROW_CAP)
            ))
        );
        let nested = serde_json::json!({"tables": {"allow": ["a", 3]}});
        let err = policy_from_json(nested, Keys::Snake).err();
        assert_eq!(err.map(|e| e.field), Some(String::from("tables.allow[1]")));
    }
}
