//! The policy: what a guard allows. A serde type (JSON or TOML) whose defaults are the safe choice.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::catalog::Catalog;
use crate::class::QueryClass;
use crate::dialect::Dialect;
use crate::names::{Pattern, PatternPart};

/// Default for [`Policy::max_rows`].
pub const DEFAULT_MAX_ROWS: u64 = 1000;
/// Default for [`Policy::max_sql_bytes`].
pub const DEFAULT_MAX_SQL_BYTES: usize = 262_144;
/// Default for [`Policy::max_depth`].
pub const DEFAULT_MAX_DEPTH: usize = 64;
/// Default for [`Policy::max_tokens`]: keeps any check under about 75 ms on an idle 2-core machine
/// with the system allocator (40 ms with mimalloc). The costliest shapes, long `UNION ALL` chains,
/// cost up to 4.7 µs per token; a 16 000-token query is about 45 KiB of `IN (...)` list.
pub const DEFAULT_MAX_TOKENS: usize = 16_000;

/// Default for [`Policy::max_generated_bytes`]: 1 MiB. Padding and repeating text for a
/// report needs tens of bytes; a megabyte per value is far above that and far below what eight
/// concurrent queries could take from a server (the attacks it stops asked for 900 MB each).
pub const DEFAULT_MAX_GENERATED_BYTES: u64 = 1_048_576;
/// Default for [`Policy::max_generated_rows`]: one million. A calendar of every minute of a year
/// (525 600) or every day of 2 700 years fits; a million generated rows cost an engine tens of
/// milliseconds, while cross joins of series asked for 10^12.
pub const DEFAULT_MAX_GENERATED_ROWS: u64 = 1_000_000;

/// Extra functions on top of the dialect's built-in list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FunctionRules {
    /// Names (optionally schema-qualified) allowed in addition to the dialect's list.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Names refused even when the dialect's list allows them.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// Which tables may be read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableRules {
    /// Patterns such as `public.*`, `sales.orders` or `*`. Empty means every user table.
    #[serde(default)]
    pub allow: Vec<String>,
    /// Patterns refused even when `allow` matches; checked after `allow`.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// Which columns are protected.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColumnRules {
    /// `table.column`, `schema.table.column` or `*.column`: refused wherever referenced.
    #[serde(default)]
    pub deny: Vec<String>,
}

/// Which mutations [`crate::Guard::check_mutation`] may approve. Absent from a policy (the
/// default), every mutation is refused: the guard is read-only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteRules {
    /// Patterns, as in `tables.allow`, of the tables a mutation may modify; nothing else may be.
    /// `tables.deny` still wins.
    pub tables: Vec<String>,
    /// The mutation classes allowed: `mutation_create` (INSERT, UPDATE, MERGE without DELETE) and
    /// `mutation_delete` (DELETE, MERGE with a DELETE action).
    #[serde(default = "default_write_classes")]
    pub classes: Vec<QueryClass>,
    /// The most rows one mutation may change, for front ends that preview it (the MCP server
    /// runs it in a rolled-back transaction first); `null` (or `"none"`) for no bound.
    #[serde(
        default = "default_max_affected_rows",
        deserialize_with = "max_rows_from"
    )]
    #[schemars(with = "Option<RowCap>")]
    pub max_affected_rows: Option<u64>,
    /// Allow UPDATE / DELETE without a WHERE clause (or with one that names no column).
    #[serde(default)]
    pub allow_unbounded: bool,
}

/// Default for [`WriteRules::max_affected_rows`].
pub const DEFAULT_MAX_AFFECTED_ROWS: u64 = 100;

fn default_write_classes() -> Vec<QueryClass> {
    vec![QueryClass::MutationCreate]
}

fn default_max_affected_rows() -> Option<u64> {
    Some(DEFAULT_MAX_AFFECTED_ROWS)
}

