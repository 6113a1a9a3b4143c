//! The issuer's signing keys (a JWKS): read from a file, fetched from a `jwks_uri`, or found
//! through the issuer's discovery document; cached, reloaded when a token names an unknown
//! `kid` (at most once a minute) or when the set is an hour old. A reload replaces the whole
//! set, so a key the issuer dropped is dropped here too.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

/// Where the keys come from.
#[derive(Debug, Clone, PartialEq)]
pub enum KeySource {
    /// A JWKS file (`jwks_file`), read again on reload.
    File(PathBuf),
    /// A JWKS URL (`jwks_uri`).
    Uri(String),
    /// The `jwks_uri` of the issuer's discovery document (OpenID Connect, then RFC 8414).
    Discover,
}

/// One usable signing key.
#[derive(Clone)]
pub struct Key {
    /// Its `kid`.
    pub kid: Option<String>,
    /// The one algorithm its JWK allows (`alg`), if it names one.
    pub alg: Option<Algorithm>,
    /// The key.
    pub key: DecodingKey,
}

/// A token names no key this server has, or the keys cannot be loaded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeyError {
    /// No key with this `kid` (after a reload, when one was allowed).
    #[error("no signing key with kid `{0}`")]
    UnknownKid(String),
    /// The token names no `kid` and the set has no single key of its algorithm's family.
    #[error("the token names no key (kid) and the issuer has several, or none, for {0:?}")]
    Ambiguous(Algorithm),
    /// The keys could not be read.
    #[error("the issuer's keys are unavailable: {0}")]
    Unavailable(String),
}

/// How long a set is trusted before the next token reloads it.
const MAX_AGE: Duration = Duration::from_secs(3600);
/// The least time between two reloads, unless the settings say otherwise.
pub const DEFAULT_RELOAD_INTERVAL: Duration = Duration::from_secs(60);
/// The largest JWKS or discovery document read.
const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;
/// How long a fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

struct Loaded {
    keys: Arc<Vec<Key>>,
    loaded_at: Option<Instant>,
    attempted_at: Option<Instant>,
    last_error: Option<String>,
}

/// The keys, cached.
pub struct KeyCache {
    source: KeySource,
    issuer: String,
    reload_interval: Duration,
    client: reqwest::Client,
    loaded: RwLock<Loaded>,
    reload: tokio::sync::Mutex<()>,
}

impl KeyCache {
    /// A cache for `source` (discovery starts at `issuer`), reloaded at most once per
    /// `reload_interval`; nothing is loaded yet.
    pub fn new(source: KeySource, issuer: &str, reload_interval: Duration) -> Result<Self, String> {
        Ok(KeyCache {
            source,
            issuer: issuer.trim_end_matches('/').to_string(),
            reload_interval,
            client: http_client()?,
            loaded: RwLock::new(Loaded {
                keys: Arc::new(Vec::new()),
                loaded_at: None,
                attempted_at: None,
                last_error: None,
            }),
            reload: tokio::sync::Mutex::new(()),
        })
    }

    /// The key set in force, and whether it is fresh (loaded within the hour).
    pub fn current(&self) -> (Arc<Vec<Key>>, bool) {
        let l = match self.loaded.read() {
            Ok(l) => l,
            Err(poisoned) => poisoned.into_inner(),
        };
        let fresh = l.loaded_at.is_some_and(|t| t.elapsed() < MAX_AGE);
        (l.keys.clone(), fresh)
    }

    /// The key for a token's `kid` and `alg`, reloading the set once when it does not hold it.
    pub async fn key_for(&self, kid: Option<&str>, alg: Algorithm) -> Result<Key, KeyError> {
        let (keys, fresh) = self.current();
        if fresh {
            if let Some(k) = pick(&keys, kid, alg) {
                return Ok(k);
            }
        }
        self.reload_if_due().await;
        let (keys, _) = self.current();
        if let Some(k) = pick(&keys, kid, alg) {
            return Ok(k);
        }
        if keys.is_empty() {
            let why = self
                .last_error()
                .unwrap_or_else(|| "no key loaded yet".into());
            return Err(KeyError::Unavailable(why));
        }
        Err(match kid {
            Some(k) => KeyError::UnknownKid(k.to_string()),
            None => KeyError::Ambiguous(alg),
        })
    }

    fn last_error(&self) -> Option<String> {
        match self.loaded.read() {
            Ok(l) => l.last_error.clone(),
            Err(poisoned) => poisoned.into_inner().last_error.clone(),
        }
    }

