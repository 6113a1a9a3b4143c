//! Quick checks of the fuzz crate's own helpers (run with `cargo test` in fuzz/).

// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use arbitrary::{Arbitrary, Unstructured};
use sqlgate::{Dialect, Guard, Policy};
use sqlgate_fuzz::{grammar::Query, oracles, pg};

#[test]
fn pg_view_of_a_plain_select() {
    let g = Guard::new(Policy::for_dialect(Dialect::Postgres)).unwrap();
    let a = g
        .check("SELECT lower(name) FROM artist WHERE a IN (SELECT a FROM t)")
        .unwrap();
    pg::check_approved(&a).unwrap();
}

#[test]
fn plain_statement_count() {
    assert_eq!(
        oracles::plain_statement_count("SELECT 1; -- x\n;", Dialect::Postgres),
        Some(1)
    );
    assert_eq!(
        oracles::plain_statement_count("SELECT 1;COMMIT", Dialect::Postgres),
        Some(2)
    );
}

#[test]
fn grammar_renders_and_oracle_holds_for_pseudo_random_inputs() {
    let mut seed: u64 = 0x9e3779b97f4a7c15;
    let mut dangerous = 0;
    for _ in 0..3000 {
        let bytes: Vec<u8> = (0..512)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect();
        let Ok(q) = Query::arbitrary_take_rest(Unstructured::new(&bytes)) else {
            continue;
        };
        let (sql, d) = q.render();
        dangerous += usize::from(d);
        let expect = if d {
            oracles::Expect::Dangerous
        } else {
            oracles::Expect::Benign
        };
        oracles::grammar_oracle(&sql, expect);
    }
    assert!(dangerous > 0);
}

