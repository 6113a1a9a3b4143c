//! Public API beyond `check`: row cap override, table and column questions for front ends.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use sqlgate::{
    ColumnRules, Dialect, ErrorCode, Guard, LimitAction, Policy, QueryClass, TableRules,
};

fn guard() -> Guard {
    Guard::new(Policy {
        max_rows: Some(100),
        tables: TableRules {
            allow: vec!["public.*".into()],
            deny: vec!["employee".into()],
        },
        columns: ColumnRules {
            deny: vec!["customer.email".into(), "*.ssn".into()],
        },
        ..Policy::for_dialect(Dialect::Postgres)
    })
    .expect("policy")
}

#[test]
fn row_cap_override() {
    let g = guard();
    let a = g
        .check_with_row_cap("SELECT a FROM t", Some(101))
        .expect("allowed");
    assert_eq!(a.sql, "SELECT a FROM t LIMIT 101");
    assert_eq!(a.limit.action, LimitAction::Injected);
    let a = g
        .check_with_row_cap("SELECT a FROM t", None)
        .expect("allowed");
    assert_eq!(a.sql, "SELECT a FROM t");
    assert!(g.check_with_row_cap("SELECT a FROM t", Some(0)).is_err());
    assert_eq!(
        g.check("SELECT a FROM t").expect("allowed").sql,
        "SELECT a FROM t LIMIT 100"
    );
}

#[test]
fn table_and_column_questions() {
    let g = guard();
    assert!(g.table_allowed(&["public", "album"]));
    assert!(g.table_allowed(&["album"]));
    assert!(!g.table_allowed(&["public", "employee"]));
    assert!(!g.table_allowed(&["sales", "orders"]));
    assert!(!g.table_allowed(&["pg_catalog", "pg_class"]));
    assert!(g.column_protected(&["public", "customer"], "email"));
    assert!(g.column_protected(&["public", "staff"], "ssn"));
    assert!(!g.column_protected(&["public", "customer"], "first_name"));
    // PostgreSQL stores names exactly: a mixed-case table is another table.
    assert!(!g.column_protected(&["public", "Customer"], "email"));
}

#[test]
fn guard_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Guard>();
}

