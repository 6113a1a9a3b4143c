//! Refusals about PII categories: a column tagged with a blocked category, and a masked column
//! used where its mask cannot stand in for it.

use super::refusal;
use crate::access::ResolvedTable;
use crate::error::{ErrorCode, GuardError, Location};

/// What the agent may ask instead of a refused column of `table`: its open columns when the
/// catalog lists them.
fn instead(table: &ResolvedTable, column: &str) -> String {
    let open: Vec<&str> = table
        .columns
        .iter()
        .flat_map(|cols| cols.iter())
        .filter(|c| !table.protected.contains(c))
        .map(|c| table.spelling(c))
        .collect();
    let masked: Vec<&str> = table
        .pii
        .iter()
        .filter(|(_, why)| why.mask().is_some())
        .map(|(c, _)| table.spelling(c))
        .collect();
    let masked = match masked.as_slice() {
        [] => String::new(),
        some => format!(
            " ({} only masked, as plain columns of the outermost select list)",
            some.join(", ")
        ),
    };
    let open = match table.columns {
        Some(_) if open.is_empty() => return format!("remove `{column}` from the query{masked}"),
        Some(_) => open.join(", "),
        None => "its other columns".to_string(),
    };
    format!(
        "remove `{column}` from the query; of `{}` you may ask for {open}{masked}",
        table.display
    )
}

/// A column tagged with a category `pii.block` refuses.
pub(in crate::validate) fn blocked_column(
    table: &ResolvedTable,
    column: &str,
    category: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!(
            "{}.{column} is tagged {category}, which this policy refuses",
            table.display
        ),
        instead(table, column),
        location,
    )
}

/// A masked column used other than as a plain column of the outermost select list.
pub(in crate::validate) fn masked_column(
    table: &ResolvedTable,
    column: &str,
    category: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    let tagged = category.map_or(String::new(), |c| format!(" (tagged {c})"));
    refusal(
        ErrorCode::MaskedColumn,
        format!(
            "{}.{column}{tagged} is masked: it may only be selected as a plain column of the \
             outermost select list, where the database masks it",
            table.display
        ),
        format!(
            "select `{column}` as it is in the outermost select list to get it masked; do not \
             filter, join, group, sort, compute or aggregate on it, nor read it in a subquery, \
             CTE or set operation"
        ),
        location,
    )
}

/// A `*` or whole-row reference (`what`) over `table`, whose protected columns are all masked.
pub(in crate::validate) fn masked_in_row(
    what: &str,
    table: &ResolvedTable,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::MaskedColumn,
        format!(
            "{what} reads every column of `{}`, which has masked columns",
            table.display
        ),
        "list the columns you need in the outermost select list; masked ones come back masked",
        location,
    )
}

/// A masked column in the select list of a SELECT DISTINCT.
pub(in crate::validate) fn masked_under_distinct(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::MaskedColumn,
        "a masked column in the select list of SELECT DISTINCT",
        "drop DISTINCT, or the masked column",
        location,
    )
}
