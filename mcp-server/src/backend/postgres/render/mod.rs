//! PostgreSQL values to JSON, decoded by type from the binary wire format.
//!
//! Integers and floats are numbers; numeric is a number when it fits an f64 exactly and a string
//! otherwise; date/time types are ISO 8601; interval is an ISO 8601 duration; uuid, inet, enums and
//! text types are strings; json/jsonb are JSON; arrays are (nested) arrays; bytea is base64;
//! composites are objects (anonymous records keyed `f1`, `f2`, ... with each field decoded by the
//! type it carries); ranges are their text form. Anything else is its UTF-8 text when the
//! bytes are text, base64 otherwise. No type makes rendering fail.

use base64::Engine;
use chrono::{Duration as ChronoDuration, NaiveDate, NaiveDateTime, NaiveTime};
use postgres_protocol::types as pt;
use serde_json::{Map, Value};
use tokio_postgres::types::{FromSql, Kind, Type};

use crate::backend::interval::iso_interval;

/// A column value captured raw, whatever its type.
#[derive(Debug)]
pub struct RawValue<'a> {
    /// The raw binary value; `None` for NULL.
    pub raw: Option<&'a [u8]>,
}

impl<'a> FromSql<'a> for RawValue<'a> {
    fn from_sql(
        _ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawValue { raw: Some(raw) })
    }

    fn from_sql_null(_ty: &Type) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(RawValue { raw: None })
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }
}

fn b64(raw: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(raw)
}

/// Text when the bytes are printable UTF-8, base64 otherwise.
fn fallback(raw: &[u8]) -> Value {
    match std::str::from_utf8(raw) {
        Ok(s)
            if !s
                .chars()
                .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) =>
        {
            Value::String(s.to_string())
        }
        _ => Value::String(b64(raw)),
    }
}

fn pg_epoch() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2000, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .unwrap_or_default()
}

fn timestamp(micros: i64) -> Option<NaiveDateTime> {
    pg_epoch().checked_add_signed(ChronoDuration::microseconds(micros))
}

fn iso_ts(ts: NaiveDateTime) -> String {
    ts.format("%Y-%m-%dT%H:%M:%S%.f").to_string()
}

fn time_of(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let t = NaiveTime::from_num_seconds_from_midnight_opt(
        u32::try_from(secs.rem_euclid(86_400)).unwrap_or(0),
        u32::try_from(frac * 1000).unwrap_or(0),
    )
    .unwrap_or_default();
    if secs == 86_400 {
        return "24:00:00".to_string();
    }
    t.format("%H:%M:%S%.f").to_string()
}

/// Decodes a binary numeric into its exact decimal text.
pub fn numeric_text(raw: &[u8]) -> Option<String> {
    let word =
        |i: usize| -> Option<i16> { raw.get(i..i + 2).map(|b| i16::from_be_bytes([b[0], b[1]])) };
    let ndigits = usize::try_from(word(0)?).ok()?;
    let weight = i32::from(word(2)?);
    let sign = u16::from_be_bytes([*raw.get(4)?, *raw.get(5)?]);
    let dscale = usize::try_from(word(6)?).ok()?;
    match sign {
        0xC000 => return Some("NaN".into()),
        0xD000 => return Some("Infinity".into()),
        0xF000 => return Some("-Infinity".into()),
        _ => {}
    }
    let mut digits = Vec::with_capacity(ndigits);
    for i in 0..ndigits {
        digits.push(word(8 + 2 * i)?);
    }
    // Integer part: groups with weight >= 0.
    let mut int_part = String::new();
    let mut w = weight;
    let mut idx: i32 = 0;
    while w >= 0 {
        let d = usize::try_from(idx)
            .ok()
            .and_then(|i| digits.get(i))
            .copied()
            .unwrap_or(0);
        if int_part.is_empty() {
            if d != 0 {
                int_part = d.to_string();
            }
        } else {
            int_part.push_str(&format!("{d:04}"));
        }
        w -= 1;
        idx += 1;
    }
    if int_part.is_empty() {
        int_part.push('0');
    }
    let mut frac = String::new();
    if dscale > 0 {
        // Fraction groups: weight -1, -2, ...; digits index = weight_index.
        let mut g = -1;
        while frac.len() < dscale {
            let d = if weight >= g {
                usize::try_from(weight - g)
                    .ok()
                    .and_then(|p| digits.get(p))
                    .copied()
                    .unwrap_or(0)
            } else {
                0
            };
            frac.push_str(&format!("{d:04}"));
            g -= 1;
        }
        frac.truncate(dscale);
    }
    let neg = sign == 0x4000;
    let mut s = String::new();
    if neg {
        s.push('-');
    }
    s.push_str(&int_part);
    if !frac.is_empty() {
        s.push('.');
        s.push_str(&frac);
    }
    Some(s)
}

