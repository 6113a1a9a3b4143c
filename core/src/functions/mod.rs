//! Function policy: which function names a query may call, in an expression or in FROM.
//!
//! PostgreSQL, SQLite and DuckDB ship an **allowlist** of built-in functions known to be free of
//! side effects (generated from the engines' own catalogs: see `data/` and the generator scripts
//! beside this file); any other function is refused. Every other dialect starts from a
//! **denylist** of known-dangerous functions and table functions (file, network, process, lock,
//! sleep, catalog and settings functions). The policy's `functions.allow` and `functions.deny`
//! extend either list; `functions.deny` always wins.
//!
//! A function called in an expression ([`FunctionPolicy::check`]) and a table function in FROM
//! ([`FunctionPolicy::check_table_function`]) are decided by different lists: the same name can
//! be a harmless scalar and a dangerous table function (DuckDB's `histogram` aggregate and its
//! `histogram(table, column)` table macro; SQLite's `fsdir`/`dbstat` exist only in FROM).

use std::collections::HashSet;

use crate::dialect::Dialect;
use crate::names::{Pattern, PatternPart};
use crate::policy::{FunctionRules, PolicyError};

const POSTGRES_ALLOW: &str = include_str!("data/postgres_allow.txt");
const POSTGRES_TABLE_ALLOW: &str = include_str!("data/postgres_table_allow.txt");
const SQLITE_ALLOW: &str = include_str!("data/sqlite_allow.txt");
const SQLITE_TABLE_ALLOW: &str = include_str!("data/sqlite_table_allow.txt");
const DUCKDB_ALLOW: &str = include_str!("data/duckdb_allow.txt");
const DUCKDB_TABLE_ALLOW: &str = include_str!("data/duckdb_table_allow.txt");
const COMMON_DENY: &str = include_str!("data/deny_common.txt");
const TABLE_DENY: &str = include_str!("data/deny_table.txt");

