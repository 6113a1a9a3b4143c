//! `tools/list`: the tools a caller is shown, and the cache hints of MCP 2026-07-28.

use rmcp::model::{CacheScope, ListToolsResult, ProtocolVersion, ResultType, Tool};
use rmcp::service::RequestContext;
use rmcp::RoleServer;

use super::caller::caller_of;

/// `tools` less the mutation tools for a caller whose token lacks the write scope (the list then
/// depends on the caller: private to it); cacheable hints for clients of 2026-07-28 and later.
pub(crate) fn tools_for(
    mut tools: Vec<Tool>,
    context: &RequestContext<RoleServer>,
) -> ListToolsResult {
    let narrowed = caller_of(context).is_some_and(|c| c.missing_write_scope.is_some());
    if narrowed {
        tools.retain(|t| !t.name.starts_with("run_mutation") && t.name != "approval_status");
    }
    let cache_hints = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    let scope = if narrowed {
        CacheScope::Private
    } else {
        CacheScope::Public
    };
    ListToolsResult {
        result_type: Some(ResultType::COMPLETE),
        tools,
        meta: None,
        next_cursor: None,
        ttl_ms: cache_hints.then_some(0),
        cache_scope: cache_hints.then_some(scope),
    }
}
