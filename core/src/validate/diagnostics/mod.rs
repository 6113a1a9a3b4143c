//! Every refusal the validator can give, one named constructor each: a code's message and hint
//! are written here once, and the walker only says which refusal applies and where. Grouped by
//! what the refusal is about: the query's structure, tables, columns, function calls.

use crate::error::{ErrorCode, GuardError, Location, Stage};

mod bounds;
mod calls;
mod columns;
mod pii;
mod structure;
mod tables;
mod writes;

pub(super) use bounds::*;
pub(super) use calls::*;
pub(super) use columns::*;
pub(super) use pii::*;
pub(super) use structure::*;
pub(super) use tables::*;
pub(super) use writes::*;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::ResolvedTable;
    use crate::dialect::Dialect;
    use crate::functions::FunctionUse;
    use sqlparser::ast::ObjectName;

    fn table() -> ResolvedTable {
        ResolvedTable {
            parts: vec!["customer".into()],
            display: "customer".into(),
            protected: vec!["email".into()],
            pii: Vec::new(),
            columns: None,
            spelled_columns: None,
            view: false,
        }
    }

    /// One refusal of each constructor, with the code it must carry.
    fn every_refusal() -> Vec<(GuardError, ErrorCode)> {
        use ErrorCode::*;
        let name = ObjectName::from(vec![sqlparser::ast::Ident::new("customer")]);
        let t = table();
        let at = Some(Location { line: 1, column: 8 });
        let all = vec![
            (not_understood(at), UnsupportedSyntax),
            (locking_clause(&"FOR UPDATE", at), LockingClause),
            (query_settings_format_or_pipe(at), UnsupportedSyntax),
            (data_modifying_body("INSERT", at), DataModifyingCte),
            (nested_statement("SELECT", at), DataModifyingCte),
            (table_without_name(), UnsupportedSyntax),
            (select_into(&"INTO t", at), SelectInto),
            (top_not_in_dialect(Dialect::Postgres, at), UnsupportedSyntax),
            (optimizer_hints(at), UnsupportedSyntax),
            (variable_assignment(at), UnsupportedSyntax),
            (using_computed_name(at), UnsupportedSyntax),
            (using_qualified_name(at), UnsupportedSyntax),
            (natural_join_over_protected(at), ColumnNotAllowed),
            (table_hints(&[], at), LockingClause),
            (renamed_protected_columns(&t, at), ColumnNotAllowed),
            (aliased_join_over_protected(at), UnsupportedSyntax),
            (unsupported_table_factor(at), UnsupportedSyntax),
            (table_outside_from(at), UnsupportedSyntax),
            (table_chosen_at_run_time(at), UnsupportedSyntax),
            (identifier_at_run_time(at), UnsupportedSyntax),
            (file_path_as_table(&name, at), TableNotAllowed),
            (computed_table_name(at), UnsupportedSyntax),
            (
                not_a_table(&name, "is a stage (files)", at),
                TableNotAllowed,
            ),
            (system_catalog(&name, at), SystemCatalog),
            (table_not_allowed(&name, None, at), TableNotAllowed),
            (unknown_table(&name, None, at), UnknownTable),
            (computed_qualifier(at), UnsupportedSyntax),
            (star_names_no_table(&name, at), UnknownTable),
            (
                star_over_protected(&t, &["first_name"], Some("c"), at),
                ColumnNotAllowed,
            ),
            (star_on_restricted_table(&t, at), StarOnRestrictedTable),
            (column_not_allowed(&t, "email", at), ColumnNotAllowed),
            (column_may_be_protected(&t, "email", at), ColumnNotAllowed),
            (whole_row_of_protected("c", &t, at), ColumnNotAllowed),
            (unknown_column("x", None, None, at), UnknownColumn),
            (double_quoted_string("Pune", at), UnknownColumn),
            (computed_function_name(at), UnsupportedSyntax),
            (
                function_denied("pg_read_file", FunctionUse::Expression, None, at),
                FunctionNotAllowed,
            ),
            (
                function_not_allowlisted("f", FunctionUse::Table, None, None, at),
                FunctionNotAllowed,
            ),
            (sequence_call("seq", "nextval", at), FunctionNotAllowed),
            (catalog_type_cast("regclass", at), SystemCatalog),
            (server_variable("@@datadir", at), SystemCatalog),
            (mutation_clause("OUTPUT", at), UnsupportedSyntax),
            (several_targets(at), UnsupportedSyntax),
            (alias_of_target("orders", at), UnsupportedSyntax),
            (view_as_target(&name, at), TableNotWritable),
            (
                table_not_writable(&name, &["orders".into()], at),
                TableNotWritable,
            ),
            (
                protected_column_written("customer", "email", at),
                ColumnNotAllowed,
            ),
            (
                every_column_written("customer", "email", at),
                ColumnNotAllowed,
            ),
            (unknown_written_column(&t, "x", at), UnknownColumn),
            (unbounded_mutation(false, at), UnboundedMutation),
        ];
        [all, bounds::samples(at)].concat()
    }

    #[test]
    fn every_refusal_is_a_validate_refusal_with_its_code_a_hint_and_a_place() {
        for (error, code) in every_refusal() {
            assert_eq!(error.code, code, "{}", error.message);
            assert_eq!(error.stage, Stage::Validate, "{}", error.message);
            assert!(!error.retryable, "{}", error.message);
            assert!(
                error.hint.as_deref().is_some_and(|h| !h.is_empty()),
                "{}",
                error.message
            );
            if error.message != "TABLE without a name" {
                assert_eq!(error.location, Some(Location { line: 1, column: 8 }));
            }
        }
    }

    #[test]
    fn no_hint_names_a_tool_of_a_front_end() {
        for (error, _) in every_refusal() {
            let hint = error.hint.unwrap_or_default();
            for tool in ["list_tables", "describe_table", "check_sql", "run_sql"] {
                assert!(!hint.contains(tool), "{hint}");
            }
        }
    }

    #[test]
    fn a_suggestion_becomes_the_hint() {
        let name = ObjectName::from(vec![sqlparser::ast::Ident::new("custmer")]);
        let error = unknown_table(&name, Some("customer"), None);
        assert_eq!(error.hint.as_deref(), Some("did you mean `customer`?"));
        assert_eq!(error.message, "table `custmer` does not exist");
        let error = unknown_column("emial", Some("vendor"), Some("email"), None);
        assert_eq!(error.hint.as_deref(), Some("did you mean `email`?"));
        assert_eq!(error.message, "column `emial` does not exist in `vendor`");
        let error = table_not_allowed(&name, Some("customer"), None);
        assert_eq!(
            error.hint.as_deref(),
            Some("use an allowed table such as `customer`")
        );
    }

    #[test]
    fn hints_speak_to_the_agent_never_of_the_policy() {
        // An agent cannot change the policy: operator advice (functions.allow) is for the docs.
        for (error, _) in every_refusal() {
            let hint = error.hint.unwrap_or_default();
            assert!(!hint.contains("functions.allow"), "{hint}");
            assert!(!hint.contains("add it to"), "{hint}");
        }
    }

    #[test]
    fn an_equivalent_wins_over_a_close_spelling() {
        let error = function_not_allowlisted(
            "date_trunc",
            FunctionUse::Expression,
            Some("use strftime('%Y-%m-01', d)"),
            Some("date"),
            None,
        );
        assert_eq!(
            error.hint.as_deref(),
            Some("`date_trunc` is not available here: use strftime('%Y-%m-01', d)")
        );
        let error = function_denied("load_file", FunctionUse::Expression, None, None);
        assert!(error
            .hint
            .unwrap_or_default()
            .starts_with("`load_file` is not available to queries"));
    }

    #[test]
    fn a_function_suggestion_equal_to_the_name_is_not_offered() {
        let error =
            function_not_allowlisted("lower", FunctionUse::Expression, None, Some("lower"), None);
        assert!(!error.hint.unwrap_or_default().contains("did you mean"));
        let error = function_not_allowlisted("lowr", FunctionUse::Table, None, Some("lower"), None);
        assert!(error.message.starts_with("table function `lowr`"));
        assert!(error
            .hint
            .unwrap_or_default()
            .starts_with("did you mean `lower`?"));
    }
}
