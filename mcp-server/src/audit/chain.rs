//! The hash chain: every line carries `seq` and `prev` (hex SHA-256 of the previous line's exact
//! bytes, without its newline); the first line a server writes to a file is a header. The chain
//! knows no line format: [`super::line`] reads its fields back from either format, and
//! [`super::resume`] continues a file's chain after a restart or a rotation.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where the chain stands: the next `seq` and the hash of the last line written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChainState {
    /// `seq` of the next line.
    pub next_seq: u64,
    /// Hash of the last line (`None` before the first).
    pub prev: Option<String>,
}

impl ChainState {
    /// Advances past `line` (as written, without its newline).
    pub fn advance(&mut self, line: &[u8]) {
        self.next_seq += 1;
        self.prev = Some(sha256_hex(line));
    }
}

/// The chain fields every line carries, as the verifier and a restart read them back.
#[derive(Debug, Clone, Deserialize)]
pub struct Link {
    /// Position in the chain.
    pub seq: u64,
    /// Hash of the previous line.
    pub prev: Option<String>,
    /// Present on header lines.
    pub header: Option<Header>,
}

/// A break the server found in the file it continues: a torn last line (crash mid-write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Break {
    /// Why the chain could not simply continue.
    pub reason: String,
    /// Byte offset of the torn line in the file.
    pub offset: u64,
    /// Its length in bytes.
    pub bytes: u64,
}

/// The first line a server writes to a file (at start and after each rotation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// `sqlgate-mcp <version>`.
    pub server: String,
    /// Write mode.
    pub mode: String,
    /// SQL dialect.
    pub dialect: String,
    /// Hex SHA-256 of the effective policy's JSON.
    pub policy_sha256: String,
    /// RFC 3339 start time of this file's part of the chain.
    pub start: String,
    /// Why this header follows the previous line: `start`, `restart`, `rotation` or `torn`.
    pub reason: String,
    /// The torn line this header skips, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#break: Option<Break>,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