/// Non-comment, non-empty lines of an embedded list.
fn entries(list: &str) -> impl Iterator<Item = &str> {
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// A lower-case name set built from an embedded list.
fn name_set(list: &str) -> HashSet<String> {
    entries(list).map(str::to_lowercase).collect()
}

/// True when `name` matches `pattern`, where `*` stands for any run of characters.
fn glob_match(pattern: &str, name: &str) -> bool {
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        // No `*` at all: the whole name must be the pattern.
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// A parsed denylist: exact names, `*` patterns on the name, and `qualifier.*` entries that
/// refuse every function qualified by that schema or package, at any position.
#[derive(Debug, Clone, Default)]
struct DenyList {
    exact: HashSet<String>,
    globs: Vec<String>,
    qualifiers: HashSet<String>,
}

impl DenyList {
    fn parse(list: &str) -> Self {
        let mut deny = DenyList::default();
        for entry in entries(list) {
            let entry = entry.to_lowercase();
            if let Some(qualifier) = entry.strip_suffix(".*") {
                deny.qualifiers.insert(qualifier.to_string());
            } else if entry.contains('*') {
                deny.globs.push(entry);
            } else {
                deny.exact.insert(entry);
            }
        }
        deny
    }

    /// `lower` is the lower-cased name, qualifiers first. A denied name is denied whatever
    /// qualifies it; a denied qualifier denies every name under it.
    fn matches(&self, lower: &[String]) -> bool {
        let Some((last, qualifiers)) = lower.split_last() else {
            return false;
        };
        self.exact.contains(last)
            || self.globs.iter().any(|g| glob_match(g, last))
            || qualifiers.iter().any(|q| self.qualifiers.contains(q))
    }
}

/// Why a function was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionRefusal {
    /// Named in `functions.deny` or in the dialect's denylist.
    Denied,
    /// Not in the dialect's allowlist nor in `functions.allow`.
    NotAllowlisted,
}

/// Decides function names for one policy. Built once per [`crate::Guard`].
#[derive(Debug, Clone)]
pub struct FunctionPolicy {
    dialect: Dialect,
    /// Functions allowed in expressions (allowlist dialects).
    allowlist: Option<HashSet<String>>,
    /// Table functions allowed in FROM (allowlist dialects).
    table_allowlist: Option<HashSet<String>>,
    /// Refused everywhere in denylist dialects; in allowlist dialects it only classifies a
    /// refusal as [`FunctionRefusal::Denied`].
    deny: DenyList,
    /// Refused in FROM on top of `deny` (same role).
    table_deny: DenyList,
    extra_allow: Vec<Pattern>,
    extra_deny: Vec<Pattern>,
}

impl FunctionPolicy {
    /// Builds the checker for `dialect` extended by the policy's rules.
    pub fn new(dialect: Dialect, rules: &FunctionRules) -> Result<Self, PolicyError> {
        let (allowlist, table_allowlist) = match dialect {
            Dialect::Postgres => (
                Some(name_set(POSTGRES_ALLOW)),
                Some(name_set(POSTGRES_TABLE_ALLOW)),
            ),
            Dialect::Sqlite => (
                Some(name_set(SQLITE_ALLOW)),
                Some(name_set(SQLITE_TABLE_ALLOW)),
            ),
            Dialect::Duckdb => (
                Some(name_set(DUCKDB_ALLOW)),
                Some(name_set(DUCKDB_TABLE_ALLOW)),
            ),
            _ => (None, None),
        };
        // Allowlist dialects read the denylists only to say *why* a name is refused (a known
        // side door is "denied", anything else "not allowlisted"); the allowlist decides.
        let (deny, table_deny) = (DenyList::parse(COMMON_DENY), DenyList::parse(TABLE_DENY));
        let parse = |field: &str, list: &[String]| {
            list.iter()
                .enumerate()
                .map(|(i, p)| {
                    Pattern::parse(&p.to_lowercase(), dialect)
                        .map(lowercase_pattern)
                        .map_err(|m| PolicyError::new(format!("functions.{field}[{i}]"), m))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(FunctionPolicy {
            dialect,
            allowlist,
            table_allowlist,
            deny,
            table_deny,
            extra_allow: parse("allow", &rules.allow)?,
            extra_deny: parse("deny", &rules.deny)?,
        })
    }

    /// Checks a function called in an expression, given as folded parts
    /// (`["pg_catalog", "pg_sleep"]`). Function names compare case-insensitively.
    pub fn check(&self, parts: &[String]) -> Result<(), FunctionRefusal> {
        self.decide(parts, self.allowlist.as_ref(), None)
    }

    /// Checks a table function in FROM (`FROM f(...)`, folded parts as for [`Self::check`]).
    /// Allowlist dialects use their table-function allowlist (DuckDB `range`, `unnest`;
    /// SQLite `json_each`; PostgreSQL set-returning functions such as `generate_series`):
    /// a name allowed in an expression is not thereby allowed in FROM. Denylist dialects refuse
    /// the denylist plus the table-function denials of `data/deny_table.txt`. The policy's
    /// `functions.allow` / `functions.deny` apply here too.
    pub fn check_table_function(&self, parts: &[String]) -> Result<(), FunctionRefusal> {
        self.decide(parts, self.table_allowlist.as_ref(), Some(&self.table_deny))
    }

    fn decide(
        &self,
        parts: &[String],
        allowlist: Option<&HashSet<String>>,
        extra_builtin_deny: Option<&DenyList>,
    ) -> Result<(), FunctionRefusal> {
        let lower: Vec<String> = parts.iter().map(|p| p.to_lowercase()).collect();
        let Some(last) = lower.last() else {
            return Err(FunctionRefusal::NotAllowlisted);
        };
        if self.extra_deny.iter().any(|p| p.matches(&lower, None)) {
            return Err(FunctionRefusal::Denied);
        }
        if self.extra_allow.iter().any(|p| p.matches(&lower, None)) {
            return Ok(());
        }
        // Denylist: any qualification of a dangerous name is still dangerous.
        let denied =
            self.deny.matches(&lower) || extra_builtin_deny.is_some_and(|d| d.matches(&lower));
        match allowlist {
            None if denied => Err(FunctionRefusal::Denied),
            None => Ok(()),
            Some(list) => {
                let builtin_schema = lower.len() == 1
                    || (lower.len() == 2
                        && self.dialect.builtin_function_schema() == Some(lower[0].as_str()));
                if builtin_schema && list.contains(last) {
                    Ok(())
                } else if denied {
                    Err(FunctionRefusal::Denied)
                } else {
                    Err(FunctionRefusal::NotAllowlisted)
                }
            }
        }
    }

    /// The closest allowlisted expression function, for a hint.
    pub fn suggest(&self, wanted: &str) -> Option<String> {
        let list = self.allowlist.as_ref()?;
        crate::names::closest(wanted, list.iter().map(String::as_str)).map(str::to_string)
    }

    /// The closest allowlisted table function, for a hint after
    /// [`Self::check_table_function`] refused a name.
    pub fn suggest_table_function(&self, wanted: &str) -> Option<String> {
        let list = self.table_allowlist.as_ref()?;
        crate::names::closest(wanted, list.iter().map(String::as_str)).map(str::to_string)
    }
}

/// Function names compare case-insensitively: lower-case every exact part.
fn lowercase_pattern(p: Pattern) -> Pattern {
    Pattern {
        parts: p
            .parts
            .into_iter()
            .map(|part| match part {
                PatternPart::Exact(e) => PatternPart::Exact(e.to_lowercase()),
                PatternPart::Any => PatternPart::Any,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(dialect: Dialect) -> FunctionPolicy {
        FunctionPolicy::new(dialect, &FunctionRules::default()).expect("default rules")
    }

    fn name(text: &str) -> Vec<String> {
        text.split('.').map(str::to_string).collect()
    }

    #[test]
    fn glob_patterns() {
        assert!(glob_match("read_*", "read_csv"));
        assert!(glob_match("read_*", "read_"));
        assert!(!glob_match("read_*", "bread_csv"));
        assert!(glob_match("*_history", "query_history"));
        assert!(!glob_match("*_history", "history_x"));
        assert!(glob_match("has_*_privilege", "has_table_privilege"));
        assert!(!glob_match("has_*_privilege", "has_table_privileges"));
        assert!(glob_match("sleep", "sleep"));
        assert!(!glob_match("sleep", "sleeps"));
        assert!(!glob_match("a*a", "a"));
    }

    #[test]
    fn generated_lists_are_present_and_sorted() {
        for (list, min) in [
            (POSTGRES_ALLOW, 1000),
            (SQLITE_ALLOW, 100),
            (DUCKDB_ALLOW, 600),
            (POSTGRES_TABLE_ALLOW, 10),
            (SQLITE_TABLE_ALLOW, 3),
            (DUCKDB_TABLE_ALLOW, 3),
        ] {
            let names: Vec<&str> = entries(list).collect();
            assert!(names.len() >= min, "list too short: {}", names.len());
            assert!(names.windows(2).all(|w| w[0] < w[1]), "list not sorted");
            assert!(names.iter().all(|n| *n == n.to_lowercase()));
        }
    }

    #[test]
    fn duckdb_uses_an_allowlist_and_refuses_side_doors() {
        let p = policy(Dialect::Duckdb);
        assert!(p.allowlist.is_some());
        for ok in [
            "abs",
            "ROW",
            "array",
            "coalesce",
            "current_user",
            "session_user",
            "user",
            "current_database",
            "current_schema",
            "string_agg",
            "date_trunc",
            "regexp_replace",
            "list_transform",
            "histogram",
            "range",
            "unnest",
            "random",
        ] {
            assert_eq!(p.check(&name(ok)), Ok(()), "{ok}");
        }
        for no in [
            "sleep_ms",
            "setseed",
            "write_log",
            "nextval",
            "currval",
            "current_setting",
            "getvariable",
            "duckdb_settings",
            "pragma_table_info",
            "read_csv",
            "read_text",
            "parquet_full_metadata",
            "parquet_page_index",
            "glob",
            "enable_profiling",
            "disable_profiling",
            "checkpoint",
            "force_checkpoint",
            "which_secret",
            "columns",
            "json_serialize_plan",
            "pg_sleep",
            "version",
            "getenv",
            "main.abs",
        ] {
            assert!(p.check(&name(no)).is_err(), "{no}");
        }
        // FROM: a separate, short list.
        for ok in ["range", "generate_series", "unnest", "json_each", "RANGE"] {
            assert_eq!(p.check_table_function(&name(ok)), Ok(()), "{ok}");
        }
        for no in [
            "histogram",
            "histogram_values",
            "summary",
            "query",
            "query_table",
            "read_csv",
            "read_parquet",
            "sniff_csv",
            "glob",
            "pragma_storage_info",
            "pragma_table_info",
            "pragma_database_size",
            "duckdb_settings",
            "duckdb_databases",
            "duckdb_views",
            "duckdb_columns",
            "checkpoint",
            "enable_profiling",
            "abs",
            "system.main.range",
        ] {
            assert!(p.check_table_function(&name(no)).is_err(), "{no}");
        }
        // Known side doors are reported as denied (a better hint than "not allowlisted").
        assert_eq!(
            p.check_table_function(&name("histogram")),
            Err(FunctionRefusal::Denied)
        );
        assert_eq!(p.check(&name("glob")), Err(FunctionRefusal::Denied));
        assert_eq!(
            p.check(&name("my_macro")),
            Err(FunctionRefusal::NotAllowlisted)
        );
        // The allowlist wins over a denylist pattern (`url*` is a ClickHouse table function).
        assert_eq!(p.check(&name("url_encode")), Ok(()));
    }

    #[test]
    fn postgres_syntax_names_and_table_functions() {
        let p = policy(Dialect::Postgres);
        for ok in [
            "row",
            "ARRAY",
            "current_user",
            "session_user",
            "user",
            "current_role",
            "current_catalog",
            "current_schema",
            "current_database",
            "pg_catalog.upper",
        ] {
            assert_eq!(p.check(&name(ok)), Ok(()), "{ok}");
        }
        for no in [
            "pg_sleep",
            "current_setting",
            "getpgusername",
            "has_table_privilege",
        ] {
            assert!(p.check(&name(no)).is_err(), "{no}");
        }
        for ok in [
            "generate_series",
            "pg_catalog.generate_series",
            "unnest",
            "json_each",
            "jsonb_to_recordset",
            "regexp_split_to_table",
        ] {
            assert_eq!(p.check_table_function(&name(ok)), Ok(()), "{ok}");
        }
        for no in [
            "pg_ls_dir",
            "dblink",
            "pg_read_file",
            "aclexplode",
            "upper",
            "x.generate_series",
        ] {
            assert!(p.check_table_function(&name(no)).is_err(), "{no}");
        }
    }

    #[test]
    fn sqlite_virtual_tables() {
        let p = policy(Dialect::Sqlite);
        for ok in ["json_each", "json_tree", "generate_series", "JSON_EACH"] {
            assert_eq!(p.check_table_function(&name(ok)), Ok(()), "{ok}");
        }
        for no in [
            "fsdir",
            "zipfile",
            "dbstat",
            "sqlite_dbpage",
            "sqlite_stmt",
            "pragma_table_info",
            "pragma_function_list",
            "carray",
            "upper",
        ] {
            assert!(p.check_table_function(&name(no)).is_err(), "{no}");
        }
        // Table-valued functions cannot be called in an expression.
        assert!(p.check(&name("json_each")).is_err());
        assert_eq!(p.check(&name("json_extract")), Ok(()));
    }

    #[test]
    fn denylist_matches_any_case_and_qualification() {
        let cases = [
            (Dialect::Mysql, "master_gtid_wait"),
            (Dialect::Mysql, "MASTER_GTID_WAIT"),
            (Dialect::Mysql, "mydb.master_gtid_wait"),
            (Dialect::Mysql, "binlog_gtid_pos"),
            (Dialect::Mysql, "sys.format_statement"),
            (Dialect::Clickhouse, "getSettingOrDefault"),
            (Dialect::Clickhouse, "getServerSetting"),
            (Dialect::Clickhouse, "getMacro"),
            (Dialect::Clickhouse, "dictGetString"),
            (Dialect::Clickhouse, "joinGetOrNull"),
            (Dialect::Clickhouse, "catboostEvaluate"),
            (Dialect::Clickhouse, "hasColumnInTable"),
            (Dialect::Clickhouse, "numbers_mt"),
            (Dialect::Clickhouse, "generateRandom"),
            (Dialect::Clickhouse, "s3Cluster"),
            (Dialect::Clickhouse, "clusterAllReplicas"),
            (Dialect::Mssql, "CERTPRIVATEKEY"),
            (Dialect::Mssql, "OBJECT_DEFINITION"),
            (Dialect::Mssql, "SERVERPROPERTY"),
            (Dialect::Mssql, "HAS_PERMS_BY_NAME"),
            (Dialect::Mssql, "sys.fn_my_permissions"),
            (Dialect::Mssql, "SUSER_SNAME"),
            (Dialect::Mssql, "IS_SRVROLEMEMBER"),
            (Dialect::Mssql, "DB_NAME"),
            (Dialect::Snowflake, "SYSTEM$PIPE_STATUS"),
            (Dialect::Snowflake, "GET_DDL"),
            (Dialect::Snowflake, "RESULT_SCAN"),
            (Dialect::Snowflake, "SNOWFLAKE.CORTEX.COMPLETE"),
            (Dialect::Snowflake, "db.INFORMATION_SCHEMA.QUERY_HISTORY"),
            (Dialect::Snowflake, "IDENTIFIER"),
            (Dialect::Databricks, "reflect"),
            (Dialect::Databricks, "java_method"),
            (Dialect::Databricks, "input_file_name"),
            (Dialect::Databricks, "read_files"),
            (Dialect::Databricks, "secret"),
            (Dialect::Generic, "sleep_ms"),
        ];
        for (dialect, n) in cases {
            let p = policy(dialect);
            assert!(p.allowlist.is_none());
            assert_eq!(
                p.check(&name(n)),
                Err(FunctionRefusal::Denied),
                "{dialect:?} {n}"
            );
            assert_eq!(
                p.check_table_function(&name(n)),
                Err(FunctionRefusal::Denied),
                "{dialect:?} {n} in FROM"
            );
        }
        for (dialect, n) in [
            (Dialect::Mysql, "concat"),
            (Dialect::Mysql, "current_user"),
            (Dialect::Databricks, "current_user"),
            (Dialect::Snowflake, "generator"),
            (Dialect::Mssql, "system_user"),
        ] {
            assert_eq!(policy(dialect).check(&name(n)), Ok(()), "{dialect:?} {n}");
        }
    }

    #[test]
    fn table_only_denials_in_denylist_dialects() {
        let p = policy(Dialect::Generic);
        for n in [
            "histogram",
            "fsdir",
            "dbstat",
            "pragma_table_info",
            "summary",
        ] {
            assert!(p.check_table_function(&name(n)).is_err(), "{n}");
        }
        assert_eq!(p.check(&name("histogram")), Ok(()));
        let s = policy(Dialect::Snowflake);
        assert_eq!(
            s.check_table_function(&name("LOGIN_HISTORY_BY_USER")),
            Err(FunctionRefusal::Denied)
        );
        assert_eq!(s.check_table_function(&name("FLATTEN")), Ok(()));
        assert_eq!(s.check_table_function(&name("GENERATOR")), Ok(()));
    }

    #[test]
    fn policy_rules_apply_to_table_functions() {
        let rules = FunctionRules {
            allow: vec!["app.my_srf".into(), "pg_ls_dir".into()],
            deny: vec!["generate_series".into()],
        };
        let p = FunctionPolicy::new(Dialect::Postgres, &rules).expect("rules");
        assert_eq!(p.check_table_function(&name("app.my_srf")), Ok(()));
        assert_eq!(p.check_table_function(&name("pg_ls_dir")), Ok(()));
        assert_eq!(
            p.check_table_function(&name("generate_series")),
            Err(FunctionRefusal::Denied)
        );
        assert_eq!(
            p.suggest_table_function("generate_serie").as_deref(),
            Some("generate_series")
        );
    }
}
