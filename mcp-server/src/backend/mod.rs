//! Database backends: SQLite (embedded demo or a file), PostgreSQL and MySQL / MariaDB
//! (pooled) and, with the cargo feature `duckdb`, DuckDB (a file, read-only).
//!
//! A backend only executes SQL that core approved, introspects the schema, and maps database
//! errors to stable codes. It never decides whether SQL may run.

pub mod cost;
#[cfg(feature = "duckdb")]
pub mod duckdb;
pub mod mysql;
pub mod pg_write;
pub mod postgres;
pub mod sqlite;
pub mod sqlite_write;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sqlgate::{Catalog, CatalogColumn, CatalogTable, Dialect, ForeignKey};

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

/// Stable database error codes.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum DbErrorCode {
    /// The statement ran over the timeout and was cancelled.
    QueryTimeout,
    /// The database could not be reached (retryable).
    DatabaseUnavailable,
    /// The database refused or failed the statement.
    DatabaseError,
    /// `--require-read-only-role`: the database role can write, so the server does not start.
    RoleNotReadOnly,
    /// The planner's estimate of the approved read is over `--max-cost` or
    /// `--max-estimated-rows`; nothing ran.
    TooExpensive,
}

impl DbErrorCode {
    /// Every code.
    pub const ALL: &'static [DbErrorCode] = <DbErrorCode as strum::VariantArray>::VARIANTS;

    /// The stable snake_case string (the serde name).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A database error, safe to show (never contains the connection string).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError {
    /// Stable code.
    pub code: DbErrorCode,
    /// Message from the database (or ours).
    pub message: String,
    /// SQLSTATE, when the database sent one.
    pub sqlstate: Option<String>,
    /// True when the same call may succeed later.
    pub retryable: bool,
    /// What the caller can do about it, when the backend knows (`too_expensive`).
    pub hint: Option<String>,
}

impl DbError {
    /// A read refused by the cost cap: `why` it is over, and `advice` for the agent.
    pub fn too_expensive(why: String, advice: String) -> Self {
        DbError {
            hint: Some(advice),
            ..DbError::new(DbErrorCode::TooExpensive, format!("not run: {why}"))
        }
    }

    /// A new error; `database_unavailable` is retryable.
    pub fn new(code: DbErrorCode, message: impl Into<String>) -> Self {
        DbError {
            code,
            message: message.into(),
            sqlstate: None,
            retryable: code == DbErrorCode::DatabaseUnavailable,
            hint: None,
        }
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for DbError {}

/// A column as `describe_table` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ColumnDetail {
    /// Column name.
    pub name: String,
    /// SQL type.
    #[serde(rename = "type")]
    pub data_type: String,
    /// Whether NULL is allowed.
    pub nullable: bool,
    /// Default expression.
    pub default: Option<String>,
    /// Comment.
    pub comment: Option<String>,
    /// True when the policy protects this column (queries that reference it are refused).
    #[serde(default)]
    pub protected: bool,
}

/// A foreign key from this table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ForeignKeyDetail {
    /// Columns of this table.
    pub columns: Vec<String>,
    /// Referenced table's schema.
    pub referenced_schema: Option<String>,
    /// Referenced table.
    pub referenced_table: String,
    /// Referenced columns.
    pub referenced_columns: Vec<String>,
}

/// A foreign key from another table to this one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReferencedBy {
    /// Referencing table's schema.
    pub schema: Option<String>,
    /// Referencing table.
    pub table: String,
    /// Referencing columns.
    pub columns: Vec<String>,
    /// Columns of this table they reference.
    pub referenced_columns: Vec<String>,
}

/// Everything known about one table or view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TableDetail {
    /// Schema, when the engine has one.
    pub schema: Option<String>,
    /// Table name.
    pub name: String,
    /// `table`, `view`, `materialized_view`, `foreign_table`, `partitioned_table`.
    pub kind: String,
    /// Estimated row count (exact for SQLite), when known.
    pub estimated_rows: Option<i64>,
    /// Comment.
    pub comment: Option<String>,
    /// Columns in order.
    pub columns: Vec<ColumnDetail>,
    /// Primary key columns.
    pub primary_key: Vec<String>,
    /// Foreign keys from this table.
    pub foreign_keys: Vec<ForeignKeyDetail>,
    /// Foreign keys from other tables to this one.
    pub referenced_by: Vec<ReferencedBy>,
    /// True when a row filter of the policy limits the rows a query sees in it.
    #[serde(default)]
    pub row_filtered: bool,
}

