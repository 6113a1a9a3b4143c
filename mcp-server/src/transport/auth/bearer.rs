//! Static bearer tokens: which principal's route a request's token selects, compared in
//! constant time, and the rule that a server without a token binds loopback only.

use std::net::SocketAddr;

use sha2::{Digest, Sha256};
use subtle::ConditionallySelectable;
use subtle::ConstantTimeEq;

/// Why HTTP cannot start.
pub fn check_bind(addr: &SocketAddr, token: Option<&str>) -> Result<(), String> {
    if token.is_none() && !addr.ip().is_loopback() {
        return Err(format!(
            "refusing to serve {addr} without a bearer token: bind a loopback address or set --auth-token-env"
        ));
    }
    Ok(())
}

/// SHA-256 of a token: every comparison is over 32 bytes, so neither a token's length nor its
/// content leaks through timing.
pub fn token_digest(token: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&Sha256::digest(token));
    out
}

/// The bearer token of a request's `Authorization` header.
pub fn bearer_of(header_value: Option<&str>) -> Option<&str> {
    let v = header_value?;
    let given = v
        .strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))?;
    Some(given.trim())
}

/// The index of the route whose token `given` is, comparing against every token in constant
/// time, all of them every time (no early exit: the match's position does not show).
pub fn route_for(given: Option<&str>, digests: &[[u8; 32]]) -> Option<usize> {
    let digest = token_digest(given.unwrap_or_default().as_bytes());
    let mut found: u32 = 0;
    for (i, d) in digests.iter().enumerate() {
        let index = u32::try_from(i + 1).unwrap_or(u32::MAX);
        found.conditional_assign(&index, digest.ct_eq(d));
    }
    // A request without a token matches nothing, even a (refused at start) empty token.
    if given.is_none() || found == 0 {
        return None;
    }
    usize::try_from(found - 1).ok()
}
