//! Results: the limits of one query, its columns and rows, and the [`Collector`] that every engine
//! fills under the row and byte caps; what a mutation run returns, and when it commits.

use std::collections::HashSet;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::DbError;

/// Execution limits for one query.
#[derive(Debug, Clone, Copy)]
pub struct QueryLimits {
    /// Row cap returned to the caller (the backend may receive one more row to detect truncation).
    pub max_rows: Option<u64>,
    /// Cap on the JSON size of the returned rows.
    pub max_bytes: usize,
    /// Statement timeout.
    pub timeout: Duration,
}

/// A result column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResultColumn {
    /// The key of this column in each row object (duplicates get `_2`, `_3`, ...).
    pub name: String,
    /// The database's type name.
    #[serde(rename = "type")]
    pub data_type: String,
}

/// Rows returned by a backend.
#[derive(Debug, Clone, Default)]
pub struct QueryResult {
    /// Columns in order.
    pub columns: Vec<ResultColumn>,
    /// Rows as objects keyed by column name.
    pub rows: Vec<Map<String, Value>>,
    /// True when the row or byte cap cut the result.
    pub truncated: bool,
    /// The SHA-256 of each row's values, of every row read (past the caps too), when the
    /// rows were read to be digested ([`Reading::Digest`]).
    pub row_hashes: Option<Vec<RowsDigest>>,
}

/// A SHA-256 digest: of one row's values, or of a set of rows ([`QueryResult::rows_digest`]).
pub type RowsDigest = [u8; 32];

impl QueryResult {
    /// The digest of the rows read to be digested: their count and their hashes, sorted (the
    /// same rows in any order give the same digest); `None` when they were not digested.
    pub fn rows_digest(&self) -> Option<RowsDigest> {
        let mut hashes = self.row_hashes.clone()?;
        hashes.sort_unstable();
        let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
        ctx.update(&(hashes.len() as u64).to_be_bytes());
        for h in &hashes {
            ctx.update(h);
        }
        let mut out = [0u8; 32];
        out.copy_from_slice(ctx.finish().as_ref());
        Some(out)
    }
}

/// How an engine reads a statement's rows into a [`Collector`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Up to the caps, then stop (a query).
    UpToCap,
    /// Every row, keeping those under the caps (a mutation: its count comes after its last row).
    All,
    /// Every row, each hashed ([`QueryResult::row_hashes`]), keeping those under the caps (the
    /// rows a mutation is about to touch, compared between its preview and its commit).
    Digest,
}

impl Reading {
    /// True when rows past the caps are still read.
    pub fn reads_all(self) -> bool {
        self != Reading::UpToCap
    }
}

/// Unique keys for result columns: a repeated name becomes `name_2`, `name_3`, ...
pub fn unique_names(names: &[String]) -> Vec<String> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        let mut candidate = n.clone();
        let mut i = 2;
        while seen.contains(&candidate) {
            candidate = format!("{n}_{i}");
            i += 1;
        }
        seen.insert(candidate.clone());
        out.push(candidate);
    }
    out
}

/// Accumulates rows under the row and byte caps.
#[derive(Debug)]
pub struct Collector {
    keys: Vec<String>,
    limits: QueryLimits,
    bytes: usize,
    /// The result so far.
    pub result: QueryResult,
}

impl Collector {
    /// A collector for these columns (`names` and `types` in order).
    pub fn new(names: &[String], types: Vec<String>, limits: QueryLimits) -> Self {
        let keys = unique_names(names);
        let columns = keys
            .iter()
            .zip(types)
            .map(|(k, t)| ResultColumn {
                name: k.clone(),
                data_type: t,
            })
            .collect();
        Collector {
            keys,
            limits,
            bytes: 2,
            result: QueryResult {
                columns,
                rows: Vec::new(),
                truncated: false,
                row_hashes: None,
            },
        }
    }

    /// Hashes every row pushed from now on, past the caps too ([`Reading::Digest`]).
    pub fn read_as(mut self, reading: Reading) -> Self {
        if reading == Reading::Digest {
            self.result.row_hashes = Some(Vec::new());
        }
        self
    }

    /// Adds a row; returns false when a cap was hit (stop fetching; `truncated` is set).
    pub fn push(&mut self, values: Vec<Value>) -> bool {
        if let Some(hashes) = self.result.row_hashes.as_mut() {
            // Serialising JSON values to bytes cannot fail.
            let bytes = serde_json::to_vec(&values).unwrap_or_default();
            let mut h = [0u8; 32];
            h.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref());
            hashes.push(h);
        }
        if let Some(max) = self.limits.max_rows {
            if self.result.rows.len() as u64 >= max {
                self.result.truncated = true;
                return false;
            }
        }
        let mut row = Map::with_capacity(values.len());
        for (k, v) in self.keys.iter().zip(values) {
            row.insert(k.clone(), v);
        }
        let size = json_len(&row) + 1;
        if self.bytes + size > self.limits.max_bytes {
            self.result.truncated = true;
            return false;
        }
        self.bytes += size;
        self.result.rows.push(row);
        true
    }
}

