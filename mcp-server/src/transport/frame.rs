//! One JSON-RPC message as it arrives (a line over stdio, a body over HTTP), judged before rmcp
//! sees it: within the size and depth bounds and parsed, or answered with a JSON-RPC error
//! (`-32700` parse error, `-32600` invalid request) under its `id` when the scan could read it,
//! else `null`, so that every request gets an answer. [`FrameCodec`] cuts stdin into lines
//! holding at most the bound's bytes: the rest of an over-long line (or of one nested too deep)
//! is scanned for its `id` and dropped as it arrives.

use rmcp::model::ClientJsonRpcMessage;
use serde_json::{json, Value};
use tokio_util::bytes::{Buf, BytesMut};
use tokio_util::codec::Decoder;

use super::json_scan::Scan;

/// The largest message read over stdio, in bytes (its newline not counted).
pub const DEFAULT_MAX_FRAME_BYTES: usize = 8 * 1024 * 1024;

/// How deep a message may nest arrays and objects. rmcp parses with serde_json, whose recursion
/// limit refuses anything deeper (its HTTP transport parses the body itself), so both transports
/// refuse the same messages, before parsing, with the same answer.
pub const MAX_JSON_DEPTH: usize = 127;

/// JSON-RPC's parse error code.
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's invalid request code.
pub const INVALID_REQUEST: i32 = -32600;

/// The bounds on one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLimits {
    /// Bytes in one message.
    pub max_bytes: usize,
    /// Nesting of arrays and objects.
    pub max_depth: usize,
}

impl Default for FrameLimits {
    fn default() -> Self {
        FrameLimits {
            max_bytes: DEFAULT_MAX_FRAME_BYTES,
            max_depth: MAX_JSON_DEPTH,
        }
    }
}

/// What became of one message.
#[derive(Debug)]
pub enum Frame {
    /// A message for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// A JSON-RPC error response to send back (one line of JSON, without its newline).
    Reply(Reject),
    /// Nothing to do: an empty line, or a notification rmcp does not know (no answer is due).
    Skip,
}

/// A refused message: the JSON-RPC error answering it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reject {
    /// `-32700` or `-32600`.
    pub code: i32,
    /// What was wrong, never the message's content.
    pub message: String,
    /// The request's id when the scan read one, else `null`.
    pub id: Value,
    /// The message was over the size bound (HTTP answers 413).
    pub too_large: bool,
}

impl Reject {
    /// The error response, a JSON-RPC 2.0 error object with `id` (null when unknown).
    pub fn to_json(&self) -> Vec<u8> {
        let v = json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        });
        serde_json::to_vec(&v).unwrap_or_default()
    }

    /// A message over `limits.max_bytes`.
    pub fn too_large(limits: FrameLimits, id: Option<Value>) -> Self {
        Reject {
            code: INVALID_REQUEST,
            message: format!(
                "Invalid request: the message is over the {} bytes this server reads",
                limits.max_bytes
            ),
            id: id.unwrap_or(Value::Null),
            too_large: true,
        }
    }

    /// A message nesting deeper than `limits.max_depth`.
    pub fn too_deep(limits: FrameLimits, id: Option<Value>) -> Self {
        Reject {
            code: INVALID_REQUEST,
            message: format!(
                "Invalid request: the message nests arrays and objects deeper than {} levels",
                limits.max_depth
            ),
            id: id.unwrap_or(Value::Null),
            too_large: false,
        }
    }
}

