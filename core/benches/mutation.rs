//! `cargo bench -p sqlgate --bench mutation [--features mimalloc]`: `Guard::check_mutation` against
//! `Guard::check` on comparable statements (the same tables, predicates and sub-queries, one
//! written as a mutation, one as the read that shows its rows), measured in the same run. The
//! target: a mutation check within 20% of a read check.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/allocator.rs"]
mod allocator;
use allocator::ALLOCATOR;

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sqlgate::{ColumnRules, Dialect, Guard, Policy, QueryClass, TableRules, WriteRules};

/// (read, mutation) pairs over the same tables and predicates.
fn pairs() -> Vec<(String, String)> {
    (0..60)
        .flat_map(|i| {
            [
                (
                    format!("SELECT status FROM orders WHERE id = {i} AND customer_id IN (SELECT id FROM product WHERE price > {i})"),
                    format!("UPDATE orders SET status = 'shipped' WHERE id = {i} AND customer_id IN (SELECT id FROM product WHERE price > {i})"),
                ),
                (
                    format!("SELECT id FROM orders o WHERE o.status = 'new' AND o.id > {i}"),
                    format!("DELETE FROM orders o WHERE o.status = 'new' AND o.id > {i}"),
                ),
                (
                    format!("SELECT id, name FROM product WHERE price > {i} ORDER BY id"),
                    format!("INSERT INTO orders (id, status) SELECT id, name FROM product WHERE price > {i} ORDER BY id"),
                ),
                (
                    format!("SELECT o.id, p.price FROM orders o JOIN product p ON p.id = o.id WHERE p.price = {i}"),
                    format!("UPDATE orders SET status = p.name FROM product p WHERE p.id = orders.id AND p.price = {i}"),
                ),
            ]
        })
        .collect()
}

fn policy() -> Policy {
    Policy {
        tables: TableRules {
            allow: Vec::new(),
            deny: vec!["employee".into()],
        },
        columns: ColumnRules {
            deny: vec!["customer.email".into(), "*.ssn".into()],
        },
        writes: Some(WriteRules::new(
            &["orders"],
            &[QueryClass::MutationCreate, QueryClass::MutationDelete],
        )),
        ..Policy::for_dialect(Dialect::Postgres)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median over statements of each statement's median time, in microseconds.
fn median_us(statements: &[String], check: impl Fn(&str)) -> f64 {
    let per_statement: Vec<f64> = statements
        .iter()
        .map(|s| {
            let runs: Vec<f64> = (0..31)
                .map(|_| {
                    let t = Instant::now();
                    check(black_box(s));
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            median(runs)
        })
        .collect();
    median(per_statement)
}

fn bench(c: &mut Criterion) {
    println!("allocator: {ALLOCATOR}");
    let guard = Guard::new(policy()).expect("policy");
    let (reads, mutations): (Vec<String>, Vec<String>) = pairs().into_iter().unzip();
    for (read, mutation) in reads.iter().zip(&mutations) {
        assert!(guard.check(read).is_ok(), "read refused: {read}");
        assert!(
            guard.check_mutation(mutation).is_ok(),
            "mutation refused: {mutation}"
        );
    }
    let read_us = median_us(&reads, |s| {
        let _ = black_box(guard.check(s));
    });
    let mutation_us = median_us(&mutations, |s| {
        let _ = black_box(guard.check_mutation(s));
    });
    let ratio = mutation_us / read_us;
    println!(
        "check_mutation {mutation_us:.2} µs vs check {read_us:.2} µs on {} comparable statements: \
         {:+.1}% (target: within 20%: {})",
        reads.len(),
        (ratio - 1.0) * 100.0,
        if ratio <= 1.2 { "met" } else { "NOT met" }
    );

    let mut group = c.benchmark_group("mutation");
    group.throughput(Throughput::Elements(reads.len() as u64));
    group.bench_function("check (reads)", |b| {
        b.iter(|| {
            for s in &reads {
                let _ = black_box(guard.check(black_box(s)));
            }
        })
    });
    group.bench_function("check_mutation (comparable mutations)", |b| {
        b.iter(|| {
            for s in &mutations {
                let _ = black_box(guard.check_mutation(black_box(s)));
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
