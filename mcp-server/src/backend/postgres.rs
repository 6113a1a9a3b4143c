//! PostgreSQL backend: a deadpool connection pool; approved SQL runs through the extended protocol
//! only (parse + bind, one statement; never the simple-query protocol, which only our own constant
//! BEGIN / SET LOCAL / COMMIT / ROLLBACK use) inside `BEGIN READ ONLY` with
//! `SET LOCAL statement_timeout`, and is always rolled back. Requests are pipelined: a read or an
//! EXPLAIN costs one round trip (a read that returns no row two), a mutation two.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures::future::{join, join3};
use futures::{pin_mut, TryStreamExt};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::Column;
use tokio_postgres::NoTls;

use super::{
    Collector, ColumnDetail, DbError, DbErrorCode, ForeignKeyDetail, QueryLimits, QueryResult,
    TableDetail,
};
use crate::render::{render, RawValue};

/// A pooled PostgreSQL database.
pub struct PgBackend {
    pub(crate) pool: Pool,
    warnings: Vec<String>,
}

/// How the URL asks for TLS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TlsMode {
    None,
    /// Encrypt, do not verify the certificate (libpq's `require`).
    Require,
    /// Encrypt and verify against the web PKI roots (`verify-ca` / `verify-full`).
    Verify,
}

fn sslmode(url: &str) -> (String, TlsMode) {
    let lower = url.to_ascii_lowercase();
    for (needle, mode) in [
        ("sslmode=verify-full", TlsMode::Verify),
        ("sslmode=verify-ca", TlsMode::Verify),
        ("sslmode=require", TlsMode::Require),
    ] {
        if let Some(i) = lower.find(needle) {
            let mut fixed = url.to_string();
            fixed.replace_range(i..i + needle.len(), "sslmode=require");
            return (fixed, mode);
        }
    }
    (url.to_string(), TlsMode::None)
}

pub(crate) fn slice_iter<'a>(
    s: &'a [&'a (dyn ToSql + Sync)],
) -> impl ExactSizeIterator<Item = &'a dyn ToSql> + 'a {
    s.iter().map(|s| *s as _)
}

/// Maps a driver error to a stable code; never includes connection parameters.
pub fn map_err(e: &tokio_postgres::Error) -> DbError {
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        let state = code.code().to_string();
        let (kind, retryable) = if *code == SqlState::QUERY_CANCELED {
            (DbErrorCode::QueryTimeout, false)
        } else if state.starts_with("08")
            || state.starts_with("53")
            || state.starts_with("57P")
            || *code == SqlState::CANNOT_CONNECT_NOW
        {
            (DbErrorCode::DatabaseUnavailable, true)
        } else {
            (
                DbErrorCode::DatabaseError,
                *code == SqlState::T_R_SERIALIZATION_FAILURE
                    || *code == SqlState::T_R_DEADLOCK_DETECTED,
            )
        };
        let mut message = db.message().to_string();
        if let Some(detail) = db.detail() {
            message.push_str(&format!(" ({detail})"));
        }
        if kind == DbErrorCode::QueryTimeout {
            message =
                format!("the query ran over the statement timeout and was cancelled: {message}");
        }
        return DbError {
            code: kind,
            message,
            sqlstate: Some(state),
            retryable,
            hint: None,
        };
    }
    DbError::new(
        DbErrorCode::DatabaseUnavailable,
        format!(
            "the connection to the database failed: {}",
            connect_cause(e)
        ),
    )
}

pub(crate) fn pool_err(e: &deadpool_postgres::PoolError) -> DbError {
    use deadpool_postgres::{PoolError, TimeoutType};
    match e {
        PoolError::Backend(b) if b.as_db_error().is_some() => map_err(b),
        PoolError::Backend(b) => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            format!("cannot connect to the database: {}", connect_cause(b)),
        ),
        PoolError::Timeout(TimeoutType::Create) => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            "cannot connect to the database: timed out (no answer from the host and port)",
        ),
        PoolError::Timeout(_) => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            "no database connection became available in time",
        ),
        _ => DbError::new(
            DbErrorCode::DatabaseUnavailable,
            "cannot connect to the database",
        ),
    }
}

