//! Refusals about the query's structure: locking and writing clauses, nested statements,
//! SELECT clauses and FROM constructs the validator does not check.

use sqlparser::ast::Expr;

use super::{refusal, unsupported};
use crate::access::ResolvedTable;
use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Location};

/// The node-count cross-check found a part of the tree the walker did not handle.
pub(in crate::validate) fn not_understood(location: Option<Location>) -> GuardError {
    unsupported(
        "a part of this query is not understood by the validator",
        location,
    )
}

/// The coverage check reached a node naming columns that the walker did not resolve: syntax
/// the walker does not model holds it, so what it reads was not checked.
pub(in crate::validate) fn unresolved_name(
    construct: &str,
    location: Option<Location>,
) -> GuardError {
    let shown = shorten(construct);
    refusal(
        ErrorCode::UnsupportedSyntax,
        format!(
            "`{shown}` is read by a construct the validator does not model, so what it reads \
             cannot be checked"
        ),
        "rewrite that part with plain column references in SELECT, WHERE, GROUP BY or ORDER BY",
        location,
    )
}

/// At most 60 characters of `text`, for a message.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}

/// `FOR UPDATE` / `FOR SHARE`.
pub(in crate::validate) fn locking_clause(
    lock: &dyn std::fmt::Display,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::LockingClause,
        format!("locking clause `{lock}` takes row locks"),
        "remove the FOR UPDATE / FOR SHARE clause",
        location,
    )
}

/// ClickHouse `SETTINGS` / `FORMAT`, BigQuery pipe operators.
pub(in crate::validate) fn query_settings_format_or_pipe(location: Option<Location>) -> GuardError {
    unsupported(
        "SETTINGS, FORMAT and pipe operators are not supported",
        location,
    )
}

/// INSERT / UPDATE / DELETE / MERGE as a query body (a data-modifying CTE).
pub(in crate::validate) fn data_modifying_body(
    keyword: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::DataModifyingCte,
        format!("a data-modifying statement ({keyword}) is nested inside the query"),
        "remove the INSERT / UPDATE / DELETE / MERGE; only reads may run",
        location,
    )
}

/// A whole statement inside an expression.
pub(in crate::validate) fn nested_statement(
    keyword: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::DataModifyingCte,
        format!("a statement ({keyword}) is nested inside the query"),
        "remove the nested statement; only reads may run",
        location,
    )
}

/// `TABLE` with no table name.
pub(in crate::validate) fn table_without_name() -> GuardError {
    unsupported("TABLE without a name", None)
}

/// `SELECT ... INTO target`.
pub(in crate::validate) fn select_into(
    into: &dyn std::fmt::Display,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::SelectInto,
        format!("`{into}` writes the result somewhere instead of returning it"),
        "remove the INTO clause",
        location,
    )
}

/// `TOP n` in a dialect whose engine does not read it as a row limit.
pub(in crate::validate) fn top_not_in_dialect(
    dialect: Dialect,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        format!("`TOP` is not {dialect} syntax: the engine would read it differently"),
        "use LIMIT instead of TOP",
        location,
    )
}

/// `/*+ ... */` optimizer hints.
pub(in crate::validate) fn optimizer_hints(location: Option<Location>) -> GuardError {
    unsupported("optimizer hints are not supported", location)
}

/// `@var := value`.
pub(in crate::validate) fn variable_assignment(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "`@var := value` assigns a user variable: it changes session state",
        "compare with `=` instead, or compute the value in the query",
        location,
    )
}

/// `USING ("expr")`: a name that is not an identifier.
pub(in crate::validate) fn using_computed_name(location: Option<Location>) -> GuardError {
    unsupported("a computed name in USING", location)
}

/// `USING (t.c)`.
pub(in crate::validate) fn using_qualified_name(location: Option<Location>) -> GuardError {
    unsupported("a qualified name in USING", location)
}

/// A NATURAL join whose shared columns may include a protected one.
pub(in crate::validate) fn natural_join_over_protected(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::ColumnNotAllowed,
        "NATURAL JOIN over a table with protected columns",
        "use JOIN ... ON with the columns you need",
        location,
    )
}

/// SQL Server `WITH (NOLOCK)`-style table hints.
pub(in crate::validate) fn table_hints(hints: &[Expr], location: Option<Location>) -> GuardError {
    let hints = hints
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    refusal(
        ErrorCode::LockingClause,
        format!("table hints `WITH ({hints})` may take locks"),
        "remove the WITH (...) table hint",
        location,
    )
}

/// `table AS t(a, b)` over a table with protected columns.
pub(in crate::validate) fn renamed_protected_columns(
    table: &ResolvedTable,
    location: Option<Location>,
) -> GuardError {
    if table.only_masked() {
        return super::masked_in_row("renaming its columns", table, location);
    }
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!(
            "renaming the columns of `{}`, which has protected columns",
            table.display
        ),
        "drop the column list after the alias and name the columns you need",
        location,
    )
}

/// `(a JOIN b) AS j` over a table with protected columns.
pub(in crate::validate) fn aliased_join_over_protected(location: Option<Location>) -> GuardError {
    unsupported(
        "an aliased parenthesised join over a table with protected columns",
        location,
    )
}

/// PIVOT, UNPIVOT, MATCH_RECOGNIZE, XMLTABLE, OPENJSON, semantic views.
pub(in crate::validate) fn unsupported_table_factor(location: Option<Location>) -> GuardError {
    unsupported(
        "PIVOT, UNPIVOT, MATCH_RECOGNIZE, XMLTABLE, OPENJSON and semantic views are not supported",
        location,
    )
}

/// A reference to a table outside FROM (inside an expression).
pub(in crate::validate) fn table_outside_from(location: Option<Location>) -> GuardError {
    unsupported("a table reference outside FROM", location)
}

/// Snowflake `TABLE('name')` / `TABLE($var)`.
pub(in crate::validate) fn table_chosen_at_run_time(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "TABLE(...) over a name or string reads a table chosen at run time",
        "name the table itself in FROM",
        location,
    )
}

/// Snowflake / Databricks `IDENTIFIER('name')`.
pub(in crate::validate) fn identifier_at_run_time(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "IDENTIFIER(...) names a table or column from a string at run time",
        "write the column or table name itself",
        location,
    )
}