    /// Loads the set now (at start: a configuration error shows before the first call).
    pub async fn load(&self) -> Result<usize, String> {
        let _one_at_a_time = self.reload.lock().await;
        self.reload_now().await
    }

    async fn reload_if_due(&self) {
        let _one_at_a_time = self.reload.lock().await;
        let due = match self.loaded.read() {
            Ok(l) => l.attempted_at,
            Err(poisoned) => poisoned.into_inner().attempted_at,
        }
        .is_none_or(|t| t.elapsed() >= self.reload_interval);
        if due {
            // The error stays in `last_error` for the refusal that follows.
            let _ = self.reload_now().await;
        }
    }

    async fn reload_now(&self) -> Result<usize, String> {
        let result = self.fetch_set().await;
        let mut l = match self.loaded.write() {
            Ok(l) => l,
            Err(poisoned) => poisoned.into_inner(),
        };
        l.attempted_at = Some(Instant::now());
        match result {
            Ok(keys) => {
                let n = keys.len();
                l.keys = Arc::new(keys);
                l.loaded_at = Some(Instant::now());
                l.last_error = None;
                Ok(n)
            }
            Err(e) => {
                l.last_error = Some(e.clone());
                Err(e)
            }
        }
    }

    async fn fetch_set(&self) -> Result<Vec<Key>, String> {
        let document = match &self.source {
            KeySource::File(path) => std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
            KeySource::Uri(uri) => self.fetch(uri).await?,
            KeySource::Discover => {
                let uri = self.discover().await?;
                self.fetch(&uri).await?
            }
        };
        parse_jwks(&document)
    }

    /// The `jwks_uri` of the issuer's metadata: OpenID Connect discovery, then RFC 8414; the
    /// document must name this issuer (a mix-up defence).
    async fn discover(&self) -> Result<String, String> {
        let mut tried = Vec::new();
        for url in discovery_urls(&self.issuer) {
            let doc = match self.fetch(&url).await {
                Ok(d) => d,
                Err(e) => {
                    tried.push(e);
                    continue;
                }
            };
            let v: Value = serde_json::from_str(&doc)
                .map_err(|e| format!("{url} is not a JSON metadata document: {e}"))?;
            let issuer = v.get("issuer").and_then(Value::as_str).unwrap_or_default();
            if issuer.trim_end_matches('/') != self.issuer {
                return Err(format!(
                    "{url} names the issuer `{issuer}`, not `{}`",
                    self.issuer
                ));
            }
            return match v.get("jwks_uri").and_then(Value::as_str) {
                Some(uri) => Ok(uri.to_string()),
                None => Err(format!("{url} has no jwks_uri")),
            };
        }
        Err(format!("no discovery document: {}", tried.join("; ")))
    }

    async fn fetch(&self, url: &str) -> Result<String, String> {
        check_fetch_url(url)?;
        let mut response = self
            .client
            .get(url)
            .send()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("GET {url}: HTTP {}", response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("GET {url}: {e}"))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(format!("GET {url}: larger than {MAX_DOCUMENT_BYTES} bytes"));
            }
            body.extend_from_slice(&chunk);
        }
        String::from_utf8(body).map_err(|_| format!("GET {url}: not UTF-8"))
    }
}

/// The discovery documents to try for `issuer` (no trailing `/`): OpenID Connect's
/// `{issuer}/.well-known/openid-configuration`, then RFC 8414's
/// `https://host/.well-known/oauth-authorization-server{path}`.
pub fn discovery_urls(issuer: &str) -> Vec<String> {
    let mut urls = vec![format!("{issuer}/.well-known/openid-configuration")];
    if let Ok(uri) = issuer.parse::<http::Uri>() {
        if let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) {
            let path = uri.path().trim_end_matches('/');
            urls.push(format!(
                "{scheme}://{authority}/.well-known/oauth-authorization-server{path}"
            ));
        }
    }
    urls
}

/// Keys are fetched over HTTPS; plain HTTP only from a loopback host (a local issuer, tests).
pub fn check_fetch_url(url: &str) -> Result<(), String> {
    let uri: http::Uri = url.parse().map_err(|_| format!("`{url}` is not a URL"))?;
    match (uri.scheme_str(), uri.host()) {
        (Some("https"), Some(_)) => Ok(()),
        (Some("http"), Some(host)) if is_loopback_host(host) => Ok(()),
        _ => Err(format!(
            "`{url}`: keys and metadata are fetched over https (http only from a loopback host)"
        )),
    }
}