/// Judges one whole message (within the size bound) that `scan` has read.
pub fn judge(text: &[u8], mut scan: Scan, limits: FrameLimits) -> Frame {
    scan.finish();
    let text = text.strip_suffix(b"\r").unwrap_or(text);
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Frame::Skip;
    }
    if scan.too_deep() {
        return Frame::Reply(Reject::too_deep(limits, scan.id()));
    }
    let e = match serde_json::from_slice::<ClientJsonRpcMessage>(text) {
        Ok(m) => return Frame::Message(Box::new(m)),
        Err(e) => e,
    };
    let id = scan.id().unwrap_or(Value::Null);
    let (code, message) = match e.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
            if e.to_string().contains("recursion limit") {
                return Frame::Reply(Reject::too_deep(limits, scan.id()));
            }
            (PARSE_ERROR, format!("Parse error: {e}"))
        }
        serde_json::error::Category::Data | serde_json::error::Category::Io => {
            // A notification is never answered, not even a malformed one (rmcp drops the ones
            // it does not know too).
            let v = serde_json::from_slice::<Value>(text).unwrap_or(Value::Null);
            if v.get("method").is_some() && v.get("id").is_none() {
                return Frame::Skip;
            }
            (
                INVALID_REQUEST,
                format!("Invalid request: not a JSON-RPC message this server takes: {e}"),
            )
        }
    };
    Frame::Reply(Reject {
        code,
        message,
        id,
        too_large: false,
    })
}

/// Why the current line is being dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dropping {
    TooLarge,
    TooDeep,
}

/// Cuts a byte stream into newline-ended messages within [`FrameLimits`], judging each.
#[derive(Debug)]
pub struct FrameCodec {
    limits: FrameLimits,
    scan: Scan,
    /// Bytes of the buffer's current line already scanned.
    scanned: usize,
    dropping: Option<Dropping>,
}

impl FrameCodec {
    /// A codec holding messages to `limits`.
    pub fn new(limits: FrameLimits) -> Self {
        FrameCodec {
            limits,
            scan: Scan::new(limits.max_depth),
            scanned: 0,
            dropping: None,
        }
    }

    /// The answer to the line just dropped; the next line starts afresh.
    fn dropped(&mut self) -> Frame {
        let mut scan = std::mem::replace(&mut self.scan, Scan::new(self.limits.max_depth));
        scan.finish();
        self.scanned = 0;
        Frame::Reply(match self.dropping.take() {
            Some(Dropping::TooDeep) => Reject::too_deep(self.limits, scan.id()),
            _ => Reject::too_large(self.limits, scan.id()),
        })
    }

    fn judge_line(&mut self, line: &[u8]) -> Frame {
        let scan = std::mem::replace(&mut self.scan, Scan::new(self.limits.max_depth));
        self.scanned = 0;
        judge(line, scan, self.limits)
    }
}