/// How long past the statement timeout the client waits before it cancels the query itself.
pub(super) const GRACE: Duration = Duration::from_secs(5);

/// The simple query that opens a transaction: `begin` (`BEGIN READ ONLY` or `BEGIN READ WRITE`)
/// and its `SET LOCAL statement_timeout` (our constant text and an integer, never the agent's SQL).
fn begin_sql(begin: &str, timeout: Duration) -> String {
    format!(
        "{begin}; SET LOCAL statement_timeout = {}",
        timeout.as_millis().max(1)
    )
}

/// Opens a transaction and prepares `sql` in one round trip: the BEGIN ([`begin_sql`]) pipelined
/// with the Parse of the approved SQL (the extended protocol, which takes exactly one statement).
/// The outer error means the transaction did not open (the connection cannot be trusted); the
/// inner one that `sql` did not prepare (the transaction is open and must be ended).
pub(super) async fn begin_and_prepare(
    client: &tokio_postgres::Client,
    begin: &str,
    sql: &str,
    timeout: Duration,
) -> Result<Result<tokio_postgres::Statement, DbError>, DbError> {
    let setup = begin_sql(begin, timeout);
    // `join` polls in order, and tokio-postgres sends each request on its future's first poll:
    // the server reads the BEGIN before the Parse.
    let (begun, prepared) = join(client.batch_execute(&setup), client.prepare(sql)).await;
    begun.map_err(|e| map_err(&e))?;
    Ok(prepared.map_err(|e| map_err(&e)))
}

/// A collector for `columns`, and their types (to render each row's values).
fn collector_for(columns: &[Column], limits: QueryLimits) -> (Collector, Vec<Type>) {
    let names: Vec<String> = columns.iter().map(|c| c.name().to_string()).collect();
    let types: Vec<Type> = columns.iter().map(|c| c.type_().clone()).collect();
    let type_names = types.iter().map(|t| t.name().to_string()).collect();
    (Collector::new(&names, type_names, limits), types)
}

/// A row's values rendered as JSON, in column order.
fn row_values(types: &[Type], row: &tokio_postgres::Row) -> Vec<serde_json::Value> {
    types
        .iter()
        .enumerate()
        .map(|(i, ty)| {
            render(
                ty,
                row.try_get::<_, RawValue>(i).map(|r| r.raw).unwrap_or(None),
            )
        })
        .collect()
}

/// Runs the prepared statement in the open transaction, rendering rows into a [`Collector`].
/// Stops at the cap unless `read_all` (a mutation's count of affected rows comes after its last
/// row). Returns the rows kept and the count of rows the statement affected.
pub(super) async fn collect_rows(
    client: &tokio_postgres::Client,
    stmt: &tokio_postgres::Statement,
    limits: QueryLimits,
    read_all: bool,
) -> Result<(QueryResult, u64), DbError> {
    let (mut collector, types) = collector_for(stmt.columns(), limits);
    let stream = client
        .query_raw(stmt, slice_iter(&[]))
        .await
        .map_err(|e| map_err(&e))?;
    pin_mut!(stream);
    while let Some(row) = stream.try_next().await.map_err(|e| map_err(&e))? {
        if !collector.push(row_values(&types, &row)) && !read_all {
            break;
        }
    }
    Ok((collector.result, stream.rows_affected().unwrap_or(0)))
}

/// Runs `statement` inside a read-only transaction of its own, in one round trip: our BEGIN and
/// SET LOCAL ([`begin_sql`]), the statement's one request, and ROLLBACK are sent together
/// (pipelined) and answered in order. Returns its result and whether the transaction ended.
///
/// `statement` must send its request on its first poll, as every tokio-postgres call does:
/// `join3` polls in order, so the server reads the BEGIN, then the statement, then the ROLLBACK.
/// The statement cannot run outside the read-only transaction: a connection leaves the pool idle
/// ([`settle`] drops any whose transaction did not end), where BEGIN does not fail, and a failed
/// SET LOCAL aborts the transaction and with it the statement.
async fn in_read_only_transaction<T>(
    client: &tokio_postgres::Client,
    timeout: Duration,
    statement: impl Future<Output = Result<T, DbError>>,
) -> (Result<T, DbError>, bool) {
    let setup = begin_sql("BEGIN READ ONLY", timeout);
    let (begun, result, rolled_back) = join3(
        client.batch_execute(&setup),
        statement,
        client.batch_execute("ROLLBACK"),
    )
    .await;
    // A failed BEGIN or ROLLBACK means the connection cannot be trusted.
    match begun {
        Err(e) => (Err(map_err(&e)), false),
        Ok(()) => (result, rolled_back.is_ok()),
    }
}

