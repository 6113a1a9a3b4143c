//! Refusal reasons: stable error codes, pipeline stages and the structured error every layer maps.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::stable_names::stable_names;

/// Stable, snake_case reason for a refusal. New codes may be added; none changes meaning.
///
/// | code | stage | meaning |
/// |---|---|---|
/// | `empty` | precheck | no statement: empty, whitespace or comments only |
/// | `too_large` | precheck | input longer than `max_sql_bytes`, or with more than `max_tokens` tokens (not parsed) |
/// | `too_deep` | parse | nesting deeper than `max_depth` |
/// | `invalid_character` | precheck | NUL, or an invisible / bidirectional control character outside a string literal |
/// | `parse_error` | parse | the dialect's parser does not accept the text |
/// | `multiple_statements` | validate | more than one statement |
/// | `statement_not_allowed` | validate | not a read-only query (DML, DDL, session, admin, EXPLAIN when not allowed) |
/// | `data_modifying_cte` | validate | INSERT / UPDATE / DELETE / MERGE nested inside a query |
/// | `select_into` | validate | `SELECT ... INTO` (table, OUTFILE, DUMPFILE, variable, `#temp`) |
/// | `locking_clause` | validate | `FOR UPDATE / SHARE`, `LOCK IN SHARE MODE`, lock table hints |
/// | `explain_analyze` | validate | `EXPLAIN ANALYZE` (it executes the statement) |
/// | `function_not_allowed` | validate | a function outside the dialect's allowlist or in the denylist |
/// | `table_not_allowed` | validate | a table outside `tables.allow` or in `tables.deny`, or a file path used as a table |
/// | `system_catalog` | validate | a system catalog (`pg_catalog`, `information_schema`, `sqlite_master`, ...) |
/// | `column_not_allowed` | validate | a column listed in `columns.deny` |
/// | `star_on_restricted_table` | validate | `*` over a table with protected columns, without a catalog to expand it |
/// | `unknown_table` | validate | with a catalog: a table the catalog does not have |
/// | `unknown_column` | validate | with a catalog: a column the table does not have |
/// | `limit_not_literal` | rewrite | a LIMIT / FETCH / TOP that is not an integer literal, or WITH TIES / PERCENT |
/// | `unsupported_syntax` | validate | a construct the validator does not model (refused, fail closed) |
/// | `internal_roundtrip` | rewrite | regenerated SQL did not re-check to the same verdict |
/// | `unbounded_mutation` | validate | UPDATE / DELETE without a WHERE clause (or one that names no column), unless `writes.allow_unbounded` |
/// | `table_not_writable` | validate | a mutation whose target is outside `writes.tables`, or any mutation when the policy has no `writes` |
/// | `row_filter` | validate / rewrite | a row filter cannot be applied: a variable it needs is missing, a view read while row filters are in force, an insert into or a write of a filtered table's filter columns |
/// | `bad_request` | precheck | a front end received a malformed request (e.g. a bad JSON line) |
/// | `generated_too_large` | validate | a function's literal size argument (`repeat`, `lpad`, `randomblob`, ...) over `max_generated_bytes`, or series / generators (`generate_series`, `range`, `numbers`, `GENERATOR`, `seq_1_to_N`, ...) over `max_generated_rows`, multiplied across nesting and cross joins |
/// | `unbounded_generation` | validate | such a size or bound that is not a literal the guard can fold, or a recursive CTE without a bound (a `WHERE` comparing its counter with a literal, or a `LIMIT`) unless `allow_unbounded_recursion` |
/// | `masked_column` | validate | a masked column (`pii.mask`, or a column's own `mask`) used anywhere but as a plain column of the outermost select list: in a condition, join, grouping, ordering, function, subquery, set operation, `*` or whole-row reference, or a mutation |
/// | `unbound_parameter` | validate | a placeholder (`?`, `$1`, `:name`) where the caller binds no value (a front end that cannot bind, such as the MCP server's tools): write the value as a literal |
#[derive(Serialize, Deserialize, JsonSchema, strum::IntoStaticStr, strum::VariantArray)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// No statement in the input.
    Empty,
    /// Input over `max_sql_bytes` or `max_tokens`.
    TooLarge,
    /// Nesting over `max_depth`.
    TooDeep,
    /// A forbidden character outside string literals.
    InvalidCharacter,
    /// The parser rejected the text.
    ParseError,
    /// More than one statement.
    MultipleStatements,
    /// The statement is not a read-only query.
    StatementNotAllowed,
    /// A data-modifying statement nested in a query.
    DataModifyingCte,
    /// `SELECT ... INTO`.
    SelectInto,
    /// A row-locking clause or lock hint.
    LockingClause,
    /// `EXPLAIN ANALYZE`.
    ExplainAnalyze,
    /// A function that is not allowed.
    FunctionNotAllowed,
    /// A table that is not allowed.
    TableNotAllowed,
    /// A system catalog.
    SystemCatalog,
    /// A protected column.
    ColumnNotAllowed,
    /// `*` over a table with protected columns (no catalog).
    StarOnRestrictedTable,
    /// A table the catalog does not know.
    UnknownTable,
    /// A column the catalog does not know.
    UnknownColumn,
    /// A row limit that is not an integer literal.
    LimitNotLiteral,
    /// A construct the validator does not model.
    UnsupportedSyntax,
    /// The regenerated SQL did not re-check identically.
    InternalRoundtrip,
    /// An UPDATE / DELETE that is not bounded by a WHERE clause.
    UnboundedMutation,
    /// A mutation of a table the policy does not let mutations modify.
    TableNotWritable,
    /// A row filter cannot be applied (missing variable, untrusted view, write out of the filter).
    RowFilter,
    /// A malformed request to a front end.
    BadRequest,
    /// Generated bytes or rows over `max_generated_bytes` / `max_generated_rows`.
    GeneratedTooLarge,
    /// A generated size or row count the guard cannot bound (not a literal), or a recursive CTE
    /// the guard cannot prove ends.
    UnboundedGeneration,
    /// A masked column used other than as a plain column of the outermost select list.
    MaskedColumn,
    /// A placeholder where the caller binds no value.
    UnboundParameter,
}

