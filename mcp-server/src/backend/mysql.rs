//! MySQL and MariaDB (`mysql://`, `mariadb://`), pooled with `mysql_async`.
//!
//! Every read runs as a prepared statement (COM_STMT_PREPARE takes exactly one statement, so a
//! stacked payload cannot run even if the guard missed it; `mysql_async` always announces
//! CLIENT_MULTI_STATEMENTS, which only the text protocol honours, and agent SQL never goes
//! through it) inside `START TRANSACTION READ ONLY` with the server-side statement timeout set
//! (`max_execution_time` on MySQL, `max_statement_time` on MariaDB), and is always rolled back.
//! When the client-side limit passes, the query is killed on the server (`KILL QUERY` from
//! another connection) and its connection is closed, never returned to the pool.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use mysql_async::consts::{ColumnFlags, ColumnType};
use mysql_async::prelude::Queryable;
use mysql_async::{Column, Conn, Opts, OptsBuilder, Pool, PoolConstraints, PoolOpts};
use serde_json::Value;

use super::{
    Collector, ColumnDetail, DbError, DbErrorCode, Finish, ForeignKeyDetail, MutationRun,
    QueryLimits, QueryResult, TableDetail,
};

/// How long past the statement timeout the client waits before it kills the query itself.
const GRACE: Duration = Duration::from_secs(2);

/// Which server the URL reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Oracle MySQL (`max_execution_time`, milliseconds).
    Mysql,
    /// MariaDB (`max_statement_time`, seconds).
    Mariadb,
}

/// A pooled MySQL or MariaDB database.
pub struct MysqlBackend {
    pool: Pool,
    flavor: Flavor,
    role_warnings: Vec<String>,
    /// MariaDB's JSON is LONGTEXT with a `json_valid` check, sent as text: the columns known
    /// (from the last introspection) to hold JSON, by original table and column name.
    json_columns: std::sync::RwLock<Arc<HashSet<(String, String)>>>,
}

/// `mysql://` or `mariadb://` URL → the driver's options. `ssl-mode` takes MySQL's values
/// (`DISABLED`, `PREFERRED`, `REQUIRED`, `VERIFY_CA`, `VERIFY_IDENTITY`).
fn driver_opts(url: &str, pool_size: usize) -> Result<Opts, DbError> {
    let bad = |why: &str| DbError::new(DbErrorCode::DatabaseUnavailable, why.to_string());
    let rest = url
        .strip_prefix("mysql://")
        .or_else(|| url.strip_prefix("mariadb://"))
        .ok_or_else(|| bad("a MySQL URL starts with mysql:// or mariadb://"))?;
    let (base, query) = rest.split_once('?').unwrap_or((rest, ""));
    let mut params: Vec<String> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if key.eq_ignore_ascii_case("ssl-mode") || key.eq_ignore_ascii_case("sslmode") {
            match value.to_ascii_uppercase().as_str() {
                "DISABLED" | "PREFERRED" => {}
                "REQUIRED" => params.extend([
                    "require_ssl=true".into(),
                    "verify_ca=false".into(),
                    "verify_identity=false".into(),
                ]),
                "VERIFY_CA" => {
                    params.extend(["require_ssl=true".into(), "verify_identity=false".into()])
                }
                "VERIFY_IDENTITY" => params.push("require_ssl=true".into()),
                _ => return Err(bad(
                    "ssl-mode must be DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY",
                )),
            }
        } else {
            params.push(pair.to_string());
        }
    }
    let driver_url = if params.is_empty() {
        format!("mysql://{base}")
    } else {
        format!("mysql://{base}?{}", params.join("&"))
    };
    // The driver's message may quote the URL, password included: never pass it on.
    let opts = Opts::from_url(&driver_url).map_err(|_| bad("the MySQL URL does not parse"))?;
    let constraints = PoolConstraints::new(0, pool_size.max(1))
        .ok_or_else(|| bad("the pool size must be at least 1"))?;
    // No local-infile handler is set: the client reads no file for the server (LOAD DATA LOCAL).
    let builder =
        OptsBuilder::from_opts(opts).pool_opts(PoolOpts::new().with_constraints(constraints));
    Ok(builder.into())
}

