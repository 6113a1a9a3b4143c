//! Continuing a file's chain: its last line says where the chain stands, or that the server
//! stopped mid-write (a torn line the next header names).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};

use super::chain::{Break, ChainState};
use super::line::link_of;

/// How much of a file's end is read to find its last line. Records are bounded by the HTTP body
/// cap (1 MiB by default), so the last two lines fit.
const TAIL_BYTES: u64 = 8 << 20;

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
    use crate::audit::chain::sha256_hex;

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
