//! Arbitrary bytes through `Guard::check`, every dialect, three policies: never panics, the verdict
//! is well formed. Hangs are caught by libFuzzer's `-timeout`; `SQLGATE_FUZZ_SLOW_MS` reports (and
//! with `SQLGATE_FUZZ_SLOW_PANIC=1` fails on) slower inputs.
#![no_main]

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use libfuzzer_sys::fuzz_target;

static SLOWEST_US: AtomicU64 = AtomicU64::new(0);

fuzz_target!(|data: &[u8]| {
    let start = Instant::now();
    let _ = sqlgate_fuzz::oracles::check_bytes(data);
    let us = start.elapsed().as_micros() as u64;
    if us > SLOWEST_US.fetch_max(us, Ordering::Relaxed) && us > 10_000 {
        eprintln!(
            "check_bytes: slowest input so far: {} ms, {} bytes",
            us / 1000,
            data.len()
        );
    }
    if let Some(ms) = std::env::var("SQLGATE_FUZZ_SLOW_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        if us / 1000 > ms && std::env::var_os("SQLGATE_FUZZ_SLOW_PANIC").is_some() {
            panic!(
                "check took {} ms (> {ms} ms) for {} bytes",
                us / 1000,
                data.len()
            );
        }
    }
});
