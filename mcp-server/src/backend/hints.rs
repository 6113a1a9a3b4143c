//! The hints that several engines give for the same mistake, worded once: an ambiguous column, an
//! unknown one (or a string written in double quotes, which name columns in SQL), a column
//! neither grouped nor aggregated. The guard accepts some syntax its dialect's engine rejects and
//! some mistakes only the engine sees; with a hint the agent can fix the query in one turn. Each
//! engine's `hints` module reads its own errors and attaches the hint to the [`DbError`] it
//! returns (see [`super::Backend::execute`]).
//!
//! [`DbError`]: super::DbError

pub(crate) fn qualify(column: Option<&str>) -> String {
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
pub(crate) fn unknown_column(column: Option<&str>, sql: &str) -> String {
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

pub(crate) fn group_by() -> String {
    "every selected column must be in GROUP BY or inside an aggregate (count, sum, max, ...)"
        .to_string()
}
