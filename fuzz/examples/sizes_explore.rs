//! Runs the `sizes_sqlite` oracle on N pseudo-random cases without libFuzzer and prints how many
//! the guard approved, refused, and the first findings: `cargo run --release --example
//! sizes_explore -- 20000` (from `fuzz/`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use arbitrary::{Arbitrary, Unstructured};
use sqlgate_fuzz::sizes::{connection, run, SizeQuery};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5000);
    let conn = connection();
    let (mut approved, mut findings, mut largest) = (0, 0, 0);
    // A fixed linear congruential stream: the same cases on every run.
    let mut state: u64 = 0x5eed;
    for _ in 0..n {
        let bytes: Vec<u8> = (0..96)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 56) as u8
            })
            .collect();
        let Ok(case) = SizeQuery::arbitrary_take_rest(Unstructured::new(&bytes)) else {
            continue;
        };
        let outcome = run(&conn, &case);
        approved += usize::from(outcome.approved);
        largest = largest.max(outcome.largest);
        if let Some(finding) = outcome.finding {
            findings += 1;
            if findings <= 5 {
                println!("FINDING: {finding}\n");
            }
        }
    }
    println!(
        "{n} cases: {approved} approved (their largest part: {largest} bytes), {findings} findings"
    );
}
