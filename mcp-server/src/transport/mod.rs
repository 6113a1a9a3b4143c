//! How MCP requests reach the tools: streamable HTTP ([`http`]: router, Origin check, body cap)
//! with static bearer tokens, OAuth access tokens or client certificates ([`auth`],
//! [`identify`]), over TLS when configured ([`tls`]), or stdio ([`stdio`]); over both, each
//! message is bounded and a refused one answered ([`frame`], [`json_scan`]).

pub mod approver;
pub mod auth;
pub mod frame;
pub mod http;
pub mod http_body;
pub mod identify;
pub mod json_scan;
pub mod session_guard;
pub mod sessions;
pub mod stdio;
pub mod tls;
