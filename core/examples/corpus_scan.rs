//! Scans a JSONL corpus file and prints refusals: `corpus_scan FILE [DIALECT]`.

// Test code: a failed unwrap is a failed test, with the value in the message.
#![allow(clippy::unwrap_used, clippy::expect_used)]
use sqlgate::{Dialect, Guard, Policy};
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = std::fs::read_to_string(&args[0]).expect("read");
    let mut guards: BTreeMap<String, Guard> = BTreeMap::new();
    let (mut total, mut refused) = (0, 0);
    let mut by_code: BTreeMap<String, usize> = BTreeMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let sql = v["sql"].as_str().unwrap_or_default();
        let d = args
            .get(1)
            .cloned()
            .unwrap_or_else(|| v["dialect"].as_str().unwrap_or("postgres").to_string());
        let d = if d == "ansi" {
            "postgres".to_string()
        } else {
            d
        };
        let guard = guards.entry(d.clone()).or_insert_with(|| {
            Guard::new(Policy::for_dialect(d.parse::<Dialect>().expect("dialect"))).expect("guard")
        });
        total += 1;
        if let Err(r) = guard.check(sql) {
            refused += 1;
            *by_code.entry(r.error.code.to_string()).or_default() += 1;
            println!(
                "{} [{}] {}: {}\n    {}",
                v["id"],
                d,
                r.error.code,
                r.error.message,
                sql.replace('\n', " ")
            );
        }
    }
    println!("{refused}/{total} refused {:?}", by_code);
}
