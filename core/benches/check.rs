//! `cargo bench -p sqlgate --bench check`: time per `Guard::check` (self-check included) on the
//! Chinook gold and Spider dev queries, cost against input size, and the cost of a large
//! data-access policy (50 table patterns, 50 protected columns, a 200-table catalog) and of ten
//! row filters on the Chinook gold queries, and of an annotated policy with PII categories and
//! masks (issue 30's catalog) on the same queries.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/allocator.rs"]
mod allocator;
use allocator::ALLOCATOR;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sqlgate::{
    Catalog, CatalogColumn, CatalogTable, ColumnRules, Dialect, Guard, Policy, TableRules, Vars,
};

/// (dialect, sql) pairs from the corpus, or from the repo's vectors when the corpus is absent.
fn queries() -> Vec<(Dialect, String)> {
    let corpus = std::env::var_os("SQLGATE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let files = ["chinook/chinook_gold.jsonl", "spider/spider_dev.jsonl"];
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(corpus.join(f)) else {
            eprintln!("corpus file {f} not found; benchmarking without it");
            continue;
        };
        for line in text.lines() {
            let Ok(row) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let dialect = row["dialect"]
                .as_str()
                .and_then(|d| d.parse().ok())
                .unwrap_or(Dialect::Sqlite);
            if let Some(sql) = row["sql"].as_str() {
                out.push((dialect, sql.to_string()));
            }
        }
    }
    if out.is_empty() {
        out.push((
            Dialect::Postgres,
            "SELECT name FROM artist ORDER BY name".to_string(),
        ));
    }
    out
}

