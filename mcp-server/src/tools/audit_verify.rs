//! `audit_verify`: the hash chain of the server's audit file, intact or where it breaks.

use std::path::PathBuf;

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::ErrorData as McpError;

/// Verifies the chain of the audit file at `path` (`None`: no file is configured).
pub async fn handle(path: Option<PathBuf>) -> Result<CallToolResult, McpError> {
    let Some(path) = path else {
        return Err(McpError::invalid_request(
            "no audit file is configured",
            None,
        ));
    };
    let outcome = tokio::task::spawn_blocking(move || crate::audit::verify::verify_live(&path))
        .await
        .map_err(|e| McpError::internal_error(e.to_string(), None))?
        .map_err(|e| McpError::internal_error(e, None))?;
    let v = match outcome {
        Ok(sum) => serde_json::json!({ "intact": true, "summary": sum }),
        Err(b) => serde_json::json!({
            "intact": false,
            "broken": b,
            "message": crate::audit::verify::describe(&b),
        }),
    };
    let text = serde_json::to_string_pretty(&v).unwrap_or_default();
    let mut r = CallToolResult::structured(v);
    r.content = vec![ContentBlock::text(text)];
    Ok(r)
}
