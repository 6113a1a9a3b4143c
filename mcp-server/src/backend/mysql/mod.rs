//! MySQL and MariaDB (`mysql://`, `mariadb://`), pooled with `mysql_async`.
//!
//! Every read runs as a prepared statement (COM_STMT_PREPARE takes exactly one statement, so a
//! stacked payload cannot run even if the guard missed it; `mysql_async` always announces
//! CLIENT_MULTI_STATEMENTS, which only the text protocol honours, and agent SQL never goes
//! through it) inside `START TRANSACTION READ ONLY` with the server-side statement timeout set
//! (`max_execution_time` on MySQL, `max_statement_time` on MariaDB) and temporary tables bounded
//! (`session_bounds`), and is always rolled back.
//! When the client-side limit passes, the query is killed on the server (`KILL QUERY` from
//! another connection) and its connection is closed, never returned to the pool.

mod error;
mod introspect;
mod plan;
mod read;
mod render;
mod unique;
mod write;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder, Pool, PoolConstraints, PoolOpts};
use sqlgate::Dialect;

use self::error::map_err;
use crate::backend::cost::Estimate;
use crate::backend::params::Params;
use crate::backend::UniqueKey;
use crate::backend::{
    Database, DbError, DbErrorCode, Finish, MutationRun, MutationSql, QueryLimits, QueryResult,
    TableDetail,
};

/// How long past the statement timeout the client waits before it kills the query itself.
pub(super) const GRACE: Duration = Duration::from_secs(2);

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

    fn json_columns(&self) -> Arc<HashSet<(String, String)>> {
        match self.json_columns.read() {
            Ok(set) => set.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// The session's statement timeout, in the server's own variable and unit, and its memory
    /// and temporary-table bounds ([`session_bounds`]), in one `SET`.
    fn timeout_statement(&self, timeout: Duration) -> String {
        let timeout = match self.flavor {
            Flavor::Mysql => format!("max_execution_time = {}", timeout.as_millis().max(1)),
            Flavor::Mariadb => format!(
                "max_statement_time = {:.3}",
                timeout.as_secs_f64().max(0.001)
            ),
        };
        format!("SET SESSION {timeout}, {}", session_bounds(self.flavor))
    }

    /// Ends a transaction's work: a connection whose transaction could not be ended, or whose
    /// work ran over the limit, is closed instead of returned to the pool; over the limit, its
    /// query is first killed on the server from another connection.
    async fn settle<T>(
        &self,
        conn: Conn,
        id: u32,
        outcome: Result<(Result<T, DbError>, bool), tokio::time::error::Elapsed>,
        timed_out: &str,
    ) -> Result<T, DbError> {
        match outcome {
            Ok((result, true)) => result,
            Ok((result, false)) => {
                close(conn).await;
                result
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

    /// Closes every pooled connection.
    pub async fn close(self) {
        let _ = self.pool.disconnect().await;
    }
}

/// The most memory an in-memory temporary table gets before it moves to disk: 16 MiB (the
/// servers' default).
const TMP_TABLE_BYTES: u64 = 16 << 20;
/// The most disk a temporary table gets (MariaDB's `tmp_disk_table_size`; MySQL has no session
/// bound on disk): 1 GiB.
const TMP_DISK_TABLE_BYTES: u64 = 1 << 30;

/// The session's bounds on temporary tables, never above the server's own (`LEAST` with the
/// global value): `tmp_table_size` and `max_heap_table_size`, and on MariaDB
/// `tmp_disk_table_size`. A value is bounded by `max_allowed_packet`, which a session may not
/// lower: over it a function returns NULL with warning 1301.
fn session_bounds(flavor: Flavor) -> String {
    let mut set = format!(
        "tmp_table_size = {}, max_heap_table_size = {}",
        least("tmp_table_size", TMP_TABLE_BYTES),
        least("max_heap_table_size", TMP_TABLE_BYTES)
    );
    if flavor == Flavor::Mariadb {
        set.push_str(&format!(
            ", tmp_disk_table_size = {}",
            least("tmp_disk_table_size", TMP_DISK_TABLE_BYTES)
        ));
    }
    set
}

/// The global `variable`, or `bytes` when that is less. Cast: MariaDB sets a session variable
/// to 1024 from `LEAST` of an unsigned maximum (`tmp_disk_table_size`'s default) and an integer.
fn least(variable: &str, bytes: u64) -> String {
    format!("CAST(LEAST(@@GLOBAL.{variable}, {bytes}) AS UNSIGNED)")
}

/// Opens the transaction (`READ ONLY` or `READ WRITE`) and sets the session's statement timeout
/// (`set_timeout`, from [`MysqlBackend::timeout_statement`]): the start of every statement run.
pub(super) async fn begin(
    conn: &mut Conn,
    access: &str,
    set_timeout: &str,
) -> Result<(), mysql_async::Error> {
    conn.query_drop(format!("START TRANSACTION {access}"))
        .await?;
    conn.query_drop(set_timeout).await
}

/// Closes a connection that must not go back to the pool, without waiting long for the server.
async fn close(conn: Conn) {
    let _ = tokio::time::timeout(Duration::from_secs(2), conn.disconnect()).await;
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

impl Database for MysqlBackend {
    fn dialect(&self) -> Dialect {
        Dialect::Mysql
    }

    fn kind(&self) -> &'static str {
        match self.flavor {
            Flavor::Mysql => "mysql",
            Flavor::Mariadb => "mariadb",
        }
    }

    async fn execute_with(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        self.read(sql, params, limits).await
    }

    async fn mutate(
        &self,
        batch: &[MutationSql<'_>],
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<Vec<MutationRun>, DbError> {
        self.write(batch, limits, finish).await
    }

    async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        self.tables().await
    }

    async fn unique_keys(&self) -> Result<Vec<UniqueKey>, DbError> {
        self.unique().await
    }

    async fn estimate(&self, sql: &str, timeout: Duration) -> Result<Option<Estimate>, DbError> {
        self.plan(sql, timeout).await
    }

    /// What the user may do beyond reading (empty when read-only).
    fn role_warnings(&self) -> &[String] {
        &self.role_warnings
    }
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
}
