//! What the server adds to core's hints. Core's hints speak of tables and columns, for every
//! caller; an agent of this server can ask its tools, so the refusals a tool helps to fix name it.

use sqlgate::ErrorCode;

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
