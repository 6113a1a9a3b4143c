//! Row filters (policy section `rows`) through the public API: variables bound as typed
//! literals, predicates checked like reads when the guard is built, views and system catalogs
//! under filters, mutations of filtered tables, and a fixed point in every dialect. (The
//! execution oracles are core/tests/row_filters.rs on SQLite and row_filters_rls.rs on
//! PostgreSQL.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::row_filter_policy as policy;
use sqlgate::{Dialect, ErrorCode, Guard, Vars};

#[test]
fn values_become_typed_literals_never_text() {
    let guard = Guard::new(policy(
        "postgres",
        r#"{"invoice": "billing_country = :country AND customer_id >= :low AND :on"}"#,
        "",
    ))
    .expect("filters compile");
    let vars = Vars::new()
        .with("country", "O'Brien'); DROP TABLE invoice; --")
        .with("low", -5)
        .with("on", true);
    let approved = guard
        .check_with("SELECT * FROM invoice", &vars)
        .expect("approved");
    assert!(
        approved
            .sql
            .contains("'O''Brien''); DROP TABLE invoice; --'"),
        "{}",
        approved.sql
    );
    assert!(approved.sql.contains(">= (-5)"), "{}", approved.sql);
    assert_eq!(approved.row_filters, vec!["invoice".to_string()]);
    // A not-finite number is refused, not printed.
    let refused = guard
        .check_with("SELECT * FROM invoice", &vars.clone().with("low", f64::NAN))
        .expect_err("NaN");
    assert_eq!(refused.error.code, ErrorCode::RowFilter);
}

