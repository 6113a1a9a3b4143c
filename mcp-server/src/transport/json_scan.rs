//! A one-pass scan of JSON text fed in pieces, before it is parsed: how deep it nests (so a
//! message nested too deep is refused before a parser recurses into it, and need not be kept),
//! and the top-level `"id"` of a JSON-RPC message (so even a message refused unparsed gets its
//! answer under its id). It keeps a few counters and at most [`MAX_ID_BYTES`] bytes, however
//! long the text; it does not validate the JSON (the parser does, when the text is kept).

/// The longest `id` token kept (quotes included); a longer one is not read.
pub const MAX_ID_BYTES: usize = 256;

/// Where the scan is inside the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Slot {
    /// Before a member's key (after `{` or `,`).
    #[default]
    Key,
    /// After a key, before its `:`.
    Colon,
    /// After `:`, before the value.
    Value,
    /// After a value, before `,` or `}`.
    After,
}

/// What the scan is copying.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Capture {
    /// A top-level key (to know whether it is `"id"`).
    Key,
    /// The `id` value: a string (quotes kept).
    IdString,
    /// The `id` value: a number or a literal.
    IdScalar,
}

/// The scan's state between pieces of one text.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    max_depth: usize,
    depth: usize,
    too_deep: bool,
    started: bool,
    top_object: bool,
    in_string: bool,
    escaped: bool,
    slot: Slot,
    capture: Option<Capture>,
    token: Vec<u8>,
    key_is_id: bool,
    id: Option<Vec<u8>>,
}

impl Scan {
    /// A scan of a new text, which may nest `max_depth` arrays and objects deep.
    pub fn new(max_depth: usize) -> Self {
        Scan {
            max_depth,
            ..Scan::default()
        }
    }

    /// Whether the text so far nests deeper than the bound.
    pub fn too_deep(&self) -> bool {
        self.too_deep
    }

    /// The top-level `id` read so far, if it is a string or an integer (`None` for `null`, any
    /// other value, or none yet).
    pub fn id(&self) -> Option<serde_json::Value> {
        let raw = self.id.as_deref()?;
        match serde_json::from_slice::<serde_json::Value>(raw).ok()? {
            v @ serde_json::Value::String(_) => Some(v),
            v @ serde_json::Value::Number(_) if v.is_i64() || v.is_u64() => Some(v),
            _ => None,
        }
    }

