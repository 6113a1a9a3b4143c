//! Refusals about names in table position: files, system catalogs, tables the policy does not
//! allow or the catalog does not have.

use sqlparser::ast::ObjectName;

use super::refusal;
use crate::error::{ErrorCode, GuardError, Location};

/// `FROM 'file.csv'`: a string literal in table position.
pub(in crate::validate) fn file_path_as_table(
    name: &ObjectName,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::TableNotAllowed,
        format!("{name} is a file path or URL, not a table"),
        "read from a table by name",
        location,
    )
}

/// A table name that is not made of identifiers.
pub(in crate::validate) fn computed_table_name(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "a computed table name",
        "name the table itself in FROM",
        location,
    )
}

/// A name in table position that the engine reads as something else (`reason`).
pub(in crate::validate) fn not_a_table(
    name: &ObjectName,
    reason: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::TableNotAllowed,
        format!("`{name}` {reason}, not a table"),
        "read from a table by its name",
        location,
    )
}

/// A system catalog table or view.
pub(in crate::validate) fn system_catalog(
    name: &ObjectName,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::SystemCatalog,
        format!("`{name}` is a system catalog"),
        "query the application's tables; system catalogs are not open to queries",
        location,
    )
}

/// A table the policy does not allow, with an allowed one of a close name when there is one.
pub(in crate::validate) fn table_not_allowed(
    name: &ObjectName,
    suggestion: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    let hint = match suggestion {
        Some(s) => format!("use an allowed table such as `{s}`"),
        None => "use a table the policy allows".to_string(),
    };
    refusal(
        ErrorCode::TableNotAllowed,
        format!("table `{name}` is not allowed by the policy"),
        hint,
        location,
    )
}

/// A table the catalog does not have, with a close name when there is one.
pub(in crate::validate) fn unknown_table(
    name: &ObjectName,
    suggestion: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    let hint = match suggestion {
        Some(s) => format!("did you mean `{s}`?"),
        None => "check the table name; the catalog has no such table".to_string(),
    };
    refusal(
        ErrorCode::UnknownTable,
        format!("table `{name}` does not exist"),
        hint,
        location,
    )
}

/// A view or system catalog read while row filters are in force: it reads its tables unfiltered.
pub(in crate::validate) fn view_under_row_filters(
    name: &ObjectName,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::RowFilter,
        format!(
            "`{name}` is a view or system catalog, and this policy filters rows: it would read \
             its tables without the filters"
        ),
        "read the tables themselves instead of the view",
        location,
    )
}
