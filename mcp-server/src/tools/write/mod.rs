//! The write tools, `run_mutation` (one statement) and `run_mutations` (several, all or none),
//! listed in a write mode only: their routes below, their arguments and text rendering in
//! [`run_mutation`] and [`run_mutations`], what they answer in [`output`], and the gate's write
//! path ([`crate::gate::write`]) in that shape in [`flow`]. How the approval is asked is in
//! [`super::approval`].

pub mod flow;
pub mod output;
pub mod run_mutation;
pub mod run_mutations;

use std::time::Instant;

use rmcp::handler::server::tool::{InputResponses as ToolInputResponses, RequestState};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, ErrorData as McpError, RoleServer};

use super::{quota_key, SqlGateServer};
use crate::codes::BuiltinTool;
use crate::tools::result::success;
use crate::tools::write::output::{output_schema, MutationsOutput, RunMutationOutput};
use crate::tools::write::run_mutation::{asking, respond, MutationArgs};
use crate::tools::write::run_mutations::{render, MutationsArgs};

#[tool_router(router = write_router, vis = "pub(crate)")]
impl SqlGateServer {
    /// Previews, (when the mode asks) gets approved, and commits one mutation.
    #[tool(
        name = "run_mutation",
        description = "Run one INSERT, UPDATE, DELETE or MERGE on a table the policy lets you modify. sqlgate checks it, runs it once in a transaction that is rolled back to count the rows it would change (refused above the policy's bound), asks the user to approve when the server's mode requires it, then runs it again and commits only if it changes the same rows (the same count and, for an UPDATE or DELETE, the same rows by digest). Returns affected_rows, returning (first rows of RETURNING), executed_sql, query_class, decision. A refusal returns isError with code, message and hint.",
        annotations(
            title = "Run mutation",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        ),
        output_schema = output_schema::<RunMutationOutput>()
    )]
    pub async fn run_mutation(
        &self,
        Parameters(args): Parameters<MutationArgs>,
        RequestState(state): RequestState,
        ToolInputResponses(responses): ToolInputResponses,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let start = Instant::now();
        let (rec, result) = match self.engine_for(&ctx, BuiltinTool::RunMutation.as_str()) {
            Ok(engine) => {
                let asking = asking(&ctx, state, responses, &engine);
                let (rec, result) = run_mutation::handle(&engine, &args, asking).await;
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
        let (rec, result) = match self.engine_for(&ctx, BuiltinTool::RunMutations.as_str()) {
            Ok(engine) => {
                let asking = asking(&ctx, state, responses, &engine);
                let render = |out: MutationsOutput| success(&out, render(&out));
                let (rec, result) = respond(
                    &engine,
                    BuiltinTool::RunMutations.as_str(),
                    &args.statements,
                    asking,
                    render,
                )
                .await;
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
