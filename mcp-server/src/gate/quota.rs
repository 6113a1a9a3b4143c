//! Quotas: a principal's limits on calls per minute, rows returned per hour, mutations
//! committed per day, each over a sliding window, in memory, counted **per caller**: every
//! caller a principal serves (one per verified subject, tenant or certificate; a static
//! token's principal is one caller) has its own windows, so one tenant using its quota up
//! leaves the others theirs. A call over it is refused as `quota_exceeded`, retryable, with the
//! time until enough of the window has passed. At most [`MAX_CALLERS`] callers are counted at
//! once; past that, callers with nothing left in their windows are forgotten first, then the
//! one idle longest.
//!
//! In memory per instance: N instances behind a load balancer allow up to N times the quota.
//! Route a principal to one instance (sticky by token) or divide its limits by N; a shared
//! counter would put a round trip to a store in front of every call.

use std::collections::{HashMap, VecDeque};
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

/// Callers counted at once per principal.
pub const MAX_CALLERS: usize = 10_000;

#[derive(Debug)]
struct Windows {
    calls: Window,
    rows: Window,
    mutations: Window,
}

impl Windows {
    fn new() -> Self {
        Windows {
            calls: Window::new(Duration::from_secs(60)),
            rows: Window::new(Duration::from_secs(3600)),
            mutations: Window::new(Duration::from_secs(86_400)),
        }
    }

    /// The last thing counted (`None`: nothing left in any window at `now`).
    fn last_use(&mut self, now: Instant) -> Option<Instant> {
        [&mut self.calls, &mut self.rows, &mut self.mutations]
            .into_iter()
            .filter_map(|w| {
                w.prune(now);
                w.events.back().map(|&(at, _)| at)
            })
            .max()
    }
}

