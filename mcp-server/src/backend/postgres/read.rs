//! PostgreSQL reads: approved SQL runs through the extended protocol only (parse + bind, one
//! statement; never the simple-query protocol, which only our own constant BEGIN / SET LOCAL /
//! COMMIT / ROLLBACK use) inside `BEGIN READ ONLY` with `SET LOCAL statement_timeout`, and is
//! always rolled back. Requests are pipelined: a read costs one round trip (one that returns no
//! row two).

use std::future::Future;
use std::time::Duration;

use futures::future::join3;
use futures::{pin_mut, TryStreamExt};
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Column, NoTls};

use super::error::{map_err, pool_err};
use super::render::{render, RawValue};
use super::PgBackend;
use crate::backend::params::{self, ParamValue, Params};
use crate::backend::{Collector, DbError, DbErrorCode, QueryLimits, QueryResult, Reading};
use sqlgate::Dialect;

pub(crate) fn slice_iter<'a>(
    s: &'a [&'a (dyn ToSql + Sync)],
) -> impl ExactSizeIterator<Item = &'a dyn ToSql> + 'a {
    s.iter().map(|s| *s as _)
}

/// How long past the statement timeout the client waits before it cancels the query itself.
pub(super) const GRACE: Duration = Duration::from_secs(5);

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

/// Runs the prepared statement in the open transaction, rendering rows into a [`Collector`]
/// as `reading` says (a mutation's count of affected rows comes after its last row). Returns the
/// rows kept and the count of rows the statement affected.
pub(super) async fn collect_rows(
    client: &tokio_postgres::Client,
    stmt: &tokio_postgres::Statement,
    limits: QueryLimits,
    reading: Reading,
) -> Result<(QueryResult, u64), DbError> {
    let (collector, types) = collector_for(stmt.columns(), limits);
    let mut collector = collector.read_as(reading);
    let stream = client
        .query_raw(stmt, slice_iter(&[]))
        .await
        .map_err(|e| map_err(&e))?;
    pin_mut!(stream);
    while let Some(row) = stream.try_next().await.map_err(|e| map_err(&e))? {
        if !collector.push(row_values(&types, &row)) && !reading.reads_all() {
            break;
        }
    }
    Ok((collector.result, stream.rows_affected().unwrap_or(0)))
}

/// Runs `statement` inside a read-only transaction of its own, in one round trip: our BEGIN and
/// SET LOCAL (`setup`, from [`Bounds::begin_sql`](super::bounds::Bounds::begin_sql) for `BEGIN READ ONLY`), the statement's one request, and ROLLBACK are sent together
/// (pipelined) and answered in order. Returns its result and whether the transaction ended.
///
/// `statement` must send its request on its first poll, as every tokio-postgres call does:
/// `join3` polls in order, so the server reads the BEGIN, then the statement, then the ROLLBACK.
/// The statement cannot run outside the read-only transaction: a connection leaves the pool idle
/// ([`settle`] drops any whose transaction did not end), where BEGIN does not fail, and a failed
/// SET LOCAL aborts the transaction and with it the statement.
pub(super) async fn in_read_only_transaction<T>(
    client: &tokio_postgres::Client,
    setup: &str,
    statement: impl Future<Output = Result<T, DbError>>,
) -> (Result<T, DbError>, bool) {
    let (begun, result, rolled_back) = join3(
        client.batch_execute(setup),
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
pub(super) fn no_params() -> impl ExactSizeIterator<Item = (&'static (dyn ToSql + Sync), Type)> {
    std::iter::empty()
}

/// A published query's values with the PostgreSQL types they are bound as (`$n` is declared
/// with its value's type: an `int8` compares with any integer column, `text` with any string).
struct Typed(Vec<(Box<dyn ToSql + Sync + Send>, Type)>);

impl Typed {
    fn of(params: &Params) -> Typed {
        let typed = params
            .0
            .iter()
            .map(|(_, v)| -> (Box<dyn ToSql + Sync + Send>, Type) {
                match v {
                    ParamValue::Text(t) => (Box::new(t.clone()), Type::TEXT),
                    ParamValue::Int(i) => (Box::new(*i), Type::INT8),
                    ParamValue::Float(f) => (Box::new(*f), Type::FLOAT8),
                    ParamValue::Bool(b) => (Box::new(*b), Type::BOOL),
                }
            });
        Typed(typed.collect())
    }

    fn types(&self) -> Vec<Type> {
        self.0.iter().map(|(_, t)| t.clone()).collect()
    }

    fn values(&self) -> impl ExactSizeIterator<Item = (&(dyn ToSql + Sync), Type)> {
        self.0
            .iter()
            .map(|(v, t)| (v.as_ref() as &(dyn ToSql + Sync), t.clone()))
    }
}

/// Parses, binds and executes approved read `sql` as the unnamed statement (one request) and
/// collects its rows under the caps. `None` when it returned no row: the columns come with the
/// first row (the driver keeps the description of an unnamed statement to itself).
async fn read_rows(
    client: &tokio_postgres::Client,
    sql: &str,
    typed: &Typed,
    limits: QueryLimits,
) -> Result<Option<QueryResult>, DbError> {
    let stream = client
        .query_typed_raw(sql, typed.values())
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
    setup: &str,
    sql: &str,
    types: &[Type],
    limits: QueryLimits,
) -> (Result<QueryResult, DbError>, bool) {
    let prepare = async {
        let stmt = client
            .prepare_typed(sql, types)
            .await
            .map_err(|e| map_err(&e))?;
        Ok(collector_for(stmt.columns(), limits).0.result)
    };
    in_read_only_transaction(client, setup, prepare).await
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

impl PgBackend {
    /// Executes approved SQL: read-only transaction, local timeout, capped fetch, rollback. One
    /// round trip: the BEGIN, the statement (parse, bind, execute) and the ROLLBACK are sent
    /// together (pipelined) and answered in order. A result without rows takes a second one, to
    /// describe its columns.
    pub(super) async fn read(
        &self,
        sql: &str,
        params: &Params,
        limits: QueryLimits,
    ) -> Result<QueryResult, DbError> {
        // PostgreSQL binds by position: each `:name` becomes `$n` (the SQL is unchanged when
        // there is no parameter).
        let numbered;
        let sql = if params.is_empty() {
            sql
        } else {
            numbered = params::numbered(sql, Dialect::Postgres, params)
                .map_err(|m| DbError::new(DbErrorCode::DatabaseError, m))?;
            numbered.as_str()
        };
        let typed = Typed::of(params);
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let setup = self.bounds.begin_sql("BEGIN READ ONLY", limits.timeout);
        let work = async {
            let read = read_rows(&client, sql, &typed, limits);
            match in_read_only_transaction(&client, &setup, read).await {
                (Ok(Some(result)), ended) => (Ok(result), ended),
                (Ok(None), ended) => {
                    let (described, described_ended) =
                        describe(&client, &setup, sql, &typed.types(), limits).await;
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
}