/// No parameters: approved SQL carries its values as literals.
fn no_params() -> impl ExactSizeIterator<Item = (&'static (dyn ToSql + Sync), Type)> {
    std::iter::empty()
}

/// Parses, binds and executes approved read `sql` as the unnamed statement (one request) and
/// collects its rows under the caps. `None` when it returned no row: the columns come with the
/// first row (the driver keeps the description of an unnamed statement to itself).
async fn read_rows(
    client: &tokio_postgres::Client,
    sql: &str,
    limits: QueryLimits,
) -> Result<Option<QueryResult>, DbError> {
    let stream = client
        .query_typed_raw(sql, no_params())
        .await
        .map_err(|e| map_err(&e))?;
    pin_mut!(stream);
    let mut collector = None;
    while let Some(row) = stream.try_next().await.map_err(|e| map_err(&e))? {
        let (collector, types) =
            collector.get_or_insert_with(|| collector_for(row.columns(), limits));
        if !collector.push(row_values(types, &row)) {
            break;
        }
    }
    Ok(collector.map(|(c, _)| c.result))
}

/// The columns of a read that returned no row, and no row: `sql` prepared (not run) in a
/// read-only transaction, rolled back. The flag says whether the transaction ended.
async fn describe(
    client: &tokio_postgres::Client,
    sql: &str,
    limits: QueryLimits,
) -> (Result<QueryResult, DbError>, bool) {
    let prepare = async {
        let stmt = client.prepare(sql).await.map_err(|e| map_err(&e))?;
        Ok(collector_for(stmt.columns(), limits).0.result)
    };
    in_read_only_transaction(client, limits.timeout, prepare).await
}

/// The first column of the first row of approved `explain` (an `EXPLAIN (FORMAT JSON)`), as
/// JSON; `None` without a row.
async fn plan_json(
    client: &tokio_postgres::Client,
    explain: &str,
) -> Result<Option<serde_json::Value>, DbError> {
    let stream = client
        .query_typed_raw(explain, no_params())
        .await
        .map_err(|e| map_err(&e))?;
    pin_mut!(stream);
    match stream.try_next().await.map_err(|e| map_err(&e))? {
        Some(row) => row.try_get(0).map(Some).map_err(|e| map_err(&e)),
        None => Ok(None),
    }
}

/// Ends a transaction's work on `client`: `outcome` is the work's result and whether its COMMIT
/// or ROLLBACK went through, or the timeout. A connection whose transaction could not be ended
/// leaves the pool; one that ran over the limit has its query cancelled and leaves the pool
/// (closing it rolls the transaction back), and the call fails with `timed_out`.
pub(super) async fn settle<T>(
    client: deadpool_postgres::Object,
    outcome: Result<(Result<T, DbError>, bool), tokio::time::error::Elapsed>,
    timed_out: &str,
) -> Result<T, DbError> {
    match outcome {
        Ok((result, true)) => result,
        Ok((result, false)) => {
            let _ = deadpool_postgres::Object::take(client);
            result
        }
        Err(_) => {
            let token = client.cancel_token();
            let _ = deadpool_postgres::Object::take(client);
            let _ = token.cancel_query(NoTls).await;
            Err(DbError::new(DbErrorCode::QueryTimeout, timed_out))
        }
    }
}

