//! The hash chain: every line carries `seq` and `prev` (hex SHA-256 of the previous line's exact
//! bytes, without its newline); the first line a server writes to a file is a header. Resuming
//! reads the file's last line so a restart or a rotation continues the same chain.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How much of a file's end is read to find its last line. Records are bounded by the HTTP body
/// cap (1 MiB by default), so the last two lines fit.
const TAIL_BYTES: u64 = 8 << 20;

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

/// What a file's end says about continuing its chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resume {
    /// An empty file: continue from memory (or start a chain).
    Empty,
    /// The last line is intact: continue after it.
    Continue(ChainState),
    /// The last line is torn or unreadable: continue after the line before it, naming the break.
    Torn(ChainState, Break),
}

/// Reads the end of `f` and says how its chain continues.
pub fn resume(f: &mut File) -> std::io::Result<Resume> {
    let len = f.metadata()?.len();
    if len == 0 {
        return Ok(Resume::Empty);
    }
    let start = len.saturating_sub(TAIL_BYTES);
    f.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail)?;
    f.seek(SeekFrom::End(0))?;
    Ok(classify_tail(&tail, start))
}

fn link_of(line: &[u8]) -> Option<Link> {
    Link::parse(line)
}

impl Link {
    /// The chain fields of a line in either format (jsonl, or OTLP/JSON attributes).
    pub fn parse(line: &[u8]) -> Option<Link> {
        let v: serde_json::Value = serde_json::from_slice(line).ok()?;
        if v.get("resourceLogs").is_none() {
            return serde_json::from_value(v).ok();
        }
        let a = super::otel::flat_attributes(&v)?;
        let seq = a.get(super::otel::SEQ)?.as_str()?.parse().ok()?;
        let prev = a
            .get(super::otel::PREV)
            .and_then(|p| p.as_str())
            .map(str::to_string);
        let header = match a.get(super::otel::HEADER).and_then(|h| h.as_str()) {
            Some(h) => Some(serde_json::from_str(h).ok()?),
            None => None,
        };
        Some(Link { seq, prev, header })
    }
}

/// Splits the tail into its last line and the one before, and classifies the end.
fn classify_tail(tail: &[u8], base: u64) -> Resume {
    let terminated = tail.last() == Some(&b'\n');
    let body = if terminated {
        &tail[..tail.len() - 1]
    } else {
        tail
    };
    let cut = body.iter().rposition(|&b| b == b'\n');
    let last = cut.map_or(body, |i| &body[i + 1..]);
    if terminated {
        if let Some(link) = link_of(last) {
            let mut s = ChainState {
                next_seq: link.seq,
                prev: None,
            };
            s.advance(last);
            return Resume::Continue(s);
        }
    }
    let offset = base + cut.map_or(0, |i| i as u64 + 1);
    let brk = Break {
        reason: if terminated {
            "unreadable last line".into()
        } else {
            "torn last line (no newline: the server stopped mid-write)".into()
        },
        offset,
        bytes: last.len() as u64,
    };
    let before = cut.map_or(&body[..0], |i| &body[..i]);
    let prev_line = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(before, |i| &before[i + 1..]);
    let state = match link_of(prev_line) {
        Some(link) => {
            let mut s = ChainState {
                next_seq: link.seq,
                prev: None,
            };
            s.advance(prev_line);
            s
        }
        None => ChainState::default(),
    };
    Resume::Torn(state, brk)
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

    #[test]
    fn tail_intact_torn_and_unreadable() {
        let a = br#"{"seq":0,"prev":null}"#;
        let b = br#"{"seq":1,"prev":"x"}"#;
        let mut file = [&a[..], b"\n", b, b"\n"].concat();
        let mut want = ChainState::default();
        want.advance(a);
        want.advance(b);
        assert_eq!(classify_tail(&file, 0), Resume::Continue(want));
        file.extend_from_slice(br#"{"seq":2,"pr"#);
        let Resume::Torn(state, brk) = classify_tail(&file, 0) else {
            panic!("torn")
        };
        assert_eq!(state.next_seq, 2);
        assert_eq!(state.prev, Some(sha256_hex(b)));
        assert_eq!(brk.offset as usize, a.len() + b.len() + 2);
    }
}
