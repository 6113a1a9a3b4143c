//! What an agent can use instead of a function its dialect does not have or allow: the
//! agent-facing hint of `function_not_allowed`. The advice for operators (`functions.allow`)
//! lives in the README and the MCP server's log, never in the hint: an agent cannot change the
//! policy, and for a denied function it would be the wrong advice.
//!
//! Every function an entry suggests is on that dialect's allowlist (checked by
//! `functions/tests.rs`). It lives beside the dialects because it is a fact about each one:
//! which functions its engine lacks and what does their job there.

use super::Dialect;

/// One missing function and what does its job in the listed dialects.
struct Equivalent {
    dialects: &'static [Dialect],
    missing: &'static str,
    instead: &'static str,
}

const PG: &[Dialect] = &[Dialect::Postgres];
const LITE: &[Dialect] = &[Dialect::Sqlite];
const DUCK: &[Dialect] = &[Dialect::Duckdb];
const PG_DUCK: &[Dialect] = &[Dialect::Postgres, Dialect::Duckdb];

const EQUIVALENTS: &[Equivalent] = &[
    // SQLite: dates are text, formatted with strftime.
    e(
        LITE,
        "date_trunc",
        "use strftime('%Y-%m-01', d) (or another strftime format) to truncate a date",
    ),
    e(
        LITE,
        "date_part",
        "use strftime('%Y', d) (%m month, %d day, %H hour) to take a date part",
    ),
    e(LITE, "to_char", "use strftime(format, d) to format a date"),
    e(
        LITE,
        "date_format",
        "use strftime(format, d) to format a date",
    ),
    e(LITE, "year", "use strftime('%Y', d) for the year"),
    e(LITE, "month", "use strftime('%m', d) for the month"),
    e(LITE, "day", "use strftime('%d', d) for the day"),
    e(LITE, "now", "use datetime('now') for the current time"),
    e(LITE, "getdate", "use datetime('now') for the current time"),
    e(LITE, "sysdate", "use datetime('now') for the current time"),
    e(LITE, "to_date", "use date(text) to read a date"),
    e(
        LITE,
        "to_timestamp",
        "use datetime(text) to read a timestamp",
    ),
    e(
        LITE,
        "datediff",
        "use julianday(a) - julianday(b) for the days between two dates",
    ),
    e(
        LITE,
        "age",
        "use julianday(a) - julianday(b) for the days between two dates",
    ),
    e(
        LITE,
        "left",
        "use substr(s, 1, n) for the first n characters",
    ),
    e(LITE, "right", "use substr(s, -n) for the last n characters"),
    e(LITE, "len", "use length(s)"),
    e(LITE, "char_length", "use length(s)"),
    e(LITE, "nvl", "use coalesce(a, b)"),
    e(LITE, "isnull", "use coalesce(a, b)"),
    e(
        LITE,
        "array_agg",
        "use json_group_array(x) to collect values",
    ),
    e(LITE, "greatest", "use max(a, b) (SQLite's scalar max)"),
    e(LITE, "least", "use min(a, b) (SQLite's scalar min)"),
    e(LITE, "position", "use instr(s, sub) to find a substring"),
    e(LITE, "strpos", "use instr(s, sub) to find a substring"),
    e(
        LITE,
        "current_user",
        "SQLite has no users, so there is no current user to read",
    ),
    e(
        LITE,
        "session_user",
        "SQLite has no users, so there is no current user to read",
    ),
    // PostgreSQL (and DuckDB where it lacks the name too).
    e(PG, "group_concat", "use string_agg(x, ',') to join values"),
    e(PG, "ifnull", "use coalesce(a, b)"),
    e(PG_DUCK, "nvl", "use coalesce(a, b)"),
    e(PG, "isnull", "use coalesce(a, b)"),
    e(PG, "iif", "use CASE WHEN ... THEN ... ELSE ... END"),
    e(PG, "if", "use CASE WHEN ... THEN ... ELSE ... END"),
    e(PG, "date_format", "use to_char(d, format) to format a date"),
    e(PG, "strftime", "use to_char(d, format) to format a date"),
    e(
        PG,
        "datediff",
        "use date_part('day', a - b) for the days between two dates",
    ),
    e(PG, "getdate", "use now() for the current time"),
    e(PG, "sysdate", "use now() for the current time"),
    e(PG, "datetime", "use now() or a cast such as x::timestamp"),
    e(
        PG,
        "julianday",
        "use date_part('epoch', d) / 86400 for days as a number",
    ),
    e(PG, "year", "use date_part('year', d)"),
    e(PG, "month", "use date_part('month', d)"),
    e(PG, "day", "use date_part('day', d)"),
    e(PG, "len", "use length(s)"),
    e(PG, "instr", "use strpos(s, sub) to find a substring"),
    e(PG, "charindex", "use strpos(s, sub) to find a substring"),
    e(PG, "locate", "use strpos(s, sub) to find a substring"),
    e(PG, "substring_index", "use split_part(s, delimiter, n)"),
    e(PG, "ucase", "use upper(s)"),
    e(PG, "lcase", "use lower(s)"),
    e(PG, "rand", "use random()"),
    e(
        PG,
        "json_extract",
        "use the -> and ->> operators (x -> 'key') or jsonb_extract_path(x, 'key')",
    ),
    e(DUCK, "getdate", "use now() for the current time"),
    e(DUCK, "sysdate", "use now() for the current time"),
    e(DUCK, "isnull", "use coalesce(a, b)"),
];

const fn e(
    dialects: &'static [Dialect],
    missing: &'static str,
    instead: &'static str,
) -> Equivalent {
    Equivalent {
        dialects,
        missing,
        instead,
    }
}

/// What to use in `dialect` instead of `function` (lower-case, unqualified), when there is an
/// equivalent (or a statement that there is none).
pub(crate) fn instead_of(dialect: Dialect, function: &str) -> Option<&'static str> {
    EQUIVALENTS
        .iter()
        .find(|eq| eq.missing == function && eq.dialects.contains(&dialect))
        .map(|eq| eq.instead)
}

/// Every entry, for the test that each suggestion is allowed in its dialect.
#[cfg(test)]
pub(crate) fn all() -> impl Iterator<Item = (Dialect, &'static str, &'static str)> {
    EQUIVALENTS.iter().flat_map(|eq| {
        eq.dialects
            .iter()
            .map(move |&d| (d, eq.missing, eq.instead))
    })
}
