//! The JavaScript-facing types: string unions, the approved object, the verdict, the options.
//!
//! Each type is a plain conversion of a core type; its doc comment becomes TSDoc in `index.d.ts`.
//! Some exist only to type arguments and return values that are converted through JSON
//! (options, policies, verdicts), so that `index.d.ts` describes them.

use napi_derive::napi;

/// SQL dialect to parse and fold names with.
#[napi(string_enum = "lowercase")]
pub enum Dialect {
    /// PostgreSQL (the default).
    Postgres,
    /// MySQL / MariaDB.
    Mysql,
    /// SQLite.
    Sqlite,
    /// Microsoft SQL Server (T-SQL).
    Mssql,
    /// DuckDB.
    Duckdb,
    /// Snowflake.
    Snowflake,
    /// Google BigQuery.
    Bigquery,
    /// Amazon Redshift.
    Redshift,
    /// ClickHouse.
    Clickhouse,
    /// Databricks / Spark SQL.
    Databricks,
    /// Apache Hive.
    Hive,
    /// ANSI SQL.
    Ansi,
    /// sqlparser's permissive generic dialect.
    Generic,
}

/// Statement class, in privilege order: `select < session < mutation_create < mutation_delete <
/// ddl < admin < unknown`. A payload's class is the most privileged class among its statements.
#[napi(string_enum = "snake_case")]
pub enum QueryClass {
    /// SELECT, VALUES, TABLE, read-only WITH, EXPLAIN (no ANALYZE) of those.
    Select,
    /// SET, SHOW, USE, transaction control, PREPARE, cursors, LISTEN ...
    Session,
    /// INSERT, UPDATE, MERGE, REPLACE, COPY FROM, LOAD DATA.
    MutationCreate,
    /// DELETE, TRUNCATE, MERGE with a DELETE action.
    MutationDelete,
    /// CREATE, ALTER, DROP, RENAME, COMMENT ON, SELECT INTO, CREATE TABLE AS.
    Ddl,
    /// GRANT, REVOKE, roles, COPY TO / PROGRAM, VACUUM, CALL, DO, EXECUTE, LOCK, PRAGMA, ATTACH ...
    Admin,
    /// Anything not recognised (including text that does not parse).
    Unknown,
}

/// Stable reason for a refusal. New codes may be added; none changes meaning.
#[napi(string_enum = "snake_case")]
pub enum ErrorCode {
    /// No statement in the input.
    Empty,
    /// Input over `maxSqlBytes`.
    TooLarge,
    /// Nesting over `maxDepth`.
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
    /// A malformed request to a front end.
    BadRequest,
}

/// The pipeline stage that refused.
#[napi(string_enum = "snake_case")]
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

/// What happened to the row cap on the outermost query.
#[napi(string_enum = "snake_case")]
pub enum LimitAction {
    /// No limit was present; the cap was added.
    Injected,
    /// A larger literal limit (or `LIMIT ALL`) was lowered to the cap.
    Clamped,
    /// A literal limit at or below the cap was kept as written.
    Kept,
    /// No cap applies (the policy has none).
    None,
}

/// The row cap as applied to an approved query.
#[napi(object, use_nullable = true)]
pub struct LimitInfo {
    /// What the guard did.
    pub action: LimitAction,
    /// The limit in force in `sql` (`null` when there is none).
    pub value: Option<f64>,
    /// The literal limit the caller wrote, if any.
    pub original: Option<f64>,
}

/// 1-based position in the submitted text.
#[napi(object)]
pub struct Location {
    /// Line, from 1.
    pub line: u32,
    /// Column (in characters), from 1.
    pub column: u32,
}

/// An approved query: run `sql`, never the text that was submitted.
#[napi(object, use_nullable = true)]
pub struct Approved {
    /// SQL regenerated from the checked tree, row cap applied. Execute this.
    pub sql: String,
    /// Class of the statement (always `select` for an approved query).
    pub query_class: QueryClass,
    /// Number of statements in the payload (always 1 when approved).
    pub statement_count: u32,
    /// Tables the query reads (normalised to the dialect's folding), sorted.
    pub tables: Vec<String>,
    /// Columns the query reads, `table.column`, when a catalog resolved them; sorted (else empty).
    pub columns: Vec<String>,
    /// Functions the query calls (lower-cased, schema-qualified when written so), sorted.
    pub functions: Vec<String>,
    /// What the row cap did.
    pub limit: LimitInfo,
}

