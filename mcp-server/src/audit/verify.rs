//! `sqlgate-mcp audit verify FILE...`: walks the chain across the files in order and either
//! summarises it or names the first line that breaks it, and how.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::chain::{sha256_hex, Link};
use super::line::link_of;

/// How the chain breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tamper {
    /// The line's bytes changed.
    Edited,
    /// Records are missing before the line.
    Deleted,
    /// The line is not part of the chain.
    Inserted,
    /// The line is out of order.
    Reordered,
    /// The last line is cut short.
    Truncated,
}

/// The first line that breaks the chain.
#[derive(Debug, Clone, Serialize)]
pub struct Broken {
    /// The file.
    pub file: PathBuf,
    /// 1-based line number in that file.
    pub line: usize,
    /// How.
    pub kind: Tamper,
    /// Details.
    pub detail: String,
}

/// What an intact chain holds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Call records (headers excluded).
    pub records: u64,
    /// Header lines (server starts, restarts, rotations).
    pub headers: u64,
    /// Torn lines the server found and skipped, named by its headers (file:line).
    pub recorded_breaks: Vec<String>,
    /// Time of the first record.
    pub first_time: Option<String>,
    /// Time of the last record.
    pub last_time: Option<String>,
    /// Records per decision.
    pub decisions: BTreeMap<String, u64>,
    /// Records per query class.
    pub query_classes: BTreeMap<String, u64>,
    /// Records per tool.
    pub tools: BTreeMap<String, u64>,
    /// `seq` of the last line.
    pub last_seq: Option<u64>,
}

struct Line {
    file: usize,
    no: usize,
    offset: u64,
    text: Vec<u8>,
    terminated: bool,
}

impl Line {
    fn link(&self) -> Option<Link> {
        link_of(&self.text)
    }
}

fn split(file: usize, bytes: &[u8]) -> Vec<Line> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    for (i, chunk) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let terminated = chunk.last() == Some(&b'\n');
        let text = if terminated {
            &chunk[..chunk.len() - 1]
        } else {
            chunk
        };
        out.push(Line {
            file,
            no: i + 1,
            offset: offset as u64,
            text: text.to_vec(),
            terminated,
        });
        offset += chunk.len();
    }
    out
}

/// Verifies the chain through `files`, in order.
pub fn verify_files<P: AsRef<Path>>(files: &[P]) -> Result<Result<Summary, Broken>, String> {
    verify(files, false)
}

/// Verifies the file a running server appends to: a last line without its newline yet is a
/// write in progress, not a truncation, and is left out.
pub fn verify_live(file: &Path) -> Result<Result<Summary, Broken>, String> {
    verify(&[file], true)
}

fn verify<P: AsRef<Path>>(files: &[P], live: bool) -> Result<Result<Summary, Broken>, String> {
    let files: Vec<PathBuf> = files.iter().map(|f| f.as_ref().to_path_buf()).collect();
    let mut lines = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let mut bytes = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
        if live {
            let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            bytes.truncate(end);
        }
        lines.extend(split(i, &bytes));
    }
    Ok(Walk {
        files: &files,
        lines: &lines,
    }
    .run())
}

struct Walk<'a> {
    files: &'a [PathBuf],
    lines: &'a [Line],
}