impl WriteRules {
    /// Rules that let mutations of `classes` modify the tables matching `tables`, with the
    /// defaults for the rest.
    pub fn new(tables: &[&str], classes: &[QueryClass]) -> WriteRules {
        WriteRules {
            tables: tables.iter().map(|t| t.to_string()).collect(),
            classes: classes.to_vec(),
            max_affected_rows: default_max_affected_rows(),
            allow_unbounded: false,
        }
    }
}

/// What a [`crate::Guard`] allows. Every field is optional; defaults are the safe choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// SQL dialect to parse and fold names with.
    #[serde(default)]
    pub dialect: Dialect,
    /// Row cap on the outermost query; `null` (or `"none"`, for TOML, which has no null) for none.
    #[serde(default = "default_max_rows", deserialize_with = "max_rows_from")]
    #[schemars(with = "Option<RowCap>")]
    pub max_rows: Option<u64>,
    /// Larger input is refused before parsing.
    #[serde(default = "default_max_sql_bytes")]
    pub max_sql_bytes: usize,
    /// Parser recursion limit; deeper input is refused.
    #[serde(default = "default_max_depth")]
    pub max_depth: usize,
    /// Input with more tokens (whitespace aside, comments included) is refused before parsing:
    /// the bound on a check's work, as `max_sql_bytes` is on its input.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: usize,
    /// The largest value a function may build from a literal size argument (`repeat`, `lpad`,
    /// `rpad`, `space`, `replicate`, `randomblob`, `zeroblob`, ...), in bytes; nested calls
    /// multiply. A size that is not a literal is refused.
    #[serde(default = "default_max_generated_bytes")]
    pub max_generated_bytes: u64,
    /// The most rows (or list elements) a query may generate with series and generators
    /// (`generate_series`, `range`, `numbers`, `GENERATOR`, MariaDB's `seq_1_to_N` ...):
    /// generators in one FROM, nested queries and literal-bounded recursive CTEs multiply, set
    /// operations add. Bounds that are not literals are refused.
    #[serde(default = "default_max_generated_rows")]
    pub max_generated_rows: u64,
    /// Allow a recursive CTE the guard cannot prove ends (proofs: a counter started at a literal
    /// and moved by a literal toward a literal bound in its recursive part's `WHERE`; a `UNION`
    /// walk that makes no new value; SQLite's `LIMIT`): it can run until the statement timeout.
    #[serde(default)]
    pub allow_unbounded_recursion: bool,
    /// Allow `EXPLAIN` (never `EXPLAIN ANALYZE`) of an allowed query.
    #[serde(default)]
    pub allow_explain: bool,
    /// Allow system catalogs (`pg_catalog`, `information_schema`, `sqlite_master`, ...).
    #[serde(default)]
    pub allow_system_catalogs: bool,
    /// Extra allowed / denied functions.
    #[serde(default)]
    pub functions: FunctionRules,
    /// Allowed / denied tables.
    #[serde(default)]
    pub tables: TableRules,
    /// Protected columns.
    #[serde(default)]
    pub columns: ColumnRules,
    /// Tables and columns that exist, when the caller knows them (enables hints and `*` expansion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<Catalog>,
    /// MySQL / MariaDB only: whether the server runs with `ANSI_QUOTES` in its `sql_mode`.
    /// `None` (unknown, the default): `"x"` could be a string or a name, so double-quoted tokens
    /// are refused. `false`: `"x"` is a string. `true`: `"x"` is a name, which sqlgate's MySQL
    /// parser would read as a string, so double-quoted tokens are refused too (use backticks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mysql_ansi_quotes: Option<bool>,
    /// Mutations [`crate::Guard::check_mutation`] may approve; absent: none (read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writes: Option<WriteRules>,
    /// Row filters: one predicate per table, applied to every read of the table (see
    /// [`crate::RowFilterRules`]); absent: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<crate::RowFilterRules>,
    /// What tables and columns mean, their PII categories and relationships (see
    /// [`Annotations`]); absent: none.
    #[serde(default, skip_serializing_if = "Annotations::is_empty")]
    pub annotations: Annotations,
    /// PII categories refused or masked (see [`PiiRules`]); absent: none.
    #[serde(default, skip_serializing_if = "PiiRules::is_empty")]
    pub pii: PiiRules,
}