/// Maps a driver error to a stable code; a message never carries the URL.
pub fn map_err(e: &mysql_async::Error) -> DbError {
    match e {
        mysql_async::Error::Server(s) => {
            let code = match s.code {
                // MySQL's max_execution_time, MariaDB's max_statement_time, KILL QUERY.
                3024 | 1969 | 1317 => DbErrorCode::QueryTimeout,
                _ => DbErrorCode::DatabaseError,
            };
            let mut err = DbError::new(code, s.message.clone());
            err.sqlstate = Some(s.state.clone());
            err
        }
        mysql_async::Error::Io(_) | mysql_async::Error::Driver(_) => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            format!("the database connection failed: {}", connection_cause(e)),
        ),
        other => DbError::new(DbErrorCode::DatabaseError, other.to_string()),
    }
}

/// Why a connection failed, in words that never include the URL.
fn connection_cause(e: &mysql_async::Error) -> String {
    let text = e.to_string();
    let lower = text.to_ascii_lowercase();
    if lower.contains("refused") {
        "connection refused".into()
    } else if lower.contains("lookup")
        || lower.contains("resolve")
        || lower.contains("name or service")
    {
        "host not found".into()
    } else if lower.contains("timed out") {
        "timed out".into()
    } else if lower.contains("ssl") || lower.contains("tls") {
        "TLS failed (check ssl-mode and the server's certificate)".into()
    } else {
        text
    }
}

impl MysqlBackend {
    /// Connects (one round trip to check the server and the user's grants).
    pub async fn connect(
        url: &str,
        pool_size: usize,
        require_read_only: bool,
    ) -> Result<Self, DbError> {
        let pool = Pool::new(driver_opts(url, pool_size)?);
        let mut conn = pool.get_conn().await.map_err(|e| map_err(&e))?;
        let version: Option<String> = conn
            .query_first("SELECT VERSION()")
            .await
            .map_err(|e| map_err(&e))?;
        let flavor = if version
            .unwrap_or_default()
            .to_ascii_lowercase()
            .contains("mariadb")
        {
            Flavor::Mariadb
        } else {
            Flavor::Mysql
        };
        let role_warnings = grant_warnings(&mut conn).await;
        drop(conn);
        if require_read_only && !role_warnings.is_empty() {
            return Err(DbError::new(
                DbErrorCode::RoleNotReadOnly,
                format!(
                    "--require-read-only-role: {}; connect as a user with SELECT only",
                    role_warnings.join("; ")
                ),
            ));
        }
        Ok(MysqlBackend {
            pool,
            flavor,
            role_warnings,
            json_columns: std::sync::RwLock::default(),
        })
    }

    /// MySQL or MariaDB.
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// What the user may do beyond reading (empty when read-only).
    pub fn role_warnings(&self) -> &[String] {
        &self.role_warnings
    }

