//! The Rust figure for `bench/compare.mjs --rust`: `Guard::check` timed on core directly, with the
//! same method and queries as the Node benchmark. Prints `{"<corpus file>": median_us, ...}`.

use std::path::PathBuf;
use std::time::Instant;

use sqlgate::{Dialect, Guard};

// The allocator the Node addon ships with (src/lib.rs), so that Node / Rust compares like with like.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SETS: [(&str, Dialect); 3] = [
    ("chinook/chinook_gold.jsonl", Dialect::Sqlite),
    ("chinook/chinook_gold_postgres.jsonl", Dialect::Postgres),
    ("spider/spider_dev.jsonl", Dialect::Sqlite),
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(31);
    let corpus = std::env::var_os("SQLGATE_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"));
    let mut out = serde_json::Map::new();
    for (file, dialect) in SETS {
        let Ok(text) = std::fs::read_to_string(corpus.join(file)) else {
            continue;
        };
        let queries: Vec<String> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|row| row["sql"].as_str().map(str::to_string))
            .collect();
        let guard = Guard::for_dialect(dialect);
        for q in &queries {
            let _ = std::hint::black_box(guard.check(q));
        }
        let per_query: Vec<f64> = queries
            .iter()
            .map(|q| {
                median(
                    (0..runs)
                        .map(|_| {
                            let t = Instant::now();
                            let _ = std::hint::black_box(guard.check(std::hint::black_box(q)));
                            t.elapsed().as_secs_f64() * 1e6
                        })
                        .collect(),
                )
            })
            .collect();
        out.insert(file.to_string(), serde_json::Value::from(median(per_query)));
    }
    println!("{}", serde_json::Value::Object(out));
}