impl Walk<'_> {
    fn broken(&self, i: usize, kind: Tamper, detail: String) -> Broken {
        let l = &self.lines[i];
        Broken {
            file: self.files[l.file].clone(),
            line: l.no,
            kind,
            detail,
        }
    }

    fn run(&self) -> Result<Summary, Broken> {
        let mut sum = Summary::default();
        let Some(first) = self.lines.first() else {
            return Ok(sum);
        };
        let start = first.link().filter(|l| l.header.is_some());
        let Some(start) = start.filter(|_| first.terminated) else {
            return Err(self.broken(
                0,
                Tamper::Deleted,
                "the first line is not a chain header".into(),
            ));
        };
        let mut expected = start.seq + 1;
        let mut prev = sha256_hex(&first.text);
        sum.headers = 1;
        sum.last_seq = Some(start.seq);
        let mut i = 1;
        while i < self.lines.len() {
            let line = &self.lines[i];
            if let Some(link) = line.link().filter(|l| {
                line.terminated && l.seq == expected && l.prev.as_deref() == Some(prev.as_str())
            }) {
                count(&mut sum, line, &link);
                expected += 1;
                prev = sha256_hex(&line.text);
                i += 1;
                continue;
            }
            if self.recorded_break(i, expected, &prev) {
                sum.recorded_breaks.push(format!(
                    "{}:{}",
                    self.files[line.file].display(),
                    line.no
                ));
                i += 1;
                continue;
            }
            return Err(self.diagnose(i, expected, &prev));
        }
        Ok(sum)
    }

    /// Line `i` is a torn line the server skipped: the next line is a header naming it, linked
    /// to the line before it.
    fn recorded_break(&self, i: usize, expected: u64, prev: &str) -> bool {
        let line = &self.lines[i];
        let Some(next) = self.lines.get(i + 1) else {
            return false;
        };
        let Some(link) = next.link() else {
            return false;
        };
        let names_it = link
            .header
            .as_ref()
            .and_then(|h| h.r#break.as_ref())
            .is_some_and(|b| b.offset == line.offset && b.bytes == line.text.len() as u64);
        names_it
            && next.file == line.file
            && link.seq == expected
            && link.prev.as_deref() == Some(prev)
    }

    fn links_at(&self, i: usize, expected: u64, prev: &str) -> bool {
        self.lines
            .get(i)
            .and_then(Line::link)
            .is_some_and(|l| l.seq == expected && l.prev.as_deref() == Some(prev))
    }

    fn diagnose(&self, i: usize, expected: u64, prev: &str) -> Broken {
        let line = &self.lines[i];
        if !line.terminated {
            return self.broken(
                i,
                Tamper::Truncated,
                "the last line has no newline: cut short".into(),
            );
        }
        let link = line.link();
        if let Some(l) = &link {
            let later = self.lines[i + 1..]
                .iter()
                .any(|x| x.link().is_some_and(|k| k.seq == expected));
            if l.seq > expected && later {
                return self.broken(
                    i,
                    Tamper::Reordered,
                    format!(
                        "seq {} where {expected} belongs; {expected} comes later",
                        l.seq
                    ),
                );
            }
        }
        if self.links_at(i + 1, expected, prev) {
            return self.broken(
                i,
                Tamper::Inserted,
                "the next line links to the line before this one".into(),
            );
        }
        let Some(l) = link else {
            return self.broken(
                i,
                Tamper::Edited,
                "not a chain record (JSON or chain fields damaged)".into(),
            );
        };
        let prev_ok = l.prev.as_deref() == Some(prev);
        if l.seq == expected && !prev_ok && i > 0 {
            let detail = format!(
                "its hash no longer matches the `prev` of the line after it (seq {expected})"
            );
            return self.broken(i - 1, Tamper::Edited, detail);
        }
        if prev_ok {
            return self.broken(
                i,
                Tamper::Edited,
                format!("seq {} where {expected} belongs, but `prev` matches", l.seq),
            );
        }
        if l.seq > expected {
            return self.broken(
                i,
                Tamper::Deleted,
                format!(
                    "records {expected}..{} are missing before this line",
                    l.seq - 1
                ),
            );
        }
        self.broken(
            i,
            Tamper::Inserted,
            format!(
                "seq {} repeats an earlier record (expected {expected})",
                l.seq
            ),
        )
    }
}

fn count(sum: &mut Summary, line: &Line, link: &Link) {
    sum.last_seq = Some(link.seq);
    if link.header.is_some() {
        sum.headers += 1;
        return;
    }
    sum.records += 1;
    let v = fields(&line.text);
    let field = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    if let Some(t) = field("time") {
        if sum.first_time.is_none() {
            sum.first_time = Some(t.clone());
        }
        sum.last_time = Some(t);
    }
    for (key, map) in [
        ("decision", &mut sum.decisions),
        ("query_class", &mut sum.query_classes),
        ("tool", &mut sum.tools),
    ] {
        if let Some(x) = field(key) {
            *map.entry(x).or_default() += 1;
        }
    }
}

/// A record's fields by their jsonl names, in either format.
fn fields(line: &[u8]) -> serde_json::Map<String, serde_json::Value> {
    let v: serde_json::Value = serde_json::from_slice(line).unwrap_or_default();
    let Some(attrs) = super::otel::flat_attributes(&v) else {
        return v.as_object().cloned().unwrap_or_default();
    };
    let mut out = serde_json::Map::new();
    for (jsonl, attr) in [
        ("decision", "sqlgate.decision"),
        ("query_class", "sqlgate.query_class"),
        ("tool", "gen_ai.tool.name"),
    ] {
        if let Some(x) = attrs.get(attr) {
            out.insert(jsonl.into(), x.clone());
        }
    }
    if let Some(t) = v.pointer("/resourceLogs/0/scopeLogs/0/logRecords/0/timeUnixNano") {
        out.insert("time".into(), t.clone());
    }
    out
}

/// One line for humans.
pub fn describe(b: &Broken) -> String {
    format!(
        "audit chain broken at {}:{}: {} ({})",
        Path::new(&b.file).display(),
        b.line,
        serde_json::to_value(b.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default(),
        b.detail
    )
}
