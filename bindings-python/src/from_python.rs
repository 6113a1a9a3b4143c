//! Reading Python values (policy sections, whole policies) into core types by the rules of JSON.
//!
//! `pythonize::depythonize` reads the Python objects into a [`serde_json::Value`], and the core
//! type is read from that with `serde_path_to_error`, so a fault is reported with its path. Going
//! through a JSON value keeps JSON's strict types: read straight from Python objects, a core type
//! would take a `str` as a list of its characters (`{"deny": "secret"}` denying `s`, `e`, ...) and
//! anything truthy as `true`, which a JSON policy file never allows.

use std::fmt;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pythonize::Depythonizer;
use serde::de::{self, DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

/// Reads `value` into `T` by core's serde rules. On a value `T` does not accept,
/// `invalid(path, message)` builds the error, `path` being the place inside the value (`.` for
/// the value itself). A Python object of a type JSON has no counterpart for raises `TypeError`,
/// as `json.dumps` did.
pub(crate) fn from_python<T: DeserializeOwned>(
    value: &Bound<'_, PyAny>,
    invalid: impl FnOnce(&str, &str) -> PyErr,
) -> PyResult<T> {
    let read = serde_path_to_error::deserialize(&mut Depythonizer::from_object(value));
    let JsonValue(json) = match read {
        Ok(json) => json,
        Err(e) => {
            let path = e.path().to_string();
            let err = PyErr::from(e.into_inner());
            // pythonize raises a plain `Exception` for a serde error: here only `JsonVisitor`'s
            // refusal of a number JSON cannot hold. Type errors and the caller's own exceptions
            // (a mapping whose `__getitem__` raises) go up unchanged.
            if err
                .get_type(value.py())
                .is(value.py().get_type::<PyException>())
            {
                return Err(invalid(&path, &err.value(value.py()).to_string()));
            }
            return Err(err);
        }
    };
    serde_path_to_error::deserialize(json)
        .map_err(|e| invalid(&e.path().to_string(), &e.inner().to_string()))
}

/// A JSON value read from Python. Unlike [`Value`]'s own `Deserialize`, which turns a NaN or an
/// infinity into `null` (and `max_rows: null` means no row cap), it refuses what JSON text
/// cannot hold, as `json.dumps` followed by a JSON parser did.
struct JsonValue(Value);

impl<'de> Deserialize<'de> for JsonValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor).map(JsonValue)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a value JSON can hold")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        JsonValue::deserialize(deserializer).map(|JsonValue(v)| v)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Number::deserialize(de::value::I128Deserializer::new(v)).map(Value::Number)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Number::deserialize(de::value::U128Deserializer::new(v)).map(Value::Number)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Float(v), &"a finite number"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(JsonValue(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields = Map::new();
        while let Some((key, JsonValue(value))) = map.next_entry::<String, JsonValue>()? {
            fields.insert(key, value);
        }
        Ok(Value::Object(fields))
    }
}
