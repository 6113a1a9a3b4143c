//! How MCP requests reach the tools: streamable HTTP ([`http`]: router, Origin check, body cap)
//! with static bearer tokens, OAuth access tokens or client certificates ([`auth`],
//! [`identify`]), over TLS when configured ([`tls`]), or stdio ([`stdio`]).

pub mod auth;
pub mod http;
pub mod identify;
pub mod stdio;
pub mod tls;
