//! Every refusal the validator can give, one named constructor each: a code's message and hint
//! are written here once, and the walker only says which refusal applies and where.

use sqlparser::ast::{Expr, ObjectName};

use crate::access::ResolvedTable;
use crate::dialect::Dialect;
use crate::error::{ErrorCode, GuardError, Location, Stage};

use super::calls::{FunctionUse, MAX_SERIES_ROWS};

/// A validate-stage refusal with its hint and location.
fn refusal(
    code: ErrorCode,
    message: impl Into<String>,
    hint: impl Into<String>,
    location: Option<Location>,
) -> GuardError {
    GuardError::new(code, Stage::Validate, message)
        .with_hint(hint)
        .at(location)
}

/// The hint of most unsupported constructs.
const PLAIN_SELECT_HINT: &str =
    "rewrite the query with plain SELECT ... FROM ... JOIN ... WHERE constructs";

/// A construct the validator does not check, so it does not let it through.
fn unsupported(what: &str, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        what,
        PLAIN_SELECT_HINT,
        location,
    )
}

// ---- the whole query ----

/// The node-count cross-check found a part of the tree the walker did not handle.
pub(super) fn not_understood(location: Option<Location>) -> GuardError {
    unsupported(
        "a part of this query is not understood by the validator",
        location,
    )
}

/// `FOR UPDATE` / `FOR SHARE`.
pub(super) fn locking_clause(lock: &dyn std::fmt::Display, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::LockingClause,
        format!("locking clause `{lock}` takes row locks"),
        "remove the FOR UPDATE / FOR SHARE clause",
        location,
    )
}

/// ClickHouse `SETTINGS` / `FORMAT`, BigQuery pipe operators.
pub(super) fn query_settings_format_or_pipe(location: Option<Location>) -> GuardError {
    unsupported(
        "SETTINGS, FORMAT and pipe operators are not supported",
        location,
    )
}

/// INSERT / UPDATE / DELETE / MERGE as a query body (a data-modifying CTE).
pub(super) fn data_modifying_body(keyword: &str, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::DataModifyingCte,
        format!("a data-modifying statement ({keyword}) is nested inside the query"),
        "remove the INSERT / UPDATE / DELETE / MERGE; only reads may run",
        location,
    )
}

/// A whole statement inside an expression.
pub(super) fn nested_statement(keyword: &str, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::DataModifyingCte,
        format!("a statement ({keyword}) is nested inside the query"),
        "remove the nested statement; only reads may run",
        location,
    )
}

/// `TABLE` with no table name.
pub(super) fn table_without_name() -> GuardError {
    unsupported("TABLE without a name", None)
}

// ---- SELECT clauses ----

/// `SELECT ... INTO target`.
pub(super) fn select_into(into: &dyn std::fmt::Display, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::SelectInto,
        format!("`{into}` writes the result somewhere instead of returning it"),
        "remove the INTO clause",
        location,
    )
}

/// `TOP n` in a dialect whose engine does not read it as a row limit.
pub(super) fn top_not_in_dialect(dialect: Dialect, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        format!("`TOP` is not {dialect} syntax: the engine would read it differently"),
        "use LIMIT instead of TOP",
        location,
    )
}

/// `/*+ ... */` optimizer hints.
pub(super) fn optimizer_hints(location: Option<Location>) -> GuardError {
    unsupported("optimizer hints are not supported", location)
}

/// `@var := value`.
pub(super) fn variable_assignment(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "`@var := value` assigns a user variable: it changes session state",
        "compare with `=` instead, or compute the value in the query",
        location,
    )
}

// ---- FROM items ----

/// `USING ("expr")`: a name that is not an identifier.
pub(super) fn using_computed_name(location: Option<Location>) -> GuardError {
    unsupported("a computed name in USING", location)
}

/// `USING (t.c)`.
pub(super) fn using_qualified_name(location: Option<Location>) -> GuardError {
    unsupported("a qualified name in USING", location)
}

/// A NATURAL join whose shared columns may include a protected one.
pub(super) fn natural_join_over_protected(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::ColumnNotAllowed,
        "NATURAL JOIN over a table with protected columns",
        "use JOIN ... ON with the columns you need",
        location,
    )
}

/// SQL Server `WITH (NOLOCK)`-style table hints.
pub(super) fn table_hints(hints: &[Expr], location: Option<Location>) -> GuardError {
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
pub(super) fn renamed_protected_columns(
    table: &ResolvedTable,
    location: Option<Location>,
) -> GuardError {
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
pub(super) fn aliased_join_over_protected(location: Option<Location>) -> GuardError {
    unsupported(
        "an aliased parenthesised join over a table with protected columns",
        location,
    )
}

/// PIVOT, UNPIVOT, MATCH_RECOGNIZE, XMLTABLE, OPENJSON, semantic views.
pub(super) fn unsupported_table_factor(location: Option<Location>) -> GuardError {
    unsupported(
        "PIVOT, UNPIVOT, MATCH_RECOGNIZE, XMLTABLE, OPENJSON and semantic views are not supported",
        location,
    )
}

/// A reference to a table outside FROM (inside an expression).
pub(super) fn table_outside_from(location: Option<Location>) -> GuardError {
    unsupported("a table reference outside FROM", location)
}

/// Snowflake `TABLE('name')` / `TABLE($var)`.
pub(super) fn table_chosen_at_run_time(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "TABLE(...) over a name or string reads a table chosen at run time",
        "name the table itself in FROM",
        location,
    )
}

/// Snowflake / Databricks `IDENTIFIER('name')`.
pub(super) fn identifier_at_run_time(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "IDENTIFIER(...) names a table or column from a string at run time",
        "write the column or table name itself",
        location,
    )
}