pub(crate) fn is_loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The HTTPS client: rustls with the ring provider and the webpki roots (as the PostgreSQL
/// backend's TLS), no redirects (a key set is where its URL says), a timeout.
pub(crate) fn http_client() -> Result<reqwest::Client, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let roots = rustls::RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    reqwest::Client::builder()
        .use_preconfigured_tls(tls)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(FETCH_TIMEOUT)
        .build()
        .map_err(|e| format!("HTTP client: {e}"))
}

/// The signing keys of a JWKS document. Keys this server never accepts are left out rather than
/// failing the set: symmetric (`oct`) keys, encryption keys (`use: enc`), and keys of a type
/// or algorithm it cannot read.
pub fn parse_jwks(document: &str) -> Result<Vec<Key>, String> {
    let v: Value =
        serde_json::from_str(document).map_err(|e| format!("the JWKS is not JSON: {e}"))?;
    let Some(entries) = v.get("keys").and_then(Value::as_array) else {
        return Err("the JWKS has no `keys` array".into());
    };
    let keys: Vec<Key> = entries.iter().filter_map(signing_key).collect();
    if keys.is_empty() && !entries.is_empty() {
        return Err("the JWKS holds no asymmetric signing key".into());
    }
    Ok(keys)
}

fn signing_key(entry: &Value) -> Option<Key> {
    if entry.get("kty").and_then(Value::as_str) == Some("oct") {
        return None;
    }
    let jwk: Jwk = serde_json::from_value(entry.clone()).ok()?;
    if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
        return None;
    }
    let alg = match jwk.common.key_algorithm {
        None => None,
        Some(KeyAlgorithm::HS256 | KeyAlgorithm::HS384 | KeyAlgorithm::HS512) => return None,
        // Its name as a JWS algorithm (`RSA-OAEP` and other encryption names are not one).
        Some(a) => Some(a.to_string().parse::<Algorithm>().ok()?),
    };
    let key = DecodingKey::from_jwk(&jwk).ok()?;
    Some(Key {
        kid: jwk.common.key_id.clone(),
        alg,
        key,
    })
}

/// The key for `kid` (or, without one, the only key of `alg`'s family).
fn pick(keys: &[Key], kid: Option<&str>, alg: Algorithm) -> Option<Key> {
    let family = alg.family();
    match kid {
        Some(kid) => keys.iter().find(|k| k.kid.as_deref() == Some(kid)).cloned(),
        None => {
            let mut of_family = keys.iter().filter(|k| k.key.family() == family);
            match (of_family.next(), of_family.next()) {
                (Some(k), None) => Some(k.clone()),
                _ => None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn discovery_tries_oidc_then_rfc8414_with_the_path_after_the_well_known_part() {
        assert_eq!(
            discovery_urls("https://idp.example/realms/acme"),
            vec![
                "https://idp.example/realms/acme/.well-known/openid-configuration".to_string(),
                "https://idp.example/.well-known/oauth-authorization-server/realms/acme".into(),
            ]
        );
    }

    #[test]
    fn keys_come_over_https_or_from_loopback() {
        assert!(check_fetch_url("https://idp.example/jwks").is_ok());
        assert!(check_fetch_url("http://127.0.0.1:9/jwks").is_ok());
        assert!(check_fetch_url("http://localhost/jwks").is_ok());
        assert!(check_fetch_url("http://[::1]:80/jwks").is_ok());
        assert!(check_fetch_url("http://idp.example/jwks").is_err());
        assert!(check_fetch_url("http://127.0.0.1.nip.io/jwks").is_err());
        assert!(check_fetch_url("file:///etc/passwd").is_err());
    }

    #[test]
    fn a_jwks_keeps_only_asymmetric_signing_keys() {
        let doc = json!({"keys": [
            {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac", "alg": "HS256"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "alg": "EdDSA",
             "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "enc", "use": "enc",
             "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "XYZ", "kid": "unknown"}
        ]})
        .to_string();
        let keys = parse_jwks(&doc).unwrap();
        let kids: Vec<_> = keys.iter().map(|k| k.kid.clone()).collect();
        assert_eq!(kids, vec![Some("ed".to_string())]);
        assert_eq!(keys[0].alg, Some(Algorithm::EdDSA));
        assert!(parse_jwks(r#"{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}"#).is_err());
        assert!(parse_jwks(r#"{"nokeys": []}"#).is_err());
        assert!(parse_jwks("not json").is_err());
        // Without a kid, the only key of the family is the one.
        assert!(pick(&keys, None, Algorithm::EdDSA).is_some());
        assert!(pick(&keys, None, Algorithm::RS256).is_none());
        assert!(pick(&keys, Some("other"), Algorithm::EdDSA).is_none());
    }
}
