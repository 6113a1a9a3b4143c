//! DuckDB values to JSON, read from Arrow batches: numbers (strings beyond 2^53), booleans,
//! strings, base64 for bytes, arrays, objects for structs and maps, ISO 8601 for intervals and
//! instants, and Arrow's formatter for any type without a JSON form, so a query never fails
//! because of a type. DuckDB's types Arrow has no type for arrive as extension types (under
//! `arrow_lossless_conversion`) and are decoded by [`Decoder`].

use base64::Engine;
use duckdb::arrow::array::{Array, AsArray};
use duckdb::arrow::datatypes::{self as dt, DataType, Field};
use duckdb::arrow::util::display::{ArrayFormatter, FormatOptions};
use serde_json::{Map, Number, Value};

use super::storage::{bignum, bit_string, bytes, fixed, time_tz};
use crate::backend::interval::iso_interval;

/// The largest integer a JSON number carries exactly in every client (2^53).
const MAX_SAFE_INTEGER: i128 = 1 << 53;

/// A JSON integer, or a string beyond 2^53 (where JSON numbers lose digits in most clients).
fn integer(v: i128) -> Value {
    if (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&v) {
        i64::try_from(v)
            .map(Value::from)
            .unwrap_or_else(|_| Value::String(v.to_string()))
    } else {
        Value::String(v.to_string())
    }
}

/// A DuckDB type that Arrow carries as an extension type (`ARROW:extension:name` in the field's
/// metadata; DuckDB's own ones are `arrow.opaque` with a `type_name`), under
/// `arrow_lossless_conversion`: its storage alone does not say what the value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Extension {
    /// Any other type: Arrow's type says it all.
    None,
    /// `arrow.uuid`: 16 bytes, most significant first.
    Uuid,
    /// `arrow.bool8`: a BOOLEAN as one byte, 0 false.
    Bool8,
    /// HUGEINT: 16 bytes, a little-endian i128.
    Hugeint,
    /// UHUGEINT: 16 bytes, a little-endian u128.
    Uhugeint,
    /// TIME WITH TIME ZONE: DuckDB's 8 bytes ([`time_tz`]).
    TimeTz,
    /// BIT: DuckDB's storage ([`bit_string`]).
    Bit,
    /// BIGNUM (VARINT): DuckDB's storage ([`bignum`]).
    Bignum,
}

/// How to decode a field's values: its extension type and, for a LIST, STRUCT, MAP or UNION, its
/// members' (in the order Arrow lists them). Worked out once per result, so that no value reads a
/// field's metadata again.
#[derive(Debug)]
pub(super) struct Decoder {
    ext: Extension,
    members: Vec<Decoder>,
}

/// The decoder of a member Arrow's schema does not have (none is ever missing).
static PLAIN: Decoder = Decoder {
    ext: Extension::None,
    members: Vec::new(),
};

impl Decoder {
    pub(super) fn of(field: &Field) -> Decoder {
        let members = match field.data_type() {
            DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
                vec![Decoder::of(f)]
            }
            DataType::Struct(fields) => fields.iter().map(|f| Decoder::of(f)).collect(),
            // One member, the entries: a struct of the key and the value.
            DataType::Map(entries, _) => vec![Decoder::of(entries)],
            DataType::Union(fields, _) => fields.iter().map(|(_, f)| Decoder::of(f)).collect(),
            _ => Vec::new(),
        };
        Decoder {
            ext: extension(field),
            members,
        }
    }

    fn member(&self, i: usize) -> &Decoder {
        self.members.get(i).unwrap_or(&PLAIN)
    }
}

/// The extension type a field declares.
fn extension(field: &Field) -> Extension {
    let meta = field.metadata();
    match meta.get("ARROW:extension:name").map(String::as_str) {
        Some("arrow.uuid") => Extension::Uuid,
        Some("arrow.bool8") => Extension::Bool8,
        Some("arrow.opaque") => {
            let opaque: Value = meta
                .get("ARROW:extension:metadata")
                .and_then(|m| serde_json::from_str(m).ok())
                .unwrap_or(Value::Null);
            if opaque["vendor_name"] != "DuckDB" {
                return Extension::None;
            }
            match opaque["type_name"].as_str() {
                Some("hugeint") => Extension::Hugeint,
                Some("uhugeint") => Extension::Uhugeint,
                Some("time_tz") => Extension::TimeTz,
                Some("bit") => Extension::Bit,
                Some("bignum" | "varint") => Extension::Bignum,
                _ => Extension::None,
            }
        }
        _ => Extension::None,
    }
}

