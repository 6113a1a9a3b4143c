//! Tokens already verified, kept by their SHA-256 so that an agent's next call with the same
//! token skips the signature (RS256 / ES256 cost 0.2-0.3 ms with the pure-Rust crypto). An
//! entry serves only the exact same token, for at most [`MAX_HOLD`] and never past the token's
//! `exp` (plus the leeway its verification allowed), and only while the key set it was verified
//! against is the one in force: a reload of the issuer's keys (a rotation, a dropped key)
//! empties it in effect.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::jwks::Key;

/// The longest an entry serves.
pub const MAX_HOLD: Duration = Duration::from_secs(60);
/// Entries kept at most; when full, expired ones go, then all.
const MAX_ENTRIES: usize = 4096;

struct Entry<T> {
    token: T,
    until: Instant,
    /// The key set it was verified against.
    keys: Arc<Vec<Key>>,
}

/// Verified tokens (what verification made of each: `T`) by digest.
pub struct VerifiedTokens<T> {
    entries: Mutex<HashMap<[u8; 32], Entry<T>>>,
}

impl<T> Default for VerifiedTokens<T> {
    fn default() -> Self {
        VerifiedTokens {
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Clone> VerifiedTokens<T> {
    /// The verified token with this digest, if still valid against `keys` (the set in force).
    pub fn get(&self, digest: &[u8; 32], keys: &Arc<Vec<Key>>) -> Option<T> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let entry = entries.get(digest)?;
        if entry.until > Instant::now() && Arc::ptr_eq(&entry.keys, keys) {
            return Some(entry.token.clone());
        }
        entries.remove(digest);
        None
    }

    /// Keeps `token` (verified against `keys`; `exp`, its expiry in seconds since the epoch,
    /// was checked with `leeway`).
    pub fn put(
        &self,
        digest: [u8; 32],
        token: &T,
        exp: Option<u64>,
        keys: Arc<Vec<Key>>,
        leeway: Duration,
    ) {
        let Some(left) = exp.and_then(|exp| time_left(exp, leeway)) else {
            return;
        };
        let until = Instant::now() + left.min(MAX_HOLD);
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= MAX_ENTRIES {
            let now = Instant::now();
            entries.retain(|_, e| e.until > now);
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
        }
        entries.insert(
            digest,
            Entry {
                token: token.clone(),
                until,
                keys,
            },
        );
    }
}

/// How long until `exp` (with `leeway`) passes; `None` once it has.
fn time_left(exp: u64, leeway: Duration) -> Option<Duration> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
    Duration::from_secs(exp)
        .checked_add(leeway)?
        .checked_sub(now)
        .filter(|d| !d.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default()
    }

    #[test]
    fn served_only_for_the_same_key_set_and_before_exp() {
        let cache = VerifiedTokens::<&str>::default();
        let keys = Arc::new(Vec::new());
        let hour = Some(now() + 3600);
        cache.put([1; 32], &"a", hour, keys.clone(), Duration::ZERO);
        assert_eq!(cache.get(&[1; 32], &keys), Some("a"));
        assert_eq!(cache.get(&[2; 32], &keys), None, "another token");
        // The same keys, reloaded: another set, so the token is verified again.
        let reloaded = Arc::new(Vec::new());
        assert_eq!(cache.get(&[1; 32], &reloaded), None);
        assert_eq!(cache.get(&[1; 32], &keys), None, "the stale entry is gone");
        // Expired (leeway included), or no `exp`: never kept.
        let thirty = Duration::from_secs(30);
        cache.put([3; 32], &"b", Some(now() - 100), keys.clone(), thirty);
        assert_eq!(cache.get(&[3; 32], &keys), None);
        cache.put([4; 32], &"c", None, keys.clone(), thirty);
        assert_eq!(cache.get(&[4; 32], &keys), None);
        // Within the leeway: kept until it runs out.
        assert!(time_left(now() - 10, thirty).is_some_and(|d| d <= Duration::from_secs(20)));
    }

    #[test]
    fn held_a_minute_at_most() {
        let day = now() + 86_400;
        assert!(time_left(day, Duration::ZERO).is_some_and(|d| d > MAX_HOLD));
        let cache = VerifiedTokens::<&str>::default();
        cache.put(
            [1; 32],
            &"a",
            Some(day),
            Arc::new(Vec::new()),
            Duration::ZERO,
        );
        let until = cache.entries.lock().map(|e| e[&[1; 32]].until).ok();
        assert!(until.is_some_and(|u| u <= Instant::now() + MAX_HOLD));
    }
}