#[test]
fn invalid_policies_name_the_field() {
    let cases = [
        (r#"{"dialect": "oracle"}"#, "dialect"),
        (r#"{"max_rows": -1}"#, "max_rows"),
        (r#"{"tables": {"allow": ["a..b"]}}"#, "tables.allow[0]"),
        (r#"{"columns": {"deny": ["email"]}}"#, "columns.deny[0]"),
        (r#"{"unknown_field": 1}"#, "unknown_field"),
        (r#"{"max_depth": 0}"#, "max_depth"),
    ];
    for (json, field) in cases {
        let err = Policy::from_json(json)
            .and_then(Guard::new)
            .expect_err(json);
        assert!(err.to_string().contains(field), "{json}: {err}");
    }
}

#[test]
fn max_rows_none_is_spelled_null_or_none() {
    for json in [r#"{"max_rows": null}"#, r#"{"max_rows": "none"}"#] {
        assert_eq!(Policy::from_json(json).expect(json).max_rows, None);
    }
    let toml: Policy = toml::from_str("max_rows = \"none\"").expect("toml");
    assert_eq!(toml.max_rows, None);
    assert_eq!(Policy::from_json("{}").expect("empty").max_rows, Some(1000));
    assert_eq!(
        Policy::from_json(r#"{"max_rows": 5}"#).expect("5").max_rows,
        Some(5)
    );
    assert!(Policy::from_json(r#"{"max_rows": "lots"}"#).is_err());
}

#[test]
fn table_writable_follows_writes_tables_deny_and_catalogs() {
    let mut policy = Policy::for_dialect(Dialect::Postgres);
    assert!(!Guard::new(policy.clone())
        .expect("policy")
        .table_writable(&["public", "orders"]));
    policy.tables.deny = vec!["secret_orders".into()];
    policy.allow_system_catalogs = true;
    policy.writes = Some(sqlgate::WriteRules::new(
        &["orders", "secret_orders", "pg_catalog.*", "*.pg_authid"],
        &[QueryClass::MutationCreate],
    ));
    let guard = Guard::new(policy).expect("policy");
    assert!(guard.table_writable(&["public", "orders"]));
    assert!(guard.table_writable(&["orders"]));
    assert!(!guard.table_writable(&["archive", "orders"]));
    assert!(!guard.table_writable(&["public", "secret_orders"]));
    // Never a system catalog, even with allow_system_catalogs and a pattern naming it.
    assert!(!guard.table_writable(&["pg_catalog", "pg_authid"]));
    let refused = guard
        .check_mutation("UPDATE pg_catalog.pg_authid SET rolsuper = true WHERE rolname = 'app'")
        .expect_err("a catalog is never a target");
    assert_eq!(refused.error.code, ErrorCode::SystemCatalog);
}

#[test]
fn placeholders_are_listed_and_refused_where_nothing_binds_them() {
    let cases = [
        (
            Dialect::Postgres,
            "SELECT a FROM t WHERE city = $1 AND n > $2",
            vec!["$1", "$2"],
        ),
        (
            Dialect::Sqlite,
            "SELECT count(*) FROM t WHERE city = :city",
            vec![":city"],
        ),
        (
            Dialect::Sqlite,
            "SELECT a FROM t WHERE b IN (SELECT b FROM u WHERE c = ?)",
            vec!["?"],
        ),
        (
            Dialect::Mysql,
            "SELECT a FROM t WHERE city = ? OR city = ?",
            vec!["?", "?"],
        ),
    ];
    for (dialect, sql, expected) in cases {
        let guard = Guard::for_dialect(dialect);
        let approved = guard.check(sql).expect(sql);
        assert_eq!(approved.parameters, expected, "{sql}");
        let refused = approved.without_parameters().expect_err(sql);
        assert_eq!(refused.error.code, ErrorCode::UnboundParameter, "{sql}");
        assert_eq!(refused.query_class, QueryClass::Select);
        let hint = refused.error.hint.unwrap_or_default();
        assert!(
            hint.contains(expected[0]) && hint.contains("literal"),
            "{hint}"
        );
    }
    // Not placeholders: text in a literal or a comment, PostgreSQL's jsonb `?` operator.
    for (dialect, sql) in [
        (
            Dialect::Sqlite,
            "SELECT a FROM t WHERE b = '?' AND c = ':city' -- $1",
        ),
        (Dialect::Postgres, "SELECT a FROM t WHERE doc ? 'key'"),
        (Dialect::Postgres, "SELECT a::text FROM t /* :x */"),
    ] {
        let approved = Guard::for_dialect(dialect).check(sql).expect(sql);
        assert!(
            approved.parameters.is_empty(),
            "{sql}: {:?}",
            approved.parameters
        );
        assert!(approved.without_parameters().is_ok(), "{sql}");
    }
    // A mutation lists its placeholders the same way.
    let mut policy = Policy::for_dialect(Dialect::Sqlite);
    policy.writes = Some(sqlgate::WriteRules::new(
        &["customer"],
        &[QueryClass::MutationCreate],
    ));
    let guard = Guard::new(policy).expect("policy");
    let approved = guard
        .check_mutation("UPDATE customer SET city = ? WHERE customer_id = ?")
        .expect("approved");
    assert_eq!(approved.parameters, ["?", "?"]);
    let refused = approved.without_parameters().expect_err("unbound");
    assert_eq!(refused.error.code, ErrorCode::UnboundParameter);
    assert_eq!(refused.query_class, QueryClass::MutationCreate);
    let literal = guard
        .check_mutation("UPDATE customer SET city = 'Oslo' WHERE customer_id = 1")
        .expect("approved");
    assert!(literal.without_parameters().is_ok());
}

/// A value of the wrong type says what the field takes, not which Rust type failed to read it
/// (serde's "data did not match any variant of untagged enum RowCap").
#[test]
fn a_wrong_type_says_what_the_field_takes() {
    for (policy, field, takes) in [
        (
            r#"{"max_rows": "ten"}"#,
            "max_rows",
            r#"must be an integer, or null or "none" for no cap"#,
        ),
        (
            r#"{"writes": {"tables": ["t"], "max_affected_rows": true}}"#,
            "writes.max_affected_rows",
            r#"must be an integer, or null or "none" for no cap"#,
        ),
        (
            r#"{"annotations": {"relationships": [{"from": 3, "to": "b.x", "cardinality": "many_to_one"}]}}"#,
            "annotations.relationships[0].from",
            "must be a column name or a list of column names",
        ),
        // A table's row filter is named, not the whole `rows` map.
        (
            r#"{"rows": {"trusted_views": ["v"], "orders": 42}}"#,
            "rows.orders",
            "invalid type: integer `42`, expected an SQL condition as a string",
        ),
        // A struct read from an array would blame the first element for the first field.
        (r#"[{"max_rows": 10}]"#, "policy", "must be a JSON object"),
    ] {
        let err = sqlgate::Policy::from_json(policy).expect_err(policy);
        assert_eq!(err.field, field, "{policy}");
        assert!(err.message.starts_with(takes), "{policy}: {}", err.message);
        assert!(!err.message.contains("untagged"), "{}", err.message);
    }
    let rows =
        sqlgate::Policy::from_json(r#"{"rows": {"trusted_views": ["v"], "orders": "id = 1"}}"#)
            .expect("row filters and trusted views read back");
    let rules = rows.rows.expect("rows");
    assert_eq!(rules.trusted_views, ["v"]);
    assert_eq!(rules.filters["orders"], "id = 1");
    let err = serde_json::from_str::<sqlgate::Vars>(r#"{"org": [1]}"#).expect_err("a list");
    assert!(
        err.to_string()
            .starts_with("must be null, a boolean, a number or a string"),
        "{err}"
    );
}
