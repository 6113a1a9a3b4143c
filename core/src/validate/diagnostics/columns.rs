//! Refusals about columns and stars: protected, unknown, whole-row.

use sqlparser::ast::ObjectName;

use super::{blocked_column, masked_column, masked_in_row, refusal, unsupported};
use crate::access::{Protection, ResolvedTable};
use crate::error::{ErrorCode, GuardError, Location};

/// `x.*` where the qualifier is not made of identifiers.
pub(in crate::validate) fn computed_qualifier(location: Option<Location>) -> GuardError {
    unsupported("a computed qualifier", location)
}

/// `x.*` where no FROM item is named `x`.
pub(in crate::validate) fn star_names_no_table(
    name: &ObjectName,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::UnknownTable,
        format!("`{name}.*` names no table of this query"),
        "qualify `*` with a table name or alias from FROM",
        location,
    )
}

/// `*` over a catalog table with protected columns: the hint lists the `open` ones.
pub(in crate::validate) fn star_over_protected(
    table: &ResolvedTable,
    open: &[&str],
    qualifier: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    if table.only_masked() {
        return masked_in_row("`*`", table, location);
    }
    let columns: Vec<String> = match qualifier {
        Some(q) => open.iter().map(|c| format!("{q}.{c}")).collect(),
        None => open.iter().map(|c| c.to_string()).collect(),
    };
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!("`*` over `{}` includes a protected column", table.display),
        format!("list the columns you need: {}", columns.join(", ")),
        location,
    )
}

/// `*` over a table with protected columns whose columns are unknown.
pub(in crate::validate) fn star_on_restricted_table(
    table: &ResolvedTable,
    location: Option<Location>,
) -> GuardError {
    if table.only_masked() {
        return masked_in_row("`*`", table, location);
    }
    refusal(
        ErrorCode::StarOnRestrictedTable,
        format!("`*` over `{}`, which has protected columns", table.display),
        "list the columns you need",
        location,
    )
}

/// A column bound to `table` that the policy protects.
pub(in crate::validate) fn column_not_allowed(
    table: &ResolvedTable,
    column: &str,
    location: Option<Location>,
) -> GuardError {
    if let Some(refused) = pii_refusal(table, column, location) {
        return refused;
    }
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!(
            "column `{}.{column}` is protected by the policy",
            table.display
        ),
        "remove the protected column from the query",
        location,
    )
}

/// A name that `table`, whose columns may include it, protects.
pub(in crate::validate) fn column_may_be_protected(
    table: &ResolvedTable,
    column: &str,
    location: Option<Location>,
) -> GuardError {
    if let Some(refused) = pii_refusal(table, column, location) {
        return refused;
    }
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!(
            "`{column}` may refer to the protected column `{}.{column}`",
            table.display
        ),
        "remove the protected column from the query, and do not reuse its name for an alias or \
         another table's column",
        location,
    )
}

/// A bare table name or alias used as a value: the whole row of a table with protected columns.
pub(in crate::validate) fn whole_row_of_protected(
    name: &str,
    table: &ResolvedTable,
    location: Option<Location>,
) -> GuardError {
    if table.only_masked() {
        return masked_in_row(&format!("`{name}`"), table, location);
    }
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!(
            "`{name}` is a whole-row reference to `{}`, which has protected columns",
            table.display
        ),
        "list the columns you need",
        location,
    )
}

/// A bare double-quoted name that no table in scope has: in PostgreSQL, SQLite and standard SQL
/// double quotes name a column, so `city = "Pune"` is most likely a string in the wrong quotes.
pub(in crate::validate) fn double_quoted_string(
    text: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::UnknownColumn,
        format!("column `{text}` does not exist: double quotes name a column"),
        format!(
            "write strings in single quotes ('{}'); double quotes are for names",
            text.replace('\'', "''")
        ),
        location,
    )
}

/// A column that does not exist in `table` (or, without one, in any table of the query).
pub(in crate::validate) fn unknown_column(
    column: &str,
    table: Option<&str>,
    suggestion: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    let message = match table {
        Some(t) => format!("column `{column}` does not exist in `{t}`"),
        None => format!("column `{column}` does not exist in the tables of this query"),
    };
    let hint = match (suggestion, table) {
        (Some(s), _) => format!("did you mean `{s}`?"),
        (None, Some(t)) => format!("check the column name; `{t}` has no such column"),
        (None, None) => "check the column name; no table of this query has such a column".into(),
    };
    refusal(ErrorCode::UnknownColumn, message, hint, location)
}

/// The refusal of a column protected by a PII rule (blocked or masked), if it is.
fn pii_refusal(
    table: &ResolvedTable,
    column: &str,
    location: Option<Location>,
) -> Option<GuardError> {
    match table.protection(column) {
        Protection::Denied => None,
        Protection::Blocked(category) => Some(blocked_column(table, column, category, location)),
        Protection::Masked(_, category) => {
            Some(masked_column(table, column, category.as_deref(), location))
        }
    }
}