/// The Chinook gold queries (SQLite), or none when the corpus is absent.
fn chinook_gold() -> Vec<String> {
    let corpus = std::env::var_os("SQLGATE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let text =
        std::fs::read_to_string(corpus.join("chinook/chinook_gold.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|row| row["sql"].as_str().map(str::to_string))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median over queries of each query's median time, in microseconds.
fn median_check_us(guard: &Guard, queries: &[String]) -> f64 {
    let per_query: Vec<f64> = queries
        .iter()
        .map(|q| {
            let runs: Vec<f64> = (0..31)
                .map(|_| {
                    let t = Instant::now();
                    let _ = black_box(guard.check(black_box(q)));
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            median(runs)
        })
        .collect();
    median(per_query)
}

/// [`median_check_us`] of two guards on the same queries with `vars`, their runs interleaved
/// (one of each in turn) so that machine noise hits both alike: (first, second).
fn paired_median_us(first: &Guard, second: &Guard, queries: &[String], vars: &Vars) -> (f64, f64) {
    let time = |guard: &Guard, q: &str| {
        let t = Instant::now();
        let _ = black_box(guard.check_with(black_box(q), vars));
        t.elapsed().as_secs_f64() * 1e6
    };
    let (a, b): (Vec<f64>, Vec<f64>) = queries
        .iter()
        .map(|q| {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..31 {
                a.push(time(first, q));
                b.push(time(second, q));
            }
            (median(a), median(b))
        })
        .unzip();
    (median(a), median(b))
}

/// A policy with 50 table patterns, 50 protected columns and a 200-table catalog.
fn big_policy(dialect: Dialect) -> Policy {
    let tables: Vec<CatalogTable> = (0..200)
        .map(|i| CatalogTable {
            name: format!("table_{i}"),
            columns: (0..10)
                .map(|c| CatalogColumn {
                    name: format!("col_{c}"),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    Policy {
        tables: TableRules {
            allow: vec![],
            deny: (0..50)
                .map(|i| format!("secret_schema.secret_{i}"))
                .collect(),
        },
        columns: ColumnRules {
            deny: (0..50).map(|i| format!("table_{i}.col_9")).collect(),
        },
        catalog: Some(Catalog { tables }),
        ..Policy::for_dialect(dialect)
    }
}

/// Ten row filters over Chinook's SQLite tables, one reading another filtered table.
fn row_filter_policy() -> Policy {
    Policy::from_json(
        r#"{"dialect": "sqlite", "rows": {
            "Customer": "CustomerId = :tenant",
            "Invoice": "CustomerId = :tenant",
            "InvoiceLine": "InvoiceId IN (SELECT InvoiceId FROM Invoice WHERE CustomerId = :tenant)",
            "Employee": "EmployeeId <> :hidden_employee",
            "Album": "AlbumId > :floor",
            "Artist": "ArtistId > :floor",
            "Track": "Milliseconds > :floor",
            "Playlist": "PlaylistId <> :hidden_playlist",
            "PlaylistTrack": "PlaylistId <> :hidden_playlist",
            "Genre": "GenreId > :floor"
        }}"#,
    )
    .expect("row filter policy")
}

/// The catalog of issue 30's speed target: 20 annotated tables (Chinook's 11 and 9 more), 10 PII
/// categories (tagged on Chinook's columns or blocked), 5 masked columns.
fn annotated_policy() -> Policy {
    let mut tables = serde_json::Map::new();
    let chinook = [
        "Album",
        "Artist",
        "Customer",
        "Employee",
        "Genre",
        "Invoice",
        "InvoiceLine",
        "MediaType",
        "Playlist",
        "PlaylistTrack",
        "Track",
    ];
    let more = (1..=9).map(|i| format!("Archive{i}"));
    for name in chinook.iter().map(|n| n.to_string()).chain(more) {
        let columns = match name.as_str() {
            "Customer" => serde_json::json!({
                "FirstName": {"pii": "PERSON", "display_name": "First name"},
                "LastName": {"pii": "PERSON"},
                "Address": {"pii": "LOCATION"},
                "Email": {"pii": "EMAIL_ADDRESS", "synonyms": ["mail"]},
                "Phone": {"pii": "PHONE_NUMBER"},
                "Fax": {"pii": "FAX_NUMBER", "mask": "redact"}
            }),
            "Employee" => serde_json::json!({
                "BirthDate": {"pii": "DATE_OF_BIRTH"},
                "Email": {"pii": "EMAIL_ADDRESS"},
                "Phone": {"pii": "PHONE_NUMBER"}
            }),
            _ => serde_json::json!({}),
        };
        tables.insert(
            name.clone(),
            serde_json::json!({
                "display_name": name,
                "description": format!("Rows of {name}."),
                "synonyms": [name.to_lowercase()],
                "columns": columns
            }),
        );
    }
    let policy = serde_json::json!({
        "dialect": "sqlite",
        "annotations": {
            "tables": tables,
            "relationships": [
                {"from": "Invoice.CustomerId", "to": "Customer.CustomerId", "cardinality": "many_to_one"},
                {"from": "Track.AlbumId", "to": "Album.AlbumId", "cardinality": "many_to_one"}
            ]
        },
        "pii": {
            "block": ["CREDIT_CARD", "IBAN", "NATIONAL_ID", "IP_ADDRESS"],
            "mask": {"EMAIL_ADDRESS": "partial", "PHONE_NUMBER": "partial"}
        }
    });
    Policy::from_json(&policy.to_string()).expect("annotated policy")
}

/// The annotated policy against none on the Chinook gold queries both approve.
fn print_annotation_overhead(plain: &Guard, annotated: &Guard, chinook: &[String]) {
    let both: Vec<String> = chinook
        .iter()
        .filter(|q| annotated.check(q).is_ok())
        .cloned()
        .collect();
    let masked = both
        .iter()
        .filter(|q| {
            annotated
                .check(q)
                .is_ok_and(|a| plain.check(q).is_ok_and(|p| p.sql != a.sql))
        })
        .count();
    let (plain_us, annotated_us) = paired_median_us(plain, annotated, &both, &Vars::new());
    println!(
        "annotations, Chinook gold ({} queries, {masked} of them masked): plain {plain_us:.2} µs, with 20 annotated tables + 10 PII categories + 5 masked columns {annotated_us:.2} µs ({:+.1}%; target at most +10%)",
        both.len(),
        (annotated_us / plain_us - 1.0) * 100.0
    );
}

/// Row filters: ten filters on the Chinook gold queries, against the same queries without (all
/// of them, and those that read a filtered table).
fn print_row_filter_overhead(plain: &Guard, filtered: &Guard, chinook: &[String], vars: &Vars) {
    let touched: Vec<String> = chinook
        .iter()
        .filter(|q| {
            filtered
                .check_with(q, vars)
                .is_ok_and(|a| !a.row_filters.is_empty())
        })
        .cloned()
        .collect();
    for (what, set) in [("all", chinook), ("reading a filtered table", &touched[..])] {
        if set.is_empty() {
            continue;
        }
        let (plain_us, filtered_us) = paired_median_us(plain, filtered, set, vars);
        println!(
            "row filters, Chinook gold ({what}: {} queries): plain {plain_us:.2} µs, with 10 row filters {filtered_us:.2} µs ({:+.1}%; target at most +25% over all)",
            set.len(),
            (filtered_us / plain_us - 1.0) * 100.0
        );
    }
}

/// Linear growth: µs per KiB for 1, 10 and 100 KiB queries.
fn print_size_growth() {
    // Limits raised so that the 100 KiB query is checked, not refused as too large.
    let pg = Guard::new(Policy {
        max_sql_bytes: 1 << 20,
        max_tokens: 1 << 20,
        ..Policy::for_dialect(Dialect::Postgres)
    })
    .expect("policy");
    for kib in [1usize, 10, 100] {
        let mut sql = String::from("SELECT a, b FROM t WHERE a IN (");
        let mut i = 0;
        while sql.len() < kib * 1024 - 16 {
            sql.push_str(&format!("{i}, "));
            i += 1;
        }
        sql.push_str("0) AND b > 1");
        assert!(
            pg.check(&sql).is_ok(),
            "the {kib} KiB query must be allowed"
        );
        let us = median_check_us(&pg, std::slice::from_ref(&sql));
        println!(
            "size {kib:>3} KiB: {us:>9.1} µs, {:.1} µs per KiB",
            us / kib as f64
        );
    }
}

fn bench(c: &mut Criterion) {
    let all = queries();
    let sqlite: Vec<String> = all
        .iter()
        .filter(|(d, _)| *d == Dialect::Sqlite)
        .map(|(_, q)| q.clone())
        .collect();
    let plain = Guard::new(Policy::for_dialect(Dialect::Sqlite)).expect("policy");

    // The figure the README quotes: median per check over the corpus queries.
    println!(
        "median check (Chinook gold + Spider dev, {} queries, {ALLOCATOR} allocator): {:.2} µs",
        sqlite.len(),
        median_check_us(&plain, &sqlite)
    );

    // Policy cost: the same queries, rewritten onto the catalog's tables so that they resolve.
    let synthetic: Vec<String> = (0..200)
        .map(|i| format!("SELECT t.col_1, count(*) FROM table_{} t JOIN table_{} u ON t.col_2 = u.col_2 WHERE t.col_3 > {i} GROUP BY t.col_1 ORDER BY 2 DESC", i % 200, (i + 7) % 200))
        .collect();
    let with_policy = Guard::new(big_policy(Dialect::Sqlite)).expect("policy");
    // Interleaved, as the row filters and annotations below, so that the machine's noise hits
    // both alike (one median after the other, a busy minute lands on one of them only).
    let (plain_us, policy_us) = paired_median_us(&plain, &with_policy, &synthetic, &Vars::new());
    println!(
        "policy overhead: plain {plain_us:.2} µs, with 50 table patterns + 50 protected columns + 200-table catalog {policy_us:.2} µs ({:+.1}%)",
        (policy_us / plain_us - 1.0) * 100.0
    );

    // Row filters: ten filters on the Chinook gold queries, against the same queries without.
    let chinook: Vec<String> = chinook_gold()
        .into_iter()
        .filter(|q| plain.check(q).is_ok())
        .collect();
    let filtered = Guard::new(row_filter_policy()).expect("policy");
    let vars = Vars::new()
        .with("tenant", 12)
        .with("hidden_employee", 1)
        .with("floor", 0)
        .with("hidden_playlist", 2);
    print_row_filter_overhead(&plain, &filtered, &chinook, &vars);
    let annotated = Guard::new(annotated_policy()).expect("policy");
    print_annotation_overhead(&plain, &annotated, &chinook);

    print_size_growth();

    let mut group = c.benchmark_group("check");
    group.throughput(Throughput::Elements(sqlite.len() as u64));
    group.bench_function("corpus (all queries per iteration)", |b| {
        b.iter(|| {
            for q in &sqlite {
                let _ = black_box(plain.check(black_box(q)));
            }
        })
    });
    group.throughput(Throughput::Elements(synthetic.len() as u64));
    group.bench_function("synthetic plain", |b| {
        b.iter(|| {
            for q in &synthetic {
                let _ = black_box(plain.check(black_box(q)));
            }
        })
    });
    group.bench_function("synthetic with large policy", |b| {
        b.iter(|| {
            for q in &synthetic {
                let _ = black_box(with_policy.check(black_box(q)));
            }
        })
    });
    // The row filters' cost per iteration, for criterion's own statistics.
    group.throughput(Throughput::Elements(chinook.len() as u64));
    group.bench_function("chinook gold plain", |b| {
        b.iter(|| {
            for q in &chinook {
                let _ = black_box(plain.check_with(black_box(q), &vars));
            }
        })
    });
    group.bench_function("chinook gold with 10 row filters", |b| {
        b.iter(|| {
            for q in &chinook {
                let _ = black_box(filtered.check_with(black_box(q), &vars));
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
