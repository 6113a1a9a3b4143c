//! Times `Guard::check` on adversarial shapes, each grown as large as the default policy admits
//! (`max_sql_bytes` 256 KiB and `max_tokens` 16 000, whichever binds first), and once more filled
//! to the byte cap (refused as `too_large` when over the token budget):
//! `cargo run --release -p sqlgate [--features mimalloc] --example worst_case`.
//!
//! The bound to hold is 100 ms per check for any input the policy lets through to parsing
//! (issue 6; the check_bytes fuzz target hunts for counter-examples among small inputs). Each line
//! is the median of 5 checks; the last line names the slowest.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use sqlgate::{Dialect, Guard, Policy};

#[path = "../benches/support/allocator.rs"]
mod allocator;

/// An input made of `head`, `n` items and `tail`.
struct Shape {
    name: &'static str,
    head: String,
    item: Box<dyn Fn(usize) -> String>,
    tail: String,
}

impl Shape {
    fn new(
        name: &'static str,
        head: &str,
        item: impl Fn(usize) -> String + 'static,
        tail: &str,
    ) -> Self {
        Shape {
            name,
            head: head.to_string(),
            item: Box::new(item),
            tail: tail.to_string(),
        }
    }

    fn build(&self, n: usize) -> String {
        let mut sql = self.head.clone();
        (0..n).for_each(|i| sql.push_str(&(self.item)(i)));
        sql.push_str(&self.tail);
        sql
    }

    /// The most items whose text passes `fits`.
    fn largest(&self, fits: impl Fn(&str) -> bool) -> String {
        let (mut low, mut high) = (0usize, 1usize);
        while fits(&self.build(high)) {
            low = high;
            high *= 2;
        }
        while high - low > 1 {
            let mid = (low + high) / 2;
            if fits(&self.build(mid)) {
                low = mid;
            } else {
                high = mid;
            }
        }
        self.build(low)
    }
}

#[rustfmt::skip]
fn shapes(depth: usize) -> Vec<Shape> {
    let nested = move |open: &str, close: &str| format!("{}1{}", open.repeat(depth), close.repeat(depth));
    let (parens, subqueries, calls) = (nested("(", ")"), nested("(SELECT ", ")"), nested("abs(", ")"));
    let too_deep_start = format!("SELECT {parens}{parens}");
    vec![
        Shape::new("IN list", "SELECT a FROM t WHERE a IN (0", |i| format!(", {i}"), ")"),
        Shape::new("OR chain", "SELECT a FROM t WHERE a = 0", |i| format!(" OR a = {i}"), ""),
        Shape::new("+ chain", "SELECT 0", |i| format!(" + {i}"), ""),
        Shape::new("select list", "SELECT a0", |i| format!(", a{i}"), " FROM t"),
        Shape::new("joins", "SELECT 1 FROM t0", |i| format!(" JOIN t{} ON t{}.a = t{i}.a", i + 1, i + 1), ""),
        Shape::new("UNION ALL", "SELECT 0", |i| format!(" UNION ALL SELECT {i}"), ""),
        Shape::new("CTEs", "WITH c0 AS (SELECT 1)", |i| format!(", c{} AS (SELECT * FROM c{i})", i + 1), " SELECT * FROM c0"),
        Shape::new("CASE arms", "SELECT CASE a", |i| format!(" WHEN {i} THEN 'v{i}'"), " END FROM t"),
        Shape::new("function calls", "SELECT lower('x')", |i| format!(", upper(lower(trim('{i}')))"), ""),
        Shape::new("parentheses at the depth limit", "SELECT 0", move |_| format!(", {parens}"), ""),
        Shape::new("subqueries at the depth limit", "SELECT 0", move |_| format!(", {subqueries}"), ""),
        Shape::new("calls nested to the depth limit", "SELECT 0", move |_| format!(", {calls}"), ""),
        Shape::new("comments between tokens", "SELECT a", |i| format!(" /* {i} */ + /* x */ a"), " FROM t"),
        Shape::new("line comments", "SELECT a", |i| format!(" -- {i}\n + a"), " FROM t"),
        Shape::new("one long string", "SELECT '", |_| "x".to_string(), "'"),
        Shape::new("one long identifier", "SELECT \"", |_| "x".to_string(), "\" FROM t"),
        Shape::new("many strings", "SELECT ''", |i| format!(" || 'it''s {i}'"), ""),
        Shape::new("stacked statements", "SELECT 1", |_| "; SELECT 1".to_string(), ""),
        Shape::new("semicolons only", "SELECT 1", |_| ";".to_string(), ""),
        Shape::new("unclosed parenthesis at the end", "SELECT a FROM t WHERE a IN (0", |i| format!(", {i}"), ""),
        Shape::new("unterminated string at the end", "SELECT a FROM t WHERE a IN (0", |i| format!(", {i}"), ") AND b = 'x"),
        Shape::new("open parentheses only", "SELECT ", |_| "(".to_string(), ""),
        Shape::new("spaces after a too-deep start", &too_deep_start, |_| " ".to_string(), ""),
        Shape::new("multibyte text", "SELECT 'é'", |_| " || 'ÿ中😀'".to_string(), ""),
    ]
}

/// Median milliseconds of 5 checks, and the verdict's code.
fn time(guard: &Guard, sql: &str) -> (f64, String) {
    let mut runs = Vec::new();
    let mut code = String::new();
    for _ in 0..5 {
        let start = Instant::now();
        let result = std::hint::black_box(guard.check(sql));
        runs.push(start.elapsed().as_secs_f64() * 1e3);
        code = match result {
            Ok(_) => "allowed".to_string(),
            Err(r) => r.error.code.to_string(),
        };
    }
    runs.sort_by(f64::total_cmp);
    (runs[runs.len() / 2], code)
}

fn main() {
    let mut slowest = (String::new(), 0.0f64);
    for dialect in [
        Dialect::Postgres,
        Dialect::Sqlite,
        Dialect::Mysql,
        Dialect::Mssql,
    ] {
        let policy = Policy::for_dialect(dialect);
        let (cap, max_tokens) = (policy.max_sql_bytes, policy.max_tokens);
        let depth = policy.max_depth.saturating_sub(4);
        let guard = match Guard::new(policy) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        };
        let within_tokens = |sql: &str| {
            sqlgate::parse::tokenize(sql, dialect).map_or(true, |tokens| {
                sqlgate::precheck::check_token_count(&tokens, max_tokens).is_ok()
            })
        };
        for shape in shapes(depth) {
            let at_cap = shape.largest(|sql| sql.len() <= cap);
            let admitted = shape.largest(|sql| sql.len() <= cap && within_tokens(sql));
            for (what, sql) in [("admitted", &admitted), ("byte cap", &at_cap)] {
                let (ms, code) = time(&guard, sql);
                println!(
                    "{dialect:<8} {:<32} {what:<8} {:>7} bytes {ms:>8.2} ms  {code}",
                    shape.name,
                    sql.len()
                );
                if ms > slowest.1 {
                    slowest = (format!("{dialect} {} ({what})", shape.name), ms);
                }
            }
        }
    }
    println!(
        "slowest: {} {:.2} ms (bound: 100 ms; {} allocator)",
        slowest.0,
        slowest.1,
        allocator::ALLOCATOR
    );
}