/// The length of `row` serialised as JSON, counted without building the text (the byte cap is
/// checked on every row).
fn json_len(row: &Map<String, Value>) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Serialising a map of JSON values to a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, row);
    count.0
}

/// What one execution of a mutation did.
#[derive(Debug, Clone, Default)]
pub struct MutationRun {
    /// Rows the statement inserted, updated or deleted.
    pub affected_rows: u64,
    /// The first rows of its RETURNING list (capped by the limits), empty without one.
    pub returning: QueryResult,
    /// True when the transaction was committed (false: rolled back).
    pub committed: bool,
    /// The digest of the rows the statement was about to touch, read in its transaction just
    /// before it ran (`None` when no such read was given).
    pub touched: Option<RowsDigest>,
}

/// A mutation to run: the approved statement, and the SELECT of the rows it will touch (read
/// and digested in the same transaction just before it, when the statement's shape allows).
#[derive(Debug, Clone, Copy)]
pub struct MutationSql<'a> {
    /// The approved statement.
    pub sql: &'a str,
    /// The SELECT of the rows it touches, as the engine reads them (locking where it can).
    pub touched: Option<&'a str>,
}

/// What a mutation's preview saw of one statement, which its commit must see again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expected {
    /// The count of rows it touched.
    pub rows: u64,
    /// The digest of the rows it was about to touch.
    pub touched: Option<RowsDigest>,
}

impl MutationRun {
    /// What this run saw, for a later run of the same statement to match.
    pub fn expected(&self) -> Expected {
        Expected {
            rows: self.affected_rows,
            touched: self.touched,
        }
    }
}

/// When a mutation's transaction commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    /// Never: a preview, always rolled back.
    Rollback,
    /// Only when every statement touched exactly the preview's count of rows, and the rows it
    /// was about to touch have the preview's digest (one entry per statement, in order).
    CommitIfSame(Vec<Expected>),
}

impl Finish {
    /// True when `runs` (every statement of the transaction) commit: each touched the preview's
    /// count of rows, and the same rows.
    pub fn commits(&self, runs: &[MutationRun]) -> bool {
        match self {
            Finish::Rollback => false,
            Finish::CommitIfSame(expected) => {
                expected.len() == runs.len()
                    && expected.iter().zip(runs).all(|(e, r)| *e == r.expected())
            }
        }
    }
}

/// The limits of the read of the rows a mutation will touch: every row read and hashed, none
/// kept.
pub fn digest_limits(limits: QueryLimits) -> QueryLimits {
    QueryLimits {
        max_rows: Some(0),
        ..limits
    }
}

/// `error`, naming the statement of a batch it came from (a batch of one is not named).
pub fn in_statement(mut error: DbError, index: usize, count: usize) -> DbError {
    if count > 1 {
        error.message = format!("statement {} of {count}: {}", index + 1, error.message);
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_names_are_disambiguated() {
        let names: Vec<String> = ["id", "id", "name", "id_2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(unique_names(&names), vec!["id", "id_2", "name", "id_2_2"]);
    }

    #[test]
    fn collector_sets_truncated_at_the_cap() {
        let limits = QueryLimits {
            max_rows: Some(2),
            max_bytes: 1 << 20,
            timeout: Duration::from_secs(1),
        };
        let mut c = Collector::new(&["a".into()], vec!["int".into()], limits);
        assert!(c.push(vec![Value::from(1)]));
        assert!(c.push(vec![Value::from(2)]));
        assert!(!c.push(vec![Value::from(3)]));
        assert!(c.result.truncated);
        assert_eq!(c.result.rows.len(), 2);
    }

    #[test]
    fn collector_byte_cap() {
        let limits = QueryLimits {
            max_rows: None,
            max_bytes: 30,
            timeout: Duration::from_secs(1),
        };
        let mut c = Collector::new(&["a".into()], vec!["text".into()], limits);
        assert!(c.push(vec![Value::from("x")]));
        assert!(!c.push(vec![Value::from("a long string that does not fit")]));
        assert!(c.result.truncated);
    }

    #[test]
    fn json_len_is_the_length_of_the_json_text() {
        let row = serde_json::json!({
            "quote\"d": "line\nbreak \u{1} é 😀 \\",
            "n": [1, -2.5, null, true],
            "o": {"k": {}},
        });
        let Value::Object(row) = row else {
            unreachable!()
        };
        let text = serde_json::to_string(&row).map_err(|e| e.to_string());
        assert_eq!(Ok(json_len(&row)), text.map(|t| t.len()));
    }
}