/// One principal's quota and what each of its callers used.
#[derive(Debug)]
pub struct Quota {
    limits: QuotaLimits,
    used: Mutex<HashMap<String, Windows>>,
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
            used: Mutex::new(HashMap::new()),
        }
    }

    /// The limits.
    pub fn limits(&self) -> QuotaLimits {
        self.limits
    }

    /// `f` over the windows of caller `who` (see [`crate::gate`]'s callers: an identity).
    fn with<T>(&self, who: &str, now: Instant, f: impl FnOnce(&mut Windows) -> T) -> T {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        if !used.contains_key(who) && used.len() >= MAX_CALLERS {
            make_room(&mut used, now);
        }
        f(used.entry(who.to_string()).or_insert_with(Windows::new))
    }

    /// Admits one tool call of caller `who` (and counts it), or says when the next one fits.
    pub fn admit_call(&self, who: &str, now: Instant) -> Result<(), QuotaExceeded> {
        let Some(limit) = self.limits.calls_per_minute else {
            return Ok(());
        };
        self.with(who, now, |w| {
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

    /// Whether a read of `who` may run: the rows it got in the last hour are under the limit.
    pub fn admit_rows(&self, who: &str, now: Instant) -> Result<(), QuotaExceeded> {
        let Some(limit) = self.limits.rows_per_hour else {
            return Ok(());
        };
        self.with(who, now, |w| w.rows.room(now, limit))
            .map_err(|retry_after| QuotaExceeded {
                kind: QuotaKind::Rows,
                limit,
                retry_after,
            })
    }

    /// Counts `n` rows returned to `who`.
    pub fn record_rows(&self, who: &str, now: Instant, n: u64) {
        if self.limits.rows_per_hour.is_some() {
            self.with(who, now, |w| w.rows.add(now, n));
        }
    }

    /// Whether a mutation of `who` may run: those it committed in the last day are under the
    /// limit.
    pub fn admit_mutation(&self, who: &str, now: Instant) -> Result<(), QuotaExceeded> {
        let Some(limit) = self.limits.mutations_per_day else {
            return Ok(());
        };
        self.with(who, now, |w| w.mutations.room(now, limit))
            .map_err(|retry_after| QuotaExceeded {
                kind: QuotaKind::Mutations,
                limit,
                retry_after,
            })
    }

    /// Counts one mutation committed by `who`.
    pub fn record_mutation(&self, who: &str, now: Instant) {
        if self.limits.mutations_per_day.is_some() {
            self.with(who, now, |w| w.mutations.add(now, 1));
        }
    }
}

/// Room for one more caller: those with empty windows go; if none has, the one idle longest.
fn make_room(used: &mut HashMap<String, Windows>, now: Instant) {
    let mut idlest: Option<(String, Instant)> = None;
    used.retain(|who, w| match w.last_use(now) {
        None => false,
        Some(at) => {
            if idlest.as_ref().is_none_or(|(_, t)| at < *t) {
                idlest = Some((who.clone(), at));
            }
            true
        }
    });
    if used.len() >= MAX_CALLERS {
        if let Some((who, _)) = idlest {
            used.remove(&who);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "alice";

    #[test]
    fn calls_slide_out_of_the_window() {
        let q = Quota::new(QuotaLimits {
            calls_per_minute: Some(2),
            ..QuotaLimits::default()
        });
        let t0 = Instant::now();
        assert!(q.admit_call(A, t0).is_ok());
        assert!(q.admit_call(A, t0 + Duration::from_secs(10)).is_ok());
        let e = q.admit_call(A, t0 + Duration::from_secs(20)).unwrap_err();
        assert_eq!(e.kind, QuotaKind::Calls);
        assert_eq!(
            e.retry_after,
            Duration::from_secs(40),
            "the first call leaves at 60 s"
        );
        // A refused call is not counted: at 60 s the first has left and one more fits.
        assert!(q.admit_call(A, t0 + Duration::from_secs(60)).is_ok());
        assert!(q.admit_call(A, t0 + Duration::from_secs(61)).is_err());
    }

    #[test]
    fn rows_count_what_was_returned_and_wait_for_enough_to_leave() {
        let q = Quota::new(QuotaLimits {
            rows_per_hour: Some(100),
            ..QuotaLimits::default()
        });
        let t0 = Instant::now();
        assert!(q.admit_rows(A, t0).is_ok());
        q.record_rows(A, t0, 60);
        q.record_rows(A, t0 + Duration::from_secs(600), 50);
        let e = q.admit_rows(A, t0 + Duration::from_secs(700)).unwrap_err();
        assert_eq!((e.kind, e.limit), (QuotaKind::Rows, 100));
        assert_eq!(
            e.retry_after,
            Duration::from_secs(2900),
            "the 60 rows leave at 3600 s"
        );
        assert!(q.admit_rows(A, t0 + Duration::from_secs(3600)).is_ok());
    }

    #[test]
    fn mutations_per_day_and_no_limit() {
        let q = Quota::new(QuotaLimits {
            mutations_per_day: Some(1),
            ..QuotaLimits::default()
        });
        let t0 = Instant::now();
        assert!(q.admit_mutation(A, t0).is_ok());
        q.record_mutation(A, t0);
        assert_eq!(
            q.admit_mutation(A, t0 + Duration::from_secs(3600))
                .unwrap_err()
                .retry_after,
            Duration::from_secs(82_800)
        );
        let free = Quota::default();
        for i in 0..1000 {
            assert!(free.admit_call(A, t0 + Duration::from_millis(i)).is_ok());
        }
        assert!(free.limits().is_unlimited());
    }

    #[test]
    fn each_caller_has_its_own_windows() {
        let q = Quota::new(QuotaLimits {
            calls_per_minute: Some(1),
            rows_per_hour: Some(10),
            ..QuotaLimits::default()
        });
        let t0 = Instant::now();
        assert!(q.admit_call(A, t0).is_ok());
        assert!(q.admit_call(A, t0).is_err(), "alice used hers");
        assert!(q.admit_call("bob", t0).is_ok(), "bob's is his own");
        q.record_rows("bob", t0, 10);
        assert!(q.admit_rows("bob", t0).is_err());
        assert!(q.admit_rows(A, t0).is_ok());
    }

    #[test]
    fn past_the_bound_the_idle_go_first() {
        let q = Quota::new(QuotaLimits {
            calls_per_minute: Some(1),
            ..QuotaLimits::default()
        });
        let t0 = Instant::now();
        for i in 0..MAX_CALLERS {
            let at = t0 + Duration::from_millis(u64::try_from(i).unwrap_or(0));
            assert!(q.admit_call(&format!("c{i}"), at).is_ok());
        }
        let later = t0 + Duration::from_secs(30);
        // c0 was idle longest: it goes; the others keep their windows.
        assert!(q.admit_call("new", later).is_ok());
        assert!(q.admit_call("c1", later).is_err());
        assert_eq!(q.used.lock().map(|u| u.len()).unwrap_or(0), MAX_CALLERS);
        // A minute on, every window is empty: all are forgotten at once.
        let after = t0 + Duration::from_secs(120);
        assert!(q.admit_call("newer", after).is_ok());
        assert!(q.used.lock().map(|u| u.len()).unwrap_or(0) < 10);
    }
}
