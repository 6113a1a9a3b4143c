//! The termination proof on the shapes a held-out review found unsound or falsely refused.

use super::super::test_support::{code, guard, refusal, PII};

const UNBOUNDED: Option<&str> = Some("unbounded_generation");
const TOO_LARGE: Option<&str> = Some("generated_too_large");

fn verdict(dialect: &str, sql: &str) -> Option<String> {
    code(&guard(PII, dialect), sql)
}

fn recursive(body: &str) -> String {
    format!("WITH RECURSIVE r(n) AS ({body}) SELECT count(*) FROM r")
}

#[test]
fn a_bound_the_step_never_reaches_is_no_bound() {
    for step in [
        "SELECT (n + 1) % 5 FROM r WHERE n < 10",
        "SELECT n + 1 - 2 FROM r WHERE n < 10",
        "SELECT -n + 1 FROM r WHERE n < 10",
        "SELECT 5 FROM r WHERE n < 10",
        "SELECT least(n + 1, 5) FROM r WHERE n < 10",
        "SELECT n - 1 FROM r WHERE n < 10",
        "SELECT n + 0 FROM r WHERE n < 10",
        "SELECT n + 1 FROM r WHERE n < 10 OR true",
        "SELECT n + 1 FROM r WHERE n <> 10",
        "SELECT n + 1 FROM r",
    ] {
        let sql = recursive(&format!("SELECT 1 UNION ALL {step}"));
        assert_eq!(verdict("postgres", &sql).as_deref(), UNBOUNDED, "{sql}");
    }
    // The bound is on a column the step copies unchanged; the column it moves has none.
    let sql =
        "WITH RECURSIVE r(n, m) AS (SELECT 1, 1 UNION ALL SELECT n, m + 1 FROM r WHERE n < 10) \
               SELECT count(*) FROM r";
    assert_eq!(verdict("postgres", sql).as_deref(), UNBOUNDED);
    // With another FROM item, an unqualified `n` may be its column: the counter is `r.n`.
    let sql = recursive("SELECT 1 UNION ALL SELECT n + 1 FROM r, customer WHERE n < 10");
    assert_eq!(verdict("postgres", &sql).as_deref(), UNBOUNDED);
    // `n` moved by a column of another table is not the CTE's counter.
    let sql =
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT c.customer_id + 1 FROM r, customer c \
               WHERE n < 10) SELECT count(*) FROM r";
    assert_eq!(verdict("postgres", sql).as_deref(), UNBOUNDED);
}

#[test]
fn the_counter_must_start_at_a_literal_or_be_bounded_on_both_sides() {
    let sql = recursive(
        "SELECT max(customer_id) FROM customer UNION ALL SELECT n + 1 FROM r WHERE n < 20",
    );
    let err = refusal(&guard(PII, "postgres"), &sql).expect("refused");
    assert_eq!(err.code.as_str(), "unbounded_generation");
    assert!(
        err.message.contains("does not start at a literal"),
        "{}",
        err.message
    );
    let sql = recursive(
        "SELECT max(customer_id) FROM customer UNION ALL SELECT n + 1 FROM r WHERE n BETWEEN 1 AND 20",
    );
    assert_eq!(verdict("postgres", &sql), None, "{sql}");
    let sql = recursive(
        "SELECT max(customer_id) FROM customer UNION ALL SELECT n - 1 FROM r WHERE n >= 1 AND n < 20",
    );
    assert_eq!(verdict("postgres", &sql), None, "{sql}");
}

#[test]
fn textbook_recursions_pass() {
    for sql in [
        "WITH RECURSIVE n(i) AS (VALUES (1) UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT sum(i) FROM n",
        "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 100) SELECT sum(n) FROM t",
        "WITH RECURSIVE t AS (SELECT 1 AS n UNION ALL SELECT t.n + 1 FROM t WHERE 100 > t.n) SELECT n FROM t",
        "WITH RECURSIVE t(n) AS (SELECT 100 UNION ALL SELECT n - 3 FROM t WHERE n > 0) SELECT n FROM t",
        "WITH RECURSIVE d(x) AS (SELECT DATE '2024-01-01' UNION ALL \
         SELECT x + 1 FROM d WHERE x < DATE '2024-12-31') SELECT x FROM d",
        "WITH RECURSIVE d(x) AS (SELECT DATE '2024-01-01' UNION ALL \
         SELECT x + INTERVAL '1 day' FROM d WHERE x < DATE '2024-12-31') SELECT x FROM d",
        // A walk over existing rows, ended by UNION's deduplication.
        "WITH RECURSIVE sub(id) AS (SELECT customer_id FROM customer WHERE customer_id = 1 UNION \
         SELECT c.customer_id FROM customer c JOIN sub ON c.support_rep_id = sub.id) SELECT id FROM sub",
        // A depth-bounded walk building a path: it appends a value of the data each step.
        "WITH RECURSIVE p(id, path, depth) AS (SELECT customer_id, first_name, 1 FROM customer \
         WHERE support_rep_id IS NULL UNION ALL SELECT c.customer_id, p.path || '/' || c.first_name, \
         p.depth + 1 FROM customer c JOIN p ON c.support_rep_id = p.id WHERE p.depth < 10) \
         SELECT path FROM p",
        // A text grown by a literal each step, within max_generated_bytes.
        "WITH RECURSIVE s(n, t) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, t || 'ab' FROM s WHERE n < 1000) \
         SELECT max(length(t)) FROM s",
        // Not recursive: no self-reference.
        "WITH RECURSIVE a AS (SELECT 1 AS n) SELECT n FROM a",
    ] {
        assert_eq!(verdict("postgres", sql), None, "{sql}");
    }
    let sql =
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 100) SELECT n FROM r";
    assert_eq!(verdict("sqlite", sql), None);
}

