//! MySQL / MariaDB writes: an approved mutation, prepared, in `START TRANSACTION READ WRITE`
//! under the server-side statement timeout, committed only when `finish` says so.

use mysql_async::prelude::Queryable;

use super::error::map_err;
use super::read::run_prepared;
use super::{begin, MysqlBackend, GRACE};
use crate::backend::{DbError, Finish, MutationRun, QueryLimits};

impl MysqlBackend {
    /// Executes an approved mutation in a read-write transaction; commits only when `finish`
    /// says so for the count it touched, otherwise rolls back.
    pub(super) async fn write(
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
                run_prepared(
                    &mut conn,
                    sql,
                    mysql_async::Params::Empty,
                    limits,
                    true,
                    &json,
                )
                .await
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
}
