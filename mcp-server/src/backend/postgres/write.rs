//! PostgreSQL writes: an approved mutation runs through the extended protocol (prepare + bind,
//! never the simple-query protocol) in `BEGIN READ WRITE` with `SET LOCAL statement_timeout`,
//! counting the rows it touches; and the startup check of what the role may write.

use super::error::{map_err, pool_err};
use super::read::{begin_and_prepare, collect_rows, settle, GRACE};
use super::PgBackend;
use crate::backend::{ConnectError, DbError, Finish, MutationRun, QueryLimits};

/// Privileges a mutation class needs on its target.
pub fn privileges_for(class: sqlgate::QueryClass) -> &'static [&'static str] {
    match class {
        sqlgate::QueryClass::MutationCreate => &["INSERT", "UPDATE"],
        sqlgate::QueryClass::MutationDelete => &["DELETE"],
        _ => &[],
    }
}

impl PgBackend {
    /// Executes an approved mutation in a read-write transaction; commits only when `finish`
    /// says so for the count it touched, otherwise rolls back.
    pub(super) async fn write(
        &self,
        sql: &str,
        limits: QueryLimits,
        finish: Finish,
    ) -> Result<MutationRun, DbError> {
        let client = self.pool.get().await.map_err(|e| pool_err(&e))?;
        let setup = self.bounds.begin_sql("BEGIN READ WRITE", limits.timeout);
        let work = async {
            let mut result = match begin_and_prepare(&client, &setup, sql).await {
                Err(e) => return (Err(e), false),
                Ok(Err(e)) => Err(e),
                Ok(Ok(stmt)) => collect_rows(&client, &stmt, limits, true).await,
            }
            .map(|(returning, affected_rows)| MutationRun {
                affected_rows,
                returning,
                committed: false,
            });
            let commit = matches!(&result, Ok(r) if finish.commits(r.affected_rows));
            let end = if commit { "COMMIT" } else { "ROLLBACK" };
            match client.batch_execute(end).await {
                Ok(_) => {
                    if let Ok(r) = result.as_mut() {
                        r.committed = commit;
                    }
                    (result, true)
                }
                Err(e) => (Err(map_err(&e)), false),
            }
        };
        let outcome = tokio::time::timeout(limits.timeout + GRACE, work).await;
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
