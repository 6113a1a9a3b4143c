//! Unit tests of the rewrite, beside it; the oracle (PostgreSQL's row-level security on
//! Chinook) is `core/tests/row_filters_rls.rs`.

use crate::{Guard, Policy, Vars};

fn guard() -> Guard {
    let policy = Policy::from_json(
        r#"{"dialect": "postgres", "max_rows": null, "rows": {
             "customer": "customer_id = :tenant",
             "invoice": "customer_id = :tenant"}}"#,
    )
    .expect("policy");
    Guard::new(policy).expect("guard")
}

fn rewritten(sql: &str) -> String {
    match guard().check_with(sql, &Vars::new().with("tenant", 7)) {
        Ok(approved) => approved.sql,
        Err(r) => panic!("refused: {}", r.error),
    }
}

/// PostgreSQL lets `GROUP BY c.customer_id` select `c.first_name` only when `c` is the table
/// whose key that is, not a derived table of its rows (Chinook gold queries deepagents-038,
/// -043, -048, -049, -073 failed with "must appear in the GROUP BY clause"): a grouped SELECT
/// keeps such a table in place and adds its predicate to the WHERE.
#[test]
fn grouped_select_keeps_a_preserved_table_in_place() {
    assert_eq!(
        rewritten("SELECT c.first_name, count(*) FROM customer c GROUP BY c.customer_id"),
        "SELECT c.first_name, count(*) FROM customer c WHERE (c.customer_id = 7) GROUP BY c.customer_id"
    );
    assert_eq!(
        rewritten(
            "SELECT customer.first_name FROM customer WHERE a OR b GROUP BY customer.customer_id"
        ),
        "SELECT customer.first_name FROM customer WHERE (customer.customer_id = 7) AND (a OR b) \
         GROUP BY customer.customer_id"
    );
}

/// The nullable side of an outer join, and every table of a SELECT where an item could read
/// the unfiltered rows before the WHERE (LATERAL), are still wrapped.
#[test]
fn grouped_select_wraps_what_the_where_cannot_filter() {
    let sql = rewritten(
        "SELECT c.first_name, count(i.invoice_id) FROM customer c \
         LEFT JOIN invoice i ON i.customer_id = c.customer_id GROUP BY c.customer_id",
    );
    assert!(sql.contains("FROM customer c LEFT JOIN (SELECT * FROM invoice AS sqlgate_filtered WHERE sqlgate_filtered.customer_id = 7) i"), "{sql}");
    assert!(sql.contains("WHERE (c.customer_id = 7) GROUP BY"), "{sql}");

    let sql = rewritten(
        "SELECT i.customer_id FROM invoice_line il RIGHT JOIN invoice i ON true GROUP BY i.customer_id",
    );
    assert!(sql.contains("RIGHT JOIN invoice i"), "{sql}");
    assert!(sql.contains("WHERE (i.customer_id = 7)"), "{sql}");

    let sql = rewritten(
        "SELECT c.customer_id FROM customer c RIGHT JOIN invoice i ON true GROUP BY c.customer_id",
    );
    assert!(
        sql.contains("FROM (SELECT * FROM customer AS sqlgate_filtered"),
        "{sql}"
    );

    let sql = rewritten(
        "SELECT c.customer_id, x.n FROM customer c, LATERAL (SELECT count(*) AS n FROM invoice) x \
         GROUP BY c.customer_id, x.n",
    );
    assert!(!sql.contains("WHERE (c.customer_id"), "{sql}");
    assert!(
        sql.contains("FROM (SELECT * FROM customer AS sqlgate_filtered"),
        "{sql}"
    );

    let sql = rewritten("SELECT a FROM customer AS c(a, b) GROUP BY a");
    assert!(
        sql.contains("FROM (SELECT * FROM customer AS sqlgate_filtered"),
        "{sql}"
    );
}

/// In PostgreSQL, a CTE of a WITH RECURSIVE list reads the CTEs after it: `invoice` in `a`
/// is the CTE, not the table (the walker took it for the table, and the filter it added read
/// a column the CTE does not have). In MySQL a later CTE is not visible: there it is the table.
#[test]
fn with_recursive_sees_later_ctes_in_postgres_only() {
    let sql =
        "WITH RECURSIVE a AS (SELECT * FROM invoice), invoice AS (SELECT 1 AS x) SELECT * FROM a";
    assert!(
        !rewritten(sql).contains("sqlgate_filtered"),
        "{}",
        rewritten(sql)
    );
    let plain = "WITH a AS (SELECT * FROM invoice), invoice AS (SELECT 1 AS x) SELECT * FROM a";
    assert!(rewritten(plain).contains("sqlgate_filtered"));
    let mysql = Guard::new(
        Policy::from_json(
            r#"{"dialect": "mysql", "max_rows": null, "rows": {"invoice": "customer_id = :tenant"}}"#,
        )
        .expect("policy"),
    )
    .expect("guard");
    let approved = mysql
        .check_with(sql, &Vars::new().with("tenant", 7))
        .expect("approved");
    assert!(
        approved.sql.contains("sqlgate_filtered"),
        "{}",
        approved.sql
    );
}
