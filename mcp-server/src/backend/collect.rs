//! Results: the limits of one query, its columns and rows, and the [`Collector`] that every engine
//! fills under the row and byte caps; what a mutation run returns, and when it commits.

use std::collections::HashSet;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
            },
        }
    }

    /// Adds a row; returns false when a cap was hit (stop fetching; `truncated` is set).
    pub fn push(&mut self, values: Vec<Value>) -> bool {
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
}

/// When a mutation's transaction commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Never: a preview, always rolled back.
    Rollback,
    /// Only when the statement touched exactly this many rows (the preview's count).
    CommitIfAffected(u64),
}

impl Finish {
    /// True when a run that touched `affected` rows commits.
    pub fn commits(self, affected: u64) -> bool {
        self == Finish::CommitIfAffected(affected)
    }
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
