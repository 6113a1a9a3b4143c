//! Conversions between core types and JavaScript values, and error mapping.
//!
//! Options and policies arrive as JavaScript values and are read into JSON (strictly: no silent
//! `NaN`, `undefined` members are left out) so that core's serde `Policy`, with its defaults and
//! `deny_unknown_fields`, makes every decision about them.

use napi::bindgen_prelude::{Function, JsObjectValue, Object, Unknown};
use napi::{Env, Error, JsValue, Result, Status, ValueType};
use serde_json::{Map, Number, Value};

use crate::types;

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

/// A bad option or policy: the field at fault (as the caller spelled it) and what is wrong.
pub(crate) struct OptionError {
    pub field: String,
    pub message: String,
}

impl OptionError {
    fn new(field: &str, message: impl Into<String>) -> Self {
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
            <bool as napi::bindgen_prelude::FromNapiValue>::from_unknown(value).map_err(js)?,
        )),
        ValueType::String => Ok(Value::String(
            <String as napi::bindgen_prelude::FromNapiValue>::from_unknown(value).map_err(js)?,
        )),
        ValueType::Number => {
            let n =
                <f64 as napi::bindgen_prelude::FromNapiValue>::from_unknown(value).map_err(js)?;
            number(n).ok_or_else(|| OptionError::new(path, format!("expected a number, got {n}")))
        }
        ValueType::Object => {
            if value.is_array().map_err(js)? {
                let array = <Object as napi::bindgen_prelude::FromNapiValue>::from_unknown(value)
                    .map_err(js)?;
                let len = array.get_array_length().map_err(js)?;
                let mut items = Vec::with_capacity(len as usize);
                for i in 0..len {
                    let item: Unknown = array.get_element(i).map_err(js)?;
                    let item_path = format!("{path}[{i}]");
                    items.push(js_to_json(item, keys, &item_path, depth + 1)?);
                }
                Ok(Value::Array(items))
            } else {
                let object = <Object as napi::bindgen_prelude::FromNapiValue>::from_unknown(value)
                    .map_err(js)?;
                let mut map = Map::new();
                for key in Object::keys(&object).map_err(js)? {
                    let item: Unknown = object.get_named_property(&key).map_err(js)?;
                    if item.get_type().map_err(js)? == ValueType::Undefined {
                        continue;
                    }
                    let item_path = join(path, &key);
                    let item = js_to_json(item, keys, &item_path, depth + 1)?;
                    let name = match keys {
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
fn number(n: f64) -> Option<Value> {
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

/// Throws a `TypeError` whose message names the field, with `.field` set; returns the error that
/// tells napi an exception is pending.
pub(crate) fn throw_type_error(env: &Env, what: &str, err: OptionError) -> Error {
    let message = format!("invalid {what} `{}`: {}", err.field, err.message);
    let thrown = (|| -> Result<()> {
        let ctor: Function<String, Unknown> = env.get_global()?.get_named_property("TypeError")?;
        let error = ctor.new_instance(message.clone())?;
        let mut object = <Object as napi::bindgen_prelude::FromNapiValue>::from_unknown(error)?;
        object.set_named_property("field", err.field.as_str())?;
        env.throw(object)
    })();
    match thrown {
        Ok(()) => Error::new(Status::PendingException, message),
        Err(_) => Error::new(Status::InvalidArg, message),
    }
}

/// Parses JSON text with the engine's `JSON.parse`, so the object has exactly core's keys, in
/// core's order.
pub(crate) fn json_parse<'e>(env: &'e Env, text: &str) -> Result<Unknown<'e>> {
    let json: Object = env.get_global()?.get_named_property("JSON")?;
    let parse: Function<&str, Unknown> = json.get_named_property("parse")?;
    parse.apply(json, text)
}

/// Saturating `usize`/`u64` -> `u32` for counts and positions.
fn u32_of<T: TryInto<u32>>(n: T) -> u32 {
    n.try_into().unwrap_or(u32::MAX)
}

/// Core's approved query as the JavaScript object.
pub(crate) fn approved(a: sqlgate::Approved) -> types::Approved {
    types::Approved {
        sql: a.sql,
        query_class: query_class(a.query_class),
        statement_count: u32_of(a.statement_count),
        tables: a.tables,
        columns: a.columns,
        functions: a.functions,
        limit: types::LimitInfo {
            action: limit_action(a.limit.action),
            value: a.limit.value.map(|v| v as f64),
            original: a.limit.original.map(|v| v as f64),
        },
    }
}

/// Builds the `Error` for a refusal: message `code: explanation`, and the properties of
/// [`types::Rejection`].
pub(crate) fn rejection_error<'e>(env: &'e Env, r: &sqlgate::Rejection) -> Result<Object<'e>> {
    let e = &r.error;
    let mut error = env.create_error(Error::new(Status::GenericFailure, r.to_string()))?;
    error.set_named_property("code", error_code(e.code))?;
    error.set_named_property("stage", stage(e.stage))?;
    error.set_named_property("retryable", e.retryable)?;
    error.set_named_property("hint", e.hint.as_deref())?;
    error.set_named_property(
        "location",
        e.location.map(|l| types::Location {
            line: u32_of(l.line),
            column: u32_of(l.column),
        }),
    )?;
    error.set_named_property("queryClass", query_class(r.query_class))?;
    error.set_named_property("statementCount", u32_of(r.statement_count))?;
    Ok(error)
}

/// Throws the refusal; returns the error that tells napi an exception is pending.
pub(crate) fn throw_rejection(env: &Env, r: &sqlgate::Rejection) -> Error {
    match rejection_error(env, r).and_then(|error| env.throw(error)) {
        Ok(()) => Error::new(Status::PendingException, r.to_string()),
        Err(e) => e,
    }
}

/// Core's error code as the JavaScript string union. One exhaustive match: a new core code does
/// not compile until it is mapped here.
pub(crate) fn error_code(code: sqlgate::ErrorCode) -> types::ErrorCode {
    use sqlgate::ErrorCode as C;
    use types::ErrorCode as J;
    match code {
        C::Empty => J::Empty,
        C::TooLarge => J::TooLarge,
        C::TooDeep => J::TooDeep,
        C::InvalidCharacter => J::InvalidCharacter,
        C::ParseError => J::ParseError,
        C::MultipleStatements => J::MultipleStatements,
        C::StatementNotAllowed => J::StatementNotAllowed,
        C::DataModifyingCte => J::DataModifyingCte,
        C::SelectInto => J::SelectInto,
        C::LockingClause => J::LockingClause,
        C::ExplainAnalyze => J::ExplainAnalyze,
        C::FunctionNotAllowed => J::FunctionNotAllowed,
        C::TableNotAllowed => J::TableNotAllowed,
        C::SystemCatalog => J::SystemCatalog,
        C::ColumnNotAllowed => J::ColumnNotAllowed,
        C::StarOnRestrictedTable => J::StarOnRestrictedTable,
        C::UnknownTable => J::UnknownTable,
        C::UnknownColumn => J::UnknownColumn,
        C::LimitNotLiteral => J::LimitNotLiteral,
        C::UnsupportedSyntax => J::UnsupportedSyntax,
        C::InternalRoundtrip => J::InternalRoundtrip,
        C::BadRequest => J::BadRequest,
    }
}

/// Core's stage as the JavaScript string union.
pub(crate) fn stage(s: sqlgate::Stage) -> types::Stage {
    use sqlgate::Stage as S;
    use types::Stage as J;
    match s {
        S::Precheck => J::Precheck,
        S::Parse => J::Parse,
        S::Validate => J::Validate,
        S::Rewrite => J::Rewrite,
    }
}

/// Core's query class as the JavaScript string union.
pub(crate) fn query_class(c: sqlgate::QueryClass) -> types::QueryClass {
    use sqlgate::QueryClass as Q;
    use types::QueryClass as J;
    match c {
        Q::Select => J::Select,
        Q::Session => J::Session,
        Q::MutationCreate => J::MutationCreate,
        Q::MutationDelete => J::MutationDelete,
        Q::Ddl => J::Ddl,
        Q::Admin => J::Admin,
        Q::Unknown => J::Unknown,
    }
}

/// Core's limit action as the JavaScript string union.
pub(crate) fn limit_action(a: sqlgate::LimitAction) -> types::LimitAction {
    use sqlgate::LimitAction as L;
    use types::LimitAction as J;
    match a {
        L::Injected => J::Injected,
        L::Clamped => J::Clamped,
        L::Kept => J::Kept,
        L::None => J::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn numbers_stay_integral() {
        assert_eq!(number(100.0), Some(Value::from(100)));
        assert_eq!(number(5e9), Some(Value::from(5_000_000_000_i64)));
        assert_eq!(number(f64::NAN), None);
        assert_eq!(number(f64::INFINITY), None);
        assert!(matches!(number(1.5), Some(Value::Number(_))));
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
        let nested = serde_json::json!({"tables": {"allow": ["a", 3]}});
        let err = policy_from_json(nested, Keys::Snake).err();
        assert_eq!(err.map(|e| e.field), Some(String::from("tables.allow[1]")));
    }
}
