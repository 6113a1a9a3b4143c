//! What PostgreSQL itself bounds in each transaction, set with `SET LOCAL` after its BEGIN: the
//! statement timeout, `work_mem` (memory per sort or hash before it spills to disk, lowered to
//! [`WORK_MEM_KB`] when the server allows more) and `temp_file_limit` (disk a query may spill,
//! [`TEMP_FILE_LIMIT_KB`]), which only a superuser may set (or, from PostgreSQL 15, a role
//! granted `SET` on it); for any other role it stays what the server or the role's own settings
//! say (`ALTER ROLE ... SET temp_file_limit`).

use std::time::Duration;

use super::error::map_err;
use crate::backend::DbError;

/// The most `work_mem` a query gets: 64 MiB per sort or hash node.
pub(super) const WORK_MEM_KB: i64 = 64 * 1024;
/// The most temporary-file space a query gets, where the role may set it: 1 GiB.
pub(super) const TEMP_FILE_LIMIT_KB: i64 = 1024 * 1024;

/// The `SET LOCAL` bounds of this server and role, beside the statement timeout (`None`: left
/// as they are, because they are already tighter or the role may not set them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Bounds {
    /// `work_mem` in kB.
    pub(super) work_mem_kb: Option<i64>,
    /// `temp_file_limit` in kB.
    pub(super) temp_file_limit_kb: Option<i64>,
}

impl Bounds {
    /// From the server's settings (`work_mem`, `temp_file_limit` in kB, `-1`: none) and whether
    /// the role may set `temp_file_limit`.
    pub(super) fn for_settings(work_mem_kb: i64, temp_file_limit_kb: i64, may_limit: bool) -> Self {
        Bounds {
            work_mem_kb: (work_mem_kb > WORK_MEM_KB).then_some(WORK_MEM_KB),
            temp_file_limit_kb: (may_limit
                && !(0..=TEMP_FILE_LIMIT_KB).contains(&temp_file_limit_kb))
            .then_some(TEMP_FILE_LIMIT_KB),
        }
    }

    /// Reads the server's settings and the role's right to set `temp_file_limit`.
    pub(super) async fn probe(client: &tokio_postgres::Client) -> Result<Self, DbError> {
        let row = client
            .query_one(
                "SELECT (SELECT setting::bigint FROM pg_settings WHERE name = 'work_mem'), \
                 (SELECT setting::bigint FROM pg_settings WHERE name = 'temp_file_limit'), \
                 (SELECT rolsuper FROM pg_roles WHERE rolname = current_user), \
                 current_setting('server_version_num')::int",
                &[],
            )
            .await
            .map_err(|e| map_err(&e))?;
        let work_mem: i64 = row.try_get(0).unwrap_or(-1);
        let temp_file_limit: i64 = row.try_get(1).unwrap_or(-1);
        let superuser: bool = row.try_get(2).unwrap_or(false);
        let version: i32 = row.try_get(3).unwrap_or(0);
        let may_limit = superuser
            || (version >= 150_000
                && client
                    .query_one(
                        "SELECT has_parameter_privilege('temp_file_limit', 'SET')",
                        &[],
                    )
                    .await
                    .ok()
                    .and_then(|r| r.try_get::<_, bool>(0).ok())
                    .unwrap_or(false));
        Ok(Bounds::for_settings(work_mem, temp_file_limit, may_limit))
    }

    /// The simple query that opens a transaction: `begin` (`BEGIN READ ONLY` or `BEGIN READ
    /// WRITE`), its `SET LOCAL statement_timeout` and the bounds (our constant text and integers,
    /// never the agent's SQL).
    pub(super) fn begin_sql(&self, begin: &str, timeout: Duration) -> String {
        let mut sql = format!(
            "{begin}; SET LOCAL statement_timeout = {}",
            timeout.as_millis().max(1)
        );
        if let Some(kb) = self.work_mem_kb {
            sql.push_str(&format!("; SET LOCAL work_mem = {kb}"));
        }
        if let Some(kb) = self.temp_file_limit_kb {
            sql.push_str(&format!("; SET LOCAL temp_file_limit = {kb}"));
        }
        sql
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_only_tighten_and_temp_files_only_where_the_role_may() {
        let default = Bounds::for_settings(4096, -1, false);
        assert_eq!(default, Bounds::default());
        assert_eq!(
            default.begin_sql("BEGIN READ ONLY", Duration::from_secs(10)),
            "BEGIN READ ONLY; SET LOCAL statement_timeout = 10000"
        );
        let generous = Bounds::for_settings(1 << 20, -1, true);
        assert_eq!(
            generous.begin_sql("BEGIN READ WRITE", Duration::from_millis(0)),
            "BEGIN READ WRITE; SET LOCAL statement_timeout = 1; SET LOCAL work_mem = 65536; \
             SET LOCAL temp_file_limit = 1048576"
        );
        assert_eq!(Bounds::for_settings(4096, 1024, true), Bounds::default());
    }
}
