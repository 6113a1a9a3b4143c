//! `tools/list` and `prompts/list`: the tools a caller is shown, and the cache hints of MCP
//! 2026-07-28. A list served to a verified caller depends on who it is (its principal's mode,
//! tools, published queries, its token's scopes), so it is `private`: a shared cache keyed by
//! the URL would otherwise hand one principal's list to another. Only a server without
//! authentication (stdio, `--allow-unauthenticated`), whose one list is everyone's, says
//! `public`.

use rmcp::model::{
    CacheScope, ListPromptsResult, ListToolsResult, Prompt, ProtocolVersion, ResultType, Tool,
};
use rmcp::service::RequestContext;
use rmcp::RoleServer;

use super::caller::caller_of;
use crate::codes::BuiltinTool;

/// The cache hints for a list answered to `context`'s caller: `(ttl_ms, cache_scope)` for
/// clients of 2026-07-28 and later, none before.
fn cache_hints(context: &RequestContext<RoleServer>) -> Option<(u64, CacheScope)> {
    let modern = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    let scope = match caller_of(context) {
        Some(_) => CacheScope::Private,
        None => CacheScope::Public,
    };
    modern.then_some((0, scope))
}

/// `tools` less the mutation tools for a caller whose token lacks the write scope; cacheable
/// hints for clients of 2026-07-28 and later.
pub(crate) fn tools_for(
    mut tools: Vec<Tool>,
    context: &RequestContext<RoleServer>,
) -> ListToolsResult {
    if caller_of(context).is_some_and(|c| c.missing_write_scope.is_some()) {
        tools.retain(|t| !BuiltinTool::named(&t.name).is_some_and(BuiltinTool::writes));
    }
    let hints = cache_hints(context);
    ListToolsResult {
        result_type: Some(ResultType::COMPLETE),
        tools,
        meta: None,
        next_cursor: None,
        ttl_ms: hints.map(|h| h.0),
        cache_scope: hints.map(|h| h.1),
    }
}

/// `prompts`, with the same cache hints as the tools.
pub(crate) fn prompts_for(
    prompts: Vec<Prompt>,
    context: &RequestContext<RoleServer>,
) -> ListPromptsResult {
    let mut result = ListPromptsResult::with_all_items(prompts);
    if let Some((ttl, scope)) = cache_hints(context) {
        result = result.with_ttl_ms(ttl).with_cache_scope(scope);
    }
    result
}
