//! Who is calling over HTTP. A request carries a static bearer token ([`bearer`]) or an OAuth 2.1
//! access token: a JWT verified against its issuer's keys ([`jwt`], keys from [`jwks`], the
//! signature by ring: [`ring_crypto`]) and
//! mapped to a principal by its claims ([`claims`]), kept verified for a minute at most
//! ([`verified`]). A request that proves neither gets the
//! answer [`challenge`] writes, which points the client to this server's protected resource
//! metadata ([`metadata`], RFC 9728) and from there to the issuer.
//!
//! What a request proved travels with it as a [`crate::tools::caller::Caller`], which the tools
//! read: nothing in the request but the verified token chooses the principal, its variables or
//! its scopes.

pub mod bearer;
pub mod challenge;
pub mod claims;
pub mod jwks;
pub mod jwt;
pub mod metadata;
pub mod ring_crypto;
pub mod verified;

pub use bearer::{bearer_of, check_bind, route_for, token_digest};
