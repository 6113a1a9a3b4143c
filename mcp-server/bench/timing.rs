//! Timing: medians and percentiles of samples in milliseconds, and several ways of doing the same
//! thing timed interleaved.

use std::time::Instant;

use crate::Error;

/// The median of `v` (sorted in place); NaN when empty.
pub fn median(v: &mut [f64]) -> f64 {
    percentile(v, 0.5)
}

/// The `p` quantile of `v` (sorted in place), `p` in 0..=1; NaN when empty.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() - 1) as f64 * p).round() as usize;
    v[i.min(v.len() - 1)]
}

/// Milliseconds since `start`.
pub fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// Times `paths` ways of doing the same thing, `rounds` rounds after `warmup` untimed ones:
/// `run(round, path)` does one (the warm-up rounds are numbered from 0 too). Within a round the
/// paths run in a rotating order, so that machine noise hits them alike and no path always runs
/// right after another. Returns `samples[path][round]`, milliseconds.
pub async fn interleaved(
    warmup: usize,
    rounds: usize,
    paths: usize,
    mut run: impl AsyncFnMut(usize, usize) -> Result<(), Error>,
) -> Result<Vec<Vec<f64>>, Error> {
    let mut samples = vec![Vec::with_capacity(rounds); paths];
    for i in 0..warmup + rounds {
        for k in 0..paths {
            let path = (i + k) % paths;
            let start = Instant::now();
            run(if i < warmup { i } else { i - warmup }, path).await?;
            if i >= warmup {
                samples[path].push(ms(start));
            }
        }
    }
    Ok(samples)
}
