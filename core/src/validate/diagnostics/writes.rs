//! Refusals particular to mutations: what may be modified, which columns written, and how many
//! rows a statement may touch.

use sqlparser::ast::{ObjectName, Statement};

use super::{refusal, unsupported};
use crate::access::ResolvedTable;
use crate::error::{ErrorCode, GuardError, Location};
use crate::names::closest;

/// A statement that reached the mutation walker without being INSERT, UPDATE, DELETE or MERGE.
pub(in crate::validate) fn not_a_mutation(
    statement: &Statement,
    location: Option<Location>,
) -> GuardError {
    let keyword = crate::validate::statement_keyword(statement);
    refusal(
        ErrorCode::StatementNotAllowed,
        format!("{keyword} is not an INSERT, UPDATE, DELETE or MERGE"),
        "send one INSERT, UPDATE, DELETE or MERGE",
        location,
    )
}

/// A clause of a mutation that the validator does not model.
pub(in crate::validate) fn mutation_clause(what: &str, location: Option<Location>) -> GuardError {
    unsupported(
        &format!("{what} is not supported in a checked mutation"),
        location,
    )
    .with_hint("write one plain INSERT, UPDATE, DELETE or MERGE on one table")
}

/// A mutation of more than one table (MySQL's multi-table UPDATE / DELETE, joins in the target).
pub(in crate::validate) fn several_targets(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "a mutation may modify one table, named alone after UPDATE / DELETE FROM",
        "name one target table, and move other tables to FROM / USING or a sub-query in WHERE",
        location,
    )
}

/// A FROM / USING / MERGE source aliased with the target's name: engines differ on which table
/// the statement then modifies.
pub(in crate::validate) fn alias_of_target(alias: &str, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        format!("a FROM item is aliased `{alias}`, the name of the table being modified"),
        "give the other table an alias that differs from the target's name",
        location,
    )
}

/// A target the catalog marks as a view.
pub(in crate::validate) fn view_as_target(
    name: &ObjectName,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::TableNotWritable,
        format!("`{name}` is a view; mutations may modify tables only"),
        "modify the underlying table listed in the policy's writes.tables",
        location,
    )
}

/// A target outside `writes.tables`.
pub(in crate::validate) fn table_not_writable(
    name: &ObjectName,
    writable: &[String],
    location: Option<Location>,
) -> GuardError {
    let wanted = name.0.last().map(|p| p.to_string()).unwrap_or_default();
    let hint = match closest(&wanted, writable.iter().map(String::as_str)) {
        Some(s) => format!(
            "did you mean `{s}`? Mutations may modify only: {}",
            writable.join(", ")
        ),
        None => format!("mutations may modify only: {}", writable.join(", ")),
    };
    refusal(
        ErrorCode::TableNotWritable,
        format!("table `{name}` may not be modified by the policy"),
        hint,
        location,
    )
}

/// A protected column as an assignment target, an INSERT column or a conflict target.
pub(in crate::validate) fn protected_column_written(
    table: &str,
    column: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!("column `{table}.{column}` is protected by the policy and may not be written"),
        "remove the protected column from the statement",
        location,
    )
}

/// A masked column written with a computed value: only a literal, NULL or a parameter may be
/// written to one.
pub(in crate::validate) fn masked_column_computed_write(
    table: &str,
    column: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::MaskedColumn,
        format!(
            "column `{table}.{column}` is masked: it may be set to a literal, NULL or a \
             parameter, not to a computed value"
        ),
        format!("write `{column}` as a literal value or NULL"),
        location,
    )
}

/// An INSERT without a column list (or MERGE's `INSERT ROW`) into a table with protected columns.
pub(in crate::validate) fn every_column_written(
    table: &str,
    protected: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!(
            "this writes every column of `{table}`, including the protected column `{protected}`"
        ),
        "list the columns to insert, leaving out the protected ones",
        location,
    )
}

/// A written column the catalog does not have.
pub(in crate::validate) fn unknown_written_column(
    table: &ResolvedTable,
    column: &str,
    location: Option<Location>,
) -> GuardError {
    let spelled = table.spelled_columns.as_deref().unwrap_or_default();
    let hint = match closest(column, spelled.iter().map(String::as_str)) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!(
            "check the column name; `{}` has no such column",
            table.display
        ),
    };
    refusal(
        ErrorCode::UnknownColumn,
        format!("column `{column}` does not exist in `{}`", table.display),
        hint,
        location,
    )
}

/// UPDATE / DELETE with no WHERE, or a WHERE that names no column.
pub(in crate::validate) fn unbounded_mutation(
    has_where: bool,
    location: Option<Location>,
) -> GuardError {
    let message = if has_where {
        "the WHERE clause names no column, so it selects every row or none"
    } else {
        "UPDATE / DELETE without WHERE changes every row of the table"
    };
    refusal(
        ErrorCode::UnboundedMutation,
        message,
        "add a WHERE clause on the target's columns that selects the rows to change (e.g. its key)",
        location,
    )
}
