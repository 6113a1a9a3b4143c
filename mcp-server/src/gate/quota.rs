//! Quotas per principal: calls per minute, rows returned per hour, mutations committed per day,
//! each over a sliding window, in memory. Every caller a principal serves (one per token's
//! tenant included) draws on the same quota. A call over it is refused as `quota_exceeded`,
//! retryable, with the time until enough of the window has passed.
//!
//! In memory per instance: N instances behind a load balancer allow up to N times the quota.
//! Route a principal to one instance (sticky by token) or divide its limits by N; a shared
//! counter would put a round trip to a store in front of every call.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Deserialize;

/// A principal's limits (`quota = { calls_per_minute = 60, ... }`); `None`: no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QuotaLimits {
    /// Tool calls per minute.
    pub calls_per_minute: Option<u64>,
    /// Rows returned by `run_query` per hour.
    pub rows_per_hour: Option<u64>,
    /// Mutations committed by `run_mutation` per day.
    pub mutations_per_day: Option<u64>,
}

impl QuotaLimits {
    /// True when no limit is set.
    pub fn is_unlimited(&self) -> bool {
        *self == QuotaLimits::default()
    }
}

/// Which limit a call ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaKind {
    /// `calls_per_minute`.
    Calls,
    /// `rows_per_hour`.
    Rows,
    /// `mutations_per_day`.
    Mutations,
}

impl QuotaKind {
    /// The setting's name.
    pub fn setting(self) -> &'static str {
        match self {
            QuotaKind::Calls => "calls_per_minute",
            QuotaKind::Rows => "rows_per_hour",
            QuotaKind::Mutations => "mutations_per_day",
        }
    }
}

/// A call over its principal's quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaExceeded {
    /// The limit it ran into.
    pub kind: QuotaKind,
    /// The limit.
    pub limit: u64,
    /// How long until the window has room again.
    pub retry_after: Duration,
}

/// What happened in the last `span`, oldest first, with its running total.
#[derive(Debug)]
struct Window {
    span: Duration,
    events: VecDeque<(Instant, u64)>,
    total: u64,
}

impl Window {
    fn new(span: Duration) -> Self {
        Window {
            span,
            events: VecDeque::new(),
            total: 0,
        }
    }

    fn prune(&mut self, now: Instant) {
        while let Some(&(at, n)) = self.events.front() {
            if now.duration_since(at) < self.span {
                break;
            }
            self.events.pop_front();
            self.total -= n;
        }
    }

    /// `Ok` when the window is under `limit`; else how long until it is.
    fn room(&mut self, now: Instant, limit: u64) -> Result<(), Duration> {
        self.prune(now);
        if self.total < limit {
            return Ok(());
        }
        // Drop the oldest events until the total is under the limit: the last one dropped
        // leaves the window when its span ends.
        let mut total = self.total;
        for &(at, n) in &self.events {
            total -= n;
            if total < limit {
                return Err((at + self.span).saturating_duration_since(now));
            }
        }
        Err(self.span)
    }

    fn add(&mut self, now: Instant, n: u64) {
        if n == 0 {
            return;
        }
        self.prune(now);
        self.events.push_back((now, n));
        self.total += n;
    }
}

#[derive(Debug)]
struct Windows {
    calls: Window,
    rows: Window,
    mutations: Window,
}

/// One principal's quota and what it used.
#[derive(Debug)]
pub struct Quota {
    limits: QuotaLimits,
    used: Mutex<Windows>,
}

impl Default for Quota {
    fn default() -> Self {
        Quota::new(QuotaLimits::default())
    }
}

impl Quota {
    /// A quota with `limits`, nothing used.
    pub fn new(limits: QuotaLimits) -> Self {
        Quota {
            limits,
            used: Mutex::new(Windows {
                calls: Window::new(Duration::from_secs(60)),
                rows: Window::new(Duration::from_secs(3600)),
                mutations: Window::new(Duration::from_secs(86_400)),
            }),
        }
    }

    /// The limits.
    pub fn limits(&self) -> QuotaLimits {
        self.limits
    }