impl Decoder for FrameCodec {
    type Item = Frame;
    type Error = std::io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, std::io::Error> {
        loop {
            let start = self.scanned.min(buf.len());
            let newline = buf[start..].iter().position(|b| *b == b'\n');
            let end = newline.map_or(buf.len(), |n| start + n);
            self.scan.feed(&buf[start..end]);
            if self.dropping.is_none() && end > self.limits.max_bytes {
                self.dropping = Some(Dropping::TooLarge);
            }
            if self.dropping.is_none() && self.scan.too_deep() {
                self.dropping = Some(Dropping::TooDeep);
            }
            if self.dropping.is_some() {
                // Over a bound: the line's bytes are not kept, only scanned for the id.
                return Ok(match newline {
                    Some(_) => {
                        buf.advance(end + 1);
                        Some(self.dropped())
                    }
                    None => {
                        buf.clear();
                        self.scanned = 0;
                        None
                    }
                });
            }
            let Some(_) = newline else {
                self.scanned = end;
                return Ok(None);
            };
            let line = buf.split_to(end + 1);
            match self.judge_line(&line[..end]) {
                Frame::Skip => continue,
                frame => return Ok(Some(frame)),
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, std::io::Error> {
        if let Some(frame) = self.decode(buf)? {
            return Ok(Some(frame));
        }
        // A last line without its newline.
        if self.dropping.is_some() {
            buf.clear();
            return Ok(Some(self.dropped()));
        }
        if buf.is_empty() {
            return Ok(None);
        }
        let line = buf.split_to(buf.len());
        Ok(match self.judge_line(&line) {
            Frame::Skip => None,
            frame => Some(frame),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

    fn limits() -> FrameLimits {
        FrameLimits {
            max_bytes: 64,
            max_depth: 5,
        }
    }

    /// Every frame `input` yields, fed in pieces of `step` bytes.
    fn frames(input: &[u8], step: usize) -> Vec<Frame> {
        let mut codec = FrameCodec::new(limits());
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for piece in input.chunks(step) {
            buf.extend_from_slice(piece);
            while let Some(f) = codec.decode(&mut buf).expect("decode") {
                out.push(f);
            }
            assert!(buf.len() <= limits().max_bytes + step, "kept {}", buf.len());
        }
        while let Some(f) = codec.decode_eof(&mut buf).expect("eof") {
            out.push(f);
        }
        out
    }

    fn describe(f: &Frame) -> String {
        match f {
            Frame::Message(_) => "message".into(),
            Frame::Reply(r) => format!("{} {}", r.code, r.id),
            Frame::Skip => "skip".into(),
        }
    }

    #[test]
    fn each_line_is_a_message_or_an_answer() {
        let big = format!(r#"{{"id":"big","pad":"{}"}}"#, "x".repeat(200));
        let deep = format!(r#"{{"id":3,"p":{}{}}}"#, "[".repeat(50), "]".repeat(50));
        let input = [
            PING,
            "",
            "  ",
            "{not json",
            r#"{"jsonrpc":"2.0","id":"s","method":"ping""#,
            &big,
            r#"{"id":4,"result":"?"}"#,
            &deep,
            r#"{"jsonrpc":"2.0","method":"notifications/whatever"}"#,
            "[1,2]",
            PING,
        ]
        .join("\n");
        for step in [1, 3, 7, 64, 4096] {
            let got: Vec<String> = frames(input.as_bytes(), step)
                .iter()
                .map(describe)
                .collect();
            assert_eq!(
                got,
                [
                    "message",
                    "-32700 null",
                    "-32700 \"s\"",
                    "-32600 \"big\"",
                    "-32600 4",
                    "-32600 3",
                    // rmcp takes a notification it does not know (and drops it).
                    "message",
                    "-32600 null",
                    "message"
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn a_last_line_without_newline_and_an_unfinished_long_line_are_answered() {
        let got: Vec<String> = frames(PING.as_bytes(), 5).iter().map(describe).collect();
        assert_eq!(got, ["message"]);
        let long = format!(r#"{{"id":8,"pad":"{}"#, "x".repeat(500));
        let got: Vec<String> = frames(long.as_bytes(), 16).iter().map(describe).collect();
        assert_eq!(got, ["-32600 8"]);
    }

    #[test]
    fn serde_json_recursion_limit_is_answered_as_too_deep() {
        let limits = FrameLimits {
            max_bytes: 1 << 20,
            max_depth: 10_000,
        };
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let mut scan = Scan::new(limits.max_depth);
        scan.feed(deep.as_bytes());
        let Frame::Reply(r) = judge(deep.as_bytes(), scan, limits) else {
            panic!("parsed")
        };
        assert_eq!((r.code, r.id), (INVALID_REQUEST, serde_json::json!(5)));
        assert!(r.message.contains("deeper"), "{}", r.message);
    }

    #[test]
    fn the_depth_bound_is_what_serde_json_parses() {
        let limits = FrameLimits::default();
        let at = |depth: usize| {
            // The envelope and `params` and `arguments` are three levels.
            let inner = depth - 3;
            format!(
                r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"x","arguments":{{"a":{}{}}}}}}}"#,
                "[".repeat(inner),
                "]".repeat(inner)
            )
        };
        for (depth, ok) in [(MAX_JSON_DEPTH, true), (MAX_JSON_DEPTH + 1, false)] {
            let text = at(depth);
            let mut scan = Scan::new(limits.max_depth);
            scan.feed(text.as_bytes());
            assert_eq!(scan.too_deep(), !ok, "depth {depth}");
            let parsed = matches!(judge(text.as_bytes(), scan, limits), Frame::Message(_));
            assert_eq!(parsed, ok, "depth {depth}");
        }
    }
}
