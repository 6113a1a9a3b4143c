//! How MCP requests reach the tools: streamable HTTP ([`http`]: router, Origin check, body cap)
//! with bearer tokens ([`auth`]), or stdio ([`stdio`]).

pub mod auth;
pub mod http;
pub mod stdio;