    fn with<T>(&self, f: impl FnOnce(&mut Windows) -> T) -> T {
        match self.used.lock() {
            Ok(mut w) => f(&mut w),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    /// Admits one tool call (and counts it), or says when the next one fits.
    pub fn admit_call(&self, now: Instant) -> Result<(), QuotaExceeded> {
        let Some(limit) = self.limits.calls_per_minute else {
            return Ok(());
        };
        self.with(|w| {
            w.calls
                .room(now, limit)
                .map_err(|retry_after| QuotaExceeded {
                    kind: QuotaKind::Calls,
                    limit,
                    retry_after,
                })?;
            w.calls.add(now, 1);
            Ok(())
        })
    }

    /// Whether a read may run: the rows returned in the last hour are under the limit.
    pub fn admit_rows(&self, now: Instant) -> Result<(), QuotaExceeded> {
        let Some(limit) = self.limits.rows_per_hour else {
            return Ok(());
        };
        self.with(|w| w.rows.room(now, limit))
            .map_err(|retry_after| QuotaExceeded {
                kind: QuotaKind::Rows,
                limit,
                retry_after,
            })
    }

    /// Counts `n` rows returned.
    pub fn record_rows(&self, now: Instant, n: u64) {
        if self.limits.rows_per_hour.is_some() {
            self.with(|w| w.rows.add(now, n));
        }
    }

    /// Whether a mutation may run: those committed in the last day are under the limit.
    pub fn admit_mutation(&self, now: Instant) -> Result<(), QuotaExceeded> {
        let Some(limit) = self.limits.mutations_per_day else {
            return Ok(());
        };
        self.with(|w| w.mutations.room(now, limit))
            .map_err(|retry_after| QuotaExceeded {
                kind: QuotaKind::Mutations,
                limit,
                retry_after,
            })
    }

    /// Counts one committed mutation.
    pub fn record_mutation(&self, now: Instant) {
        if self.limits.mutations_per_day.is_some() {
            self.with(|w| w.mutations.add(now, 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_slide_out_of_the_window() {
        let q = Quota::new(QuotaLimits {
            calls_per_minute: Some(2),
            ..QuotaLimits::default()
        });
        let t0 = Instant::now();
        assert!(q.admit_call(t0).is_ok());
        assert!(q.admit_call(t0 + Duration::from_secs(10)).is_ok());
        let e = q.admit_call(t0 + Duration::from_secs(20)).unwrap_err();
        assert_eq!(e.kind, QuotaKind::Calls);
        assert_eq!(
            e.retry_after,
            Duration::from_secs(40),
            "the first call leaves at 60 s"
        );
        // A refused call is not counted: at 60 s the first has left and one more fits.
        assert!(q.admit_call(t0 + Duration::from_secs(60)).is_ok());
        assert!(q.admit_call(t0 + Duration::from_secs(61)).is_err());
    }

    #[test]
    fn rows_count_what_was_returned_and_wait_for_enough_to_leave() {
        let q = Quota::new(QuotaLimits {
            rows_per_hour: Some(100),
            ..QuotaLimits::default()
        });
        let t0 = Instant::now();
        assert!(q.admit_rows(t0).is_ok());
        q.record_rows(t0, 60);
        q.record_rows(t0 + Duration::from_secs(600), 50);
        let e = q.admit_rows(t0 + Duration::from_secs(700)).unwrap_err();
        assert_eq!((e.kind, e.limit), (QuotaKind::Rows, 100));
        assert_eq!(
            e.retry_after,
            Duration::from_secs(2900),
            "the 60 rows leave at 3600 s"
        );
        assert!(q.admit_rows(t0 + Duration::from_secs(3600)).is_ok());
    }

    #[test]
    fn mutations_per_day_and_no_limit() {
        let q = Quota::new(QuotaLimits {
            mutations_per_day: Some(1),
            ..QuotaLimits::default()
        });
        let t0 = Instant::now();
        assert!(q.admit_mutation(t0).is_ok());
        q.record_mutation(t0);
        assert_eq!(
            q.admit_mutation(t0 + Duration::from_secs(3600))
                .unwrap_err()
                .retry_after,
            Duration::from_secs(82_800)
        );
        let free = Quota::default();
        for i in 0..1000 {
            assert!(free.admit_call(t0 + Duration::from_millis(i)).is_ok());
        }
        assert!(free.limits().is_unlimited());
    }
}
