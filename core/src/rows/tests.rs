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

/// A whole-row reference reads the table's row type; a derived table of its rows would make it
/// an anonymous `record` whose fields are `f1`, `f2`, ...: a SELECT that names a whole row keeps
/// its filtered tables in place (issue 29: `SELECT i FROM invoice i` under a filter).
#[test]
fn whole_row_reference_keeps_the_table_in_place() {
    assert_eq!(
        rewritten("SELECT i FROM invoice i ORDER BY i.invoice_id"),
        "SELECT i FROM invoice i WHERE (i.customer_id = 7) ORDER BY i.invoice_id"
    );
    assert_eq!(
        rewritten("SELECT row_to_json(invoice) AS j FROM invoice WHERE total > 1"),
        "SELECT row_to_json(invoice) AS j FROM invoice WHERE (invoice.customer_id = 7) AND (total > 1)"
    );
    // Without a whole-row reference, a plain SELECT wraps as before.
    assert!(rewritten("SELECT i.total FROM invoice i").contains("sqlgate_filtered"));
    // The nullable side of a LEFT JOIN keeps its place with its predicate in the ON.
    assert_eq!(
        rewritten("SELECT c, i.total FROM customer c LEFT JOIN invoice i ON i.customer_id = c.customer_id"),
        "SELECT c, i.total FROM customer c LEFT JOIN invoice i ON (i.customer_id = 7) AND \
         (i.customer_id = c.customer_id) WHERE (c.customer_id = 7)"
    );
}

/// The nullable side of an outer join keeps its place too, its predicate first in the join's
/// ON (PostgreSQL escape-107 of the RLS oracle failed with "must appear in the GROUP BY clause"
/// when it was wrapped); a FULL JOIN, a USING join and every table of a SELECT where an item
/// could read the unfiltered rows before the WHERE (LATERAL) are still wrapped.
#[test]
fn grouped_select_wraps_what_the_where_cannot_filter() {
    let sql = rewritten(
        "SELECT c.first_name, count(i.invoice_id) FROM customer c \
         LEFT JOIN invoice i ON i.customer_id = c.customer_id GROUP BY c.customer_id",
    );
    assert_eq!(
        sql,
        "SELECT c.first_name, count(i.invoice_id) FROM customer c LEFT JOIN invoice i ON \
         (i.customer_id = 7) AND (i.customer_id = c.customer_id) WHERE (c.customer_id = 7) \
         GROUP BY c.customer_id"
    );

    let sql = rewritten(
        "SELECT i.customer_id FROM invoice_line il RIGHT JOIN invoice i ON true GROUP BY i.customer_id",
    );
    assert!(
        sql.contains("RIGHT JOIN invoice i ON true WHERE (i.customer_id = 7)"),
        "{sql}"
    );

    let sql = rewritten(
        "SELECT c.customer_id FROM customer c RIGHT JOIN invoice i ON true GROUP BY c.customer_id",
    );
    assert!(
        sql.contains("FROM customer c RIGHT JOIN invoice i ON (c.customer_id = 7) AND (true) WHERE (i.customer_id = 7)"),
        "{sql}"
    );

    // The left side of a later RIGHT JOIN is the join before it: wrapped.
    let sql = rewritten(
        "SELECT c.customer_id FROM customer c JOIN invoice_line il ON true \
         RIGHT JOIN invoice i ON true GROUP BY c.customer_id",
    );
    assert!(
        sql.contains("FROM (SELECT * FROM customer AS sqlgate_filtered"),
        "{sql}"
    );

    for join in [
        "FULL JOIN invoice i ON i.customer_id = c.customer_id",
        "LEFT JOIN invoice i USING (customer_id)",
    ] {
        let sql = rewritten(&format!(
            "SELECT c.customer_id FROM customer c {join} GROUP BY c.customer_id"
        ));
        assert!(
            sql.contains("(SELECT * FROM invoice AS sqlgate_filtered WHERE sqlgate_filtered.customer_id = 7) i"),
            "{sql}"
        );
    }

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

/// A read's filtered references are spliced in as text printed from the filters when the guard
/// was built (`printed.rs`), the same text the tree rewrite prints (debug builds assert it at
/// every reference, so every test of a read checks it). Ordinary filters, nested ones and
/// multi-filter tables all have their pieces.
#[test]
fn ordinary_filters_are_spliced_as_printed_text() {
    let policy = Policy::from_json(
        r#"{"dialect": "postgres", "max_rows": null, "rows": {
             "customer": "customer_id = :tenant AND support_rep_id <> :rep",
             "public.invoice": "customer_id = :tenant",
             "invoice": "total >= :floor",
             "invoice_line": "invoice_id IN (SELECT invoice_id FROM invoice WHERE customer_id = :tenant)"}}"#,
    )
    .expect("policy");
    let guard = Guard::new(policy).expect("guard");
    assert_eq!(guard.row_filters().map(|r| r.printed_count()), Some(4));
    let vars = Vars::new()
        .with("tenant", -7)
        .with("rep", 3)
        .with("floor", 1.5);
    let sql = guard
        .check_with(
            "SELECT c.customer_id, count(*) FROM customer c JOIN invoice i USING (customer_id) \
             JOIN invoice_line l ON l.invoice_id = i.invoice_id GROUP BY c.customer_id",
            &vars,
        )
        .expect("approved")
        .sql;
    // A grouped SELECT: each table in place, a multi-filter table's predicates joined.
    assert!(
        sql.contains("WHERE (i.total >= 1.5) AND (i.customer_id = (-7)) AND ((l.invoice_id IN"),
        "{sql}"
    );
    assert!(
        sql.contains("AND ((c.customer_id = (-7) AND c.support_rep_id <> 3))) GROUP BY"),
        "{sql}"
    );
    // Derived tables: a filter read through another filter's predicate, nested per filter.
    let sql = guard
        .check_with("SELECT l.invoice_id FROM invoice_line AS l", &vars)
        .expect("approved")
        .sql;
    assert_eq!(
        sql,
        "SELECT l.invoice_id FROM (SELECT * FROM invoice_line AS sqlgate_filtered WHERE \
         sqlgate_filtered.invoice_id IN (SELECT invoice_id FROM (SELECT * FROM (SELECT * FROM \
         invoice AS sqlgate_filtered WHERE sqlgate_filtered.total >= 1.5) AS sqlgate_filtered \
         WHERE sqlgate_filtered.customer_id = (-7)) AS invoice WHERE customer_id = (-7))) AS l"
    );
}

/// A filter whose own text holds the marker character (in a string literal) has no printed
/// pieces: it is rewritten as a tree, and its literal reaches the SQL unchanged.
#[test]
fn a_filter_holding_the_marker_character_is_rewritten_as_a_tree() {
    let policy = Policy::from_json(
        "{\"dialect\": \"postgres\", \"max_rows\": null, \"rows\": {
           \"customer\": \"company <> 'a\\u0001Vtenant\\u0001b' AND customer_id = :tenant\",
           \"invoice\": \"customer_id = :tenant\"}}",
    )
    .expect("policy");
    let guard = Guard::new(policy).expect("guard");
    assert_eq!(guard.row_filters().map(|r| r.printed_count()), Some(1));
    let sql = guard
        .check_with("SELECT * FROM customer", &Vars::new().with("tenant", 7))
        .expect("approved")
        .sql;
    assert!(
        sql.contains("company <> 'a\u{1}Vtenant\u{1}b' AND sqlgate_filtered.customer_id = 7"),
        "{sql}"
    );
}
