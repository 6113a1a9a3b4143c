//! Refusals about function calls, casts and variables.

use super::{refusal, unsupported};
use crate::error::{ErrorCode, GuardError, Location};
use crate::functions::FunctionUse;

/// A function name that is not made of identifiers.
pub(in crate::validate) fn computed_function_name(location: Option<Location>) -> GuardError {
    unsupported("a computed function name", location)
}

fn function_kind(used: FunctionUse) -> &'static str {
    match used {
        FunctionUse::Expression => "function",
        FunctionUse::Table => "table function",
    }
}

/// A function on the deny list. The hint is for the agent: the function is not available (an
/// operator may allow one with `functions.allow`; the README says so, not the hint).
pub(in crate::validate) fn function_denied(
    display: &str,
    used: FunctionUse,
    instead: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    let hint = match instead {
        Some(other) => format!("`{display}` is not available to queries: {other}"),
        None => format!(
            "`{display}` is not available to queries (it can reach files, the network, locks or \
             the server): rewrite the query without it"
        ),
    };
    refusal(
        ErrorCode::FunctionNotAllowed,
        format!("{} `{display}` is not allowed", function_kind(used)),
        hint,
        location,
    )
}

/// A function not on the allow list: what to use instead when the dialect has an equivalent,
/// else a close allowed name, else that it is not available.
pub(in crate::validate) fn function_not_allowlisted(
    display: &str,
    used: FunctionUse,
    instead: Option<&str>,
    suggestion: Option<&str>,
    location: Option<Location>,
) -> GuardError {
    let hint = match (instead, suggestion) {
        (Some(other), _) => format!("`{display}` is not available here: {other}"),
        (None, Some(s)) if s != display => {
            format!("did you mean `{s}`? `{display}` is not available here")
        }
        _ => format!("`{display}` is not available here: rewrite the query without it"),
    };
    refusal(
        ErrorCode::FunctionNotAllowed,
        format!("{} `{display}` is not allowed", function_kind(used)),
        hint,
        location,
    )
}

/// `seq.nextval` / `seq.currval`.
pub(in crate::validate) fn sequence_call(
    sequence: &str,
    call: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::FunctionNotAllowed,
        format!("`{sequence}.{call}` reads or advances a sequence"),
        "remove the sequence reference; sequences change state when read",
        location,
    )
}

/// A cast to a PostgreSQL OID alias type (`::regclass`).
pub(in crate::validate) fn catalog_type_cast(
    type_name: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::SystemCatalog,
        format!("a cast to `{type_name}` looks names up in the system catalogs"),
        "remove the cast; system catalogs are not open to queries",
        location,
    )
}

/// `@@datadir` and other server variables.
pub(in crate::validate) fn server_variable(
    variable: &str,
    location: Option<Location>,
) -> GuardError {
    refusal(
        ErrorCode::SystemCatalog,
        format!("`{variable}` reads a server variable"),
        "remove the server variable; server settings are not open to queries",
        location,
    )
}