    /// Scans the next piece of the text.
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if self.in_string && !self.escaped && self.capture.is_none() {
                // Inside a string nothing but its end or an escape matters: skip to them.
                match bytes[i..].iter().position(|b| *b == b'"' || *b == b'\\') {
                    Some(n) => i += n,
                    None => return,
                }
            }
            self.byte(bytes[i]);
            i += 1;
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            self.string_byte(b);
            return;
        }
        if self.capture == Some(Capture::IdScalar) {
            if !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                self.keep(b);
                return;
            }
            self.end_capture();
        }
        let member = self.top_object && self.depth == 1;
        match b {
            b'"' => {
                self.in_string = true;
                if member && self.slot == Slot::Key {
                    self.start_capture(Capture::Key, None);
                } else if member && self.slot == Slot::Value && self.wants_id() {
                    self.start_capture(Capture::IdString, Some(b));
                }
            }
            b'{' | b'[' => {
                if !self.started {
                    self.top_object = b == b'{';
                }
                self.depth += 1;
                self.too_deep |= self.depth > self.max_depth;
                if member {
                    self.slot = Slot::After;
                }
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.top_object && self.depth == 1 {
                    self.slot = Slot::After;
                }
            }
            b':' if member => self.slot = Slot::Value,
            b',' if member => {
                self.slot = Slot::Key;
                self.key_is_id = false;
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ if member && self.slot == Slot::Value => {
                if self.wants_id() {
                    self.start_capture(Capture::IdScalar, Some(b));
                }
                self.slot = Slot::After;
            }
            _ => {}
        }
        if !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            self.started = true;
        }
    }

    fn string_byte(&mut self, b: u8) {
        if self.escaped {
            self.escaped = false;
            self.keep(b);
            return;
        }
        match b {
            b'\\' => {
                self.escaped = true;
                self.keep(b);
            }
            b'"' => {
                self.in_string = false;
                if self.capture == Some(Capture::IdString) {
                    self.keep(b);
                }
                if self.top_object && self.depth == 1 {
                    self.slot = match self.slot {
                        Slot::Key => Slot::Colon,
                        _ => Slot::After,
                    };
                }
                self.end_capture();
            }
            _ => self.keep(b),
        }
    }

    /// The value being read is the first top-level `id`.
    fn wants_id(&self) -> bool {
        self.key_is_id && self.id.is_none()
    }

    fn start_capture(&mut self, what: Capture, first: Option<u8>) {
        self.capture = Some(what);
        self.token.clear();
        self.token.extend(first);
    }

    fn keep(&mut self, b: u8) {
        if self.capture.is_none() {
            return;
        }
        if self.token.len() < MAX_ID_BYTES {
            self.token.push(b);
        } else {
            // Too long to be a key we look for or an id we answer under.
            self.capture = None;
        }
    }

    fn end_capture(&mut self) {
        match self.capture.take() {
            Some(Capture::Key) => self.key_is_id = self.token == b"id",
            Some(Capture::IdString | Capture::IdScalar) => {
                self.id = Some(std::mem::take(&mut self.token));
            }
            None => {}
        }
    }

    /// Ends the text: an `id` number at the very end is complete.
    pub fn finish(&mut self) {
        if self.capture == Some(Capture::IdScalar) {
            self.end_capture();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scan(text: &str) -> Scan {
        let mut s = Scan::new(4);
        s.feed(text.as_bytes());
        s.finish();
        s
    }

    #[test]
    fn reads_the_top_level_id_in_any_position() {
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#).id(),
            Some(json!(7))
        );
        assert_eq!(scan(r#"{"id": "a\"b" }"#).id(), Some(json!("a\"b")));
        assert_eq!(scan(r#"{"params":{"id":1},"id":2}"#).id(), Some(json!(2)));
        assert_eq!(
            scan(r#"{"x":"id","y":["id",3],"id":4}"#).id(),
            Some(json!(4))
        );
        assert_eq!(scan(r#"{"id":5"#).id(), Some(json!(5)));
        assert_eq!(scan(r#"{"id":null}"#).id(), None);
        assert_eq!(scan(r#"{"id":{"a":1}}"#).id(), None);
        assert_eq!(scan(r#"{"id":1.5}"#).id(), None);
        assert_eq!(scan(r#"[{"id":1}]"#).id(), None);
        assert_eq!(scan(r#""id""#).id(), None);
        assert_eq!(scan(r#"{"i\"d":1}"#).id(), None);
        let long = format!(r#"{{"id":"{}"}}"#, "x".repeat(MAX_ID_BYTES));
        assert_eq!(scan(&long).id(), None);
    }

    #[test]
    fn reads_an_id_split_across_pieces() {
        let text = r#"{"method":"tools/call","params":{"a":"{[\"x"},"id":"req-12"}"#;
        for cut in 0..text.len() {
            let mut s = Scan::new(4);
            s.feed(&text.as_bytes()[..cut]);
            s.feed(&text.as_bytes()[cut..]);
            s.finish();
            assert_eq!(s.id(), Some(json!("req-12")), "cut at {cut}");
            assert!(!s.too_deep());
        }
    }

    #[test]
    fn depth_counts_arrays_and_objects_outside_strings() {
        assert!(!scan("[[[[1]]]]").too_deep());
        assert!(scan("[[[[[1]]]]]").too_deep());
        assert!(scan(r#"{"a":{"b":{"c":{"d":{}}}}}"#).too_deep());
        assert!(!scan(r#"{"a":"[[[[[[[[[[{{{{{"}"#).too_deep());
        assert!(!scan(r#"[[["\"[[[[["]]]"#).too_deep());
        // Deeper than the bound and back: still too deep, and the id after it is read.
        let s = scan(r#"{"params":[[[[[[]]]]]],"id":9}"#);
        assert!(s.too_deep());
        assert_eq!(s.id(), Some(json!(9)));
    }
}
