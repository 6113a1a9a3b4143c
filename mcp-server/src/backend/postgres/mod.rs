//! PostgreSQL backend: a deadpool connection pool (`tls` reads libpq's `sslmode`). Approved SQL
//! runs through the extended protocol only, inside a transaction with `SET LOCAL
//! statement_timeout` and the memory bounds the role may set (`bounds`): reads (`read`) in `BEGIN READ ONLY`, always rolled back; mutations
//! (`write`) in `BEGIN READ WRITE`. `introspect` reads the system catalogs, `plan` the planner's
//! estimate, `render` decodes values from the binary wire format, `error` maps SQLSTATEs to
//! stable codes and `hints` turns them into advice for the agent.

mod bounds;
mod error;
pub mod hints;
mod introspect;
mod plan;
mod read;
pub mod render;
mod tls;
mod unique;
pub mod write;

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use sqlgate::{Dialect, QueryClass};
use tokio_postgres::NoTls;

use self::bounds::Bounds;
use self::error::{map_err, pool_err};
use self::tls::{sslmode, tls_config, TlsMode};
use crate::backend::cost::Estimate;
use crate::backend::params::Params;
use crate::backend::UniqueKey;
use crate::backend::{
    ConnectError, Database, DbError, DbErrorCode, Finish, MutationRun, MutationSql, QueryLimits,
    QueryResult, TableDetail,
};

/// A pooled PostgreSQL database.
pub struct PgBackend {
    pool: Pool,
    warnings: Vec<String>,
    /// What each transaction sets locally besides the statement timeout.
    bounds: Bounds,
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
            bounds: Bounds::default(),
        };
        backend.warnings = backend.inspect_role().await?;
        let client = backend.pool.get().await.map_err(|e| pool_err(&e))?;
        backend.bounds = Bounds::probe(&client).await?;
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
}

impl Database for PgBackend {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn kind(&self) -> &'static str {
        "postgres"
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

    /// What the role can do beyond reading (empty for a read-only role).
    fn role_warnings(&self) -> &[String] {
        &self.warnings
    }

    fn hint(&self, error: &DbError, sql: &str) -> Option<String> {
        hints::for_error(error, sql)
    }

    async fn check_write_privileges(
        &self,
        writable: &[String],
        classes: &[QueryClass],
    ) -> Result<Vec<String>, ConnectError> {
        self.write_privileges(writable, classes).await
    }
}
