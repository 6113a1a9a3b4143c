//! The `run_mutations` tool: several INSERT / UPDATE / DELETE / MERGE statements, each checked
//! on its own, previewed together in one rolled-back transaction, approved once (the same
//! elicitation or `input_required` as `run_mutation`, bound to the exact list of statements),
//! then committed together in one transaction or not at all: its arguments and text rendering
//! (its route is in [`super`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::text::push_row;
use crate::tools::write::output::MutationsOutput;

/// Arguments of `run_mutations`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MutationsArgs {
    /// The statements, in order: each one INSERT, UPDATE, DELETE or MERGE on a writable table.
    pub statements: Vec<String>,
}

/// `run_mutations`' result: each statement's count and RETURNING rows.
pub fn render(out: &MutationsOutput) -> String {
    let mut s = format!(
        "Committed {} statements in one transaction: {} rows changed in {:.1} ms.\n",
        out.statement_count, out.affected_rows, out.duration_ms
    );
    for (i, st) in out.statements.iter().enumerate() {
        s.push_str(&format!(
            "{}. {} on {}: {} rows. Executed: {}\n",
            i + 1,
            st.query_class.as_str(),
            st.target,
            st.affected_rows,
            st.executed_sql
        ));
        if let Some(first) = st.returned_rows.first() {
            let names: Vec<&str> = first.keys().map(String::as_str).collect();
            s.push_str(&format!("| {} |\n", names.join(" | ")));
            for row in &st.returned_rows {
                push_row(&mut s, &names, row);
            }
        }
    }
    s
}