/// Why a connection failed, in words an operator can act on: refused, host not found, TLS not
/// offered, timed out, or the driver's own words. Built from the error chain's kinds and texts,
/// none of which carries the connection string (host names appear, credentials never do).
fn connect_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut texts = Vec::new();
    let mut current = Some(e);
    while let Some(err) = current {
        if let Some(io) = err.downcast_ref::<std::io::Error>() {
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => {
                    return "connection refused (is the server running and listening on that \
                            host and port?)"
                        .to_string()
                }
                std::io::ErrorKind::TimedOut => return "timed out".to_string(),
                _ => {}
            }
        }
        texts.push(err.to_string());
        current = err.source();
    }
    let all = texts.join(": ").to_lowercase();
    if all.contains("lookup address") || all.contains("name or service not known") {
        "host not found (check the host name in the URL)".to_string()
    } else if all.contains("does not support tls") {
        "the server does not offer TLS, which sslmode=require / verify-full needs (use \
         sslmode=disable only on a trusted network)"
            .to_string()
    } else if all.contains("timed out") || all.contains("timeout") {
        "timed out".to_string()
    } else {
        texts.last().cloned().unwrap_or_default()
    }
}

mod insecure {
    //! A certificate verifier for `sslmode=require`: encrypted, not authenticated (as libpq).
    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{DigitallySignedStruct, SignatureScheme};

    #[derive(Debug)]
    pub struct NoVerify(pub std::sync::Arc<rustls::crypto::CryptoProvider>);

    impl ServerCertVerifier for NoVerify {
        fn verify_server_cert(
            &self,
            _end_entity: &CertificateDer<'_>,
            _intermediates: &[CertificateDer<'_>],
            _server_name: &ServerName<'_>,
            _ocsp_response: &[u8],
            _now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }
}

fn tls_config(mode: TlsMode) -> rustls::ClientConfig {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap_or_else(|_| rustls::ClientConfig::builder());
    if mode == TlsMode::Verify {
        let roots =
            rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        builder.with_root_certificates(roots).with_no_client_auth()
    } else {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(insecure::NoVerify(provider)))
            .with_no_client_auth()
    }
}

impl PgBackend {
    /// Connects a pool and inspects the role. Errors never contain the URL.
    pub async fn connect(
        url: &str,
        pool_size: usize,
        timeout: Duration,
        require_read_only_role: bool,
    ) -> Result<PgBackend, DbError> {
        let (url, mode) = sslmode(url);
        let config: tokio_postgres::Config = url.parse().map_err(|_| {
            DbError::new(
                DbErrorCode::DatabaseError,
                "the PostgreSQL URL could not be parsed",
            )
        })?;
        let mgr_config = ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        };
        let mgr = if mode == TlsMode::None {
            Manager::from_config(config, NoTls, mgr_config)
        } else {
            let tls = tokio_postgres_rustls::MakeRustlsConnect::new(tls_config(mode));
            Manager::from_config(config, tls, mgr_config)
        };
        let pool = Pool::builder(mgr)
            .max_size(pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(timeout))
            .create_timeout(Some(Duration::from_secs(10)))
            .recycle_timeout(Some(Duration::from_secs(5)))
            .build()
            .map_err(|_| DbError::new(DbErrorCode::DatabaseError, "cannot build the pool"))?;
        let mut backend = PgBackend {
            pool,
            warnings: Vec::new(),
        };
        backend.warnings = backend.inspect_role().await?;
        if require_read_only_role && !backend.warnings.is_empty() {
            return Err(DbError::new(
                DbErrorCode::RoleNotReadOnly,
                format!(
                    "--require-read-only-role: the database role can write: {}",
                    backend.warnings.join("; ")
                ),
            ));
        }
        Ok(backend)
    }

    /// Warnings about what the role can do (empty for a read-only role).
    pub fn role_warnings(&self) -> &[String] {
        &self.warnings
    }

