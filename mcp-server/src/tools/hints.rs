//! What the server adds to core's hints. Core's hints speak of tables and columns, for every
//! caller; an agent of this server can ask its tools, so the refusals a tool helps to fix name it.

use sqlgate::{ErrorCode, QueryClass};

use crate::codes::ToolCode;

fn append(hint: Option<&str>, words: &str) -> String {
    match hint {
        None => words.to_string(),
        Some(h) if h.ends_with(['?', '.', '!']) => format!("{h} {words}"),
        Some(h) => format!("{h}; {words}"),
    }
}

/// `run_query`'s hint for a refused mutation in a write mode: the tool for writes.
pub fn for_run_query(class: QueryClass, writes: bool, hint: Option<&str>) -> Option<String> {
    let is_mutation = matches!(
        class,
        QueryClass::MutationCreate | QueryClass::MutationDelete
    );
    if !writes || !is_mutation || hint.is_some_and(|h| h.contains("run_mutation")) {
        return hint.map(str::to_string);
    }
    Some(append(
        hint,
        "run_query only reads: send one INSERT, UPDATE, DELETE or MERGE to run_mutation, which \
         previews it and may ask the user to approve",
    ))
}

/// `run_mutation`'s hint for a refusal: a read goes to `run_query`, unknown names to the tools
/// that list them.
pub fn for_run_mutation(class: QueryClass, hint: Option<&str>) -> Option<String> {
    if class == QueryClass::Select {
        return Some(append(
            hint,
            "run_mutation only writes: send reads to run_query",
        ));
    }
    hint.map(str::to_string)
}

/// Advice for the operator, for the server's log (never for the agent, which cannot change the
/// policy): a refused function may be allowed with `functions.allow` if it has no side effects.
/// The tools log it ([`crate::tools::read::run_query::answered`]); the demo shows it in its scene.
pub fn operator_note(code: ToolCode, message: &str) -> Option<String> {
    (code == ToolCode::Guard(ErrorCode::FunctionNotAllowed)).then(|| {
        format!(
            "note for the operator: {message}; a function without side effects can be allowed with \
             functions.allow in the policy (never a denied one: it reaches files, the network, \
             locks or the server)"
        )
    })
}

/// The tool that shows what a refused query should have named, and the words that point to it.
fn pointer(code: ErrorCode) -> Option<(&'static str, &'static str)> {
    match code {
        ErrorCode::UnknownTable => Some(("list_tables", "call list_tables to see the tables")),
        ErrorCode::UnknownColumn => Some((
            "describe_table",
            "call describe_table to see the table's columns",
        )),
        _ => None,
    }
}

/// Core's `hint` for a refusal with `code`, plus the pointer to the tool that helps (unless the
/// hint names that tool already). Every hint of a guard refusal goes through here on its way to
/// the agent: `run_query`, `describe_table` and `validate_query`.
pub fn with_tool(code: ErrorCode, hint: Option<&str>) -> Option<String> {
    let Some((tool, words)) = pointer(code) else {
        return hint.map(str::to_string);
    };
    Some(match hint {
        None => words.to_string(),
        Some(h) if h.contains(tool) => h.to_string(),
        Some(h) if h.ends_with(['?', '.', '!']) => format!("{h} {words}"),
        Some(h) => format!("{h}; {words}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_advice_is_for_function_refusals_and_the_log() {
        let guard = sqlgate::Guard::for_dialect(sqlgate::Dialect::Sqlite);
        let refused = guard
            .check("SELECT date_trunc('month', x) FROM t")
            .expect_err("refused");
        let note =
            operator_note(refused.error.code.into(), &refused.error.message).expect("a note");
        assert!(
            note.contains("functions.allow") && note.contains("date_trunc"),
            "{note}"
        );
        // The agent's hint never carries it.
        assert!(!refused
            .error
            .hint
            .unwrap_or_default()
            .contains("functions.allow"));
        let refused = guard.check("SELECT 1; SELECT 2").expect_err("refused");
        assert_eq!(
            operator_note(refused.error.code.into(), &refused.error.message),
            None
        );
    }

    #[test]
    fn unknown_names_point_to_the_tool_that_lists_them() {
        assert_eq!(
            with_tool(ErrorCode::UnknownTable, Some("check the table name")).as_deref(),
            Some("check the table name; call list_tables to see the tables")
        );
        assert_eq!(
            with_tool(ErrorCode::UnknownColumn, Some("did you mean `name`?")).as_deref(),
            Some("did you mean `name`? call describe_table to see the table's columns")
        );
        assert_eq!(
            with_tool(ErrorCode::UnknownColumn, None).as_deref(),
            Some("call describe_table to see the table's columns")
        );
    }

    #[test]
    fn writes_point_to_the_tool_for_writes_only_in_a_write_mode() {
        let h = Some("only SELECT is allowed");
        let write = for_run_query(QueryClass::MutationDelete, true, h).unwrap_or_default();
        assert!(write.starts_with("only SELECT is allowed; ") && write.contains("run_mutation"));
        assert_eq!(
            for_run_query(QueryClass::MutationDelete, false, h).as_deref(),
            h
        );
        assert_eq!(for_run_query(QueryClass::Ddl, true, h).as_deref(), h);
        let read = for_run_mutation(QueryClass::Select, None).unwrap_or_default();
        assert!(read.contains("run_query"));
        assert_eq!(for_run_mutation(QueryClass::Ddl, h).as_deref(), h);
    }

    #[test]
    fn a_tool_is_named_once_and_other_codes_keep_their_hint() {
        let named = "check the table name; list_tables shows what exists";
        assert_eq!(
            with_tool(ErrorCode::UnknownTable, Some(named)).as_deref(),
            Some(named)
        );
        assert_eq!(
            with_tool(
                ErrorCode::TableNotAllowed,
                Some("use a table the policy allows")
            )
            .as_deref(),
            Some("use a table the policy allows")
        );
        assert_eq!(with_tool(ErrorCode::Empty, None), None);
    }
}