impl TableDetail {
    /// `schema.name` or `name`.
    pub fn qualified_name(&self) -> String {
        match &self.schema {
            Some(s) => format!("{s}.{}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Fills `referenced_by` of every table from the others' foreign keys.
pub fn link_references(tables: &mut [TableDetail]) {
    let mut refs: Vec<(usize, ReferencedBy)> = Vec::new();
    for t in tables.iter() {
        for fk in &t.foreign_keys {
            let target = tables.iter().position(|o| {
                o.name == fk.referenced_table
                    && (fk.referenced_schema.is_none() || o.schema == fk.referenced_schema)
            });
            if let Some(i) = target {
                refs.push((
                    i,
                    ReferencedBy {
                        schema: t.schema.clone(),
                        table: t.name.clone(),
                        columns: fk.columns.clone(),
                        referenced_columns: fk.referenced_columns.clone(),
                    },
                ));
            }
        }
    }
    for (i, r) in refs {
        if let Some(t) = tables.get_mut(i) {
            t.referenced_by.push(r);
        }
    }
}

/// The core catalog for these tables (enables "did you mean" hints and `*` expansion).
pub fn to_catalog(tables: &[TableDetail]) -> Catalog {
    Catalog {
        tables: tables
            .iter()
            .map(|t| CatalogTable {
                schema: t.schema.clone(),
                name: t.name.clone(),
                kind: Some(t.kind.clone()),
                columns: t
                    .columns
                    .iter()
                    .map(|c| CatalogColumn {
                        name: c.name.clone(),
                        data_type: Some(c.data_type.clone()),
                        nullable: Some(c.nullable),
                    })
                    .collect(),
                primary_key: t.primary_key.clone(),
                foreign_keys: t
                    .foreign_keys
                    .iter()
                    .map(|f| ForeignKey {
                        columns: f.columns.clone(),
                        referenced_schema: f.referenced_schema.clone(),
                        referenced_table: f.referenced_table.clone(),
                        referenced_columns: f.referenced_columns.clone(),
                    })
                    .collect(),
            })
            .collect(),
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

/// Runs blocking `work` (an embedded engine's statement) on a blocking thread; if it is still
/// running when `timeout` passes, calls `interrupt` (the engine's interrupt handle), which makes
/// `work` end with an error. SQLite and DuckDB share this.
pub(crate) async fn interruptible<T: Send + 'static>(
    timeout: Duration,
    interrupt: impl FnOnce() + Send + 'static,
    work: impl FnOnce() -> Result<T, DbError> + Send + 'static,
) -> Result<T, DbError> {
    interruptible_once(timeout, interrupt, work).await?.0
}

/// [`interruptible`], also saying whether the interrupt was sent. It is sent only while `work`
/// runs (the timer and the end of `work` race for one flag), so it never reaches a statement
/// that starts later on the same connection; a connection whose work was interrupted must not
/// be used again.
pub(crate) async fn interruptible_once<T: Send + 'static>(
    timeout: Duration,
    interrupt: impl FnOnce() + Send + 'static,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<(T, bool), DbError> {
    use std::sync::atomic::{AtomicU8, Ordering::SeqCst};
    const RUNNING: u8 = 0;
    const DONE: u8 = 1;
    const INTERRUPTED: u8 = 2;
    let state = Arc::new(AtomicU8::new(RUNNING));
    let timer_state = state.clone();
    let timer = tokio::spawn(async move {
        tokio::time::sleep(timeout).await;
        if timer_state
            .compare_exchange(RUNNING, INTERRUPTED, SeqCst, SeqCst)
            .is_ok()
        {
            interrupt();
        }
    });
    let work_state = state.clone();
    let out = tokio::task::spawn_blocking(move || {
        let out = work();
        let _ = work_state.compare_exchange(RUNNING, DONE, SeqCst, SeqCst);
        out
    })
    .await
    .map_err(|e| DbError::new(DbErrorCode::DatabaseError, format!("worker failed: {e}")))?;
    timer.abort();
    Ok((out, state.load(SeqCst) == INTERRUPTED))
}

/// A connected database.
pub enum Backend {
    /// SQLite (read-write only in a write mode).
    Sqlite(sqlite::SqliteBackend),
    /// PostgreSQL, pooled.
    Postgres(postgres::PgBackend),
    /// MySQL or MariaDB, pooled.
    Mysql(mysql::MysqlBackend),
    /// DuckDB, always read-only.
    #[cfg(feature = "duckdb")]
    Duckdb(duckdb::DuckdbBackend),
}

impl Backend {
    /// The dialect core should parse with.
    pub fn dialect(&self) -> Dialect {
        match self {
            Backend::Sqlite(_) => Dialect::Sqlite,
            Backend::Postgres(_) => Dialect::Postgres,
            Backend::Mysql(_) => Dialect::Mysql,
            #[cfg(feature = "duckdb")]
            Backend::Duckdb(_) => Dialect::Duckdb,
        }
    }

    /// Executes approved SQL under the limits.
    pub async fn execute(&self, sql: &str, limits: QueryLimits) -> Result<QueryResult, DbError> {
        match self {
            Backend::Sqlite(b) => b.execute(sql, limits).await,
            Backend::Postgres(b) => b.execute(sql, limits).await,
            Backend::Mysql(b) => b.execute(sql, limits).await,
            #[cfg(feature = "duckdb")]
            Backend::Duckdb(b) => b.execute(sql, limits).await,
        }
    }

    /// Executes an approved mutation in a read-write transaction under the limits' timeout,
    /// counting the rows it touches, then commits or rolls back as `finish` says.
    pub async fn mutate(
        &self,
        sql: &str,
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<MutationRun, DbError> {
        match self {
            Backend::Sqlite(b) => b.mutate(sql, limits, finish).await,
            Backend::Postgres(b) => b.mutate(sql, limits, finish).await,
            Backend::Mysql(b) => b.mutate(sql, limits, finish).await,
            // Opened with access_mode=READ_ONLY: serve refuses write modes, this is the backstop.
            #[cfg(feature = "duckdb")]
            Backend::Duckdb(_) => Err(DbError::new(
                DbErrorCode::DatabaseError,
                "DuckDB databases are served read-only: mutations are refused",
            )),
        }
    }

    /// Reads tables, columns, keys and comments.
    pub async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        let mut tables = match self {
            Backend::Sqlite(b) => b.introspect().await?,
            Backend::Postgres(b) => b.introspect().await?,
            Backend::Mysql(b) => b.introspect().await?,
            #[cfg(feature = "duckdb")]
            Backend::Duckdb(b) => b.introspect().await?,
        };
        link_references(&mut tables);
        Ok(tables)
    }

    /// The planner's estimate of approved `sql` (`None`: the engine gives none, SQLite).
    pub async fn estimate(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<cost::Estimate>, DbError> {
        match self {
            Backend::Sqlite(_) => Ok(None),
            Backend::Postgres(b) => b.estimate(sql, timeout).await,
            Backend::Mysql(b) => b.estimate(sql, timeout).await,
            #[cfg(feature = "duckdb")]
            Backend::Duckdb(b) => b.estimate(sql, timeout).await,
        }
    }

    /// Warnings about the connected role (PostgreSQL, MySQL: it can write).
    pub fn role_warnings(&self) -> &[String] {
        match self {
            Backend::Sqlite(_) => &[],
            Backend::Postgres(b) => b.role_warnings(),
            Backend::Mysql(b) => b.role_warnings(),
            #[cfg(feature = "duckdb")]
            Backend::Duckdb(_) => &[],
        }
    }

    /// The kind of database, as `server_info` reports it (never the URL).
    pub fn kind(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => "sqlite",
            Backend::Postgres(_) => "postgres",
            Backend::Mysql(b) => match b.flavor() {
                mysql::Flavor::Mysql => "mysql",
                mysql::Flavor::Mariadb => "mariadb",
            },
            #[cfg(feature = "duckdb")]
            Backend::Duckdb(_) => "duckdb",
        }
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
