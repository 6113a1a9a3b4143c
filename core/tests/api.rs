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