    fn json_columns(&self) -> Arc<HashSet<(String, String)>> {
        match self.json_columns.read() {
            Ok(set) => set.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The session's statement timeout, in the server's own variable and unit.
    fn timeout_statement(&self, timeout: Duration) -> String {
        match self.flavor {
            Flavor::Mysql => format!(
                "SET SESSION max_execution_time = {}",
                timeout.as_millis().max(1)
            ),
            Flavor::Mariadb => format!(
                "SET SESSION max_statement_time = {:.3}",
                timeout.as_secs_f64().max(0.001)
            ),
        }
    }

    /// Executes approved SQL: read-only transaction, server-side timeout, capped fetch, rollback.
    pub async fn execute(&self, sql: &str, limits: QueryLimits) -> Result<QueryResult, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let id = conn.id();
        let set_timeout = self.timeout_statement(limits.timeout);
        let json = self.json_columns();
        let work = async {
            let result = async {
                begin(&mut conn, "READ ONLY", &set_timeout).await?;
                run_prepared(&mut conn, sql, limits, false, &json).await
            }
            .await;
            let rolled_back = conn.query_drop("ROLLBACK").await.is_ok();
            (result.map(|(rows, _)| rows), rolled_back)
        };
        let outcome = tokio::time::timeout(limits.timeout + GRACE, work).await;
        self.settle(
            conn,
            id,
            outcome,
            "the query ran over the statement timeout and was killed",
        )
        .await
    }

    /// The planner's estimate of approved `sql` (`EXPLAIN FORMAT=JSON`, prepared like every
    /// read), in a read-only transaction under the statement timeout.
    pub async fn estimate(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<super::cost::Estimate>, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let id = conn.id();
        let set_timeout = self.timeout_statement(timeout);
        let work = async {
            let result = async {
                begin(&mut conn, "READ ONLY", &set_timeout).await?;
                let plan: Option<String> = conn
                    .exec_first(format!("EXPLAIN FORMAT=JSON {sql}"), ())
                    .await?;
                Ok(plan)
            }
            .await;
            let rolled_back = conn.query_drop("ROLLBACK").await.is_ok();
            (result, rolled_back)
        };
        let outcome = tokio::time::timeout(timeout + GRACE, work).await;
        let plan = self
            .settle(conn, id, outcome, "EXPLAIN ran over the statement timeout")
            .await?;
        Ok(plan
            .and_then(|p| serde_json::from_str::<Value>(&p).ok())
            .and_then(|p| super::cost::from_mysql_plan(&p)))
    }

    /// Executes an approved mutation in a read-write transaction; commits only when `finish`
    /// says so for the count it touched, otherwise rolls back.
    pub async fn mutate(
        &self,
        sql: &str,
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<MutationRun, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let id = conn.id();
        let set_timeout = self.timeout_statement(limits.timeout);
        let json = self.json_columns();
        let work = async {
            let result = async {
                begin(&mut conn, "READ WRITE", &set_timeout).await?;
                run_prepared(&mut conn, sql, limits, true, &json).await
            }
            .await;
            let run = result.map(|(returning, affected_rows)| MutationRun {
                affected_rows,
                returning,
                committed: false,
            });
            let commit = matches!(&run, Ok(r) if finish.commits(r.affected_rows));
            let end = if commit { "COMMIT" } else { "ROLLBACK" };
            match conn.query_drop(end).await {
                Ok(()) => (
                    run.map(|mut r| {
                        r.committed = commit;
                        r
                    }),
                    true,
                ),
                Err(e) => (Err(e), false),
            }
        };
        let outcome = tokio::time::timeout(limits.timeout + GRACE, work).await;
        self.settle(
            conn,
            id,
            outcome,
            "the mutation ran over the statement timeout and was killed (rolled back)",
        )
        .await
    }

    /// Ends a transaction's work: a connection whose transaction could not be ended, or whose
    /// work ran over the limit, is closed instead of returned to the pool; over the limit, its
    /// query is first killed on the server from another connection.
    async fn settle<T>(
        &self,
        conn: Conn,
        id: u32,
        outcome: Result<(Result<T, mysql_async::Error>, bool), tokio::time::error::Elapsed>,
        timed_out: &str,
    ) -> Result<T, DbError> {
        match outcome {
            Ok((result, true)) => result.map_err(|e| map_err(&e)),
            Ok((result, false)) => {
                close(conn).await;
                result.map_err(|e| map_err(&e))
            }
            Err(_) => {
                if let Ok(mut other) = self.pool.get_conn().await {
                    let _ = other.query_drop(format!("KILL QUERY {id}")).await;
                }
                close(conn).await;
                Err(DbError::new(DbErrorCode::QueryTimeout, timed_out))
            }
        }
    }

    /// Tables and views of the current database, with columns, keys, comments and row estimates.
    pub async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let tables = introspect(&mut conn, self.flavor)
            .await
            .map_err(|e| map_err(&e))?;
        let json: HashSet<(String, String)> = tables
            .iter()
            .flat_map(|t| {
                t.columns
                    .iter()
                    .filter(|c| c.data_type == "json")
                    .map(|c| (t.name.clone(), c.name.clone()))
            })
            .collect();
        match self.json_columns.write() {
            Ok(mut set) => *set = Arc::new(json),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(json),
        }
        Ok(tables)
    }

