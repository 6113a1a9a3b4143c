//! MySQL / MariaDB writes: approved mutations, prepared, in one `START TRANSACTION READ WRITE`
//! under the server-side statement timeout, each after a locking read of the rows it touches
//! (when given), committed only when `finish` says so.

use std::collections::HashSet;

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params};

use super::error::map_err;
use super::read::run_prepared;
use super::{begin, MysqlBackend, GRACE};
use crate::backend::{
    digest_limits, in_statement, DbError, Finish, MutationRun, MutationSql, QueryLimits, Reading,
};

/// Runs every statement of `batch` in the open transaction, each after the read and digest of
/// the rows it will touch (when it has one: a locking read, so that the statement touches the
/// rows read).
async fn run_batch(
    conn: &mut Conn,
    batch: &[MutationSql<'_>],
    limits: QueryLimits,
    json: &HashSet<(String, String)>,
) -> Result<Vec<MutationRun>, DbError> {
    let mut runs = Vec::with_capacity(batch.len());
    for (i, m) in batch.iter().enumerate() {
        let step = async {
            let touched = match m.touched {
                Some(select) => {
                    let (rows, _) = run_prepared(
                        conn,
                        select,
                        Params::Empty,
                        digest_limits(limits),
                        Reading::Digest,
                        json,
                    )
                    .await?;
                    rows.rows_digest()
                }
                None => None,
            };
            let (returning, affected_rows) =
                run_prepared(conn, m.sql, Params::Empty, limits, Reading::All, json).await?;
            Ok::<_, mysql_async::Error>(MutationRun {
                affected_rows,
                returning,
                committed: false,
                touched,
            })
        };
        let run = step
            .await
            .map_err(|e| in_statement(map_err(&e), i, batch.len()))?;
        runs.push(run);
    }
    Ok(runs)
}

impl MysqlBackend {
    /// Executes the approved mutations of `batch` in one read-write transaction; commits only
    /// when `finish` says so for what they touched, otherwise rolls back.
    pub(super) async fn write(
        &self,
        batch: &[MutationSql<'_>],
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<Vec<MutationRun>, DbError> {
        let mut conn = self.pool.get_conn().await.map_err(|e| map_err(&e))?;
        let id = conn.id();
        let set_timeout = self.timeout_statement(limits.timeout);
        let json = self.json_columns();
        let work = async {
            let result = match begin(&mut conn, "READ WRITE", &set_timeout).await {
                Ok(()) => run_batch(&mut conn, batch, limits, &json).await,
                Err(e) => Err(map_err(&e)),
            };
            let commit = matches!(&result, Ok(runs) if finish.commits(runs));
            let end = if commit { "COMMIT" } else { "ROLLBACK" };
            match conn.query_drop(end).await {
                Ok(()) => (
                    result.map(|mut runs| {
                        for r in &mut runs {
                            r.committed = commit;
                        }
                        runs
                    }),
                    true,
                ),
                Err(e) => (Err(map_err(&e)), false),
            }
        };
        let budget = limits.timeout * u32::try_from(batch.len().max(1)).unwrap_or(u32::MAX);
        let outcome = tokio::time::timeout(budget + GRACE, work).await;
        self.settle(
            conn,
            id,
            outcome,
            "the mutation ran over the statement timeout and was killed (rolled back)",
        )
        .await
    }
}
