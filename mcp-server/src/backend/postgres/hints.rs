//! What the agent can do about an error PostgreSQL raised on approved SQL, read from its
//! SQLSTATE and, where it helps, the SQL that ran.

use crate::backend::hints::{group_by, qualify, unknown_column};
use crate::backend::DbError;

/// The hint for `error`, raised by PostgreSQL on `sql`; `None` when no rule knows it.
pub fn for_error(error: &DbError, sql: &str) -> Option<String> {
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

/// The text between `prefix` and the next `"` in `message`.
fn quoted<'m>(message: &'m str, prefix: &str) -> Option<&'m str> {
    message.split(prefix).nth(1)?.split('"').next()
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
        let hint = for_error(&e, "SELECT 1 FROM t WHERE c = \"Pune\"");
        assert!(hint.is_some_and(|h| h.contains("single quotes ('Pune')")));
        let e = pg("42703", "column \"nmae\" does not exist");
        let hint = for_error(&e, "SELECT nmae FROM t");
        assert!(hint.is_some_and(|h| h.contains("describe_table")));
    }

    #[test]
    fn unknown_errors_get_no_hint() {
        let e = pg("XX000", "internal error");
        assert_eq!(for_error(&e, "SELECT 1"), None);
    }
}
