//! The walker's count of generated rows and bytes, on whole queries.

use super::super::test_support::{code, guard, PII};
use super::*;

fn refusal(dialect: &str, sql: &str) -> Option<String> {
    code(&guard(PII, dialect), sql)
}

#[test]
fn generators_in_one_query_multiply() {
    let big = "generated_too_large";
    for sql in [
        "SELECT count(*) FROM generate_series(1, 1000) a, generate_series(1, 10000) b",
        "SELECT count(*) FROM generate_series(1, 1000) a CROSS JOIN generate_series(1, 1000) b \
         JOIN generate_series(1, 2) c ON true",
        "SELECT count(*) FROM (SELECT * FROM generate_series(1, 1000)) a, \
         (SELECT * FROM generate_series(1, 1001)) b",
        "WITH g AS (SELECT * FROM generate_series(1, 1001)) SELECT count(*) FROM g a, g b",
        "SELECT generate_series(1, 1000) FROM generate_series(1, 1001)",
        "SELECT (SELECT count(*) FROM generate_series(1, 1001)) FROM generate_series(1, 1000)",
        "SELECT 1 FROM generate_series(1, 600000) UNION ALL SELECT 1 FROM generate_series(1, 600000)",
    ] {
        assert_eq!(refusal("postgres", sql).as_deref(), Some(big), "{sql}");
    }
    for sql in [
        "SELECT count(*) FROM generate_series(1, 1000) a, generate_series(1, 1000) b",
        "SELECT count(*) FROM generate_series(1, 1000) a, customer c, customer d",
        "WITH g AS (SELECT * FROM generate_series(1, 1000)) SELECT count(*) FROM g",
        "SELECT 1 FROM generate_series(1, 500000) UNION ALL SELECT 1 FROM customer",
    ] {
        assert_eq!(refusal("postgres", sql), None, "{sql}");
    }
}

#[test]
fn sizes_that_do_not_fold_are_refused() {
    for sql in [
        "SELECT repeat('x', customer_id) FROM customer",
        "SELECT count(*) FROM generate_series(1, (SELECT max(customer_id) FROM customer))",
        "SELECT lpad(first_name, customer_id) FROM customer",
    ] {
        assert_eq!(
            refusal("postgres", sql).as_deref(),
            Some("unbounded_generation"),
            "{sql}"
        );
    }
    assert_eq!(
        refusal("sqlite", "SELECT randomblob(900000000)").as_deref(),
        Some("generated_too_large")
    );
    assert_eq!(refusal("sqlite", "SELECT hex(randomblob(16))"), None);
    // A text of unknown size amplified past a small factor needs a size the guard knows.
    for sql in [
        "SELECT repeat(first_name, 1000000) FROM customer",
        "SELECT repeat(now()::text, 1000000)",
        "SELECT replace(first_name, 'a', repeat('x', 100)) FROM customer",
        "SELECT replace(first_name, 'a', last_name) FROM customer",
    ] {
        assert_eq!(
            refusal("postgres", sql).as_deref(),
            Some("unbounded_generation"),
            "{sql}"
        );
    }
    assert_eq!(
        refusal("postgres", "SELECT repeat(md5('a'), 1000000)").as_deref(),
        Some("generated_too_large")
    );
    for sql in [
        "SELECT repeat(first_name, 16) FROM customer",
        "SELECT repeat(left(first_name, 10), 1000) FROM customer",
        "SELECT repeat(substr(first_name, 1, 10), 1000) FROM customer",
        "SELECT repeat(CAST(first_name AS varchar(10)), 1000) FROM customer",
        "SELECT replace(first_name, ' ', '_') FROM customer",
    ] {
        assert_eq!(refusal("postgres", sql), None, "{sql}");
    }
}

