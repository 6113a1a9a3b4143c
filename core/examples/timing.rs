//! Times `Guard::check` per query: `timing FILE.jsonl...` reads `{"sql", "dialect"}` lines and
//! prints one JSON object with the median, mean and count (microseconds). Used by
//! scripts/bench_vs_sqlglot.py so that both tools are timed on the same queries in one run.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/support/allocator.rs"]
mod allocator;
use allocator::ALLOCATOR;

use std::collections::BTreeMap;
use std::time::Instant;

use sqlgate::{Dialect, Guard};

fn main() {
    let mut guards: BTreeMap<Dialect, Guard> = BTreeMap::new();
    let mut per_query = Vec::new();
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                std::process::exit(2);
            }
        };
        for line in text.lines() {
            let Ok(row) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(sql) = row["sql"].as_str() else {
                continue;
            };
            let dialect: Dialect = row["dialect"]
                .as_str()
                .and_then(|d| d.parse().ok())
                .unwrap_or_default();
            let guard = guards
                .entry(dialect)
                .or_insert_with(|| Guard::for_dialect(dialect));
            let mut runs: Vec<f64> = (0..21)
                .map(|_| {
                    let t = Instant::now();
                    let _ = std::hint::black_box(guard.check(sql));
                    t.elapsed().as_secs_f64() * 1e6
                })
                .collect();
            runs.sort_by(|a, b| a.total_cmp(b));
            per_query.push(runs[runs.len() / 2]);
        }
    }
    let n = per_query.len().max(1);
    let mean = per_query.iter().sum::<f64>() / n as f64;
    per_query.sort_by(|a, b| a.total_cmp(b));
    let median = per_query.get(per_query.len() / 2).copied().unwrap_or(0.0);
    println!(
        "{{\"median_us\": {median:.3}, \"mean_us\": {mean:.3}, \"queries\": {}, \"allocator\": \"{ALLOCATOR}\"}}",
        per_query.len()
    );
}