/// The properties set on the `Error` that `check` throws (and `checkAsync` rejects with) when the
/// guard refuses a query. In TypeScript: `catch (e) { const r = e as Error & Rejection }`.
#[napi(object, object_from_js = false, use_nullable = true)]
pub struct Rejection {
    /// Stable reason code.
    pub code: ErrorCode,
    /// Pipeline stage that refused.
    pub stage: Stage,
    /// `code: explanation`, human-readable.
    pub message: String,
    /// True only when the same SQL may pass later unchanged (never for a policy refusal).
    pub retryable: bool,
    /// How to fix the SQL in one turn.
    pub hint: Option<String>,
    /// Where in the input, when known.
    pub location: Option<Location>,
    /// Most privileged class among the payload's statements (`unknown` when it did not parse).
    pub query_class: QueryClass,
    /// Number of statements found (0 when the text did not get that far).
    pub statement_count: u32,
}

/// The `error` member of a refused verdict (core's JSON).
#[napi(
    object,
    object_from_js = false,
    object_to_js = false,
    use_nullable = true
)]
pub struct VerdictError {
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

/// The verdict in DESIGN's JSON shape, with snake_case keys, exactly as core serialises it:
/// `allowed` plus either the approved fields or `error`.
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct Verdict {
    /// True when the payload may run (as `sql`).
    pub allowed: bool,
    /// The SQL to execute (allowed only).
    pub sql: Option<String>,
    /// Most privileged class among the payload's statements.
    #[napi(js_name = "query_class")]
    pub query_class: QueryClass,
    /// Number of statements in the payload.
    #[napi(js_name = "statement_count")]
    pub statement_count: u32,
    /// Tables read (allowed only).
    pub tables: Option<Vec<String>>,
    /// Columns read, when a catalog resolved them (allowed only).
    pub columns: Option<Vec<String>>,
    /// Functions called (allowed only).
    pub functions: Option<Vec<String>>,
    /// Row cap outcome (allowed only).
    pub limit: Option<LimitInfo>,
    /// Why the payload was refused (refused only).
    pub error: Option<VerdictError>,
}

/// Extra functions on top of the dialect's built-in list.
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct FunctionRules {
    /// Names (optionally schema-qualified) allowed in addition to the dialect's list.
    pub allow: Option<Vec<String>>,
    /// Names refused even when the dialect's list allows them.
    pub deny: Option<Vec<String>>,
}

/// Which tables may be read.
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct TableRules {
    /// Patterns such as `public.*`, `sales.orders` or `*`. Empty means every user table.
    pub allow: Option<Vec<String>>,
    /// Patterns refused even when `allow` matches; checked after `allow`.
    pub deny: Option<Vec<String>>,
}

/// Which columns are protected.
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct ColumnRules {
    /// `table.column`, `schema.table.column` or `*.column`: refused wherever referenced.
    pub deny: Option<Vec<String>>,
}

/// One column of a catalog table.
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct CatalogColumn {
    /// Column name, exactly as stored.
    pub name: String,
    /// SQL type (informational).
    #[napi(js_name = "type")]
    pub data_type: Option<String>,
    /// Nullability (informational).
    pub nullable: Option<bool>,
}

/// A foreign key (camelCase, for `new Guard`).
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct ForeignKey {
    /// Columns in this table.
    pub columns: Vec<String>,
    /// Referenced table's schema.
    pub referenced_schema: Option<String>,
    /// Referenced table.
    pub referenced_table: String,
    /// Referenced columns.
    pub referenced_columns: Vec<String>,
}

/// One table or view of a catalog (camelCase, for `new Guard`).
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct CatalogTable {
    /// Schema (or database), when the engine has one.
    pub schema: Option<String>,
    /// Table name, exactly as stored by the engine.
    pub name: String,
    /// `table`, `view`, ... (informational).
    pub kind: Option<String>,
    /// Columns in order.
    pub columns: Option<Vec<CatalogColumn>>,
    /// Primary key column names.
    pub primary_key: Option<Vec<String>>,
    /// Foreign keys from this table.
    pub foreign_keys: Option<Vec<ForeignKey>>,
}

/// Tables known to exist (camelCase, for `new Guard`). Supplying one enables `*` expansion,
/// unknown-name refusals and hints.
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct Catalog {
    /// The tables.
    pub tables: Option<Vec<CatalogTable>>,
}

/// Options for `new Guard(options)`: core's policy with camelCase names. Every field is optional
/// and defaults to the safe choice; an unknown or mistyped field throws a `TypeError` naming it.
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct GuardOptions {
    /// SQL dialect to parse and fold names with (default `postgres`).
    pub dialect: Option<Dialect>,
    /// Row cap on the outermost query (default 1000); `null` for no cap.
    #[napi(ts_type = "number | null")]
    pub max_rows: Option<f64>,
    /// Larger input is refused before parsing (default 262144).
    pub max_sql_bytes: Option<u32>,
    /// Parser recursion limit; deeper input is refused (default 64, at most 4096).
    pub max_depth: Option<u32>,
    /// Input with more tokens (whitespace aside, comments included) is refused before parsing
    /// (default 16000): the bound on a check's time.
    pub max_tokens: Option<u32>,
    /// Allow `EXPLAIN` (never `EXPLAIN ANALYZE`) of an allowed query (default false).
    pub allow_explain: Option<bool>,
    /// Allow system catalogs: `pg_catalog`, `information_schema`, `sqlite_master`, ... (default false).
    pub allow_system_catalogs: Option<bool>,
    /// Extra allowed / denied functions.
    pub functions: Option<FunctionRules>,
    /// Allowed / denied tables.
    pub tables: Option<TableRules>,
    /// Protected columns.
    pub columns: Option<ColumnRules>,
    /// Tables and columns that exist, when the caller knows them (enables hints and `*` expansion).
    pub catalog: Option<Catalog>,
    /// MySQL / MariaDB only: whether the server runs with `ANSI_QUOTES` (default unknown: any
    /// double-quoted token is refused; `false`: `"x"` is a string; `true`: refused, use backticks).
    pub mysql_ansi_quotes: Option<bool>,
}

/// A foreign key in core's policy JSON (snake_case keys).
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct PolicyForeignKey {
    /// Columns in this table.
    pub columns: Vec<String>,
    /// Referenced table's schema.
    #[napi(js_name = "referenced_schema")]
    pub referenced_schema: Option<String>,
    /// Referenced table.
    #[napi(js_name = "referenced_table")]
    pub referenced_table: String,
    /// Referenced columns.
    #[napi(js_name = "referenced_columns")]
    pub referenced_columns: Vec<String>,
}

/// One table or view in core's policy JSON (snake_case keys).
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct PolicyCatalogTable {
    /// Schema (or database), when the engine has one.
    pub schema: Option<String>,
    /// Table name, exactly as stored by the engine.
    pub name: String,
    /// `table`, `view`, ... (informational).
    pub kind: Option<String>,
    /// Columns in order.
    pub columns: Option<Vec<CatalogColumn>>,
    /// Primary key column names.
    #[napi(js_name = "primary_key")]
    pub primary_key: Option<Vec<String>>,
    /// Foreign keys from this table.
    #[napi(js_name = "foreign_keys")]
    pub foreign_keys: Option<Vec<PolicyForeignKey>>,
}

/// A catalog in core's policy JSON (snake_case keys).
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct PolicyCatalog {
    /// The tables.
    pub tables: Option<Vec<PolicyCatalogTable>>,
}

/// Core's policy, as JSON (snake_case keys, the same file the CLI, Python and the MCP server read).
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct Policy {
    /// SQL dialect to parse and fold names with (default `postgres`).
    pub dialect: Option<Dialect>,
    /// Row cap on the outermost query (default 1000); `null` for no cap.
    #[napi(js_name = "max_rows", ts_type = "number | null")]
    pub max_rows: Option<f64>,
    /// Larger input is refused before parsing (default 262144).
    #[napi(js_name = "max_sql_bytes")]
    pub max_sql_bytes: Option<u32>,
    /// Parser recursion limit; deeper input is refused (default 64).
    #[napi(js_name = "max_depth")]
    pub max_depth: Option<u32>,
    /// Input with more tokens (whitespace aside, comments included) is refused (default 16000).
    #[napi(js_name = "max_tokens")]
    pub max_tokens: Option<u32>,
    /// Allow `EXPLAIN` (never `EXPLAIN ANALYZE`) of an allowed query (default false).
    #[napi(js_name = "allow_explain")]
    pub allow_explain: Option<bool>,
    /// Allow system catalogs (default false).
    #[napi(js_name = "allow_system_catalogs")]
    pub allow_system_catalogs: Option<bool>,
    /// Extra allowed / denied functions.
    pub functions: Option<FunctionRules>,
    /// Allowed / denied tables.
    pub tables: Option<TableRules>,
    /// Protected columns.
    pub columns: Option<ColumnRules>,
    /// Tables and columns that exist, when the caller knows them.
    pub catalog: Option<PolicyCatalog>,
    /// MySQL / MariaDB only: whether the server runs with `ANSI_QUOTES` (default unknown).
    #[napi(js_name = "mysql_ansi_quotes")]
    pub mysql_ansi_quotes: Option<bool>,
}
