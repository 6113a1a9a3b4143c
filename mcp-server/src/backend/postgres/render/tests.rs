//! The renderer's decoding of binary values: numerics, inets, anonymous records.

use super::*;

#[test]
fn numerics() {
    // 1234.5600: ndigits 3, weight 0? use [1234, 5600] weight 0, dscale 4.
    let raw = [0, 2, 0, 0, 0, 0, 0, 4, 0x04, 0xD2, 0x15, 0xE0];
    assert_eq!(numeric_text(&raw).as_deref(), Some("1234.5600"));
    // 0.0012: ndigits 1, weight -1, dscale 4, digit 12.
    let raw = [0, 1, 0xFF, 0xFF, 0, 0, 0, 4, 0, 12];
    assert_eq!(numeric_text(&raw).as_deref(), Some("0.0012"));
    // -100000000: digits [1, 0, 0]? weight 2 with one digit 1 -> 1 0000 0000
    let raw = [0, 1, 0, 2, 0x40, 0, 0, 0, 0, 1];
    assert_eq!(numeric_text(&raw).as_deref(), Some("-100000000"));
    assert_eq!(
        numeric_value("12345678901234567890.5".into()),
        Value::String("12345678901234567890.5".into())
    );
    assert_eq!(numeric_value("1.5".into()), serde_json::json!(1.5));
    assert_eq!(numeric_value("42".into()), serde_json::json!(42));
}

#[test]
fn anonymous_records_are_objects_of_their_decoded_fields() {
    // ROW(7, 'a', NULL::int8): 3 fields; int4 7, text "a", int8 NULL.
    let mut raw = vec![0, 0, 0, 3];
    raw.extend([0, 0, 0, 23, 0, 0, 0, 4, 0, 0, 0, 7]);
    raw.extend([0, 0, 0, 25, 0, 0, 0, 1, b'a']);
    raw.extend([0, 0, 0, 20, 0xFF, 0xFF, 0xFF, 0xFF]);
    assert_eq!(
        render(&Type::RECORD, Some(&raw)),
        serde_json::json!({"f1": 7, "f2": "a", "f3": null})
    );
    // A field of a type PostgreSQL does not build in is its text.
    let user_type = [0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 2, b'o', b'k'];
    assert_eq!(
        render(&Type::RECORD, Some(&user_type)),
        serde_json::json!({"f1": "ok"})
    );
    // A truncated record is not decoded, but never fails.
    assert!(render(&Type::RECORD, Some(&raw[..10])).is_string());
}

#[test]
fn inets() {
    assert_eq!(
        inet(&[2, 32, 0, 4, 10, 0, 0, 1], false).as_deref(),
        Some("10.0.0.1")
    );
    assert_eq!(
        inet(&[2, 24, 1, 4, 10, 0, 0, 0], true).as_deref(),
        Some("10.0.0.0/24")
    );
}
