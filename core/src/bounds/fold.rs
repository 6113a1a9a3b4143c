//! Folding of literal sizes: numbers (with signs, parentheses, casts and arithmetic between
//! literals), dates and timestamps (in days) and intervals (in days, a month counted as 28 and a
//! year as 365 so that a series is never under-counted). Anything else does not fold: the guard
//! cannot bound what it cannot compute.

use sqlparser::ast::{BinaryOperator, DataType, Expr, UnaryOperator, Value};

/// A number the guard can compute from literals alone, or `None`.
pub(crate) fn number(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            // MySQL and SQLite convert a numeric string where a number is expected.
            Value::SingleQuotedString(s) => s.trim().parse().ok(),
            // A NULL size gives NULL: nothing is allocated.
            Value::Null => Some(0.0),
            _ => None,
        },
        Expr::UnaryOp { op, expr } => match op {
            UnaryOperator::Minus => number(expr).map(|n| -n),
            UnaryOperator::Plus => number(expr),
            _ => None,
        },
        Expr::Nested(inner) => number(inner),
        Expr::Cast { expr, .. } => number(expr),
        Expr::BinaryOp { left, op, right } => {
            let (l, r) = (number(left)?, number(right)?);
            let n = match op {
                BinaryOperator::Plus => l + r,
                BinaryOperator::Minus => l - r,
                BinaryOperator::Multiply => l * r,
                BinaryOperator::Divide | BinaryOperator::MyIntegerDivide => l / r,
                BinaryOperator::PGExp => l.powf(r),
                _ => return None,
            };
            // NaN (0/0) folds to nothing; an infinity stays, and refuses as too large.
            (!n.is_nan()).then_some(n)
        }
        _ => None,
    }
}

/// A date or timestamp literal, in days since 1970-01-01: `DATE '2024-01-01'`,
/// `'2024-01-01'::date`, `CAST('2024-01-01 10:00' AS TIMESTAMP)`, or a bare string that reads
/// as one (PostgreSQL resolves `generate_series('2024-01-01', ...)` to timestamps).
pub(crate) fn instant(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => days_of(s),
            _ => None,
        },
        Expr::TypedString(t) if is_time_type(&t.data_type) => match &t.value.value {
            Value::SingleQuotedString(s) => days_of(s),
            _ => None,
        },
        Expr::Cast {
            expr, data_type, ..
        } if is_time_type(data_type) => instant(expr),
        Expr::Nested(inner) => instant(inner),
        _ => None,
    }
}

fn is_time_type(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Date
            | DataType::Datetime(_)
            | DataType::Timestamp(..)
            | DataType::TimestampNtz(_)
    )
}

/// `YYYY-MM-DD[ T]HH:MM[:SS[.fff]]` (anything after the seconds is ignored) in days.
fn days_of(text: &str) -> Option<f64> {
    let text = text.trim();
    let date = text.get(..10)?;
    let mut parts = date.split('-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: i64 = parts.next()?.parse().ok()?;
    let day: i64 = parts.next()?.parse().ok()?;
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut days = days_from_civil(year, month, day) as f64;
    let time = text[10..].trim_start_matches(['T', ' ']);
    let mut fields = time.split(':');
    if let (Some(h), Some(m)) = (fields.next(), fields.next()) {
        let h: f64 = h.parse().ok()?;
        let m: f64 = m.get(..2)?.parse().ok()?;
        days += (h * 60.0 + m) / 1440.0;
    }
    Some(days)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// An interval literal in days (`INTERVAL '1 day'`, `INTERVAL 1 DAY`, `'1 month'::interval`,
/// a bare `'1 hour'` string); a month counts as 28 days and a year as 365, the shortest, so that
/// the rows of a series are never under-counted.
pub(crate) fn interval(expr: &Expr) -> Option<f64> {
    match expr {
        Expr::Interval(i) => {
            let unit = i.leading_field.as_ref().map(ToString::to_string);
            match (&*i.value, unit) {
                (value, Some(unit)) => Some(number(value)? * unit_days(&unit)?),
                (Expr::Value(v), None) => match &v.value {
                    Value::SingleQuotedString(s) => interval_text(s),
                    _ => None,
                },
                _ => None,
            }
        }
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) => interval_text(s),
            _ => None,
        },
        Expr::TypedString(t) if matches!(t.data_type, DataType::Interval { .. }) => {
            match &t.value.value {
                Value::SingleQuotedString(s) => interval_text(s),
                _ => None,
            }
        }
        Expr::Cast {
            expr,
            data_type: DataType::Interval { .. },
            ..
        } => interval(expr),
        Expr::Nested(inner) => interval(inner),
        _ => None,
    }
}

/// `1 day`, `2 hours 30 minutes`, `1 mon`: pairs of a number and a unit.
fn interval_text(text: &str) -> Option<f64> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() || words.len() % 2 != 0 {
        return None;
    }
    words.chunks(2).try_fold(0.0, |total, pair| {
        let n: f64 = pair[0].parse().ok()?;
        Some(total + n * unit_days(pair[1])?)
    })
}

/// A unit's length in days (its shortest, for months and years).
fn unit_days(unit: &str) -> Option<f64> {
    let unit = unit.to_ascii_lowercase();
    // Plurals (`days`, `mins`); `ms` and `us` are units of their own.
    let unit = match unit.strip_suffix('s') {
        Some(singular) if unit.len() > 3 => singular,
        _ => unit.as_str(),
    };
    Some(match unit {
        "microsecond" | "us" => 1.0 / 86_400_000_000.0,
        "millisecond" | "ms" => 1.0 / 86_400_000.0,
        "second" | "sec" | "s" => 1.0 / 86_400.0,
        "minute" | "min" => 1.0 / 1440.0,
        "hour" | "hr" | "h" => 1.0 / 24.0,
        "day" | "d" => 1.0,
        "week" | "w" => 7.0,
        "month" | "mon" => 28.0,
        "quarter" => 89.0,
        "year" | "y" => 365.0,
        "decade" => 3652.0,
        "century" => 36_524.0,
        "millennium" | "millennia" => 365_242.0,
        _ => return None,
    })
}
