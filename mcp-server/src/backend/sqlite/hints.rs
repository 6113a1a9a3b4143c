//! What the agent can do about an error SQLite raised on approved SQL: the guard accepts some
//! syntax SQLite rejects (it has no `::`, `EXTRACT` or `ILIKE`), and SQLite's messages are its
//! only stable errors.

use sqlgate::Dialect;

use crate::backend::hints::{group_by, qualify, unknown_column};

/// The hint for an error with `message`, raised by SQLite on `sql`; `None` when no rule knows it.
pub fn for_error(message: &str, sql: &str) -> Option<String> {
    let upper = sql.to_ascii_uppercase();
    if let Some(column) = named(message, "ambiguous column name: ") {
        return Some(qualify(Some(column)));
    }
    if let Some(column) = named(message, "no such column: ") {
        return Some(unknown_column(Some(column), sql));
    }
    if let Some(function) = named(message, "no such function: ") {
        let instead = Dialect::Sqlite.equivalent_of(&function.to_ascii_lowercase());
        return Some(match instead {
            Some(instead) => format!("SQLite has no {function}: {instead}"),
            None => format!("SQLite has no function {function}"),
        });
    }
    if message.contains("unrecognized token: \":\"") || sql.contains("::") {
        return Some("SQLite has no `::` cast: write CAST(x AS type)".to_string());
    }
    if message.contains("syntax error") {
        if upper.contains("ILIKE") {
            return Some(
                "SQLite has no ILIKE: LIKE already ignores the case of ASCII letters".to_string(),
            );
        }
        if upper.contains("EXTRACT") {
            return Some(
                "SQLite has no EXTRACT: use strftime('%Y', d) for the year ('%m' month, '%d' day)"
                    .to_string(),
            );
        }
        return Some(
            "SQLite rejected this syntax: write the query in SQLite's dialect".to_string(),
        );
    }
    if message.contains("misuse of aggregate") {
        return Some(group_by());
    }
    None
}

/// The name after `prefix` in SQLite's `message` (which may go on with ` in <sql> at offset N`).
fn named<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    message.split(prefix).nth(1)?.split_whitespace().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_errors_get_no_hint() {
        assert_eq!(for_error("disk I/O error", "SELECT 1"), None);
    }
}
