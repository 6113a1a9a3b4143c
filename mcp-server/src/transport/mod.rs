//! How MCP requests reach the tools: streamable HTTP ([`http`]: router, Origin check, body cap)
//! with static bearer tokens or OAuth access tokens ([`auth`], [`identify`]), or stdio
//! ([`stdio`]).

pub mod auth;
pub mod http;
pub mod identify;
pub mod stdio;
