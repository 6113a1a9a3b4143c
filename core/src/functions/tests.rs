//! The function lists and the policy built from them.

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
    // Known side doors are reported as denied (a better hint than "not allowlisted").
    assert_eq!(p.check(&name("glob")), Err(FunctionRefusal::Denied));
    assert_eq!(
        p.check(&name("my_macro")),
        Err(FunctionRefusal::NotAllowlisted)
    );
    // The allowlist wins over a denylist pattern (`url*` is a ClickHouse table function).
    assert_eq!(p.check(&name("url_encode")), Ok(()));
}

#[test]
fn duckdb_table_functions_have_their_own_short_allowlist() {
    let p = policy(Dialect::Duckdb);
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

/// An equivalent is only good advice if the dialect has it: every function an entry suggests is
/// allowed there, and the missing function itself is refused (else the hint would never show).
#[test]
fn equivalents_suggest_only_allowed_functions_for_refused_ones() {
    let (mut checked, mut wrong) = (0, Vec::new());
    for (dialect, missing, instead) in crate::dialect::all_equivalents() {
        let p = policy(dialect);
        if p.check(&name(missing)).is_ok() {
            wrong.push(format!(
                "{dialect}: `{missing}` is allowed: its equivalent never shows"
            ));
        }
        // Every `name(` in the suggestion is a call (upper-case words are syntax: CASE ...).
        let mut rest = instead;
        while let Some(open) = rest.find('(') {
            let word: String = rest[..open]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if !word.is_empty() && !word.chars().all(|c| c.is_ascii_uppercase()) {
                if p.check(&name(&word)).is_err() {
                    wrong.push(format!(
                        "{dialect}: `{missing}` suggests `{word}`, which is refused"
                    ));
                }
                checked += 1;
            }
            rest = &rest[open + 1..];
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked >= 40, "only {checked} suggested calls checked");
}