    /// Closes every pooled connection.
    pub async fn close(self) {
        let _ = self.pool.disconnect().await;
    }
}

/// Opens the transaction (`READ ONLY` or `READ WRITE`) and sets the session's statement timeout
/// (`set_timeout`, from [`MysqlBackend::timeout_statement`]): the start of every statement run.
async fn begin(conn: &mut Conn, access: &str, set_timeout: &str) -> Result<(), mysql_async::Error> {
    conn.query_drop(format!("START TRANSACTION {access}"))
        .await?;
    conn.query_drop(set_timeout).await
}

/// Closes a connection that must not go back to the pool, without waiting long for the server.
async fn close(conn: Conn) {
    let _ = tokio::time::timeout(Duration::from_secs(2), conn.disconnect()).await;
}

/// Prepares `sql` (binary protocol: one statement) and reads its rows into a [`Collector`];
/// stops at the cap unless `read_all`. Returns the rows kept and the affected-row count.
async fn run_prepared(
    conn: &mut Conn,
    sql: &str,
    limits: QueryLimits,
    read_all: bool,
    json_columns: &HashSet<(String, String)>,
) -> Result<(QueryResult, u64), mysql_async::Error> {
    let stmt = conn.prep(sql).await?;
    let mut result = conn.exec_iter(&stmt, ()).await?;
    let columns: Vec<Column> = result.columns().map(|c| c.to_vec()).unwrap_or_default();
    let names: Vec<String> = columns.iter().map(|c| c.name_str().to_string()).collect();
    let is_json: Vec<bool> = columns
        .iter()
        .map(|c| {
            c.column_type() == ColumnType::MYSQL_TYPE_JSON
                || json_columns
                    .contains(&(c.org_table_str().to_string(), c.org_name_str().to_string()))
        })
        .collect();
    let types = columns
        .iter()
        .zip(&is_json)
        .map(|(c, json)| {
            if *json {
                "json".to_string()
            } else {
                type_name(c)
            }
        })
        .collect();
    let mut collector = Collector::new(&names, types, limits);
    let mut reading = true;
    while let Some(row) = result.next().await? {
        if !reading {
            continue;
        }
        let values = columns
            .iter()
            .enumerate()
            .map(|(i, c)| render(c, row.as_ref(i), is_json.get(i).copied().unwrap_or(false)))
            .collect();
        if !collector.push(values) && !read_all {
            // The rest of the rows are read off the wire (the protocol needs it) but not kept.
            reading = false;
        }
    }
    let affected = result.affected_rows();
    result.drop_result().await?;
    conn.close(stmt).await?;
    Ok((collector.result, affected))
}