    async fn inspect_role(&self) -> Result<Vec<String>, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let row = client
            .query_one(
                "SELECT current_user::text, r.rolsuper, r.rolcreaterole, r.rolcreatedb, \
                 has_database_privilege(current_database(), 'CREATE'), \
                 (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                   WHERE c.relkind IN ('r','p','v','m','f') \
                     AND n.nspname NOT IN ('pg_catalog','information_schema') AND n.nspname NOT LIKE 'pg_toast%' \
                     AND (has_table_privilege(c.oid, 'INSERT') OR has_table_privilege(c.oid, 'UPDATE') \
                       OR has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE'))), \
                 (SELECT count(*) FROM pg_namespace n WHERE n.nspname NOT LIKE 'pg\\_%' \
                     AND n.nspname <> 'information_schema' AND has_schema_privilege(n.oid, 'CREATE')) \
                 FROM pg_roles r WHERE r.rolname = current_user",
                &[],
            )
            .await
            .map_err(|e| map_err(&e))?;
        let user: String = row.try_get(0).unwrap_or_default();
        let mut w = Vec::new();
        if row.try_get::<_, bool>(1).unwrap_or(true) {
            w.push(format!("role `{user}` is a superuser"));
        }
        if row.try_get::<_, bool>(2).unwrap_or(false) {
            w.push(format!("role `{user}` can create roles"));
        }
        if row.try_get::<_, bool>(3).unwrap_or(false) {
            w.push(format!("role `{user}` can create databases"));
        }
        if row.try_get::<_, bool>(4).unwrap_or(false) {
            w.push(format!("role `{user}` can create schemas in this database"));
        }
        let tables: i64 = row.try_get(5).unwrap_or(0);
        if tables > 0 {
            w.push(format!(
                "role `{user}` has INSERT/UPDATE/DELETE/TRUNCATE on {tables} tables"
            ));
        }
        let schemas: i64 = row.try_get(6).unwrap_or(0);
        if schemas > 0 {
            w.push(format!("role `{user}` has CREATE on {schemas} schemas"));
        }
        Ok(w)
    }

    /// Executes approved SQL: read-only transaction, local timeout, capped fetch, rollback. One
    /// round trip: the BEGIN, the statement (parse, bind, execute) and the ROLLBACK are sent
    /// together (pipelined) and answered in order. A result without rows takes a second one, to
    /// describe its columns.
    pub async fn execute(&self, sql: &str, limits: QueryLimits) -> Result<QueryResult, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let work = async {
            let read = read_rows(&client, sql, limits);
            match in_read_only_transaction(&client, limits.timeout, read).await {
                (Ok(Some(result)), ended) => (Ok(result), ended),
                (Ok(None), ended) => {
                    let (described, described_ended) = describe(&client, sql, limits).await;
                    (described, ended && described_ended)
                }
                (Err(e), ended) => (Err(e), ended),
            }
        };
        let outcome = tokio::time::timeout(limits.timeout + GRACE, work).await;
        settle(
            client,
            outcome,
            "the query ran over the statement timeout and was cancelled",
        )
        .await
    }

    /// The planner's estimate of approved `sql` (`EXPLAIN (FORMAT JSON)`, which plans without
    /// running), in a read-only transaction under the statement timeout.
    pub async fn estimate(
        &self,
        sql: &str,
        timeout: Duration,
    ) -> Result<Option<super::cost::Estimate>, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let explain = format!("EXPLAIN (FORMAT JSON) {sql}");
        let plan = async {
            let plan = plan_json(&client, &explain).await?;
            Ok(plan.and_then(|p| super::cost::from_postgres_plan(&p)))
        };
        let work = in_read_only_transaction(&client, timeout, plan);
        let outcome = tokio::time::timeout(timeout + GRACE, work).await;
        settle(client, outcome, "EXPLAIN ran over the statement timeout").await
    }

    /// Reads user tables and views the role may select, with columns, keys and comments.
    #[expect(
        clippy::too_many_lines,
        reason = "over 80 lines when the limit came in; to be split (issue 26)"
    )]
    pub async fn introspect(&self) -> Result<Vec<TableDetail>, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let filter = "c.relkind IN ('r','p','v','m','f') \
            AND n.nspname NOT IN ('pg_catalog','information_schema') \
            AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' \
            AND has_table_privilege(c.oid, 'SELECT')";
        let rows = client
            .query(
                &format!(
                    "SELECT c.oid, n.nspname::text, c.relname::text, c.relkind::text, \
                     c.reltuples::float8, obj_description(c.oid, 'pg_class') \
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE {filter} ORDER BY 2, 3"
                ),
                &[],
            )
            .await
            .map_err(|e| map_err(&e))?;
        let mut oids: Vec<u32> = Vec::new();
        let mut tables: Vec<TableDetail> = Vec::new();
        for r in rows {
            let kind: String = r.try_get(3).unwrap_or_default();
            let reltuples: f64 = r.try_get(4).unwrap_or(-1.0);
            oids.push(r.try_get(0).unwrap_or(0));
            tables.push(TableDetail {
                schema: r.try_get(1).ok(),
                name: r.try_get(2).unwrap_or_default(),
                kind: match kind.as_str() {
                    "r" => "table",
                    "p" => "partitioned_table",
                    "v" => "view",
                    "m" => "materialized_view",
                    "f" => "foreign_table",
                    _ => "relation",
                }
                .to_string(),
                estimated_rows: (reltuples >= 0.0).then_some(reltuples as i64),
                comment: r.try_get(5).ok().flatten(),
                columns: Vec::new(),
                primary_key: Vec::new(),
                foreign_keys: Vec::new(),
                referenced_by: Vec::new(),
                row_filtered: false,
            });
        }
        let index = |oid: u32| oids.iter().position(|o| *o == oid);
        let cols = client
            .query(
                &format!(
                    "SELECT a.attrelid, a.attname::text, format_type(a.atttypid, a.atttypmod), \
                     NOT a.attnotnull, pg_get_expr(d.adbin, d.adrelid), col_description(a.attrelid, a.attnum) \
                     FROM pg_attribute a \
                     JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
                     LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
                     WHERE a.attnum > 0 AND NOT a.attisdropped AND {filter} \
                     ORDER BY a.attrelid, a.attnum"
                ),
                &[],
            )
            .await
            .map_err(|e| map_err(&e))?;
        for r in cols {
            if let Some(t) = index(r.try_get(0).unwrap_or(0)).and_then(|i| tables.get_mut(i)) {
                t.columns.push(ColumnDetail {
                    name: r.try_get(1).unwrap_or_default(),
                    data_type: r.try_get(2).unwrap_or_default(),
                    nullable: r.try_get(3).unwrap_or(true),
                    default: r.try_get(4).ok().flatten(),
                    comment: r.try_get(5).ok().flatten(),
                    protected: false,
                });
            }
        }
        let cons = client
            .query(
                "SELECT con.conrelid, con.contype::text, \
                 ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(num, ord) \
                       JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord), \
                 fn.nspname::text, fc.relname::text, \
                 ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(num, ord) \
                       JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord) \
                 FROM pg_constraint con \
                 LEFT JOIN pg_class fc ON fc.oid = con.confrelid \
                 LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace \
                 WHERE con.contype IN ('p', 'f') ORDER BY con.conrelid, con.conname",
                &[],
            )
            .await
            .map_err(|e| map_err(&e))?;
        for r in cons {
            let Some(t) = index(r.try_get(0).unwrap_or(0)).and_then(|i| tables.get_mut(i)) else {
                continue;
            };
            let kind: String = r.try_get(1).unwrap_or_default();
            let columns: Vec<String> = r.try_get(2).unwrap_or_default();
            if kind == "p" {
                t.primary_key = columns;
            } else {
                t.foreign_keys.push(ForeignKeyDetail {
                    columns,
                    referenced_schema: r.try_get(3).ok().flatten(),
                    referenced_table: r
                        .try_get::<_, Option<String>>(4)
                        .ok()
                        .flatten()
                        .unwrap_or_default(),
                    referenced_columns: r.try_get(5).unwrap_or_default(),
                });
            }
        }
        Ok(tables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslmodes() {
        assert_eq!(sslmode("postgres://h/db").1, TlsMode::None);
        assert_eq!(
            sslmode("postgres://h/db?sslmode=require").1,
            TlsMode::Require
        );
        let (u, m) = sslmode("postgres://h/db?sslmode=verify-full");
        assert_eq!(m, TlsMode::Verify);
        assert!(u.ends_with("sslmode=require"));
    }
}