#[test]
fn predicates_are_checked_like_reads_when_the_guard_is_built() {
    let build = |rows: &str, extra: &str| Guard::new(policy("postgres", rows, extra));
    let error = |rows: &str, extra: &str| {
        build(rows, extra)
            .expect_err(rows)
            .to_string()
            .to_lowercase()
    };
    assert!(
        error(r#"{"invoice": "pg_read_file('/etc/passwd') <> ''"}"#, "").contains("pg_read_file")
    );
    assert!(error(
        r#"{"invoice": "customer_id IN (SELECT customer_id FROM secrets)"}"#,
        r#", "tables": {"deny": ["secrets"]}"#
    )
    .contains("secrets"));
    assert!(error(
        r#"{"invoice": "billing_address <> ''"}"#,
        r#", "columns": {"deny": ["invoice.billing_address"]}"#
    )
    .contains("billing_address"));
    assert!(
        error(r#"{"invoice": "true GROUP BY customer_id"}"#, "").contains("one boolean expression")
    );
    assert!(error(r#"{"invoice": "true; DELETE FROM invoice"}"#, "").contains("rows.invoice"));
    assert!(error(r#"{"invoice": "customer_id = $1"}"#, "").contains(":name"));
    assert!(error(r#"{"invoice": "other.customer_id = 1"}"#, "").contains("qualified"));
    assert!(error(r#"{"*.invoice": "true"}"#, "").contains("one table"));
    // A cycle between filters names its tables.
    let cycle = error(
        r#"{"a": "x IN (SELECT x FROM b)", "b": "x IN (SELECT x FROM a)"}"#,
        "",
    );
    assert!(
        cycle.contains("cycle") && cycle.contains("a -> b -> a"),
        "{cycle}"
    );
    let own = error(
        r#"{"employee": "reports_to IN (SELECT employee_id FROM employee)"}"#,
        "",
    );
    assert!(own.contains("employee -> employee"), "{own}");
    // A filter that reads another filtered table gets that table's filter.
    let guard = build(
        r#"{"invoice": "customer_id = :t", "invoice_line": "invoice_id IN (SELECT invoice_id FROM invoice)"}"#,
        "",
    )
    .expect("compiles");
    let sql = guard
        .check_with("SELECT * FROM invoice_line", &Vars::new().with("t", 7))
        .expect("approved")
        .sql;
    assert_eq!(sql.matches("customer_id = 7").count(), 1, "{sql}");
}

#[test]
fn views_and_system_catalogs_are_refused_under_row_filters_unless_trusted() {
    let catalog = r#", "catalog": {"tables": [
        {"name": "invoice", "columns": [{"name": "invoice_id"}, {"name": "customer_id"}]},
        {"name": "invoice_summary", "kind": "view", "columns": [{"name": "n"}]},
        {"name": "open_view", "kind": "VIEW", "columns": [{"name": "n"}]}]}"#;
    let rows = r#"{"invoice": "customer_id = :t", "trusted_views": ["open_view"]}"#;
    let guard = Guard::new(policy("postgres", rows, catalog)).expect("compiles");
    let vars = Vars::new().with("t", 1);
    let refused = guard
        .check_with("SELECT * FROM invoice_summary", &vars)
        .expect_err("a view reads its tables unfiltered");
    assert_eq!(refused.error.code, ErrorCode::RowFilter);
    guard
        .check_with("SELECT * FROM open_view", &vars)
        .expect("a trusted view");
    // Without row filters the same view is an ordinary table.
    let plain = Guard::new(policy("postgres", "{}", catalog)).expect("compiles");
    plain
        .check("SELECT * FROM invoice_summary")
        .expect("no filters");
    // System catalogs, even when the policy opens them.
    let open = Guard::new(policy(
        "postgres",
        r#"{"invoice": "customer_id = :t"}"#,
        r#", "allow_system_catalogs": true"#,
    ))
    .expect("compiles");
    let refused = open
        .check_with("SELECT * FROM pg_catalog.pg_stats", &vars)
        .expect_err("statistics show other rows' values");
    assert_eq!(refused.error.code, ErrorCode::RowFilter);
}

#[test]
fn mutations_of_filtered_tables_stay_inside_the_filter() {
    let writes = r#", "writes": {"tables": ["invoice", "invoice_line"],
        "classes": ["mutation_create", "mutation_delete"]}"#;
    let rows = r#"{"invoice": "customer_id = :t",
        "invoice_line": "invoice_id IN (SELECT invoice_id FROM invoice WHERE customer_id = :t)"}"#;
    let guard = Guard::new(policy("postgres", rows, writes)).expect("compiles");
    let vars = Vars::new().with("t", 3);
    let update = guard
        .check_mutation_with(
            "UPDATE invoice AS i SET total = 0 WHERE i.invoice_id = 1 OR true",
            &vars,
        )
        .expect("approved");
    assert_eq!(
        update.sql,
        "UPDATE invoice AS i SET total = 0 WHERE (i.customer_id = 3) AND (i.invoice_id = 1 OR true)"
    );
    assert_eq!(update.row_filters, vec!["invoice".to_string()]);
    let delete = guard
        .check_mutation_with("DELETE FROM invoice_line WHERE unit_price > 0", &vars)
        .expect("approved")
        .sql;
    assert!(
        delete.contains(
            "WHERE (invoice_line.invoice_id IN (SELECT invoice_id FROM (SELECT * FROM invoice"
        ) && delete.ends_with(") AND (unit_price > 0)"),
        "{delete}"
    );
    // What the filter cannot bound is refused.
    for sql in [
        "INSERT INTO invoice (invoice_id, customer_id) VALUES (1, 3)",
        "UPDATE invoice SET customer_id = 4 WHERE invoice_id = 1",
        "MERGE INTO invoice t USING invoice_line s ON t.invoice_id = s.invoice_id \
         WHEN MATCHED THEN UPDATE SET total = 0",
    ] {
        let refused = guard.check_mutation_with(sql, &vars).expect_err(sql);
        assert_eq!(
            refused.error.code,
            ErrorCode::RowFilter,
            "{sql}: {}",
            refused.error
        );
    }
    // The reads of a mutation are filtered like any read.
    let reads = guard
        .check_mutation_with(
            "UPDATE invoice SET total = (SELECT sum(unit_price) FROM invoice_line l \
             WHERE l.invoice_id = invoice.invoice_id) WHERE invoice_id > 0",
            &vars,
        )
        .expect("approved")
        .sql;
    assert!(
        reads.contains("FROM (SELECT * FROM invoice_line AS sqlgate_filtered"),
        "{reads}"
    );
}

#[test]
fn every_dialect_rewrites_to_a_fixed_point() {
    for dialect in Dialect::ALL {
        let guard = Guard::new(policy(
            dialect.as_str(),
            r#"{"orders": "tenant_id = :t"}"#,
            "",
        ))
        .unwrap_or_else(|e| panic!("{dialect}: {e}"));
        let vars = Vars::new().with("t", 9);
        for sql in [
            "SELECT * FROM orders",
            "SELECT o.id FROM orders o JOIN items i ON i.order_id = o.id",
            "SELECT id FROM orders WHERE id IN (SELECT id FROM orders)",
        ] {
            match guard.check_with(sql, &vars) {
                Ok(approved) => assert!(
                    approved.sql.contains("tenant_id = 9"),
                    "{dialect}: {}",
                    approved.sql
                ),
                Err(r) => panic!("{dialect}: {sql}: {}", r.error),
            }
        }
    }
}