// ---- tables ----

/// `FROM 'file.csv'`: a string literal in table position.
pub(super) fn file_path_as_table(name: &ObjectName, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::TableNotAllowed,
        format!("{name} is a file path or URL, not a table"),
        "read from a table by name",
        location,
    )
}

/// A table name that is not made of identifiers.
pub(super) fn computed_table_name(location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnsupportedSyntax,
        "a computed table name",
        "name the table itself in FROM",
        location,
    )
}

/// A name in table position that the engine reads as something else (`reason`).
pub(super) fn not_a_table(
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
pub(super) fn system_catalog(name: &ObjectName, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::SystemCatalog,
        format!("`{name}` is a system catalog"),
        "query the application's tables; system catalogs are not open to queries",
        location,
    )
}

/// A table the policy does not allow, with an allowed one of a close name when there is one.
pub(super) fn table_not_allowed(
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
pub(super) fn unknown_table(
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

// ---- columns and stars ----

/// `x.*` where the qualifier is not made of identifiers.
pub(super) fn computed_qualifier(location: Option<Location>) -> GuardError {
    unsupported("a computed qualifier", location)
}

/// `x.*` where no FROM item is named `x`.
pub(super) fn star_names_no_table(name: &ObjectName, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::UnknownTable,
        format!("`{name}.*` names no table of this query"),
        "qualify `*` with a table name or alias from FROM",
        location,
    )
}

/// `*` over a catalog table with protected columns: the hint lists the `open` ones.
pub(super) fn star_over_protected(
    table: &ResolvedTable,
    open: &[&str],
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!("`*` over `{}` includes a protected column", table.display),
        format!("list the columns you need: {}", open.join(", ")),
        location,
    )
}

/// `*` over a table with protected columns whose columns are unknown.
pub(super) fn star_on_restricted_table(
    table: &ResolvedTable,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::StarOnRestrictedTable,
        format!("`*` over `{}`, which has protected columns", table.display),
        "list the columns you need",
        location,
    )
}

/// A column bound to `table` that the policy protects.
pub(super) fn column_not_allowed(
    table: &ResolvedTable,
    column: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::ColumnNotAllowed,
        format!("column `{}.{column}` is protected by the policy", table.display),
        "remove the protected column from the query",
        location,
    )
}

/// A name that `table`, whose columns may include it, protects.
pub(super) fn column_may_be_protected(
    table: &ResolvedTable,
    column: &str,
    location: Option<Location>,
) -> GuardError {
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
pub(super) fn whole_row_of_protected(
    name: &str,
    table: &ResolvedTable,
    location: Option<Location>,
) -> GuardError {
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

/// A column that does not exist in `table` (or, without one, in any table of the query).
pub(super) fn unknown_column(
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

// ---- functions, casts, variables ----

/// A function name that is not made of identifiers.
pub(super) fn computed_function_name(location: Option<Location>) -> GuardError {
    unsupported("a computed function name", location)
}

fn function_kind(used: FunctionUse) -> &'static str {
    match used {
        FunctionUse::Expression => "function",
        FunctionUse::Table => "table function",
    }
}

/// A function on the deny list.
pub(super) fn function_denied(
    display: &str,
    used: FunctionUse,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::FunctionNotAllowed,
        format!("{} `{display}` is not allowed", function_kind(used)),
        format!(
            "remove `{display}`: it is denied (it can reach files, the network, locks or the \
             server); an operator may allow it with functions.allow"
        ),
        location,
    )
}

/// A function not on the allow list, with a close allowed name when there is one.
pub(super) fn function_not_allowlisted(
    display: &str,
    used: FunctionUse,
    suggestion: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    let hint = match suggestion {
        Some(s) if s != display => format!(
            "did you mean `{s}`? Otherwise remove `{display}`, or add it to the policy's \
             functions.allow"
        ),
        _ => format!(
            "remove `{display}`, or add it to the policy's functions.allow if it has no side \
             effects"
        ),
    };
    refusal(
        ErrorCode::FunctionNotAllowed,
        format!("{} `{display}` is not allowed", function_kind(used)),
        hint,
        location,
    )
}

/// `generate_series` / `range` over literal bounds wider than [`MAX_SERIES_ROWS`].
pub(super) fn series_too_long(function: &str, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::FunctionNotAllowed,
        format!("`{function}` over these bounds produces more than {MAX_SERIES_ROWS} values"),
        "narrow the bounds of the series (at most 10000000 values)",
        location,
    )
}

/// `seq.nextval` / `seq.currval`.
pub(super) fn sequence_call(sequence: &str, call: &str, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::FunctionNotAllowed,
        format!("`{sequence}.{call}` reads or advances a sequence"),
        "remove the sequence reference; sequences change state when read",
        location,
    )
}

/// A cast to a PostgreSQL OID alias type (`::regclass`).
pub(super) fn catalog_type_cast(type_name: &str, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::SystemCatalog,
        format!("a cast to `{type_name}` looks names up in the system catalogs"),
        "remove the cast; system catalogs are not open to queries",
        location,
    )
}

/// `@@datadir` and other server variables.
pub(super) fn server_variable(variable: &str, location: Option<Location>) -> GuardError {
    refusal(
        ErrorCode::SystemCatalog,
        format!("`{variable}` reads a server variable"),
        "remove the server variable; server settings are not open to queries",
        location,
    )
}