/// How a row cap may be written: a number, or the word `none` (TOML has no null).
#[derive(Deserialize, JsonSchema)]
#[serde(
    untagged,
    expecting = "must be an integer, or null or \"none\" for no cap"
)]
enum RowCap {
    /// At most this many rows.
    Rows(u64),
    /// No cap.
    Word(NoCap),
}

/// The word `none`.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum NoCap {
    None,
}

fn max_rows_from<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Option::<RowCap>::deserialize(d)? {
        Some(RowCap::Rows(n)) => Some(n),
        Some(RowCap::Word(NoCap::None)) | None => None,
    })
}

fn default_max_rows() -> Option<u64> {
    Some(DEFAULT_MAX_ROWS)
}
fn default_max_sql_bytes() -> usize {
    DEFAULT_MAX_SQL_BYTES
}
fn default_max_depth() -> usize {
    DEFAULT_MAX_DEPTH
}
fn default_max_tokens() -> usize {
    DEFAULT_MAX_TOKENS
}
fn default_max_generated_bytes() -> u64 {
    DEFAULT_MAX_GENERATED_BYTES
}
fn default_max_generated_rows() -> u64 {
    DEFAULT_MAX_GENERATED_ROWS
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            dialect: Dialect::default(),
            max_rows: default_max_rows(),
            max_sql_bytes: DEFAULT_MAX_SQL_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
            max_tokens: DEFAULT_MAX_TOKENS,
            max_generated_bytes: DEFAULT_MAX_GENERATED_BYTES,
            max_generated_rows: DEFAULT_MAX_GENERATED_ROWS,
            allow_unbounded_recursion: false,
            allow_explain: false,
            allow_system_catalogs: false,
            functions: FunctionRules::default(),
            tables: TableRules::default(),
            columns: ColumnRules::default(),
            catalog: None,
            mysql_ansi_quotes: None,
            writes: None,
            rows: None,
            annotations: Annotations::default(),
            pii: PiiRules::default(),
        }
    }
}

/// A policy that cannot be used, naming the field at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid policy: {field}: {message}")]
pub struct PolicyError {
    /// The field at fault, e.g. `tables.allow[2]`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl PolicyError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        PolicyError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl Policy {
    /// A default policy for `dialect`.
    pub fn for_dialect(dialect: Dialect) -> Self {
        Policy {
            dialect,
            ..Policy::default()
        }
    }

    /// Parses a policy from JSON.
    pub fn from_json(text: &str) -> Result<Policy, PolicyError> {
        // serde reads a struct from an array too (its fields in order): say what is expected
        // instead of what the first field made of the first element.
        if let Some(first) = text.trim_start().chars().next().filter(|c| *c != '{') {
            let found = match first {
                '[' => "an array",
                '"' => "a string",
                _ => "something else",
            };
            return Err(PolicyError::new(
                "policy".to_string(),
                format!("must be a JSON object ({{\"max_rows\": 100, ...}}), found {found}"),
            ));
        }
        let mut deserializer = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." {
                "policy".to_string()
            } else {
                path
            };
            PolicyError::new(field, e.into_inner().to_string())
        })
    }

    /// The JSON Schema of the policy.
    pub fn json_schema() -> serde_json::Value {
        serde_json::to_value(schemars::schema_for!(Policy)).unwrap_or_default()
    }
}

mod annotations;
mod layer;
mod pii;

pub use annotations::{
    Annotations, Cardinality, ColumnAnnotation, ColumnRefs, Relationship, TableAnnotation,
};
pub use layer::{PolicyLayer, WriteLayer};
pub use pii::{MaskKind, PiiRules};