/// The column's type as MySQL names it (lower-case).
fn type_name(c: &Column) -> String {
    let unsigned = c.flags().contains(ColumnFlags::UNSIGNED_FLAG);
    let binary = c.character_set() == 63;
    let name = match c.column_type() {
        ColumnType::MYSQL_TYPE_TINY => "tinyint",
        ColumnType::MYSQL_TYPE_SHORT => "smallint",
        ColumnType::MYSQL_TYPE_INT24 => "mediumint",
        ColumnType::MYSQL_TYPE_LONG => "int",
        ColumnType::MYSQL_TYPE_LONGLONG => "bigint",
        ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => "decimal",
        ColumnType::MYSQL_TYPE_FLOAT => "float",
        ColumnType::MYSQL_TYPE_DOUBLE => "double",
        ColumnType::MYSQL_TYPE_BIT => "bit",
        ColumnType::MYSQL_TYPE_YEAR => "year",
        ColumnType::MYSQL_TYPE_DATE | ColumnType::MYSQL_TYPE_NEWDATE => "date",
        ColumnType::MYSQL_TYPE_DATETIME | ColumnType::MYSQL_TYPE_DATETIME2 => "datetime",
        ColumnType::MYSQL_TYPE_TIMESTAMP | ColumnType::MYSQL_TYPE_TIMESTAMP2 => "timestamp",
        ColumnType::MYSQL_TYPE_TIME | ColumnType::MYSQL_TYPE_TIME2 => "time",
        ColumnType::MYSQL_TYPE_JSON => "json",
        ColumnType::MYSQL_TYPE_ENUM => "enum",
        ColumnType::MYSQL_TYPE_SET => "set",
        ColumnType::MYSQL_TYPE_GEOMETRY => "geometry",
        ColumnType::MYSQL_TYPE_NULL => "null",
        ColumnType::MYSQL_TYPE_TINY_BLOB
        | ColumnType::MYSQL_TYPE_MEDIUM_BLOB
        | ColumnType::MYSQL_TYPE_LONG_BLOB
        | ColumnType::MYSQL_TYPE_BLOB => {
            if binary {
                "blob"
            } else {
                "text"
            }
        }
        ColumnType::MYSQL_TYPE_VARCHAR | ColumnType::MYSQL_TYPE_VAR_STRING => {
            if binary {
                "varbinary"
            } else {
                "varchar"
            }
        }
        ColumnType::MYSQL_TYPE_STRING => {
            if c.flags().contains(ColumnFlags::ENUM_FLAG) {
                "enum"
            } else if c.flags().contains(ColumnFlags::SET_FLAG) {
                "set"
            } else if binary {
                "binary"
            } else {
                "char"
            }
        }
        _ => "unknown",
    };
    if unsigned {
        format!("{name} unsigned")
    } else {
        name.to_string()
    }
}

/// Integers beyond 2^53 lose digits as JSON numbers in most clients: they become strings.
fn integer<T: Into<i128> + Copy>(v: T) -> Value {
    let wide: i128 = v.into();
    if wide.unsigned_abs() <= (1u128 << 53) {
        i64::try_from(wide).map_or_else(|_| Value::String(wide.to_string()), Value::from)
    } else {
        Value::String(wide.to_string())
    }
}