stable_names!(ErrorCode, "Every code, in documentation order.");

/// The pipeline stage that refused.
#[derive(Serialize, Deserialize, JsonSchema, strum::IntoStaticStr, strum::VariantArray)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Checks on the raw text.
    Precheck,
    /// Parsing.
    Parse,
    /// Policy validation.
    Validate,
    /// Row cap and regeneration.
    Rewrite,
}

stable_names!(Stage, "Every stage that can refuse, in pipeline order.");

/// 1-based position in the submitted text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    /// Line, from 1.
    pub line: u64,
    /// Column (in characters), from 1.
    pub column: u64,
}

/// A structured refusal reason, the same in every layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, thiserror::Error)]
#[error("{code}: {message}")]
pub struct GuardError {
    /// Stable reason code.
    pub code: ErrorCode,
    /// Pipeline stage that refused.
    pub stage: Stage,
    /// Human-readable explanation.
    pub message: String,
    /// True only when the same SQL may pass later unchanged (never for a policy refusal).
    pub retryable: bool,
    /// How to fix the SQL in one turn.
    pub hint: Option<String>,
    /// Where in the input, when known.
    pub location: Option<Location>,
}

impl GuardError {
    /// A non-retryable error with no hint or location.
    pub fn new(code: ErrorCode, stage: Stage, message: impl Into<String>) -> Self {
        GuardError {
            code,
            stage,
            message: message.into(),
            retryable: false,
            hint: None,
            location: None,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Adds a location when one is known.
    pub fn at(mut self, location: Option<Location>) -> Self {
        if self.location.is_none() {
            self.location = location;
        }
        self
    }
}
