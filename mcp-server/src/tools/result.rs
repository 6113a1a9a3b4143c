//! The MCP results every tool returns: a success (structured content plus its text) or a failure
//! (the [`ToolError`] as structured content, `isError` set).

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use crate::tools::error::ToolError;
use crate::tools::text;

/// A result carrying `value` as structured content and `rendering` as its text.
pub fn success<T: Serialize>(value: &T, rendering: String) -> CallToolResult {
    success_json(serde_json::to_value(value).unwrap_or_default(), rendering)
}

/// A result whose structured content is already JSON (no second copy of the rows), with
/// `rendering` as its text. Built from `success` rather than rmcp's `structured`, which would
/// first print `value` as the text only for it to be replaced.
pub fn success_json(value: serde_json::Value, rendering: String) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(rendering)]);
    r.structured_content = Some(value);
    r
}

/// A refusal or error: the [`ToolError`] as structured content, its text, `isError` set.
pub fn failure(e: &ToolError) -> CallToolResult {
    let v = serde_json::to_value(e).unwrap_or_default();
    let mut r = CallToolResult::error(vec![ContentBlock::text(text::error(e))]);
    r.structured_content = Some(v);
    r
}
