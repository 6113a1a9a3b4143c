//! The tools' arguments, as the MCP client sends them (JSON Schema from schemars).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of `describe_table`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct DescribeTableArgs {
    /// Table name as listed by list_tables, optionally schema-qualified (`orders`, `public.orders`).
    pub table: String,
}

/// Arguments of `validate_query` and `run_query`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SqlArgs {
    /// One read-only SQL query (SELECT / WITH ... SELECT / VALUES).
    pub sql: String,
}

/// Arguments of `run_mutation`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct MutationArgs {
    /// One INSERT, UPDATE, DELETE or MERGE on a writable table (see server_info / instructions).
    pub sql: String,
}