/// A numeric as a JSON number when an f64 holds it exactly (15 significant digits), else a string.
fn numeric_value(text: String) -> Value {
    let significant = text.chars().filter(|c| c.is_ascii_digit()).count();
    if significant <= 15 {
        if let Ok(f) = text.parse::<f64>() {
            if let Some(n) = serde_json::Number::from_f64(f) {
                if text.contains('.') {
                    return Value::Number(n);
                }
                if let Ok(i) = text.parse::<i64>() {
                    return Value::from(i);
                }
            }
        }
    }
    Value::String(text)
}

fn be_i64(raw: &[u8], at: usize) -> Option<i64> {
    raw.get(at..at + 8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(i64::from_be_bytes)
}

fn be_i32(raw: &[u8], at: usize) -> Option<i32> {
    raw.get(at..at + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(i32::from_be_bytes)
}

fn inet(raw: &[u8], is_cidr_type: bool) -> Option<String> {
    let family = *raw.first()?;
    let bits = *raw.get(1)?;
    let n = usize::from(*raw.get(3)?);
    let addr = raw.get(4..4 + n)?;
    let (text, full) = match (family, n) {
        (2, 4) => (
            std::net::Ipv4Addr::new(addr[0], addr[1], addr[2], addr[3]).to_string(),
            32,
        ),
        (3, 16) => {
            let mut a = [0u8; 16];
            a.copy_from_slice(addr);
            (std::net::Ipv6Addr::from(a).to_string(), 128)
        }
        _ => return None,
    };
    if is_cidr_type || bits != full {
        Some(format!("{text}/{bits}"))
    } else {
        Some(text)
    }
}

/// Renders one value of type `ty` (never fails).
pub fn render(ty: &Type, raw: Option<&[u8]>) -> Value {
    match raw {
        None => Value::Null,
        Some(raw) => decode(ty, raw).unwrap_or_else(|| fallback(raw)),
    }
}

fn decode(ty: &Type, raw: &[u8]) -> Option<Value> {
    match ty.kind() {
        Kind::Array(elem) => return array(elem, raw),
        Kind::Enum(_) => return Some(fallback(raw)),
        Kind::Domain(base) => return decode(base, raw),
        Kind::Composite(fields) => return composite(fields, raw),
        Kind::Range(sub) => return range(sub, raw),
        _ if *ty == Type::RECORD => return record(raw),
        _ => {}
    }
    match *ty {
        Type::DATE
        | Type::TIME
        | Type::TIMETZ
        | Type::TIMESTAMP
        | Type::TIMESTAMPTZ
        | Type::INTERVAL => temporal(ty, raw),
        Type::INET
        | Type::CIDR
        | Type::MACADDR
        | Type::MACADDR8
        | Type::MONEY
        | Type::BIT
        | Type::VARBIT
        | Type::POINT => special(ty, raw),
        _ => scalar(ty, raw),
    }
}

/// Booleans, numbers, text, JSON, uuid and bytea.
fn scalar(ty: &Type, raw: &[u8]) -> Option<Value> {
    let v = match *ty {
        Type::BOOL => Value::Bool(*raw.first()? != 0),
        Type::INT2 => Value::from(i16::from_sql(ty, raw).ok()?),
        Type::INT4 => Value::from(i32::from_sql(ty, raw).ok()?),
        Type::INT8 => Value::from(i64::from_sql(ty, raw).ok()?),
        Type::OID | Type::XID | Type::CID | Type::REGPROC | Type::REGTYPE | Type::REGCLASS => {
            Value::from(u32::from_be_bytes(raw.get(0..4)?.try_into().ok()?))
        }
        Type::FLOAT4 | Type::FLOAT8 => {
            let f = if *ty == Type::FLOAT4 {
                f64::from(f32::from_sql(ty, raw).ok()?)
            } else {
                f64::from_sql(ty, raw).ok()?
            };
            serde_json::Number::from_f64(f)
                .map(Value::Number)
                .unwrap_or_else(|| Value::String(f.to_string()))
        }
        Type::NUMERIC => numeric_value(numeric_text(raw)?),
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN | Type::XML => {
            Value::String(String::from_utf8_lossy(raw).into_owned())
        }
        Type::CHAR => Value::String(String::from_utf8_lossy(raw).into_owned()),
        Type::JSON => serde_json::from_slice(raw).ok()?,
        Type::JSONB => serde_json::from_slice(raw.get(1..)?).ok()?,
        Type::UUID => Value::String(uuid::Uuid::from_slice(raw).ok()?.hyphenated().to_string()),
        Type::BYTEA => Value::String(b64(raw)),
        _ => return None,
    };
    Some(v)
}

/// Dates, times, timestamps and intervals.
fn temporal(ty: &Type, raw: &[u8]) -> Option<Value> {
    let v = match *ty {
        Type::DATE => {
            let days = be_i32(raw, 0)?;
            match days {
                i32::MAX => Value::String("infinity".into()),
                i32::MIN => Value::String("-infinity".into()),
                d => Value::String(
                    pg_epoch()
                        .date()
                        .checked_add_signed(ChronoDuration::days(i64::from(d)))?
                        .format("%Y-%m-%d")
                        .to_string(),
                ),
            }
        }
        Type::TIME => Value::String(time_of(be_i64(raw, 0)?)),
        Type::TIMETZ => {
            let t = time_of(be_i64(raw, 0)?);
            let west = be_i32(raw, 8)?;
            let east = -west;
            let sign = if east < 0 { '-' } else { '+' };
            let a = east.abs();
            Value::String(format!("{t}{sign}{:02}:{:02}", a / 3600, (a % 3600) / 60))
        }
        Type::TIMESTAMP | Type::TIMESTAMPTZ => {
            let us = be_i64(raw, 0)?;
            match us {
                i64::MAX => Value::String("infinity".into()),
                i64::MIN => Value::String("-infinity".into()),
                us => {
                    let ts = timestamp(us)?;
                    if *ty == Type::TIMESTAMPTZ {
                        Value::String(format!("{}Z", iso_ts(ts)))
                    } else {
                        Value::String(iso_ts(ts))
                    }
                }
            }
        }
        Type::INTERVAL => Value::String(iso_interval(
            be_i32(raw, 12)?,
            be_i32(raw, 8)?,
            be_i64(raw, 0)?,
        )),
        _ => return None,
    };
    Some(v)
}

/// Network addresses, money, bit strings and points.
fn special(ty: &Type, raw: &[u8]) -> Option<Value> {
    let v = match *ty {
        Type::INET => Value::String(inet(raw, false)?),
        Type::CIDR => Value::String(inet(raw, true)?),
        Type::MACADDR | Type::MACADDR8 => Value::String(
            raw.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(":"),
        ),
        Type::MONEY => {
            let cents = be_i64(raw, 0)?;
            let sign = if cents < 0 { "-" } else { "" };
            let a = cents.unsigned_abs();
            Value::String(format!("{sign}{}.{:02}", a / 100, a % 100))
        }
        Type::BIT | Type::VARBIT => {
            let len = usize::try_from(be_i32(raw, 0)?).ok()?;
            let bytes = raw.get(4..)?;
            let mut s = String::with_capacity(len);
            for i in 0..len {
                let byte = bytes.get(i / 8)?;
                s.push(if byte & (0x80 >> (i % 8)) != 0 {
                    '1'
                } else {
                    '0'
                });
            }
            Value::String(s)
        }
        Type::POINT => {
            let x = f64::from_be_bytes(raw.get(0..8)?.try_into().ok()?);
            let y = f64::from_be_bytes(raw.get(8..16)?.try_into().ok()?);
            Value::String(format!("({x},{y})"))
        }
        _ => return None,
    };
    Some(v)
}

fn array(elem: &Type, raw: &[u8]) -> Option<Value> {
    let arr = pt::array_from_sql(raw).ok()?;
    use fallible_iterator::FallibleIterator;
    let dims: Vec<usize> = arr
        .dimensions()
        .map(|d| Ok(usize::try_from(d.len).unwrap_or(0)))
        .collect()
        .ok()?;
    let values: Vec<Value> = arr.values().map(|v| Ok(render(elem, v))).collect().ok()?;
    if dims.is_empty() {
        return Some(Value::Array(Vec::new()));
    }
    fn nest(dims: &[usize], values: &mut std::vec::IntoIter<Value>) -> Value {
        match dims.split_first() {
            None => values.next().unwrap_or(Value::Null),
            Some((n, [])) => Value::Array(values.by_ref().take(*n).collect()),
            Some((n, rest)) => Value::Array((0..*n).map(|_| nest(rest, values)).collect()),
        }
    }
    Some(nest(&dims, &mut values.into_iter()))
}

/// A field of a composite: its type's OID and its bytes (`None`: NULL).
type RecordField<'a> = (u32, Option<&'a [u8]>);

/// A composite's fields in the binary form: the count, then for each field its type's OID, its
/// length (`-1`: NULL) and its bytes.
fn record_fields(raw: &[u8]) -> Option<Vec<RecordField<'_>>> {
    let count = usize::try_from(be_i32(raw, 0)?).ok()?;
    let mut at = 4;
    let mut fields = Vec::with_capacity(count.min(raw.len() / 8));
    for _ in 0..count {
        let oid = u32::from_be_bytes(raw.get(at..at + 4)?.try_into().ok()?);
        let len = be_i32(raw, at + 4)?;
        at += 8;
        let bytes = if len < 0 {
            None
        } else {
            let n = usize::try_from(len).ok()?;
            let bytes = raw.get(at..at.checked_add(n)?)?;
            at += n;
            Some(bytes)
        };
        fields.push((oid, bytes));
    }
    Some(fields)
}

