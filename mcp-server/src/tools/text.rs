//! Readable text renderings of tool results, for the model (structured content carries the data).

use serde_json::Value;
use sqlgate::Verdict;

use crate::backend::TableDetail;
use crate::gate::error::ToolError;
use crate::gate::{ListTablesOutput, RunQueryOutput};
use crate::tools::run_mutation::RunMutationOutput;

/// The widest cell of a `run_query` table, in characters; a longer one is cut to
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
fn push_row(out: &mut String, names: &[&str], row: &serde_json::Map<String, Value>) {
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

/// `run_query` as a Markdown table plus a summary line.
pub fn run_query(out: &RunQueryOutput) -> String {
    let mut s = String::with_capacity(64 + 32 * out.rows.len() * out.columns.len().max(1));
    if !out.columns.is_empty() {
        let names: Vec<&str> = out.columns.iter().map(|c| c.name.as_str()).collect();
        s.push_str(&format!("| {} |\n", names.join(" | ")));
        s.push_str(&format!("|{}\n", "---|".repeat(names.len())));
        for row in &out.rows {
            push_row(&mut s, &names, row);
        }
    }
    s.push_str(&format!(
        "\n{} row{}{} in {:.1} ms. Executed: {}",
        out.row_count,
        if out.row_count == 1 { "" } else { "s" },
        if out.truncated {
            " (truncated by the row or size cap; add a WHERE clause, aggregate, or a smaller LIMIT)"
        } else {
            ""
        },
        out.duration_ms,
        out.executed_sql
    ));
    s
}

/// The planner's estimate under a verdict (`validate_query`).
pub fn estimate(e: &crate::gate::EstimateOutput) -> String {
    let cost = e.cost.map(|c| format!("cost {c:.0}, ")).unwrap_or_default();
    let mut s = format!(
        "\nPlanner estimate: {cost}{:.0} rows at the largest step ({}).",
        e.rows, e.largest_step
    );
    if let Some(why) = &e.over_cap {
        s.push_str(&format!(" run_query would refuse it: {why}."));
    }
    s
}

/// `run_mutation`'s result: the count, the decision, the RETURNING rows, the SQL.
pub fn run_mutation(out: &RunMutationOutput) -> String {
    let rows = if out.affected_rows == 1 {
        "row"
    } else {
        "rows"
    };
    let mut s = format!(
        "Committed: {} {rows} changed in {} ({}, decision {}) in {:.1} ms.\nExecuted: {}",
        out.affected_rows,
        out.target,
        out.query_class.as_str(),
        serde_json::to_value(out.decision)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        out.duration_ms,
        out.executed_sql
    );
    if let Some(first) = out.returning.first() {
        let names: Vec<&String> = first.keys().collect();
        s.push_str(&format!("\n\nReturning:\n| {} |\n", join(&names)));
        let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
        for row in &out.returning {
            push_row(&mut s, &names, row);
        }
        if out.returning_truncated {
            s.push_str("(more rows returned than shown)\n");
        }
    }
    s
}

fn join(names: &[&String]) -> String {
    names
        .iter()
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(" | ")
}

/// `list_tables` as one line per table.
pub fn list_tables(out: &ListTablesOutput) -> String {
    if out.tables.is_empty() {
        return "No tables are readable under the policy.".to_string();
    }
    let mut s = format!("{} tables:\n", out.tables.len());
    for t in &out.tables {
        let name = match &t.schema {
            Some(sc) => format!("{sc}.{}", t.name),
            None => t.name.clone(),
        };
        s.push_str(&format!("- {name} ({}", t.kind));
        if let Some(n) = t.estimated_rows {
            s.push_str(&format!(", ~{n} rows"));
        }
        s.push(')');
        if let Some(c) = &t.comment {
            s.push_str(&format!(": {c}"));
        }
        s.push('\n');
    }
    s
}

/// `describe_table` as a column list with keys.
pub fn describe_table(t: &TableDetail) -> String {
    let mut s = format!("{} ({})", t.qualified_name(), t.kind);
    if let Some(c) = &t.comment {
        s.push_str(&format!(": {c}"));
    }
    s.push('\n');
    for c in &t.columns {
        s.push_str(&format!(
            "- {} {}{}{}{}{}\n",
            c.name,
            c.data_type,
            if c.nullable { "" } else { " NOT NULL" },
            c.default
                .as_ref()
                .map(|d| format!(" DEFAULT {d}"))
                .unwrap_or_default(),
            if c.protected {
                " [protected: queries that reference it are refused]"
            } else {
                ""
            },
            c.comment
                .as_ref()
                .map(|d| format!(" -- {d}"))
                .unwrap_or_default(),
        ));
    }
    if !t.primary_key.is_empty() {
        s.push_str(&format!("primary key: ({})\n", t.primary_key.join(", ")));
    }
    for fk in &t.foreign_keys {
        s.push_str(&format!(
            "foreign key: ({}) -> {}({})\n",
            fk.columns.join(", "),
            fk.referenced_table,
            fk.referenced_columns.join(", ")
        ));
    }
    for r in &t.referenced_by {
        s.push_str(&format!(
            "referenced by: {}({}) -> ({})\n",
            r.table,
            r.columns.join(", "),
            r.referenced_columns.join(", ")
        ));
    }
    s
}

/// A verdict in one or two lines.
pub fn verdict(v: &Verdict) -> String {
    if v.allowed {
        let mut s = format!(
            "Allowed ({}). Would execute: {}",
            v.query_class.as_str(),
            v.sql.as_deref().unwrap_or("")
        );
        if let Some(l) = &v.limit {
            if let Some(value) = l.value {
                s.push_str(&format!(" [row cap {value}]"));
            }
        }
        s
    } else {
        match &v.error {
            Some(e) => {
                let mut s = format!(
                    "Refused ({}): {}: {}",
                    v.query_class.as_str(),
                    e.code.as_str(),
                    e.message
                );
                if let Some(h) = &e.hint {
                    s.push_str(&format!("\nHint: {h}"));
                }
                s
            }
            None => "Refused.".to_string(),
        }
    }
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
