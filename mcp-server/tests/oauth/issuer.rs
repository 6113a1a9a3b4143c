//! A stand-in OAuth issuer on loopback: its discovery document and a JWKS that a test can
//! change (a key rotation), counting the fetches; and access tokens minted with its keys.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};

use base64::Engine as _;
use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::keys;

/// The resource URL the server is configured with: the audience of its tokens.
pub const RESOURCE: &str = "https://db.example.test/mcp";

/// The issuer.
#[derive(Clone)]
pub struct Issuer {
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    jwks: Arc<RwLock<Value>>,
    fetches: Arc<AtomicUsize>,
}

impl Issuer {
    /// Serves `/.well-known/openid-configuration` and `/jwks` (publishing `jwks`, a list of
    /// JWK texts) until the test's runtime ends.
    pub async fn start(jwks: &[&str]) -> Issuer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind issuer");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let issuer = Issuer {
            url: url.clone(),
            jwks: Arc::new(RwLock::new(Value::Null)),
            fetches: Arc::new(AtomicUsize::new(0)),
        };
        issuer.publish(jwks);
        let (set, count) = (issuer.jwks.clone(), issuer.fetches.clone());
        let discovery = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")});
        let app = axum::Router::new()
            .route(
                "/.well-known/openid-configuration",
                axum::routing::get(move || std::future::ready(axum::Json(discovery.clone()))),
            )
            .route(
                "/jwks",
                axum::routing::get(move || {
                    count.fetch_add(1, Ordering::SeqCst);
                    let v = set.read().expect("jwks").clone();
                    std::future::ready(axum::Json(v))
                }),
            );
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        issuer
    }

    /// Publishes these keys from now on (the whole set is replaced).
    pub fn publish(&self, jwks: &[&str]) {
        let keys: Vec<Value> = jwks
            .iter()
            .map(|k| serde_json::from_str(k).expect("jwk"))
            .collect();
        *self.jwks.write().expect("jwks") = json!({ "keys": keys });
    }

    /// How many times the JWKS was fetched.
    pub fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }

    /// Claims of a valid token for `sub`, with `scope` and `extra` claims, expiring in an hour.
    pub fn claims(&self, sub: &str, scope: &str, extra: Value) -> Value {
        let now = now();
        let mut c = json!({
            "iss": self.url, "aud": RESOURCE, "sub": sub, "client_id": "test-agent",
            "scope": scope, "iat": now, "exp": now + 3600,
        });
        if let (Some(c), Some(extra)) = (c.as_object_mut(), extra.as_object()) {
            for (k, v) in extra {
                c.insert(k.clone(), v.clone());
            }
        }
        c
    }
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or_default()
}

/// `claims` signed with the key `kid` (one of `keys`) under `alg`.
pub fn sign(claims: &Value, kid: &str, alg: Algorithm) -> String {
    let key = match kid {
        "rsa-1" => EncodingKey::from_rsa_pem(keys::RSA_PEM.as_bytes()),
        "rsa-2" => EncodingKey::from_rsa_pem(keys::RSA2_PEM.as_bytes()),
        "ec-1" => EncodingKey::from_ec_pem(keys::EC_PEM.as_bytes()),
        "ed-1" => EncodingKey::from_ed_pem(keys::ED_PEM.as_bytes()),
        other => panic!("no key {other}"),
    }
    .expect("test key");
    let mut header = Header::new(alg);
    header.kid = Some(kid.to_string());
    encode(&header, claims, &key).expect("sign")
}

/// A token whose header and payload are `header` and `claims`, with `signature` as written (for
/// forged tokens: `alg: none`, a key confusion, a tampered payload).
pub fn forge(header: &Value, claims: &Value, signature: &[u8]) -> String {
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    format!(
        "{}.{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes()),
        b64(signature)
    )
}