/// A named composite: an object keyed by its fields' names.
fn composite(fields: &[tokio_postgres::types::Field], raw: &[u8]) -> Option<Value> {
    let mut map = Map::new();
    for (i, (oid, bytes)) in record_fields(raw)?.into_iter().enumerate() {
        let value = match fields.get(i) {
            Some(f) => render(f.type_(), bytes),
            None => anonymous_field(oid, bytes),
        };
        let name = fields
            .get(i)
            .map(|f| f.name().to_string())
            .unwrap_or_else(|| format!("f{}", i + 1));
        map.insert(name, value);
    }
    Some(Value::Object(map))
}

/// An anonymous `record` (a row of a derived table, `ROW(...)`): an object keyed `f1`, `f2`, ...
/// as PostgreSQL's own `to_json` names them, each field decoded by the type OID it carries.
fn record(raw: &[u8]) -> Option<Value> {
    let map = record_fields(raw)?
        .into_iter()
        .enumerate()
        .map(|(i, (oid, bytes))| (format!("f{}", i + 1), anonymous_field(oid, bytes)))
        .collect();
    Some(Value::Object(map))
}

/// A field known only by its type OID: decoded when the type is built in, its text (or
/// base64) otherwise.
fn anonymous_field(oid: u32, bytes: Option<&[u8]>) -> Value {
    match (Type::from_oid(oid), bytes) {
        (_, None) => Value::Null,
        (Some(ty), bytes) => render(&ty, bytes),
        (None, Some(bytes)) => fallback(bytes),
    }
}

fn range(sub: &Type, raw: &[u8]) -> Option<Value> {
    fn bound_text(sub: &Type, b: pt::RangeBound<Option<&[u8]>>) -> (String, Option<bool>) {
        let text = |v: Option<&[u8]>| match render(sub, v) {
            Value::String(s) => s,
            Value::Null => String::new(),
            other => other.to_string(),
        };
        match b {
            pt::RangeBound::Inclusive(v) => (text(v), Some(true)),
            pt::RangeBound::Exclusive(v) => (text(v), Some(false)),
            pt::RangeBound::Unbounded => (String::new(), None),
        }
    }
    match pt::range_from_sql(raw).ok()? {
        pt::Range::Empty => Some(Value::String("empty".into())),
        pt::Range::Nonempty(lo, hi) => {
            let (l, li) = bound_text(sub, lo);
            let (h, hi_inc) = bound_text(sub, hi);
            let open = if li == Some(true) { '[' } else { '(' };
            let close = if hi_inc == Some(true) { ']' } else { ')' };
            Some(Value::String(format!("{open}{l},{h}{close}")))
        }
    }
}

#[cfg(test)]
mod tests;
