//! No input may overflow the stack, even on a small (256 KiB) thread: deep nesting is refused
//! with `too_deep`; long flat chains (which parse into deep trees) are checked on a stack that
//! grows with the input.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use sqlgate::{Dialect, ErrorCode, Guard, Policy};

fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the check must not crash the thread")
}

/// Limits raised far past the defaults, so that only the stack is under test.
fn guard() -> Guard {
    Guard::new(Policy {
        max_sql_bytes: 4 * 1024 * 1024,
        max_tokens: 1_000_000,
        ..Policy::for_dialect(Dialect::Postgres)
    })
    .expect("policy")
}

#[test]
fn five_thousand_nested_parentheses_are_too_deep() {
    let sql = format!("SELECT {}1{}", "(".repeat(5000), ")".repeat(5000));
    let code = on_small_stack(move || guard().check(&sql).map(|_| ()).unwrap_err().error.code);
    assert_eq!(code, ErrorCode::TooDeep);
}

#[test]
fn fifty_thousand_term_or_chain_is_checked() {
    let terms: Vec<String> = (0..50_000).map(|i| format!("a = {i}")).collect();
    let sql = format!("SELECT a FROM t WHERE {}", terms.join(" OR "));
    let result = on_small_stack(move || guard().check(&sql).map(|a| a.sql.len()));
    // Allowed (it is one read-only query) and regenerated in full.
    assert!(result.expect("allowed") > 50_000 * 6);
}

#[test]
fn long_arithmetic_chain_is_checked() {
    let sql = format!("SELECT 1{} FROM t", "+1".repeat(100_000));
    let result = on_small_stack(move || guard().check(&sql).is_ok());
    assert!(result);
}

#[test]
fn two_hundred_nested_subqueries_are_too_deep() {
    let mut sql = String::from("SELECT 1");
    for _ in 0..200 {
        sql = format!("SELECT * FROM ({sql}) AS s");
    }
    let code = on_small_stack(move || guard().check(&sql).map(|_| ()).unwrap_err().error.code);
    assert_eq!(code, ErrorCode::TooDeep);
}

#[test]
fn classify_is_stack_safe_too() {
    let terms: Vec<String> = (0..50_000).map(|i| format!("a = {i}")).collect();
    let sql = format!("SELECT a FROM t WHERE {}", terms.join(" OR "));
    let class = on_small_stack(move || sqlgate::classify(&sql, Dialect::Postgres));
    assert_eq!(class, sqlgate::QueryClass::Select);
}

#[test]
fn the_default_token_budget_refuses_a_long_chain_before_parsing() {
    let sql = format!("SELECT 1{} FROM t", "+1".repeat(100_000));
    let guard = Guard::new(Policy {
        max_sql_bytes: 4 * 1024 * 1024,
        ..Policy::for_dialect(Dialect::Postgres)
    })
    .expect("policy");
    let rejection = on_small_stack(move || guard.check(&sql).map(|_| ()).unwrap_err());
    assert_eq!(rejection.error.code, ErrorCode::TooLarge);
    assert_eq!(rejection.error.stage, sqlgate::Stage::Precheck);
    assert!(
        rejection
            .error
            .message
            .contains("200004 tokens; at most 16000"),
        "{}",
        rejection.error.message
    );
}
