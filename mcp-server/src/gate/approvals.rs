//! Approvals asked for by `input_required` (MCP 2026-07-28) or of an external approver: the
//! secret that seals each one's state (the client carries it to the retry, so any instance
//! sharing the secret can finish it), the states already used here (each commits at most once
//! per instance, or across instances with a shared table), and the external approver when one
//! is configured.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ring::rand::{SecureRandom, SystemRandom};

/// The shortest sealing secret accepted (HMAC-SHA256: 32 bytes of entropy).
pub const MIN_KEY_BYTES: usize = 32;
/// States remembered at most; past this, those expired are forgotten (a state's expiry bounds
/// how long it must be remembered), then, if still full, new approvals are refused.
const MAX_REMEMBERED: usize = 100_000;

/// An external approver's answer to one posting of a request, as it sent it (JSON).
pub type ApproverReply = Pin<Box<dyn Future<Output = Result<serde_json::Value, String>> + Send>>;

/// An external approver (`approval = { webhook = ... }`): posts a request (JSON) and returns
/// the approver's reply; the same request posted again asks for its current decision.
pub trait ExternalApprover: Send + Sync {
    /// Posts `request`; the reply, or why there is none (unreachable, not JSON, not 2xx).
    fn post(&self, request: serde_json::Value) -> ApproverReply;
}

/// The sealing secret and the states used.
pub struct ApprovalLedger {
    /// `None` only if the system's random source failed: then nothing is sealed or opened.
    key: Option<Vec<u8>>,
    used: Mutex<HashMap<String, Instant>>,
    external: Option<Arc<dyn ExternalApprover>>,
    used_table: Option<String>,
}

impl ApprovalLedger {
    /// A ledger sealing with `key` (at least [`MIN_KEY_BYTES`]).
    pub fn with_key(key: Vec<u8>) -> Result<Self, String> {
        if key.len() < MIN_KEY_BYTES {
            return Err(format!(
                "the approval key has {} bytes; it needs at least {MIN_KEY_BYTES} (e.g. `openssl rand -hex 32`)",
                key.len()
            ));
        }
        Ok(ApprovalLedger {
            key: Some(key),
            used: Mutex::new(HashMap::new()),
            external: None,
            used_table: None,
        })
    }

    /// A ledger with a secret of its own, made now: its states are good on this instance only.
    /// Should the system's random source fail, it has no key, and every approval by
    /// `input_required` is refused (never sealed with a guessable key).
    pub fn random() -> Self {
        let mut key = vec![0u8; MIN_KEY_BYTES];
        let key = match SystemRandom::new().fill(&mut key) {
            Ok(()) => Some(key),
            Err(_) => {
                tracing::warn!("no random approval key (the system's random source failed); approvals by input_required are refused unless approval_key_env is set");
                None
            }
        };
        ApprovalLedger {
            key,
            used: Mutex::new(HashMap::new()),
            external: None,
            used_table: None,
        }
    }

    /// The same ledger, asking `approver` instead of the MCP client's user.
    pub fn with_external(mut self, approver: Arc<dyn ExternalApprover>) -> Self {
        self.external = Some(approver);
        self
    }

    /// The same ledger, recording each approval it commits in the database's `table` too, in
    /// the commit's own transaction: instances sharing the database commit each at most once.
    pub fn with_used_table(mut self, table: &str) -> Self {
        self.used_table = Some(table.to_string());
        self
    }

    /// The statement recording `nonce` as used in the shared table (when one is configured):
    /// it inserts one row, or none when another instance used it already. `None` without a
    /// table, or for a nonce that is not this ledger's (32 hex digits).
    pub fn claim_sql(&self, nonce: &str, now: &str) -> Option<String> {
        let table = self.used_table.as_deref()?;
        let hex = nonce.len() == 32 && nonce.bytes().all(|b| b.is_ascii_hexdigit());
        let stamp = now
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-:.".contains(&b));
        (hex && stamp).then(|| {
            format!(
                "INSERT INTO {table} (nonce, used_at) SELECT '{nonce}', '{now}' FROM (SELECT 1 AS one) AS d \
                 WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE nonce = '{nonce}')"
            )
        })
    }

    /// The external approver, when one is configured.
    pub fn external(&self) -> Option<&Arc<dyn ExternalApprover>> {
        self.external.as_ref()
    }

    /// The sealing secret (`None`: there is none, see [`Self::random`]).
    pub fn key(&self) -> Option<&[u8]> {
        self.key.as_deref()
    }

    /// A fresh random nonce (hex), naming one approval; `None` if the random source failed.
    pub fn nonce() -> Option<String> {
        let mut bytes = [0u8; 16];
        SystemRandom::new().fill(&mut bytes).ok()?;
        Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Marks the state `nonce` used (remembered until `until`, its expiry); false when it
    /// already was, or when too many live states are remembered to take one more.
    pub fn use_once(&self, nonce: &str, until: Instant) -> bool {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        if used.contains_key(nonce) {
            return false;
        }
        if used.len() >= MAX_REMEMBERED {
            let now = Instant::now();
            used.retain(|_, expiry| *expiry > now);
            if used.len() >= MAX_REMEMBERED {
                return false;
            }
        }
        used.insert(nonce.to_string(), until);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_state_is_used_once() {
        let ledger = ApprovalLedger::random();
        let later = Instant::now() + Duration::from_secs(60);
        let n = ApprovalLedger::nonce().unwrap_or_default();
        assert_eq!(n.len(), 32);
        assert_ne!(Some(n.clone()), ApprovalLedger::nonce());
        assert!(ledger.use_once(&n, later));
        assert!(!ledger.use_once(&n, later));
        assert!(ledger.use_once(&ApprovalLedger::nonce().unwrap_or_default(), later));
    }

    #[test]
    fn a_claim_needs_a_table_and_a_nonce_of_ours() {
        let n = "0123456789abcdef0123456789abcdef";
        let now = "2026-12-05T00:00:00Z";
        assert_eq!(ApprovalLedger::random().claim_sql(n, now), None);
        let l = ApprovalLedger::random().with_used_table("sqlgate_approvals_used");
        let sql = l.claim_sql(n, now).unwrap_or_default();
        assert!(sql.starts_with("INSERT INTO sqlgate_approvals_used (nonce, used_at)"));
        assert!(sql.contains("WHERE nonce = '0123456789abcdef0123456789abcdef'"));
        assert_eq!(l.claim_sql("x' OR '1'='1", now), None);
        assert_eq!(l.claim_sql(n, "now'); DROP TABLE t; --"), None);
    }

    #[test]
    fn short_keys_are_refused() {
        assert!(ApprovalLedger::with_key(vec![7; 31]).is_err());
        let l = ApprovalLedger::with_key(vec![7; 32]).map(|l| l.key().map(<[u8]>::to_vec));
        assert_eq!(l, Ok(Some(vec![7; 32])));
        assert_eq!(ApprovalLedger::random().key().map(<[u8]>::len), Some(32));
        assert_ne!(
            ApprovalLedger::random().key(),
            ApprovalLedger::random().key()
        );
    }
}
