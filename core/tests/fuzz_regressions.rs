//! Replays every file in `fuzz/seeds/` through the fuzz targets' own oracles (the same source
//! files, `fuzz/src/oracles/`), with plain `cargo test` and no libFuzzer:
//!
//! - `check_bytes/`, `fixed_point/`, `differential_pg/`: one selector byte (dialect and policy, see
//!   the oracles' module docs) followed by the SQL. `differential_pg` seeds run the fixed-point
//!   oracle on postgres here; the PostgreSQL-parser half needs libpg_query and runs in `fuzz/`.
//! - `grammar/`: text cases, `-- expect: dangerous|benign` on the first line, then the SQL.
//!
//! Every seed also goes through `check_bytes`. A crash or oracle failure found by fuzzing becomes
//! a seed file here and, while it is open, a named test below.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// Only some of the oracles, and of their re-exports, are replayed here.
#[allow(dead_code, unused_imports)]
#[path = "../../fuzz/src/oracles/mod.rs"]
mod oracles;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use sqlgate::Dialect;

fn seeds_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds")
}

fn files(target: &str) -> Vec<PathBuf> {
    let dir = seeds_dir().join(target);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds in {}", dir.display());
    out
}

/// Runs `oracle` on every seed of `target`, collecting all failures before failing.
fn replay(target: &str, oracle: impl Fn(&Path, &[u8])) {
    let mut failures = Vec::new();
    let all = files(target);
    for path in &all {
        eprintln!("replaying {}", path.display());
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            oracles::check_bytes(&data);
            oracle(path, &data);
        }));
        if let Err(panic) = outcome {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{}: {message}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} {target} seeds failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

#[test]
fn check_bytes_seeds() {
    replay("check_bytes", |_, _| {});
}

#[test]
fn fixed_point_seeds() {
    replay("fixed_point", |_, data| {
        oracles::fixed_point(data);
    });
}

#[test]
fn differential_pg_seeds() {
    replay("differential_pg", |_, data| {
        if let Some((_, which, sql)) = oracles::split_input(data) {
            let guard = oracles::guard(Dialect::Postgres, which % 2);
            oracles::fixed_point_with(guard, Dialect::Postgres, &sql);
        }
    });
}

#[test]
fn grammar_seeds() {
    replay("grammar", |path, data| {
        let (expect, sql) = oracles::parse_grammar_case(data).unwrap_or_else(|| {
            panic!(
                "{} is not a text case: the first line must be `-- expect: dangerous` or `-- expect: benign`",
                path.display()
            )
        });
        oracles::grammar_oracle(&sql, expect);
    });
}

/// Every shared vector's SQL, with its own dialect and the three fuzz policies, passes the
/// fixed-point oracle, and the mutation oracle with the fuzz policy that has `writes` (the same
/// inputs seed the fuzz corpora).
#[test]
fn vectors_pass_the_fixed_point_oracle() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let (mut n, mut mutations, mut filtered) = (0, 0, 0);
    for entry in std::fs::read_dir(&dir).expect("tests/vectors") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("vector file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let row: serde_json::Value = serde_json::from_str(line).expect("vector JSON");
            let Some(sql) = row["sql"].as_str() else {
                continue;
            };
            let dialect: Dialect = row["dialect"]
                .as_str()
                .unwrap_or("postgres")
                .parse()
                .unwrap_or(Dialect::Postgres);
            for which in 0..oracles::POLICIES {
                oracles::fixed_point_with(oracles::guard(dialect, which), dialect, sql);
                n += 1;
            }
            if oracles::mutation_fixed_point(dialect, sql).is_some() {
                mutations += 1;
            }
            if oracles::row_filter_oracle(dialect, sql).is_some_and(|a| !a.row_filters.is_empty()) {
                filtered += 1;
            }
        }
    }
    assert!(n > 0);
    // Vectors read `orders` and `customer`, the fuzz row filters' tables.
    assert!(
        filtered > 10,
        "only {filtered} vectors read a filtered table"
    );
    // The mutation vectors' targets overlap the fuzz policy's writable tables.
    assert!(
        mutations >= 20,
        "only {mutations} vectors approved as mutations"
    );
}

/// Found by `differential_pg` (seed `differential_pg/top_is_a_function_call_in_postgres`): the
/// postgres guard approves `SELECT TOP (5) a FROM t` unchanged, with no row cap. PostgreSQL has no
/// TOP clause: it parses this as `SELECT top(5) AS a FROM t`, a call to a function `top` that is on
/// no allowlist, returning every row of `t`. The postgres dialect must refuse TOP (or turn it into
/// LIMIT); until core does, this test fails.
#[test]
fn postgres_top_is_not_approved_as_is() {
    let guard = oracles::guard(Dialect::Postgres, 0);
    for sql in ["SELECT TOP (5) a FROM t", "SELECT TOP 5 a FROM t"] {
        if let Ok(approved) = guard.check(sql) {
            assert!(
                !approved.sql.to_ascii_uppercase().contains("TOP") && approved.sql.contains("LIMIT"),
                "postgres approved {sql:?} as {:?}: PostgreSQL reads TOP (5) as a call to top(5) and applies no row cap",
                approved.sql
            );
        }
    }
}

/// Found replaying seed `check_bytes/pg_deep_parens` with sqlparser's `recursive-protection` off
/// (the root Cargo.toml change in progress): `SELECT ((...1...))` with 60 parentheses, within
/// `max_depth`, overflows a 2 MiB thread in a debug build and aborts the process; the stack the
/// guard reserves per token is too small for the parser's frames there. A guard must never
/// overflow, whatever the build: this test aborts until core reserves enough.
#[test]
fn nested_parentheses_never_overflow_a_2mib_thread() {
    let worker = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let guard = oracles::guard(Dialect::Postgres, 0);
            for n in [10, 30, 50, 60, 63, 64, 80, 200] {
                let sql = format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n));
                let _ = guard.check(&sql);
                let _ = sqlgate::classify(&sql, Dialect::Postgres);
            }
        })
        .expect("spawn");
    worker.join().expect("no panic");
}

/// Found by `differential_pg`: `(SELECT a FROM t LIMIT 5000)` is approved as
/// `(SELECT a FROM t LIMIT 5000) LIMIT 1000`, which PostgreSQL refuses ("multiple LIMIT clauses not
/// allowed"). The cap must go inside (clamp the inner LIMIT) or wrap the query.
#[test]
fn parenthesized_query_does_not_get_a_second_limit() {
    let guard = oracles::guard(Dialect::Postgres, 0);
    if let Ok(approved) = guard.check("(SELECT a FROM t LIMIT 5000)") {
        assert_eq!(
            approved.sql.matches("LIMIT").count(),
            1,
            "two LIMIT clauses at one level: {:?}",
            approved.sql
        );
    }
}

#[test]
fn the_row_filter_oracle_sees_every_filtered_read() {
    for dialect in Dialect::ALL {
        for sql in [
            "SELECT * FROM orders",
            "SELECT c.id FROM customer c JOIN orders o ON o.customer_id = c.id",
            "WITH orders AS (SELECT * FROM orders) SELECT count(*) FROM orders",
            "SELECT id FROM customer WHERE id IN (SELECT customer_id FROM orders) UNION SELECT 1",
        ] {
            let approved = oracles::row_filter_oracle(*dialect, sql)
                .unwrap_or_else(|| panic!("{dialect}: {sql} refused under row filters"));
            assert!(!approved.row_filters.is_empty(), "{dialect}: {sql}");
        }
    }
}
