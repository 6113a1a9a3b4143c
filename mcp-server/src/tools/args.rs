//! The arguments `validate_query` and `run_query` share, as the MCP client sends them (JSON
//! Schema from schemars); a tool's own arguments live in its file.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of `validate_query` and `run_query`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SqlArgs {
    /// One read-only SQL query (SELECT / WITH ... SELECT / VALUES).
    pub sql: String,
}