/// The conservative resolver flags every way of reading customer.email / customer.phone that the
/// issue's review found (and a few more), in every name-resolution dialect.
#[test]
fn resolver_flags_protected_reads() {
    let leaks = [
        "SELECT email AS email FROM customer",
        "SELECT first_name AS x FROM customer WHERE email = 'a'",
        "SELECT first_name AS email FROM customer WHERE email LIKE '%'",
        "SELECT first_name AS email FROM customer GROUP BY email",
        "SELECT first_name AS email, count(*) FROM customer GROUP BY 1 HAVING max(email) > ''",
        "SELECT first_name AS email FROM customer ORDER BY lower(email)",
        "SELECT row_number() OVER (PARTITION BY email) FROM customer",
        "SELECT row_number() OVER (ORDER BY phone) FROM customer",
        "SELECT (SELECT email FROM invoice LIMIT 1) FROM customer",
        "SELECT (SELECT email FROM customer LIMIT 1) FROM (SELECT 1 AS email) AS d",
        "SELECT (SELECT d.email FROM customer AS d LIMIT 1) FROM (SELECT 1 AS email) AS d",
        "SELECT d.email FROM (SELECT 1 AS x) AS d, customer AS d",
        "WITH k AS (SELECT 1 AS email) SELECT (SELECT email FROM customer) FROM k",
        "SELECT 1 FROM customer WHERE EXISTS (SELECT 1 FROM t WHERE email = 'a')",
        "SELECT 1 FROM customer AS c WHERE 'a' IN (SELECT c.email FROM t)",
        "SELECT x.e FROM customer AS c, LATERAL (SELECT email AS e) AS x",
        "SELECT x.e FROM customer AS c, (SELECT c.phone AS e) AS x",
        "SELECT email FROM customer JOIN (SELECT 1 AS email) AS d USING (email)",
        "SELECT 1 FROM customer JOIN (SELECT 1 AS email) AS d USING (email)",
        "SELECT * FROM customer NATURAL JOIN (SELECT 1 AS email) AS d",
        "SELECT first_name FROM customer NATURAL JOIN (SELECT 'x' AS phone) AS d",
        "SELECT * FROM customer",
        "SELECT c.* FROM customer AS c",
        "SELECT public.customer.email FROM public.customer",
        "SELECT c FROM customer AS c",
        "SELECT mail FROM customer AS c(a, b, d, mail)",
        "SELECT 1 FROM employee",
        "SELECT public.customer.* FROM customer",
        "SELECT (SELECT count(*) FROM customer WHERE email LIKE 'a%') FROM (SELECT 1 AS x) AS email",
        "SELECT EMAIL FROM customer",
        "SELECT (SELECT (SELECT email FROM t) FROM invoice) FROM customer",
        "SELECT 1 FROM customer AS c JOIN invoice AS i ON c.email = 'x'",
    ];
    for dialect in oracles::NAME_DIALECTS {
        for sql in leaks {
            assert!(
                oracles::protected_reads(dialect, sql).is_err(),
                "{dialect}: not flagged: {sql}"
            );
        }
    }
    // DuckDB's lateral-by-default derived tables, QUALIFY and COLUMNS.
    for sql in [
        "SELECT d.e FROM customer, (SELECT email AS e) AS d",
        "SELECT first_name FROM customer QUALIFY row_number() OVER (ORDER BY email) = 1",
        "SELECT COLUMNS('e.*') FROM customer",
        "SELECT * FROM customer PIVOT (count(*) FOR email IN ('a', 'b'))",
        "SELECT * FROM customer UNPIVOT (v FOR k IN (email, phone))",
    ] {
        assert!(
            oracles::protected_reads(Dialect::Duckdb, sql).is_err(),
            "duckdb: not flagged: {sql}"
        );
    }
    // Quoted names are case-insensitive outside PostgreSQL.
    for dialect in [Dialect::Sqlite, Dialect::Duckdb] {
        assert!(oracles::protected_reads(dialect, r#"SELECT "Email" FROM customer"#).is_err());
    }
    assert!(oracles::protected_reads(Dialect::Mysql, "SELECT `Email` FROM customer").is_err());
}

/// And it does not flag reads that no engine resolves to a protected column: the oracle must not
/// crash on a guard that resolves names correctly.
#[test]
fn resolver_allows_reads_of_other_columns() {
    let safe = [
        "SELECT first_name, last_name FROM customer",
        "SELECT first_name AS email FROM customer",
        "SELECT first_name AS email FROM customer ORDER BY email",
        "SELECT d.email FROM (SELECT first_name AS email FROM customer) AS d",
        "SELECT email FROM (SELECT first_name AS email FROM customer) AS d WHERE email > ''",
        "SELECT (SELECT email FROM (SELECT 1 AS email) AS d) FROM customer",
        "SELECT (SELECT d.email FROM customer AS c LIMIT 1) FROM (SELECT 1 AS email) AS d",
        "WITH k AS (SELECT first_name AS email FROM customer) SELECT email FROM k",
        "WITH k(email) AS (SELECT first_name FROM customer) SELECT k.email FROM k",
        "SELECT v.email FROM (VALUES (1)) AS v(email)",
        "SELECT email FROM t",
        "SELECT c.first_name FROM customer AS c JOIN invoice AS i USING (customer_id)",
        "SELECT * FROM invoice NATURAL JOIN t",
        "SELECT count(*) FROM customer",
        "SELECT first_name FROM customer AS c(a)",
        r#"SELECT "Email" FROM customer"#,
        "SELECT (SELECT customer FROM (SELECT 1 AS x) AS customer) FROM customer AS c",
    ];
    for sql in safe {
        assert_eq!(
            oracles::protected_reads(Dialect::Postgres, sql),
            Ok(()),
            "flagged: {sql}"
        );
    }
    assert_eq!(
        oracles::protected_reads(
            Dialect::Duckdb,
            "SELECT * EXCLUDE (email, phone) FROM customer"
        ),
        Ok(())
    );
}

/// The `standard_conforming_strings = off` reading: `E` before each standard literal (and
/// `nchar E` for `N'...'`), nothing for E'', $$ and U&'' strings.
#[test]
fn standard_strings_off_rewrite() {
    assert_eq!(
        pg::standard_strings_off_text("SELECT 'a', E'b', $$c$$, N'd'").as_deref(),
        Some("SELECT E'a', E'b', $$c$$, nchar E'd'")
    );
    assert_eq!(pg::standard_strings_off_text("SELECT 1"), None);
    assert_eq!(
        pg::check_standard_strings_off("SELECT 'it''s', N'x', 'a'\n'b'"),
        Ok(())
    );
    assert_eq!(
        pg::check_standard_strings_off("SELECT 'a' -- '\\\n"),
        Ok(())
    );
    // Positions shift by the inserted `E`: they are not part of the comparison.
    assert_eq!(
        pg::check_standard_strings_off("SELECT 1 WHERE b LIKE 'x%' AND c IN (1, 2) ORDER BY 'z'"),
        Ok(())
    );
    // Stacked statements behind a backslash-quote: one statement on, two off.
    let e = pg::check_standard_strings_off("SELECT 'a\\', ' ; DELETE FROM t -- '").unwrap_err();
    assert!(e.contains("2 statements"), "{e}");
    // The same statement shape, but another string value.
    let e = pg::check_standard_strings_off("SELECT 'a\\nb'").unwrap_err();
    assert!(e.contains("different tree"), "{e}");
}

/// No false alarm of the `standard_conforming_strings = off` reading: every shared vector without
/// a backslash reads the same both ways.
#[test]
fn standard_strings_off_agrees_without_backslashes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default();
        for line in text.lines().filter(|l| l.starts_with('{')) {
            let row: serde_json::Value = serde_json::from_str(line).unwrap();
            let Some(sql) = row["sql"].as_str() else {
                continue;
            };
            if sql.contains('\\') || sql.contains('\0') {
                continue;
            }
            n += 1;
            assert_eq!(pg::check_standard_strings_off(sql), Ok(()), "{sql}");
        }
    }
    assert!(n > 100, "only {n} vectors");
}