#[test]
fn recursion_needs_a_bound() {
    let unbounded = Some("unbounded_generation");
    for sql in [
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n - 1 FROM r WHERE n < 10) \
         SELECT count(*) FROM r",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 10 OR true) \
         SELECT count(*) FROM r",
        "WITH RECURSIVE r AS (SELECT customer_id FROM customer UNION ALL SELECT c.customer_id \
         FROM customer c JOIN r ON c.customer_id = r.customer_id) SELECT count(*) FROM r",
    ] {
        assert_eq!(refusal("postgres", sql).as_deref(), unbounded, "{sql}");
    }
    assert_eq!(
        refusal(
            "postgres",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1e9) \
             SELECT count(*) FROM r"
        )
        .as_deref(),
        Some("generated_too_large")
    );
    for sql in [
        "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 10) \
         SELECT n FROM t",
        "WITH RECURSIVE t AS (SELECT 1 AS n UNION ALL SELECT t.n + 1 FROM t WHERE 100 > t.n) \
         SELECT n FROM t",
        "WITH RECURSIVE t(n) AS (SELECT min(customer_id) FROM customer UNION ALL \
         SELECT n + 1 FROM t WHERE n BETWEEN 1 AND 20) SELECT n FROM t",
        "WITH RECURSIVE d(x) AS (SELECT DATE '2024-01-01' UNION ALL \
         SELECT x + 1 FROM d WHERE x < DATE '2024-12-31') SELECT x FROM d",
        // Not recursive: no self-reference.
        "WITH RECURSIVE a AS (SELECT 1 AS n) SELECT n FROM a",
    ] {
        assert_eq!(refusal("postgres", sql), None, "{sql}");
    }
    assert_eq!(
        refusal(
            "sqlite",
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 100) \
             SELECT n FROM r"
        ),
        None
    );
    let open = crate::Guard::new(crate::Policy {
        allow_unbounded_recursion: true,
        ..crate::Policy::default()
    })
    .map(|g| {
        g.check("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r")
            .is_ok()
    });
    assert_eq!(open, Ok(true));
}

#[test]
fn stages_are_refused_in_every_position() {
    for sql in [
        "SELECT t.$1 FROM @my_stage (FILE_FORMAT => 'csv') t",
        "SELECT $1 FROM @s/path/file.csv (FILE_FORMAT => 'csv')",
        "SELECT $1 FROM @~ (PATTERN => '.*')",
        "SELECT $1 FROM @my_stage",
        "SELECT $1 FROM '@my_stage'",
    ] {
        assert_eq!(
            refusal("snowflake", sql).as_deref(),
            Some("table_not_allowed"),
            "{sql}"
        );
    }
}

#[test]
fn mariadb_sequence_tables_count() {
    assert_eq!(
        refusal("mysql", "SELECT count(*) FROM seq_1_to_1000000000").as_deref(),
        Some("generated_too_large")
    );
    assert_eq!(
        refusal(
            "mysql",
            "SELECT count(*) FROM seq_1_to_1000 a, seq_1_to_1001 b"
        )
        .as_deref(),
        Some("generated_too_large")
    );
    assert_eq!(refusal("mysql", "SELECT seq FROM seq_1_to_100"), None);
}

#[test]
fn set_operations_add_only_what_generates() {
    assert_eq!(combined(1.0, 1.0), 1.0);
    assert_eq!(combined(10.0, 1.0), 10.0);
    assert_eq!(combined(1.0, 10.0), 10.0);
    assert_eq!(combined(10.0, 20.0), 30.0);
}

#[test]
fn sequence_table_names_give_their_rows() {
    assert_eq!(sequence_rows("seq_1_to_100").map(|r| r.0), Some(100.0));
    assert_eq!(sequence_rows("SEQ_100_TO_1").map(|r| r.0), Some(100.0));
    assert_eq!(
        sequence_rows("seq_0_to_99_step_10").map(|r| r.0),
        Some(10.0)
    );
    assert_eq!(
        sequence_rows("seq_1_to_1000000000000").map(|r| r.0),
        Some(1e12)
    );
    assert_eq!(
        sequence_rows("seq_1_to_10_step_0").map(|r| r.0),
        Some(f64::INFINITY)
    );
    assert_eq!(sequence_rows("sequence"), None);
    assert_eq!(sequence_rows("seq_a_to_b"), None);
}