#[test]
fn a_limit_stops_the_recursion_only_where_the_engine_stops_there() {
    let sql =
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 100) SELECT n FROM r";
    for dialect in ["postgres", "mysql", "duckdb"] {
        assert_eq!(verdict(dialect, sql).as_deref(), UNBOUNDED, "{dialect}");
    }
    // The LIMIT caps the rows, not what each one grows.
    let sql = "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM r LIMIT 60) SELECT length(s) FROM r";
    assert_eq!(verdict("sqlite", sql).as_deref(), TOO_LARGE);
    // The rows an OFFSET skips are built before the LIMIT's are.
    let sql = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 10 OFFSET 1000000000) SELECT count(*) FROM r";
    assert_eq!(verdict("sqlite", sql).as_deref(), TOO_LARGE);
    let sql = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 10 OFFSET 90) SELECT count(*) FROM r";
    assert_eq!(verdict("sqlite", sql), None);
    // Without a shape to read, nothing bounds what each row grows: a LIMIT is no proof.
    let sql = "WITH RECURSIVE r(s) AS (SELECT 'x' UNION ALL (SELECT s || s FROM r) LIMIT 60) SELECT length(s) FROM r";
    assert_eq!(verdict("sqlite", sql).as_deref(), UNBOUNDED);
}

#[test]
fn every_step_multiplies_what_it_joins_that_generates() {
    let sql = recursive(
        "SELECT 1 UNION ALL SELECT r.n + 1 FROM r CROSS JOIN (VALUES (1), (2)) v(x) WHERE r.n < 100",
    );
    assert_eq!(verdict("postgres", &sql).as_deref(), TOO_LARGE, "{sql}");
    let sql =
        recursive("SELECT 1 UNION ALL SELECT r.n + 1 FROM r, generate_series(1, 3) WHERE r.n < 10");
    assert_eq!(verdict("postgres", &sql), None, "3^10 rows fit: {sql}");
    let sql =
        recursive("SELECT 1 UNION ALL SELECT r.n + 1 FROM r, generate_series(1, 3) WHERE r.n < 20");
    assert_eq!(
        verdict("postgres", &sql).as_deref(),
        TOO_LARGE,
        "3^20 rows do not: {sql}"
    );
    // A multi-row anchor multiplies the chain.
    let sql = recursive(
        "SELECT g FROM generate_series(1, 1000) g UNION ALL SELECT n + 1 FROM r WHERE n BETWEEN 1 AND 2000",
    );
    assert_eq!(verdict("postgres", &sql).as_deref(), TOO_LARGE, "{sql}");
    let sql = recursive(
        "SELECT g FROM generate_series(1, 100) g UNION ALL SELECT n + 1 FROM r WHERE n BETWEEN 1 AND 200",
    );
    assert_eq!(verdict("postgres", &sql), None, "{sql}");
    let sql = recursive("VALUES (1), (2), (3) UNION ALL SELECT n + 1 FROM r WHERE n < 500000");
    assert_eq!(
        verdict("postgres", &sql).as_deref(),
        TOO_LARGE,
        "3 chains of 500 000: {sql}"
    );
}

#[test]
fn values_that_grow_each_step_are_bounded() {
    let doubling =
        "WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, s || s FROM r \
                    WHERE n < 40) SELECT length(s) FROM r";
    assert_eq!(verdict("postgres", doubling).as_deref(), TOO_LARGE);
    let doubling = "WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, concat(s, s) \
                    FROM r WHERE n < 40) SELECT length(s) FROM r";
    assert_eq!(verdict("mysql", doubling).as_deref(), TOO_LARGE);
    let small = "WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, s || s FROM r \
                 WHERE n < 10) SELECT length(s) FROM r";
    assert_eq!(verdict("postgres", small), None);
    // Doubled from a column, whose size is not known.
    let from_data = "WITH RECURSIVE r(n, s) AS (SELECT 1, first_name FROM customer UNION ALL \
                     SELECT n + 1, s || s FROM r WHERE n < 10) SELECT length(s) FROM r";
    assert_eq!(verdict("postgres", from_data).as_deref(), UNBOUNDED);
    let appending =
        "WITH RECURSIVE r(n, s) AS (SELECT 1, 'x' UNION ALL SELECT n + 1, s || repeat('y', 1000) \
                     FROM r WHERE n < 5000) SELECT length(s) FROM r";
    assert_eq!(verdict("postgres", appending).as_deref(), TOO_LARGE);
}

#[test]
fn a_walk_under_union_must_make_no_new_value() {
    for body in [
        "SELECT 1 UNION SELECT n + 1 FROM r",
        "SELECT 1 UNION SELECT l.y FROM r, LATERAL (SELECT r.n + 1 AS y) l",
        "SELECT 1 UNION SELECT g FROM r, generate_series(r.n, r.n + 1) g",
        "SELECT 1 UNION SELECT (SELECT r.n + 1) FROM r",
    ] {
        let sql = recursive(body);
        assert_eq!(verdict("postgres", &sql).as_deref(), UNBOUNDED, "{sql}");
    }
}

#[test]
fn a_second_read_of_itself_is_not_proven() {
    let sql = recursive("SELECT 1 UNION ALL SELECT a.n + 1 FROM r a, r b WHERE a.n < 10");
    assert_eq!(verdict("mysql", &sql).as_deref(), UNBOUNDED);
    let sql =
        recursive("SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10 AND n IN (SELECT n FROM r)");
    assert_eq!(verdict("mysql", &sql).as_deref(), UNBOUNDED);
}
