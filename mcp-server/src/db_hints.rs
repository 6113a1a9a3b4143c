//! What the agent can do about an error the database raised on approved SQL. The guard accepts
//! some syntax its dialect's engine rejects (SQLite has no `::`, `EXTRACT` or `ILIKE`), and some
//! mistakes only the engine sees (an ambiguous column, a string written in double quotes, a
//! function given the wrong types). Without a hint the agent gets a raw engine message; with one
//! it can fix the query in one turn. Each rule reads the engine's stable error (PostgreSQL's
//! SQLSTATE, SQLite's message) and, where it helps, the SQL that ran.

use sqlgate::Dialect;

use crate::backend::DbError;

/// The hint for `error`, raised by the engine of `dialect` on `sql`; `None` when no rule knows it.
pub fn for_engine_error(dialect: Dialect, error: &DbError, sql: &str) -> Option<String> {
    match dialect {
        Dialect::Postgres => postgres(error, sql),
        Dialect::Sqlite => sqlite(&error.message, sql),
        _ => None,
    }
}

fn postgres(error: &DbError, sql: &str) -> Option<String> {
    let message = error.message.as_str();
    let hint = match error.sqlstate.as_deref()? {
        "42702" => qualify(quoted(message, "column reference \"")),
        "42703" => unknown_column(quoted(message, "column \""), sql),
        "42883" if message.contains("operator does not exist") => {
            "the two sides have different types: cast one of them (x::text, x::integer, \
             CAST(x AS numeric))"
                .to_string()
        }
        "42883" => "no version of this function takes these argument types: cast the arguments \
                    (for example round(x::numeric, 2))"
            .to_string(),
        "42804" | "42846" => "a value has the wrong type here: cast it (x::text, x::integer, \
                              CAST(x AS date))"
            .to_string(),
        "22P02" | "22007" | "22008" => "a literal does not read as the type it is compared with: \
            write numbers without quotes and dates as 'YYYY-MM-DD'"
            .to_string(),
        "22012" => "division by zero: divide by NULLIF(divisor, 0) to get NULL instead".to_string(),
        "42803" => group_by(),
        "21000" => "a sub-query used as a value returned more than one row: narrow it with \
                    WHERE, aggregate it, or compare with IN / EXISTS"
            .to_string(),
        "42P01" => "no such table: call list_tables to see the tables".to_string(),
        "42601" => {
            "PostgreSQL rejected this syntax: write the query in PostgreSQL's dialect".to_string()
        }
        _ => return None,
    };
    Some(hint)
}

fn sqlite(message: &str, sql: &str) -> Option<String> {
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

/// The text between `prefix` and the next `"` in `message`.
fn quoted<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    message.split(prefix).nth(1)?.split('"').next()
}

fn qualify(column: Option<&str>) -> String {
    match column {
        Some(c) => format!(
            "more than one table in FROM has a column `{c}`: qualify it with its table or alias \
             (t.{c})"
        ),
        None => {
            "a column name is ambiguous: qualify it with its table or alias (t.column)".to_string()
        }
    }
}

/// An unknown column, or a string written in double quotes (which name columns in SQL).
fn unknown_column(column: Option<&str>, sql: &str) -> String {
    if let Some(column) = column {
        if let Some(written) = double_quoted(sql, column) {
            return format!(
                "\"{written}\" is read as a column name: write strings in single quotes \
                 ('{written}')"
            );
        }
    }
    "check the column name: call describe_table to see the table's columns".to_string()
}

/// The text of a double-quoted identifier in `sql` that names `column` (any case).
fn double_quoted<'s>(sql: &'s str, column: &str) -> Option<&'s str> {
    sql.split('"')
        .skip(1)
        .step_by(2)
        .find(|inner| inner.eq_ignore_ascii_case(column))
}

fn group_by() -> String {
    "every selected column must be in GROUP BY or inside an aggregate (count, sum, max, ...)"
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::DbErrorCode;

    fn pg(sqlstate: &str, message: &str) -> DbError {
        let mut e = DbError::new(DbErrorCode::DatabaseError, message);
        e.sqlstate = Some(sqlstate.to_string());
        e
    }

    #[test]
    fn double_quoted_strings_are_told_apart_from_unknown_columns() {
        let e = pg("42703", "column \"Pune\" does not exist");
        let hint = for_engine_error(Dialect::Postgres, &e, "SELECT 1 FROM t WHERE c = \"Pune\"");
        assert!(hint.is_some_and(|h| h.contains("single quotes ('Pune')")));
        let e = pg("42703", "column \"nmae\" does not exist");
        let hint = for_engine_error(Dialect::Postgres, &e, "SELECT nmae FROM t");
        assert!(hint.is_some_and(|h| h.contains("describe_table")));
    }

    #[test]
    fn unknown_errors_get_no_hint() {
        let e = pg("XX000", "internal error");
        assert_eq!(for_engine_error(Dialect::Postgres, &e, "SELECT 1"), None);
        let e = DbError::new(DbErrorCode::DatabaseError, "disk I/O error");
        assert_eq!(for_engine_error(Dialect::Sqlite, &e, "SELECT 1"), None);
    }
}
