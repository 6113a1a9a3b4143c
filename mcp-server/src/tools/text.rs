//! The text renderings the tools share, for the model (structured content carries the data):
//! Markdown table rows (`run_query`, `run_mutation`'s RETURNING) and an error. Each tool renders
//! its own result in its file.

use serde_json::Value;

use crate::tools::error::ToolError;

/// The widest cell of a table, in characters; a longer one is cut to
/// `CELL_WIDTH - 3` and ends with `...`.
const CELL_WIDTH: usize = 80;

/// Appends `v` as one Markdown table cell: NULL as `NULL`, a string as itself, anything else as
/// its JSON; line breaks become spaces and `|` is escaped, so that the cell stays in its column.
/// Written in place: a 100-row result is hundreds of cells.
fn push_cell(out: &mut String, v: &Value) {
    let json;
    let text = match v {
        Value::Null => "NULL",
        Value::String(s) => s.as_str(),
        other => {
            json = other.to_string();
            json.as_str()
        }
    };
    // Most cells: short, one line, no `|`: as they are.
    if text.len() <= CELL_WIDTH && !text.contains(['\n', '\r', '|']) {
        out.push_str(text);
        return;
    }
    let width = text.chars().count() + text.matches('|').count();
    let cut = width > CELL_WIDTH;
    let mut room = if cut { CELL_WIDTH - 3 } else { width };
    'text: for c in text.chars() {
        let (first, second) = match c {
            '\n' | '\r' => (' ', None),
            '|' => ('\\', Some('|')),
            c => (c, None),
        };
        for c in std::iter::once(first).chain(second) {
            if room == 0 {
                break 'text;
            }
            out.push(c);
            room -= 1;
        }
    }
    if cut {
        out.push_str("...");
    }
}

/// Appends one Markdown table row: the cells of `row` under `names`, in order.
pub fn push_row(out: &mut String, names: &[&str], row: &serde_json::Map<String, Value>) {
    out.push_str("| ");
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push_str(" | ");
        }
        if let Some(v) = row.get(*name) {
            push_cell(out, v);
        }
    }
    out.push_str(" |\n");
}

/// An error in one or two lines.
pub fn error(e: &ToolError) -> String {
    let mut s = format!("Error {}: {}", e.code, e.message);
    if let Some(state) = &e.sqlstate {
        s.push_str(&format!(" (SQLSTATE {state})"));
    }
    if let Some(h) = &e.hint {
        s.push_str(&format!("\nHint: {h}"));
    }
    if e.retryable {
        s.push_str("\n(retryable)");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cell(v: Value) -> String {
        let mut s = String::new();
        push_cell(&mut s, &v);
        s
    }

    #[test]
    fn cells_stay_in_their_column() {
        assert_eq!(cell(Value::Null), "NULL");
        assert_eq!(cell(json!("a|b\nc\rd\u{0}e")), "a\\|b c d\u{0}e");
        assert_eq!(cell(json!(1.5)), "1.5");
        assert_eq!(cell(json!({"k": "v|w"})), r#"{"k":"v\|w"}"#);
        assert_eq!(cell(json!("NULL")), "NULL");
    }

    #[test]
    fn long_cells_are_cut_to_eighty_characters() {
        assert_eq!(cell(json!("é".repeat(80))), "é".repeat(80));
        let long = cell(json!("é".repeat(81)));
        assert_eq!(long, format!("{}...", "é".repeat(77)));
        // An escape counts as two characters, and may be cut between them (as before).
        let pipes = cell(json!("|".repeat(40)));
        assert_eq!(pipes, "\\|".repeat(40));
        let pipes = cell(json!("|".repeat(41)));
        assert_eq!(pipes, format!("{}\\...", "\\|".repeat(38)));
    }
}