/// The row filter oracle accepts a filtered table kept in place on the nullable side of an
/// outer join of a grouped SELECT (its filter first in the join's ON), in every dialect that
/// parses the join, and the approved SQL does carry the filter there.
#[test]
fn row_filter_oracle_accepts_the_nullable_side_filtered_in_its_on() {
    for dialect in [
        Dialect::Postgres,
        Dialect::Sqlite,
        Dialect::Mysql,
        Dialect::Duckdb,
    ] {
        for (sql, expected) in [
            (
                "SELECT o.id, count(*) FROM t LEFT JOIN orders o ON o.x = t.x GROUP BY o.id",
                "LEFT JOIN orders o ON (o.tenant_id = 7) AND (o.x = t.x)",
            ),
            (
                "SELECT o.id, count(*) FROM orders o RIGHT JOIN t ON o.x = t.x GROUP BY o.id",
                "FROM orders o RIGHT JOIN t ON (o.tenant_id = 7) AND (o.x = t.x)",
            ),
            // Found by fixed_point: two tables kept in place by the WHERE, the second filter
            // inside the parentheses the first one put around the WHERE.
            (
                "SELECT o.id, count(*) FROM orders o LEFT JOIN customer c ON o.x = c.x \
                 JOIN customer d ON true GROUP BY o.id",
                "AND ((o.tenant_id = 7)) GROUP BY",
            ),
        ] {
            let approved = oracles::row_filter_oracle(dialect, sql)
                .unwrap_or_else(|| panic!("{dialect:?} refused {sql}"));
            assert!(
                approved.sql.contains(expected),
                "{dialect:?}: {}",
                approved.sql
            );
        }
    }
}

/// Found by the fixed_point target: in Snowflake (and MySQL) `\'` escapes a quote, so the whole
/// sub-query after it is inside the string; the row-filter oracle must read the approved SQL in
/// the guard's dialect, not the generic one, or it reports a bare read that no engine sees.
#[test]
fn row_filter_oracle_reads_strings_in_the_guards_dialect() {
    let sql = "SELECT N'a\\' , (SELECT group_concat(email) FROM customer) -- ' AS x";
    let approved = oracles::row_filter_oracle(Dialect::Snowflake, sql).expect("one string literal");
    assert!(approved.tables.is_empty(), "{:?}", approved.tables);
    // MySQL reads `\'` the same way; whatever its guard decides, the oracle must not object.
    let _ = oracles::row_filter_oracle(Dialect::Mysql, sql);
    // Where `\` is an ordinary character, the sub-query is real and gets its filter.
    let approved = oracles::row_filter_oracle(Dialect::Postgres, sql);
    assert!(approved.is_none_or(|a| a.sql.contains("sqlgate_filtered")));
}

#[test]
fn sizes_oracle_measures_approved_parts_near_the_bound_and_none_past_it() {
    let conn = sqlgate_fuzz::sizes::connection();
    let mut state: u64 = 0x5eed;
    let (mut approved, mut largest) = (0, 0);
    for _ in 0..3000 {
        let bytes: Vec<u8> = (0..96)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 56) as u8
            })
            .collect();
        let case =
            sqlgate_fuzz::sizes::SizeQuery::arbitrary_take_rest(Unstructured::new(&bytes)).unwrap();
        let outcome = sqlgate_fuzz::sizes::run(&conn, &case);
        assert_eq!(outcome.finding, None);
        approved += usize::from(outcome.approved);
        largest = largest.max(outcome.largest);
    }
    assert!(approved > 500, "{approved} approved");
    // The measure is real: approved parts come close to the 1 MiB bound.
    assert!(
        largest > 512 * 1024,
        "largest approved part {largest} bytes"
    );
}
