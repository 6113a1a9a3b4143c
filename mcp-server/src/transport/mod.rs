//! How MCP requests reach the tools: streamable HTTP ([`http`]: router, Origin check, body cap;
//! [`connections`]: accept loop, header-read timeout, cap on connections not yet authenticated;
//! [`host`]: the `Host` header parsed) with static bearer tokens, OAuth access tokens or client
//! certificates ([`auth`], [`identify`]), each session its caller's ([`sessions`],
//! [`session_guard`]), over TLS when configured ([`tls`]), or stdio ([`stdio`]); over both,
//! each message is bounded and a refused one answered ([`frame`], [`json_scan`]).

pub mod approver;
pub mod auth;
pub mod connections;
pub mod frame;
pub mod host;
pub mod http;
pub mod http_body;
pub mod identify;
pub mod json_scan;
pub mod session_guard;
pub mod sessions;
pub mod stdio;
pub mod tls;
