//! MySQL / MariaDB values to JSON, by the column's type in the binary protocol: integers beyond
//! 2^53 are strings, JSON columns are JSON, bytes that are not UTF-8 are base64.

use base64::Engine;
use mysql_async::consts::{ColumnFlags, ColumnType};
use mysql_async::Column;
use serde_json::Value;

/// The column's type as MySQL names it (lower-case).
pub(super) fn type_name(c: &Column) -> String {
    let unsigned = c.flags().contains(ColumnFlags::UNSIGNED_FLAG);
    let binary = c.character_set() == 63;
    let name = match c.column_type() {
        ColumnType::MYSQL_TYPE_TINY => "tinyint",
        ColumnType::MYSQL_TYPE_SHORT => "smallint",
        ColumnType::MYSQL_TYPE_INT24 => "mediumint",
        ColumnType::MYSQL_TYPE_LONG => "int",
        ColumnType::MYSQL_TYPE_LONGLONG => "bigint",
        ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => "decimal",
        ColumnType::MYSQL_TYPE_FLOAT => "float",
        ColumnType::MYSQL_TYPE_DOUBLE => "double",
        ColumnType::MYSQL_TYPE_BIT => "bit",
        ColumnType::MYSQL_TYPE_YEAR => "year",
        ColumnType::MYSQL_TYPE_DATE | ColumnType::MYSQL_TYPE_NEWDATE => "date",
        ColumnType::MYSQL_TYPE_DATETIME | ColumnType::MYSQL_TYPE_DATETIME2 => "datetime",
        ColumnType::MYSQL_TYPE_TIMESTAMP | ColumnType::MYSQL_TYPE_TIMESTAMP2 => "timestamp",
        ColumnType::MYSQL_TYPE_TIME | ColumnType::MYSQL_TYPE_TIME2 => "time",
        ColumnType::MYSQL_TYPE_JSON => "json",
        ColumnType::MYSQL_TYPE_ENUM => "enum",
        ColumnType::MYSQL_TYPE_SET => "set",
        ColumnType::MYSQL_TYPE_GEOMETRY => "geometry",
        ColumnType::MYSQL_TYPE_NULL => "null",
        ColumnType::MYSQL_TYPE_TINY_BLOB
        | ColumnType::MYSQL_TYPE_MEDIUM_BLOB
        | ColumnType::MYSQL_TYPE_LONG_BLOB
        | ColumnType::MYSQL_TYPE_BLOB => {
            if binary {
                "blob"
            } else {
                "text"
            }
        }
        ColumnType::MYSQL_TYPE_VARCHAR | ColumnType::MYSQL_TYPE_VAR_STRING => {
            if binary {
                "varbinary"
            } else {
                "varchar"
            }
        }
        ColumnType::MYSQL_TYPE_STRING => {
            if c.flags().contains(ColumnFlags::ENUM_FLAG) {
                "enum"
            } else if c.flags().contains(ColumnFlags::SET_FLAG) {
                "set"
            } else if binary {
                "binary"
            } else {
                "char"
            }
        }
        _ => "unknown",
    };
    if unsigned {
        format!("{name} unsigned")
    } else {
        name.to_string()
    }
}

/// Integers beyond 2^53 lose digits as JSON numbers in most clients: they become strings.
fn integer<T: Into<i128> + Copy>(v: T) -> Value {
    let wide: i128 = v.into();
    if wide.unsigned_abs() <= (1u128 << 53) {
        i64::try_from(wide).map_or_else(|_| Value::String(wide.to_string()), Value::from)
    } else {
        Value::String(wide.to_string())
    }
}

/// One value of a binary-protocol row as JSON, by the column's type. Never fails: what has no
/// better form is text, or base64 for bytes that are not UTF-8.
pub(super) fn render(column: &Column, value: Option<&mysql_async::Value>, json: bool) -> Value {
    use mysql_async::Value as V;
    let Some(value) = value else {
        return Value::Null;
    };
    let kind = column.column_type();
    let binary = column.character_set() == 63;
    match value {
        V::NULL => Value::Null,
        V::Int(i) => integer(*i),
        V::UInt(u) => integer(*u),
        V::Float(f) => {
            serde_json::Number::from_f64(f64::from(*f)).map_or(Value::Null, Value::Number)
        }
        V::Double(d) => serde_json::Number::from_f64(*d).map_or(Value::Null, Value::Number),
        V::Date(y, mo, d, h, mi, s, us) => {
            if matches!(
                kind,
                ColumnType::MYSQL_TYPE_DATE | ColumnType::MYSQL_TYPE_NEWDATE
            ) {
                Value::String(format!("{y:04}-{mo:02}-{d:02}"))
            } else if *us > 0 {
                Value::String(format!(
                    "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{us:06}"
                ))
            } else {
                Value::String(format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"))
            }
        }
        V::Time(negative, days, h, mi, s, us) => {
            let sign = if *negative { "-" } else { "" };
            let hours = u64::from(*days) * 24 + u64::from(*h);
            if *us > 0 {
                Value::String(format!("{sign}{hours:02}:{mi:02}:{s:02}.{us:06}"))
            } else {
                Value::String(format!("{sign}{hours:02}:{mi:02}:{s:02}"))
            }
        }
        V::Bytes(bytes) => match kind {
            // Exact: the server's own digits, as a string (a JSON number would round).
            ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => {
                Value::String(String::from_utf8_lossy(bytes).into_owned())
            }
            ColumnType::MYSQL_TYPE_BIT => {
                // BIT(n) arrives big-endian; up to 64 bits.
                let n = bytes
                    .iter()
                    .fold(0u128, |acc, b| (acc << 8) | u128::from(*b));
                u64::try_from(n).map_or_else(|_| Value::String(n.to_string()), integer)
            }
            _ if json => serde_json::from_slice(bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned())),
            ColumnType::MYSQL_TYPE_GEOMETRY => {
                // MySQL's internal form: a 4-byte SRID, then WKB.
                Value::String(format!("wkb:{}", hex(bytes)))
            }
            _ if binary => Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
            _ => match std::str::from_utf8(bytes) {
                Ok(s) => Value::String(s.to_string()),
                Err(_) => Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
            },
        },
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_integers_become_strings() {
        assert_eq!(integer(42i64), Value::from(42));
        assert_eq!(integer(u64::MAX), Value::String(u64::MAX.to_string()));
        assert_eq!(
            integer(-(1i64 << 60)),
            Value::String((-(1i64 << 60)).to_string())
        );
    }
}
