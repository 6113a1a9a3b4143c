//! Arbitrary bytes through `Guard::check`, every dialect, three policies: never panics, the verdict
//! is well formed, and no input takes more than 100 ms. Hangs are caught by libFuzzer's
//! `-timeout`; an input over `SQLGATE_FUZZ_SLOW_MS` (default 100) in two runs in a row is saved
//! as `artifacts/check_bytes/slow-<ms>ms-<hash>` for `cargo fuzz run check_bytes FILE`, and with
//! `SQLGATE_FUZZ_SLOW_PANIC=1` it fails the run.
#![no_main]
// A fuzz oracle panics on purpose: the panic is the finding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use libfuzzer_sys::fuzz_target;

static SLOWEST_US: AtomicU64 = AtomicU64::new(0);

fn slow_limit_ms() -> u64 {
    static LIMIT: OnceLock<u64> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        std::env::var("SQLGATE_FUZZ_SLOW_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(100)
    })
}

/// Microseconds for one run of the oracle (check, verdict, classify) on `data`.
fn timed(data: &[u8]) -> u64 {
    let start = Instant::now();
    let _ = sqlgate_fuzz::oracles::check_bytes(data);
    start.elapsed().as_micros() as u64
}

fn save_slow(data: &[u8], ms: u64) {
    let mut hasher = DefaultHasher::new();
    data.hash(&mut hasher);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/artifacts/check_bytes");
    let path = format!("{dir}/slow-{ms}ms-{:016x}", hasher.finish());
    match std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, data)) {
        Ok(()) => eprintln!(
            "check_bytes: saved a {ms} ms input ({} bytes) to {path}",
            data.len()
        ),
        Err(e) => eprintln!("check_bytes: could not save a slow input to {path}: {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut us = timed(data);
    if us / 1000 > slow_limit_ms() {
        // Once more, to tell a slow input from a busy machine: the faster run counts.
        us = us.min(timed(data));
        let ms = us / 1000;
        if ms > slow_limit_ms() {
            save_slow(data, ms);
            if std::env::var_os("SQLGATE_FUZZ_SLOW_PANIC").is_some() {
                panic!(
                    "check took {ms} ms (> {} ms) for {} bytes",
                    slow_limit_ms(),
                    data.len()
                );
            }
        }
    }
    if us > SLOWEST_US.fetch_max(us, Ordering::Relaxed) && us > 10_000 {
        eprintln!(
            "check_bytes: slowest input so far: {} ms, {} bytes",
            us / 1000,
            data.len()
        );
    }
});