/// One value of a binary-protocol row as JSON, by the column's type. Never fails: what has no
/// better form is text, or base64 for bytes that are not UTF-8.
fn render(column: &Column, value: Option<&mysql_async::Value>, json: bool) -> Value {
    use mysql_async::Value as V;
    let Some(value) = value else {
        return Value::Null;
    };
    let kind = column.column_type();
    let binary = column.character_set() == 63;
    match value {
        V::NULL => Value::Null,
        V::Int(i) => integer(*i),
        V::UInt(u) => integer(*u),
        V::Float(f) => {
            serde_json::Number::from_f64(f64::from(*f)).map_or(Value::Null, Value::Number)
        }
        V::Double(d) => serde_json::Number::from_f64(*d).map_or(Value::Null, Value::Number),
        V::Date(y, mo, d, h, mi, s, us) => {
            if matches!(
                kind,
                ColumnType::MYSQL_TYPE_DATE | ColumnType::MYSQL_TYPE_NEWDATE
            ) {
                Value::String(format!("{y:04}-{mo:02}-{d:02}"))
            } else if *us > 0 {
                Value::String(format!(
                    "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{us:06}"
                ))
            } else {
                Value::String(format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"))
            }
        }
        V::Time(negative, days, h, mi, s, us) => {
            let sign = if *negative { "-" } else { "" };
            let hours = u64::from(*days) * 24 + u64::from(*h);
            if *us > 0 {
                Value::String(format!("{sign}{hours:02}:{mi:02}:{s:02}.{us:06}"))
            } else {
                Value::String(format!("{sign}{hours:02}:{mi:02}:{s:02}"))
            }
        }
        V::Bytes(bytes) => match kind {
            // Exact: the server's own digits, as a string (a JSON number would round).
            ColumnType::MYSQL_TYPE_DECIMAL | ColumnType::MYSQL_TYPE_NEWDECIMAL => {
                Value::String(String::from_utf8_lossy(bytes).into_owned())
            }
            ColumnType::MYSQL_TYPE_BIT => {
                // BIT(n) arrives big-endian; up to 64 bits.
                let n = bytes
                    .iter()
                    .fold(0u128, |acc, b| (acc << 8) | u128::from(*b));
                u64::try_from(n).map_or_else(|_| Value::String(n.to_string()), integer)
            }
            _ if json => serde_json::from_slice(bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned())),
            ColumnType::MYSQL_TYPE_GEOMETRY => {
                // MySQL's internal form: a 4-byte SRID, then WKB.
                Value::String(format!("wkb:{}", hex(bytes)))
            }
            _ if binary => Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
            _ => match std::str::from_utf8(bytes) {
                Ok(s) => Value::String(s.to_string()),
                Err(_) => Value::String(base64::engine::general_purpose::STANDARD.encode(bytes)),
            },
        },
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Privileges that only read.
const READ_ONLY_PRIVILEGES: &[&str] = &["SELECT", "SHOW VIEW", "USAGE", "SHOW DATABASES"];

/// What `SHOW GRANTS` says the user may do beyond reading; a warning when it cannot be read.
async fn grant_warnings(conn: &mut Conn) -> Vec<String> {
    let grants: Vec<String> = match conn.query("SHOW GRANTS").await {
        Ok(g) => g,
        Err(e) => {
            return vec![format!(
                "the user's grants cannot be read ({}); assume it can write",
                map_err(&e).message
            )]
        }
    };
    let mut warnings = Vec::new();
    for grant in grants {
        let Some(rest) = grant.strip_prefix("GRANT ") else {
            continue;
        };
        let Some((privileges, target)) = rest.split_once(" ON ") else {
            // `GRANT role TO user`: a role's privileges are not listed here.
            warnings.push(format!(
                "the user holds a role ({rest}) whose privileges are not checked"
            ));
            continue;
        };
        let target = target.split(" TO ").next().unwrap_or(target);
        let writes: Vec<&str> = privileges
            .split(',')
            .map(str::trim)
            .filter(|p| {
                let bare = p.split('(').next().unwrap_or(p).trim();
                !READ_ONLY_PRIVILEGES.contains(&bare)
            })
            .collect();
        if !writes.is_empty() {
            warnings.push(format!("the user holds {} on {target}", writes.join(", ")));
        }
        if grant.contains("WITH GRANT OPTION") {
            warnings.push(format!("the user may grant privileges on {target}"));
        }
    }
    warnings
}

/// information_schema.COLUMNS: table, column, type, IS_NULLABLE, default, comment.
type ColumnRow = (
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);
/// information_schema.KEY_COLUMN_USAGE: table, constraint, column, referenced table and column.
type KeyRow = (String, String, String, Option<String>, Option<String>);

#[expect(
    clippy::too_many_lines,
    reason = "over 80 lines when the limit came in; to be split (issue 26)"
)]
async fn introspect(
    conn: &mut Conn,
    flavor: Flavor,
) -> Result<Vec<TableDetail>, mysql_async::Error> {
    let tables: Vec<(String, String, Option<u64>, Option<String>)> = conn
        .query(
            "SELECT TABLE_NAME, TABLE_TYPE, TABLE_ROWS, TABLE_COMMENT \
             FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME",
        )
        .await?;
    // MariaDB's JSON columns are LONGTEXT checked with json_valid(column): named `json` here.
    // (MySQL's JSON is a type of its own, and its CHECK_CONSTRAINTS has no TABLE_NAME.)
    let column_type = match flavor {
        Flavor::Mariadb => {
            "IF(c.DATA_TYPE = 'longtext' AND EXISTS (SELECT 1 FROM \
             information_schema.CHECK_CONSTRAINTS k WHERE k.CONSTRAINT_SCHEMA = c.TABLE_SCHEMA \
             AND k.TABLE_NAME = c.TABLE_NAME \
             AND k.CHECK_CLAUSE = CONCAT('json_valid(`', c.COLUMN_NAME, '`)')), 'json', c.COLUMN_TYPE)"
        }
        Flavor::Mysql => "c.COLUMN_TYPE",
    };
    let columns: Vec<ColumnRow> = conn
        .query(format!(
            "SELECT c.TABLE_NAME, c.COLUMN_NAME, {column_type}, c.IS_NULLABLE, c.COLUMN_DEFAULT, \
             c.COLUMN_COMMENT FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = DATABASE() \
             ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION"
        ))
        .await?;
    let keys: Vec<KeyRow> = conn
        .query(
            "SELECT TABLE_NAME, CONSTRAINT_NAME, COLUMN_NAME, REFERENCED_TABLE_NAME, \
             REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE \
             WHERE TABLE_SCHEMA = DATABASE() \
             AND (CONSTRAINT_NAME = 'PRIMARY' OR REFERENCED_TABLE_NAME IS NOT NULL) \
             ORDER BY TABLE_NAME, CONSTRAINT_NAME, ORDINAL_POSITION",
        )
        .await?;
    let mut out: Vec<TableDetail> = tables
        .into_iter()
        .map(|(name, kind, rows, comment)| TableDetail {
            schema: None,
            kind: if kind.contains("VIEW") {
                "view"
            } else {
                "table"
            }
            .to_string(),
            estimated_rows: rows.and_then(|r| i64::try_from(r).ok()),
            comment: comment.filter(|c| !c.is_empty() && c != "VIEW"),
            columns: Vec::new(),
            primary_key: Vec::new(),
            foreign_keys: Vec::new(),
            referenced_by: Vec::new(),
            row_filtered: false,
            name,
        })
        .collect();
    for (table, name, data_type, nullable, default, comment) in columns {
        if let Some(t) = out.iter_mut().find(|t| t.name == table) {
            t.columns.push(ColumnDetail {
                name,
                data_type,
                nullable: nullable == "YES",
                default,
                comment: comment.filter(|c| !c.is_empty()),
                protected: false,
            });
        }
    }
    // Rows come ordered by table and constraint: a composite key's columns are adjacent.
    let mut last: Option<(String, String)> = None;
    for (table, constraint, column, referenced_table, referenced_column) in keys {
        let Some(t) = out.iter_mut().find(|t| t.name == table) else {
            continue;
        };
        let (Some(rt), Some(rc)) = (referenced_table, referenced_column) else {
            t.primary_key.push(column);
            continue;
        };
        let same = last.as_ref() == Some(&(table.clone(), constraint.clone()));
        match t.foreign_keys.last_mut() {
            Some(fk) if same => {
                fk.columns.push(column);
                fk.referenced_columns.push(rc);
            }
            _ => t.foreign_keys.push(ForeignKeyDetail {
                columns: vec![column],
                referenced_schema: None,
                referenced_table: rt,
                referenced_columns: vec![rc],
            }),
        }
        last = Some((table, constraint));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssl_mode_and_scheme_become_driver_options() {
        let opts =
            driver_opts("mariadb://u:p@127.0.0.1:3306/db?ssl-mode=REQUIRED", 2).expect("parses");
        assert_eq!(opts.db_name(), Some("db"));
        assert!(opts.ssl_opts().is_some());
        let plain = driver_opts("mysql://u@127.0.0.1/db", 2).expect("parses");
        assert!(plain.ssl_opts().is_none());
        let bad = driver_opts("mysql://u:secret@h/db?ssl-mode=maybe", 2).expect_err("refused");
        assert!(!bad.message.contains("secret"));
        assert!(driver_opts("postgres://h/db", 2).is_err());
    }

    #[test]
    fn large_integers_become_strings() {
        assert_eq!(integer(42i64), Value::from(42));
        assert_eq!(integer(u64::MAX), Value::String(u64::MAX.to_string()));
        assert_eq!(
            integer(-(1i64 << 60)),
            Value::String((-(1i64 << 60)).to_string())
        );
    }
}
