//! The gate's read operations in the shape the tools answer: each one's
//! [`GateError`](crate::gate::error::GateError) mapped to a [`ToolError`] (its one `From`).

// ToolError is the structured content of a refusal; results carry it by value on purpose.
#![allow(clippy::result_large_err)]

use crate::backend::{Params, TableDetail};
use crate::gate::{Engine, ListTablesOutput, RunQueryOutput, RunTrace};
use crate::tools::error::ToolError;

impl Engine {
    /// `list_tables`: [`Engine::tables`].
    pub async fn list_tables(&self) -> Result<ListTablesOutput, ToolError> {
        self.tables().await.map_err(ToolError::from)
    }

    /// `describe_table`: [`Engine::describe`].
    pub fn describe_table(&self, name: &str) -> Result<TableDetail, ToolError> {
        self.describe(name).map_err(ToolError::from)
    }

    /// `run_query`: [`Engine::query`].
    pub async fn run_query(&self, sql: &str) -> (Result<RunQueryOutput, ToolError>, RunTrace) {
        let (out, trace) = self.query(sql).await;
        (out.map_err(ToolError::from), trace)
    }

    /// A read with parameters and a row cap: [`Engine::query_with`].
    pub async fn run_checked(
        &self,
        sql: &str,
        params: Option<&Params>,
        max_rows: Option<u64>,
    ) -> (Result<RunQueryOutput, ToolError>, RunTrace) {
        let (out, trace) = self.query_with(sql, params, max_rows).await;
        (out.map_err(ToolError::from), trace)
    }
}
