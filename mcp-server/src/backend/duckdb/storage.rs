//! DuckDB's own storage of the types Arrow carries as opaque bytes: TIMETZ, BIGNUM and BIT, read
//! into the text DuckDB prints for them.

use duckdb::arrow::array::{Array, AsArray};
use duckdb::arrow::datatypes::DataType;

/// The `N` bytes of a fixed-size binary value, or `None` for another layout.
pub(super) fn fixed<const N: usize>(array: &dyn Array, row: usize) -> Option<[u8; N]> {
    match array.data_type() {
        DataType::FixedSizeBinary(_) => array.as_fixed_size_binary().value(row).try_into().ok(),
        _ => None,
    }
}

/// DuckDB's TIMETZ storage as DuckDB's own text: the microseconds of the day in the high 40 bits,
/// the offset in seconds east of UTC in the low 24, stored as 15:59:59 minus it; the time as
/// `HH:MM:SS` with the fraction's trailing zeros dropped, the offset as `+HH`, then `:MM` and
/// `:SS` only when not zero (`12:34:56+02`, `00:00:00.5-05:30`).
pub(super) fn time_tz(bits: u64) -> String {
    const MAX_OFFSET: i64 = 16 * 60 * 60 - 1;
    let micros = bits >> 24;
    let offset = MAX_OFFSET - i64::try_from(bits & 0xFF_FFFF).unwrap_or(0);
    let (secs, frac) = (micros / 1_000_000, micros % 1_000_000);
    let mut out = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if frac != 0 {
        let digits = format!("{frac:06}");
        out.push('.');
        out.push_str(digits.trim_end_matches('0'));
    }
    let abs = offset.unsigned_abs();
    out.push(if offset < 0 { '-' } else { '+' });
    out.push_str(&format!("{:02}", abs / 3600));
    let (mm, ss) = (abs / 60 % 60, abs % 60);
    if mm != 0 || ss != 0 {
        out.push_str(&format!(":{mm:02}"));
    }
    if ss != 0 {
        out.push_str(&format!(":{ss:02}"));
    }
    out
}

/// DuckDB's BIGNUM storage as its decimal digits: a 3-byte header (its top bit set for a value
/// at least zero, the rest the byte count) then the magnitude, most significant byte first; a
/// negative value has every byte inverted.
pub(super) fn bignum(raw: &[u8]) -> Option<String> {
    let (header, data) = raw.split_at_checked(3)?;
    let negative = header.first()? & 0x80 == 0;
    let magnitude: Vec<u8> = if negative {
        data.iter().map(|b| !b).collect()
    } else {
        data.to_vec()
    };
    // Base 10^9 limbs, least significant first, built by multiplying in each byte.
    let mut limbs: Vec<u32> = vec![0];
    for byte in magnitude {
        let mut carry = u64::from(byte);
        for limb in &mut limbs {
            let v = u64::from(*limb) * 256 + carry;
            *limb = u32::try_from(v % 1_000_000_000).ok()?;
            carry = v / 1_000_000_000;
        }
        while carry > 0 {
            limbs.push(u32::try_from(carry % 1_000_000_000).ok()?);
            carry /= 1_000_000_000;
        }
    }
    let mut digits = String::new();
    let mut rest = limbs.iter().rev();
    digits.push_str(&rest.next()?.to_string());
    for limb in rest {
        digits.push_str(&format!("{limb:09}"));
    }
    if negative && digits != "0" {
        digits.insert(0, '-');
    }
    Some(digits)
}

/// The bytes of a binary value, whichever Arrow layout carries them.
pub(super) fn bytes(array: &dyn Array, row: usize) -> Option<&[u8]> {
    match array.data_type() {
        DataType::Binary => Some(array.as_binary::<i32>().value(row)),
        DataType::LargeBinary => Some(array.as_binary::<i64>().value(row)),
        DataType::BinaryView => Some(array.as_binary_view().value(row)),
        _ => None,
    }
}

/// DuckDB's BIT storage as its bit string: the first byte counts the padding bits that open the
/// second byte; the bits after them, most significant first, are the value (`'101'::BIT` is
/// `[5, 0b1111_1101]`).
pub(super) fn bit_string(raw: &[u8]) -> Option<String> {
    let (&padding, data) = raw.split_first()?;
    let padding = usize::from(padding);
    if padding > 7 || (data.is_empty() && padding != 0) {
        return None;
    }
    let bits = (0..data.len() * 8).skip(padding).map(|i| {
        let set = data.get(i / 8).is_some_and(|b| b & (0x80 >> (i % 8)) != 0);
        if set {
            '1'
        } else {
            '0'
        }
    });
    Some(bits.collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_strings() {
        assert_eq!(bit_string(&[5, 0b1111_1101]).as_deref(), Some("101"));
        assert_eq!(
            bit_string(&[0, 0x80, 0x01]).as_deref(),
            Some("1000000000000001")
        );
        assert_eq!(bit_string(&[7, 0xFE]).as_deref(), Some("0"));
        assert_eq!(bit_string(&[]), None);
        assert_eq!(bit_string(&[8, 0]), None);
    }

    /// TIMETZ storage: micros << 24 | (15:59:59 - offset seconds).
    fn tz(micros: u64, offset: i64) -> String {
        let biased = u64::try_from(57_599 - offset).unwrap();
        time_tz(micros << 24 | biased)
    }

    #[test]
    fn time_tz_as_duckdb_prints_it() {
        let hms = |h: u64, m: u64, s: u64| ((h * 60 + m) * 60 + s) * 1_000_000;
        assert_eq!(tz(hms(12, 34, 56), 7200), "12:34:56+02");
        assert_eq!(
            tz(hms(12, 34, 56) + 789_000, -(5 * 3600 + 30 * 60)),
            "12:34:56.789-05:30"
        );
        assert_eq!(tz(0, 0), "00:00:00+00");
        assert_eq!(tz(500_000, 0), "00:00:00.5+00");
        assert_eq!(tz(hms(24, 0, 0), -57_599), "24:00:00-15:59:59");
        assert_eq!(tz(hms(12, 0, 0) + 10, 30), "12:00:00.00001+00:00:30");
        assert_eq!(tz(hms(23, 59, 59) + 1, 57_599), "23:59:59.000001+15:59:59");
        // DuckDB's own bytes for TIMETZ '13:14:15.25+05:30'.
        let raw = u64::from_le_bytes([167, 147, 0, 80, 104, 121, 24, 11]);
        assert_eq!(time_tz(raw), "13:14:15.25+05:30");
    }

    #[test]
    fn bignums_as_digits() {
        // DuckDB's own bytes for -123456789012345678901234567890.
        let raw = [
            127, 255, 242, 254, 113, 22, 240, 9, 60, 140, 31, 17, 177, 192, 245, 45,
        ];
        assert_eq!(
            bignum(&raw).as_deref(),
            Some("-123456789012345678901234567890")
        );
        assert_eq!(bignum(&[0x80, 0, 1, 0]).as_deref(), Some("0"));
        assert_eq!(bignum(&[0x80, 0, 2, 0x3B, 0x9A]).as_deref(), Some("15258"));
        assert_eq!(bignum(&[0x80, 0, 1, 42]).as_deref(), Some("42"));
        assert_eq!(bignum(&[0x7F, 0xFF, 0xFE, 0xFE]).as_deref(), Some("-1"));
        assert_eq!(bignum(&[0x80, 0]), None);
    }
}