/// A value of a field `decoder` was made for: HUGEINT, UHUGEINT and BIGNUM are integers
/// (strings beyond 2^53, as [`integer`]), BOOLEAN a boolean, BIT a string of `0` and `1` (as
/// PostgreSQL's bit strings render), UUID its canonical text, TIMETZ DuckDB's text with the offset
/// (`13:14:15.25+05:30`). Storage of an unexpected layout renders as Arrow's type alone would.
pub(super) fn field_value(array: &dyn Array, row: usize, decoder: &Decoder) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    let decoded = match decoder.ext {
        Extension::None => None,
        Extension::Uuid => fixed::<16>(array, row)
            .map(|b| Value::String(uuid::Uuid::from_bytes(b).hyphenated().to_string())),
        Extension::Bool8 => array
            .as_primitive_opt::<dt::Int8Type>()
            .map(|a| Value::Bool(a.value(row) != 0)),
        Extension::Hugeint => fixed::<16>(array, row).map(|b| integer(i128::from_le_bytes(b))),
        Extension::Uhugeint => fixed::<16>(array, row).map(|b| {
            let v = u128::from_le_bytes(b);
            i128::try_from(v)
                .map(integer)
                .unwrap_or_else(|_| Value::String(v.to_string()))
        }),
        Extension::TimeTz => {
            fixed::<8>(array, row).map(|b| Value::String(time_tz(u64::from_le_bytes(b))))
        }
        Extension::Bit => bytes(array, row).and_then(bit_string).map(Value::String),
        // An integer as HUGEINT's are: a number up to 2^53, its digits beyond.
        Extension::Bignum => bytes(array, row).and_then(bignum).map(|digits| {
            digits
                .parse::<i128>()
                .map(integer)
                .unwrap_or(Value::String(digits))
        }),
    };
    decoded.unwrap_or_else(|| value(array, row, decoder))
}

/// Renders one Arrow value as JSON (the items of lists, structs, maps and unions each decoded by
/// [`field_value`] as their field declares): numbers, booleans, strings, base64 for bytes, arrays
/// for lists, objects for structs and maps, an INTERVAL as an ISO 8601 duration ([`interval`]), a
/// UNION as a one-key object naming its member (`{"num": 7}`; a NULL member is null, as Arrow
/// gives a union no validity of its own); decimals, dates and times as DuckDB-like strings;
/// anything else through Arrow's formatter.
fn value(array: &dyn Array, row: usize, decoder: &Decoder) -> Value {
    if array.is_null(row) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => Value::Bool(array.as_boolean().value(row)),
        DataType::Int8 => Value::from(array.as_primitive::<dt::Int8Type>().value(row)),
        DataType::Int16 => Value::from(array.as_primitive::<dt::Int16Type>().value(row)),
        DataType::Int32 => Value::from(array.as_primitive::<dt::Int32Type>().value(row)),
        DataType::Int64 => integer(array.as_primitive::<dt::Int64Type>().value(row).into()),
        DataType::UInt8 => Value::from(array.as_primitive::<dt::UInt8Type>().value(row)),
        DataType::UInt16 => Value::from(array.as_primitive::<dt::UInt16Type>().value(row)),
        DataType::UInt32 => Value::from(array.as_primitive::<dt::UInt32Type>().value(row)),
        DataType::UInt64 => integer(array.as_primitive::<dt::UInt64Type>().value(row).into()),
        DataType::Float16 => float(array.as_primitive::<dt::Float16Type>().value(row).to_f64()),
        DataType::Float32 => float(array.as_primitive::<dt::Float32Type>().value(row).into()),
        DataType::Float64 => float(array.as_primitive::<dt::Float64Type>().value(row)),
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(row).to_string()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).to_string()),
        DataType::Utf8View => Value::String(array.as_string_view().value(row).to_string()),
        DataType::Binary => base64(array.as_binary::<i32>().value(row)),
        DataType::LargeBinary => base64(array.as_binary::<i64>().value(row)),
        DataType::BinaryView => base64(array.as_binary_view().value(row)),
        DataType::FixedSizeBinary(_) => base64(array.as_fixed_size_binary().value(row)),
        DataType::List(_) => list(array.as_list::<i32>().value(row).as_ref(), decoder),
        DataType::LargeList(_) => list(array.as_list::<i64>().value(row).as_ref(), decoder),
        DataType::FixedSizeList(..) => {
            list(array.as_fixed_size_list().value(row).as_ref(), decoder)
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let mut out = Map::new();
            for (i, (field, col)) in fields.iter().zip(s.columns()).enumerate() {
                out.insert(
                    field.name().clone(),
                    field_value(col.as_ref(), row, decoder.member(i)),
                );
            }
            Value::Object(out)
        }
        DataType::Map(..) => {
            let entries = array.as_map().value(row);
            let (keys, values) = (entries.column(0), entries.column(1));
            let entry = decoder.member(0);
            let (key_decoder, value_decoder) = (entry.member(0), entry.member(1));
            let mut out = Map::new();
            for i in 0..entries.len() {
                let key = match field_value(keys.as_ref(), i, key_decoder) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                out.insert(key, field_value(values.as_ref(), i, value_decoder));
            }
            Value::Object(out)
        }
        DataType::Timestamp(unit, Some(_)) => instant(array, row, *unit),
        DataType::Interval(unit) => interval(array, row, *unit),
        DataType::Union(fields, _) => {
            let u = array.as_union();
            let tag = u.type_id(row);
            let found = fields.iter().enumerate().find(|(_, (id, _))| *id == tag);
            let field = found.map(|(_, (_, f))| f);
            let member_decoder = found.map_or(&PLAIN, |(i, _)| decoder.member(i));
            let member = field_value(u.child(tag).as_ref(), u.value_offset(row), member_decoder);
            match field {
                _ if member.is_null() => Value::Null,
                Some(field) => {
                    let mut out = Map::new();
                    out.insert(field.name().clone(), member);
                    Value::Object(out)
                }
                None => member,
            }
        }
        _ => formatted(array, row),
    }
}

