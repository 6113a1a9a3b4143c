//! `--sample N`: a text column whose name suggested nothing is read (its first N non-null
//! values, through the guard and the backend's read-only path) and tested against value patterns
//! (e-mail, IP, payment card with its Luhn digit, IBAN with its check digits, phone). Only the
//! counts reach the draft; the values are never printed.

use std::time::Duration;

use sqlgate::{Dialect, Guard, Policy};

use super::guess::Guess;
use crate::backend::{Backend, QueryLimits, TableDetail};

/// At least this share of the sampled values must match a pattern.
const MIN_SHARE: f64 = 0.8;

/// Whether `data_type` holds text (the only columns sampled).
pub fn is_text(data_type: &str) -> bool {
    let t = data_type.to_lowercase();
    ["char", "text", "string", "clob"]
        .iter()
        .any(|n| t.contains(n))
}

/// The category `n` sampled values of `column` suggest, if any.
pub async fn by_values(
    backend: &Backend,
    table: &TableDetail,
    column: &str,
    n: u64,
) -> Result<Option<Guess>, String> {
    let values = sample(backend, table, column, n).await?;
    Ok(judge(&values))
}

/// A category, what its values are called, and the test of one value.
type Pattern = (&'static str, &'static str, fn(&str) -> bool);

/// The category most of `values` match, with the counts as the reason.
pub fn judge(values: &[String]) -> Option<Guess> {
    if values.is_empty() {
        return None;
    }
    let patterns: [Pattern; 5] = [
        ("EMAIL_ADDRESS", "e-mail addresses", is_email),
        ("CREDIT_CARD", "payment card numbers", is_card),
        ("IBAN", "IBANs", is_iban),
        ("IP_ADDRESS", "IP addresses", is_ip),
        ("PHONE_NUMBER", "phone numbers", is_phone),
    ];
    for (category, what, matches) in patterns {
        let hits = values.iter().filter(|v| matches(v.trim())).count();
        if hits as f64 >= MIN_SHARE * values.len() as f64 {
            return Some(Guess {
                category,
                reason: format!("{hits} of {} sampled values look like {what}", values.len()),
            });
        }
    }
    None
}

/// The first `n` non-null values of `column`, as text: the query is checked by the guard (a
/// default policy of the engine's dialect) and runs read-only like any approved read.
async fn sample(
    backend: &Backend,
    table: &TableDetail,
    column: &str,
    n: u64,
) -> Result<Vec<String>, String> {
    let dialect: Dialect = backend.dialect();
    let q = |s: &str| dialect.quote_identifier(s);
    let from = match &table.schema {
        Some(s) => format!("{}.{}", q(s), q(&table.name)),
        None => q(&table.name),
    };
    let col = q(column);
    let sql = format!("SELECT {col} FROM {from} WHERE {col} IS NOT NULL LIMIT {n}");
    let guard = Guard::new(Policy::for_dialect(dialect)).map_err(|e| e.to_string())?;
    let approved = guard.check(&sql).map_err(|r| r.error.message.clone())?;
    let limits = QueryLimits {
        max_rows: Some(n),
        max_bytes: 4 << 20,
        timeout: Duration::from_secs(30),
    };
    let result = backend
        .execute(&approved.sql, limits)
        .await
        .map_err(|e| e.to_string())?;
    Ok(result
        .rows
        .iter()
        .filter_map(|r| r.values().next())
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect())
}

fn is_email(v: &str) -> bool {
    let Some((local, domain)) = v.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !v.chars().any(char::is_whitespace)
}

fn is_ip(v: &str) -> bool {
    v.parse::<std::net::IpAddr>().is_ok()
}

fn digits(v: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for c in v.chars() {
        match c {
            '0'..='9' => out.push(c.to_digit(10)?),
            ' ' | '-' => {}
            _ => return None,
        }
    }
    Some(out)
}

fn is_card(v: &str) -> bool {
    let Some(d) = digits(v) else { return false };
    if !(13..=19).contains(&d.len()) {
        return false;
    }
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &x)| match (i % 2, x * 2) {
            (1, y) if y > 9 => y - 9,
            (1, y) => y,
            _ => x,
        })
        .sum();
    sum % 10 == 0
}

fn is_iban(v: &str) -> bool {
    let s: String = v.chars().filter(|c| *c != ' ').collect();
    let b = s.as_bytes();
    if !(15..=34).contains(&b.len())
        || !b[..2].iter().all(u8::is_ascii_uppercase)
        || !b[2..4].iter().all(u8::is_ascii_digit)
        || !b.iter().all(u8::is_ascii_alphanumeric)
    {
        return false;
    }
    let rearranged = s[4..].chars().chain(s[..4].chars());
    let mut rem: u32 = 0;
    for c in rearranged {
        let Some(n) = c.to_digit(36) else {
            return false;
        };
        rem = if n >= 10 {
            (rem * 100 + n) % 97
        } else {
            (rem * 10 + n) % 97
        };
    }
    rem == 1
}

fn is_phone(v: &str) -> bool {
    let allowed = |c: char| c.is_ascii_digit() || " +()-./".contains(c);
    let n = v.chars().filter(char::is_ascii_digit).count();
    let separated = v.starts_with('+') || v.contains(' ') || v.contains('(') || v.contains('-');
    // A date (2009-01-01) has digits and dashes too.
    let date = v.len() >= 10 && v.as_bytes()[4] == b'-' && v.as_bytes()[7] == b'-';
    v.chars().all(allowed) && (7..=15).contains(&n) && separated && !date
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(values: &[&str]) -> Option<&'static str> {
        let v: Vec<String> = values.iter().map(|s| s.to_string()).collect();
        judge(&v).map(|g| g.category)
    }

    #[test]
    fn patterns() {
        assert_eq!(
            judged(&["a@b.co", "x.y@z.org", "p@q.io"]),
            Some("EMAIL_ADDRESS")
        );
        assert_eq!(
            judged(&["+55 (12) 3923-5555", "+1 (780) 434-4554"]),
            Some("PHONE_NUMBER")
        );
        assert_eq!(
            judged(&["4111 1111 1111 1111", "5500-0000-0000-0004"]),
            Some("CREDIT_CARD")
        );
        assert_eq!(
            judged(&["GB82 WEST 1234 5698 7654 32", "DE89370400440532013000"]),
            Some("IBAN")
        );
        assert_eq!(
            judged(&["10.0.0.1", "::1", "192.168.1.20"]),
            Some("IP_ADDRESS")
        );
        assert_eq!(judged(&["2009-01-01 00:00:00", "2010-02-03"]), None);
        assert_eq!(judged(&["Rock", "Jazz", "a@b.co"]), None);
        assert_eq!(judged(&["4111 1111 1111 1112"]), None);
        assert_eq!(judged(&[]), None);
    }

    #[test]
    fn text_types() {
        assert!(is_text("NVARCHAR(40)") && is_text("character varying(60)") && is_text("TEXT"));
        assert!(!is_text("integer") && !is_text("NUMERIC(10,2)"));
    }
}
