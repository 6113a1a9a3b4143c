//! The `run_mutations` tool: several INSERT / UPDATE / DELETE / MERGE statements, each checked
//! on its own, previewed together in one rolled-back transaction, approved once (the same
//! elicitation or `input_required` as `run_mutation`, bound to the exact list of statements),
//! then committed together in one transaction or not at all. Its route is merged into the
//! server's router ([`SqlGateServer::mutations_router`]).

use std::time::Instant;

use rmcp::handler::server::tool::{InputResponses as ToolInputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{quota_key, SqlGateServer};
use crate::tools::mutation_output::{output_schema, MutationsOutput};
use crate::tools::result::success;
use crate::tools::run_mutation::{asking, respond};
use crate::tools::text::push_row;

/// Arguments of `run_mutations`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MutationsArgs {
    /// The statements, in order: each one INSERT, UPDATE, DELETE or MERGE on a writable table.
    pub statements: Vec<String>,
}

#[tool_router(router = mutations_router, vis = "pub(crate)")]
impl SqlGateServer {
    /// Previews, (when the mode asks) gets approved once, and commits several mutations in one
    /// transaction.
    #[tool(
        name = "run_mutations",
        description = "Run several INSERT, UPDATE, DELETE or MERGE statements as one change, all or nothing. Each is checked as run_mutation checks it; all run in one transaction that is rolled back to count each one's rows; the user approves the whole batch once when the server's mode requires it; then all run again in one transaction that commits only if each changes the same rows, and nothing is committed if any statement fails. Returns status, statement_count, statements (each with affected_rows and returned_rows), affected_rows. A refusal returns isError with code, message and hint (naming the statement).",
        annotations(
            title = "Run mutations",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        ),
        output_schema = output_schema::<MutationsOutput>()
    )]
    pub async fn run_mutations(
        &self,
        Parameters(args): Parameters<MutationsArgs>,
        RequestState(state): RequestState,
        ToolInputResponses(responses): ToolInputResponses,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine_for(&ctx, "run_mutations") {
            Ok(engine) => {
                let asking = asking(&ctx, state, responses, &engine);
                let render = |out: MutationsOutput| success(&out, render(&out));
                let (rec, result) =
                    respond(&engine, "run_mutations", &args.statements, asking, render).await;
                if rec.committed_rows.is_some() {
                    engine
                        .quota()
                        .record_mutation(&quota_key(&ctx), Instant::now());
                }
                (rec, result)
            }
            Err(refused) => {
                let (rec, result) = *refused;
                (rec, result.into())
            }
        };
        self.audited(&ctx, rec, start, result).await
    }
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
