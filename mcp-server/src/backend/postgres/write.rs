//! PostgreSQL writes: an approved mutation runs through the extended protocol (prepare + bind,
//! never the simple-query protocol) in `BEGIN READ WRITE` with `SET LOCAL statement_timeout`,
//! counting the rows it touches; and the startup check of what the role may write.

use super::error::{map_err, pool_err};
use super::read::{collect_rows, settle, GRACE};
use super::PgBackend;
use crate::backend::{
    digest_limits, in_statement, ConnectError, DbError, Finish, MutationRun, MutationSql,
    QueryLimits, Reading,
};

/// Privileges a mutation class needs on its target.
pub fn privileges_for(class: sqlgate::QueryClass) -> &'static [&'static str] {
    match class {
        sqlgate::QueryClass::MutationCreate => &["INSERT", "UPDATE"],
        sqlgate::QueryClass::MutationDelete => &["DELETE"],
        _ => &[],
    }
}

/// Runs every statement of `batch` in the open transaction, each after the read and digest of
/// the rows it will touch (when it has one).
async fn run_batch(
    client: &tokio_postgres::Client,
    batch: &[MutationSql<'_>],
    limits: QueryLimits,
) -> Result<Vec<MutationRun>, DbError> {
    let mut runs = Vec::with_capacity(batch.len());
    for (i, m) in batch.iter().enumerate() {
        let step = async {
            let touched = match m.touched {
                Some(select) => {
                    let stmt = client.prepare(select).await.map_err(|e| map_err(&e))?;
                    let (rows, _) =
                        collect_rows(client, &stmt, digest_limits(limits), Reading::Digest).await?;
                    rows.rows_digest()
                }
                None => None,
            };
            let stmt = client.prepare(m.sql).await.map_err(|e| map_err(&e))?;
            let (returning, affected_rows) =
                collect_rows(client, &stmt, limits, Reading::All).await?;
            Ok(MutationRun {
                affected_rows,
                returning,
                committed: false,
                touched,
            })
        };
        runs.push(step.await.map_err(|e| in_statement(e, i, batch.len()))?);
    }
    Ok(runs)
}

impl PgBackend {
    /// Executes the approved mutations of `batch` in one read-write transaction; commits only
    /// when `finish` says so for what they touched, otherwise rolls back. When the rows a
    /// statement touches are read first, the transaction is REPEATABLE READ: the statement then
    /// touches exactly the rows read (a row changed by another transaction since is a
    /// serialization error, never a silent difference).
    pub(super) async fn write(
        &self,
        batch: &[MutationSql<'_>],
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<Vec<MutationRun>, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let begin = if batch.iter().any(|m| m.touched.is_some()) {
            "BEGIN ISOLATION LEVEL REPEATABLE READ, READ WRITE"
        } else {
            "BEGIN READ WRITE"
        };
        let setup = self.bounds.begin_sql(begin, limits.timeout);
        let work = async {
            if let Err(e) = client.batch_execute(&setup).await {
                return (Err(map_err(&e)), false);
            }
            let mut result = run_batch(&client, batch, limits).await;
            let commit = matches!(&result, Ok(runs) if finish.commits(runs));
            let end = if commit { "COMMIT" } else { "ROLLBACK" };
            match client.batch_execute(end).await {
                Ok(_) => {
                    for r in result.iter_mut().flatten() {
                        r.committed = commit;
                    }
                    (result, true)
                }
                Err(e) => (Err(map_err(&e)), false),
            }
        };
        let budget = limits.timeout * u32::try_from(batch.len().max(1)).unwrap_or(u32::MAX);
        let outcome = tokio::time::timeout(budget + GRACE, work).await;
        // Closing the connection of a timed-out mutation rolls it back.
        settle(
            client,
            outcome,
            "the mutation ran over the statement timeout and was cancelled (rolled back)",
        )
        .await
    }

    /// Checks that the role holds what `classes` need on every table of `writable`
    /// (`schema.table`); returns warnings about what it may write beyond them.
    pub(super) async fn write_privileges(
        &self,
        writable: &[String],
        classes: &[sqlgate::QueryClass],
    ) -> Result<Vec<String>, ConnectError> {
        let rows = self.table_privileges().await?;
        let needed: Vec<&str> = classes
            .iter()
            .flat_map(|c| privileges_for(*c))
            .copied()
            .collect();
        let mut others = Vec::new();
        for (name, held) in &rows {
            if writable.contains(name) {
                if let Some(p) = needed.iter().find(|p| !held.contains(&p.to_string())) {
                    return Err(ConnectError::Setup(format!(
                        "the database role lacks {p} on {name}, which the policy's `writes` lets \
                         mutations modify: GRANT {p} ON {name} TO the role, or narrow `writes`"
                    )));
                }
            } else if !held.is_empty() {
                others.push(name.clone());
            }
        }
        let mut warnings: Vec<String> = self
            .warnings
            .iter()
            .filter(|w| w.contains("superuser") || w.contains("create"))
            .cloned()
            .collect();
        if !others.is_empty() {
            let shown: Vec<&str> = others.iter().take(10).map(String::as_str).collect();
            let more = others.len().saturating_sub(shown.len());
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            warnings.push(format!(
                "the role can also write {} tables outside `writes`: {}{tail}",
                others.len(),
                shown.join(", ")
            ));
        }
        Ok(warnings)
    }

    /// Every user table with the write privileges the role holds on it.
    async fn table_privileges(&self) -> Result<Vec<(String, Vec<String>)>, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let rows = client
            .query(
                "SELECT n.nspname::text || '.' || c.relname::text, \
                 ARRAY(SELECT p FROM unnest(ARRAY['INSERT','UPDATE','DELETE','TRUNCATE']) p \
                       WHERE has_table_privilege(c.oid, p)) \
                 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                 WHERE c.relkind IN ('r','p','v','f') \
                   AND n.nspname NOT IN ('pg_catalog','information_schema') \
                   AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' \
                 ORDER BY 1",
                &[],
            )
            .await
            .map_err(|e| map_err(&e))?;
        Ok(rows
            .iter()
            .map(|r| {
                (
                    r.try_get(0).unwrap_or_default(),
                    r.try_get(1).unwrap_or_default(),
                )
            })
            .collect())
    }
}
