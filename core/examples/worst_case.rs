//! Times `Guard::check` on adversarial shapes filled up to the default size cap (256 KiB):
//! `cargo run --release -p sqlgate [--features mimalloc] --example worst_case`.
//!
//! The bound to hold is 100 ms per check for any input up to the cap (issue 6; check_bytes
//! hunts for counter-examples). Each shape prints its verdict code and the median of 5 checks;
//! the last line is the slowest shape.

use std::time::Instant;

use sqlgate::{Dialect, Guard, Policy};

#[path = "../benches/support/allocator.rs"]
mod allocator;

/// `head`, then `item(i)` for i = 0, 1, ... while the text stays under `cap` with `tail`.
fn fill(cap: usize, head: &str, item: impl Fn(usize) -> String, tail: &str) -> String {
    let mut sql = head.to_string();
    let mut i = 0;
    loop {
        let next = item(i);
        if sql.len() + next.len() + tail.len() > cap {
            break;
        }
        sql.push_str(&next);
        i += 1;
    }
    sql.push_str(tail);
    sql
}

fn shapes(cap: usize, depth: usize) -> Vec<(&'static str, String)> {
    let nested =
        |open: &str, close: &str| format!("{}1{}", open.repeat(depth), close.repeat(depth));
    vec![
        (
            "IN list",
            fill(
                cap,
                "SELECT a FROM t WHERE a IN (0",
                |i| format!(", {i}"),
                ")",
            ),
        ),
        (
            "OR chain",
            fill(
                cap,
                "SELECT a FROM t WHERE a = 0",
                |i| format!(" OR a = {i}"),
                "",
            ),
        ),
        ("+ chain", fill(cap, "SELECT 0", |i| format!(" + {i}"), "")),
        (
            "select list",
            fill(cap, "SELECT a0", |i| format!(", a{i}"), " FROM t"),
        ),
        (
            "joins",
            fill(
                cap,
                "SELECT 1 FROM t0",
                |i| format!(" JOIN t{} ON t{}.a = t{i}.a", i + 1, i + 1),
                "",
            ),
        ),
        (
            "UNION ALL",
            fill(cap, "SELECT 0", |i| format!(" UNION ALL SELECT {i}"), ""),
        ),
        (
            "CTEs",
            fill(
                cap,
                "WITH c0 AS (SELECT 1)",
                |i| format!(", c{} AS (SELECT * FROM c{i})", i + 1),
                " SELECT * FROM c0",
            ),
        ),
        (
            "CASE arms",
            fill(
                cap,
                "SELECT CASE a",
                |i| format!(" WHEN {i} THEN 'v{i}'"),
                " END FROM t",
            ),
        ),
        (
            "function calls",
            fill(
                cap,
                "SELECT lower('x')",
                |i| format!(", upper(lower(trim('{i}')))"),
                "",
            ),
        ),
        (
            "parentheses at the depth limit",
            fill(cap, "SELECT 0", |_| format!(", {}", nested("(", ")")), ""),
        ),
        (
            "subqueries at the depth limit",
            fill(
                cap,
                "SELECT 0",
                |_| format!(", {}", nested("(SELECT ", ")")),
                "",
            ),
        ),
        (
            "calls nested to the depth limit",
            fill(
                cap,
                "SELECT 0",
                |_| format!(", {}", nested("abs(", ")")),
                "",
            ),
        ),
        (
            "comments between tokens",
            fill(
                cap,
                "SELECT a",
                |i| format!(" /* {i} */ + /* x */ a"),
                " FROM t",
            ),
        ),
        (
            "line comments",
            fill(cap, "SELECT a", |i| format!(" -- {i}\n + a"), " FROM t"),
        ),
        (
            "one long string",
            fill(cap, "SELECT '", |_| "x".to_string(), "'"),
        ),
        (
            "one long identifier",
            fill(cap, "SELECT \"", |_| "x".to_string(), "\" FROM t"),
        ),
        (
            "many strings",
            fill(cap, "SELECT ''", |i| format!(" || 'it''s {i}'"), ""),
        ),
        (
            "stacked statements",
            fill(cap, "SELECT 1", |_| "; SELECT 1".to_string(), ""),
        ),
        (
            "semicolons only",
            fill(cap, "SELECT 1", |_| ";".to_string(), ""),
        ),
        (
            "unclosed parenthesis at the end",
            fill(
                cap,
                "SELECT a FROM t WHERE a IN (0",
                |i| format!(", {i}"),
                "",
            ),
        ),
        (
            "unterminated string at the end",
            fill(
                cap,
                "SELECT a FROM t WHERE a IN (0",
                |i| format!(", {i}"),
                ") AND b = 'x",
            ),
        ),
        (
            "open parentheses only",
            fill(cap, "SELECT ", |_| "(".to_string(), ""),
        ),
        (
            "too deep early",
            format!(
                "SELECT {}",
                nested("(", ")").repeat(2) + &" ".repeat(cap / 2)
            ),
        ),
        (
            "multibyte text",
            fill(cap, "SELECT 'é'", |_| " || 'ÿ中😀'".to_string(), ""),
        ),
    ]
}

fn main() {
    let mut slowest = ("", "", 0.0f64);
    for dialect in [
        Dialect::Postgres,
        Dialect::Sqlite,
        Dialect::Mysql,
        Dialect::Mssql,
    ] {
        let policy = Policy::for_dialect(dialect);
        let (cap, depth) = (policy.max_sql_bytes, policy.max_depth.saturating_sub(4));
        let guard = match Guard::new(policy) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        };
        for (name, sql) in shapes(cap, depth) {
            let mut runs: Vec<f64> = Vec::new();
            let mut code = String::new();
            for _ in 0..5 {
                let start = Instant::now();
                let result = std::hint::black_box(guard.check(&sql));
                runs.push(start.elapsed().as_secs_f64() * 1e3);
                code = match result {
                    Ok(_) => "allowed".to_string(),
                    Err(r) => r.error.code.to_string(),
                };
            }
            runs.sort_by(f64::total_cmp);
            let ms = runs[runs.len() / 2];
            let tokens = sqlgate::parse::tokenize(&sql, dialect).map_or(0, |t| {
                t.iter()
                    .filter(|t| !sqlgate::parse::is_trivia(&t.token))
                    .count()
            });
            println!(
                "{dialect:<8} {name:<32} {:>7} bytes {tokens:>7} tokens {ms:>8.2} ms {:>6.2} µs/token  {code}",
                sql.len(),
                ms * 1e3 / tokens.max(1) as f64
            );
            if ms > slowest.2 {
                slowest = (dialect.as_str(), name, ms);
            }
        }
    }
    println!(
        "slowest: {} {} {:.2} ms (bound: 100 ms; {} allocator)",
        slowest.0,
        slowest.1,
        slowest.2,
        allocator::ALLOCATOR
    );
}