/// An INTERVAL as the PostgreSQL backend renders one ([`iso_interval`]): an ISO 8601
/// duration of its months, days and microseconds, each part keeping its own sign, since DuckDB
/// (like PostgreSQL) keeps them apart: `INTERVAL '1 year 2 months 3 days 04:05:06'` is
/// `P1Y2M3DT4H5M6S`, `-(INTERVAL '14 months')` `P-1Y-2M`, zero `PT0S`. DuckDB counts in
/// microseconds, which Arrow carries as nanoseconds.
fn interval(array: &dyn Array, row: usize, unit: dt::IntervalUnit) -> Value {
    let (months, days, micros) = match unit {
        dt::IntervalUnit::YearMonth => (
            array.as_primitive::<dt::IntervalYearMonthType>().value(row),
            0,
            0,
        ),
        dt::IntervalUnit::DayTime => {
            let v = array.as_primitive::<dt::IntervalDayTimeType>().value(row);
            (0, v.days, i64::from(v.milliseconds) * 1000)
        }
        dt::IntervalUnit::MonthDayNano => {
            let v = array
                .as_primitive::<dt::IntervalMonthDayNanoType>()
                .value(row);
            (v.months, v.days, v.nanoseconds / 1000)
        }
    };
    Value::String(iso_interval(months, days, micros))
}

/// A TIMESTAMPTZ as RFC 3339 in UTC (`...Z`): Arrow's formatter needs a time zone database for
/// DuckDB's `UTC`, which this build leaves out.
fn instant(array: &dyn Array, row: usize, unit: dt::TimeUnit) -> Value {
    use chrono::DateTime;
    let at = match unit {
        dt::TimeUnit::Second => DateTime::from_timestamp(
            array.as_primitive::<dt::TimestampSecondType>().value(row),
            0,
        ),
        dt::TimeUnit::Millisecond => DateTime::from_timestamp_millis(
            array
                .as_primitive::<dt::TimestampMillisecondType>()
                .value(row),
        ),
        dt::TimeUnit::Microsecond => DateTime::from_timestamp_micros(
            array
                .as_primitive::<dt::TimestampMicrosecondType>()
                .value(row),
        ),
        dt::TimeUnit::Nanosecond => Some(DateTime::from_timestamp_nanos(
            array
                .as_primitive::<dt::TimestampNanosecondType>()
                .value(row),
        )),
    };
    match at {
        Some(t) => Value::String(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        None => formatted(array, row),
    }
}

/// A list's items, each decoded as the list's item field declares (`decoder` is the list's).
fn list(items: &dyn Array, decoder: &Decoder) -> Value {
    let item = decoder.member(0);
    Value::Array(
        (0..items.len())
            .map(|i| field_value(items, i, item))
            .collect(),
    )
}

fn float(f: f64) -> Value {
    Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or_else(|| Value::String(f.to_string()))
}

fn base64(bytes: &[u8]) -> Value {
    Value::String(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// Arrow's text for the value (decimals exact, ISO dates and times, ENUM labels, unions).
fn formatted(array: &dyn Array, row: usize) -> Value {
    let options = FormatOptions::default()
        .with_null("")
        .with_display_error(true);
    match ArrayFormatter::try_new(array, &options) {
        Ok(f) => Value::String(f.value(row).to_string()),
        Err(e) => Value::String(format!("<{}: {e}>", array.data_type())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_beyond_2_pow_53_are_strings() {
        assert_eq!(integer(42), Value::from(42));
        assert_eq!(integer(-(1 << 53)), Value::from(-(1_i64 << 53)));
        assert_eq!(
            integer((1 << 53) + 1),
            Value::String("9007199254740993".into())
        );
        assert_eq!(integer(i128::MAX), Value::String(i128::MAX.to_string()));
    }

    #[test]
    fn non_finite_floats_are_strings() {
        assert_eq!(float(1.5), Value::from(1.5));
        assert_eq!(float(f64::NAN), Value::String("NaN".into()));
        assert_eq!(float(f64::INFINITY), Value::String("inf".into()));
    }
}
